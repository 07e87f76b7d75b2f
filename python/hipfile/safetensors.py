"""Reading and writing safetensors files straight between the file and GPU memory.

The format (the ``safetensors`` project's): an 8-byte little-endian header length N, N bytes
of JSON, then the tensors' bytes. The JSON maps each tensor's name to its ``dtype``, ``shape``
and ``data_offsets`` ``[begin, end)`` (relative to the end of the header), with an optional
``"__metadata__"`` map of strings to strings. The tensors' bytes follow each other without gap
from offset 0 to the end of the file. This module implements the format itself; the
``safetensors`` package is not needed.

``load_file`` (PyTorch) and ``load`` (CuPy on a GPU, NumPy on the host) give each tensor its own
allocation and read all of them at once from a pool of threads (``hipfile.set_num_threads``):
large tensors are split further by the library itself, small ones overlap with each other.
"""

import errno
import json
import os
import struct

from . import _file
from ._errors import HipFileError

#: Bytes per element of each dtype the format names.
DTYPE_SIZES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "F64": 8, "I64": 8, "U64": 8,
}
# safetensors writes tensors sorted by dtype, the largest alignment first, then by name; this is
# its dtype order (the Dtype enum), so that files written here are byte for byte the same.
_DTYPE_ORDER = ("BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
                "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "F64", "I64", "U64")
# The format's limit on the header: a larger length is taken for a corrupt file.
MAX_HEADER_SIZE = 100_000_000
_HEADER_ALIGNMENT = 8

_TORCH_DTYPES = {
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "F8_E5M2": "float8_e5m2",
    "F8_E4M3": "float8_e4m3fn", "F8_E8M0": "float8_e8m0fnu", "I16": "int16", "U16": "uint16",
    "F16": "float16", "BF16": "bfloat16", "I32": "int32", "U32": "uint32", "F32": "float32",
    "F64": "float64", "I64": "int64", "U64": "uint64",
}
# NumPy and CuPy have no bfloat16 or float8: those tensors come back as raw unsigned integers of
# the same width, their bits unchanged.
_ARRAY_DTYPES = {
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "F8_E5M2": "uint8", "F8_E4M3": "uint8",
    "F8_E8M0": "uint8", "I16": "int16", "U16": "uint16", "F16": "float16", "BF16": "uint16",
    "I32": "int32", "U32": "uint32", "F32": "float32", "F64": "float64", "I64": "int64",
    "U64": "uint64",
}
_ARRAY_KINDS = {("b", 1): "BOOL", ("u", 1): "U8", ("i", 1): "I8", ("i", 2): "I16",
                ("u", 2): "U16", ("f", 2): "F16", ("i", 4): "I32", ("u", 4): "U32",
                ("f", 4): "F32", ("f", 8): "F64", ("i", 8): "I64", ("u", 8): "U64"}


class SafetensorsError(ValueError):
    """The file is not a valid safetensors file, or a tensor cannot be stored in one.

    Raised before any tensor data is read or written.
    """


class TensorInfo:
    """One header entry: ``name``, ``dtype`` (``"F32"``...), ``shape``, ``nbytes`` and
    ``offset``, the tensor's first byte from the start of the file."""

    __slots__ = ("name", "dtype", "shape", "nbytes", "offset")

    def __init__(self, name, dtype, shape, nbytes, offset):
        self.name, self.dtype, self.shape, self.nbytes, self.offset = (name, dtype, shape,
                                                                       nbytes, offset)

    def __repr__(self):
        return "TensorInfo(%r, %s, %s, %d bytes at %d)" % (self.name, self.dtype, self.shape,
                                                           self.nbytes, self.offset)


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def parse_header(data, file_size, path="<bytes>"):
    """Check a header and return ``(tensors, metadata)``: a list of :class:`TensorInfo` in file
    order and the ``__metadata__`` dict (or ``None``).

    ``data`` is the file's first bytes, at least 8 plus the header length; ``file_size`` the
    file's size. Raises :class:`SafetensorsError` naming what is wrong.
    """
    def fail(why):
        raise SafetensorsError("%s: not a valid safetensors file: %s" % (path, why))

    if len(data) < 8 or file_size < 8:
        fail("shorter than the 8-byte header length")
    (length,) = struct.unpack("<Q", data[:8])
    if length > MAX_HEADER_SIZE:
        fail("header length %d is over the format's limit of %d" % (length, MAX_HEADER_SIZE))
    if 8 + length > file_size or len(data) < 8 + length:
        fail("header length %d runs past the end of the file (%d bytes)" % (length, file_size))
    raw = bytes(data[8:8 + length])
    if not raw.startswith(b"{"):
        fail("the header does not start with '{'")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        fail("the header is not JSON: %s" % error)
    if not isinstance(header, dict):
        fail("the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(v, str) for v in metadata.values())):
        fail("__metadata__ is not a map of strings to strings")
    base = 8 + length
    tensors = []
    for name, entry in header.items():
        if not isinstance(entry, dict):
            fail("entry %r is not an object" % name)
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if dtype not in DTYPE_SIZES:
            fail("tensor %r has unknown dtype %r" % (name, dtype))
        if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            fail("tensor %r has shape %r, not a list of sizes" % (name, shape))
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_count, offsets))
                and offsets[0] <= offsets[1]):
            fail("tensor %r has data_offsets %r, not [begin, end]" % (name, offsets))
        elements = 1
        for extent in shape:
            elements *= extent
        nbytes = elements * DTYPE_SIZES[dtype]
        if offsets[1] - offsets[0] != nbytes:
            fail("tensor %r: data_offsets %r hold %d bytes, its dtype and shape %d"
                 % (name, offsets, offsets[1] - offsets[0], nbytes))
        tensors.append(TensorInfo(name, dtype, tuple(shape), nbytes, base + offsets[0]))
    tensors.sort(key=lambda t: (t.offset, t.nbytes))
    end = base
    for tensor in tensors:
        if tensor.offset != end:
            fail("tensor %r starts at data offset %d, not where the previous one ends (%d)"
                 % (tensor.name, tensor.offset - base, end - base))
        end += tensor.nbytes
    if end != file_size:
        fail("the tensors end at byte %d but the file has %d" % (end, file_size))
    return tensors, metadata


def read_header(path):
    """The :class:`TensorInfo` list and metadata of the file at ``path`` (see
    :func:`parse_header`); reads the header only."""
    with open(path, "rb") as stream:
        file_size = os.fstat(stream.fileno()).st_size
        prefix = stream.read(8)
        if len(prefix) == 8:
            (length,) = struct.unpack("<Q", prefix)
            if length <= MAX_HEADER_SIZE and 8 + length <= file_size:
                prefix += stream.read(length)
    return parse_header(prefix, file_size, os.fspath(path))


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
            raise SafetensorsError("%s: tensor %r has dtype %s, which this PyTorch lacks"
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
        raise SafetensorsError("device %r is neither 'cpu' nor 'cuda[:N]'" % device)
    try:
        import numpy
    except ImportError:
        return _read_all(path, tensors, lambda info: bytearray(info.nbytes))
    return _read_all(path, tensors,
                     lambda info: numpy.empty(info.shape, dtype=_ARRAY_DTYPES[info.dtype]))


def metadata(path):
    """The ``__metadata__`` map of a file, or ``None``."""
    return read_header(path)[1]


def _describe(name, tensor):
    """``(dtype, shape, nbytes)`` of a tensor of PyTorch, CuPy, NumPy or any array with the
    CUDA array interface."""
    module = type(tensor).__module__.split(".")[0]
    if module == "torch":
        names = {value: key for key, value in _TORCH_DTYPES.items()}
        dtype = names.get(str(tensor.dtype).replace("torch.", ""))
        if dtype is None:
            raise SafetensorsError("tensor %r: dtype %s has no safetensors name"
                                   % (name, tensor.dtype))
        if not tensor.is_contiguous():
            raise SafetensorsError("tensor %r is not contiguous; save tensor.contiguous()" % name)
        return dtype, tuple(tensor.shape), tensor.numel() * tensor.element_size()
    kind = getattr(tensor, "dtype", None)
    if kind is None and hasattr(tensor, "__cuda_array_interface__"):
        typestr = tensor.__cuda_array_interface__["typestr"]
        kind_key = (typestr[1], int(typestr[2:]))
        shape = tuple(tensor.__cuda_array_interface__["shape"])
    elif kind is not None:
        kind_key = (kind.kind, kind.itemsize)
        shape = tuple(tensor.shape)
        flags = getattr(tensor, "flags", None)
        if flags is not None and not flags["C_CONTIGUOUS"]:
            raise SafetensorsError("tensor %r is not C-contiguous" % name)
    else:
        raise SafetensorsError("tensor %r: %s is not an array" % (name, type(tensor).__name__))
    dtype = _ARRAY_KINDS.get(kind_key)
    if dtype is None:
        raise SafetensorsError("tensor %r: element kind %r has no safetensors name"
                               % (name, kind_key))
    elements = 1
    for extent in shape:
        elements *= extent
    return dtype, shape, elements * DTYPE_SIZES[dtype]


def build_header(entries, metadata=None):
    """The header bytes (length and JSON, padded as safetensors pads it) for ``entries``, a list
    of ``(name, dtype, shape, nbytes)``, and the data offset of each entry in the order written.

    Returns ``(header_bytes, order)``: ``order`` lists ``(name, data_offset, nbytes)``.
    """
    rank = {dtype: index for index, dtype in enumerate(_DTYPE_ORDER)}
    ordered = sorted(entries, key=lambda e: (-rank[e[1]], e[0]))
    header = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SafetensorsError("metadata must map strings to strings")
        header["__metadata__"] = dict(metadata)
    order = []
    offset = 0
    for name, dtype, shape, nbytes in ordered:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + nbytes]}
        order.append((name, offset, nbytes))
        offset += nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % _HEADER_ALIGNMENT)
    return struct.pack("<Q", len(text)) + text, order


def save_file(tensors, path, metadata=None):
    """Write ``tensors`` (a dict from name to tensor) to ``path`` in the safetensors format, as
    ``safetensors.torch.save_file(tensors, path, metadata)`` writes it, byte for byte.

    Tensors may be PyTorch tensors, CuPy or NumPy arrays, on the GPU or the host, each written
    straight from its memory; all writes run at once. ``metadata`` maps strings to strings.
    Raises :class:`SafetensorsError` for a tensor that cannot be stored (nothing is written) and
    :class:`HipFileError` for an I/O error.
    """
    if not isinstance(tensors, dict):
        raise SafetensorsError("tensors must be a dict from name to tensor")
    described = {}
    for name, tensor in tensors.items():
        if not isinstance(name, str) or name == "__metadata__":
            raise SafetensorsError("tensor name %r is not allowed" % (name,))
        described[name] = _describe(name, tensor)
    header, order = build_header([(n,) + d for n, d in described.items()], metadata)
    with _file.File(path, "w") as target:
        target.write(bytearray(header), len(header), 0)
        futures = [target.pwrite(tensors[name], nbytes, len(header) + offset)
                   for name, offset, nbytes in order if nbytes]
        for future in futures:
            future.get()
