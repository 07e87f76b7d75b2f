"""Whole checkpoints: every shard of a model read at once, tensors yielded as they land, and
sharded writes in the layout ``save_pretrained`` writes.

A checkpoint is a ``.safetensors`` file, a directory holding one (``model.safetensors``) or shards
with their index (``model.safetensors.index.json``, as ``transformers`` and ``huggingface_hub``
write them: ``{"metadata": {"total_size": N}, "weight_map": {tensor: shard file}}``), or the index
file itself. Every header is read and checked, and the index against them, before any tensor is
allocated.
"""

import itertools
import json
import os
import re
import sys
import threading

from . import _file
from ._safe_open import Allocator, device_of, framework_of
from ._st_format import SafetensorError, _describe, build_header, read_header
from ._tensor_reads import TensorReads, finish

INDEX_SUFFIX = ".safetensors.index.json"
_DEFAULT_WINDOW = 1 << 30


class Shard:
    """One file of a checkpoint: its ``path`` and the :class:`TensorInfo` of its tensors."""

    __slots__ = ("path", "tensors")

    def __init__(self, path, tensors):
        self.path, self.tensors = path, tensors


def _index_file(directory):
    names = sorted(name for name in os.listdir(directory) if name.endswith(INDEX_SUFFIX))
    if "model" + INDEX_SUFFIX in names:
        return os.path.join(directory, "model" + INDEX_SUFFIX)
    return os.path.join(directory, names[0]) if names else None


def _read_index(path):
    try:
        with open(path, encoding="utf-8") as stream:
            index = json.load(stream)
    except (OSError, ValueError) as error:
        raise SafetensorError("%s: not a readable checkpoint index: %s" % (path, error)) from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items()):
        raise SafetensorError("%s: the index has no weight_map of tensor names to files" % path)
    return weight_map


def _shards_of_index(path):
    weight_map = _read_index(path)
    directory = os.path.dirname(os.path.abspath(path))
    files = []
    for name, shard in weight_map.items():
        if os.path.basename(shard) != shard:
            raise SafetensorError("%s: tensor %r is in %r, which is not a file beside the index"
                                  % (path, name, shard))
        if shard not in files:
            files.append(shard)
    for shard in files:
        if not os.path.isfile(os.path.join(directory, shard)):
            missing = next(n for n, s in weight_map.items() if s == shard)
            raise SafetensorError("%s names %s for tensor %r, and it does not exist"
                                  % (path, os.path.join(directory, shard), missing))
    shards = _read_shards([os.path.join(directory, shard) for shard in files])
    for shard in shards:
        for info in shard.tensors:
            listed = weight_map.get(info.name)
            if listed != os.path.basename(shard.path):
                raise SafetensorError("%s: tensor %r is in %s, but the index %s"
                                      % (path, info.name, shard.path,
                                         "does not list it" if listed is None
                                         else "puts it in %s" % listed))
    found = {info.name for shard in shards for info in shard.tensors}
    for name, shard in weight_map.items():
        if name not in found:
            raise SafetensorError("%s: tensor %r is listed in %s, which does not hold it"
                                  % (path, name, shard))
    return shards


def _read_shards(paths):
    shards, owner = [], {}
    for path in paths:
        tensors, _ = read_header(path)
        for info in tensors:
            if info.name in owner:
                raise SafetensorError("tensor %r is in two shards: %s and %s"
                                      % (info.name, owner[info.name], path))
            owner[info.name] = path
        shards.append(Shard(path, tensors))
    return shards


def shards_of(path):
    """The :class:`Shard` list of a checkpoint (a file, a directory or an index), every header
    read and checked. Raises :class:`SafetensorError` naming the file and the tensor."""
    if isinstance(path, (list, tuple)):
        return _read_shards([os.fspath(p) for p in path])
    path = os.fspath(path)
    if os.path.isdir(path):
        index = _index_file(path)
        if index is not None:
            return _shards_of_index(index)
        files = sorted(name for name in os.listdir(path) if name.endswith(".safetensors"))
        if not files:
            raise SafetensorError("%s holds no .safetensors file and no index" % path)
        return _read_shards([os.path.join(path, name) for name in files])
    if path.endswith(".json"):
        return _shards_of_index(path)
    if not os.path.exists(path):
        raise SafetensorError("%s does not exist" % path)
    return _read_shards([path])


def _name_filter(names):
    if names is None:
        return lambda name: True
    if callable(names):
        return names
    wanted = set(names)
    return lambda name: name in wanted


class _Progress:
    """A progress bar over bytes: tqdm when it is installed, else one line on standard error."""

    def __init__(self, total, show):
        self._bar, self._done, self._total, self._show = None, 0, total, show
        self._lock = threading.Lock()
        if not show:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._bar = tqdm(total=total, unit="B", unit_scale=True, desc="Loading checkpoint")

    def add(self, nbytes):
        if not self._show:
            return
        with self._lock:
            self._done += nbytes
            if self._bar is not None:
                self._bar.update(nbytes)
            else:
                sys.stderr.write("\rLoading checkpoint: %d of %d MB"
                                 % (self._done // 10**6, self._total // 10**6))
                if self._done >= self._total:
                    sys.stderr.write("\n")

    def close(self):
        if self._bar is not None:
            self._bar.close()


def load_checkpoint(path, device="cpu", framework="pt", names=None, progress=False, group=None,
                    split=None):
    """Every tensor of a checkpoint, read from all its shards at once: a dict from name to tensor.

    ``path`` is a ``.safetensors`` file, a directory (an index and its shards, or ``.safetensors``
    files) or an ``index.json``. ``device`` and ``framework`` are :class:`safe_open`'s.
    ``names`` keeps some tensors: a callable taking a name, or a collection of names.
    ``progress=True`` shows a bar (tqdm when installed). Raises :class:`SafetensorError` naming the
    file and the tensor, before anything is allocated for a malformed checkpoint, and after
    freeing what was read for a failed read.

    ``group`` (a ``torch.distributed`` process group, or ``torch.distributed.group.WORLD``) shares
    the reading among its ranks, each of which calls this with the same arguments: every rank
    reads a disjoint share of the tensors, by bytes, straight into its own device, and broadcasts
    complete the set, so every rank returns the whole model. ``split`` maps names (or
    ``fnmatch`` patterns) to a dimension: those tensors are not shared but cut, each rank reading
    only its own part along that dimension (parts as ``torch.tensor_split`` makes them), the
    tensor-parallel form. When any rank fails, every rank raises.
    """
    if group is not None or split is not None:
        from ._ranks import load_shared

        return load_shared(path, device, framework, names, group, split)
    framework = framework_of(framework, path)
    kind, index = device_of(device, framework, path)
    shards = shards_of(path)
    keep = _name_filter(names)
    allocator = Allocator(framework, kind, index, path)
    chosen = [(shard, info) for shard in shards for info in shard.tensors if keep(info.name)]
    for shard, info in chosen:
        allocator.dtype(info.name, info.dtype, shard.path)
    bar = _Progress(sum(info.nbytes for _, info in chosen), progress)
    reads = TensorReads(allocator)
    files, futures = {}, []
    try:
        with allocator.current_device():
            queues = []
            for shard in shards:
                infos = [info for info in shard.tensors if keep(info.name)]
                if infos:
                    source = files[shard.path] = _file.File(shard.path, "r")
                    queues.append([(source, shard.path, run) for run in reads.runs(infos)])
            # Runs of every shard in turn, so that all the shards are read at once.
            for jobs in itertools.zip_longest(*queues):
                futures.extend(reads.submit(*job) for job in jobs if job is not None)
            landed = {}
            for future in futures:
                for info, tensor in future.result():
                    landed[info.name] = tensor
                    bar.add(info.nbytes)
        return {info.name: landed[info.name] for _, info in chosen}
    except BaseException:
        # Every read has ended before the tensors are dropped, so no transfer outlives them.
        finish(futures)
        raise
    finally:
        bar.close()
        for source in files.values():
            source.close()


def iter_tensors(files, device="cpu", framework="pt", window=_DEFAULT_WINDOW):
    """Yield ``(name, tensor)`` for every tensor of ``files`` (a checkpoint as
    :func:`load_checkpoint` takes it, or a list of ``.safetensors`` files) as each one lands.

    Reads run ahead of the consumer on all shards at once, with at most ``window`` bytes read but
    not yet yielded, so a loader that copies each tensor into its model and drops it needs that
    much memory more, not the whole checkpoint. The shape ``vLLM``'s weight iterators and
    ``transformers``' loaders consume. Raises as :func:`load_checkpoint`; no read outlives the
    generator.
    """
    framework = framework_of(framework, files)
    kind, index = device_of(device, framework, files)
    yield from read_as_landed(shards_of(files), Allocator(framework, kind, index, files), window)


def read_as_landed(shards, allocator, window):
    """:func:`iter_tensors` of ``shards`` (from :func:`shards_of`) with the memory from
    ``allocator`` (an :class:`Allocator`)."""
    order = [(shard, info) for shard in shards for info in shard.tensors]
    for shard, info in order:
        allocator.dtype(info.name, info.dtype, shard.path)
    reads = TensorReads(allocator)
    jobs = [(shard.path, run) for shard in shards for run in reads.runs(shard.tensors)]
    opened, queue = {}, []
    try:
        with allocator.current_device():
            start, in_flight = 0, 0
            while start < len(jobs) or queue:
                while start < len(jobs) and (not queue or in_flight < window):
                    path, run = jobs[start]
                    start += 1
                    if path not in opened:
                        opened[path] = _file.File(path, "r")
                    size = sum(info.nbytes for info in run)
                    queue.append((size, reads.submit(opened[path], path, run)))
                    in_flight += size
                size, future = queue.pop(0)
                landed = future.result()
                in_flight -= size
                for info, tensor in landed:
                    yield info.name, tensor
    finally:
        finish(future for _, future in queue)
        queue.clear()
        for source in opened.values():
            source.close()


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?i?B)?\s*$", re.I)
_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "KIB": 2**10,
          "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}


def _size_of(value):
    """Bytes in ``value``: an int, or ``"5GB"`` (10^9) / ``"5GiB"`` (2^30) as transformers
    reads ``max_shard_size``."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _SIZE.match(value) if isinstance(value, str) else None
    if match is None or float(match.group(1)) <= 0:
        raise SafetensorError("max_shard_size %r is not a positive size such as 5000000000, "
                              "\"5GB\" or \"4GiB\"" % (value,))
    return int(float(match.group(1)) * _UNITS[(match.group(2) or "").upper()])


def save_checkpoint(tensors, directory, max_shard_size="5GB", metadata=None):
    """Write ``tensors`` (a dict from name to tensor) into ``directory`` as ``save_pretrained``
    lays a model out: ``model.safetensors`` when it fits in one shard, else
    ``model-00001-of-0000N.safetensors`` files of at most ``max_shard_size`` bytes each (a larger
    tensor alone in its shard) and ``model.safetensors.index.json``. Shards are filled in the
    dict's order and carry ``{"format": "pt"}`` plus ``metadata``. Returns the files written.
    Raises :class:`SafetensorError` before writing anything for a tensor that cannot be stored.
    """
    if not isinstance(tensors, dict):
        raise SafetensorError("tensors must be a dict from name to tensor")
    limit = _size_of(max_shard_size)
    described = {}
    for name, tensor in tensors.items():
        if not isinstance(name, str) or name == "__metadata__":
            raise SafetensorError("tensor name %r is not allowed" % (name,))
        described[name] = _describe(name, tensor)
    groups, size = [[]], 0
    for name, (_, _, nbytes) in described.items():
        if groups[-1] and size + nbytes > limit:
            groups.append([])
            size = 0
        groups[-1].append(name)
        size += nbytes
    shard_metadata = {"format": "pt"}
    shard_metadata.update(metadata or {})
    build_header([], shard_metadata)  # metadata must map strings to strings
    os.makedirs(directory, exist_ok=True)
    count = len(groups)
    names = ["model.safetensors"] if count == 1 else [
        "model-%05d-of-%05d.safetensors" % (i + 1, count) for i in range(count)]
    from .safetensors import save_file

    written = []
    for group, shard in zip(groups, names):
        path = os.path.join(directory, shard)
        save_file({name: tensors[name] for name in group}, path, metadata=shard_metadata)
        written.append(path)
    if count > 1:
        index = {"metadata": {"total_size": sum(d[2] for d in described.values())},
                 "weight_map": {name: shard for group, shard in zip(groups, names)
                                for name in group}}
        path = os.path.join(directory, "model" + INDEX_SUFFIX)
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(index, stream, indent=2, sort_keys=True)
            stream.write("\n")
        written.append(path)
    return written
