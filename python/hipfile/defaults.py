"""KvikIO's ``kvikio.defaults``: the package's settings by KvikIO's names, read with :func:`get`,
changed with :func:`set`, which also works as a context manager that puts the old values back.

Each name maps onto a setting of this package or of the library:

- ``compat_mode``: :class:`CompatMode`, or a bool or ``"on"``/``"off"``/``"auto"``. ``ON`` serves
  every request through the POSIX fallback (``properties.force_compat_mode``), ``OFF`` never
  (``properties.allow_compat_mode`` false: a request no direct path takes fails), ``AUTO``
  falls back when no direct path takes it. The library reads them when the driver opens, which
  the package does on first use: set it before the first :class:`hipfile.File`.
- ``num_threads``: the threads running ``pread``/``pwrite`` (:func:`hipfile.set_num_threads`).
- ``task_size``: bytes per task of a request that passes ``task_size=None``. ``None`` (the
  default here, unlike KvikIO's 4 MiB) makes one library call, which the library cuts across
  its own workers.
- ``bounce_buffer_size``: bytes of one staging buffer (``properties.per_buffer_cache_size_kb``,
  a multiple of 4 KiB; read when the driver opens).
- ``http_max_attempts`` and ``http_timeout`` (seconds): the open options ``retries``
  (attempts - 1) and ``request_timeout_ms`` of URLs opened afterwards, unless their own options
  name them; None (the default) leaves the remote backend's own settings. ``http_status_codes``: the answers retried, 429 and every 5xx; they cannot be
  changed.

``gds_threshold``, ``auto_direct_io_read`` and ``auto_direct_io_write`` have no counterpart that
means the same (the library picks a backend, and ``O_DIRECT`` or the page cache, per request:
``fallback.direct_io`` in ``hipfile.conf``); they raise ``ValueError`` saying so, as does a name
KvikIO does not have.
"""

import enum

from . import _driver, _file

_builtin_set = set


class CompatMode(enum.IntEnum):
    """KvikIO's ``CompatMode``."""

    OFF = 0
    ON = 1
    AUTO = 2


_WORDS = {"on": CompatMode.ON, "true": CompatMode.ON, "yes": CompatMode.ON, "1": CompatMode.ON,
          "off": CompatMode.OFF, "false": CompatMode.OFF, "no": CompatMode.OFF,
          "0": CompatMode.OFF, "auto": CompatMode.AUTO}
_RETRIED = [429] + list(range(500, 600))
_NO_COUNTERPART = {
    "gds_threshold": "the library picks a backend per request (hipfile-check explains the "
                     "choice); there is no size below which it skips one",
    "auto_direct_io_read": "uncached reads use O_DIRECT by fallback.direct_io in hipfile.conf "
                           "(\"auto\" by default), per request",
    "auto_direct_io_write": "writes go through the page cache; fallback.direct_io in "
                            "hipfile.conf governs reads only",
}


def _no_counterpart(name):
    if name in _NO_COUNTERPART:
        raise ValueError("hipfile.defaults: %r has no counterpart here: %s"
                         % (name, _NO_COUNTERPART[name]))
    raise ValueError("hipfile.defaults: unknown setting %r; the names are %s"
                     % (name, ", ".join(sorted(_GETTERS))))


def _compat_mode():
    if _driver.get_parameter("properties.force_compat_mode"):
        return CompatMode.ON
    if _driver.get_parameter("properties.allow_compat_mode"):
        return CompatMode.AUTO
    return CompatMode.OFF


def _set_compat_mode(value):
    if isinstance(value, str):
        mode = _WORDS.get(value.strip().lower())
    elif isinstance(value, (bool, int)):
        mode = CompatMode(int(value)) if int(value) in (0, 1, 2) else None
    else:
        mode = None
    if mode is None:
        raise ValueError("hipfile.defaults: compat_mode must be a CompatMode, a bool or "
                         "\"on\"/\"off\"/\"auto\", got %r" % (value,))
    _driver.set_parameter("properties.allow_compat_mode", mode != CompatMode.OFF)
    _driver.set_parameter("properties.force_compat_mode", mode == CompatMode.ON)


def _set_task_size(value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or
                              value < 1):
        raise ValueError("hipfile.defaults: task_size must be a positive integer or None, got %r"
                         % (value,))
    _file._default_task_size = value


def _bounce_buffer_size():
    return _driver.get_parameter("properties.per_buffer_cache_size_kb") * 1024


def _set_bounce_buffer_size(value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value % 4096:
        raise ValueError("hipfile.defaults: bounce_buffer_size must be a positive multiple of "
                         "4096 bytes, got %r" % (value,))
    _driver.set_parameter("properties.per_buffer_cache_size_kb", value // 1024)


def _http_max_attempts():
    retries = _file._default_remote_options.get("retries")
    return int(retries) + 1 if retries is not None else None


def _set_http_max_attempts(value):
    if value is None:  # the remote backend's own setting again
        _file._default_remote_options.pop("retries", None)
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("hipfile.defaults: http_max_attempts must be an integer 1 or more, "
                         "got %r" % (value,))
    _file._default_remote_options["retries"] = str(value - 1)


def _http_timeout():
    ms = _file._default_remote_options.get("request_timeout_ms")
    return int(ms) / 1000 if ms is not None else None


def _set_http_timeout(value):
    if value is None:  # the remote backend's own setting again
        _file._default_remote_options.pop("request_timeout_ms", None)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError("hipfile.defaults: http_timeout must be a positive number of seconds, "
                         "got %r" % (value,))
    _file._default_remote_options["request_timeout_ms"] = str(max(int(value * 1000), 1))


def _set_http_status_codes(value):
    if sorted(_builtin_set(value)) != _RETRIED:
        raise ValueError("hipfile.defaults: http_status_codes cannot be changed here: the "
                         "remote backend retries 429 and every 5xx, and no other answer")


_GETTERS = {
    "compat_mode": _compat_mode,
    "num_threads": _file.num_threads,
    "task_size": lambda: _file._default_task_size,
    "bounce_buffer_size": _bounce_buffer_size,
    "http_max_attempts": _http_max_attempts,
    "http_timeout": _http_timeout,
    "http_status_codes": lambda: list(_RETRIED),
}
_SETTERS = {
    "compat_mode": _set_compat_mode,
    "num_threads": _file.set_num_threads,
    "task_size": _set_task_size,
    "bounce_buffer_size": _set_bounce_buffer_size,
    "http_max_attempts": _set_http_max_attempts,
    "http_timeout": _set_http_timeout,
    "http_status_codes": _set_http_status_codes,
}


def get(name):
    """The value of setting ``name`` (``"num_threads"``...). ``http_max_attempts`` and
    ``http_timeout`` are None until set: the remote backend's own settings apply then."""
    getter = _GETTERS.get(name) if isinstance(name, str) else None
    if getter is None:
        _no_counterpart(name)
    return getter()


class _Restore:
    """What :func:`set` returns: usable as a context manager that puts the old values back."""

    def __init__(self, old):
        self._old = old

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for name, value in reversed(self._old):
            _SETTERS[name](value)


def set(*config):  # noqa: A001 (KvikIO's name)
    """Change settings: ``set("num_threads", 8)`` or ``set({"num_threads": 8, ...})``. Every
    name is checked before any change, and a value refused puts back those changed before it.
    As a context manager (``with hipfile.defaults.set(...):``) the old values come back when the
    block ends."""
    if len(config) == 2 and isinstance(config[0], str):
        changes = {config[0]: config[1]}
    elif len(config) == 1 and isinstance(config[0], dict):
        changes = dict(config[0])
    else:
        raise TypeError("hipfile.defaults.set takes (name, value) or one dict of them")
    for name in changes:
        if name not in _SETTERS:
            _no_counterpart(name)
    old = []
    try:
        for name, value in changes.items():
            previous = get(name)
            _SETTERS[name](value)
            old.append((name, previous))
    except BaseException:
        _Restore(old).__exit__(None, None, None)
        raise
    return _Restore(old)


def compat_mode():
    """``get("compat_mode")``."""
    return get("compat_mode")


def num_threads():
    """``get("num_threads")``."""
    return get("num_threads")


def task_size():
    """``get("task_size")``."""
    return get("task_size")


def bounce_buffer_size():
    """``get("bounce_buffer_size")``."""
    return get("bounce_buffer_size")


def http_max_attempts():
    """``get("http_max_attempts")``."""
    return get("http_max_attempts")


def http_timeout():
    """``get("http_timeout")``."""
    return get("http_timeout")


def http_status_codes():
    """``get("http_status_codes")``."""
    return get("http_status_codes")


def gds_threshold():
    """Raises ``ValueError``: no counterpart here (see the module's text)."""
    return get("gds_threshold")
