"""The parts of KvikIO's Python API beyond ``CuFile``'s reads and writes, on the host runtime:
memory registration, whether a file takes O_DIRECT, and the page-cache helpers."""

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
