"""What a buffer argument is: its address, its size and whether it is GPU or host memory.

GPU memory is an object with ``__cuda_array_interface__`` (PyTorch, CuPy, Numba) or a DLPack
exporter whose device is CUDA or ROCm; host memory is anything with the buffer protocol (NumPy,
bytearray, memoryview) or a DLPack exporter on the CPU (a PyTorch CPU tensor).
"""

import ctypes

from . import _driver
from ._errors import CODES, HipFileError

_INVALID = CODES["hipFileInvalidValue"]

# DLPack device types (dlpack.h).
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_ROCM, _DL_ROCM_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 10, 11, 13
_DL_GPU = (_DL_CUDA, _DL_ROCM, _DL_CUDA_MANAGED)
_DL_HOST = (_DL_CPU, _DL_CUDA_HOST, _DL_ROCM_HOST)

_PYBUF_WRITABLE = 0x1


class _PyBuffer(ctypes.Structure):
    """Py_buffer, the C struct of the buffer protocol."""

    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_char_p),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    """DLTensor, the first member of the DLManagedTensor a DLPack capsule holds."""

    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_api = ctypes.pythonapi
_api.PyObject_GetBuffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_api.PyObject_GetBuffer.restype = ctypes.c_int
_api.PyBuffer_Release.argtypes = [ctypes.POINTER(_PyBuffer)]
_api.PyBuffer_Release.restype = None
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p


class Buffer:
    """A resolved buffer: ``address``, ``nbytes``, ``device`` (True for GPU memory).

    Holds what keeps the memory valid (the exported buffer view or the DLPack capsule) until
    :meth:`release`; use it as a context manager.
    """

    __slots__ = ("address", "nbytes", "device", "_view", "_keep")

    def __init__(self, address, nbytes, device, view=None, keep=None):
        self.address = address
        self.nbytes = nbytes
        self.device = device
        self._view = view
        self._keep = keep

    def release(self):
        """Give the exported view back to its owner; the address is invalid after."""
        if self._view is not None:
            _api.PyBuffer_Release(ctypes.byref(self._view))
            self._view = None
        self._keep = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def _contiguous(shape, strides, itemsize):
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _product(values):
    result = 1
    for value in values:
        result *= int(value)
    return result


def _from_cuda_array_interface(obj, writable, operation):
    cai = obj.__cuda_array_interface__
    address, readonly = cai["data"]
    if writable and readonly:
        raise HipFileError(_INVALID, operation, "the GPU buffer is read-only")
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is not None and not _contiguous(shape, strides, itemsize):
        raise HipFileError(_INVALID, operation, "the GPU buffer is not contiguous")
    _synchronize_producer(obj, cai)
    return Buffer(address or 0, _product(shape) * itemsize, True, keep=obj)


def _synchronize_producer(obj, cai):
    # The interface (version 3) says a consumer must wait for the producer's stream before it
    # touches the data: work queued on it (a fill, a kernel writing the tensor) may still run.
    if cai.get("stream") is None:
        return
    module = type(obj).__module__.split(".")[0]
    if module == "torch":
        import torch

        torch.cuda.current_stream(obj.device).synchronize()
    elif module == "cupy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def _from_dlpack(obj, writable, operation):
    capsule = obj.__dlpack__()
    pointer = _api.PyCapsule_GetPointer(capsule, b"dltensor")
    tensor = _DLTensor.from_address(pointer)
    ndim = tensor.ndim
    shape = [tensor.shape[i] for i in range(ndim)]
    itemsize = (tensor.dtype.bits * tensor.dtype.lanes + 7) // 8
    if tensor.strides:
        strides = [tensor.strides[i] * itemsize for i in range(ndim)]
        if not _contiguous(shape, strides, itemsize):
            raise HipFileError(_INVALID, operation, "the DLPack tensor is not contiguous")
    device = tensor.device.device_type in _DL_GPU
    address = (tensor.data or 0) + tensor.byte_offset
    # The capsule keeps the tensor (and its memory) alive; its destructor frees it once unused.
    return Buffer(address, _product(shape) * itemsize, device, keep=(obj, capsule))


def _from_torch_cpu(obj, operation):
    # A PyTorch CPU tensor has no buffer protocol, and the DLPack export of older PyTorch (1.13)
    # refuses bool and float8 tensors; its own pointer and size serve every dtype.
    if not obj.is_contiguous():
        raise HipFileError(_INVALID, operation, "the tensor is not contiguous")
    return Buffer(obj.data_ptr(), obj.numel() * obj.element_size(), False, keep=obj)


def _from_buffer_protocol(obj, writable, operation):
    view = _PyBuffer()
    flags = _PYBUF_WRITABLE if writable else 0
    try:
        _api.PyObject_GetBuffer(obj, ctypes.byref(view), flags)
    except (BufferError, ValueError) as error:
        raise HipFileError(_INVALID, operation, "host buffer unusable: %s" % error) from None
    return Buffer(view.buf or 0, view.len, False, view=view)


def resolve(obj, writable, operation):
    """The :class:`Buffer` of ``obj``; ``writable`` when the data will be stored into it.

    Raises :class:`HipFileError` (``hipFileInvalidValue``) for an object that is none of the
    supported kinds, a read-only buffer to read into, or memory that is not contiguous.
    """
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj, writable, operation)
    if type(obj).__module__.split(".")[0] == "torch" and getattr(obj, "is_cpu", False):
        buffer = _from_torch_cpu(obj, operation)
        _driver.allow_host_memory()
        return buffer
    dlpack_device = None
    if hasattr(obj, "__dlpack_device__"):
        dlpack_device = obj.__dlpack_device__()[0]
        if dlpack_device in _DL_GPU:
            return _from_dlpack(obj, writable, operation)
    try:
        buffer = _from_buffer_protocol(obj, writable, operation)
    except TypeError:
        if dlpack_device not in _DL_HOST:
            raise HipFileError(_INVALID, operation, "%s is neither GPU memory "
                               "(__cuda_array_interface__, DLPack) nor host memory (buffer "
                               "protocol)" % type(obj).__name__) from None
        buffer = _from_dlpack(obj, writable, operation)
    if not buffer.device:
        _driver.allow_host_memory()
    return buffer
