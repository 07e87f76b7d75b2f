"""Every failure of the package raises HipFileError with the library's code and text; the driver,
the parameters, statistics and the version."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import hipfile

INVALID = hipfile.CODES["hipFileInvalidValue"]


@pytest.fixture
def data_file(workdir):
    path = os.path.join(workdir, "data.bin")
    with open(path, "wb") as stream:
        stream.write(bytes(range(256)) * 64)
    return path


def test_closed_file(data_file):
    f = hipfile.File(data_file)
    f.close()
    assert f.closed
    f.close()  # closing twice is fine
    for call in (lambda: f.read(bytearray(10)), lambda: f.pwrite(bytearray(10)), f.fileno):
        with pytest.raises(hipfile.HipFileError) as caught:
            call()
        assert caught.value.code == hipfile.CODES["hipFileHandleNotRegistered"]
        assert caught.value.name == "hipFileHandleNotRegistered"
        assert "closed" in str(caught.value)


def test_wrong_mode(data_file):
    with hipfile.File(data_file, "r") as f:
        with pytest.raises(hipfile.HipFileError) as caught:
            f.write(bytearray(10))
    assert caught.value.code is None and caught.value.name == "EBADF"
    with hipfile.File(data_file, "a") as f:
        assert f.read(bytearray(10)) == 10
    with pytest.raises(hipfile.HipFileError) as caught:
        hipfile.File(data_file, "rw")
    assert caught.value.code == INVALID


def test_write_only_file_cannot_be_read(workdir):
    with hipfile.File(os.path.join(workdir, "out.bin"), "w") as f:
        with pytest.raises(hipfile.HipFileError) as caught:
            f.read(bytearray(10))
    assert caught.value.name == "EBADF" and caught.value.errno == 9


def test_buffer_too_small(data_file):
    with hipfile.File(data_file) as f:
        for size, dev_offset in ((11, 0), (10, 1), (1, 10)):
            with pytest.raises(hipfile.HipFileError, match="buffer too small") as caught:
                f.read(bytearray(10), size, 0, dev_offset=dev_offset)
            assert caught.value.code == INVALID


def test_bad_offsets_and_sizes(data_file):
    with hipfile.File(data_file) as f:
        with pytest.raises(hipfile.HipFileError) as caught:
            f.read(bytearray(10), 10, -1)
        assert caught.value.name == "EINVAL"
        with pytest.raises(hipfile.HipFileError) as caught:
            f.read(bytearray(10), 5, 0, dev_offset=-1)
        assert caught.value.name == "EINVAL"
        for bad in ({"size": -1}, {"size": 1.5}, {"file_offset": "0"}, {"dev_offset": None},
                    {"task_size": 0}, {"task_size": -4096}, {"task_size": 4096.0},
                    {"task_size": True}):
            with pytest.raises(hipfile.HipFileError) as caught:
                f.read(bytearray(10), **bad)
            assert caught.value.code == INVALID
            assert next(iter(bad)) in str(caught.value)


def test_unusable_buffers(data_file):
    with hipfile.File(data_file, "r+") as f:
        for buffer, why in ((b"read-only", "not writable"), (object(), "neither GPU memory"),
                            (np.zeros((4, 4))[:, ::2], "contiguous")):
            with pytest.raises(hipfile.HipFileError, match=why) as caught:
                f.read(buffer)
            assert caught.value.code == INVALID
        assert f.write(b"read-only is fine to write from", file_offset=0) == 31


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        hipfile.File("/nonexistent/dir/file.bin")


def test_register_a_directory(workdir):
    descriptors = len(os.listdir("/proc/self/fd"))
    with pytest.raises(hipfile.HipFileError) as caught:
        hipfile.File(workdir, "r")
    assert caught.value.name == "hipFileInvalidFileType"
    assert len(os.listdir("/proc/self/fd")) == descriptors


def test_error_text_comes_from_the_library():
    error = hipfile.HipFileError(hipfile.CODES["hipFileBatchFull"], "submit")
    assert error.code == 5037 and error.name == "hipFileBatchFull"
    assert hipfile.error_string(5037) in str(error)
    assert isinstance(error, RuntimeError)


def run_python(code, **env):
    environment = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True,
                          text=True, timeout=120)


def test_driver_setup_failure_is_an_exception(data_file):
    code = ("import hipfile\n"
            "try:\n"
            "    hipfile.File(%r)\n"
            "except hipfile.HipFileError as e:\n"
            "    print('CODE', e.code, e.name)\n" % data_file)
    result = run_python(code, HIPFILE_GPU_RUNTIME="/nonexistent/libnot-a-runtime.so")
    assert "CODE %d hipFileDriverSetupError" % hipfile.CODES["hipFileDriverSetupError"] \
        in result.stdout, result.stdout + result.stderr


def test_missing_library_is_named():
    result = run_python("import hipfile\nhipfile.library_version()",
                        HIPFILE_LIBRARY="/nonexistent/libhipfile.so.0", LD_LIBRARY_PATH="")
    assert result.returncode != 0
    assert "HIPFILE_LIBRARY" in result.stderr and "/nonexistent/libhipfile.so.0" in result.stderr


def test_library_found_from_the_path_recorded_at_install(tmp_path):
    package = os.path.dirname(hipfile.__file__)
    copy = tmp_path / "site" / "hipfile"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "_paths.py"))
    library = hipfile.library_path()
    (copy / "_paths.py").write_text("LIBRARY = %r\n" % os.path.relpath(library, copy))
    environment = {k: v for k, v in os.environ.items() if k != "HIPFILE_LIBRARY"}
    environment["PYTHONPATH"] = str(tmp_path / "site")
    result = subprocess.run([sys.executable, "-c", "import hipfile\n"
                             "print(hipfile.library_path(), hipfile.library_version())"],
                            env=environment, capture_output=True, text=True, timeout=60)
    assert result.stdout.split()[0] == os.path.normpath(library), result.stderr


def test_import_needs_only_the_standard_library():
    code = ("import sys\nimport hipfile, hipfile.safetensors\n"
            "print(sorted(m for m in ('numpy', 'torch', 'cupy') if m in sys.modules))")
    result = run_python(code)
    assert result.stdout.strip() == "[]", result.stderr


def test_driver_context_manager_and_use_count():
    before = hipfile.use_count()
    with hipfile.driver() as props:
        assert hipfile.use_count() == before + 1
        assert props["max_batch_io_count"] > 0
    assert hipfile.use_count() == before


def test_driver_closed_at_exit(data_file):
    code = ("import hipfile\nf = hipfile.File(%r)\nprint(hipfile.use_count())\n"
            "held = hipfile.driver()\nheld.__enter__()\nprint(hipfile.use_count())" % data_file)
    result = run_python(code)
    assert result.stdout.split() == ["1", "2"], result.stderr
    assert result.returncode == 0 and "error" not in result.stderr


def test_parameters(data_file):
    with hipfile.File(data_file):
        pass
    everything = hipfile.parameters()
    assert everything["execution.max_io_threads"] >= 1
    assert hipfile.get_parameter("hipFileParamExecutionMaxIOThreads") == \
        everything["execution.max_io_threads"]
    old = hipfile.get_parameter("execution.min_io_threshold_size_kb")
    hipfile.set_parameter("execution.min_io_threshold_size_kb", 2048)
    assert hipfile.get_parameter("execution.min_io_threshold_size_kb") == 2048
    hipfile.set_parameter("hipFileParamExecutionMinIOThresholdSizeKB", old)
    # As in cuFile, the string parameters only change while the driver is closed.
    with pytest.raises(hipfile.HipFileError) as caught:
        hipfile.set_parameter("log.level", "ERROR")
    assert caught.value.name == "hipFileDriverAlreadyOpen"
    assert hipfile.get_parameter("log.level") == everything["log.level"]
    with pytest.raises(hipfile.HipFileError) as caught:
        hipfile.set_parameter("execution.max_io_threads", 4)
    assert caught.value.name == "hipFileDriverAlreadyOpen"
    with pytest.raises(hipfile.HipFileError) as caught:
        hipfile.set_parameter("execution.min_io_threshold_size_kb", 3)
    assert caught.value.code == INVALID
    with pytest.raises(hipfile.HipFileError, match="unknown parameter") as caught:
        hipfile.get_parameter("no.such.key")
    assert caught.value.code == INVALID


def test_host_buffers_turn_system_memory_on(data_file):
    with hipfile.File(data_file) as f:
        f.read(bytearray(16))
    assert hipfile.get_parameter("properties.allow_system_memory") is True


def test_stats_count_reads(data_file):
    before = hipfile.stats()
    with hipfile.File(data_file) as f:
        f.read(bytearray(4096))
    after = hipfile.stats()
    assert after["read_bytes"] - before["read_bytes"] == 4096
    assert after["read_ops"]["ok"] == before["read_ops"]["ok"] + 1


def test_version():
    assert hipfile.__version__ == "%d.%d.%d" % hipfile.library_version()
    assert os.path.exists(hipfile.library_path())


MARK = "S3CR3TMARK"
SECRET_TEXTS = [
    "open http://user:%s@127.0.0.1:9/obj?X-Amz-Credential=%s&X-Amz-Signature=%s" % ((MARK,) * 3),
    "https://%s@h/o#access_token=%s&state=1" % (MARK, MARK),
    "GET http://h/o?sig=%s: HTTP 500 (see s3://b/k?Signature=%s)." % (MARK, MARK),
    "http://user:%s" % MARK,
    "http://user:%s/x@h/y" % MARK,
    "http://proxy/fetch?next=http://u:%s@h/o&token=%s" % (MARK, MARK),
    "http://:%s@[::1]:80/x?X-Goog-Signature=%s" % (MARK, MARK),
]
PLAIN_TEXTS = ["", "plain words", "http://127.0.0.1:8080/b/k?partNumber=3&uploadId=x",
               "ratio 3://4", "http://[::1]:9000/x?versionId=7", "http://host:/path"]


def test_error_message_hides_url_secrets():
    error = hipfile.HipFileError(INVALID, SECRET_TEXTS[0], detail=SECRET_TEXTS[1])
    for text in (str(error), error.operation, repr(error)):
        assert MARK not in text
    assert "http://***@127.0.0.1:9/obj?X-Amz-Credential=***&X-Amz-Signature=***" in str(error)


def test_python_rules_are_the_library_rules():
    from hipfile import _redact
    assert _redact._library_function() is not None, "the library lacks hipFileRedactUrls"
    for text in SECRET_TEXTS + PLAIN_TEXTS:
        assert _redact._redact_py(text) == _redact.redact(text), text
    for text in SECRET_TEXTS:
        assert MARK not in _redact._redact_py(text), text
    for text in PLAIN_TEXTS:
        assert _redact._redact_py(text) == text
