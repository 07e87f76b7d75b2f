"""Reading and writing safetensors files straight between the file and GPU memory.

The format is the ``safetensors`` project's (``_st_format.py`` implements it); the
``safetensors`` package is not needed. ``safe_open`` has that package's interface.

``load_file`` (PyTorch) and ``load`` (CuPy on a GPU, NumPy on the host) give each tensor its own
allocation and read all of them at once from a pool of threads (``hipfile.set_num_threads``):
large tensors are split further by the library itself, small ones overlap with each other.
"""

import errno

from . import _file
from ._errors import HipFileError
from ._checkpoint import iter_tensors, load_checkpoint, save_checkpoint
from ._route import route
from ._safe_open import safe_open
from ._st_format import (DTYPE_SIZES, MAX_HEADER_SIZE, SafetensorError, SafetensorsError,
                         TensorInfo, _ARRAY_DTYPES, _TORCH_DTYPES, _describe, build_header,
                         parse_header, read_header)

__all__ = ["DTYPE_SIZES", "MAX_HEADER_SIZE", "SafetensorError", "SafetensorsError", "TensorInfo",
           "build_header", "iter_tensors", "load", "load_checkpoint", "load_file", "load_into",
           "metadata", "parse_header", "read_header", "route", "safe_open", "save_checkpoint",
           "save_file"]


def load_into(path, allocate):
    """Read every tensor of a file into buffers that ``allocate(info)`` returns, one per
    :class:`TensorInfo`, and return the dict from name to buffer.

    The buffers may be of any kind :class:`hipfile.File` accepts (a JAX array's memory, a
    preallocated pool's slices); the reads all run at once. Raises as :func:`load_file`.
    """
    return _read_all(path, read_header(path)[0], allocate)


def _read_all(path, tensors, allocate):
    """Allocate each tensor with ``allocate(info)`` and read them all at once."""
    results = {}
    with _file.File(path, "r") as source:
        futures = []
        for info in tensors:
            target = allocate(info)
            results[info.name] = target
            if info.nbytes:
                futures.append((info, source.pread(target, info.nbytes, info.offset)))
        for info, future in futures:
            got = future.get()
            if got != info.nbytes:
                raise HipFileError(None, "read tensor %r" % info.name,
                                   "%d of %d bytes: the file is shorter than its header says"
                                   % (got, info.nbytes), errno=errno.EIO)
    return results


def _torch_device(device):
    import torch

    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


def load_file(path, device="cpu"):
    """Load every tensor of a safetensors file as PyTorch tensors, like
    ``safetensors.torch.load_file(path, device)``.

    With ``device="cuda:0"`` each tensor is read straight into its own GPU allocation; the reads
    all run at once. Returns a dict from name to tensor. Raises :class:`SafetensorsError` for a
    malformed file (before reading any tensor) and :class:`HipFileError` for an I/O error.
    """
    import torch

    tensors, _ = read_header(path)
    target = _torch_device(device)

    def allocate(info):
        dtype = getattr(torch, _TORCH_DTYPES[info.dtype], None)
        if dtype is None:
            raise SafetensorError("%s: tensor %r has dtype %s, which this PyTorch lacks"
                                   % (path, info.name, info.dtype))
        return torch.empty(info.shape, dtype=dtype, device=target)

    if target.type == "cuda":
        with torch.cuda.device(target):
            return _read_all(path, tensors, allocate)
    return _read_all(path, tensors, allocate)


def load(path, device="cuda"):
    """Load every tensor without PyTorch: CuPy arrays for a GPU ``device`` (``"cuda"``,
    ``"cuda:1"``), NumPy arrays for ``"cpu"`` (``bytearray`` objects when NumPy is missing).

    BF16 and float8 tensors come back as ``uint16``/``uint8`` arrays holding the same bits.
    Raises as :func:`load_file`.
    """
    tensors, _ = read_header(path)
    device = str(device)
    if device.startswith("cuda"):
        import cupy

        index = int(device.split(":")[1]) if ":" in device else cupy.cuda.Device().id

        def allocate(info):
            return cupy.empty(info.shape, dtype=_ARRAY_DTYPES[info.dtype])

        with cupy.cuda.Device(index):
            return _read_all(path, tensors, allocate)
    if device != "cpu":
        raise SafetensorError("device %r is neither 'cpu' nor 'cuda[:N]'" % device)
    try:
        import numpy
    except ImportError:
        return _read_all(path, tensors, lambda info: bytearray(info.nbytes))
    return _read_all(path, tensors,
                     lambda info: numpy.empty(info.shape, dtype=_ARRAY_DTYPES[info.dtype]))


def metadata(path):
    """The ``__metadata__`` map of a file, or ``None``."""
    return read_header(path)[1]


def save_file(tensors, path, metadata=None):
    """Write ``tensors`` (a dict from name to tensor) to ``path`` in the safetensors format, as
    ``safetensors.torch.save_file(tensors, path, metadata)`` writes it, byte for byte.

    Tensors may be PyTorch tensors, CuPy or NumPy arrays, on the GPU or the host, each written
    straight from its memory; all writes run at once. ``metadata`` maps strings to strings.
    Raises :class:`SafetensorsError` for a tensor that cannot be stored (nothing is written) and
    :class:`HipFileError` for an I/O error.
    """
    if not isinstance(tensors, dict):
        raise SafetensorError("tensors must be a dict from name to tensor")
    described = {}
    for name, tensor in tensors.items():
        if not isinstance(name, str) or name == "__metadata__":
            raise SafetensorError("tensor name %r is not allowed" % (name,))
        described[name] = _describe(name, tensor)
    header, order = build_header([(n,) + d for n, d in described.items()], metadata)
    with _file.File(path, "w") as target:
        target.write(bytearray(header), len(header), 0)
        futures = [target.pwrite(tensors[name], nbytes, len(header) + offset)
                   for name, offset, nbytes in order if nbytes]
        for future in futures:
            future.get()
