"""hipfile.safetensors.safe_open on the host runtime: the safetensors package's interface (keys,
offset_keys, metadata, get_tensor, get_slice with ints, slices and Ellipsis), NumPy and, where
installed, PyTorch tensors, the bytes a slice reads, and every mistake raised as SafetensorError
naming the file and the tensor."""

import os

import numpy as np
import pytest

import hipfile
from hipfile import safetensors as st


@pytest.fixture
def arrays():
    rng = np.random.default_rng(7)
    return {
        "weight": rng.standard_normal((64, 48)).astype(np.float32),
        "cube": rng.integers(-1000, 1000, (6, 5, 4), dtype=np.int32),
        "ids": np.arange(1000, dtype=np.int64),
        "scale": np.array(0.25, dtype=np.float64),
        "empty": np.zeros((0, 3), dtype=np.float16),
        "mask": rng.integers(0, 2, (9,)).astype(bool),
    }


@pytest.fixture
def model(workdir, arrays):
    path = os.path.join(workdir, "model.safetensors")
    st.save_file(arrays, path, metadata={"format": "np", "origin": "test"})
    return path


def test_keys_offset_keys_and_metadata(model, arrays):
    with st.safe_open(model, framework="np") as f:
        assert f.keys() == sorted(arrays)
        offsets = {info.name: info.offset for info in st.read_header(model)[0]}
        assert f.offset_keys() == sorted(arrays, key=lambda name: offsets[name])
        assert f.metadata() == {"format": "np", "origin": "test"}


def test_get_tensor_reads_every_tensor_exactly(model, arrays):
    with st.safe_open(model, framework="numpy", device="cpu") as f:
        for name, array in arrays.items():
            got = f.get_tensor(name)
            assert got.dtype == array.dtype and got.shape == array.shape, name
            assert np.array_equal(got, array), name


SELECTIONS = [np.s_[3:17], np.s_[:, 5:9], np.s_[..., 2], np.s_[10], np.s_[-5:], np.s_[2:3, 7:8],
              np.s_[:, :], np.s_[1:60:7], np.s_[::3, 1::5], np.s_[..., 0:0], np.s_[63, 47],
              np.s_[-1, ...], np.s_[0:64]]


@pytest.mark.parametrize("index", SELECTIONS, ids=[str(s) for s in SELECTIONS])
def test_get_slice_matches_numpy_indexing(model, arrays, index):
    with st.safe_open(model, framework="np") as f:
        part = f.get_slice("weight")
        assert part.get_shape() == [64, 48] and part.get_dtype() == "F32"
        got = part[index]
    want = arrays["weight"][index]
    assert got.shape == want.shape and np.array_equal(got, want)
    # Its own memory: no view into a larger read.
    assert got.flags["C_CONTIGUOUS"] and (got.base is None or got.base.nbytes == got.nbytes)


def test_get_slice_on_every_dimension_of_a_cube(model, arrays):
    cube = arrays["cube"]
    with st.safe_open(model, framework="np") as f:
        part = f.get_slice("cube")
        for index in (np.s_[1, 2], np.s_[1, 2, 3], np.s_[:, 1], np.s_[..., 1:3], np.s_[4:, :, ::2],
                      np.s_[2, 1:4, 1:3], np.s_[0:1, 0:1, 0:1], np.s_[5]):
            assert np.array_equal(part[index], cube[index]), index
        assert np.array_equal(f.get_slice("ids")[990:], arrays["ids"][990:])
        assert f.get_slice("scale")[...] == arrays["scale"]


def test_a_row_slice_reads_only_its_rows(model, arrays):
    with st.safe_open(model, framework="np") as f:
        before = hipfile.stats()["read_bytes"]
        rows = f.get_slice("weight")[16:32]
        assert hipfile.stats()["read_bytes"] - before == rows.nbytes
        # A column slice reads the rows it spans once, not the whole file.
        before = hipfile.stats()["read_bytes"]
        f.get_slice("weight")[8:10, 4:6]
        assert hipfile.stats()["read_bytes"] - before == 2 * 48 * 4
    assert np.array_equal(rows, arrays["weight"][16:32])


BAD_SLICES = {
    "index past the end": (np.s_[64], "index 64 is out of range for dimension 0 of size 64"),
    "slice past the end": (np.s_[:, 40:49], "out of range for dimension 1 of size 48"),
    "negative step": (np.s_[::-1], "the step must be positive"),
    "too many indices": (np.s_[1, 2, 3], "3 indices for 2 dimensions"),
    "two ellipses": (np.s_[..., ...], "a single ellipsis"),
    "not an index": (np.s_["a"], "not an int, a slice or ..."),
    "float bound": (np.s_[0:2.5], "not of integers"),
}


@pytest.mark.parametrize("case", sorted(BAD_SLICES))
def test_bad_slices_raise_naming_file_and_tensor(model, case):
    index, message = BAD_SLICES[case]
    with st.safe_open(model, framework="np") as f:
        with pytest.raises(st.SafetensorError, match=message) as caught:
            f.get_slice("weight")[index]
    assert model in str(caught.value) and "'weight'" in str(caught.value)


def test_unknown_names_closed_files_and_bad_arguments(model):
    with st.safe_open(model, framework="np") as f:
        with pytest.raises(st.SafetensorError, match="does not contain tensor nope"):
            f.get_tensor("nope")
        with pytest.raises(st.SafetensorError, match="does not contain tensor nope"):
            f.get_slice("nope")
        part = f.get_slice("weight")
    for call in (f.keys, f.offset_keys, f.metadata, lambda: f.get_tensor("weight"),
                 lambda: part[0:1]):
        with pytest.raises(st.SafetensorError, match="the file is closed"):
            call()
    for framework, device, message in (("tf", "cpu", "framework 'tf'"),
                                       ("np", "cuda:0", "host memory only"),
                                       ("np", "gpu", "is not \"cpu\""),
                                       ("cupy", "cpu", "GPU memory only")):
        with pytest.raises(st.SafetensorError, match=message):
            st.safe_open(model, framework=framework, device=device)
    # The old spelling of the exception is the same class.
    assert st.SafetensorsError is st.SafetensorError


def test_numpy_lacks_bfloat16_and_says_which_tensor(workdir):
    path = os.path.join(workdir, "bf16.safetensors")
    header = st.build_header([("half", "BF16", (2,), 4)])[0]
    with open(path, "wb") as stream:
        stream.write(header + b"\x80\x3f\x00\xc0")
    with st.safe_open(path, framework="np") as f:
        with pytest.raises(st.SafetensorError, match="tensor 'half' has dtype BF16, which NumPy"):
            f.get_tensor("half")


def test_a_file_cut_short_after_opening_fails_naming_the_tensor(model, arrays):
    with st.safe_open(model, framework="np") as f:
        last = f.offset_keys()[-1]
        os.truncate(model, os.path.getsize(model) - 1)
        with pytest.raises(st.SafetensorError, match="tensor %r: read" % last):
            f.get_tensor(last)


def test_a_file_shorter_than_its_header_fails_at_open(model):
    os.truncate(model, os.path.getsize(model) - 3)
    with pytest.raises(st.SafetensorError, match="past the end of the file"):
        st.safe_open(model, framework="np")


def test_pytorch_tensors_and_slices(model, arrays):
    torch = pytest.importorskip("torch")
    with st.safe_open(model, framework="pt", device="cpu") as f:
        for name, array in arrays.items():
            got = f.get_tensor(name)
            assert isinstance(got, torch.Tensor) and got.device.type == "cpu"
            assert np.array_equal(got.numpy(), array), name
        rows = f.get_slice("weight")[5:9]
        columns = f.get_slice("weight")[:, 3:7]
        assert rows.is_contiguous() and columns.is_contiguous()
        assert np.array_equal(rows.numpy(), arrays["weight"][5:9])
        assert np.array_equal(columns.numpy(), arrays["weight"][:, 3:7])


def test_pytorch_bfloat16_bits_are_kept(workdir):
    torch = pytest.importorskip("torch")
    path = os.path.join(workdir, "bf16.safetensors")
    weights = torch.arange(-6, 6, dtype=torch.float32).reshape(3, 4).to(torch.bfloat16)
    st.save_file({"w": weights}, path)
    with st.safe_open(path, framework="pt") as f:
        got = f.get_tensor("w")
        part = f.get_slice("w")[:, 1:3]
    assert got.dtype == torch.bfloat16 and torch.equal(got, weights)
    assert torch.equal(part, weights[:, 1:3])


def test_route_swaps_the_safetensors_readers_a_module_imported_and_restores_them(model, arrays):
    import sys
    import types

    # A stand-in for the safetensors package and for a framework module that imported from it.
    package = types.ModuleType("safetensors")
    package_torch = types.ModuleType("safetensors.torch")
    package.safe_open = original_open = lambda *args, **kwargs: "theirs"
    package_torch.load_file = lambda *args, **kwargs: "theirs"
    package.torch = package_torch
    framework = types.ModuleType("fake_framework_modeling")
    framework.safe_open = package.safe_open
    framework.load_file = package_torch.load_file
    saved = {name: sys.modules.get(name) for name in ("safetensors", "safetensors.torch",
                                                       "fake_framework_modeling")}
    sys.modules.update({"safetensors": package, "safetensors.torch": package_torch,
                        "fake_framework_modeling": framework})
    try:
        with st.route():
            assert framework.safe_open is st.safe_open and framework.load_file is st.load_file
            with framework.safe_open(model, framework="np") as f:
                assert np.array_equal(f.get_tensor("ids"), arrays["ids"])
        assert framework.safe_open() == "theirs" and framework.load_file() == "theirs"
        with st.route(modules=["fake_framework_modeling"]):
            assert framework.safe_open is st.safe_open
            assert package.safe_open() == "theirs"
        assert framework.safe_open() == "theirs"
        # With a device, every read goes there whatever the caller names (a framework opening
        # for the CPU and moving tensors to the GPU afterwards), backend= included.
        with st.route(device="cpu"):
            with framework.safe_open(model, framework="np", device="cuda:3", backend="mmap") as f:
                assert np.array_equal(f.get_tensor("ids"), arrays["ids"])
        assert framework.safe_open() == "theirs"
        # A module imported inside the block (transformers imports some on the first load)
        # takes the swapped name from the package; after the block it must hold theirs again,
        # while a module that imported ours before the block keeps it.
        mine = types.ModuleType("fake_user_module")
        mine.safe_open = st.safe_open
        sys.modules["fake_user_module"] = mine
        for device in (None, "cpu"):
            sys.modules.pop("fake_lazy_module", None)
            with st.route(device=device):
                lazy = types.ModuleType("fake_lazy_module")
                lazy.safe_open, lazy.load_file = package.safe_open, package_torch.load_file
                lazy.reader = package.safe_open
                sys.modules["fake_lazy_module"] = lazy
                assert lazy.safe_open is not original_open  # it took the replacement
            assert lazy.safe_open() == "theirs" and lazy.reader() == "theirs", device
            assert lazy.load_file() == "theirs" and package.safe_open() == "theirs", device
            assert mine.safe_open is st.safe_open
        # route() remembers what each module held; a module that takes a reader after it was
        # scanned (its globals grew) is scanned again.
        late = types.ModuleType("fake_late_module")
        sys.modules["fake_late_module"] = late
        with st.route():
            pass
        late.safe_open = package.safe_open
        with st.route():
            assert late.safe_open is st.safe_open
        assert late.safe_open() == "theirs"
    finally:
        sys.modules.pop("fake_late_module", None)
        sys.modules.pop("fake_lazy_module", None)
        sys.modules.pop("fake_user_module", None)
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _read_bytes():
    return hipfile.stats()["read_bytes"]


@pytest.fixture
def interleaved(workdir):
    # Offset order c, d, a, b, e against key order a, b, c, d, e: d follows c and b follows a in
    # both orders, and c and d come after b in key order.
    rng = np.random.default_rng(3)
    arrays = {"c": rng.standard_normal(300), "d": rng.standard_normal(200),
              "a": rng.standard_normal((40, 10)).astype(np.float32),
              "b": rng.standard_normal(700).astype(np.float32),
              "e": rng.standard_normal(90).astype(np.float16)}
    path = os.path.join(workdir, "interleaved.safetensors")
    st.save_file(arrays, path)
    return path, arrays


@pytest.mark.parametrize("order", ["keys", "offset_keys"])
def test_a_loop_in_key_or_offset_order_reads_each_byte_once(model, arrays, interleaved, order):
    for path, expected in ((model, arrays), interleaved):
        with st.safe_open(path, framework="np") as f:
            names = getattr(f, order)()
            before = _read_bytes()
            got = {name: f.get_tensor(name) for name in names}
            assert _read_bytes() - before == sum(a.nbytes for a in expected.values()), path
            # A second pass reads everything again, each tensor into memory of its own.
            again = {name: f.get_tensor(name) for name in names}
            assert _read_bytes() - before == 2 * sum(a.nbytes for a in expected.values())
        for name, array in expected.items():
            assert np.array_equal(got[name], array) and np.array_equal(again[name], array), name
            assert got[name] is not again[name]


def test_random_access_reads_nothing_ahead(interleaved):
    path, arrays = interleaved
    with st.safe_open(path, framework="np") as f:
        before = _read_bytes()
        for name in ("e", "a", "d", "b"):
            assert np.array_equal(f.get_tensor(name), arrays[name])
            assert _read_bytes() - before == arrays[name].nbytes
            before = _read_bytes()


def test_read_ahead_can_be_turned_off(interleaved, monkeypatch):
    path, arrays = interleaved
    monkeypatch.setattr(st.safe_open, "READ_AHEAD_BYTES", 0)
    with st.safe_open(path, framework="np") as f:
        for name in f.keys():
            before = _read_bytes()
            assert np.array_equal(f.get_tensor(name), arrays[name])
            assert _read_bytes() - before == arrays[name].nbytes


def test_closing_in_the_middle_of_a_loop_waits_for_the_reads_ahead(model, arrays):
    f = st.safe_open(model, framework="np")
    names = f.offset_keys()
    first, second = f.get_tensor(names[0]), f.get_tensor(names[1])
    f.close()
    assert np.array_equal(first, arrays[names[0]]) and np.array_equal(second, arrays[names[1]])
    with pytest.raises(st.SafetensorError, match="the file is closed"):
        f.get_tensor(names[2])


def test_a_file_cut_short_during_a_loop_fails_on_the_tensor_asked_for(model, arrays):
    with st.safe_open(model, framework="np") as f:
        names = [n for n in f.offset_keys() if arrays[n].nbytes]
        os.truncate(model, os.path.getsize(model) - 1)
        assert np.array_equal(f.get_tensor(names[0]), arrays[names[0]])
        for name in names[1:-1]:
            assert np.array_equal(f.get_tensor(name), arrays[name]), name
        with pytest.raises(st.SafetensorError, match="tensor %r: read" % names[-1]):
            f.get_tensor(names[-1])


def test_a_loop_from_several_threads_gets_every_tensor_once_each(interleaved):
    import concurrent.futures

    path, arrays = interleaved
    with st.safe_open(path, framework="np") as f:
        names = f.offset_keys() * 8
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            got = list(pool.map(f.get_tensor, names))
    for name, array in zip(names, got):
        assert np.array_equal(array, arrays[name]), name
    assert len({id(array) for array in got}) == len(got)


def test_reads_ahead_bound_for_a_gpu_take_runs_of_adjacent_tensors(workdir, monkeypatch):
    # Host memory forced through the staging path that GPU memory takes.
    from hipfile import _safe_open, _tensor_reads

    monkeypatch.setattr(_safe_open.Allocator, "on_gpu", lambda self: True)
    monkeypatch.setattr(_tensor_reads, "RUN_BYTES", 1 << 16)
    monkeypatch.setattr(st.safe_open, "READ_AHEAD_BYTES", 1 << 16)
    rng = np.random.default_rng(5)
    arrays = {"w%03d" % i: rng.standard_normal(int(n)).astype(np.float32)
              for i, n in enumerate(rng.integers(1, 3000, 120))}
    path = os.path.join(workdir, "many.safetensors")
    st.save_file(arrays, path)
    with st.safe_open(path, framework="np") as f:
        before = hipfile.stats()
        got = {name: f.get_tensor(name) for name in f.offset_keys()}
        after = hipfile.stats()
    assert after["read_bytes"] - before["read_bytes"] == sum(a.nbytes for a in arrays.values())
    assert after["read_ops"]["ok"] - before["read_ops"]["ok"] < len(arrays) // 3
    for name, array in arrays.items():
        assert np.array_equal(got[name], array), name
    # Cut short inside the loop: every tensor before the cut, then an error naming the first
    # tensor the file lacks, however the runs fell.
    with st.safe_open(path, framework="np") as f:
        names = f.offset_keys()
        infos = {info.name: info for info in st.read_header(path)[0]}
        cut = names[len(names) // 2]
        os.truncate(path, infos[cut].offset + 1)
        for name in names[:len(names) // 2]:
            assert np.array_equal(f.get_tensor(name), arrays[name]), name
        with pytest.raises(st.SafetensorError, match="tensor %r: read 1 of" % cut):
            f.get_tensor(cut)


@pytest.fixture
def many(workdir):
    rng = np.random.default_rng(9)
    arrays = {"w%03d" % i: rng.standard_normal((int(n), 4)).astype(np.float32)
              for i, n in enumerate(rng.integers(1, 800, 120))}
    path = os.path.join(workdir, "many.safetensors")
    st.save_file(arrays, path)
    return path, arrays


@pytest.fixture
def gpu_like(monkeypatch):
    from hipfile import _safe_open, _tensor_reads

    monkeypatch.setattr(_safe_open.Allocator, "on_gpu", lambda self: True)
    monkeypatch.setattr(_tensor_reads, "RUN_BYTES", 1 << 16)
    monkeypatch.setattr(st.safe_open, "READ_AHEAD_BYTES", 1 << 16)


@pytest.mark.parametrize("index", [Ellipsis, slice(None)], ids=["ellipsis", "colon"])
def test_whole_slices_from_four_threads_read_ahead_each_byte_once(many, gpu_like, index):
    import concurrent.futures

    path, arrays = many
    with st.safe_open(path, framework="np") as f:
        before = hipfile.stats()
        # As transformers materialises get_slice(name)[...] on four threads, in key order.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            got = dict(zip(f.keys(), pool.map(lambda n: f.get_slice(n)[index], f.keys())))
        after = hipfile.stats()
    assert after["read_bytes"] - before["read_bytes"] == sum(a.nbytes for a in arrays.values())
    assert after["read_ops"]["ok"] - before["read_ops"]["ok"] < len(arrays) // 3
    for name, array in arrays.items():
        assert got[name].shape == array.shape and np.array_equal(got[name], array), name


def test_a_tensor_parallel_pattern_reads_only_what_it_asks_for(many, gpu_like):
    path, arrays = many
    with st.safe_open(path, framework="np") as f:
        before, asked = hipfile.stats()["read_bytes"], 0
        for number, name in enumerate(f.keys()):
            if number % 5 == 0:
                asked += f.get_tensor(name).nbytes  # replicated: whole
            else:
                rows = arrays[name].shape[0]
                asked += f.get_slice(name)[: max(rows // 2, 1)].nbytes  # this rank's rows
        assert hipfile.stats()["read_bytes"] - before == asked


def test_a_loop_a_little_out_of_order_still_reads_ahead(many, gpu_like):
    path, arrays = many
    with st.safe_open(path, framework="np") as f:
        names = f.keys()
        # Pairs swapped after the first two, as callers on several threads arrive.
        order = names[:2] + [n for pair in zip(names[3::2], names[2::2]) for n in pair]
        order += [n for n in names if n not in order]
        before = hipfile.stats()
        got = {name: f.get_tensor(name) for name in order}
        after = hipfile.stats()
    assert after["read_bytes"] - before["read_bytes"] == sum(a.nbytes for a in arrays.values())
    assert after["read_ops"]["ok"] - before["read_ops"]["ok"] < len(arrays) // 3
    for name, array in arrays.items():
        assert np.array_equal(got[name], array), name
