"""Checkpoints read by the ranks of a ``torch.distributed`` process group together.

Every rank reads every header (a few kilobytes) and so knows the whole plan: the same tensors in
the same order, each shared tensor owned by one rank (the least loaded by bytes, largest tensors
first) and each split tensor cut into one part per rank. A rank reads what it owns and its own
parts, then the owners broadcast the shared tensors. Before the first broadcast the ranks agree,
with one all-reduce, that all of them succeeded; a rank that failed raises its own error and the
others raise naming it, so none waits in a collective for a rank that will never join.
"""

import fnmatch

from ._checkpoint import _name_filter, shards_of
from ._safe_open import Allocator, device_of, framework_of, safe_open
from ._st_format import SafetensorError
from ._tensor_reads import TensorReads, finish
from . import _file


def _split_dim(split, name, ndim, path):
    if not split:
        return None
    for pattern, dim in split.items():
        if name == pattern or fnmatch.fnmatchcase(name, pattern):
            if isinstance(dim, bool) or not isinstance(dim, int) or not -ndim <= dim < ndim:
                raise SafetensorError("%s: tensor %r has %d dimensions; split names dimension %r"
                                      % (path, name, ndim, dim))
            return dim % ndim
    return None


def _owners(sizes, world):
    """The rank reading each shared tensor: largest first, to the least loaded so far."""
    load = [0] * world
    owner = [0] * len(sizes)
    for index in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        rank = min(range(world), key=lambda r: (load[r], r))
        owner[index] = rank
        load[rank] += sizes[index]
    return owner


def _part(extent, world, rank):
    """Rank ``rank``'s ``[start, stop)`` of ``extent`` elements, as ``torch.tensor_split``."""
    base, extra = divmod(extent, world)
    start = rank * base + min(rank, extra)
    return start, start + base + (1 if rank < extra else 0)


def _global_rank(dist, group, rank):
    if group is None or group is dist.group.WORLD:
        return rank
    if hasattr(dist, "get_global_rank"):
        return dist.get_global_rank(group, rank)
    from torch.distributed import distributed_c10d

    return distributed_c10d._get_global_rank(group, rank)


def _plan(path, device, framework, names, split, world, rank):
    framework = framework_of(framework, path)
    if framework != "pt":
        raise SafetensorError("%s: sharing among ranks needs framework \"pt\" (torch.distributed),"
                              " not %r" % (path, framework))
    kind, index = device_of(device, framework, path)
    shards = shards_of(path)
    keep = _name_filter(names)
    allocator = Allocator(framework, kind, index, path)
    chosen = [(shard, info) for shard in shards for info in shard.tensors if keep(info.name)]
    cuts = {}
    for shard, info in chosen:
        allocator.dtype(info.name, info.dtype, shard.path)
        dim = _split_dim(split, info.name, len(info.shape), shard.path)
        if dim is not None:
            cuts[info.name] = dim
    shared = [(shard, info) for shard, info in chosen if info.name not in cuts]
    owner = _owners([info.nbytes for _, info in shared], world)
    return allocator, chosen, cuts, shared, owner


def _read_own(allocator, chosen, cuts, shared, owner, world, rank):
    """Read this rank's share of the shared tensors and its parts of the split ones, and allocate
    the rest of the shared ones for the broadcasts; the dict of results."""
    reads, files, futures = TensorReads(allocator), {}, []
    try:
        with allocator.current_device():
            mine = {}
            for number, (shard, info) in enumerate(shared):
                if owner[number] == rank:
                    mine.setdefault(shard.path, []).append(info)
            for path, infos in mine.items():
                source = files[path] = _file.File(path, "r")
                futures.extend(reads.submit(source, path, run) for run in reads.runs(infos))
            parts, opened = {}, {}
            for shard, info in chosen:
                if info.name not in cuts:
                    continue
                dim = cuts[info.name]
                start, stop = _part(info.shape[dim], world, rank)
                index = (slice(None),) * dim + (slice(start, stop),)
                if shard.path not in opened:
                    opened[shard.path] = safe_open(shard.path, "pt", str(allocator.device))
                parts[info.name] = opened[shard.path].get_slice(info.name)[index]
            for reader in opened.values():
                reader.close()
            landed = {info.name: tensor for future in futures for info, tensor in future.result()}
            results = {}
            for _, info in shared:
                results[info.name] = landed.get(info.name)
                if results[info.name] is None:
                    results[info.name] = allocator.empty(info.name, info.dtype, info.shape)
            results.update(parts)
        return results
    finally:
        finish(futures)
        for source in files.values():
            source.close()


def load_shared(path, device, framework, names, group, split):
    import torch
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise SafetensorError("%s: group needs torch.distributed initialised "
                              "(torch.distributed.init_process_group)" % path)
    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    flag_device = "cuda" if dist.get_backend(group) == "nccl" else "cpu"
    error, results, plan = None, None, None
    try:
        plan = _plan(path, device, framework, names, split, world, rank)
        results = _read_own(*plan, world, rank)
    except Exception as caught:  # every rank must reach the all-reduce below
        error = caught
    failed = torch.zeros(world, dtype=torch.int32, device=flag_device)
    failed[rank] = 1 if error is not None else 0
    dist.all_reduce(failed, group=group)
    # One read of the flags back from the device, not one per rank.
    ranks = [r for r, flag in enumerate(failed.tolist()) if flag]
    if error is None and ranks:
        error = SafetensorError("%s: rank%s %s of the group failed to read %s share; no tensor is "
                                "returned" % (path, "s" if len(ranks) > 1 else "",
                                              ", ".join(map(str, ranks)),
                                              "their" if len(ranks) > 1 else "its"))
    if error is not None:
        # The traceback keeps this frame: what it holds on the device goes now, and the frame
        # must not hold the exception, or the two form a cycle that only the collector frees.
        results = plan = failed = None
        try:
            raise error
        finally:
            error = None
    allocator, _, _, shared, owner = plan
    with allocator.current_device():
        works = []
        for number, (_, info) in enumerate(shared):
            if info.nbytes == 0:
                continue
            # Bytes, whatever the dtype: gloo has no bool or bfloat16 collectives.
            data = results[info.name].reshape(-1).view(torch.uint8)
            works.append(dist.broadcast(data, src=_global_rank(dist, group, owner[number]),
                                        group=group, async_op=True))
        for work in works:
            work.wait()
    return results
