"""Fixtures of the Python package's tests, run by ctest (tests/python/CMakeLists.txt) on the host
runtime: HIPFILE_LIBRARY names the built library, HIPFILE_TEST_HOST_RUNTIME the host runtime
library, HIPFILE_TEST_DIR a directory on disk for the files the tests write."""

import ctypes
import os
import shutil

import pytest


class HostRuntime:
    """hipMalloc, hipFree and hipMemcpy of the host runtime the library itself loaded."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.hipMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self.lib.hipFree.argtypes = [ctypes.c_void_p]
        self.lib.hipMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                       ctypes.c_int]
        for name in ("hipMalloc", "hipFree", "hipMemcpy"):
            getattr(self.lib, name).restype = ctypes.c_int


class DeviceArray:
    """Device memory from the host runtime's hipMalloc, shown through
    ``__cuda_array_interface__`` as a CuPy or PyTorch tensor would show it."""

    _MEMCPY_DEFAULT = 4

    def __init__(self, runtime, nbytes, typestr="|u1"):
        self.runtime = runtime
        self.nbytes = nbytes
        self.typestr = typestr
        pointer = ctypes.c_void_p()
        assert runtime.lib.hipMalloc(ctypes.byref(pointer), nbytes) == 0
        self.pointer = pointer.value

    @property
    def __cuda_array_interface__(self):
        itemsize = int(self.typestr[2:])
        return {"shape": (self.nbytes // itemsize,), "typestr": self.typestr,
                "data": (self.pointer, False), "version": 3, "strides": None, "stream": None}

    def upload(self, host):
        view = (ctypes.c_char * len(host)).from_buffer(host)
        assert self.runtime.lib.hipMemcpy(self.pointer, view, len(host),
                                          self._MEMCPY_DEFAULT) == 0

    def download(self):
        host = bytearray(self.nbytes)
        view = (ctypes.c_char * self.nbytes).from_buffer(host)
        assert self.runtime.lib.hipMemcpy(view, self.pointer, self.nbytes,
                                          self._MEMCPY_DEFAULT) == 0
        return bytes(host)

    def free(self):
        if self.pointer:
            self.runtime.lib.hipFree(self.pointer)
            self.pointer = None


@pytest.fixture(scope="module")
def host_runtime():
    path = os.environ.get("HIPFILE_TEST_HOST_RUNTIME")
    if not path:
        pytest.fail("HIPFILE_TEST_HOST_RUNTIME is not set; run the tests through ctest")
    return HostRuntime(path)


@pytest.fixture
def device_array(host_runtime):
    made = []

    def make(nbytes, typestr="|u1"):
        array = DeviceArray(host_runtime, nbytes, typestr)
        made.append(array)
        return array

    yield make
    for array in made:
        array.free()


@pytest.fixture
def workdir(tmp_path_factory, request):
    base = os.environ.get("HIPFILE_TEST_DIR")
    if not base:
        return tmp_path_factory.mktemp("hipfile")
    path = os.path.join(base, request.node.name.replace("/", "_").replace("[", "_")
                        .replace("]", ""))
    # Left from an earlier run: files, and the directories checkpoints are written into.
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path
