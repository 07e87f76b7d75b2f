"""hipfile.File on the host runtime: round trips, end of file, futures, threads and buffers of
each kind (NumPy and bytearray host memory, DLPack, device memory through
__cuda_array_interface__)."""

import errno
import os
import threading

import numpy as np
import pytest

import hipfile


def pattern(nbytes, seed=0):
    return np.random.default_rng(seed).integers(0, 256, nbytes, dtype=np.uint8)


def write_file(path, data):
    with open(path, "wb") as stream:
        stream.write(data.tobytes())


@pytest.mark.parametrize("size,file_offset,dev_offset", [
    (1, 0, 0), (4095, 1, 3), (4097, 4095, 1), (65537, 12345, 7), (1 << 20, 4096, 0),
    (3 * (1 << 20) + 11, 511, 4099),
])
def test_read_odd_sizes_and_offsets(workdir, size, file_offset, dev_offset):
    data = pattern(file_offset + size + 100, size)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    out = np.zeros(dev_offset + size + 5, dtype=np.uint8)
    with hipfile.File(path) as f:
        assert f.read(out, size, file_offset, dev_offset=dev_offset) == size
    assert np.array_equal(out[dev_offset:dev_offset + size], data[file_offset:file_offset + size])
    assert not out[:dev_offset].any() and not out[dev_offset + size:].any()


@pytest.mark.parametrize("size,file_offset,dev_offset", [(3, 0, 0), (4099, 8191, 5),
                                                          (2 * (1 << 20) + 1, 3, 4096)])
def test_write_then_read_back(workdir, size, file_offset, dev_offset):
    data = pattern(dev_offset + size, size + 1)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w") as f:
        assert f.write(data, size, file_offset, dev_offset=dev_offset) == size
    assert os.path.getsize(path) == file_offset + size
    with open(path, "rb") as stream:
        stream.seek(file_offset)
        assert stream.read() == data[dev_offset:].tobytes()


def test_size_defaults_to_the_rest_of_the_buffer(workdir):
    data = pattern(10000)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w+") as f:
        assert f.write(data) == 10000
        out = bytearray(10000)
        assert f.read(out, dev_offset=100) == 9900
    assert bytes(out[100:]) == data[:9900].tobytes()


def test_end_of_file(workdir):
    data = pattern(5000)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    out = np.zeros(8192, dtype=np.uint8)
    with hipfile.File(path) as f:
        assert f.read(out, 4096, 4000) == 1000
        assert np.array_equal(out[:1000], data[4000:])
        assert f.read(out, 4096, 5000) == 0
        assert f.read(out, 4096, 1 << 30) == 0
        assert f.read(out, 0, 0) == 0


def test_append_mode_keeps_the_file(workdir):
    path = os.path.join(workdir, "data.bin")
    write_file(path, pattern(100))
    with hipfile.File(path, "a") as f:
        f.write(bytearray(b"xyz"), file_offset=100)
    with open(path, "rb") as stream:
        assert stream.read() == pattern(100).tobytes() + b"xyz"


def test_futures(workdir):
    data = pattern(1 << 20)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w+") as f:
        futures = [f.pwrite(data, 1 << 16, i << 16, dev_offset=i << 16) for i in range(16)]
        assert [future.get() for future in futures] == [1 << 16] * 16
        assert all(future.done() for future in futures)
        out = np.zeros_like(data)
        futures = [f.pread(out, 1 << 16, i << 16, dev_offset=i << 16) for i in reversed(range(16))]
        assert sum(future.get() for future in futures) == 1 << 20
    assert np.array_equal(out, data)


def test_future_carries_the_error(workdir):
    path = os.path.join(workdir, "data.bin")
    write_file(path, pattern(10))
    with hipfile.File(path, "r") as f:
        future = f.pwrite(bytearray(10))
        with pytest.raises(hipfile.HipFileError) as caught:
            future.get()
        assert future.done()
    assert caught.value.name == "EBADF"


def test_close_waits_for_pending_transfers(workdir):
    data = pattern(8 << 20)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    out = np.zeros_like(data)
    f = hipfile.File(path)
    future = f.pread(out)
    f.close()
    assert future.done() and future.get() == len(data)
    assert np.array_equal(out, data)


def test_a_descriptor_closed_and_reused_behind_its_back_keeps_the_file(workdir):
    # Code that closes every descriptor it does not know (a daemon, a child before exec) may
    # close the File's, and the number comes back for another file: reads keep the first.
    first, second = pattern(1 << 20, 1), pattern(1 << 20, 2)
    path_a, path_b = os.path.join(workdir, "a.bin"), os.path.join(workdir, "b.bin")
    write_file(path_a, first)
    write_file(path_b, second)
    f = hipfile.File(path_a)
    number = f.fileno()
    os.close(number)
    other = os.open(path_b, os.O_RDONLY | os.O_CLOEXEC)
    if other != number:
        os.dup2(other, number)
        os.close(other)
    out = np.zeros_like(first)
    assert f.read(out) == len(first)
    assert np.array_equal(out, first)
    f.close()  # closes the number, the second file's now
    with hipfile.File(path_b) as g:
        assert g.read(out) == len(second)
    assert np.array_equal(out, second)


def test_threads_read_at_once(workdir):
    data = pattern(16 << 20)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    outs = [np.zeros(4 << 20, dtype=np.uint8) for _ in range(4)]
    errors = []
    with hipfile.File(path) as f:
        def worker(index):
            try:
                for _ in range(5):
                    assert f.read(outs[index], file_offset=index << 22) == 4 << 20
            except Exception as error:  # reported by the main thread
                errors.append(error)
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors
    assert np.array_equal(np.concatenate(outs), data)


def test_the_gil_is_released_during_io(workdir):
    data = pattern(64 << 20)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    out = np.zeros_like(data)
    done = threading.Event()
    with hipfile.File(path) as f:
        def reader():
            for _ in range(4):
                f.read(out)
            done.set()
        thread = threading.Thread(target=reader)
        thread.start()
        spins = 0
        while not done.is_set():
            spins += 1
        thread.join()
    # With the GIL held through each read, this loop could run only between reads.
    assert spins > 10000


def test_device_memory_through_cuda_array_interface(workdir, device_array):
    data = pattern(3 * 4096 + 17)
    path = os.path.join(workdir, "data.bin")
    source = device_array(len(data))
    source.upload(bytearray(data.tobytes()))
    with hipfile.File(path, "w+") as f:
        assert f.write(source) == len(data)
        target = device_array(len(data) + 4096 + 3, "<f4")
        assert f.read(target, len(data), 0, dev_offset=4096) == len(data)
        with pytest.raises(hipfile.HipFileError) as caught:
            f.read(target, len(data) + 4, 0, dev_offset=4096)
        assert caught.value.code == hipfile.CODES["hipFileInvalidValue"]
    assert target.download()[4096:4096 + len(data)] == data.tobytes()
    assert hipfile.stats()["read_bytes"] >= len(data)


def test_dlpack_host_tensor(workdir):
    class OnlyDLPack:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    if not hasattr(np.ndarray, "__dlpack__"):
        pytest.skip("this NumPy has no DLPack export")
    data = pattern(4096 * 3).view(np.int32).reshape(48, 64)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w+") as f:
        assert f.write(OnlyDLPack(data)) == data.nbytes
        out = np.zeros_like(data)
        assert f.read(OnlyDLPack(out)) == data.nbytes
        with pytest.raises(hipfile.HipFileError, match="not contiguous"):
            f.read(OnlyDLPack(out[:, ::2]))
    assert np.array_equal(out, data)


def fill_periodic(buffer, block):
    """buffer[i] = block[i % len(block)], a chunk at a time."""
    for start in range(0, len(buffer), len(block)):
        chunk = buffer[start:start + len(block)]
        chunk[:] = block[:len(chunk)]


def matches_periodic(buffer, block):
    rows = len(buffer) // len(block)
    for first in range(0, rows, 256):
        last = min(first + 256, rows)
        view = buffer[first * len(block):last * len(block)].reshape(last - first, len(block))
        if not (view == block).all():
            return False
    tail = buffer[rows * len(block):]
    return bool(np.array_equal(tail, block[:len(tail)]))


def test_buffer_over_2_gib_in_one_call(workdir):
    size = (2 << 30) + 4099
    block = (np.arange(251 * 4096) % 251).astype(np.uint8)
    buffer = np.empty(size, dtype=np.uint8)
    fill_periodic(buffer, block)
    path = os.path.join(workdir, "large.bin")
    try:
        with hipfile.File(path, "w+") as f:
            assert f.write(buffer) == size
            buffer[:] = 0
            assert f.read(buffer) == size
        assert matches_periodic(buffer, block)
    finally:
        os.unlink(path)


def test_dlpack_device_tensor(workdir, device_array):
    """A DLPack exporter on a CUDA device, built here over host-runtime device memory."""
    import ctypes

    from hipfile import _buffers

    class ManagedTensor(ctypes.Structure):
        _fields_ = [("dl_tensor", _buffers._DLTensor), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", ctypes.c_void_p)]

    class DeviceDLPack:
        def __init__(self, memory, elements):
            self.memory = memory
            self.shape = (ctypes.c_int64 * 1)(elements)
            self.managed = ManagedTensor()
            tensor = self.managed.dl_tensor
            tensor.data = memory.pointer
            tensor.device.device_type, tensor.device.device_id = 2, 0  # kDLCUDA
            tensor.ndim = 1
            tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes = 2, 32, 1  # float32
            tensor.shape = self.shape

        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            new = ctypes.pythonapi.PyCapsule_New
            new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                           ctypes.c_void_p]
            return new(ctypes.addressof(self.managed), b"dltensor", None)

    data = pattern(4096 * 4, 9)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    memory = device_array(len(data))
    exporter = DeviceDLPack(memory, len(data) // 4)
    with _buffers.resolve(exporter, True, "read") as resolved:
        assert resolved.device and resolved.nbytes == len(data)
        assert resolved.address == memory.pointer
    with hipfile.File(path) as f:
        assert f.read(exporter) == len(data)
    assert memory.download() == data.tobytes()


# KvikIO's signatures: read(buf, size=None, file_offset=0, task_size=None), dev_offset by keyword.
@pytest.mark.parametrize("nbytes,task_size", [(3000, 1), (3000, 7), ((1 << 20) + 12345, 4096),
                                              ((1 << 20) + 12345, 65536 + 3),
                                              ((1 << 20) + 12345, 1 << 20)])
def test_task_size_cuts_a_request_into_tasks_exactly(workdir, nbytes, task_size):
    data = pattern(nbytes, task_size)
    path = os.path.join(workdir, "data.bin")
    size = len(data) - 1000
    with hipfile.File(path, "w+") as f:
        # The fourth positional argument is task_size, as in kvikio.CuFile.
        assert f.write(data, size, 0, task_size) == size
        out = np.zeros(len(data), dtype=np.uint8)
        assert f.read(out, size, 0, task_size) == size
        assert np.array_equal(out[:size], data[:size]) and not out[size:].any()
        # Tasks past the end of the file read nothing; the total is what the file holds.
        out[:] = 0
        assert f.pread(out, len(data), 500, task_size).get() == size - 500
        assert np.array_equal(out[:size - 500], data[500:size])


def test_task_size_with_dev_offset_and_a_write_future(workdir):
    data = pattern(300000, 5)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w+") as f:
        future = f.pwrite(data, 200000, 7, 4096, dev_offset=100)
        assert future.get() == 200000 and future.done()
        out = np.zeros(250000, dtype=np.uint8)
        assert f.read(out, 200000, 7, 65536, dev_offset=50000) == 200000
    assert np.array_equal(out[50000:250000], data[100:200100])


def test_dev_offset_is_keyword_only(workdir):
    path = os.path.join(workdir, "data.bin")
    write_file(path, pattern(100))
    with hipfile.File(path) as f:
        for call in (f.read, f.pread, f.write, f.pwrite):
            with pytest.raises(TypeError):
                call(bytearray(100), 10, 0, None, 5)


def test_a_failed_task_fails_the_whole_request(workdir):
    path = os.path.join(workdir, "data.bin")
    write_file(path, pattern(100000))
    with hipfile.File(path) as f:
        # The tasks at negative offsets fail in the library; get() raises once all have ended.
        with pytest.raises(hipfile.HipFileError) as caught:
            f.read(bytearray(100000), 100000, -50000, 10000)
        assert caught.value.name == "EINVAL"


def test_raw_read_and_raw_write_are_one_call_with_dev_offset(workdir):
    data = pattern(70000, 9)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w+") as f:
        assert f.raw_write(data, 60000, 11, 5) == 60000
        out = np.zeros(70000, dtype=np.uint8)
        assert f.raw_read(out, 60000, 11, 3) == 60000
        assert f.raw_read(out, 10, 1 << 20) == 0
    assert np.array_equal(out[3:60003], data[5:60005])


def test_readv_fills_buffers_in_order_and_stops_at_the_end(workdir):
    data = pattern(3 << 20, 17)
    path = os.path.join(workdir, "data.bin")
    write_file(path, data)
    sizes = [1, 4096, 0, 1000003, 7, 65536]
    outs = [np.zeros(n, dtype=np.uint8) for n in sizes]
    with hipfile.File(path) as f:
        assert f.readv(outs, 12345) == sum(sizes)
        at = 12345
        for out in outs:
            assert np.array_equal(out, data[at:at + out.size])
            at += out.size
        tail = [np.zeros(100, dtype=np.uint8), np.zeros(100, dtype=np.uint8)]
        assert f.readv(tail, len(data) - 150) == 150
        assert np.array_equal(tail[0], data[-150:-50])
        assert np.array_equal(tail[1][:50], data[-50:]) and not tail[1][50:].any()
        assert f.readv([], 0) == 0


def test_readv_of_more_than_1024_buffers_and_writev_back(workdir):
    data = pattern(1 << 20, 5)
    path = os.path.join(workdir, "data.bin")
    with hipfile.File(path, "w+") as f:
        pieces = [data[i:i + 300] for i in range(0, 3000 * 300, 300)]
        assert f.writev(pieces, 10) == 3000 * 300
        outs = [np.zeros(300, dtype=np.uint8) for _ in range(3000)]
        assert f.readv(outs, 10) == 3000 * 300
    assert np.array_equal(np.concatenate(outs), data[:3000 * 300])
    with open(path, "rb") as stream:
        assert stream.read() == bytes(10) + data[:3000 * 300].tobytes()


def test_readv_and_writev_refuse_bad_arguments(workdir):
    path = os.path.join(workdir, "data.bin")
    write_file(path, pattern(4096, 1))
    f = hipfile.File(path)
    with pytest.raises(TypeError, match="sequence of buffers"):
        f.readv(np.zeros(10, dtype=np.uint8))
    with pytest.raises(hipfile.HipFileError) as error:
        f.readv([np.zeros(10, dtype=np.uint8)], -1)
    assert error.value.errno == errno.EINVAL
    with pytest.raises(hipfile.HipFileError):
        f.readv([bytes(10)])  # read-only memory cannot be read into
    with pytest.raises(hipfile.HipFileError) as error:
        f.writev([np.zeros(10, dtype=np.uint8)])  # opened for reading only
    assert error.value.errno == errno.EBADF
    f.close()
    with pytest.raises(hipfile.HipFileError, match="closed"):
        f.readv([np.zeros(10, dtype=np.uint8)])
