"""Routing a framework's safetensors reads through hipfile without changing its code.

``transformers``, ``diffusers``, ``accelerate`` and others import ``safe_open`` (and
``safetensors.torch.load_file``) from the ``safetensors`` package into their own modules and call
them by that name. :func:`route` swaps those names, wherever a loaded module holds them, for this
package's equivalents, and puts the originals back when the block ends. With a device, the steps
of ``transformers``' ``from_pretrained`` that read and place the weights are swapped too
(``_route_transformers.py``).
"""

import contextlib
import sys
import threading
import types
import weakref

from . import _route_transformers

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


# What the last full scan of each module found: id(module) -> (weak reference to the module, its
# number of globals then, the names that held a wanted value), for the set of wanted ids in
# _scans_for. A process with torch and transformers loaded has some 4,000 modules and 160,000
# globals, a scan of 50 ms on a server core, paid at every route() otherwise. A module whose
# globals grew or shrank is scanned again; one that rebinds an existing global to a reader
# after its first scan is not seen, which leaves its loads unrouted, not wrong.
_scans = {}
_scans_for = None


def _names_holding(module, ids, remember):
    """The names of ``module``'s globals whose values' ids are in ``ids``, from what the last
    scan found when ``remember`` and the module's globals still number the same."""
    global _scans_for
    namespace = module.__dict__
    if remember:
        if _scans_for != ids:
            _scans.clear()
            _scans_for = ids
        seen = _scans.get(id(module))
        if seen is not None and seen[1] == len(namespace) and seen[0]() is module:
            return seen[2]
    names = ()
    # sys.modules may hold objects that are not modules (Cython's cython.parallel); this
    # package's own modules hold the readers on purpose.
    module_name = getattr(module, "__name__", None)
    if isinstance(module_name, str) and not module_name.startswith("hipfile") and \
            not ids.isdisjoint(map(id, list(namespace.values()))):
        # The ids are taken in one pass at C speed; only a module that holds one is walked.
        names = tuple(name for name, value in list(namespace.items()) if id(value) in ids)
    if remember:
        _scans[id(module)] = (weakref.ref(module), len(namespace), names)
    return names


def _holders(modules, wanted, remember=False):
    """``(module, name, value)`` for every global of ``modules`` (hipfile's own left out) whose
    value's id is a key of ``wanted``. ``remember`` keeps what each module held for the next
    call with the same keys."""
    found = []
    ids = frozenset(wanted)
    for module in modules:
        if not isinstance(module, types.ModuleType):
            continue
        namespace = module.__dict__
        for name in _names_holding(module, ids, remember):
            value = namespace.get(name)
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
    the GPU saves that copy (the move of a tensor already there does nothing). With a GPU
    ``device`` and ``transformers`` imported, a ``from_pretrained`` whose ``device_map`` names
    that device and that is not quantized reads every shard at once while the model is built,
    and sets the tensors read into the model in place of ``transformers``' per-tensor loading
    when the checkpoint maps one to one onto the model (``_route_transformers.py``); any other
    load runs ``transformers``' loader, reading through this package. Needs the
    ``safetensors`` package, whose interface is the one being replaced; raises ``ImportError``
    without it. Not reentrant across threads: the names are module globals.
    """
    pairs = _targets(device)
    door = _route_transformers.open_door(device)
    if door is not None:
        pairs += door.pairs()
    if modules is None:
        chosen = list(sys.modules.values())
    else:
        chosen = [sys.modules[m] if isinstance(m, str) else m for m in modules]
    swapped = []
    with _lock:
        before = {id(module) for module in list(sys.modules.values())}
        to = {id(original): replacement for original, replacement in pairs}
        for module, name, original in _holders(chosen, to, remember=True):
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
        if door is not None:
            door.close()
