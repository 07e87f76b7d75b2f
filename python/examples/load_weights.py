"""Load a model checkpoint straight into GPU memory: load_weights.py FILE [DEVICE].

DEVICE is "cuda:0" by default; "cpu" loads into host memory. With PyTorch the tensors are
torch tensors (hipfile.safetensors.load_file); without it CuPy arrays on a GPU and NumPy arrays
on the host (hipfile.safetensors.load).
"""
import sys
import time

import hipfile.safetensors

path = sys.argv[1]
device = sys.argv[2] if len(sys.argv) > 2 else "cuda:0"
start = time.perf_counter()
try:
    import torch  # noqa: F401
except ImportError:
    tensors = hipfile.safetensors.load(path, device=device)
else:
    tensors = hipfile.safetensors.load_file(path, device=device)
elapsed = time.perf_counter() - start

total = sum(tensor.nbytes for tensor in tensors.values())
print("loaded %d tensors, %d bytes, in %.3f s" % (len(tensors), total, elapsed))
for name in sorted(tensors)[:3]:
    print("  %s: %s %s" % (name, tensors[name].dtype, tuple(tensors[name].shape)))
