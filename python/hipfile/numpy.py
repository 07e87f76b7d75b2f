"""KvikIO's ``kvikio.numpy``: ``fromfile`` and ``tofile`` for raw binary files through the
library, into NumPy arrays or, with ``like=`` a CuPy array, straight into GPU memory; and
``LikeWrapper``, with which NumPy's own ``numpy.fromfile(..., like=...)`` comes here.

Text files (``sep`` other than ``""``) are NumPy's business: they raise ``ValueError``.
"""

import os

import numpy

from . import _file


def _path_of(file, what):
    if isinstance(file, (str, bytes, os.PathLike)):
        return os.fsdecode(file)
    name = getattr(file, "name", None)
    if hasattr(file, "fileno") and isinstance(name, (str, bytes, os.PathLike)):
        return os.fsdecode(name)
    raise TypeError("%s: file must be a path or a file object with a name, not %s"
                    % (what, type(file).__name__))


def _module_of(like):
    if like is None or isinstance(like, numpy.ndarray):
        return numpy
    if type(like).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    raise TypeError("fromfile: like must be a NumPy or CuPy array, not %s"
                    % type(like).__name__)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """The array that ``numpy.fromfile`` would read from binary ``file`` (a path or a file object
    with a name): ``count`` items of ``dtype`` (-1: to the end) from byte ``offset``, read by the
    library into a NumPy array, or a CuPy array on the current GPU when ``like`` is one. Raises
    ``ValueError`` for text (``sep``), a negative offset, or a file shorter than ``count`` items,
    as NumPy does; :class:`hipfile.HipFileError` for a failed read."""
    if sep != "":
        raise ValueError("fromfile: sep=%r reads text, which this reader does not: use "
                         "numpy.fromfile for text files" % (sep,))
    path = _path_of(file, "fromfile")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValueError("fromfile: offset must be an integer 0 or more, got %r" % (offset,))
    xp = _module_of(like)
    kind = numpy.dtype(dtype)
    available = max(os.path.getsize(path) - offset, 0) // kind.itemsize
    if count is None or count < 0:
        count = available
    elif count > available:
        raise ValueError("fromfile: %s holds %d items of %s after byte %d, not %d"
                         % (path, available, kind, offset, count))
    out = xp.empty(count, dtype=kind)
    nbytes = count * kind.itemsize
    if nbytes:
        with _file.File(path, "r") as source:
            got = source.read(out, nbytes, offset)
        if got != nbytes:
            raise ValueError("fromfile: %s ended after %d of %d bytes" % (path, got, nbytes))
    return out


def tofile(ndarray, file, sep="", format="%s"):  # noqa: A002 (NumPy's name)
    """Write ``ndarray`` (NumPy or CuPy, any layout: a strided one is made contiguous first) to
    ``file`` (a path or a file object with a name), replacing it, as ``ndarray.tofile`` does.
    Raises ``ValueError`` for text (``sep``); :class:`hipfile.HipFileError` for a failed
    write."""
    if sep != "":
        raise ValueError("tofile: sep=%r writes text, which this writer does not: use "
                         "ndarray.tofile for text files" % (sep,))
    path = _path_of(file, "tofile")
    xp = _module_of(ndarray)
    data = xp.ascontiguousarray(ndarray)
    with _file.File(path, "w") as target:
        written = target.write(data, data.nbytes, 0) if data.nbytes else 0
    if written != data.nbytes:
        raise OSError("tofile: %d of %d bytes written to %s" % (written, data.nbytes, path))


class LikeWrapper:
    """Passed as ``like=`` to NumPy (``numpy.fromfile(path, dtype, like=LikeWrapper(array))``),
    it sends ``fromfile`` here and every other function to NumPy with ``like=array``: the
    result is an array of ``array``'s kind (NumPy, or CuPy on the GPU)."""

    def __init__(self, like):
        self._like = like

    def __array_function__(self, func, types, args, kwargs):
        kwargs = dict(kwargs)
        kwargs["like"] = self._like
        if func is numpy.fromfile:
            return fromfile(*args, **kwargs)
        return func(*args, **kwargs)
