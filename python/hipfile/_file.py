"""hipfile.File: a file opened for GPU I/O, with the calls of ``kvikio.CuFile``."""

import collections.abc
import concurrent.futures
import ctypes
import os
import threading

from . import _buffers, _driver, _lib, _stream_io
from ._errors import CODES, HipFileError, check, check_size
from ._redact import redact

_INVALID = CODES["hipFileInvalidValue"]

_MODES = {
    "r": os.O_RDONLY,
    "r+": os.O_RDWR,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "w+": os.O_RDWR | os.O_CREAT | os.O_TRUNC,
    # As kvikio: created when missing, never truncated; writes go to the offsets given.
    "a": os.O_RDWR | os.O_CREAT,
    "a+": os.O_RDWR | os.O_CREAT,
}

_pool_lock = threading.Lock()
_pool = None
_pool_size = int(os.environ.get("HIPFILE_PYTHON_THREADS", "16") or 16)


def set_num_threads(count):
    """Set how many Python threads run :meth:`File.pread` and :meth:`File.pwrite` requests.

    The default is 16, or ``HIPFILE_PYTHON_THREADS``. Each thread waits in the library with the
    GIL released, so this bounds the requests in flight at once, not the CPU used. The library
    splits each large request across its own workers as well (``execution.max_io_threads``).
    """
    global _pool, _pool_size
    if not isinstance(count, int) or count < 1:
        raise HipFileError(_INVALID, "set the thread count", "expected an integer 1 or more")
    with _pool_lock:
        old, _pool, _pool_size = _pool, None, count
    if old is not None:
        old.shutdown(wait=True)


def num_threads():
    """The number of threads :meth:`File.pread` and :meth:`File.pwrite` use."""
    return _pool_size


def _executor():
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(_pool_size,
                                                          thread_name_prefix="hipfile")
        return _pool


class IOFuture:
    """The result of :meth:`File.pread` or :meth:`File.pwrite`, as ``kvikio.IOFuture``.

    A request split into tasks (``task_size``) is one future over all of them.
    """

    __slots__ = ("_futures", "_operation")

    def __init__(self, futures, operation):
        self._futures = futures
        self._operation = operation

    def get(self):
        """Wait for the transfer; return the bytes moved, or raise its :class:`HipFileError`.

        Every task has finished when it returns or raises, so the buffer is free to reuse.
        """
        concurrent.futures.wait(self._futures)
        return sum(future.result() for future in self._futures)

    def done(self):
        """True once the transfer has finished, successfully or not."""
        return all(future.done() for future in self._futures)


def _flags_of(mode):
    normalized = mode.replace("b", "")
    if normalized not in _MODES:
        raise HipFileError(_INVALID, "open", "mode %r is not one of r, r+, w, w+, a, a+" % (mode,))
    return _MODES[normalized]


# hipFileRemoteOpen's flags (hipfile/remote.h): an object is read, or written whole once.
_REMOTE_SCHEMES = ("http://", "https://", "s3://")
_REMOTE_FLAGS = {"r": 0, "w": 1}


def _remote_url(file):
    return file if isinstance(file, str) and file.startswith(_REMOTE_SCHEMES) else None


def _remote_options(options, url):
    """The open options text for ``url``: ``options`` (a ``"key=value;..."`` string or a mapping)
    over the defaults. Raises TypeError for anything else."""
    if options is None:
        given = {}
    elif isinstance(options, str):
        given = {}
        for item in filter(None, (part.strip() for part in options.split(";"))):
            key, _, value = item.partition("=")
            given[key.strip()] = value.strip()
    elif isinstance(options, collections.abc.Mapping):
        given = {str(key): _option_text(value) for key, value in options.items()}
    else:
        raise TypeError("open %s: options must be a mapping or a \"key=value;...\" string, not "
                        "%s" % (redact(url), type(options).__name__))
    merged = dict(_default_remote_options)
    merged.update(given)
    return ";".join("%s=%s" % item for item in merged.items())


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _check_offset(value, what, operation):
    if isinstance(value, bool) or not isinstance(value, int):
        raise HipFileError(_INVALID, operation, "%s must be an integer, got %r" % (what, value))
    return value


#: The task size of requests that pass None (``hipfile.defaults`` "task_size"); None makes one
#: library call, which the library cuts across its own workers.
_default_task_size = None
#: Open options every URL gets unless its own options name them (``hipfile.defaults`` "http_*").
_default_remote_options = {}


def _check_task_size(task_size, operation):
    if task_size is None:
        return _default_task_size
    if isinstance(task_size, bool) or not isinstance(task_size, int) or task_size < 1:
        raise HipFileError(_INVALID, operation,
                           "task_size must be a positive integer or None, got %r" % (task_size,))
    return task_size


class _Pieces:
    """One request cut into tasks, releasing its buffer once the last task has finished."""

    def __init__(self, buffer, count):
        self.buffer = buffer
        self._left = count
        self._lock = threading.Lock()

    def finished(self, _future=None):
        with self._lock:
            self._left -= 1
            last = self._left == 0
        if last:
            self.buffer.release()


class File:
    """A file opened and registered for GPU I/O; the calls of ``kvikio.CuFile``.

    ``File(path, flags="r")`` opens ``path`` with ``flags`` ``"r"`` (read), ``"r+"`` (read and
    write), ``"w"`` (write, created or truncated), ``"w+"`` (the same, readable), ``"a"``
    (read and write, created when missing, never truncated) and registers it with
    ``hipFileHandleRegister``, opening the driver on first use. Buffers are GPU memory
    (``__cuda_array_interface__`` or DLPack on a GPU) or host memory (the buffer protocol).

    ``file`` may also be a URL, ``"http://..."``, ``"https://..."`` or ``"s3://bucket/key"``,
    opened with ``hipFileRemoteOpen``: ``flags`` ``"r"`` reads the object, ``"w"`` writes it
    whole, by one :meth:`write` at offset 0 (docs/backends/remote.rst). ``options`` are the
    remote backend's open options, a mapping (``{"connections": 16, "region": "eu-west-1"}``) or
    the same as text (``"connections=16;region=eu-west-1"``); ``hipfile.defaults``' HTTP settings
    fill the keys they leave out.

    Use it as a context manager, or call :meth:`close`. Raises :class:`HipFileError` when the
    file cannot be opened or registered (``OSError`` from the open itself, as ``open`` would).
    """

    def __init__(self, file, flags="r", options=None):
        self._mode = flags
        self._handle = None
        self._fd = -1
        self._url = _remote_url(file)
        self._lock = threading.Lock()
        self._pending = set()
        self._streamed = set()
        if self._url is not None:
            self._open_remote(flags, options)
            return
        if options is not None:
            raise HipFileError(_INVALID, "open", "options apply to URLs only")
        self._flags = _flags_of(flags)
        _driver.ensure_open()
        self._fd = os.open(os.fspath(file), self._flags | os.O_CLOEXEC, 0o644)
        descr = _lib.Descr()
        descr.type = _lib.HANDLE_TYPE_OPAQUE_FD
        descr.handle.fd = self._fd
        handle = ctypes.c_void_p()
        try:
            check(_lib.library().hipFileHandleRegister(ctypes.byref(handle), ctypes.byref(descr)),
                  "register %s" % os.fspath(file))
        except BaseException:
            os.close(self._fd)
            self._fd = -1
            raise
        self._handle = handle.value

    def _open_remote(self, flags, options):
        mode = flags.replace("b", "")
        if mode not in _REMOTE_FLAGS:
            raise HipFileError(_INVALID, "open %s" % self._url,
                               "mode %r: a URL is opened with r or w" % (flags,))
        self._flags = os.O_RDONLY if mode == "r" else os.O_WRONLY
        text = _remote_options(options, self._url)
        _driver.ensure_open()
        handle = ctypes.c_void_p()
        check(_lib.library().hipFileRemoteOpen(
            self._url.encode(), text.encode() if text else None,
            _REMOTE_FLAGS[mode], ctypes.byref(handle)), "open %s" % self._url)
        self._handle = handle.value

    @property
    def closed(self):
        """True once :meth:`close` has run."""
        return self._handle is None

    def fileno(self):
        """The file descriptor this object opened (a URL has none: HipFileError)."""
        self._check_open("fileno")
        if self._url is not None:
            raise HipFileError(_INVALID, "fileno", "%s is a remote object" % self._url)
        return self._fd

    def is_direct_io_supported(self):
        """Whether this file can be read and written with ``O_DIRECT`` here (the file system
        allows it), as ``kvikio.CuFile.is_direct_io_supported``; False for a URL. Uncached reads
        then go to the storage without the page cache (``fallback.direct_io``)."""
        self._check_open("is_direct_io_supported")
        if self._url is not None:
            return False
        access = self._flags & os.O_ACCMODE
        try:
            fd = os.open("/proc/self/fd/%d" % self._fd, access | os.O_DIRECT | os.O_CLOEXEC)
        except OSError:
            return False
        os.close(fd)
        return True

    def open_flags(self):
        """The ``os.open`` flags the file was opened with."""
        return self._flags

    def close(self):
        """Wait for pending transfers, deregister the file and close its descriptor."""
        with self._lock:
            pending = list(self._pending)
            streamed, self._streamed = list(self._streamed), set()
        concurrent.futures.wait(pending)
        for future in streamed:
            # The stream may not have reached it yet: its memory must outlive it, and its result
            # belongs to whoever holds the future.
            try:
                future.check_bytes_done()
            except HipFileError:
                pass
        with self._lock:
            if self._handle is None:
                return
            _lib.library().hipFileHandleDeregister(self._handle)
            self._handle = None
            if self._fd >= 0:
                os.close(self._fd)
            self._fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.close()

    def __repr__(self):
        state = "closed" if self.closed else (redact(self._url or "") or "fd=%d" % self._fd)
        return "<hipfile.File %s mode=%r>" % (state, self._mode)

    def _check_open(self, operation):
        if self._handle is None:
            raise HipFileError(CODES["hipFileHandleNotRegistered"], operation,
                               "the file is closed")

    def _prepare(self, buf, size, file_offset, dev_offset, task_size, writable, operation):
        self._check_open(operation)
        _check_offset(file_offset, "file_offset", operation)
        _check_offset(dev_offset, "dev_offset", operation)
        task_size = _check_task_size(task_size, operation)
        buffer = _buffers.resolve(buf, writable, operation)
        if size is None:
            size = max(buffer.nbytes - max(dev_offset, 0), 0)
        elif isinstance(size, bool) or not isinstance(size, int) or size < 0:
            buffer.release()
            raise HipFileError(_INVALID, operation, "size must be an integer 0 or more, got %r"
                               % (size,))
        if dev_offset >= 0 and dev_offset + size > buffer.nbytes:
            buffer.release()
            raise HipFileError(_INVALID, operation, "buffer too small: %d bytes at offset %d "
                               "do not fit in a buffer of %d bytes"
                               % (size, dev_offset, buffer.nbytes))
        return buffer, size, task_size

    def _call(self, function, address, size, file_offset, dev_offset, operation):
        return check_size(function(self._handle, address, size, file_offset, dev_offset),
                          operation)

    def _transfer(self, function, buffer, size, file_offset, dev_offset, operation):
        try:
            return self._call(function, buffer.address, size, file_offset, dev_offset, operation)
        finally:
            buffer.release()

    def _start(self, function, buffer, size, file_offset, dev_offset, task_size, operation):
        """The request on the pool, cut into tasks of ``task_size`` bytes (one task for None),
        as KvikIO cuts it; each task is one library call at its own offsets."""
        step = size if task_size is None or task_size >= size else task_size
        starts = range(0, size, step) if size > 0 else (0,)
        pieces = _Pieces(buffer, len(starts))
        pool = _executor()
        futures = []
        try:
            for start in starts:
                futures.append(pool.submit(self._call, function, buffer.address,
                                           min(step, size - start), file_offset + start,
                                           dev_offset + start, operation))
        except BaseException:
            # The pool refused the rest (set_num_threads shut it down): wait for what started.
            concurrent.futures.wait(futures)
            buffer.release()
            raise
        with self._lock:
            self._pending.update(futures)
        for future in futures:
            future.add_done_callback(pieces.finished)
            future.add_done_callback(self._forget)
        return IOFuture(futures, operation)

    def _forget(self, future):
        with self._lock:
            self._pending.discard(future)

    def read(self, buf, size=None, file_offset=0, task_size=None, *, dev_offset=0):
        """Read ``size`` bytes (default: the rest of ``buf`` after ``dev_offset``) from
        ``file_offset`` into ``buf``; wait, and return the bytes read.

        The signature is ``kvikio.CuFile.read``'s. ``task_size`` cuts the request into tasks of
        that many bytes run at once on the package's threads (:func:`set_num_threads`); ``None``
        makes one library call, which the library splits across its own workers. ``dev_offset``
        (keyword only) is where in ``buf`` the data goes. Fewer than ``size`` bytes only at the
        end of the file. Raises :class:`HipFileError`.
        """
        buffer, size, task_size = self._prepare(buf, size, file_offset, dev_offset, task_size,
                                                True, "read")
        if task_size is None:
            return self._transfer(_lib.library().hipFileRead, buffer, size, file_offset,
                                  dev_offset, "read")
        return self._start(_lib.library().hipFileRead, buffer, size, file_offset, dev_offset,
                           task_size, "read").get()

    def write(self, buf, size=None, file_offset=0, task_size=None, *, dev_offset=0):
        """Write ``size`` bytes (default: the rest of ``buf`` after ``dev_offset``) of ``buf``
        to ``file_offset``; wait, and return the bytes written.

        Arguments as for :meth:`read`. Raises :class:`HipFileError`.
        """
        buffer, size, task_size = self._prepare(buf, size, file_offset, dev_offset, task_size,
                                                False, "write")
        if task_size is None:
            return self._transfer(_lib.library().hipFileWrite, buffer, size, file_offset,
                                  dev_offset, "write")
        return self._start(_lib.library().hipFileWrite, buffer, size, file_offset, dev_offset,
                           task_size, "write").get()

    def pread(self, buf, size=None, file_offset=0, task_size=None, *, dev_offset=0):
        """Start :meth:`read` on the package's threads and return an :class:`IOFuture` at once.

        Argument errors (closed file, unusable or too small buffer) raise here; errors of the
        transfer itself are raised by :meth:`IOFuture.get`. ``buf`` must stay alive until then.
        """
        buffer, size, task_size = self._prepare(buf, size, file_offset, dev_offset, task_size,
                                                True, "read")
        return self._start(_lib.library().hipFileRead, buffer, size, file_offset, dev_offset,
                           task_size, "read")

    def pwrite(self, buf, size=None, file_offset=0, task_size=None, *, dev_offset=0):
        """Start :meth:`write` on the package's threads and return an :class:`IOFuture` at once."""
        buffer, size, task_size = self._prepare(buf, size, file_offset, dev_offset, task_size,
                                                False, "write")
        return self._start(_lib.library().hipFileWrite, buffer, size, file_offset, dev_offset,
                           task_size, "write")

    def raw_read_async(self, buf, stream, size=None, file_offset=0, dev_offset=0):
        """Queue a read on ``stream``, as ``kvikio.CuFile.raw_read_async``: ``size`` bytes
        (default: the rest of ``buf`` after ``dev_offset``) from ``file_offset`` into ``buf`` at
        ``dev_offset``, when the stream reaches it (``hipFileReadAsync``). ``stream`` is an int
        handle, ``None`` (the default stream), or a PyTorch, CuPy or ``__cuda_stream__`` stream.
        Returns an :class:`IOFutureStream`; argument errors raise here, errors of the transfer
        from its ``check_bytes_done()``. ``buf`` must stay alive until then.
        """
        return self._streamed_op(_lib.library().hipFileReadAsync, buf, stream, size, file_offset,
                                 dev_offset, True, "raw_read_async")

    def raw_write_async(self, buf, stream, size=None, file_offset=0, dev_offset=0):
        """Queue a write on ``stream``, as ``kvikio.CuFile.raw_write_async``; arguments as for
        :meth:`raw_read_async`. Returns an :class:`IOFutureStream`."""
        return self._streamed_op(_lib.library().hipFileWriteAsync, buf, stream, size,
                                 file_offset, dev_offset, False, "raw_write_async")

    def _streamed_op(self, function, buf, stream, size, file_offset, dev_offset, writable,
                     operation):
        # A bad stream is refused before the buffer is taken.
        raw = _stream_io.stream_handle(stream, operation)
        buffer, size, _ = self._prepare(buf, size, file_offset, dev_offset, None, writable,
                                        operation)
        future = _stream_io.submit(function, self._handle, buffer, size, file_offset,
                                   dev_offset, stream, raw, operation)
        with self._lock:
            # Kept until the stream is past it, so its memory outlives the operation even when
            # the caller drops the future; close() waits for the rest.
            self._streamed = {f for f in self._streamed if not f.done()}
            self._streamed.add(future)
        return future

    def readv(self, buffers, file_offset=0):
        """Read the file from ``file_offset`` into each of ``buffers`` in turn, whole, as
        ``os.preadv`` does; return the bytes read, fewer than the buffers hold only at the end of
        the file. The buffers are filled at once on the library's workers (``hipFileReadv``);
        more than 1024 are served 1024 at a time. Raises :class:`HipFileError`.
        """
        return self._vector(_lib.library().hipFileReadv, buffers, file_offset, True, "readv")

    def writev(self, buffers, file_offset=0):
        """Write each of ``buffers`` in turn, whole, to the file from ``file_offset``, as
        ``os.pwritev`` does; return the bytes written. Raises :class:`HipFileError`."""
        return self._vector(_lib.library().hipFileWritev, buffers, file_offset, False, "writev")

    def _vector(self, function, buffers, file_offset, writable, operation):
        self._check_open(operation)
        _check_offset(file_offset, "file_offset", operation)
        if isinstance(buffers, (bytes, bytearray, str)) or not isinstance(
                buffers, collections.abc.Sequence):
            raise TypeError("%s: buffers must be a sequence of buffers, got %s"
                            % (operation, type(buffers).__name__))
        resolved = []
        try:
            for buf in buffers:
                resolved.append(_buffers.resolve(buf, writable, operation))
            done = 0
            for first in range(0, len(resolved), _lib.IOV_MAX):
                part = resolved[first:first + _lib.IOV_MAX]
                iov = (_lib.IOVec * len(part))(*[(b.address, b.nbytes) for b in part])
                want = sum(b.nbytes for b in part)
                got = check_size(function(self._handle, iov, len(part), file_offset + done, 0),
                                 operation)
                done += got
                if got < want:
                    break
            return done
        finally:
            for buffer in resolved:
                buffer.release()

    def raw_read(self, buf, size=None, file_offset=0, dev_offset=0):
        """One ``hipFileRead`` call on this thread, as ``kvikio.CuFile.raw_read``: ``size``
        bytes (default: the rest of ``buf`` after ``dev_offset``) from ``file_offset`` into
        ``buf`` at ``dev_offset``. Returns the bytes read; raises :class:`HipFileError`."""
        buffer, size, _ = self._prepare(buf, size, file_offset, dev_offset, None, True,
                                        "raw_read")
        return self._transfer(_lib.library().hipFileRead, buffer, size, file_offset, dev_offset,
                              "raw_read")

    def raw_write(self, buf, size=None, file_offset=0, dev_offset=0):
        """One ``hipFileWrite`` call on this thread, as ``kvikio.CuFile.raw_write``. Returns the
        bytes written; raises :class:`HipFileError`."""
        buffer, size, _ = self._prepare(buf, size, file_offset, dev_offset, None, False,
                                        "raw_write")
        return self._transfer(_lib.library().hipFileWrite, buffer, size, file_offset,
                              dev_offset, "raw_write")
