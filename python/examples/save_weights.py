"""Write a small model checkpoint in the safetensors format: save_weights.py FILE.

Makes the tensors with PyTorch when it is installed (on the GPU when there is one), else with
NumPy, and writes them with hipfile.safetensors.save_file, straight from their memory.
"""
import sys

import hipfile.safetensors


def make_tensors():
    try:
        import torch
    except ImportError:
        import numpy

        rng = numpy.random.default_rng(0)
        return {"embed.weight": rng.standard_normal((1000, 64), dtype=numpy.float32),
                "layer.0.weight": rng.standard_normal((64, 64)).astype(numpy.float16),
                "layer.0.bias": numpy.zeros(64, dtype=numpy.float32),
                "step": numpy.array(1000, dtype=numpy.int64)}
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return {"embed.weight": torch.randn(1000, 64, device=device),
            "layer.0.weight": torch.randn(64, 64, device=device, dtype=torch.bfloat16),
            "layer.0.bias": torch.zeros(64, device=device),
            "step": torch.tensor(1000, device=device)}


tensors = make_tensors()
hipfile.safetensors.save_file(tensors, sys.argv[1], metadata={"format": "pt"})
print("saved %d tensors to %s" % (len(tensors), sys.argv[1]))
