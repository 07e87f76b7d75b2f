#!/usr/bin/env python3
"""Saves a CUDA tensor to a file with torch.cuda.gds.GdsFile, loads it into a second tensor and
checks the two are equal; prints the throughput of each and which libcufile served the calls.

Usage: torch_gds_roundtrip.py FILE [MIB]   (default 256 MiB). Exit 0 only if the data came back.
"""
import os
import sys
import time


def loaded_libcufile():
    """Every libcufile mapped, and whether hipfile's core is: with ours preloaded, torch's own
    copy may be mapped too, but the calls resolve to the first (ours), which loads the core."""
    found = []
    core = False
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.split()[-1]
            if "libcufile.so" in path and os.path.realpath(path) not in found:
                found.append(os.path.realpath(path))
            core = core or "libhipfile.so" in path
    return (", ".join(found) or "none") + ("; hipfile core loaded" if core else "; no hipfile core")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    mib = int(sys.argv[2]) if len(sys.argv) == 3 else 256
    import torch
    from torch.cuda.gds import GdsFile

    size = mib << 20
    src = torch.randint(0, 256, (size,), dtype=torch.uint8, device="cuda")
    dst = torch.zeros_like(src)
    torch.cuda.synchronize()
    try:
        gds_file = GdsFile(path, os.O_CREAT | os.O_RDWR)
        start = time.perf_counter()
        gds_file.save_storage(src.untyped_storage(), offset=0)
        torch.cuda.synchronize()
        save_s = time.perf_counter() - start
        start = time.perf_counter()
        gds_file.load_storage(dst.untyped_storage(), offset=0)
        torch.cuda.synchronize()
        load_s = time.perf_counter() - start
        del gds_file
    except Exception as err:  # torch reports cuFile failures as RuntimeError
        print(f"torch_gds_roundtrip: failed: {err}; libcufile: {loaded_libcufile()}")
        return 1
    intact = torch.equal(src, dst)
    print(f"torch_gds_roundtrip: {mib} MiB {'intact' if intact else 'DIFFERENT'}; "
          f"save {size / save_s / 1e9:.2f} GB/s, load {size / load_s / 1e9:.2f} GB/s; "
          f"libcufile: {loaded_libcufile()}")
    return 0 if intact else 1


if __name__ == "__main__":
    sys.exit(main())
