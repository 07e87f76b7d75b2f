/*
 * Error codes: the message of every public hipFileOpError_t (hipFileGetOpErrorString) and the
 * single errno-to-code table that every failure inside the core or a backend passes through.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>

#include "base/error.h"

#define HF_ERROR_UNKNOWN_TEXT "unknown hipFile error"

/* Indexed by code - HIPFILE_BASE_ERR; the holes (5021, 5032) and hipFileIOMaxError stay NULL. */
static const char *const error_text[hipFileIOMaxError - HIPFILE_BASE_ERR] = {
    [hipFileDriverNotInitialized - HIPFILE_BASE_ERR] = "hipFile driver not loaded or not open",
    [hipFileDriverInvalidProps - HIPFILE_BASE_ERR] = "invalid driver property",
    [hipFileDriverUnsupportedLimit - HIPFILE_BASE_ERR] = "driver property value not supported",
    [hipFileDriverVersionMismatch - HIPFILE_BASE_ERR] = "library and I/O driver versions differ",
    [hipFileDriverVersionReadError - HIPFILE_BASE_ERR] = "could not read the I/O driver version",
    [hipFileDriverClosing - HIPFILE_BASE_ERR] = "driver is closing; new requests refused",
    [hipFilePlatformNotSupported - HIPFILE_BASE_ERR] = "platform not supported",
    [hipFileIONotSupported - HIPFILE_BASE_ERR] = "GPU I/O not supported for this file",
    [hipFileDeviceNotSupported - HIPFILE_BASE_ERR] = "GPU does not support hipFile",
    [hipFileDriverError - HIPFILE_BASE_ERR] = "I/O driver error",
    [hipFileHipDriverError - HIPFILE_BASE_ERR] = "HIP runtime error; see hip_drv_err",
    [hipFileHipPointerInvalid - HIPFILE_BASE_ERR] = "invalid GPU pointer",
    [hipFileHipMemoryTypeInvalid - HIPFILE_BASE_ERR] = "memory type not usable with hipFile",
    [hipFileHipPointerRangeError - HIPFILE_BASE_ERR] = "range extends past the allocation",
    [hipFileHipContextMismatch - HIPFILE_BASE_ERR] = "GPU context mismatch",
    [hipFileInvalidMappingSize - HIPFILE_BASE_ERR] = "access beyond the pinned buffer",
    [hipFileInvalidMappingRange - HIPFILE_BASE_ERR] = "access beyond the mapped region",
    [hipFileInvalidFileType - HIPFILE_BASE_ERR] = "file type not supported",
    [hipFileInvalidFileOpenFlag - HIPFILE_BASE_ERR] = "file open flags not supported",
    [hipFileDIONotSet - HIPFILE_BASE_ERR] = "file not opened with O_DIRECT",
    [hipFileInvalidValue - HIPFILE_BASE_ERR] = "invalid argument",
    [hipFileMemoryAlreadyRegistered - HIPFILE_BASE_ERR] = "buffer already registered",
    [hipFileMemoryNotRegistered - HIPFILE_BASE_ERR] = "buffer not registered",
    [hipFilePermissionDenied - HIPFILE_BASE_ERR] = "permission denied on device or file",
    [hipFileDriverAlreadyOpen - HIPFILE_BASE_ERR] = "driver already open",
    [hipFileHandleNotRegistered - HIPFILE_BASE_ERR] = "file handle not registered",
    [hipFileHandleAlreadyRegistered - HIPFILE_BASE_ERR] = "file already registered",
    [hipFileDeviceNotFound - HIPFILE_BASE_ERR] = "device not found",
    [hipFileInternalError - HIPFILE_BASE_ERR] = "internal library error",
    [hipFileGetNewFDFailed - HIPFILE_BASE_ERR] = "could not obtain a new file descriptor",
    [hipFileDriverSetupError - HIPFILE_BASE_ERR] = "driver initialization failed",
    [hipFileIODisabled - HIPFILE_BASE_ERR] = "GPU I/O disabled for this file by configuration",
    [hipFileBatchSubmitFailed - HIPFILE_BASE_ERR] = "batch submission failed",
    [hipFileGPUMemoryPinningFailed - HIPFILE_BASE_ERR] = "could not pin GPU memory",
    [hipFileBatchFull - HIPFILE_BASE_ERR] = "batch queue full",
    [hipFileAsyncNotSupported - HIPFILE_BASE_ERR] = "asynchronous I/O not supported",
};

const char *hipFileGetOpErrorString(hipFileOpError_t status)
{
    /* Read as a plain int: callers cast arbitrary numbers to the enum (HIPFILE_ERRSTR does). */
    int code = (int)status;

    if (code == hipFileSuccess)
        return "success";
    if (code <= HIPFILE_BASE_ERR || code >= hipFileIOMaxError)
        return HF_ERROR_UNKNOWN_TEXT;
    if (error_text[code - HIPFILE_BASE_ERR] == NULL)
        return HF_ERROR_UNKNOWN_TEXT;
    return error_text[code - HIPFILE_BASE_ERR];
}

/*
 * errno -> public code. The public set was made for cuFile's kernel driver, so most errnos have no
 * exact twin; each row picks the code whose message sends the user to the right cause. Anything not
 * listed is hipFileInternalError. hipFileRead/hipFileWrite do not use this table for system errors:
 * API.md 8.4 has them return -1 with errno, and -hipFileInternalError when no path can serve.
 */
static const struct {
    int err;
    hipFileOpError_t code;
} errno_map[] = {
    /* The caller's offsets, sizes or pointers cannot be served as given. */
    {EINVAL, hipFileInvalidValue},
    {EFAULT, hipFileInvalidValue},
    {EOVERFLOW, hipFileInvalidValue},
    {EFBIG, hipFileInvalidValue}, /* offset past the file size limit */
    {ERANGE, hipFileInvalidValue},
    {E2BIG, hipFileInvalidValue},
    {ENAMETOOLONG, hipFileInvalidValue},
    /* The file refuses this access. */
    {EACCES, hipFilePermissionDenied},
    {EPERM, hipFilePermissionDenied},
    {EROFS, hipFilePermissionDenied},
    /* A write on a read-only descriptor (or the reverse): registration reports a closed fd as
     * hipFileInvalidValue itself, so EBADF that gets here comes from the access mode. */
    {EBADF, hipFilePermissionDenied},
    /* A directory, pipe or socket. */
    {EISDIR, hipFileInvalidFileType},
    {ESPIPE, hipFileInvalidFileType},
    /* No path can move data for this file. ENODEV and EREMOTEIO are the backends' "another path
     * may succeed"; they surface here only once every path has declined. */
    {ENODEV, hipFileIONotSupported},
    {EOPNOTSUPP, hipFileIONotSupported},
    {ENOTTY, hipFileIONotSupported}, /* the file has no such ioctl */
    {EREMOTEIO, hipFileIONotSupported},
    {ENOSYS, hipFilePlatformNotSupported}, /* the kernel lacks a system call we need */
    {ENXIO, hipFileDeviceNotFound},        /* the device behind the file is gone */
    {EMFILE, hipFileGetNewFDFailed},       /* twin descriptors could not be opened */
    {ENFILE, hipFileGetNewFDFailed},
    {ESHUTDOWN, hipFileDriverClosing}, /* the driver closed under the request */
    /* The storage stack below us failed; "internal library error" would blame the wrong party. */
    {EIO, hipFileDriverError},
    {HF_EGPU, hipFileHipDriverError},
    /* No public code for exhausted resources or objects still in use; AMD reports a buffer in use
     * as an internal error. Listed so the choice is visible, not left to the default. */
    {ENOMEM, hipFileInternalError},
    {EAGAIN, hipFileInternalError},
    {EBUSY, hipFileInternalError},
};

hipFileOpError_t hf_error_from_errno(int err)
{
    size_t i;

    if (err == 0)
        return hipFileSuccess;
    if (err == INT_MIN)
        return hipFileInternalError;
    if (err < 0)
        err = -err;
    for (i = 0; i < sizeof(errno_map) / sizeof(errno_map[0]); i++) {
        if (errno_map[i].err == err)
            return errno_map[i].code;
    }
    return hipFileInternalError;
}
