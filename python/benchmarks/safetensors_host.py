#!/usr/bin/env python3
"""Load a safetensors checkpoint with hipfile on any machine, against plain Python reads.

Builds a checkpoint of --gib GiB (1 by default) and 300 tensors from 1 KiB to 64 MiB with
NumPy, reads it once so that it is cached, then times, best of --repeats:
  * Python's own reads: one ``readinto`` per tensor into a NumPy array (what a loader without
    hipfile does on the host);
  * ``hipfile.safetensors.load(path, device="cpu")``: NumPy arrays;
  * with ``HIPFILE_TEST_HOST_RUNTIME`` naming the host runtime: ``load_into`` device memory
    from its hipMalloc, the emulated GPU.
and checks the tensors are the same. Needs NumPy; figures in docs/tutorials/load-model-weights.rst.
"""

import argparse
import ctypes
import os
import sys
import time

import numpy

import hipfile.safetensors as st

MIB = 1 << 20


def build(path, gib):
    rng = numpy.random.default_rng(3)
    kinds = [numpy.float32, numpy.float16, numpy.int64, numpy.uint8, numpy.int32, numpy.float64]
    sizes = [64 * MIB] * int(gib * 12) + [4 * MIB] * int(gib * 48)
    sizes += [1024 << int(rng.integers(0, 10)) for _ in range(300 - len(sizes))]
    tensors = {}
    for index, size in enumerate(sizes):
        kind = numpy.dtype(kinds[index % len(kinds)])
        tensors["layer.%03d" % index] = rng.integers(0, 120, size // kind.itemsize).astype(kind)
    st.save_file(tensors, path)


def plain_python(path):
    infos, _ = st.read_header(path)
    result = {}
    with open(path, "rb", buffering=0) as stream:
        for info in infos:
            array = numpy.empty(info.nbytes, dtype=numpy.uint8)
            stream.seek(info.offset)
            stream.readinto(array)
            result[info.name] = array
    return result


def host_runtime_allocator():
    runtime = ctypes.CDLL(os.environ["HIPFILE_TEST_HOST_RUNTIME"])
    runtime.hipMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]

    class Device:
        def __init__(self, nbytes):
            pointer = ctypes.c_void_p()
            assert runtime.hipMalloc(ctypes.byref(pointer), max(nbytes, 1)) == 0
            self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                              "data": (pointer.value, False), "version": 3}
            self.pointer = pointer.value

    return lambda info: Device(info.nbytes)


def best(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
        del result
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default="hipfile-host-bench.safetensors")
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not os.path.exists(args.path):
        build(args.path, args.gib)
    size = os.path.getsize(args.path)
    plain_python(args.path)  # caches the file
    count = len(st.read_header(args.path)[0])
    expected = plain_python(args.path)
    loaded = st.load(args.path, device="cpu")
    assert all(loaded[n].tobytes() == expected[n].tobytes() for n in expected)
    del loaded, expected
    print("checkpoint: %.2f GiB, %d tensors, %d hipfile threads"
          % (size / (1 << 30), count, hipfile_threads()))
    for label, function in (("python readinto per tensor", lambda: plain_python(args.path)),
                            ("hipfile.safetensors.load cpu", lambda: st.load(args.path, "cpu"))):
        seconds = best(function, args.repeats)
        print("%-32s %.3f s  %.2f GiB/s" % (label, seconds, size / (1 << 30) / seconds))
    if os.environ.get("HIPFILE_TEST_HOST_RUNTIME"):
        allocate = host_runtime_allocator()
        seconds = best(lambda: st.load_into(args.path, allocate), 1)
        print("%-32s %.3f s  %.2f GiB/s" % ("load_into host-runtime hipMalloc", seconds,
                                            size / (1 << 30) / seconds))
    return 0


def hipfile_threads():
    import hipfile

    return hipfile.num_threads()


if __name__ == "__main__":
    sys.exit(main())
