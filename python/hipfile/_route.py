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


def _holders(modules, wanted):
    """``(module, name, value)`` for every global of ``modules`` (hipfile's own left out) whose
    value's id is a key of ``wanted``."""
    found = []
    for module in modules:
        # sys.modules may hold objects that are not modules (Cython's cython.parallel).
        module_name = getattr(module, "__name__", None)
        if not isinstance(module, types.ModuleType) or not isinstance(module_name, str) or \
                module_name.startswith("hipfile"):
            continue
        for name, value in list(getattr(module, "__dict__", {}).items()):
            if id(value) in wanted and wanted[id(value)] is not value:
                found.append((module, name, value))
    return found


@contextlib.contextmanager
def route(modules=None, device=None):
    """Within the block, code that calls ``safetensors``' ``safe_open`` or
    ``safetensors.torch.load_file`` by a name it imported calls :class:`safe_open` and
    :func:`load_file` of this package instead: ``from_pretrained`` reads its shards through the
    library. ``modules`` limits the swap to those module objects or names (default: every module
    loaded, the ``safetensors`` package itself included). When the block ends the names are put
    back, and so are those that modules imported inside the block took from the swapped package,
    so that a load after the block reads as it would have without it. ``device`` (``"cuda:0"``), when given,
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
        before = {id(module) for module in list(sys.modules.values())}
        to = {id(original): replacement for original, replacement in pairs}
        for module, name, original in _holders(chosen, to):
            setattr(module, name, to[id(original)])
            swapped.append((module, name, original))
    try:
        yield
    finally:
        with _lock:
            for module, name, original in swapped:
                setattr(module, name, original)
            # A module imported inside the block (frameworks import theirs lazily, on the first
            # load) took the replacement from the swapped package; it must not keep it. Modules
            # loaded before are left as they are: one may hold this package's reader on purpose.
            back = {id(replacement): original for original, replacement in pairs}
            imported = [m for m in list(sys.modules.values()) if id(m) not in before]
            for module, name, value in _holders(imported, back):
                setattr(module, name, back[id(value)])
