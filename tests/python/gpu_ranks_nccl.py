"""load_checkpoint(..., group=pg) over NCCL on a real GPU: a one-rank process group (NCCL puts at
most one rank on a GPU), against the plain load of the same save_checkpoint directory.

Checks the whole model through the group (every tensor bit for bit, on the rank's device, every
byte read once), the tensor-parallel form (rows and columns named by split=), and a failing load
(SafetensorError naming the path, the group still usable, no device memory left). The 2- and
4-rank forms run on gloo in tests/python/test_ranks.py.

Run by ctest as gpu.python.ranks_nccl (exit 77, skipped, without PyTorch on CUDA or NCCL):
    HIPFILE_LIBRARY=build/lib/libhipfile.so.0 PYTHONPATH=python \\
        python3 tests/python/gpu_ranks_nccl.py DIR
"""
import os
import shutil
import sys

try:
    import torch
    import torch.distributed as dist
    if not torch.cuda.is_available():
        raise ImportError("PyTorch has no CUDA device")
    if not dist.is_available() or not dist.is_nccl_available():
        raise ImportError("this PyTorch has no NCCL")
except ImportError as error:
    print("skipped: %s" % error)
    sys.exit(77)

import hipfile
from hipfile import safetensors as hst

work = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp/hipfile-ranks-nccl"
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
DEV = "cuda:0"
failures = []


def check(what, condition, detail=""):
    print("%s %s%s" % ("ok" if condition else "FAILED", what, (": " + detail) if detail else ""))
    if not condition:
        failures.append(what)


# A model as loaders meet one: hundreds of small tensors, layers of a few MiB, one of 600 MiB,
# in several shards with their index.
generator = torch.Generator().manual_seed(5)
tensors = {"embed": torch.randn(300 * 1024 * 1024 // 2 // 2048, 2048,
                                generator=generator).to(torch.bfloat16)}
tensors["embed"] = torch.cat([tensors["embed"], tensors["embed"]])  # 600 MiB
for layer in range(24):
    tensors["layers.%d.weight" % layer] = torch.randn(1024, 1536, generator=generator)
    tensors["layers.%d.norm" % layer] = torch.randn(1536, generator=generator).to(torch.float16)
for i in range(300):
    tensors["small.%d" % i] = torch.randint(0, 255, (i % 37 + 1,), dtype=torch.uint8,
                                            generator=generator)
model = os.path.join(work, "model")
hst.save_checkpoint(tensors, model, max_shard_size="100MB")
total = sum(t.numel() * t.element_size() for t in tensors.values())
shards = [f for f in os.listdir(model) if f.endswith(".safetensors")]
check("the model is saved in several shards", len(shards) > 2, "%d shards" % len(shards))

torch.cuda.set_device(0)
dist.init_process_group("nccl", init_method="file://" + os.path.join(work, "store"), rank=0,
                        world_size=1)
group = dist.group.WORLD
plain = hst.load_checkpoint(model, device=DEV)

before = hipfile.stats()["read_bytes"]
shared = hst.load_checkpoint(model, device=DEV, group=group)
read = hipfile.stats()["read_bytes"] - before
check("the group load has every tensor", sorted(shared) == sorted(plain))
wrong = [n for n in plain if shared[n].device != torch.device(DEV) or shared[n].dtype !=
         plain[n].dtype or not torch.equal(shared[n], plain[n])]
check("every tensor equals the plain load's, on the rank's device", not wrong, str(wrong[:5]))
check("every byte was read once", read == total, "%d read, %d in the model" % (read, total))

split = {"layers.*.weight": 0, "embed": 1}
parts = hst.load_checkpoint(model, device=DEV, group=group, split=split)
wrong = [n for n in plain if not torch.equal(parts[n], plain[n])]
check("with one rank, its tensor-parallel parts are the whole tensors", not wrong, str(wrong[:5]))
del shared, parts

torch.cuda.synchronize()
allocated = torch.cuda.memory_allocated()
try:
    hst.load_checkpoint(os.path.join(work, "missing"), device=DEV, group=group)
    check("a missing checkpoint raises", False, "no error")
except hst.SafetensorError as error:
    check("a missing checkpoint raises SafetensorError naming it", "missing" in str(error),
          str(error))
cut = os.path.join(work, "cut")
shutil.copytree(model, cut)
victim = os.path.join(cut, sorted(shards)[-1])
os.truncate(victim, os.path.getsize(victim) - 4096)
try:
    hst.load_checkpoint(cut, device=DEV, group=group)
    check("a shard cut short raises", False, "no error")
except hst.SafetensorError as error:
    check("a shard cut short raises SafetensorError naming it",
          os.path.basename(victim) in str(error), str(error))
torch.cuda.synchronize()
check("no device memory is left behind", torch.cuda.memory_allocated() == allocated,
      "%d bytes before, %d after" % (allocated, torch.cuda.memory_allocated()))
again = hst.load_checkpoint(model, device=DEV, group=group)
check("the group loads again after the failures",
      all(torch.equal(again[n], plain[n]) for n in plain))

dist.destroy_process_group()
shutil.rmtree(work, ignore_errors=True)
print("all ok" if not failures else "FAILED: %s" % ", ".join(failures))
sys.exit(1 if failures else 0)
