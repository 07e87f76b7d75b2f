"""Many tensors of one file read at once, in as few and as large library calls as pays.

A library call moves a large range faster than several small ones at once: on the H200, runs of
1 GiB with two staged at once loaded a 3.78 GB checkpoint at 0.83-0.84 of a pinned host-to-device
copy, runs of 256 MiB with three at once 0.78, and one call per tensor less still
(docs/performance.rst). So the tensors bound for a GPU that lie next to each other in the file are
read as runs of up to ``RUN_BYTES``, each in one call into a staging buffer on the same GPU, from
which every tensor is copied into memory of its own (a device-to-device copy, two orders of
magnitude faster than the read). A tensor of half a run or more is read straight into its own
memory. At most ``STAGED_RUNS`` staging buffers exist at once, and together they take at most
1/``STAGING_SHARE`` of the device memory free when the load starts: runs shrink (to 64 MiB at
least) where memory is short. Host memory is read straight into each tensor: there is no copy to
save there.

Every read runs on the package's threads (``hipfile.set_num_threads``), which also allocate the
tensors: fresh host pages cost as much as the copy, and threads fault theirs in parallel.
"""

import threading

from . import _file
from ._st_format import SafetensorError

#: Bytes read by one call for a run of adjacent tensors bound for a GPU (at most).
RUN_BYTES = 1 << 30
#: Runs staged at once (each holds a staging buffer of at most RUN_BYTES on the GPU).
STAGED_RUNS = 2
#: The staging buffers together take at most this fraction (1/N) of the free device memory.
STAGING_SHARE = 16
#: Smallest run the free-memory bound shrinks runs to.
MIN_RUN_BYTES = 64 << 20
#: Read a run with one vector call (``File.readv``) straight into its tensors instead of
#: through a staging buffer.
VECTOR_READS = False

_slots_lock = threading.Lock()
_slots = {}


def _staging_slots():
    # One bound per process, however many loads run at once, so that the staging memory is too.
    with _slots_lock:
        slots = _slots.get(STAGED_RUNS)
        if slots is None:
            slots = _slots[STAGED_RUNS] = threading.BoundedSemaphore(STAGED_RUNS)
        return slots


def short_read(path, name, got, nbytes, offset):
    """The error for a read of ``nbytes`` at ``offset`` for tensor ``name`` that got ``got``."""
    return SafetensorError("%s: tensor %r: read %d of %d bytes at offset %d: the file is shorter "
                           "than its header says" % (path, name, max(got, 0), nbytes, offset))


def run_bytes_for(free_bytes):
    """The run size for a device with ``free_bytes`` free (``None``: unknown): ``RUN_BYTES``,
    or less so that ``STAGED_RUNS`` staging buffers take at most 1/``STAGING_SHARE`` of it."""
    if free_bytes is None:
        return RUN_BYTES
    fits = free_bytes // (STAGING_SHARE * max(STAGED_RUNS, 1)) >> 20 << 20
    return max(min(RUN_BYTES, fits), min(MIN_RUN_BYTES, RUN_BYTES))


def _run_short(path, run, got):
    """The error for a read of ``run`` that got ``got`` bytes: it names the first tensor cut."""
    end = run[0].offset + got
    info = next(i for i in run if i.offset + i.nbytes > end)
    return short_read(path, info.name, end - info.offset, info.nbytes, info.offset)


def runs_of(infos, staged, run_bytes=None):
    """``infos`` (one file's :class:`TensorInfo`, any order) cut into runs read by one call
    each: lists of adjacent tensors, in file order, of at most ``run_bytes`` (default
    ``RUN_BYTES``). Without ``staged`` every tensor is a run."""
    ordered = sorted(infos, key=lambda info: (info.offset, info.nbytes))
    if not staged:
        return [[info] for info in ordered]
    limit = RUN_BYTES if run_bytes is None else run_bytes
    runs, size = [], 0
    for info in ordered:
        last = runs[-1][-1] if runs else None
        joins = (last is not None and 0 < info.nbytes < limit // 2 and
                 last.nbytes < limit // 2 and size + info.nbytes <= limit and
                 last.offset + last.nbytes == info.offset)
        if joins:
            runs[-1].append(info)
            size += info.nbytes
        else:
            runs.append([info])
            size = info.nbytes
    return runs


class TensorReads:
    """Starts the reads of tensors of one framework and device (an :class:`Allocator`)."""

    def __init__(self, allocator):
        self._allocator = allocator
        self.staged = allocator.on_gpu()
        self.run_bytes = run_bytes_for(allocator.free_bytes()) if self.staged else RUN_BYTES

    def runs(self, infos):
        """``infos`` cut into the runs :meth:`submit` reads (see :func:`runs_of`)."""
        return runs_of(infos, self.staged, self.run_bytes)

    def submit(self, source, path, run):
        """Start reading ``run`` from ``source`` (a :class:`hipfile.File` of ``path``) on the
        package's threads: a future giving a list of ``(info, tensor)`` in file order. A short
        file raises :class:`SafetensorError` naming the file and the tensor from the future."""
        read = self._straight if len(run) == 1 else self._vector if VECTOR_READS else self._staged
        return _file._executor().submit(read, source, path, run)

    def _straight(self, source, path, run):
        info = run[0]
        target = self._allocator.empty(info.name, info.dtype, info.shape)
        if info.nbytes:
            got = source.read(target, info.nbytes, info.offset)
            if got != info.nbytes:
                raise short_read(path, info.name, got, info.nbytes, info.offset)
        return [(info, target)]

    def _vector(self, source, path, run):
        start = run[0].offset
        nbytes = run[-1].offset + run[-1].nbytes - start
        done = [(info, self._allocator.empty(info.name, info.dtype, info.shape)) for info in run]
        got = source.readv([target for _, target in done], start)
        if got != nbytes:
            raise _run_short(path, run, got)
        return done

    def _staged(self, source, path, run):
        start = run[0].offset
        nbytes = run[-1].offset + run[-1].nbytes - start
        allocator = self._allocator
        with _staging_slots():
            staging = allocator.staging(nbytes)
            got = source.read(staging, nbytes, start)
            if got != nbytes:
                raise _run_short(path, run, got)
            done = [(info, allocator.empty(info.name, info.dtype, info.shape)) for info in run]
            allocator.copy_run([target for _, target in done], staging,
                               [info.nbytes for info in run])
            # The copies end before the staging buffer can be handed to another read, and
            # before the tensors are handed to a caller on any stream.
            allocator.settle()
            del staging
        return done


def finish(futures):
    """Wait for every future, whatever it raises: no read outlives the memory it fills."""
    for future in futures:
        try:
            future.result()
        except BaseException:
            pass
