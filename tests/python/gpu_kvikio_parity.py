"""The KvikIO-parity calls on a real GPU, with CuPy and PyTorch memory and streams: fromfile,
tofile and LikeWrapper into CuPy arrays, Mmap into GPU memory, memory_register, raw_read_async on
a CuPy stream, readv into tensor slices, and defaults as context managers; every byte compared.

Run by ctest as gpu.python.kvikio_parity (exit 77, skipped, without PyTorch on CUDA or CuPy):
    HIPFILE_LIBRARY=build/lib/libhipfile.so.0 PYTHONPATH=python python3 tests/python/gpu_kvikio_parity.py DIR
"""
import os
import sys

try:
    import numpy as np
    import cupy
    import torch
    if not torch.cuda.is_available():
        raise ImportError("PyTorch has no CUDA device")
except ImportError as error:
    print("skipped: %s" % error)
    sys.exit(77)

import hipfile
import hipfile.defaults as defaults
import hipfile.numpy as hnp

work = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp"
os.makedirs(work, exist_ok=True)
path = os.path.join(work, "kvik.bin")
data = np.random.default_rng(3).integers(0, 256, 64 << 20, dtype=np.uint8)
data.tofile(path)
ok = {}
# fromfile/tofile with CuPy (like=)
a = hnp.fromfile(path, dtype=np.uint8, like=cupy.empty(0))
ok["fromfile cupy"] = isinstance(a, cupy.ndarray) and bool((cupy.asnumpy(a) == data).all())
b = hnp.fromfile(path, dtype=np.float32, count=1000, offset=4096, like=cupy.empty(0))
ok["fromfile cupy count/offset"] = b.dtype == cupy.float32 and b.size == 1000 and cupy.asnumpy(b).tobytes() == data[4096:4096 + 4000].tobytes()
out_path = os.path.join(work, "kvik-out.bin")
hnp.tofile(a[:1 << 20], out_path)
with open(out_path, "rb") as stream:
    ok["tofile cupy"] = stream.read() == data[:1 << 20].tobytes()
w = np.fromfile(path, dtype=np.uint8, like=hnp.LikeWrapper(cupy.empty(0)))
ok["LikeWrapper cupy"] = isinstance(w, cupy.ndarray) and bool((cupy.asnumpy(w) == data).all())
# Mmap into GPU memory (torch and cupy)
with hipfile.Mmap(path) as m:
    t = torch.empty(8 << 20, dtype=torch.uint8, device="cuda")
    n = m.read(t, 8 << 20, 1 << 20)
    ok["Mmap torch"] = n == 8 << 20 and bool((t.cpu().numpy() == data[1 << 20:9 << 20]).all())
    c = cupy.empty(1 << 20, dtype=cupy.uint8)
    ok["Mmap cupy pread"] = m.pread(c, 1 << 20, 12345).get() == 1 << 20 and bool((cupy.asnumpy(c) == data[12345:12345 + (1 << 20)]).all())
# memory_register on device memory, then reads
t = torch.empty(16 << 20, dtype=torch.uint8, device="cuda")
hipfile.memory_register(t)
with hipfile.File(path) as f:
    ok["registered read"] = f.read(t) == 16 << 20 and bool((t.cpu().numpy() == data[:16 << 20]).all())
    ok["is_direct_io_supported"] = f.is_direct_io_supported() in (True, False)
    s = cupy.cuda.Stream()
    c = cupy.zeros(4 << 20, dtype=cupy.uint8)
    fut = f.raw_read_async(c, s, 4 << 20, 100)
    ok["raw_read_async cupy stream"] = fut.check_bytes_done() == 4 << 20 and bool((cupy.asnumpy(c) == data[100:100 + (4 << 20)]).all())
    ok["readv torch"] = f.readv([t[:1000], t[4096:8192]], 7) == 5096 and bool((t[:1000].cpu().numpy() == data[7:1007]).all())
hipfile.memory_deregister(t)
# defaults as a context manager around reads
with defaults.set("num_threads", 3):
    ok["defaults num_threads"] = defaults.get("num_threads") == 3 and hipfile.num_threads() == 3
with defaults.set({"task_size": 1 << 20}):
    with hipfile.File(path) as f:
        t2 = torch.empty(8 << 20, dtype=torch.uint8, device="cuda")
        ok["defaults task_size read"] = f.pread(t2).get() == 8 << 20 and bool((t2.cpu().numpy() == data[:8 << 20]).all())
print(ok)
failed = [name for name, good in ok.items() if not good]
print("all ok" if not failed else "FAILED: " + ", ".join(failed))
sys.exit(1 if failed else 0)
