#!/usr/bin/env python3
"""A checkpoint saved and loaded with torch.cuda.gds.GdsFile, one call per tensor, as a model
loader would: COUNT tensors of MIB MiB each (a few odd-sized ones mixed in), packed back to back in
one file, saved from GPU memory, then loaded into new GPU tensors and every one compared with its
original. Prints the throughput of the save and of the load, and, measured in the same run, what
16 threads of pwrite(2) reach writing the same bytes from host memory to a file beside it (the
save's baseline) and the pinned host-to-device copy bandwidth (the load's).

Before the save, the same number of bytes is written once with pwrite and not measured. A freshly
started virtual machine backs its memory on first touch: the first few GiB that anyone writes
through the page cache go at about 0.6 of the rate of later writes (on the H200 test machine,
16-thread pwrite of 4 GiB gave 2.64 GB/s first, then 4.31 and 3.95), so whichever of the save and
the baseline ran first would carry that cost alone.

Usage: torch_gds_checkpoint.py DIR COUNT MIB   e.g. 256 16 or 64 64. Exit 0 only if every tensor
came back equal.
"""
import os
import sys
import threading
import time


def pwrite_baseline(path, total, chunk=16 << 20, threads=16):
    """GB/s of `threads` threads writing `total` bytes to `path` with pwrite, chunk by chunk."""
    data = os.urandom(chunk)
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
    os.ftruncate(fd, total)
    next_chunk = [0]
    lock = threading.Lock()

    def writer():
        while True:
            with lock:
                at = next_chunk[0]
                next_chunk[0] += chunk
            if at >= total:
                return
            n = min(chunk, total - at)
            done = 0
            while done < n:
                done += os.pwrite(fd, memoryview(data)[done:n], at + done)

    start = time.perf_counter()
    workers = [threading.Thread(target=writer) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    seconds = time.perf_counter() - start
    os.close(fd)
    os.unlink(path)
    return total / seconds / 1e9


def pinned_h2d(torch, nbytes=1 << 30):
    src = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    best = 0.0
    for _ in range(3):
        torch.cuda.synchronize()
        start = time.perf_counter()
        dst.copy_(src, non_blocking=True)
        torch.cuda.synchronize()
        best = max(best, nbytes / (time.perf_counter() - start) / 1e9)
    return best


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    directory, count, mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import torch
    from torch.cuda.gds import GdsFile

    # Mostly whole MiB tensors, every eighth one a few KiB and bytes longer, as real layers are.
    sizes = [(mib << 20) + (i % 8 == 7) * (i * 4096 + 12) for i in range(count)]
    offsets = [sum(sizes[:i]) for i in range(count)]
    total = sum(sizes)
    path = os.path.join(directory, "torch-gds-checkpoint.bin")
    tensors = [torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda") for n in sizes]
    torch.cuda.synchronize()

    pwrite_baseline(os.path.join(directory, "torch-gds-warmup.bin"), total)
    gds_file = GdsFile(path, os.O_CREAT | os.O_RDWR)
    start = time.perf_counter()
    for t, at in zip(tensors, offsets):
        gds_file.save_storage(t.untyped_storage(), offset=at)
    torch.cuda.synchronize()
    save_s = time.perf_counter() - start

    loaded = [torch.empty(n, dtype=torch.uint8, device="cuda") for n in sizes]
    torch.cuda.synchronize()
    start = time.perf_counter()
    for t, at in zip(loaded, offsets):
        gds_file.load_storage(t.untyped_storage(), offset=at)
    torch.cuda.synchronize()
    load_s = time.perf_counter() - start
    del gds_file
    bad = [i for i, (a, b) in enumerate(zip(tensors, loaded)) if not torch.equal(a, b)]
    os.unlink(path)

    pwrite = pwrite_baseline(os.path.join(directory, "torch-gds-pwrite.bin"), total)
    pinned = pinned_h2d(torch)
    save = total / save_s / 1e9
    load = total / load_s / 1e9
    print(f"torch_gds_checkpoint: {count} x {mib} MiB ({total / 2**30:.2f} GiB), "
          f"{count - len(bad)} of {count} tensors equal; "
          f"save {save:.2f} GB/s = {save / pwrite:.2f} x 16-thread pwrite ({pwrite:.2f}); "
          f"load {load:.2f} GB/s = {load / pinned:.2f} x pinned H2D ({pinned:.2f})")
    if bad:
        print(f"torch_gds_checkpoint: tensors differ: {bad[:10]}", file=sys.stderr)
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
