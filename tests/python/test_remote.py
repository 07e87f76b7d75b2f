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


# hipfile.RemoteFile, KvikIO's interface to remote objects.
def test_remote_file_over_http(nginx):
    root, base = nginx
    data = put(root, "py-remote.bin", 500_009, 4)
    url = base + "/py-remote.bin"
    with hipfile.RemoteFile.open_http(url) as f:
        assert f.nbytes() == 500_009
        out = np.zeros(500_009, dtype=np.uint8)
        assert f.read(out) == 500_009 and np.array_equal(out, data)
        part = np.zeros(1000, dtype=np.uint8)
        assert f.pread(part, 1000, 499_500).get() == 509
        assert np.array_equal(part[:509], data[499_500:])
    assert f.closed
    # A presigned URL is read as it is; the size given is checked, never trusted.
    with hipfile.RemoteFile.open_s3_presigned_url(url, nbytes=500_009) as f:
        assert f.nbytes() == 500_009
    with pytest.raises(ValueError, match="nbytes=7, but .* has 500009 bytes"):
        hipfile.RemoteFile.open_http(url, nbytes=7)
    with pytest.raises(ValueError, match="not an http"):
        hipfile.RemoteFile.open_http("s3://bucket/key")
    with pytest.raises(hipfile.HipFileError):
        hipfile.RemoteFile.open_http(base + "/py-no-such-remote-object")


def test_s3_urls_name_bucket_key_and_endpoint():
    from hipfile._remote_file import _s3_from_url
    assert _s3_from_url("s3://b/k/x") == ("s3://b/k/x", None)
    assert _s3_from_url("https://my.bucket.s3.eu-west-1.amazonaws.com/a/b.bin") == \
        ("s3://my.bucket/a/b.bin", {"region": "eu-west-1"})
    assert _s3_from_url("https://bkt.s3.amazonaws.com/k") == ("s3://bkt/k", None)
    assert _s3_from_url("https://s3.us-east-2.amazonaws.com/bkt/k") == \
        ("s3://bkt/k", {"region": "us-east-2"})
    assert _s3_from_url("http://127.0.0.1:9000/bkt/dir/k") == \
        ("s3://bkt/dir/k", {"endpoint": "http://127.0.0.1:9000", "path_style": True})
    for bad in ("https://bkt.s3.amazonaws.com/", "http://host/bucket-only", "ftp://x/y/z",
                "https://bkt.s3.amazonaws.com/k?X-Amz-Signature=1"):
        with pytest.raises(ValueError):
            _s3_from_url(bad)


@pytest.fixture
def s3rver(monkeypatch):
    base = os.environ.get("HIPFILE_TEST_S3RVER_DIR")
    files = [os.path.join(base, name) for name in ("endpoint", "bucket")] if base else []
    if not files or not all(os.path.exists(path) for path in files):
        pytest.skip("no s3rver running (the remote.s3rver.start fixture says how to install it)")
    endpoint, bucket = (open(path).read().split()[0] for path in files)
    # s3rver's built-in account, as the C suites use it.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "S3RVER")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "S3RVER")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return endpoint, bucket


def test_remote_file_over_s3(s3rver):
    endpoint, bucket = s3rver
    data = np.random.default_rng(5).integers(0, 256, 300_001, dtype=np.uint8)
    with hipfile.File("s3://%s/py/remote-file.bin" % bucket, "w") as f:
        assert f.write(data) == data.size
    for opened in (hipfile.RemoteFile.open_s3(bucket, "py/remote-file.bin"),
                   hipfile.RemoteFile.open_s3_url("s3://%s/py/remote-file.bin" % bucket),
                   hipfile.RemoteFile.open_s3_url("%s/%s/py/remote-file.bin" % (endpoint, bucket))):
        with opened as f:
            assert f.nbytes() == data.size
            out = np.zeros(data.size, dtype=np.uint8)
            assert f.read(out) == data.size and np.array_equal(out, data)
