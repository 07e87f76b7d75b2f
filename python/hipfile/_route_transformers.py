"""``from_pretrained``'s weights read in bulk, inside :func:`route` with a device.

``transformers`` 5 loads a checkpoint in steps that ``route`` can reach by the names
``transformers.modeling_utils`` calls them by: it settles quantization and the device map
(``get_hf_quantizer``), resolves the shard files (``_get_resolved_checkpoint_files``), builds the
model on the meta device, warms the device's caching allocator up (``caching_allocator_warmup``)
and materialises every tensor on four threads, renaming and converting on the way
(``convert_and_load_state_dict_in_model``). Routing ``safe_open`` alone speeds the reads up but
leaves that per-tensor work, which measured half of a stock load.

So inside ``route(device=...)``, for a load that is not quantized and whose ``device_map`` names
that one device: every shard is read onto the device with :func:`load_checkpoint` from the moment
the files are known, so the reads overlap the model's construction; the warm-up, which would
allocate the model's size a second time while those reads hold it, is skipped; and when the
checkpoint maps one to one onto the model (no converter, no per-module dtype plan, no tensor
parallelism, every tensor bound for that device) the tensors read are set into the model with
``transformers``' own ``set_param_for_module``, and the load goes on as it would have: missing
keys, tied weights, buffers and the loading report are ``transformers``' work. Any other load
runs ``transformers``' loader unchanged, reading through ``safe_open``, and a bulk read it did
not use is dropped first.
"""

import inspect
import os
import queue
import sys
import threading

from . import _safe_open
from ._st_format import SafetensorError

# The names transformers.modeling_utils calls, and the globals of core_model_loading that
# setting tensors into the model uses; a version without one of them keeps its own loader.
_HOOKED = ("get_hf_quantizer", "_get_resolved_checkpoint_files", "caching_allocator_warmup",
           "convert_and_load_state_dict_in_model")
_LOADER_NAMES = ("rename_source_key", "set_param_for_module", "_add_unmatched_checkpoint_key",
                 "get_device", "LoadStateDictInfo", "WeightRenaming", "WeightConverter",
                 "is_dtensor", "dot_natural_key")
_CONFIG_FIELDS = ("hf_quantizer", "device_map", "device_mesh", "dtype_plan", "weight_mapping")
_UNBOUNDED = 1 << 62
#: Devices the bulk door serves. GPU memory only: on the host, transformers materialises from
#: its own memory map, and the door has not been measured against that.
BULK_DEVICE_TYPES = ("cuda",)


def _torch_device(where):
    """``where`` (a name, an index or a ``torch.device``) as a ``torch.device`` with an index
    for a GPU; ``None`` for what names no device (``"auto"``, ``"disk"``, ``None``)."""
    import torch

    try:
        device = torch.device("cuda", where) if isinstance(where, int) else torch.device(where)
    except (TypeError, RuntimeError, ValueError):
        return None
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


class _BulkRead:
    """Every tensor of ``files`` read onto ``device`` on a thread of its own, handed over as
    each one lands (:meth:`landed`), so that the loading thread sets tensors into the model while
    the later ones are still being read."""

    _END = object()

    def __init__(self, files, device):
        self.files = {os.path.realpath(path) for path in files}
        self._landed = queue.SimpleQueue()
        self._stop = threading.Event()
        from ._checkpoint import shards_of

        shards = shards_of(list(files))
        allocator = self._allocator(shards, files, device)
        # Not a daemon, and joined by whoever ends the load (landed() or drop()): a daemon
        # thread still dropping its tensors when the interpreter finalizes is stopped inside
        # PyTorch's deallocator, which aborts the process.
        self._thread = threading.Thread(target=self._run, args=(shards, allocator),
                                        name="hipfile-bulk-read")
        self._thread.start()

    @staticmethod
    def _allocator(shards, files, device):
        # Every tensor is allocated here, on the loading thread before the model is built, so
        # the reading threads call PyTorch once per run rather than per tensor: beside a thread
        # building the model they compete for the CPU and the GIL (the read took 105-140 ms
        # there against 86-92 ms alone, docs/performance.rst).
        plain = _safe_open.Allocator("pt", device.type, device.index, files)
        prepared = {}
        for shard in shards:
            for info in shard.tensors:
                target = plain.empty(info.name, info.dtype, info.shape)
                prepared[info.name] = (target, plain.byte_view(target))
        return _safe_open.PreparedAllocator("pt", device.type, device.index, files, prepared)

    def _run(self, shards, allocator):
        from ._checkpoint import read_as_landed

        try:
            # No window: the whole checkpoint is wanted, and the model is still being built when
            # the first tensors land.
            tensors = read_as_landed(shards, allocator, _UNBOUNDED)
            try:
                for landed in tensors:
                    if self._stop.is_set():
                        break
                    self._landed.put(landed)
            finally:
                tensors.close()
            self._landed.put(self._END)
        except BaseException as error:  # raised on the loading thread by landed()
            self._landed.put(error)

    def landed(self):
        """Yield ``(name, tensor)`` as each tensor lands; raises what the read raised. The
        reading thread has ended when it returns or raises."""
        while True:
            item = self._landed.get()
            if item is self._END or isinstance(item, BaseException):
                self._thread.join()
                if item is self._END:
                    return
                raise item
            yield item

    def drop(self):
        """Stop, wait for the reads in flight to end, and free what was read."""
        self._stop.set()
        self._thread.join()
        while not self._landed.empty():
            self._landed.get()


class Door:
    """The replacements ``route(device=...)`` puts in place of ``transformers``' loading steps,
    and the bulk reads started for the loads in progress (one per thread)."""

    def __init__(self, device, modeling_utils, loader_module):
        self.device = _torch_device(device)
        self._originals = {name: getattr(modeling_utils, name) for name in _HOOKED}
        self._loader = vars(loader_module)
        self._lock = threading.Lock()
        self._eligible = {}
        self._reads = {}

    def pairs(self):
        """``(original, replacement)`` for each hooked function."""
        return [(self._originals[name], getattr(self, "_" + name.strip("_")))
                for name in _HOOKED]

    def close(self):
        """Drop every bulk read no load took."""
        with self._lock:
            reads, self._reads = list(self._reads.values()), {}
            self._eligible.clear()
        for read in reads:
            read.drop()

    def _take(self):
        with self._lock:
            return self._reads.pop(threading.get_ident(), None)

    def _call(self, name, args, kwargs):
        original = self._originals[name]
        bound = inspect.signature(original).bind(*args, **kwargs)
        bound.apply_defaults()
        return original, bound.arguments

    # The replacements, named after what they replace.

    def _get_hf_quantizer(self, *args, **kwargs):
        found = self._originals["get_hf_quantizer"](*args, **kwargs)
        eligible = False
        if isinstance(found, tuple) and len(found) == 3:
            quantizer, _, device_map = found
            eligible = quantizer is None and self._names_this_device(device_map)
        with self._lock:
            self._eligible[threading.get_ident()] = eligible
        return found

    def _names_this_device(self, device_map):
        # Only an explicit single device: "auto" sizes its map from the memory free, which a
        # bulk read in flight would take.
        if isinstance(device_map, dict):
            return bool(device_map) and all(_torch_device(where) == self.device
                                            for where in device_map.values())
        return device_map is not None and _torch_device(device_map) == self.device

    def _get_resolved_checkpoint_files(self, *args, **kwargs):
        found = self._originals["_get_resolved_checkpoint_files"](*args, **kwargs)
        with self._lock:
            eligible = self._eligible.pop(threading.get_ident(), False)
        files = found[0] if isinstance(found, tuple) and len(found) == 2 else None
        if eligible and files and all(isinstance(path, str) and path.endswith(".safetensors")
                                      and os.path.isfile(path) for path in files):
            try:
                read = _BulkRead(files, self.device)
            except Exception:  # a malformed shard, no memory: transformers' loader reports it
                return found
            with self._lock:
                earlier = self._reads.pop(threading.get_ident(), None)
                self._reads[threading.get_ident()] = read
            if earlier is not None:
                earlier.drop()
        return found

    def _caching_allocator_warmup(self, *args, **kwargs):
        original, arguments = self._call("caching_allocator_warmup", args, kwargs)
        device_map = arguments.get("expanded_device_map") or {}
        with self._lock:
            reading = threading.get_ident() in self._reads
        if reading and arguments.get("hf_quantizer") is None and \
                all(_torch_device(where) == self.device for where in device_map.values()):
            return None
        return original(*args, **kwargs)

    def _convert_and_load_state_dict_in_model(self, *args, **kwargs):
        original, arguments = self._call("convert_and_load_state_dict_in_model", args, kwargs)
        read = self._take()
        if read is not None:
            plan = self._plan(arguments, read)
            if plan is not None:
                return self._load(arguments, read, *plan)
            read.drop()
        return original(*args, **kwargs)

    def _plan(self, arguments, read):
        """``(order, info, meta, mapping)`` when the checkpoint maps one to one onto the model and
        ``read`` holds it: ``order`` lists ``(checkpoint name, model name, whether the model has
        it)``; ``None`` when ``transformers``' own loader must run."""
        g = self._loader
        model, state_dict = arguments.get("model"), arguments.get("state_dict")
        config = arguments.get("load_config")
        if any(name not in g for name in _LOADER_NAMES) or \
                any(not hasattr(config, field) for field in _CONFIG_FIELDS) or \
                not isinstance(state_dict, dict):
            return None
        if config.hf_quantizer is not None or config.device_mesh is not None or config.dtype_plan:
            return None
        device_map = config.device_map or {"": "cpu"}
        if "disk" in device_map.values():
            return None
        # Every value must be a slice of this package's safe_open over a file the bulk read has:
        # a state_dict the caller passed is loaded as given.
        owners = {}
        for value in state_dict.values():
            if type(value) is not _safe_open._Slice:
                return None
            owners[id(value._owner)] = value._owner._path
        if any(os.path.realpath(path) not in read.files for path in owners.values()):
            return None
        mapping = config.weight_mapping or []
        renamings = [entry for entry in mapping if isinstance(entry, g["WeightRenaming"])]
        converters = [entry for entry in mapping if isinstance(entry, g["WeightConverter"])]
        meta = model.state_dict()
        prefix = model.base_model_prefix
        order = []
        # The same renaming, in the same order, as transformers' loader does it.
        for name in sorted(state_dict, key=g["dot_natural_key"]):
            renamed, pattern = g["rename_source_key"](name, renamings, converters, prefix, meta)
            if renamed not in meta and name in meta:
                renamed, pattern = g["rename_source_key"](name, [], [], base_model_prefix=prefix,
                                                          meta_state_dict=meta)
            if pattern is not None:
                return None
            if renamed in meta:
                where = g["get_device"](device_map, renamed, valid_torch_device=True)
                if g["is_dtensor"](meta[renamed]) or _torch_device(where) != self.device:
                    return None
            order.append((name, renamed, renamed in meta))
        info = g["LoadStateDictInfo"](missing_keys=set(meta), unexpected_keys=set(),
                                      mismatched_keys=set(), conversion_errors={}, error_msgs=[],
                                      skipped_pp_keys=set())
        return order, info, meta, mapping

    def _load(self, arguments, read, order, info, meta, mapping):
        g = self._loader
        model = arguments["model"]
        wanted = {name: (renamed, known) for name, renamed, known in order}
        try:
            for name, tensor in read.landed():
                renamed, known = wanted.pop(name, (None, False))
                if renamed is None:
                    continue
                if not known:
                    g["_add_unmatched_checkpoint_key"](renamed, model, info)
                    continue
                # transformers casts each tensor to the dtype of the parameter it replaces.
                if tensor.dtype != meta[renamed].dtype:
                    tensor = tensor.to(meta[renamed].dtype)
                g["set_param_for_module"](model, renamed, tensor, info, None)
        except BaseException:
            # A tensor the model refused (or an interrupt): the rest of the read is not wanted.
            read.drop()
            raise
        if wanted:
            # The shards changed between transformers' opening them and the bulk read.
            raise SafetensorError("%s: tensor %r was not found when the shards were read again"
                                  % (", ".join(sorted(read.files)), sorted(wanted)[0]))
        model._weight_conversions = [entry for entry in mapping if entry.was_used()]
        return info, arguments.get("disk_offload_index")


def open_door(device):
    """A :class:`Door` for ``device`` when ``transformers`` is loaded and has every step hooked
    by name; ``None`` otherwise (``route`` then swaps ``safe_open`` only)."""
    if device is None or "transformers" not in sys.modules:
        return None
    try:
        import transformers.core_model_loading as loader_module
        import transformers.modeling_utils as modeling_utils
    except Exception:  # a transformers without these modules keeps its own loader
        return None
    if any(not callable(getattr(modeling_utils, name, None)) for name in _HOOKED):
        return None
    door = Door(device, modeling_utils, loader_module)
    return door if door.device is not None and door.device.type in BULK_DEVICE_TYPES else None
