"""``safe_open``: the ``safetensors`` package's lazy reader, reading through the library.

Opening reads the header alone and registers the file once. ``get_tensor`` reads one tensor's
bytes straight into memory of the framework and device asked for, in one library call.
``get_slice(name)[...]`` reads only the bytes the selection needs: a selection along the leading
dimension (a row slice, how tensor-parallel loaders take their share) is one contiguous range, read
straight into the result; any other selection reads the rows it spans, the smallest range that
holds it, into a temporary on the same device and is cut from there (docs/python/api.rst says why
that measures faster than one read per piece).
"""

import concurrent.futures
import contextlib
import os
import threading

from . import _file
from ._st_format import DTYPE_SIZES, SafetensorError, read_header, _ARRAY_DTYPES, _TORCH_DTYPES
from ._tensor_reads import TensorReads, short_read

_FRAMEWORKS = {"pt": "pt", "torch": "pt", "pytorch": "pt", "np": "np", "numpy": "np",
               "cupy": "cupy"}


def framework_of(framework, filename):
    """``"pt"``, ``"np"`` or ``"cupy"`` for a framework name safetensors accepts and we serve."""
    kind = _FRAMEWORKS.get(framework) if isinstance(framework, str) else None
    if kind is None:
        raise SafetensorError("%s: framework %r is not one of \"pt\", \"np\", \"numpy\" or "
                              "\"cupy\"" % (filename, framework))
    return kind


def device_of(device, framework, filename):
    """``("cpu", None)`` or ``("cuda", index)`` for a device the framework can hold."""
    if type(device).__module__ == "torch" and hasattr(device, "type"):
        device = str(device)  # a torch.device, as frameworks pass it
    if isinstance(device, int) and not isinstance(device, bool):
        kind, index = ("cuda", device) if device >= 0 else (None, None)
    elif isinstance(device, str) and device == "cpu":
        kind, index = "cpu", None
    elif isinstance(device, str) and (device == "cuda" or device.startswith("cuda:")):
        text = device[5:]
        kind, index = ("cuda", int(text)) if text.isdigit() else ("cuda", None)
        if device != "cuda" and not text.isdigit():
            kind = None
    else:
        kind, index = None, None
    if kind is None:
        raise SafetensorError("%s: device %r is not \"cpu\", \"cuda\", \"cuda:N\" or a GPU index"
                              % (filename, device))
    if framework == "np" and kind != "cpu":
        raise SafetensorError("%s: framework \"np\" holds host memory only; device %r needs "
                              "\"pt\" or \"cupy\"" % (filename, device))
    if framework == "cupy" and kind != "cuda":
        raise SafetensorError("%s: framework \"cupy\" holds GPU memory only; use \"np\" for "
                              "\"cpu\"" % filename)
    return kind, index


class Allocator:
    """Empty arrays of one framework on one device, and the framework's dtype of each tensor."""

    def __init__(self, framework, kind, index, filename):
        self.framework, self.filename = framework, filename
        if framework == "pt":
            import torch

            self._module = torch
            if kind == "cuda" and index is None:
                index = torch.cuda.current_device()
            self.device = torch.device(kind, index) if kind == "cuda" else torch.device("cpu")
        elif framework == "np":
            import numpy

            self._module = numpy
            self.device = "cpu"
        else:
            import cupy

            self._module = cupy
            self.device = cupy.cuda.Device(index) if index is not None else cupy.cuda.Device()

    def dtype(self, name, dtype, path=None):
        """The framework's dtype for tensor ``name`` of file dtype ``dtype`` (of ``path``, the
        opened file by default); SafetensorError when the framework lacks it."""
        if self.framework == "pt":
            found = getattr(self._module, _TORCH_DTYPES[dtype], None)
            lacks = "this PyTorch"
        else:
            # NumPy and CuPy have no bfloat16 or float8: safetensors refuses those too.
            found = None if dtype.startswith(("BF", "F8")) else _ARRAY_DTYPES[dtype]
            lacks = "NumPy" if self.framework == "np" else "CuPy"
        if found is None:
            raise SafetensorError("%s: tensor %r has dtype %s, which %s lacks"
                                  % (path or self.filename, name, dtype, lacks))
        return found

    def current_device(self):
        """A context in which the framework allocates on this allocator's GPU."""
        if self.framework == "pt" and self.device.type == "cuda":
            return self._module.cuda.device(self.device)
        if self.framework == "cupy":
            return self.device
        return contextlib.nullcontext()

    def empty(self, name, dtype, shape):
        kind = self.dtype(name, dtype)
        if self.framework == "pt":
            return self._module.empty(shape, dtype=kind, device=self.device)
        if self.framework == "np":
            return self._module.empty(shape, dtype=kind)
        with self.device:
            return self._module.empty(shape, dtype=kind)

    def on_gpu(self):
        """True when the arrays live in GPU memory."""
        if self.framework == "pt":
            return self.device.type == "cuda"
        return self.framework == "cupy"

    def free_bytes(self):
        """Bytes of device memory free now on a GPU (``None`` on the host or when unknown)."""
        try:
            if self.framework == "pt" and self.device.type == "cuda":
                return int(self._module.cuda.mem_get_info(self.device)[0])
            if self.framework == "cupy":
                with self.device:
                    return int(self._module.cuda.runtime.memGetInfo()[0])
        except Exception:  # an old framework without the query, or a runtime that refuses it
            return None
        return None

    def staging(self, nbytes):
        """A byte array of ``nbytes`` on this allocator's device."""
        if self.framework == "pt":
            return self._module.empty(nbytes, dtype=self._module.uint8, device=self.device)
        if self.framework == "np":
            return self._module.empty(nbytes, dtype=self._module.uint8)
        with self.device:
            return self._module.empty(nbytes, dtype=self._module.uint8)

    def copy_bytes(self, target, staging, start, nbytes):
        """Copy ``nbytes`` of ``staging`` from ``start`` over the whole of ``target``, on the
        device, ordered on this thread's current stream (see :meth:`settle`)."""
        if nbytes == 0:
            return
        if self.framework == "pt":
            self.byte_view(target).copy_(staging[start:start + nbytes])
        elif self.framework == "np":
            self.byte_view(target)[:] = staging[start:start + nbytes]
        else:
            with self.device:
                self.byte_view(target)[:] = staging[start:start + nbytes]

    def byte_view(self, target):
        """``target``'s bytes as a flat byte array (a view: writing it writes ``target``)."""
        return target.reshape(-1).view(self._module.uint8)

    def copy_run(self, targets, staging, sizes):
        """Copy ``staging``, which holds the bytes of ``targets`` one after another (``sizes``
        bytes each), over them, as :meth:`copy_bytes` would one by one. PyTorch copies them in
        one call where it can: every framework call lets the other Python threads in, and a
        reading thread that asks for the GIL back hundreds of times waits on a thread busy in
        Python (a model being built) each time."""
        pairs = [(target, size) for target, size in zip(targets, sizes) if size]
        if self.framework == "pt" and hasattr(self._module, "_foreach_copy_") and pairs:
            pieces = staging.split([size for _, size in pairs])
            self._module._foreach_copy_([self.byte_view(target) for target, _ in pairs],
                                        list(pieces))
            return
        start = 0
        for target, size in pairs:
            self.copy_bytes(target, staging, start, size)
            start += size

    def settle(self):
        """Wait for the copies this thread has queued on the device."""
        if self.framework == "pt" and self.device.type == "cuda":
            self._module.cuda.current_stream(self.device).synchronize()
        elif self.framework == "cupy":
            with self.device:
                self._module.cuda.get_current_stream().synchronize()

    def cut(self, array, index, shape):
        """``array[index]`` as a contiguous array of its own, of ``shape``."""
        part = array[index]
        if self.framework == "pt":
            part = part.clone(memory_format=self._module.contiguous_format)
        else:
            part = part.copy()
        return part.reshape(shape)


class PreparedAllocator(Allocator):
    """An :class:`Allocator` that hands out arrays allocated beforehand from the same headers,
    by name, with their byte views, so that the threads reading into them call the framework
    once per run rather than three times per tensor (see :meth:`Allocator.copy_run`). A name it
    was not given is allocated as usual."""

    def __init__(self, framework, kind, index, filename, prepared):
        super().__init__(framework, kind, index, filename)
        self._prepared = dict(prepared)
        self._views = {}

    def empty(self, name, dtype, shape):
        found = self._prepared.pop(name, None)
        if found is None:
            return super().empty(name, dtype, shape)
        self._views[id(found[0])] = found[1]
        return found[0]

    def byte_view(self, target):
        view = self._views.pop(id(target), None)
        return view if view is not None else super().byte_view(target)


def _selection(index, shape, filename, name):
    """``index`` (ints, slices, one Ellipsis) as one ``(start, stop, step)`` or int per
    dimension of ``shape``. Raises SafetensorError for what does not fit."""
    items = list(index) if isinstance(index, tuple) else [index]

    def fail(why):
        raise SafetensorError("%s: tensor %r of shape %s: %s"
                              % (filename, name, list(shape), why))

    if sum(1 for item in items if item is Ellipsis) > 1:
        fail("an index can have a single ellipsis")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        fill = len(shape) - (len(items) - 1)
        if fill < 0:
            fail("%d indices for %d dimensions" % (len(items) - 1, len(shape)))
        items[at:at + 1] = [slice(None)] * fill
    if len(items) > len(shape):
        fail("%d indices for %d dimensions" % (len(items), len(shape)))
    items += [slice(None)] * (len(shape) - len(items))
    picked = []
    for dim, (item, extent) in enumerate(zip(items, shape)):
        if isinstance(item, slice):
            for part in (item.start, item.stop, item.step):
                if part is not None and (isinstance(part, bool) or not isinstance(part, int)):
                    fail("slice %r of dimension %d is not of integers" % (item, dim))
            if item.step is not None and item.step <= 0:
                fail("slice %r of dimension %d: the step must be positive" % (item, dim))
            for bound in (item.start, item.stop):
                if bound is not None and not -extent <= bound <= extent:
                    fail("slice %r is out of range for dimension %d of size %d"
                         % (item, dim, extent))
            picked.append(item.indices(extent))
        elif isinstance(item, int) and not isinstance(item, bool):
            if not -extent <= item < extent:
                fail("index %d is out of range for dimension %d of size %d" % (item, dim, extent))
            picked.append(item % extent)
        else:
            fail("index %r of dimension %d is not an int, a slice or ..." % (item, dim))
    return picked


def _plan(picked, shape):
    """Where the selection lies: ``(first, count, rest, exact)``. The bytes to read are rows
    ``first`` to ``first + count`` of the dimension where the selection first spans more than one
    element (``rest``: the index to apply to what is read, that dimension shifted to 0), after a
    prefix of single elements; ``exact`` when what is read is the selection itself."""
    prefix = 0
    for dim, pick in enumerate(picked):
        single = isinstance(pick, int) or len(range(*pick)) == 1
        if not single:
            break
        prefix = prefix * shape[dim] + (pick if isinstance(pick, int) else pick[0])
    else:
        dim = len(picked)
    if dim == len(picked):
        # Every dimension picks one element (or the tensor is a scalar): one element.
        return prefix, 1, None, True
    start, stop, step = picked[dim]
    count = len(range(start, stop, step))
    first = start
    span = (count - 1) * step + 1 if count else 0
    rest = [slice(0, span, step)] + [p if isinstance(p, int) else slice(*p)
                                     for p in picked[dim + 1:]]
    exact = step == 1 and all(not isinstance(p, int) and p == (0, extent, 1)
                              for p, extent in zip(picked[dim + 1:], shape[dim + 1:]))
    return prefix * shape[dim] + first, span, (dim, rest), exact


class _Slice:
    """What ``safe_open.get_slice`` returns: the tensor's shape and dtype, and ``[...]``."""

    __slots__ = ("_owner", "_info")

    def __init__(self, owner, info):
        self._owner, self._info = owner, info

    def get_shape(self):
        """The tensor's shape, as a list."""
        return list(self._info.shape)

    def get_dtype(self):
        """The tensor's dtype as the file names it (``"F32"``, ``"BF16"``...)."""
        return self._info.dtype

    def __getitem__(self, index):
        return self._owner._read_selection(self._info, index)


class _ReadAhead:
    """The tensors a loop reading whole tensors will ask for next, read before it asks.

    A loop is recognised when a whole tensor asked for (``get_tensor``, or ``get_slice`` with a
    selection of all of it) follows the previous one in key order or in offset order; from then
    on that order alone is followed, and the tensors after the farthest one asked for are read on
    the package's threads, up to the byte budget. The loop goes on while each tensor asked for was
    read ahead, is the next one, or comes before the farthest: callers on several threads (as
    ``transformers`` loads with four) ask a little out of order. Tensors the loop has been given
    are never read ahead again, so every byte is read once; one asked for twice is read again for
    the second caller, into memory of its own. Any other access pattern reads nothing ahead.
    """

    def __init__(self, owner):
        self._owner = owner
        self._lock = threading.Lock()
        self._orders = None  # (key order, offset order), and each name's place in each
        self._order = None  # the order a loop follows, once recognised
        self._front = 0  # the farthest place in that order asked for
        # Places (front, horizon] have been looked at for reading ahead; window: their bytes.
        # Each tensor enters and leaves the window once, so a loop costs O(tensors) in all.
        self._horizon = 0
        self._window = 0
        self._last = None
        self._given = set()
        self._pending = {}  # name -> future of its run's [(info, tensor)]
        self._reads = TensorReads(owner._allocator)

    def _places(self):
        if self._orders is None:
            orders = (sorted(self._owner._tensors), self._owner._offset_order)
            self._orders = tuple((order, {n: i for i, n in enumerate(order)})
                                 for order in orders)
        return self._orders

    def _follows(self, name, last):
        for order, place in self._places():
            at = place[name]
            if at > 0 and order[at - 1] == last:
                return order, place
        return None

    def take(self, name):
        """The read started early for ``name`` (a future of its run's ``[(info, tensor)]``),
        or None; starts the reads after the loop's front when a loop is going on."""
        budget = self._owner.READ_AHEAD_BYTES
        with self._lock:
            early = self._pending.pop(name, None)
            last, self._last = self._last, name
            if name in self._given:
                self._given.clear()  # a second pass over the file
            self._given.add(name)
            if budget <= 0 or last is None:
                return early
            if self._order is not None and (early is not None or
                                            self._order[1][name] <= self._front + 1):
                self._advance(self._order[1][name])
            else:
                self._order = self._follows(name, last)
                at = self._order[1][name] if self._order is not None else 0
                self._front = self._horizon = at
                self._window = 0
            if self._order is not None:
                self._start(budget)
        return early

    def _advance(self, at):
        """Move the front to place ``at`` when that is farther, out of the window."""
        order, tensors = self._order[0], self._owner._tensors
        for passed in range(self._front + 1, min(at, self._horizon) + 1):
            self._window -= tensors[order[passed]].nbytes
        self._front = max(self._front, at)
        if self._horizon < self._front:
            self._horizon, self._window = self._front, 0

    def _start(self, budget):
        if self._pending and budget - self._window < budget // 4:
            return  # too little room yet for a batch worth a call
        order, tensors = self._order[0], self._owner._tensors
        place, window, wanted = self._horizon, self._window, []
        while place + 1 < len(order):
            following = order[place + 1]
            info = tensors[following]
            if window + info.nbytes > budget:
                break
            place += 1
            window += info.nbytes
            if following not in self._pending and following not in self._given and info.nbytes:
                wanted.append(info)
        # Tensors are read in batches of a quarter of the budget or more, so that adjacent ones
        # make runs read by one call, not one call each as the loop frees room; a smaller batch
        # waits (the window is not moved) until the loop has freed more.
        if wanted and self._pending and sum(info.nbytes for info in wanted) < budget // 4:
            return
        self._horizon, self._window = place, window
        if not wanted:
            return
        reads, source = self._reads, self._owner._open_file()
        for run in reads.runs(wanted):
            try:
                future = reads.submit(source, self._owner._path, run)
            except RuntimeError:
                break  # set_num_threads is replacing the pool: read the rest when asked
            for info in run:
                self._pending[info.name] = future

    def drop(self):
        """Wait for every read started early and let its memory go."""
        with self._lock:
            pending, self._pending = set(self._pending.values()), {}
        concurrent.futures.wait(pending)


class safe_open:
    """Open a safetensors file for reading tensors one by one, as ``safetensors.safe_open``.

    ``framework`` is ``"pt"`` (PyTorch), ``"np"``/``"numpy"`` (host memory) or ``"cupy"`` (GPU
    memory); ``device`` is ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a GPU index. Opening reads the
    header only. Use it as a context manager; every call after the ``with`` block (or
    :meth:`close`) raises :class:`SafetensorError`, as do an unknown name and a bad slice.
    ``backend`` chooses how the ``safetensors`` package reads (``"mmap"``, ``"pread"``...); it is
    accepted so that callers passing it run unchanged, and reads here always go through the
    library.
    """

    def __init__(self, filename, framework="pt", device="cpu", backend=None):
        self._path = os.fspath(filename)
        self._file = None
        kind = framework_of(framework, self._path)
        where, index = device_of(device, kind, self._path)
        tensors, self._metadata = read_header(self._path)
        self._allocator = Allocator(kind, where, index, self._path)
        self._tensors = {info.name: info for info in tensors}
        self._offset_order = [info.name for info in tensors]
        self._ahead = _ReadAhead(self)
        self._file = _file.File(self._path, "r")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Release the file; the tensors already returned stay valid."""
        if self._file is not None:
            self._ahead.drop()
            self._file.close()
            self._file = None

    def __del__(self):
        if getattr(self, "_file", None) is not None:
            self.close()

    def _open_file(self):
        if self._file is None:
            raise SafetensorError("%s: the file is closed" % self._path)
        return self._file

    def _info(self, name):
        self._open_file()
        info = self._tensors.get(name) if isinstance(name, str) else None
        if info is None:
            raise SafetensorError("File does not contain tensor %s (%s)" % (name, self._path))
        return info

    def keys(self):
        """The names of the tensors, sorted."""
        self._open_file()
        return sorted(self._tensors)

    def offset_keys(self):
        """The names of the tensors in the order of their bytes in the file."""
        self._open_file()
        return list(self._offset_order)

    def metadata(self):
        """The header's ``__metadata__`` map, or ``None``."""
        self._open_file()
        return None if self._metadata is None else dict(self._metadata)

    def get_tensor(self, name):
        """The whole tensor ``name``, read straight into the framework's memory on the device.

        A loop asking for the tensors in the order of :meth:`keys` or :meth:`offset_keys` (or for
        whole tensors through :meth:`get_slice`) has the next ones read ahead of it, at most
        ``READ_AHEAD_BYTES`` beyond the one asked for.
        """
        return self._whole(self._info(name))

    def _whole(self, info):
        early = self._ahead.take(info.name)
        if early is not None:
            try:
                return next(tensor for read, tensor in early.result() if read is info)
            except Exception:
                pass  # read it alone: an error, if any, is then its own
        target = self._allocator.empty(info.name, info.dtype, info.shape)
        self._read_into(target, info, info.offset, info.nbytes)
        return target

    #: Bytes a loop in key or offset order has read ahead of it (0 reads nothing ahead).
    READ_AHEAD_BYTES = 1 << 30

    def get_slice(self, name):
        """A view of tensor ``name`` whose ``[...]`` reads only the bytes it selects."""
        return _Slice(self, self._info(name))

    def _read_into(self, target, info, offset, nbytes):
        if nbytes == 0:
            return
        got = self._open_file().read(target, nbytes, offset)
        if got != nbytes:
            raise short_read(self._path, info.name, got, nbytes, offset)

    def _read_selection(self, info, index):
        self._open_file()
        picked = _selection(index, info.shape, self._path, info.name)
        out_shape = [len(range(*p)) for p in picked if not isinstance(p, int)]
        itemsize = DTYPE_SIZES[info.dtype]
        if any(extent == 0 for extent in out_shape):
            return self._allocator.empty(info.name, info.dtype, out_shape)
        first, span, rest, exact = _plan(picked, info.shape)
        if rest is None:
            dims, row = [], 1
        else:
            dim, _ = rest
            dims = [span] + list(info.shape[dim + 1:])
            row = 1
            for extent in info.shape[dim + 1:]:
                row *= extent
        offset = info.offset + first * row * itemsize
        nbytes = span * row * itemsize
        if exact and nbytes == info.nbytes:
            # All of it, as loaders ask for with [...] or [:]: a loop of these reads ahead.
            return self._whole(info).reshape(tuple(out_shape))
        if exact:
            target = self._allocator.empty(info.name, info.dtype, out_shape)
            self._read_into(target, info, offset, nbytes)
            return target
        staged = self._allocator.empty(info.name, info.dtype, dims)
        self._read_into(staged, info, offset, nbytes)
        return self._allocator.cut(staged, tuple(rest[1]), out_shape)
