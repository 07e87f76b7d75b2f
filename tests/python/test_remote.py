"""hipfile.File on URLs: http:// objects served by the nginx of the ctest fixture remote_nginx
(HF_TEST_NGINX_DIR), read into host and device memory, and the errors of a missing object, a
bad mode and a write to an HTTP URL."""

import os

import numpy as np
import pytest

import hipfile


@pytest.fixture
def nginx():
    base = os.environ.get("HF_TEST_NGINX_DIR")
    port_file = os.path.join(base, "port") if base else None
    if not port_file or not os.path.exists(port_file):
        pytest.skip("no nginx fixture (nginx not installed: Debian nginx-light)")
    with open(port_file) as stream:
        port = int(stream.read())
    return os.path.join(base, "www"), "http://127.0.0.1:%d" % port


def put(root, name, nbytes, seed):
    data = np.random.default_rng(seed).integers(0, 256, nbytes, dtype=np.uint8)
    with open(os.path.join(root, name), "wb") as stream:
        stream.write(data.tobytes())
    return data


def test_url_reads_into_host_memory(nginx):
    root, base = nginx
    data = put(root, "py-host.bin", 1_000_003, 1)
    out = np.zeros(600_000, dtype=np.uint8)
    with hipfile.File(base + "/py-host.bin", options="piece_size_kb=64;connections=4") as f:
        assert f.read(out, file_offset=400_003) == 600_000
    assert np.array_equal(out, data[400_003:])


def test_url_reads_into_device_memory_short_at_the_end(nginx, device_array):
    root, base = nginx
    data = put(root, "py-dev.bin", 300_001, 2)
    dev = device_array(4096)
    with hipfile.File(base + "/py-dev.bin") as f:
        assert f.pread(dev, file_offset=300_001 - 100).get() == 100
    assert bytes(dev.download()[:100]) == data[-100:].tobytes()


def test_missing_object_raises(nginx):
    _, base = nginx
    with pytest.raises(hipfile.HipFileError) as info:
        hipfile.File(base + "/py-no-such-object")
    assert info.value.code == hipfile.CODES["hipFileInvalidValue"]


def test_http_url_cannot_be_written(nginx):
    root, base = nginx
    put(root, "py-ro.bin", 10, 3)
    with pytest.raises(hipfile.HipFileError) as info:
        hipfile.File(base + "/py-ro.bin", "w")
    assert info.value.code == hipfile.CODES["hipFilePermissionDenied"]


def test_url_mode_and_options_are_checked(nginx):
    root, base = nginx
    put(root, "py-mode.bin", 10, 4)
    with pytest.raises(hipfile.HipFileError):
        hipfile.File(base + "/py-mode.bin", "r+")
    with pytest.raises(hipfile.HipFileError):
        hipfile.File(base + "/py-mode.bin", options="no_such_option=1")
    with pytest.raises(hipfile.HipFileError):
        hipfile.File(os.path.join(root, "py-mode.bin"), options="connections=2")
    with hipfile.File(base + "/py-mode.bin") as f:
        assert "py-mode.bin" in repr(f)
        with pytest.raises(hipfile.HipFileError):
            f.fileno()


MARK = "S3CR3TMARK"


def _secret_url(base, name):
    return base.replace("http://", "http://user:%s@" % MARK) + \
        "/%s?X-Amz-Credential=%s&X-Amz-Signature=%s" % (name, MARK, MARK)


def test_url_secrets_stay_out_of_exceptions_and_logs(nginx, capfd):
    root, base = nginx
    put(root, "py-secret.bin", 10, 5)
    with hipfile.File(_secret_url(base, "py-secret.bin")) as f:
        assert MARK not in repr(f)
        assert "***@" in repr(f)
    with pytest.raises(hipfile.HipFileError) as info:
        hipfile.File(_secret_url(base, "py-no-such-secret"))
    assert MARK not in str(info.value) and MARK not in info.value.operation
    assert "***@" in str(info.value)
    # A port nothing listens on: connection refused.
    with pytest.raises(hipfile.HipFileError) as info:
        hipfile.File(_secret_url("http://127.0.0.1:9", "obj"), options="retries=0")
    assert MARK not in str(info.value)
    out, err = capfd.readouterr()
    assert MARK not in out and MARK not in err
    assert "***@" in err
