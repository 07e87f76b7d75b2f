"""Column slices through safe_open: reading the rows a selection spans and cutting in memory
(what safe_open does) against one read per row piece, issued all at once (the alternative).

    python3 safe_open_slices.py --rows 8192 --cols 4096 --device cpu [--framework pt]

Prints GB/s of slice bytes for each way and their ratio; the file is cached (written just
before). docs/python/api.rst gives the figures this chose by.
"""

import argparse
import os
import tempfile
import time

import numpy as np

import hipfile
from hipfile import safetensors as st


def best_of(repeats, run):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--cols", type=int, default=4096)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--framework", default="np")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(dir=os.environ.get("HIPFILE_BENCH_DIR", "/var/tmp"))
    path = os.path.join(directory, "slices.safetensors")
    weight = np.random.default_rng(0).integers(0, 1 << 15, (args.rows, args.cols),
                                               dtype=np.int16)
    st.save_file({"w": weight}, path)
    info = st.read_header(path)[0][0]
    try:
        with st.safe_open(path, framework=args.framework, device=args.device) as f:
            for share in (2, 4, 8):
                width = args.cols // share
                part = f.get_slice("w")

                def spanned():
                    return part[:, width:2 * width]

                target = f._allocator.empty("w", "I16", (args.rows, width))
                source = f._open_file()

                def per_row():
                    row_bytes, piece = args.cols * 2, width * 2
                    futures = [source.pread(target, piece, info.offset + r * row_bytes + piece,
                                            dev_offset=r * piece) for r in range(args.rows)]
                    for future in futures:
                        future.get()

                assert np.array_equal(np.asarray(spanned() if args.framework == "np" else
                                                 spanned().cpu()),
                                      weight[:, width:2 * width])
                nbytes = args.rows * width * 2
                a = best_of(args.repeats, spanned)
                b = best_of(args.repeats, per_row)
                print("columns 1/%d (%d x %d): spanned %.2f GB/s, per row %.2f GB/s, ratio %.1f"
                      % (share, args.rows, width, nbytes / a / 1e9, nbytes / b / 1e9, b / a))
    finally:
        os.unlink(path)
        os.rmdir(directory)


if __name__ == "__main__":
    main()
