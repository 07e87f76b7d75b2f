#!/usr/bin/env python3
"""Load a large safetensors checkpoint into GPU memory with safetensors and with hipfile.

Builds (once; kept for later runs) a checkpoint of 4 GiB or more with over 300 tensors of mixed
dtypes and sizes from 1 KiB to 512 MiB, written by safetensors' own ``save_file``; reads it once
so that it is cached; then, in the same run, times
``safetensors.torch.load_file(path, device="cuda")`` and
``hipfile.safetensors.load_file(path, device="cuda:0")`` (best of --repeats, each ending with a
device synchronize), checks that both give the same tensors bit for bit, checks
``hipfile.safetensors.load`` (CuPy arrays) against them, and that ``hipfile.safetensors.save_file``
writes the same bytes as safetensors for a subset of the tensors. Prints each time, the ratio, and
a JSON line with every figure.

Needs PyTorch with CUDA, safetensors and CuPy; the hipfile package on PYTHONPATH and
``HIPFILE_LIBRARY`` naming libhipfile.so.0 (the library finds the CUDA provider, libhip-cuda,
beside itself). No network, nothing to install:

    HIPFILE_LIBRARY=build/lib/libhipfile.so.0 PYTHONPATH=python \\
        python3 python/benchmarks/safetensors_h200.py --path /path/on/nvme/ckpt.safetensors
"""

import argparse
import json
import os
import sys
import time

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


def tensor_plan(seed):
    """(name, dtype, bytes) of each tensor: 4 x 512 MiB, 20 x 64 MiB, 40 x 16 MiB, 80 x 4 MiB
    and 200 between 1 KiB and 1 MiB, 4.2 GiB and 344 tensors in all."""
    import random

    rng = random.Random(seed)
    dtypes = ["float32", "float16", "bfloat16", "int64", "uint8", "bool", "int32", "float64"]
    sizes = [512 * MIB] * 4 + [64 * MIB] * 20 + [16 * MIB] * 40 + [4 * MIB] * 80
    sizes += [KIB << rng.randrange(0, 11) for _ in range(200)]
    rng.shuffle(sizes)
    return [("model.layers.%03d.%s" % (i, dtypes[i % len(dtypes)]), dtypes[i % len(dtypes)], n)
            for i, n in enumerate(sizes)]


def make_tensors(plan, device):
    import torch

    generator = torch.Generator(device=device).manual_seed(1)
    tensors = {}
    for name, dtype_name, nbytes in plan:
        dtype = getattr(torch, dtype_name)
        elements = nbytes // torch.empty((), dtype=dtype).element_size()
        raw = torch.randint(0, 256, (elements * torch.empty((), dtype=dtype).element_size(),),
                            dtype=torch.uint8, device=device, generator=generator)
        if dtype == torch.bool:
            raw = raw & 1
        tensor = raw.view(dtype)
        if dtype.is_floating_point:
            # Random bits include NaNs, which compare unequal; keep the values finite.
            tensor = torch.nan_to_num(tensor, nan=0.0, posinf=1.0, neginf=-1.0)
        tensors[name] = tensor.reshape(-1, 16) if elements % 16 == 0 else tensor
    return tensors


def bits(tensor):
    import torch

    return tensor.reshape(-1).view(torch.uint8)


def same_tensors(expected, got):
    if set(expected) != set(got):
        return "names differ: %s" % sorted(set(expected) ^ set(got))[:5]
    for name, tensor in expected.items():
        other = got[name]
        if other.dtype != tensor.dtype or other.shape != tensor.shape:
            return "%s: %s %s, expected %s %s" % (name, other.dtype, tuple(other.shape),
                                                  tensor.dtype, tuple(tensor.shape))
        if not bool((bits(other) == bits(tensor)).all()):
            return "%s: contents differ" % name
    return None


def timed(load, repeats):
    import torch

    best, result = None, None
    for _ in range(repeats):
        result = None
        torch.cuda.synchronize()
        start = time.perf_counter()
        result = load()
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def cache_file(path):
    with open(path, "rb", buffering=0) as stream:
        while stream.read(64 * MIB):
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default="hipfile-bench.safetensors")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true", help="write the checkpoint again")
    parser.add_argument("--threads", type=int, default=None,
                        help="hipfile.set_num_threads for the load (default: the package's)")
    args = parser.parse_args()

    import cupy
    import safetensors.torch
    import torch

    import hipfile
    import hipfile.safetensors

    if args.threads:
        hipfile.set_num_threads(args.threads)
    plan = tensor_plan(seed=2026)
    if args.rebuild or not os.path.exists(args.path):
        tensors = make_tensors(plan, "cuda")
        safetensors.torch.save_file(tensors, args.path, metadata={"format": "pt"})
        del tensors
        torch.cuda.empty_cache()
    size = os.path.getsize(args.path)
    cache_file(args.path)
    print("checkpoint: %s, %.2f GiB, %d tensors" % (args.path, size / GIB, len(plan)))

    reference_s, reference = timed(
        lambda: safetensors.torch.load_file(args.path, device="cuda"), args.repeats)
    hipfile_s, loaded = timed(
        lambda: hipfile.safetensors.load_file(args.path, device="cuda:0"), args.repeats)
    problem = same_tensors(reference, loaded)
    del loaded
    torch.cuda.empty_cache()

    cupy_s, arrays = timed(lambda: hipfile.safetensors.load(args.path, device="cuda:0"),
                           args.repeats)
    for name, tensor in reference.items():
        if problem:
            break
        array = arrays[name]
        if tuple(array.shape) != tuple(tensor.shape) or not bool(cupy.array_equal(
                array.reshape(-1).view(cupy.uint8), cupy.asarray(bits(tensor)))):
            problem = "CuPy %s differs" % name
    del arrays

    subset = dict(list(reference.items())[:60])
    ours, theirs = args.path + ".hipfile-subset", args.path + ".safetensors-subset"
    hipfile.safetensors.save_file(subset, ours, metadata={"format": "pt"})
    safetensors.torch.save_file(subset, theirs, metadata={"format": "pt"})
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        if not problem and a.read() != b.read():
            problem = "save_file wrote other bytes than safetensors for the same 60 tensors"
    os.unlink(ours)
    os.unlink(theirs)

    figures = {"bytes": size, "tensors": len(plan), "safetensors_s": reference_s,
               "hipfile_s": hipfile_s, "hipfile_cupy_s": cupy_s,
               "safetensors_gib_s": size / GIB / reference_s,
               "hipfile_gib_s": size / GIB / hipfile_s,
               "speedup": reference_s / hipfile_s, "threads": hipfile.num_threads(),
               "identical": problem is None, "torch": torch.__version__,
               "library": hipfile.library_path()}
    print("safetensors.torch.load_file:    %.3f s  %.2f GiB/s" % (reference_s,
                                                               figures["safetensors_gib_s"]))
    print("hipfile.safetensors.load_file:  %.3f s  %.2f GiB/s" % (hipfile_s,
                                                               figures["hipfile_gib_s"]))
    print("hipfile.safetensors.load (CuPy): %.3f s" % cupy_s)
    print("speed-up: %.2fx" % figures["speedup"])
    print("tensors identical: %s" % ("yes" if problem is None else "NO: " + problem))
    print(json.dumps(figures))
    return 0 if problem is None else 1


if __name__ == "__main__":
    sys.exit(main())
