"""Whole checkpoints on the host runtime: save_checkpoint's save_pretrained layout, load_checkpoint
from a directory, an index or one file, iter_tensors as tensors land, and every malformed
checkpoint refused naming the file and the tensor before anything is allocated."""

import json
import os

import numpy as np
import pytest

from hipfile import safetensors as st


@pytest.fixture
def model():
    rng = np.random.default_rng(3)
    tensors = {}
    for layer in range(6):
        tensors["layers.%d.weight" % layer] = rng.standard_normal((64, 32)).astype(np.float32)
        tensors["layers.%d.bias" % layer] = rng.standard_normal(32).astype(np.float32)
    tensors["embed"] = rng.integers(0, 100, (128, 16), dtype=np.int64)
    tensors["empty"] = np.zeros((0,), dtype=np.float16)
    return tensors


def assert_same(got, want):
    assert sorted(got) == sorted(want)
    for name, array in want.items():
        value = np.asarray(got[name])
        assert value.dtype == array.dtype and np.array_equal(value, array), name


def test_save_checkpoint_writes_the_save_pretrained_layout(workdir, model):
    directory = os.path.join(workdir, "sharded")
    written = st.save_checkpoint(model, directory, max_shard_size="20KB")
    shards = sorted(p for p in written if p.endswith(".safetensors"))
    count = len(shards)
    assert count > 2
    assert [os.path.basename(p) for p in shards] == [
        "model-%05d-of-%05d.safetensors" % (i + 1, count) for i in range(count)]
    with open(os.path.join(directory, "model.safetensors.index.json")) as stream:
        index = json.load(stream)
    total = sum(a.nbytes for a in model.values())
    assert index["metadata"] == {"total_size": total}
    assert sorted(index["weight_map"]) == sorted(model)
    for path in shards:
        tensors, metadata = st.read_header(path)
        assert metadata == {"format": "pt"}
        # Each shard holds at most max_shard_size bytes of tensors, unless one tensor is larger.
        assert sum(t.nbytes for t in tensors) <= 20_000 or len(tensors) == 1
        for info in tensors:
            assert index["weight_map"][info.name] == os.path.basename(path)
    # One shard when it fits: model.safetensors and no index.
    single = os.path.join(workdir, "single")
    assert st.save_checkpoint(model, single) == [os.path.join(single, "model.safetensors")]


@pytest.mark.parametrize("form", ["directory", "index", "file list"])
def test_load_checkpoint_reads_every_shard(workdir, model, form):
    directory = os.path.join(workdir, "sharded")
    written = st.save_checkpoint(model, directory, max_shard_size=30_000)
    path = {"directory": directory,
            "index": os.path.join(directory, "model.safetensors.index.json"),
            "file list": [p for p in written if p.endswith(".safetensors")]}[form]
    assert_same(st.load_checkpoint(path, framework="np"), model)


def test_load_checkpoint_of_one_file_a_filter_and_progress(workdir, model, capsys):
    directory = os.path.join(workdir, "single")
    (path,) = st.save_checkpoint(model, directory)
    assert_same(st.load_checkpoint(path, framework="np"), model)
    biases = st.load_checkpoint(directory, framework="np", names=lambda n: n.endswith("bias"))
    assert sorted(biases) == sorted(n for n in model if n.endswith("bias"))
    assert sorted(st.load_checkpoint(directory, framework="np", names=["embed"])) == ["embed"]
    st.load_checkpoint(directory, framework="np", progress=True)
    assert "Loading checkpoint" in capsys.readouterr().err


@pytest.mark.parametrize("window", [1, 10_000, 1 << 30])
def test_iter_tensors_yields_each_tensor_once(workdir, model, window):
    directory = os.path.join(workdir, "sharded")
    st.save_checkpoint(model, directory, max_shard_size=25_000)
    seen = {}
    for name, tensor in st.iter_tensors(directory, framework="np", window=window):
        assert name not in seen
        seen[name] = tensor
    assert_same(seen, model)


def test_iter_tensors_stopped_early_leaves_nothing_running(workdir, model):
    directory = os.path.join(workdir, "sharded")
    st.save_checkpoint(model, directory, max_shard_size=25_000)
    generator = st.iter_tensors(directory, framework="np")
    name, _ = next(generator)
    generator.close()
    assert name in model


def write_index(directory, weight_map):
    with open(os.path.join(directory, "model.safetensors.index.json"), "w") as stream:
        json.dump({"metadata": {}, "weight_map": weight_map}, stream)


def test_malformed_checkpoints_name_the_file_and_the_tensor(workdir, model):
    directory = os.path.join(workdir, "bad")
    st.save_checkpoint(model, directory, max_shard_size=25_000)
    index_path = os.path.join(directory, "model.safetensors.index.json")
    with open(index_path) as stream:
        weight_map = json.load(stream)["weight_map"]
    first = sorted(set(weight_map.values()))[0]

    broken = dict(weight_map, embed="model-missing.safetensors")
    write_index(directory, broken)
    with pytest.raises(st.SafetensorError, match="model-missing.safetensors for tensor 'embed', "
                                                 "and it does not exist"):
        st.load_checkpoint(directory, framework="np")

    broken = {n: s for n, s in weight_map.items() if n != "embed"}
    write_index(directory, broken)
    with pytest.raises(st.SafetensorError, match="tensor 'embed' is in .*index does not list it"):
        st.load_checkpoint(directory, framework="np")

    broken = dict(weight_map, ghost=first)
    write_index(directory, broken)
    with pytest.raises(st.SafetensorError, match="tensor 'ghost' is listed in %s" % first):
        st.load_checkpoint(directory, framework="np")

    # One tensor in two shards.
    write_index(directory, weight_map)
    extra = os.path.join(directory, "model-extra.safetensors")
    st.save_file({"embed": model["embed"]}, extra)
    with pytest.raises(st.SafetensorError, match="tensor 'embed' is in two shards"):
        st.load_checkpoint([os.path.join(directory, first), extra,
                            os.path.join(directory, weight_map["embed"])], framework="np")

    write_index(directory, {"embed": "../outside.safetensors"})
    with pytest.raises(st.SafetensorError, match="not a file beside the index"):
        st.load_checkpoint(directory, framework="np")
    with open(index_path, "w") as stream:
        stream.write("{not json")
    with pytest.raises(st.SafetensorError, match="not a readable checkpoint index"):
        st.load_checkpoint(directory, framework="np")
    with pytest.raises(st.SafetensorError, match="does not exist"):
        st.load_checkpoint(os.path.join(workdir, "nowhere.safetensors"), framework="np")
    empty = os.path.join(workdir, "empty")
    os.makedirs(empty)
    with pytest.raises(st.SafetensorError, match="holds no .safetensors file"):
        st.load_checkpoint(empty, framework="np")


def test_a_shard_cut_short_fails_before_allocating(workdir, model):
    directory = os.path.join(workdir, "cut")
    written = st.save_checkpoint(model, directory, max_shard_size=25_000)
    os.truncate(written[1], os.path.getsize(written[1]) - 4)
    with pytest.raises(st.SafetensorError, match="%s.*past the end of the file" % written[1]):
        st.load_checkpoint(directory, framework="np")


def test_a_dtype_the_framework_lacks_fails_before_allocating(workdir):
    path = os.path.join(workdir, "bf16.safetensors")
    header = st.build_header([("half", "BF16", (2,), 4)])[0]
    with open(path, "wb") as stream:
        stream.write(header + b"\x80\x3f\x00\xc0")
    with pytest.raises(st.SafetensorError, match="%s: tensor 'half' has dtype BF16" % path):
        st.load_checkpoint(path, framework="np")
    with pytest.raises(st.SafetensorError, match="tensor 'half' has dtype BF16"):
        next(st.iter_tensors([path], framework="np"))


def test_save_checkpoint_refuses_bad_arguments_before_writing(workdir, model):
    directory = os.path.join(workdir, "refused")
    for size in (0, -1, "big", "5XB", True):
        with pytest.raises(st.SafetensorError, match="max_shard_size"):
            st.save_checkpoint(model, directory, max_shard_size=size)
    with pytest.raises(st.SafetensorError, match="not C-contiguous"):
        st.save_checkpoint({"a": np.zeros((4, 4))[:, ::2]}, directory)
    with pytest.raises(st.SafetensorError, match="strings"):
        st.save_checkpoint(model, directory, metadata={"n": 1})
    assert not os.path.exists(directory)


def test_pytorch_checkpoint_round_trip(workdir, model):
    torch = pytest.importorskip("torch")
    tensors = {name: torch.from_numpy(array) for name, array in model.items()}
    tensors["half"] = torch.linspace(-2, 2, 40).to(torch.bfloat16)
    directory = os.path.join(workdir, "torch")
    st.save_checkpoint(tensors, directory, max_shard_size="20kB")
    loaded = st.load_checkpoint(directory, device="cpu")
    assert sorted(loaded) == sorted(tensors)
    for name, tensor in tensors.items():
        assert loaded[name].dtype == tensor.dtype and torch.equal(loaded[name], tensor), name


# Runs of adjacent tensors bound for a GPU are read by one call each into a staging buffer and
# copied out; on the host runtime the same code runs with host memory forced to take that path.
from hipfile import _safe_open, _tensor_reads  # noqa: E402
from hipfile._st_format import TensorInfo  # noqa: E402


@pytest.fixture
def staged(monkeypatch):
    monkeypatch.setattr(_safe_open.Allocator, "on_gpu", lambda self: True)
    monkeypatch.setattr(_tensor_reads, "RUN_BYTES", 65536)
    return monkeypatch


def test_runs_join_adjacent_small_tensors_up_to_the_run_size(monkeypatch):
    monkeypatch.setattr(_tensor_reads, "RUN_BYTES", 100)
    infos = [TensorInfo(name, "U8", (n,), n, at) for name, n, at in
             [("a", 30, 0), ("b", 30, 30), ("c", 30, 60), ("d", 20, 90), ("big", 50, 110),
              ("e", 10, 160), ("zero", 0, 170), ("f", 10, 170), ("g", 10, 200)]]
    shuffled = infos[::-1]
    names = [[info.name for info in run] for run in _tensor_reads.runs_of(shuffled, True)]
    # d would pass 100 bytes; big is half a run, alone; zero-byte tensors and gaps break runs.
    assert names == [["a", "b", "c"], ["d"], ["big"], ["e"], ["zero", "f"], ["g"]]
    assert [[i.name for i in r] for r in _tensor_reads.runs_of(shuffled, False)] == \
        [[info.name] for info in infos]


@pytest.mark.parametrize("slots,vector", [(1, False), (4, False), (4, True)])
def test_staged_runs_load_every_tensor_reading_each_byte_once(workdir, model, staged, slots,
                                                              vector):
    import hipfile

    staged.setattr(_tensor_reads, "STAGED_RUNS", slots)
    staged.setattr(_tensor_reads, "VECTOR_READS", vector)
    directory = os.path.join(workdir, "sharded")
    st.save_checkpoint(model, directory, max_shard_size=30_000)
    before = hipfile.stats()
    assert_same(st.load_checkpoint(directory, framework="np"), model)
    after = hipfile.stats()
    assert after["read_bytes"] - before["read_bytes"] == sum(a.nbytes for a in model.values())
    # Fewer library calls than tensors: the runs were read whole (a vector read counts each of
    # its ranges as a read).
    calls = after["read_ops"]["ok"] - before["read_ops"]["ok"]
    if not vector:
        assert 0 < calls < sum(1 for a in model.values() if a.nbytes) // 2
    biases = st.load_checkpoint(directory, framework="np", names=lambda n: n.endswith("bias"))
    assert_same(biases, {n: a for n, a in model.items() if n.endswith("bias")})
    seen = dict(st.iter_tensors(directory, framework="np", window=10_000))
    assert_same(seen, model)


@pytest.mark.parametrize("vector", [False, True])
def test_a_file_cut_short_fails_on_the_first_tensor_of_a_run_it_lacks(workdir, model, staged,
                                                                      vector):
    staged.setattr(_tensor_reads, "VECTOR_READS", vector)
    path = os.path.join(workdir, "one.safetensors")
    st.save_file(model, path)
    infos = st.read_header(path)[0]
    reads = _tensor_reads.TensorReads(_safe_open.Allocator("np", "cpu", None, path))
    run = next(run for run in reads.runs(infos) if len(run) > 2)
    os.truncate(path, run[1].offset + 3)
    with hipfile_file(path) as source:
        future = reads.submit(source, path, run)
        with pytest.raises(st.SafetensorError, match="%s: tensor %r: read 3 of %d bytes"
                           % (path, run[1].name, run[1].nbytes)):
            future.result()


def hipfile_file(path):
    import hipfile

    return hipfile.File(path, "r")


def test_runs_shrink_where_device_memory_is_short(monkeypatch):
    monkeypatch.setattr(_tensor_reads, "RUN_BYTES", 1 << 30)
    monkeypatch.setattr(_tensor_reads, "STAGED_RUNS", 2)
    # Plenty free: whole runs; staging stays within 1/16 of what is free.
    assert _tensor_reads.run_bytes_for(80 << 30) == 1 << 30
    assert _tensor_reads.run_bytes_for(None) == 1 << 30
    assert _tensor_reads.run_bytes_for(8 << 30) == 256 << 20
    # Never below the smallest run, however little is free.
    assert _tensor_reads.run_bytes_for(1 << 20) == 64 << 20
    infos = [TensorInfo("t%d" % i, "U8", (40 << 20,), 40 << 20, i * (40 << 20)) for i in range(8)]
    sizes = [sum(i.nbytes for i in run) for run in _tensor_reads.runs_of(infos, True, 128 << 20)]
    assert sizes == [120 << 20, 120 << 20, 80 << 20]
