"""A safe_open + get_tensor loop on the host against parallel pread of the same bytes.

    python3 safe_open_host.py [--tensors 300] [--mib 1024] [--threads 16] [--repeats 5]

Writes (once per run, then reads it so that it is cached) a safetensors file of --tensors tensors
of mixed sizes totalling about --mib MiB, then times, best of --repeats rounds that alternate them: every tensor read with
``hipfile.safetensors.safe_open(path, "np").get_tensor(name)`` in key order, and the same byte
ranges read with ``os.pread`` from --threads threads into NumPy arrays allocated as they go, and
the loop again with reading ahead turned off. Prints GB/s for each and the ratios to pread.
"""

import argparse
import concurrent.futures
import os
import tempfile
import time

import numpy as np

from hipfile import safetensors as st


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tensors", type=int, default=300)
    parser.add_argument("--mib", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    # Sizes as in a transformer: a few large matrices per layer and many small vectors.
    weights = rng.lognormal(0, 1.5, args.tensors)
    sizes = np.maximum((weights / weights.sum() * args.mib * 2**20).astype(np.int64) // 4, 1)
    tensors = {"t%04d" % i: rng.integers(0, 1 << 30, int(n), dtype=np.int32)
               for i, n in enumerate(sizes)}
    directory = tempfile.mkdtemp(dir=os.environ.get("HIPFILE_BENCH_DIR", "/var/tmp"))
    path = os.path.join(directory, "host.safetensors")
    try:
        st.save_file(tensors, path)
        infos = st.read_header(path)[0]
        nbytes = sum(info.nbytes for info in infos)
        with open(path, "rb") as stream:
            while stream.read(1 << 24):
                pass

        def loop(ahead=st.safe_open.READ_AHEAD_BYTES):
            def run():
                st.safe_open.READ_AHEAD_BYTES = ahead
                with st.safe_open(path, "np") as f:
                    return {name: f.get_tensor(name) for name in f.keys()}
            return run

        fd = os.open(path, os.O_RDONLY)
        pool = concurrent.futures.ThreadPoolExecutor(args.threads)

        def parallel_pread():
            def one(info):
                out = np.empty(info.nbytes, dtype=np.uint8)
                view, done = memoryview(out), 0
                while done < info.nbytes:
                    done += os.preadv(fd, [view[done:]], info.offset + done)
                return out
            return list(pool.map(one, infos))

        # Rounds alternate the three, so that drift in the machine's state favours none.
        ways = (parallel_pread, loop(), loop(0))
        times = [[] for _ in ways]
        for _ in range(args.repeats):
            for run, spent in zip(ways, times):
                start = time.perf_counter()
                run()
                spent.append(time.perf_counter() - start)
        theirs, ours, alone = (min(spent) for spent in times)
        print("%d tensors, %.0f MiB: %d-thread pread %.2f GB/s; safe_open loop %.2f GB/s "
              "(ratio %.2f), without reading ahead %.2f GB/s (ratio %.2f)"
              % (len(infos), nbytes / 2**20, args.threads, nbytes / theirs / 1e9,
                 nbytes / ours / 1e9, theirs / ours, nbytes / alone / 1e9, theirs / alone))
        os.close(fd)
        pool.shutdown()
    finally:
        os.unlink(path)
        os.rmdir(directory)


if __name__ == "__main__":
    main()
