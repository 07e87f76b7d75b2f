"""Loading libhipfile.so.0 through ctypes and declaring the C functions the package calls.

The library is found, in this order: the ``HIPFILE_LIBRARY`` environment variable (a path), the
path written into ``_paths.py`` when the package was installed by CMake or pip, then
``ctypes.util.find_library("hipfile")`` and the plain soname, which the dynamic loader resolves
through ``LD_LIBRARY_PATH`` and the system's library directories.

ctypes releases the GIL for the duration of every foreign call made through a ``ctypes.CDLL``,
so reads and writes from several Python threads run at once.
"""

import ctypes
import ctypes.util
import os
import threading

SONAME = "libhipfile.so.0"

# hipFileDescr_t.type
HANDLE_TYPE_OPAQUE_FD = 1


class ErrorStruct(ctypes.Structure):
    """hipFileError_t: the library's status and the HIP runtime's."""

    _fields_ = [("err", ctypes.c_int), ("hip_drv_err", ctypes.c_int)]


class _DescrHandle(ctypes.Union):
    _fields_ = [("fd", ctypes.c_int), ("hFile", ctypes.c_void_p)]


class Descr(ctypes.Structure):
    """hipFileDescr_t."""

    _fields_ = [("type", ctypes.c_int), ("handle", _DescrHandle), ("fs_ops", ctypes.c_void_p)]


class _Nvfs(ctypes.Structure):
    _fields_ = [("major_version", ctypes.c_uint), ("minor_version", ctypes.c_uint),
                ("poll_thresh_size", ctypes.c_uint64), ("max_direct_io_size", ctypes.c_uint64),
                ("driver_status_flags", ctypes.c_uint), ("driver_control_flags", ctypes.c_uint)]


class DriverProps(ctypes.Structure):
    """hipFileDriverProps_t."""

    _fields_ = [("nvfs", _Nvfs), ("feature_flags", ctypes.c_uint),
                ("max_device_cache_size", ctypes.c_uint64),
                ("per_buffer_cache_size", ctypes.c_uint64),
                ("max_device_pinned_mem_size", ctypes.c_uint64),
                ("max_batch_io_count", ctypes.c_uint),
                ("max_batch_io_timeout_msecs", ctypes.c_uint)]


class OpCounter(ctypes.Structure):
    """hipFileOpCounter_t."""

    _fields_ = [("ok", ctypes.c_uint64), ("err", ctypes.c_uint64)]


_L1_COUNTERS = ("read_ops", "write_ops", "hdl_register_ops", "hdl_deregister_ops",
                "buf_register_ops", "buf_deregister_ops")
_L1_VALUES = ("read_bytes", "write_bytes", "read_bw_bytes_per_sec", "write_bw_bytes_per_sec",
              "read_lat_avg_us", "write_lat_avg_us", "read_ops_per_sec", "write_ops_per_sec",
              "read_lat_sum_us", "write_lat_sum_us")
_L1_BATCH_COUNTERS = ("batch_submit_ops", "batch_complete_ops", "batch_setup_ops",
                      "batch_cancel_ops", "batch_destroy_ops", "batch_enqueued_ops",
                      "batch_posix_enqueued_ops", "batch_processed_ops",
                      "batch_posix_processed_ops", "batch_nvfs_submit_ops",
                      "batch_p2p_submit_ops", "batch_aio_submit_ops",
                      "batch_iouring_submit_ops", "batch_mixed_io_submit_ops",
                      "batch_total_submit_ops")
_L1_BATCH_VALUES = ("batch_read_bytes", "batch_write_bytes", "batch_read_bw_bytes",
                    "batch_write_bw_bytes", "batch_submit_lat_avg_us",
                    "batch_completion_lat_avg_us", "batch_submit_ops_per_sec",
                    "batch_complete_ops_per_sec", "batch_submit_lat_sum_us",
                    "batch_completion_lat_sum_us", "last_batch_read_bytes",
                    "last_batch_write_bytes")


class StatsLevel1(ctypes.Structure):
    """hipFileStatsLevel1_t, field for field."""

    _fields_ = ([(name, OpCounter) for name in _L1_COUNTERS]
                + [(name, ctypes.c_uint64) for name in _L1_VALUES]
                + [(name, OpCounter) for name in _L1_BATCH_COUNTERS]
                + [(name, ctypes.c_uint64) for name in _L1_BATCH_VALUES])


def _configured_path():
    try:
        from . import _paths
    except ImportError:
        return None
    path = getattr(_paths, "LIBRARY", None)
    if path and not os.path.isabs(path):
        path = os.path.normpath(os.path.join(os.path.dirname(_paths.__file__), path))
    return path


_CONFIGURED = "the path recorded at install time"


def _load_bundled(library):
    """Load the shared libraries a wheel carries beside ``library`` (``_paths.BUNDLED``) first:
    once loaded, the library and the plugins it opens find them by soname, whatever the
    machine's own search path lacks."""
    try:
        from . import _paths
    except ImportError:
        return
    for name in getattr(_paths, "BUNDLED", ()):
        ctypes.CDLL(os.path.join(os.path.dirname(library), name), mode=ctypes.RTLD_GLOBAL)


def candidates():
    """The library paths or names tried, in order, each with where it came from."""
    found = []
    env = os.environ.get("HIPFILE_LIBRARY")
    if env:
        found.append((env, "HIPFILE_LIBRARY"))
    configured = _configured_path()
    if configured:
        found.append((configured, _CONFIGURED))
    name = ctypes.util.find_library("hipfile")
    if name:
        found.append((name, "ctypes.util.find_library"))
    found.append((SONAME, "the dynamic loader's search path"))
    return found


class IOVec(ctypes.Structure):
    """hipFileIOVec_t (hipfile/vector.h): one memory range of a vector read or write."""
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


#: Most entries one hipFileReadv/hipFileWritev call takes (HIPFILE_IOV_MAX).
IOV_MAX = 1024


def _declare(lib):
    c = ctypes
    size_t, ssize_t, off_t = c.c_size_t, c.c_ssize_t, c.c_int64
    signatures = {
        "hipFileGetOpErrorString": (c.c_char_p, [c.c_int]),
        "hipFileHandleRegister": (ErrorStruct, [c.POINTER(c.c_void_p), c.POINTER(Descr)]),
        "hipFileHandleDeregister": (None, [c.c_void_p]),
        "hipFileRemoteOpen": (ErrorStruct, [c.c_char_p, c.c_char_p, c.c_int,
                                            c.POINTER(c.c_void_p)]),
        "hipFileRemoteGetSize": (ErrorStruct, [c.c_void_p, c.POINTER(c.c_uint64)]),
        "hipFileBufRegister": (ErrorStruct, [c.c_void_p, size_t, c.c_int]),
        "hipFileBufDeregister": (ErrorStruct, [c.c_void_p]),
        "hipFileRead": (ssize_t, [c.c_void_p, c.c_void_p, size_t, off_t, off_t]),
        "hipFileWrite": (ssize_t, [c.c_void_p, c.c_void_p, size_t, off_t, off_t]),
        "hipFileReadAsync": (ErrorStruct, [c.c_void_p, c.c_void_p, c.POINTER(size_t),
                                           c.POINTER(off_t), c.POINTER(off_t), c.POINTER(ssize_t),
                                           c.c_void_p]),
        "hipFileWriteAsync": (ErrorStruct, [c.c_void_p, c.c_void_p, c.POINTER(size_t),
                                            c.POINTER(off_t), c.POINTER(off_t), c.POINTER(ssize_t),
                                            c.c_void_p]),
        "hipFileReadv": (ssize_t, [c.c_void_p, c.POINTER(IOVec), size_t, off_t, c.c_uint]),
        "hipFileWritev": (ssize_t, [c.c_void_p, c.POINTER(IOVec), size_t, off_t, c.c_uint]),
        "hipFileDriverOpen": (ErrorStruct, []),
        "hipFileDriverClose": (ErrorStruct, []),
        "hipFileUseCount": (c.c_int64, []),
        "hipFileDriverGetProperties": (ErrorStruct, [c.POINTER(DriverProps)]),
        "hipFileGetVersion": (ErrorStruct, [c.POINTER(c.c_uint)] * 3),
        "hipFileGetParameterSizeT": (ErrorStruct, [c.c_int, c.POINTER(size_t)]),
        "hipFileGetParameterBool": (ErrorStruct, [c.c_int, c.POINTER(c.c_bool)]),
        "hipFileGetParameterString": (ErrorStruct, [c.c_int, c.c_char_p, c.c_int]),
        "hipFileSetParameterSizeT": (ErrorStruct, [c.c_int, size_t]),
        "hipFileSetParameterBool": (ErrorStruct, [c.c_int, c.c_bool]),
        "hipFileSetParameterString": (ErrorStruct, [c.c_int, c.c_char_p]),
        "hipFileGetStatsL1": (ErrorStruct, [c.POINTER(StatsLevel1)]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


_lock = threading.Lock()
_lib = None


def library():
    """The loaded library (a ``ctypes.CDLL``), loading it on first use.

    Raises ``OSError`` naming every place tried when none of them loads.
    """
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            failures = []
            for path, origin in candidates():
                try:
                    if origin == _CONFIGURED:
                        _load_bundled(path)
                    lib = ctypes.CDLL(path, use_errno=True)
                except OSError as error:
                    failures.append("%s (%s): %s" % (path, origin, error))
                    continue
                _declare(lib)
                lib.hipfile_path = path
                _lib = lib
                break
            else:
                raise OSError("libhipfile.so.0 could not be loaded; set HIPFILE_LIBRARY to its "
                              "path. Tried: " + "; ".join(failures))
    return _lib
