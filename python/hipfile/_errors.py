"""The exception every failed call raises, and the library's status codes by name."""

import ctypes
import errno as _errno
import os

from . import _lib
from ._redact import redact

#: hipFileOpError_t, as in hipfile.h: name to code.
CODES = {
    "hipFileSuccess": 0,
    "hipFileDriverNotInitialized": 5001,
    "hipFileDriverInvalidProps": 5002,
    "hipFileDriverUnsupportedLimit": 5003,
    "hipFileDriverVersionMismatch": 5004,
    "hipFileDriverVersionReadError": 5005,
    "hipFileDriverClosing": 5006,
    "hipFilePlatformNotSupported": 5007,
    "hipFileIONotSupported": 5008,
    "hipFileDeviceNotSupported": 5009,
    "hipFileDriverError": 5010,
    "hipFileHipDriverError": 5011,
    "hipFileHipPointerInvalid": 5012,
    "hipFileHipMemoryTypeInvalid": 5013,
    "hipFileHipPointerRangeError": 5014,
    "hipFileHipContextMismatch": 5015,
    "hipFileInvalidMappingSize": 5016,
    "hipFileInvalidMappingRange": 5017,
    "hipFileInvalidFileType": 5018,
    "hipFileInvalidFileOpenFlag": 5019,
    "hipFileDIONotSet": 5020,
    "hipFileInvalidValue": 5022,
    "hipFileMemoryAlreadyRegistered": 5023,
    "hipFileMemoryNotRegistered": 5024,
    "hipFilePermissionDenied": 5025,
    "hipFileDriverAlreadyOpen": 5026,
    "hipFileHandleNotRegistered": 5027,
    "hipFileHandleAlreadyRegistered": 5028,
    "hipFileDeviceNotFound": 5029,
    "hipFileInternalError": 5030,
    "hipFileGetNewFDFailed": 5031,
    "hipFileDriverSetupError": 5033,
    "hipFileIODisabled": 5034,
    "hipFileBatchSubmitFailed": 5035,
    "hipFileGPUMemoryPinningFailed": 5036,
    "hipFileBatchFull": 5037,
    "hipFileAsyncNotSupported": 5038,
}
NAMES = {code: name for name, code in CODES.items()}
BASE_ERR = 5000


class HipFileError(RuntimeError):
    """A hipFile call failed.

    Attributes:
        code: the ``hipFileOpError_t`` value (5001 and up), or ``None`` for a system error, whose
            number is then in :attr:`errno`.
        name: the code's name (``"hipFileInvalidValue"``) or the errno's (``"EINVAL"``).
        errno: the system error number, for results of -1 with ``errno`` set; else ``None``.
        hip_error: the HIP runtime's status for ``hipFileHipDriverError``, else 0.
        operation: what was being done (``"read"``, ``"register file"``...).

    It derives from ``RuntimeError``, which is what ``kvikio`` raises, so code written for
    ``kvikio.CuFile`` that catches ``RuntimeError`` keeps working.
    """

    def __init__(self, code, operation, detail=None, errno=None, hip_error=0):
        # Operations and details name URLs; their passwords and signatures stay out of messages.
        operation, detail = redact(operation), redact(detail)
        self.code = code
        self.errno = errno
        self.hip_error = hip_error
        self.operation = operation
        if code is not None:
            self.name = NAMES.get(code, "hipFileError%d" % code)
            text = error_string(code)
        else:
            self.name = _errno.errorcode.get(errno, "E%d" % errno)
            text = os.strerror(errno)
        message = "%s: %s (%s)" % (operation, text, self.name)
        if hip_error:
            message += ", HIP runtime error %d" % hip_error
        if detail:
            message += ": " + detail
        super().__init__(message)


def error_string(code):
    """The library's text for a status code (``hipFileGetOpErrorString``)."""
    try:
        text = _lib.library().hipFileGetOpErrorString(abs(int(code)))
    except OSError:
        text = None
    return text.decode("utf-8", "replace") if text else NAMES.get(code, "unknown error")


def check(status, operation, detail=None):
    """Raise :class:`HipFileError` for a ``hipFileError_t`` that is not success."""
    if status.err != 0:
        raise HipFileError(status.err, operation, detail, hip_error=status.hip_drv_err)


def check_size(result, operation, detail=None):
    """A read or write result: the byte count, or :class:`HipFileError` for a negative one."""
    if result >= 0:
        return result
    if result == -1:
        raise HipFileError(None, operation, detail, errno=_lib_errno())
    raise HipFileError(-result, operation, detail)


def _lib_errno():
    number = ctypes.get_errno()
    return number if number else _errno.EIO
