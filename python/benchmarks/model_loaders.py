#!/usr/bin/env python3
"""Model loaders against their peers, same run: a safe_open loop, whole checkpoints and
from_pretrained, on a Llama-shaped bf16 model written by save_pretrained.

Builds the model once (kept in --dir; by default 39 layers in 1 GB shards, 3.78 GB in 4 shards),
checks every tensor read by ``hipfile.safetensors`` against ``safetensors``' own read, bit for bit
(rows, columns and indices of every 2-D tensor as well), and ``load_checkpoint`` and
``from_pretrained`` inside ``hipfile.safetensors.route(device=...)`` against the stock loads, then
prints GB/s (best of --repeats rounds that alternate the ways, each ending with a device
synchronize) for: a pinned host-to-device copy of as many bytes, ``safetensors``' safe_open loop,
ours, ``safetensors.torch.load_file`` per shard, ``load_checkpoint``, and ``from_pretrained`` stock
and routed.

With ``--cold`` every way but the pinned copy starts with the shards' pages dropped from the page
cache (``hipfile.drop_file_page_cache``, checked with ``get_page_cache_info``): put ``--dir`` on
the device to measure (``scripts/fast-device run -- ...`` makes one) and compare with
``hipfile-bench``'s ``odirect`` baseline on the same device in the same run.

Needs PyTorch with CUDA, safetensors and transformers; the hipfile package on PYTHONPATH and
``HIPFILE_LIBRARY`` naming libhipfile.so.0:

    HIPFILE_LIBRARY=build/lib/libhipfile.so.0 PYTHONPATH=python \\
        python3 python/benchmarks/model_loaders.py --dir /var/tmp/hipfile-llama
"""

import argparse
import glob
import os
import time


def build(directory, layers, shard_size):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=layers,
                         num_attention_heads=16, num_key_value_heads=4, vocab_size=32000)
    with torch.device("cuda"):
        model = LlamaForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(directory, max_shard_size=shard_size)


def timed(run):
    import torch

    torch.cuda.synchronize()
    start = time.perf_counter()
    result = run()
    torch.cuda.synchronize()
    spent = time.perf_counter() - start
    del result
    return spent


def same(a, b):
    import torch

    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def check(files, device):
    from safetensors import safe_open as theirs

    from hipfile.safetensors import safe_open as ours

    mismatches = 0
    for path in files:
        with theirs(path, "pt", device=device) as a, ours(path, "pt", device=device) as b:
            assert a.keys() == b.keys() and a.metadata() == b.metadata(), path
            for name in a.keys():
                mismatches += not same(a.get_tensor(name), b.get_tensor(name))
                shape = a.get_slice(name).get_shape()
                if len(shape) == 2:
                    rows, cols = shape
                    for index in ((slice(rows // 4, rows // 2),),
                                  (slice(None), slice(cols // 4, cols // 2)), (3,), (Ellipsis, 5)):
                        mismatches += not same(a.get_slice(name)[index], b.get_slice(name)[index])
    return mismatches


def check_checkpoint(directory, files, device):
    from safetensors.torch import load_file

    from hipfile.safetensors import load_checkpoint

    ours = load_checkpoint(directory, device=device)
    theirs = {}
    for path in files:
        theirs.update(load_file(path, device=device))
    return sorted(ours) != sorted(theirs) or not all(same(ours[n], theirs[n]) for n in theirs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default="/var/tmp/hipfile-llama")
    # 39 layers in 1 GB shards: 3.78 GB in 4 shards, the model the figures in the docs use.
    parser.add_argument("--layers", type=int, default=39)
    parser.add_argument("--shard-size", default="1GB")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cold", action="store_true",
                        help="drop the shards' cached pages before each way")
    args = parser.parse_args()

    import safetensors.torch
    import torch
    from safetensors import safe_open as theirs
    from transformers import AutoModelForCausalLM

    import hipfile
    from hipfile import safetensors as hst

    if not os.path.exists(os.path.join(args.dir, "config.json")):
        build(args.dir, args.layers, args.shard_size)
    files = sorted(glob.glob(os.path.join(args.dir, "*.safetensors")))
    nbytes = sum(os.path.getsize(f) for f in files)
    print("model: %d shards, %.2f GB; mismatches with safetensors: %d; load_checkpoint equals "
          "safetensors: %s" % (len(files), nbytes / 1e9, check(files, args.device),
                               not check_checkpoint(args.dir, files, args.device)))

    def stock():
        return AutoModelForCausalLM.from_pretrained(args.dir, dtype=torch.bfloat16,
                                                    device_map=args.device)

    def routed():
        with hst.route(device=args.device):
            return stock()

    a, b = dict(stock().named_parameters()), dict(routed().named_parameters())
    print("from_pretrained routed equals stock: %s (%d parameters)"
          % (sorted(a) == sorted(b) and all(same(a[k], b[k]) for k in a), len(a)))
    del a, b

    def loop(opener):
        def run():
            tensors = {}
            for path in files:
                with opener(path, "pt", device=args.device) as f:
                    for name in f.keys():
                        tensors[name] = f.get_tensor(name)
            return tensors
        return run

    host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    ways = [
        ("pinned host-to-device", lambda: torch.empty(nbytes, dtype=torch.uint8,
                                                       device=args.device).copy_(host)),
        ("safetensors safe_open loop", loop(theirs)),
        ("hipfile safe_open loop", loop(hst.safe_open)),
        ("safetensors load_file per shard", lambda: [safetensors.torch.load_file(
            f, device=args.device) for f in files]),
        ("hipfile load_checkpoint", lambda: hst.load_checkpoint(args.dir, device=args.device)),
        ("from_pretrained stock", stock),
        ("from_pretrained routed", routed),
    ]
    # Rounds alternate the ways, so that drift in the machine's state favours none.
    spent = {name: [] for name, _ in ways}
    left_cached = 0
    for _ in range(args.repeats):
        for name, run in ways:
            if args.cold and name != ways[0][0]:
                for path in files:
                    hipfile.drop_file_page_cache(path)
                left_cached += sum(hipfile.get_page_cache_info(path)[0] for path in files)
            spent[name].append(timed(run))
    if args.cold:
        print("cold: the page cache held %d of the shards' pages, summed over every start"
              % left_cached)
    for name, _ in ways:
        print("%-34s %6.1f GB/s" % (name, nbytes / min(spent[name]) / 1e9))


if __name__ == "__main__":
    main()
