#!/usr/bin/env python3
"""What a read costs from Python on top of the same read from C.

Times ``File.read`` of SIZE bytes (4 KiB by default) from offset 0 of a cached file into device
memory, many times, and the bare ctypes call of ``hipFileRead`` underneath it; with
``--c-program`` (read_loop, built from read_loop.c) it runs the same loop in C on the same file
and prints the difference per call.

Device memory comes from PyTorch or CuPy on a GPU (``--buffer torch|cupy``), or from the host
runtime's hipMalloc (``--buffer host-runtime``, with ``HIPFILE_TEST_HOST_RUNTIME`` naming
libhip-host.so.0), or is host memory (``--buffer numpy``). Needs only the package on PYTHONPATH
and, unless installed, ``HIPFILE_LIBRARY``.

    call_overhead.py --buffer host-runtime --c-program build/bin/hf-read-loop
"""

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import time

import hipfile
from hipfile import _lib


class HostRuntimeBuffer:
    """hipMalloc'd memory of the host runtime, shown through __cuda_array_interface__."""

    def __init__(self, nbytes):
        runtime = ctypes.CDLL(os.environ["HIPFILE_TEST_HOST_RUNTIME"])
        runtime.hipMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        pointer = ctypes.c_void_p()
        if runtime.hipMalloc(ctypes.byref(pointer), nbytes) != 0:
            raise SystemExit("hipMalloc of %d bytes failed" % nbytes)
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                          "data": (pointer.value, False), "version": 3,
                                          "strides": None, "stream": None}


def make_buffer(kind, nbytes):
    if kind == "torch":
        import torch

        return torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    if kind == "cupy":
        import cupy

        return cupy.empty(nbytes, dtype="uint8")
    if kind == "host-runtime":
        return HostRuntimeBuffer(nbytes)
    return bytearray(nbytes)


def per_call_us(function, iterations):
    for _ in range(100):
        function()
    start = time.perf_counter()
    for _ in range(iterations):
        function()
    return (time.perf_counter() - start) * 1e6 / iterations


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buffer", default="host-runtime",
                        choices=("host-runtime", "torch", "cupy", "numpy"))
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--iterations", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=5, help="best of this many runs")
    parser.add_argument("--c-program", help="read_loop built from read_loop.c")
    parser.add_argument("--file", help="file to read (default: a new one, removed after)")
    args = parser.parse_args()

    path = args.file
    if path is None:
        handle, path = tempfile.mkstemp(prefix="hipfile-overhead-", dir=os.getcwd())
        os.write(handle, os.urandom(max(args.size, 4096)))
        os.close(handle)
    try:
        buffer = make_buffer(args.buffer, args.size)
        with hipfile.File(path) as f:
            def wrapped():
                f.read(buffer, args.size, 0)

            read = _lib.library().hipFileRead
            address = hipfile._buffers.resolve(buffer, True, "read").address

            def bare():
                read(f._handle, address, args.size, 0, 0)

            python_us = min(per_call_us(wrapped, args.iterations) for _ in range(args.repeats))
            ctypes_us = min(per_call_us(bare, args.iterations) for _ in range(args.repeats))
        print("python File.read: %d bytes, %d calls, %.3f us per call (best of %d)"
              % (args.size, args.iterations, python_us, args.repeats))
        print("ctypes hipFileRead: %.3f us per call" % ctypes_us)
        if args.c_program:
            c_us = None
            for _ in range(args.repeats):
                output = subprocess.run([args.c_program, path, str(args.size),
                                         str(args.iterations)], check=True,
                                        capture_output=True, text=True).stdout
                value = float(output.split(",")[-1].split()[0])
                c_us = value if c_us is None else min(c_us, value)
            print("c hipFileRead: %.3f us per call (best of %d)" % (c_us, args.repeats))
            print("python over c: %+.3f us per call" % (python_us - c_us))
    finally:
        if args.file is None:
            os.unlink(path)


if __name__ == "__main__":
    sys.exit(main())
