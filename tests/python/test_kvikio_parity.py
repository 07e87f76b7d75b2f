"""The parts of KvikIO's Python API beyond ``CuFile``'s reads and writes, on the host runtime:
memory registration, whether a file takes O_DIRECT, and the page-cache helpers."""

import ctypes
import errno
import os
import subprocess
import warnings

import numpy as np
import pytest

import hipfile
from hipfile import _page_cache

PAGE = os.sysconf("SC_PAGESIZE")


def on_tmpfs(path):
    found = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True)
    return found.stdout.strip() == "tmpfs"


@pytest.fixture
def data_file(workdir):
    path = os.path.join(workdir, "cached.bin")
    size = 64 * PAGE + 100
    with open(path, "wb") as stream:
        stream.write(np.random.default_rng(1).integers(0, 256, size, dtype=np.uint8).tobytes())
        stream.flush()
        os.fsync(stream.fileno())
    if on_tmpfs(path):
        pytest.skip("the test directory is on tmpfs, whose pages cannot be dropped")
    return path, size


@pytest.mark.parametrize("kernel", ["cachestat", "mincore"])
def test_page_cache_info_follows_what_is_read_and_dropped(data_file, monkeypatch, kernel):
    if kernel == "mincore":  # a kernel before Linux 6.5
        monkeypatch.setattr(_page_cache, "_cached_pages_cachestat", lambda fd, size: None)
    path, size = data_file
    total = (size + PAGE - 1) // PAGE
    hipfile.drop_file_page_cache(path)
    assert hipfile.get_page_cache_info(path) == (0, total)
    with open(path, "rb") as stream:
        stream.read(16 * PAGE)
        cached, pages = hipfile.get_page_cache_info(stream)  # a file object
    assert pages == total and 16 <= cached < total
    fd = os.open(path, os.O_RDONLY)
    try:
        os.read(fd, size)
        assert hipfile.get_page_cache_info(fd) == (total, total)  # a descriptor
        # Only the pages wholly inside the range leave.
        hipfile.drop_file_page_cache(fd, 32 * PAGE, 0, sync_first=False)
        assert hipfile.get_page_cache_info(fd) == (32, total)
        hipfile.drop_file_page_cache(fd, 0, 8 * PAGE + 1)
        assert hipfile.get_page_cache_info(fd) == (24, total)
    finally:
        os.close(fd)


def test_page_cache_helpers_refuse_what_they_cannot_take(workdir):
    empty = os.path.join(workdir, "empty.bin")
    open(empty, "wb").close()
    assert hipfile.get_page_cache_info(empty) == (0, 0)
    with pytest.raises(FileNotFoundError):
        hipfile.get_page_cache_info(os.path.join(workdir, "missing.bin"))
    with pytest.raises(TypeError, match="get_page_cache_info: file must be a path"):
        hipfile.get_page_cache_info(3.5)
    with pytest.raises(ValueError, match="offset must be an integer 0 or more"):
        hipfile.drop_file_page_cache(empty, -1)
    with pytest.raises(ValueError, match="length must be an integer 0 or more"):
        hipfile.drop_file_page_cache(empty, 0, True)


def test_drop_system_page_cache_writes_drop_caches_or_says_it_could_not(workdir, monkeypatch):
    target = os.path.join(workdir, "drop_caches")
    monkeypatch.setattr(_page_cache, "_DROP_CACHES", target)
    assert hipfile.drop_system_page_cache(sync_first=False) is True
    assert open(target).read() == "3"
    assert hipfile.drop_system_page_cache(reclaim_dentries_and_inodes=False) is True
    assert open(target).read() == "1"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert hipfile.clear_page_cache() is True
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    # Neither the file nor sudo: False, not an exception.
    monkeypatch.setattr(_page_cache, "_DROP_CACHES", os.path.join(workdir, "no", "such"))
    monkeypatch.setattr(_page_cache.shutil, "which", lambda *args, **kwargs: None)
    assert hipfile.drop_system_page_cache(sync_first=False) is False


def test_memory_register_and_deregister(workdir, device_array):
    path = os.path.join(workdir, "registered.bin")
    payload = bytes(range(256)) * 64
    with open(path, "wb") as stream:
        stream.write(payload)
    dev = device_array(len(payload))
    hipfile.memory_register(dev)
    try:
        with pytest.raises(hipfile.HipFileError):
            hipfile.memory_register(dev)  # registered already
        with hipfile.File(path, "r") as f:
            assert f.read(dev) == len(payload)
        assert dev.download() == payload
    finally:
        hipfile.memory_deregister(dev)
    with pytest.raises(hipfile.HipFileError):
        hipfile.memory_deregister(dev)  # no longer registered
    with pytest.raises(hipfile.HipFileError, match="memory_register"):
        hipfile.memory_register(object())


def test_is_direct_io_supported(data_file, workdir):
    path, _ = data_file
    for mode in ("r", "r+", "a"):
        with hipfile.File(path, mode) as f:
            assert f.is_direct_io_supported() is True, mode
    f = hipfile.File(path, "r")
    f.close()
    with pytest.raises(hipfile.HipFileError, match="closed"):
        f.is_direct_io_supported()


def test_defaults_get_set_and_set_as_a_context_manager(workdir):
    from hipfile import defaults

    assert defaults.get("num_threads") == hipfile.num_threads() == defaults.num_threads()
    with defaults.set("num_threads", 3):
        assert hipfile.num_threads() == 3
    assert hipfile.num_threads() == 16
    # Not as a context manager, the change stays.
    defaults.set({"num_threads": 5})
    assert defaults.num_threads() == 5
    defaults.set("num_threads", 16)

    assert defaults.compat_mode() == defaults.CompatMode.AUTO
    for value, mode, allow, force in (("on", defaults.CompatMode.ON, True, True),
                                      (False, defaults.CompatMode.OFF, False, False),
                                      ("AUTO", defaults.CompatMode.AUTO, True, False)):
        with defaults.set("compat_mode", value):
            assert defaults.get("compat_mode") == mode
            assert hipfile.get_parameter("properties.allow_compat_mode") is allow
            assert hipfile.get_parameter("properties.force_compat_mode") is force
        assert defaults.compat_mode() == defaults.CompatMode.AUTO

    assert defaults.bounce_buffer_size() == hipfile.get_parameter(
        "properties.per_buffer_cache_size_kb") * 1024
    assert defaults.http_status_codes() == [429] + list(range(500, 600))
    with defaults.set("http_status_codes", reversed(defaults.http_status_codes())):
        pass  # the same set: accepted


def test_defaults_task_size_cuts_requests_that_pass_none(workdir):
    from hipfile import defaults

    path = os.path.join(workdir, "tasks.bin")
    payload = bytes(range(256)) * 40  # 10240 bytes
    with open(path, "wb") as stream:
        stream.write(payload)
    out = bytearray(len(payload))
    with hipfile.File(path, "r") as f:
        before = hipfile.stats()["read_ops"]["ok"]
        assert f.read(out) == len(payload)
        assert hipfile.stats()["read_ops"]["ok"] - before == 1
        with defaults.set("task_size", 4096):
            assert defaults.task_size() == 4096
            before = hipfile.stats()["read_ops"]["ok"]
            assert f.pread(out).get() == len(payload)
            assert hipfile.stats()["read_ops"]["ok"] - before == 3  # 4096 + 4096 + 2048
            assert f.read(out, task_size=8192) == len(payload)  # given: it wins
        assert defaults.task_size() is None
    assert bytes(out) == payload


def test_defaults_http_settings_become_open_options(monkeypatch):
    from hipfile import _file, defaults

    url = "http://example.invalid/object"
    assert defaults.http_max_attempts() is None and defaults.http_timeout() is None
    with defaults.set({"http_max_attempts": 5, "http_timeout": 2.5}):
        assert defaults.http_max_attempts() == 5 and defaults.http_timeout() == 2.5
        assert _file._remote_options(None, url) == "retries=4;request_timeout_ms=2500"
        # The URL's own options win, as text or as a mapping.
        assert _file._remote_options({"retries": 0, "tls_verify": False}, url) == \
            "retries=0;request_timeout_ms=2500;tls_verify=false"
        assert _file._remote_options("connections=2; retries=1", url) == \
            "retries=1;request_timeout_ms=2500;connections=2"
    assert _file._remote_options(None, url) == ""
    assert defaults.http_max_attempts() is None


def test_defaults_refuse_what_means_something_else_here(workdir):
    from hipfile import defaults

    for name in ("gds_threshold", "auto_direct_io_read", "auto_direct_io_write"):
        with pytest.raises(ValueError, match="%r has no counterpart here" % name):
            defaults.get(name)
        with pytest.raises(ValueError, match="no counterpart"):
            defaults.set(name, 0)
    with pytest.raises(ValueError, match="no counterpart"):
        defaults.gds_threshold()
    with pytest.raises(ValueError, match="unknown setting 'nthreads'"):
        defaults.set("nthreads", 4)
    with pytest.raises(ValueError, match="compat_mode must be"):
        defaults.set("compat_mode", "sometimes")
    with pytest.raises(ValueError, match="task_size must be a positive integer"):
        defaults.set("task_size", 0)
    with pytest.raises(ValueError, match="multiple of 4096"):
        defaults.set("bounce_buffer_size", 5000)
    with pytest.raises(ValueError, match="http_status_codes cannot be changed"):
        defaults.set("http_status_codes", [503])
    with pytest.raises(TypeError, match="takes"):
        defaults.set("num_threads")
    # A refused value puts back the ones changed before it.
    with pytest.raises(ValueError, match="task_size"):
        defaults.set({"num_threads": 2, "task_size": -1})
    assert defaults.num_threads() == 16
    # A URL's options: a mapping or text, nothing else.
    with pytest.raises(TypeError, match="options must be a mapping"):
        hipfile.File("http://example.invalid/object", "r", options=["retries=1"])


@pytest.mark.parametrize("dtype", ["u1", "int64", "float32", "float64"])
def test_numpy_fromfile_and_tofile_as_numpy_has_them(workdir, dtype):
    from hipfile import numpy as hnp

    path = os.path.join(workdir, "array.bin")
    src = np.arange(100, dtype=dtype)
    hnp.tofile(src, path)
    assert np.array_equal(np.fromfile(path, dtype=dtype), src)
    assert np.array_equal(hnp.fromfile(path, dtype), src)
    hnp.tofile(src[::2], path)  # strided: written contiguous, the file replaced
    assert np.array_equal(hnp.fromfile(path, dtype=dtype), src[::2])
    item = np.dtype(dtype).itemsize
    part = hnp.fromfile(path, dtype, count=10, offset=3 * item)
    assert part.dtype == np.dtype(dtype) and np.array_equal(part, src[::2][3:13])
    with open(path, "rb") as stream:  # a file object with a name
        assert np.array_equal(hnp.fromfile(stream, dtype), src[::2])
    # NumPy's own fromfile, sent here by like=.
    got = np.fromfile(path, dtype=dtype, like=hnp.LikeWrapper(np.empty(())))
    assert isinstance(got, np.ndarray) and np.array_equal(got, src[::2])
    assert np.array_equal(np.arange(3, like=hnp.LikeWrapper(np.empty(()))), np.arange(3))


def test_numpy_fromfile_and_tofile_refuse_what_they_cannot_do(workdir):
    from hipfile import numpy as hnp

    path = os.path.join(workdir, "small.bin")
    hnp.tofile(np.arange(10, dtype=np.int32), path)
    with pytest.raises(ValueError, match="holds 10 items of int32 after byte 0, not 11"):
        hnp.fromfile(path, np.int32, count=11)
    with pytest.raises(ValueError, match="reads text"):
        hnp.fromfile(path, sep=",")
    with pytest.raises(ValueError, match="writes text"):
        hnp.tofile(np.arange(3), path, sep=" ")
    with pytest.raises(ValueError, match="offset must be"):
        hnp.fromfile(path, np.int32, offset=-4)
    with pytest.raises(TypeError, match="file must be a path"):
        hnp.fromfile(12, np.int32)
    with pytest.raises(TypeError, match="like must be a NumPy or CuPy array"):
        hnp.fromfile(path, np.int32, like=[1, 2])
    assert hnp.fromfile(path, np.int32, offset=40).size == 0
    hnp.tofile(np.zeros(0, dtype=np.int8), path)
    assert os.path.getsize(path) == 0


@pytest.fixture
def mapped_file(workdir):
    path = os.path.join(workdir, "mapped.bin")
    data = np.random.default_rng(4).integers(0, 256, 3 * 65536 + 777, dtype=np.uint8)
    data.tofile(path)
    return path, data


def test_mmap_reads_its_region_into_host_and_device_memory(mapped_file, device_array):
    path, data = mapped_file
    with hipfile.Mmap(path) as m:
        assert m.initial_map_size() == data.size and m.initial_map_offset() == 0
        assert m.file_size() == data.size and not m.closed()
        out = np.zeros(data.size, dtype=np.uint8)
        assert m.read(out) == data.size and np.array_equal(out, data)
        part = np.zeros(1000, dtype=np.uint8)
        assert m.read(part, 1000, 70000) == 1000 and np.array_equal(part, data[70000:71000])
        out[:] = 0
        assert m.pread(out, task_size=4096).get() == data.size and np.array_equal(out, data)
        dev = device_array(data.size)
        assert m.read(dev) == data.size
        assert dev.download() == data.tobytes()
    assert m.closed() and m.file_size() == 0
    with pytest.raises(RuntimeError, match="closed"):
        m.read(out)
    m.close()  # again: nothing


def test_mmap_of_a_region_not_on_a_page_boundary(mapped_file):
    path, data = mapped_file
    with hipfile.Mmap(path, initial_map_size=5000, initial_map_offset=65536 + 123) as m:
        out = np.zeros(5000, dtype=np.uint8)
        # Offsets are file offsets, as in KvikIO: the default 0 lies outside this region.
        with pytest.raises(IndexError, match="outside the mapped region"):
            m.read(out)
        assert m.read(out, offset=65659) == 5000 and np.array_equal(out, data[65659:70659])
        small = np.zeros(10, dtype=np.uint8)
        assert m.read(small, 10, 70649) == 10 and np.array_equal(small, data[70649:70659])
        with pytest.raises(IndexError, match="outside the mapped region"):
            m.read(small, 10, 70650)
        with pytest.raises(IndexError, match="outside the mapped region"):
            m.read(small, 10, 65536)
        with pytest.raises(IndexError, match="do not fit"):
            m.read(small, 100, 65659)


def test_mmap_refuses_what_it_cannot_map(mapped_file, workdir):
    path, data = mapped_file
    with pytest.raises(ValueError, match="only \"r\" exists"):
        hipfile.Mmap(path, "w")
    with pytest.raises(IndexError, match="run past the end"):
        hipfile.Mmap(path, initial_map_size=data.size + 1)
    with pytest.raises(IndexError, match="initial_map_offset"):
        hipfile.Mmap(path, initial_map_offset=data.size + 1)
    with pytest.raises(FileNotFoundError):
        hipfile.Mmap(os.path.join(workdir, "missing.bin"))
    empty = os.path.join(workdir, "empty.bin")
    open(empty, "wb").close()
    with hipfile.Mmap(empty) as m:
        assert m.initial_map_size() == 0
        assert m.read(np.zeros(0, dtype=np.uint8)) == 0


# Stream-ordered transfers (raw_read_async/raw_write_async) on the host runtime's streams.
class _Stream:
    """A stream of the host runtime, shown as PyTorch shows one (``cuda_stream``), with a
    ``synchronize`` that counts its calls."""

    def __init__(self, runtime):
        self.lib = runtime.lib
        handle = ctypes.c_void_p()
        self.lib.hipStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        assert self.lib.hipStreamCreate(ctypes.byref(handle)) == 0
        self.cuda_stream = handle.value
        self.synced = 0

    def synchronize(self):
        self.lib.hipStreamSynchronize.argtypes = [ctypes.c_void_p]
        assert self.lib.hipStreamSynchronize(ctypes.c_void_p(self.cuda_stream)) == 0
        self.synced += 1

    def destroy(self):
        self.lib.hipStreamDestroy.argtypes = [ctypes.c_void_p]
        self.lib.hipStreamDestroy(ctypes.c_void_p(self.cuda_stream))


def test_raw_async_reads_and_writes_on_a_stream(workdir, device_array, host_runtime):
    data = os.urandom(3 << 20)
    path = os.path.join(workdir, "stream.bin")
    with open(path, "wb") as out:
        out.write(data)
    stream = _Stream(host_runtime)
    try:
        dev = device_array(4 << 20)
        with hipfile.File(path, "r+") as f:
            future = f.raw_read_async(dev, stream, 1 << 20, 4096, 100)
            assert isinstance(future, hipfile.IOFutureStream)
            assert future.check_bytes_done() == 1 << 20
            assert stream.synced == 1
            assert future.check_bytes_done() == 1 << 20 and stream.synced == 1
            assert dev.download()[100:100 + (1 << 20)] == data[4096:4096 + (1 << 20)]
            # A raw handle is waited for through the runtime the library uses.
            back = f.raw_write_async(dev, stream.cuda_stream, 1 << 20, 5 << 20, 100)
            assert back.check_bytes_done() == 1 << 20
            # The default stream, and the end of the file: fewer bytes, as a read gives.
            tail = f.raw_read_async(dev, None, 2 << 20, (6 << 20) - 10)
            assert tail.check_bytes_done() == 10
        with open(path, "rb") as result:
            written = result.read()
        assert written[5 << 20:(5 << 20) + (1 << 20)] == data[4096:4096 + (1 << 20)]
    finally:
        stream.destroy()


def test_raw_async_errors(workdir, device_array, host_runtime):
    path = os.path.join(workdir, "stream.bin")
    with open(path, "wb") as out:
        out.write(bytes(4096))
    dev = device_array(4096)
    with hipfile.File(path, "r") as f:
        with pytest.raises(TypeError, match="stream"):
            f.raw_read_async(dev, "stream 0")
        with pytest.raises(TypeError, match="stream"):
            f.raw_read_async(dev, True)
        with pytest.raises(hipfile.HipFileError, match="buffer too small"):
            f.raw_read_async(dev, None, 8192)
        # Opened for reading: the write fails when the stream runs it, and says so there.
        future = f.raw_write_async(dev, None)
        with pytest.raises(hipfile.HipFileError) as error:
            future.check_bytes_done()
        assert error.value.errno == errno.EBADF
        pending = f.raw_read_async(dev, None)
    # close() waited for the read the caller never collected.
    assert pending.done() and pending.check_bytes_done() == 4096
    with pytest.raises(hipfile.HipFileError, match="closed"):
        f.raw_read_async(dev, None)
