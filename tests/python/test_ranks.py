"""load_checkpoint shared by the ranks of a torch.distributed process group (gloo, on the host
runtime): 2 and 4 processes, each rank's tensors compared with a single-process load, each byte
read once across the ranks, tensor-parallel parts read alone, and a rank's failure raised on every
rank instead of a hang."""

import multiprocessing
import os
import traceback

import numpy as np
import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
if not dist.is_available():
    pytest.skip("this PyTorch has no torch.distributed", allow_module_level=True)

from hipfile import safetensors as st  # noqa: E402


def model_tensors():
    generator = torch.Generator().manual_seed(11)
    tensors = {}
    for layer in range(5):
        tensors["layers.%d.weight" % layer] = torch.randn(48, 20, generator=generator)
        tensors["layers.%d.norm" % layer] = torch.randn(20, generator=generator).to(torch.bfloat16)
    tensors["embed"] = torch.randint(0, 1000, (33, 10), generator=generator)
    tensors["flags"] = torch.tensor([True, False, True])
    tensors["step"] = torch.tensor(7)
    tensors["empty"] = torch.zeros(0, 4)
    return tensors


def rank_main(rank, world, store, directory, mode, results):
    try:
        import hipfile

        dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world)
        before = hipfile.stats()["read_bytes"]
        if mode == "share":
            got = st.load_checkpoint(directory, group=dist.group.WORLD)
            want = st.load_checkpoint(directory)
            assert sorted(got) == sorted(want)
            for name in want:
                assert got[name].dtype == want[name].dtype, name
                assert torch.equal(got[name], want[name]), name
            results.put((rank, "ok", hipfile.stats()["read_bytes"] - before))
        elif mode == "split":
            split = {"layers.*.weight": 0, "embed": 1}
            got = st.load_checkpoint(directory, group=dist.group.WORLD, split=split)
            read = hipfile.stats()["read_bytes"] - before
            want = st.load_checkpoint(directory)
            for name, tensor in want.items():
                if name.endswith(".weight"):
                    tensor = torch.tensor_split(tensor, world, 0)[rank]
                elif name == "embed":
                    tensor = torch.tensor_split(tensor, world, 1)[rank]
                assert got[name].shape == tensor.shape and torch.equal(got[name], tensor), name
            results.put((rank, "ok", read))
        elif mode == "garbage":
            # A failed load leaves nothing for the cycle collector: what the exception's frames
            # held (device memory on a GPU) is freed as soon as the caller lets the exception go.
            import gc
            for _ in range(2):  # the first failure may fill caches of its own
                gc.collect()
                gc.disable()
                try:
                    st.load_checkpoint(os.path.join(directory, "missing"), group=dist.group.WORLD)
                except st.SafetensorError:
                    pass
                garbage = gc.collect()
                gc.enable()
            results.put((rank, "ok", garbage))
        else:
            path = directory if rank != 1 else os.path.join(directory, "missing")
            try:
                st.load_checkpoint(path, group=dist.group.WORLD)
                results.put((rank, "no error", 0))
            except st.SafetensorError as error:
                results.put((rank, "raised", str(error)))
        dist.destroy_process_group()
    except Exception:
        results.put((rank, "crashed", traceback.format_exc()))


def run_ranks(workdir, world, mode):
    directory = os.path.join(workdir, "model")
    if not os.path.isdir(directory):
        st.save_checkpoint(model_tensors(), directory, max_shard_size=3000)
    store = os.path.join(workdir, "store-%s-%d" % (mode, world))
    if os.path.exists(store):
        os.unlink(store)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    processes = [context.Process(target=rank_main, args=(rank, world, store, directory, mode,
                                                         results))
                 for rank in range(world)]
    for process in processes:
        process.start()
    got = sorted(results.get(timeout=120) for _ in processes)
    for process in processes:
        process.join(timeout=60)
        assert not process.is_alive(), "a rank hung"
    return directory, got


@pytest.mark.parametrize("world", [2, 4])
def test_every_rank_gets_the_whole_model_reading_a_disjoint_share(workdir, world):
    directory, got = run_ranks(workdir, world, "share")
    assert [status for _, status, _ in got] == ["ok"] * world, got
    total = sum(t.numel() * t.element_size() for t in model_tensors().values())
    # Each rank read its share and then the whole model once more for the comparison.
    shares = [read - total for _, _, read in got]
    assert sum(shares) == total and all(0 < share < total for share in shares), shares


@pytest.mark.parametrize("world", [2, 4])
def test_tensor_parallel_parts_are_read_by_their_rank_alone(workdir, world):
    _, got = run_ranks(workdir, world, "split")
    assert [status for _, status, _ in got] == ["ok"] * world, got
    total = sum(t.numel() * t.element_size() for t in model_tensors().values())
    assert all(read < total for _, _, read in got), got


def test_a_failing_rank_makes_every_rank_raise(workdir):
    _, got = run_ranks(workdir, 2, "fail")
    (rank0, status0, text0), (rank1, status1, text1) = got
    assert (status0, status1) == ("raised", "raised"), got
    assert "rank 1 of the group failed" in text0
    assert "missing" in text1 and "does not exist" in text1


def test_a_failed_load_leaves_no_reference_cycle(workdir):
    _, got = run_ranks(workdir, 2, "garbage")
    assert [(status, garbage) for _, status, garbage in got] == [("ok", 0)] * 2, got
