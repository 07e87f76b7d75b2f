"""Registering buffers with the library, as ``kvikio.memory_register``: a registered buffer's
transfers skip the per-call lookup of its memory, and on a direct path it is mapped once."""

from . import _buffers, _driver, _lib
from ._errors import check


def memory_register(buf):
    """Register ``buf`` (GPU memory, or host memory as ``File`` takes it) with
    ``hipFileBufRegister``, opening the driver on first use. Keep ``buf`` alive until
    :func:`memory_deregister`. Raises :class:`HipFileError` (``hipFileInvalidValue`` for an
    object that is no buffer, the library's code for memory it refuses or a buffer registered
    already)."""
    buffer = _buffers.resolve(buf, False, "memory_register")
    try:
        _driver.ensure_open()
        check(_lib.library().hipFileBufRegister(buffer.address, buffer.nbytes, 0),
              "memory_register")
    finally:
        buffer.release()


def memory_deregister(buf):
    """Deregister ``buf`` with ``hipFileBufDeregister``. Raises :class:`HipFileError` for a
    buffer that was not registered."""
    buffer = _buffers.resolve(buf, False, "memory_deregister")
    try:
        _driver.ensure_open()
        check(_lib.library().hipFileBufDeregister(buffer.address), "memory_deregister")
    finally:
        buffer.release()
