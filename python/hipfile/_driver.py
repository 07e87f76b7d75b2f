"""The driver's lifetime, its configuration parameters, statistics and the library's version."""

import atexit
import contextlib
import ctypes
import threading

from . import _lib
from ._errors import CODES, HipFileError, check

# hipFileSizeTConfigParameter_t, hipFileBoolConfigParameter_t, hipFileStringConfigParameter_t in
# declaration order, each with the configuration key it is.
_SIZE_PARAMETERS = (
    ("hipFileParamProfileStats", "profile.stats"),
    ("hipFileParamExecutionMaxIOQueueDepth", "execution.max_io_queue_depth"),
    ("hipFileParamExecutionMaxIOThreads", "execution.max_io_threads"),
    ("hipFileParamExecutionMinIOThresholdSizeKB", "execution.min_io_threshold_size_kb"),
    ("hipFileParamExecutionMaxRequestParallelism", "execution.max_request_parallelism"),
    ("hipFileParamPropertiesMaxDirectIOSizeKB", "properties.max_direct_io_size_kb"),
    ("hipFileParamPropertiesMaxDeviceCacheSizeKB", "properties.max_device_cache_size_kb"),
    ("hipFileParamPropertiesPerBufferCacheSizeKB", "properties.per_buffer_cache_size_kb"),
    ("hipFileParamPropertiesMaxDevicePinnedMemSizeKB",
     "properties.max_device_pinned_mem_size_kb"),
    ("hipFileParamPropertiesIOBatchsize", "properties.io_batchsize"),
    ("hipFileParamPollthresholdSizeKB", "properties.poll_mode_max_size_kb"),
    ("hipFileParamPropertiesBatchIOTimeoutMs", "properties.batch_io_timeout_ms"),
)
_BOOL_PARAMETERS = (
    ("hipFileParamPropertiesUsePollMode", "properties.use_poll_mode"),
    ("hipFileParamPropertiesAllowCompatMode", "properties.allow_compat_mode"),
    ("hipFileParamForceCompatMode", "properties.force_compat_mode"),
    ("hipFileParamFsMiscApiCheckAggressive", "fs.misc.api_check_aggressive"),
    ("hipFileParamExecutionParallelIO", "execution.parallel_io"),
    ("hipFileParamProfileNvtx", "profile.nvtx"),
    ("hipFileParamPropertiesAllowSystemMemory", "properties.allow_system_memory"),
    ("hipFileParamUsePcip2pdma", "properties.use_pci_p2pdma"),
    ("hipFileParamPreferIOUring", "properties.prefer_io_uring"),
    ("hipFileParamForceOdirectMode", "properties.force_odirect_mode"),
    ("hipFileParamSkipTopologyDetection", "properties.skip_topology_detection"),
    ("hipFileParamStreamMemopsBypass", "properties.stream_memops_bypass"),
)
_STRING_PARAMETERS = (
    ("hipFileParamLoggingLevel", "log.level"),
    ("hipFileParamEnvLogfilePath", "log.file"),
    ("hipFileParamLogDir", "log.dir"),
)


def _table():
    table = {}
    for kind, entries in (("size", _SIZE_PARAMETERS), ("bool", _BOOL_PARAMETERS),
                          ("string", _STRING_PARAMETERS)):
        for index, (name, key) in enumerate(entries):
            table[name] = table[key] = (kind, index, key)
    return table


_PARAMETERS = _table()
_STRING_LIMIT = 4096


def _parameter(name):
    try:
        return _PARAMETERS[name]
    except KeyError:
        raise HipFileError(CODES["hipFileInvalidValue"], "parameter",
                           "unknown parameter %r; hipfile.parameters() lists them" % (name,)) \
            from None


def get_parameter(name):
    """The value in force of one setting.

    ``name`` is a configuration key (``"execution.max_io_threads"``) or the ``hipFileParam*``
    name of the C API (``"hipFileParamExecutionMaxIOThreads"``). Returns an ``int``, a ``bool``
    or a ``str`` by the setting's type. Needs no driver.
    """
    kind, index, key = _parameter(name)
    lib = _lib.library()
    if kind == "size":
        value = ctypes.c_size_t()
        check(lib.hipFileGetParameterSizeT(index, ctypes.byref(value)), "get " + key)
        return value.value
    if kind == "bool":
        flag = ctypes.c_bool()
        check(lib.hipFileGetParameterBool(index, ctypes.byref(flag)), "get " + key)
        return flag.value
    text = ctypes.create_string_buffer(_STRING_LIMIT)
    check(lib.hipFileGetParameterString(index, text, _STRING_LIMIT), "get " + key)
    return text.value.decode("utf-8", "replace")


def set_parameter(name, value):
    """Change one setting (``hipFileSetParameter*``), named as for :func:`get_parameter`.

    Raises :class:`HipFileError` with ``hipFileInvalidValue`` for a value out of the key's range
    and ``hipFileDriverAlreadyOpen`` for a setting read only when the driver opens.
    """
    kind, index, key = _parameter(name)
    lib = _lib.library()
    if kind == "size":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise HipFileError(CODES["hipFileInvalidValue"], "set " + key,
                               "expected an integer 0 or more, got %r" % (value,))
        check(lib.hipFileSetParameterSizeT(index, value), "set " + key)
    elif kind == "bool":
        check(lib.hipFileSetParameterBool(index, bool(value)), "set " + key)
    else:
        check(lib.hipFileSetParameterString(index, str(value).encode("utf-8")), "set " + key)


def parameters():
    """Every setting the C API reads, as a dict from configuration key to value."""
    result = {}
    for entries in (_SIZE_PARAMETERS, _BOOL_PARAMETERS, _STRING_PARAMETERS):
        for _, key in entries:
            result[key] = get_parameter(key)
    return result


_lock = threading.Lock()
_implicit_open = False
_host_memory_allowed = False


def _close_at_exit():
    global _implicit_open
    with _lock:
        if _implicit_open and _lib.library().hipFileUseCount() > 0:
            # Nothing to report to at exit; a failure here leaves the process as it would be.
            _lib.library().hipFileDriverClose()
        _implicit_open = False


def ensure_open():
    """Open the driver once for the process, closed again when Python exits.

    Raises :class:`HipFileError` when it cannot open (``hipFileDriverSetupError``,
    ``hipFilePlatformNotSupported``); the next call tries again.
    """
    global _implicit_open
    if _implicit_open:
        return
    with _lock:
        if not _implicit_open:
            check(_lib.library().hipFileDriverOpen(), "open the driver")
            _implicit_open = True
            atexit.register(_close_at_exit)


def allow_host_memory():
    """Turn ``properties.allow_system_memory`` on, once, when a host buffer is first used.

    Passing a NumPy array or a bytearray asks for host memory to be served; the library refuses
    host memory unless this setting is on, so the package turns it on for the process.
    """
    global _host_memory_allowed
    if _host_memory_allowed:
        return
    with _lock:
        if not get_parameter("properties.allow_system_memory"):
            set_parameter("properties.allow_system_memory", True)
        _host_memory_allowed = True


@contextlib.contextmanager
def driver():
    """Hold a reference on the driver for a block: ``with hipfile.driver(): ...``.

    The driver opens on first use anyway; this makes the open (and its errors) happen at a known
    point, and the matching close at the end of the block. Yields :func:`properties`.
    """
    check(_lib.library().hipFileDriverOpen(), "open the driver")
    try:
        yield properties()
    finally:
        check(_lib.library().hipFileDriverClose(), "close the driver")


def use_count():
    """The driver's use count (``hipFileUseCount``): opens not yet closed."""
    return _lib.library().hipFileUseCount()


def _as_dict(struct):
    result = {}
    for name, _ in struct._fields_:
        value = getattr(struct, name)
        result[name] = _as_dict(value) if isinstance(value, ctypes.Structure) else value
    return result


def properties():
    """``hipFileDriverGetProperties`` as a dict (the ``nvfs`` part as a nested dict)."""
    ensure_open()
    props = _lib.DriverProps()
    check(_lib.library().hipFileDriverGetProperties(ctypes.byref(props)),
          "get driver properties")
    return _as_dict(props)


def stats():
    """Level-1 statistics (``hipFileGetStatsL1``) as a dict; counters are ``{"ok", "err"}``.

    Statistics are gathered when ``profile.stats`` is 1 or more (the default is 1).
    """
    ensure_open()
    level1 = _lib.StatsLevel1()
    check(_lib.library().hipFileGetStatsL1(ctypes.byref(level1)), "get statistics")
    return _as_dict(level1)


def library_version():
    """The C library's version as a ``(major, minor, patch)`` tuple (``hipFileGetVersion``)."""
    parts = [ctypes.c_uint() for _ in range(3)]
    check(_lib.library().hipFileGetVersion(*[ctypes.byref(part) for part in parts]),
          "get the library version")
    return tuple(part.value for part in parts)


def library_path():
    """The path or name the C library was loaded from."""
    return _lib.library().hipfile_path
