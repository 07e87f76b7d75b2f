"""Routing a framework's safetensors reads through hipfile without changing its code.

``transformers``, ``diffusers``, ``accelerate`` and others import ``safe_open`` (and
``safetensors.torch.load_file``) from the ``safetensors`` package into their own modules and call
them by that name. :func:`route` swaps those names, wherever a loaded module holds them, for this
package's equivalents, and puts the originals back when the block ends.
"""

import contextlib
import sys
import threading
import types

_lock = threading.Lock()


def _targets(device):
    """``(original, replacement)`` pairs: the safetensors package's readers and ours, reading
    onto ``device`` whatever device the caller names when it is given."""
    import safetensors
    import safetensors.torch

    from . import _safe_open, safetensors as ours

    if device is None:
        return [(safetensors.safe_open, _safe_open.safe_open),
                (safetensors.torch.load_file, ours.load_file)]

    def safe_open_on_device(filename, framework="pt", device_asked="cpu", backend=None,
                            **kwargs):
        device_asked = kwargs.pop("device", device_asked)
        return _safe_open.safe_open(filename, framework, device, backend, **kwargs)

    def load_file_on_device(filename, device_asked="cpu", **kwargs):
        return ours.load_file(filename, device)

    return [(safetensors.safe_open, safe_open_on_device),
            (safetensors.torch.load_file, load_file_on_device)]


@contextlib.contextmanager
def route(modules=None, device=None):
    """Within the block, code that calls ``safetensors``' ``safe_open`` or
    ``safetensors.torch.load_file`` by a name it imported calls :class:`safe_open` and
    :func:`load_file` of this package instead: ``from_pretrained`` reads its shards through the
    library. ``modules`` limits the swap to those module objects or names (default: every module
    loaded, the ``safetensors`` package itself included). ``device`` (``"cuda:0"``), when given,
    is where every tensor is read to, whatever device the caller names: ``from_pretrained`` opens
    its shards for the CPU and moves each tensor to the GPU afterwards, and reading straight into
    the GPU saves that copy (the move of a tensor already there does nothing). Needs the
    ``safetensors`` package, whose interface is the one being replaced; raises ``ImportError``
    without it. Not reentrant across threads: the names are module globals.
    """
    pairs = _targets(device)
    if modules is None:
        chosen = list(sys.modules.values())
    else:
        chosen = [sys.modules[m] if isinstance(m, str) else m for m in modules]
    swapped = []
    with _lock:
        for module in chosen:
            # sys.modules may hold objects that are not modules (Cython's cython.parallel).
            name = getattr(module, "__name__", None)
            if not isinstance(module, types.ModuleType) or not isinstance(name, str) or \
                    name.startswith("hipfile"):
                continue
            for name, value in list(getattr(module, "__dict__", {}).items()):
                for original, replacement in pairs:
                    if value is original:
                        setattr(module, name, replacement)
                        swapped.append((module, name, original))
    try:
        yield
    finally:
        with _lock:
            for module, name, original in swapped:
                setattr(module, name, original)
