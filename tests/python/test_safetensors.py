"""hipfile.safetensors against files built here byte by byte from the format's rules: an 8-byte
little-endian header length, the JSON header padded with spaces to a multiple of 8, then each
tensor's bytes, sorted by dtype (largest alignment first) and name."""

import json
import os
import struct

import numpy as np
import pytest

import hipfile
from hipfile import safetensors as st

# The tensors of the reference file and their bytes, little-endian, written out by hand.
REFERENCE_TENSORS = [
    ("steps", "I64", [], struct.pack("<q", -1234567890123)),
    ("emb", "F32", [1], struct.pack("<f", 0.5)),
    ("weight", "F32", [2, 2], struct.pack("<4f", 1.0, -2.0, 3.5, 1e-3)),
    # BF16 is the top half of an F32: 1.0 is 0x3f80, -2.0 is 0xc000.
    ("norm", "BF16", [2], struct.pack("<2H", 0x3F80, 0xC000)),
    ("bias", "F16", [3], struct.pack("<3e", 1.0, -0.5, 65504.0)),
    ("ids", "U8", [5], bytes([0, 1, 2, 254, 255])),
    ("mask", "BOOL", [4], bytes([1, 0, 0, 1])),
    ("empty", "F32", [0, 3], b""),
]
REFERENCE_JSON = (
    '{"__metadata__":{"format":"pt"},'
    '"steps":{"dtype":"I64","shape":[],"data_offsets":[0,8]},'
    '"emb":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},'
    '"empty":{"dtype":"F32","shape":[0,3],"data_offsets":[12,12]},'
    '"weight":{"dtype":"F32","shape":[2,2],"data_offsets":[12,28]},'
    '"norm":{"dtype":"BF16","shape":[2],"data_offsets":[28,32]},'
    '"bias":{"dtype":"F16","shape":[3],"data_offsets":[32,38]},'
    '"ids":{"dtype":"U8","shape":[5],"data_offsets":[38,43]},'
    '"mask":{"dtype":"BOOL","shape":[4],"data_offsets":[43,47]}}')
REFERENCE_ORDER = ["steps", "emb", "empty", "weight", "norm", "bias", "ids", "mask"]


def reference_bytes():
    header = REFERENCE_JSON.encode()
    header += b" " * (-len(header) % 8)
    data = dict((name, raw) for name, _, _, raw in REFERENCE_TENSORS)
    return struct.pack("<Q", len(header)) + header + b"".join(data[n] for n in REFERENCE_ORDER)


def reference_arrays():
    arrays = {}
    for name, dtype, shape, raw in REFERENCE_TENSORS:
        kind = {"I64": "<i8", "F32": "<f4", "BF16": "<u2", "F16": "<f2", "U8": "u1",
                "BOOL": "?"}[dtype]
        arrays[name] = np.frombuffer(raw, dtype=kind).reshape(shape)
    return arrays


@pytest.fixture
def reference_file(workdir):
    path = os.path.join(workdir, "reference.safetensors")
    with open(path, "wb") as stream:
        stream.write(reference_bytes())
    return path


def test_load_reference_file_to_numpy(reference_file):
    loaded = st.load(reference_file, device="cpu")
    expected = reference_arrays()
    assert sorted(loaded) == sorted(expected)
    for name, array in expected.items():
        assert loaded[name].shape == array.shape, name
        assert loaded[name].tobytes() == array.tobytes(), name
    assert loaded["steps"] == -1234567890123
    assert loaded["weight"][1, 0] == np.float32(3.5)
    assert loaded["norm"].dtype == np.uint16
    assert st.metadata(reference_file) == {"format": "pt"}


def test_save_file_writes_the_reference_bytes(workdir):
    tensors = {name: array.copy() for name, array in reversed(
        list(reference_arrays().items())) if name != "norm"}
    tensors["norm"] = reference_arrays()["norm"]
    path = os.path.join(workdir, "saved.safetensors")
    # NumPy has no bfloat16: save its bits as BF16 through a hand-built header instead.
    header, order = st.build_header(
        [(n, "BF16" if n == "norm" else st._describe(n, a)[0], a.shape, a.nbytes)
         for n, a in tensors.items()], {"format": "pt"})
    expected = reference_bytes()
    assert header == expected[:len(header)]
    assert [name for name, _, _ in order] == REFERENCE_ORDER
    del tensors["norm"]
    st.save_file(tensors, path, metadata={"format": "pt"})
    loaded = st.load(path, device="cpu")
    for name, array in tensors.items():
        assert loaded[name].tobytes() == array.tobytes()
        assert loaded[name].shape == array.shape


def test_save_then_load_many_tensors(workdir):
    rng = np.random.default_rng(7)
    kinds = [np.float32, np.float16, np.int64, np.uint8, np.bool_, np.int32, np.float64,
             np.int8, np.int16, np.uint16, np.uint32, np.uint64]
    tensors = {}
    for index in range(300):
        kind = kinds[index % len(kinds)]
        elements = int(rng.integers(0, 1 << (4 + index % 15)))
        tensors["layer.%03d.%s" % (index, np.dtype(kind).name)] = \
            rng.integers(0, 2, elements).astype(kind) if kind is np.bool_ else \
            rng.integers(0, 100, elements).astype(kind)
    path = os.path.join(workdir, "many.safetensors")
    st.save_file(tensors, path)
    loaded = st.load(path, device="cpu")
    assert set(loaded) == set(tensors)
    for name, array in tensors.items():
        assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array), name
    infos, metadata = st.read_header(path)
    assert metadata is None and len(infos) == 300
    (length,) = struct.unpack("<Q", open(path, "rb").read(8))
    assert length % 8 == 0


def test_load_into_device_memory(reference_file, device_array):
    loaded = st.load_into(reference_file, lambda info: device_array(max(info.nbytes, 1)))
    for name, array in reference_arrays().items():
        assert loaded[name].download()[:array.nbytes] == array.tobytes(), name


def corrupt(header_json=None, length=None, data=b"", raw_header=None):
    header = raw_header if raw_header is not None else json.dumps(header_json).encode()
    return struct.pack("<Q", len(header) if length is None else length) + header + data


MALFORMED = {
    "too short": (b"\x01\x00", "shorter than the 8-byte"),
    "huge length": (corrupt({}, length=1 << 40), "over the format's limit"),
    "length past the end": (corrupt({}, length=100), "runs past the end"),
    "not json": (corrupt(raw_header=b"{not json"), "not JSON"),
    "not an object": (corrupt(raw_header=b"[1, 2]   "), "does not start with"),
    "unknown dtype": (corrupt({"a": {"dtype": "F7", "shape": [1], "data_offsets": [0, 1]}},
                              data=b"x"), "unknown dtype"),
    "bad shape": (corrupt({"a": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 1]}},
                          data=b"x"), "shape"),
    "size mismatch": (corrupt({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}},
                              data=b"xxxx"), "hold 4 bytes, its dtype and shape 8"),
    "gap": (corrupt({"a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}},
                    data=b"xx"), "not where the previous one ends"),
    "overlap": (corrupt({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
                         "b": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}},
                        data=b"xxx"), "not where the previous one ends"),
    "file shorter than header says": (
        corrupt({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}, data=b"xx"),
        r"tensor 'a' ends at byte \d+, past the end of the file"),
    "trailing bytes": (corrupt({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}},
                               data=b"xy"), "the tensors end at byte"),
    "bad metadata": (corrupt({"__metadata__": {"a": 1}}), "__metadata__"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_header_reads_nothing(workdir, case):
    content, message = MALFORMED[case]
    path = os.path.join(workdir, "bad.safetensors")
    with open(path, "wb") as stream:
        stream.write(content)
    before = hipfile.stats()["read_ops"]["ok"] if hipfile.use_count() else None
    allocated = []
    with pytest.raises(st.SafetensorsError, match=message) as caught:
        st.load_into(path, allocated.append)
    assert path in str(caught.value)
    assert not allocated
    if before is not None:
        assert hipfile.stats()["read_ops"]["ok"] == before
    with pytest.raises(st.SafetensorsError):
        st.load(path, device="cpu")


def test_unsupported_tensors_are_refused_before_writing(workdir):
    path = os.path.join(workdir, "refused.safetensors")
    for tensors, message in (({"a": np.zeros(3, dtype=np.complex64)}, "no safetensors name"),
                             ({"a": np.zeros((4, 4))[:, ::2]}, "not C-contiguous"),
                             ({"__metadata__": np.zeros(1)}, "not allowed"),
                             ({"a": [1, 2]}, "not an array")):
        with pytest.raises(st.SafetensorsError, match=message):
            st.save_file(tensors, path)
        assert not os.path.exists(path)
    with pytest.raises(st.SafetensorsError, match="strings"):
        st.save_file({"a": np.zeros(1)}, path, metadata={"n": 1})
