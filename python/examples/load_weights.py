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
try:
    import torch
except ImportError:
    torch = None
start = time.perf_counter()
if torch is None:
    tensors = hipfile.safetensors.load(path, device=device)
else:
    tensors = hipfile.safetensors.load_file(path, device=device)
elapsed = time.perf_counter() - start

if torch is None:
    total = sum(array.nbytes for array in tensors.values())
else:
    # element_size() * numel(): Tensor.nbytes is missing from older PyTorch (Debian 12 has 1.13).
    total = sum(tensor.element_size() * tensor.numel() for tensor in tensors.values())
print("loaded %d tensors, %d bytes, in %.3f s" % (len(tensors), total, elapsed))
for name in sorted(tensors)[:3]:
    print("  %s: %s %s" % (name, tensors[name].dtype, tuple(tensors[name].shape)))
