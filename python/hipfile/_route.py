"""Routing a framework's safetensors reads through hipfile without changing its code.

``transformers``, ``diffusers``, ``accelerate`` and others import ``safe_open`` (and
``safetensors.torch.load_file``) from the ``safetensors`` package into their own modules and call
them by that name. :func:`route` swaps those names, wherever a loaded module holds them, for this
package's equivalents, and puts the originals back when the block ends.
"""

import contextlib
import sys
import threading

_lock = threading.Lock()


def _targets():
    """``(original, replacement)`` pairs: the safetensors package's readers and ours."""
    import safetensors
    import safetensors.torch

    from . import _safe_open, safetensors as ours

    return [(safetensors.safe_open, _safe_open.safe_open),
            (safetensors.torch.load_file, ours.load_file)]


@contextlib.contextmanager
def route(modules=None):
    """Within the block, code that calls ``safetensors``' ``safe_open`` or
    ``safetensors.torch.load_file`` by a name it imported calls :class:`safe_open` and
    :func:`load_file` of this package instead: ``from_pretrained`` reads its shards through the
    library. ``modules`` limits the swap to those module objects or names (default: every module
    loaded, the ``safetensors`` package itself included). Needs the ``safetensors`` package, whose
    interface is the one being replaced; raises ``ImportError`` without it. Not reentrant across
    threads: the names are module globals.
    """
    pairs = _targets()
    if modules is None:
        chosen = list(sys.modules.values())
    else:
        chosen = [sys.modules[m] if isinstance(m, str) else m for m in modules]
    swapped = []
    with _lock:
        for module in chosen:
            if module is None or module.__name__.startswith("hipfile"):
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
