#!/usr/bin/env python3
"""Read a 1 GiB object from an HTTP server on loopback into GPU memory with hipfile.File(url).

Writes a 1 GiB file of random bytes, starts range_server.py on it (nginx is not needed), and in
the same run times ``curl`` fetching the object with --connections parallel ranged requests into
/dev/null (best of --repeats), then ``hipfile.File(url).read`` into a CuPy array of the object's
size with the same number of connections (best of --repeats, each checked byte for byte against
the file). Prints each read, both bests and hipfile's ratio to curl.

Needs CuPy and curl; the hipfile package on PYTHONPATH and ``HIPFILE_LIBRARY`` naming
libhipfile.so.0:

    HIPFILE_LIBRARY=build/lib/libhipfile.so.0 PYTHONPATH=python \\
        python3 python/benchmarks/remote_gpu.py --dir /var/tmp
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import cupy as cp
import numpy as np

import hipfile


def wait_for_port(port_file, server):
    for _ in range(200):
        if os.path.exists(port_file):
            return open(port_file).read().strip()
        if server.poll() is not None:
            sys.exit("range_server.py exited with %d" % server.returncode)
        time.sleep(0.05)
    sys.exit("range_server.py did not start")


def curl_best(url, size, connections, repeats):
    share = size // connections
    args = []
    for i in range(connections):
        last = size - 1 if i == connections - 1 else (i + 1) * share - 1
        args += ["-r", "%d-%d" % (i * share, last), "-o", "/dev/null", url]
    best = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(["curl", "-s", "--fail", "--parallel", "--parallel-immediate",
                        "--parallel-max", str(connections)] + args, check=True)
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/var/tmp", help="where the object is written")
    ap.add_argument("--mib", type=int, default=1024, help="object size in MiB")
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    size = a.mib << 20
    root = tempfile.mkdtemp(dir=a.dir)
    data = np.random.default_rng(7).integers(0, 256, size, dtype=np.uint8)
    data.tofile(os.path.join(root, "object.bin"))
    port_file = os.path.join(root, "port")
    server_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "range_server.py")
    server = subprocess.Popen([sys.executable, server_path, root, port_file])
    try:
        url = "http://127.0.0.1:%s/object.bin" % wait_for_port(port_file, server)
        curl = curl_best(url, size, a.connections, a.repeats)
        buf = cp.empty(size, dtype=cp.uint8)
        best = None
        with hipfile.File(url, "r", options="connections=%d" % a.connections) as f:
            for r in range(a.repeats):
                buf.fill(0)
                cp.cuda.runtime.deviceSynchronize()
                t0 = time.perf_counter()
                n = f.read(buf)
                t = time.perf_counter() - t0
                same = n == size and bool((cp.asnumpy(buf) == data).all())
                print("read %d: %d bytes in %.3f s (%.2f GB/s), identical: %s"
                      % (r, n, t, size / t / 1e9, same))
                if not same:
                    sys.exit("the object read into GPU memory differs from the file")
                best = t if best is None else min(best, t)
        print("curl, %d ranged requests: best %.3f s, %.2f GB/s"
              % (a.connections, curl, size / curl / 1e9))
        print("hipfile.File(url).read into GPU memory: best %.3f s, %.2f GB/s; %.2f x curl"
              % (best, size / best / 1e9, curl / best))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
