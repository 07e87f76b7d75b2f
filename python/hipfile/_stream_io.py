"""Stream-ordered reads and writes, as KvikIO's ``CuFile.raw_read_async``/``raw_write_async``.

``hipFileReadAsync`` and ``hipFileWriteAsync`` queue the transfer on a CUDA or HIP stream: it
runs when the stream reaches it, after the work queued before it, and work queued after it waits
for it. The sizes and offsets it reads, and the count it writes, live in memory the future keeps
until the stream has passed the operation; :meth:`IOFutureStream.check_bytes_done` waits for that
and returns the count.
"""

import ctypes
import os
import threading

from . import _lib
from ._errors import CODES, HipFileError, check, check_size

#: HIPFILE_BASE_ERR: results below -5000 are negated hipFileOpError_t codes.
_BASE_ERR = 5000

# Libraries that export the HIP runtime API the library may have bound (docs/runtimes.rst): the
# providers built with it, and AMD's own runtime.
_RUNTIME_NAMES = ("libhip-cuda.so", "libhip-host.so", "libamdhip64.so")
_runtime_lock = threading.Lock()
_runtime = None


def stream_handle(stream, operation):
    """The raw stream handle of ``stream``: ``None`` or 0 (the default stream), an int, or an
    object of PyTorch (``cuda_stream``), CuPy (``ptr``) or the CUDA stream protocol
    (``__cuda_stream__``)."""
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise TypeError("%s: stream must be a stream or its handle, got a bool" % operation)
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for name in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise TypeError("%s: stream must be an int handle, None, or a PyTorch, CuPy or "
                    "__cuda_stream__ stream, got %s" % (operation, type(stream).__name__))


def _bound_runtime():
    """The HIP runtime API library loaded in this process (the one the library bound)."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
                loaded = {line.split()[-1] for line in maps if "/" in line}
            for name in _RUNTIME_NAMES:
                found = sorted(p for p in loaded if os.path.basename(p).startswith(name))
                if found:
                    runtime = ctypes.CDLL(found[0])
                    runtime.hipStreamSynchronize.argtypes = [ctypes.c_void_p]
                    runtime.hipStreamSynchronize.restype = ctypes.c_int
                    _runtime = runtime
                    break
        return _runtime


def _synchronize(stream, handle, operation):
    sync = getattr(stream, "synchronize", None) or getattr(stream, "sync", None)
    if callable(sync):
        sync()
        return
    runtime = _bound_runtime()
    if runtime is None:
        raise HipFileError(CODES["hipFileHipDriverError"], operation,
                           "no HIP runtime library is loaded to wait for stream %#x" % handle)
    err = runtime.hipStreamSynchronize(ctypes.c_void_p(handle))
    if err != 0:
        raise HipFileError(CODES["hipFileHipDriverError"], operation,
                           "waiting for stream %#x failed (runtime error %d)" % (handle, err),
                           hip_error=err)


class IOFutureStream:
    """The result of :meth:`File.raw_read_async` or :meth:`File.raw_write_async`, as
    ``kvikio.IOFutureStream``."""

    __slots__ = ("_values", "_buffer", "_stream", "_handle", "_operation", "_done", "_result",
                 "_lock", "__weakref__")

    def __init__(self, values, buffer, stream, handle, operation):
        self._values = values
        self._buffer = buffer
        self._stream = stream
        self._handle = handle
        self._operation = operation
        self._done = False
        self._result = None
        self._lock = threading.Lock()

    def check_bytes_done(self):
        """Wait for the stream to pass the transfer (synchronising it: PyTorch's and CuPy's
        streams with their own call, a raw handle through the runtime the library uses) and
        return the bytes moved; raises :class:`HipFileError` for a failed transfer."""
        with self._lock:
            if not self._done:
                # Raises, keeping the memory with the future, when the stream cannot be waited
                # for: the operation may still read or write it.
                _synchronize(self._stream, self._handle, self._operation)
                self._result = self._values[3].value
                self._done = True
                self._buffer.release()
                self._buffer = None
        result = self._result
        if -_BASE_ERR < result < 0:
            # Stream-ordered results carry -errno, as batch events do, not -1 with errno.
            raise HipFileError(None, self._operation, errno=-result)
        return check_size(result, self._operation)

    def done(self):
        """Whether :meth:`check_bytes_done` has returned (the stream may be past it earlier)."""
        return self._done


def submit(function, handle, buffer, size, file_offset, dev_offset, stream, raw, operation):
    """Queue ``function`` (hipFileReadAsync or hipFileWriteAsync) on ``stream``, whose handle is
    ``raw`` (:func:`stream_handle`), for ``buffer`` (resolved; released by the future once the
    stream is past it)."""
    values = (ctypes.c_size_t(size), ctypes.c_int64(file_offset), ctypes.c_int64(dev_offset),
              ctypes.c_ssize_t(0))
    try:
        check(function(handle, buffer.address, ctypes.byref(values[0]), ctypes.byref(values[1]),
                       ctypes.byref(values[2]), ctypes.byref(values[3]), ctypes.c_void_p(raw)),
              operation)
    except BaseException:
        buffer.release()
        raise
    return IOFutureStream(values, buffer, stream, raw, operation)
