"""``hipfile.Mmap``: KvikIO's memory-mapped file handle. A region of a file is mapped read-only
when the handle is made; ``read`` and ``pread`` copy from it into host memory, and fill GPU memory
with the library's own read of the same range (its staging path), which gives the same bytes
without a CPU pass over the mapping.
"""

import ctypes
import mmap as _mmap_module
import os
import threading

from . import _buffers, _file
from ._page_cache import _libc

_PROT_READ = _mmap_module.PROT_READ
_MAP_SHARED = _mmap_module.MAP_SHARED
_MAP_FAILED = ctypes.c_void_p(-1).value
_GRANULE = _mmap_module.ALLOCATIONGRANULARITY


class Mmap:
    """A file region mapped for reading, as ``kvikio.Mmap``.

    ``Mmap(file_path, flags="r", initial_map_size=None, initial_map_offset=0, mode=0o644,
    map_flags=None)`` maps ``initial_map_size`` bytes (default: to the end of the file) from
    ``initial_map_offset``. Only ``flags="r"`` exists, as in KvikIO (``ValueError`` otherwise);
    ``mode`` is accepted for KvikIO's signature and unused, since nothing is created;
    ``map_flags`` are ``mmap(2)`` flags (default ``MAP_SHARED``). Reads outside the region raise
    ``IndexError``, reads after :meth:`close` ``RuntimeError``.
    """

    def __init__(self, file_path, flags="r", initial_map_size=None, initial_map_offset=0,
                 mode=0o644, map_flags=None):
        self._address, self._span, self._fd, self._file = None, 0, -1, None
        self._lock = threading.Lock()
        if flags != "r":
            raise ValueError("Mmap: flags %r: only \"r\" exists, as in KvikIO" % (flags,))
        self._path = os.fspath(file_path)
        self._fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            self._map(initial_map_size, initial_map_offset, map_flags)
        except BaseException:
            os.close(self._fd)
            self._fd = -1
            raise

    def _map(self, size, offset, map_flags):
        file_size = os.fstat(self._fd).st_size
        if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= file_size:
            raise IndexError("Mmap: initial_map_offset %r is outside %s (%d bytes)"
                             % (offset, self._path, file_size))
        if size is None:
            size = file_size - offset
        if isinstance(size, bool) or not isinstance(size, int) or size < 0 or \
                offset + size > file_size:
            raise IndexError("Mmap: %r bytes from %d run past the end of %s (%d bytes)"
                             % (size, offset, self._path, file_size))
        self._size, self._offset = size, offset
        if size == 0:
            return
        start = offset // _GRANULE * _GRANULE
        self._skew, self._span = offset - start, offset - start + size
        flags = _MAP_SHARED if map_flags is None else map_flags
        address = _libc.mmap(None, self._span, _PROT_READ, flags, self._fd, start)
        if address in (None, _MAP_FAILED):
            error = ctypes.get_errno()
            raise OSError(error, "Mmap: mmap of %s: %s" % (self._path, os.strerror(error)))
        self._address = address

    def initial_map_size(self):
        """Bytes of the region mapped when the handle was made."""
        return self._size

    def initial_map_offset(self):
        """File offset of the region mapped when the handle was made."""
        return self._offset

    def file_size(self):
        """The file's size in bytes, or 0 once closed."""
        return 0 if self._fd < 0 else os.fstat(self._fd).st_size

    def closed(self):
        """Whether :meth:`close` has run."""
        return self._fd < 0

    def close(self):
        """Unmap the region and close the file; nothing when closed already."""
        with self._lock:
            if self._address is not None:
                _libc.munmap(self._address, self._span)
                self._address = None
            if self._file is not None:
                self._file.close()
                self._file = None
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_fd", -1) >= 0:
            self.close()

    def _range(self, size, offset, operation):
        if self.closed():
            raise RuntimeError("Mmap.%s: the handle is closed" % operation)
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError("Mmap.%s: offset must be an integer, got %r" % (operation, offset))
        end = self._offset + self._size
        if size is None:
            size = end - offset
        if not self._offset <= offset <= end or size < 0 or offset + size > end:
            raise IndexError("Mmap.%s: %r bytes at %d are outside the mapped region [%d, %d)"
                             % (operation, size, offset, self._offset, end))
        return size

    def _copy(self, buf, size, offset, at, operation):
        """Bytes ``[offset, offset + size)`` of the file into ``buf`` from byte ``at``."""
        buffer = _buffers.resolve(buf, True, operation)
        try:
            if at + size > buffer.nbytes:
                raise IndexError("Mmap.%s: %d bytes do not fit in a buffer of %d"
                                 % (operation, at + size, buffer.nbytes))
            if size == 0:
                return 0
            if not buffer.device:
                source = self._address + self._skew + (offset - self._offset)
                ctypes.memmove(buffer.address + at, source, size)
                return size
        finally:
            buffer.release()
        with self._lock:
            if self._file is None:
                self._file = _file.File(self._path, "r")
            source_file = self._file
        return source_file.read(buf, size, offset, dev_offset=at)

    def read(self, buf, size=None, offset=0):
        """Copy ``size`` bytes (default: to the end of the region) at file ``offset`` into
        ``buf``; return the bytes read."""
        size = self._range(size, offset, "read")
        return self._copy(buf, size, offset, 0, "read")

    def pread(self, buf, size=None, offset=0, task_size=None):
        """:meth:`read` on the package's threads, cut into tasks of ``task_size`` bytes (default:
        ``hipfile.defaults`` "task_size", else one task); returns an :class:`hipfile.IOFuture`."""
        size = self._range(size, offset, "pread")
        step = task_size if task_size is not None else _file._default_task_size
        if step is not None and (isinstance(step, bool) or not isinstance(step, int) or step < 1):
            raise ValueError("Mmap.pread: task_size must be a positive integer, got %r"
                             % (step,))
        step = size if step is None or step >= size else step
        pool = _file._executor()
        futures = [pool.submit(self._copy, buf, min(step, size - at), offset + at, at, "pread")
                   for at in (range(0, size, step) if size else (0,))]
        return _file.IOFuture(futures, "pread")
