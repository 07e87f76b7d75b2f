"""The safetensors format itself: dtypes, the header's rules, reading and building headers.

The format (the ``safetensors`` project's): an 8-byte little-endian header length N, N bytes of
JSON, then the tensors' bytes. The JSON maps each tensor's name to its ``dtype``, ``shape`` and
``data_offsets`` ``[begin, end)`` (relative to the end of the header), with an optional
``"__metadata__"`` map of strings to strings. The tensors' bytes follow each other without gap
from offset 0 to the end of the file.
"""

import json
import os
import struct


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


class SafetensorError(ValueError):
    """The file is not a valid safetensors file, a tensor cannot be stored in one, or a call of
    :class:`safe_open` is wrong (an unknown name, a bad slice, a closed file); the name is the
    ``safetensors`` package's.

    Raised before any tensor data is read or written.
    """


#: The name this package used first, kept as an alias.
SafetensorsError = SafetensorError


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
        raise SafetensorError("%s: not a valid safetensors file: %s" % (path, why))

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
        if tensor.offset + tensor.nbytes > file_size:
            fail("tensor %r ends at byte %d, past the end of the file (%d bytes): the file is "
                 "shorter than its header says" % (tensor.name, tensor.offset + tensor.nbytes,
                                                   file_size))
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


def _describe(name, tensor):
    """``(dtype, shape, nbytes)`` of a tensor of PyTorch, CuPy, NumPy or any array with the
    CUDA array interface."""
    module = type(tensor).__module__.split(".")[0]
    if module == "torch":
        names = {value: key for key, value in _TORCH_DTYPES.items()}
        dtype = names.get(str(tensor.dtype).replace("torch.", ""))
        if dtype is None:
            raise SafetensorError("tensor %r: dtype %s has no safetensors name"
                                   % (name, tensor.dtype))
        if not tensor.is_contiguous():
            raise SafetensorError("tensor %r is not contiguous; save tensor.contiguous()" % name)
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
            raise SafetensorError("tensor %r is not C-contiguous" % name)
    else:
        raise SafetensorError("tensor %r: %s is not an array" % (name, type(tensor).__name__))
    dtype = _ARRAY_KINDS.get(kind_key)
    if dtype is None:
        raise SafetensorError("tensor %r: element kind %r has no safetensors name"
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
            raise SafetensorError("metadata must map strings to strings")
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
