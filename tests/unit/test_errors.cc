// Error reporting as users and the rest of the core rely on it: the message of every public code,
// the error macros of hipfile.h, the errno-to-code table, the hipFileError_t constructors and
// hipFileGetVersion.
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include <hipfile.h>

extern "C" {
#include "base/error.h"
}

namespace
{

struct CodeText {
    hipFileOpError_t code;
    const char *text;
};

// API.md 2.2, one row per enumerator that names a real condition.
const CodeText kCodeTexts[] = {
    {hipFileSuccess, "success"},
    {hipFileDriverNotInitialized, "hipFile driver not loaded or not open"},
    {hipFileDriverInvalidProps, "invalid driver property"},
    {hipFileDriverUnsupportedLimit, "driver property value not supported"},
    {hipFileDriverVersionMismatch, "library and I/O driver versions differ"},
    {hipFileDriverVersionReadError, "could not read the I/O driver version"},
    {hipFileDriverClosing, "driver is closing; new requests refused"},
    {hipFilePlatformNotSupported, "platform not supported"},
    {hipFileIONotSupported, "GPU I/O not supported for this file"},
    {hipFileDeviceNotSupported, "GPU does not support hipFile"},
    {hipFileDriverError, "I/O driver error"},
    {hipFileHipDriverError, "HIP runtime error; see hip_drv_err"},
    {hipFileHipPointerInvalid, "invalid GPU pointer"},
    {hipFileHipMemoryTypeInvalid, "memory type not usable with hipFile"},
    {hipFileHipPointerRangeError, "range extends past the allocation"},
    {hipFileHipContextMismatch, "GPU context mismatch"},
    {hipFileInvalidMappingSize, "access beyond the pinned buffer"},
    {hipFileInvalidMappingRange, "access beyond the mapped region"},
    {hipFileInvalidFileType, "file type not supported"},
    {hipFileInvalidFileOpenFlag, "file open flags not supported"},
    {hipFileDIONotSet, "file not opened with O_DIRECT"},
    {hipFileInvalidValue, "invalid argument"},
    {hipFileMemoryAlreadyRegistered, "buffer already registered"},
    {hipFileMemoryNotRegistered, "buffer not registered"},
    {hipFilePermissionDenied, "permission denied on device or file"},
    {hipFileDriverAlreadyOpen, "driver already open"},
    {hipFileHandleNotRegistered, "file handle not registered"},
    {hipFileHandleAlreadyRegistered, "file already registered"},
    {hipFileDeviceNotFound, "device not found"},
    {hipFileInternalError, "internal library error"},
    {hipFileGetNewFDFailed, "could not obtain a new file descriptor"},
    {hipFileDriverSetupError, "driver initialization failed"},
    {hipFileIODisabled, "GPU I/O disabled for this file by configuration"},
    {hipFileBatchSubmitFailed, "batch submission failed"},
    {hipFileGPUMemoryPinningFailed, "could not pin GPU memory"},
    {hipFileBatchFull, "batch queue full"},
    {hipFileAsyncNotSupported, "asynchronous I/O not supported"},
};

const char kUnknown[] = "unknown hipFile error";

// Values C++ may hold in hipFileOpError_t (its range is 0..8191) that are not error codes.
hipFileOpError_t AsCode(int value)
{
    return static_cast<hipFileOpError_t>(value);
}

} // namespace

TEST(ErrorString, EveryCodeHasItsMessage)
{
    for (const CodeText &row : kCodeTexts)
        EXPECT_STREQ(hipFileGetOpErrorString(row.code), row.text) << "code " << row.code;
}

TEST(ErrorString, MessagesAreDistinct)
{
    for (const CodeText &a : kCodeTexts) {
        for (const CodeText &b : kCodeTexts) {
            if (a.code != b.code) {
                EXPECT_STRNE(hipFileGetOpErrorString(a.code), hipFileGetOpErrorString(b.code));
            }
        }
    }
}

TEST(ErrorString, UnusedCodesAreUnknown)
{
    EXPECT_STREQ(hipFileGetOpErrorString(AsCode(5021)), kUnknown);
    EXPECT_STREQ(hipFileGetOpErrorString(AsCode(5032)), kUnknown);
}

TEST(ErrorString, MaxMarkerIsUnknown)
{
    EXPECT_STREQ(hipFileGetOpErrorString(hipFileIOMaxError), kUnknown);
}

TEST(ErrorString, ValuesOutsideTheCodeRangeAreUnknown)
{
    for (int value : {1, 22, 4999, 5000, 5040, 6000, 8191})
        EXPECT_STREQ(hipFileGetOpErrorString(AsCode(value)), kUnknown) << value;
}

TEST(ErrorMacros, IsHipfileErrIsFalseUpToBase)
{
    EXPECT_FALSE(IS_HIPFILE_ERR(0));
    EXPECT_FALSE(IS_HIPFILE_ERR(-1));
    EXPECT_FALSE(IS_HIPFILE_ERR(4999));
    EXPECT_FALSE(IS_HIPFILE_ERR(5000));
    EXPECT_FALSE(IS_HIPFILE_ERR(-5000));
    EXPECT_FALSE(IS_HIPFILE_ERR(HIPFILE_BASE_ERR));
}

TEST(ErrorMacros, IsHipfileErrIsTrueForCodesAndNegatedCodes)
{
    EXPECT_TRUE(IS_HIPFILE_ERR(5001));
    EXPECT_TRUE(IS_HIPFILE_ERR(-5027));
    EXPECT_TRUE(IS_HIPFILE_ERR(hipFileInvalidValue));
    EXPECT_TRUE(IS_HIPFILE_ERR(-hipFileInternalError));
    for (const CodeText &row : kCodeTexts) {
        if (row.code != hipFileSuccess) {
            EXPECT_TRUE(IS_HIPFILE_ERR(-static_cast<ssize_t>(row.code))) << row.code;
        }
    }
}

TEST(ErrorMacros, IsHipfileErrDoesNotTruncateSsizeT)
{
    // 2^32 + 5: an int cast would see 5 and call it no error.
    const ssize_t wide = (static_cast<ssize_t>(1) << 32) + 5;
    EXPECT_TRUE(IS_HIPFILE_ERR(wide));
    EXPECT_TRUE(IS_HIPFILE_ERR(-wide));
}

TEST(ErrorMacros, ErrstrGivesTheMessageOfANegatedReturn)
{
    const ssize_t ret = -static_cast<ssize_t>(hipFileHandleNotRegistered);
    EXPECT_STREQ(HIPFILE_ERRSTR(ret), "file handle not registered");
    EXPECT_STREQ(HIPFILE_ERRSTR(-5022), "invalid argument");
    EXPECT_STREQ(HIPFILE_ERRSTR(5022), "invalid argument");
    EXPECT_STREQ(HIPFILE_ERRSTR(-hipFileInternalError), "internal library error");
    EXPECT_STREQ(HIPFILE_ERRSTR(-5021), kUnknown);
}

TEST(ErrorMacros, HipDriverMacrosReadTheStatusByValue)
{
    const hipFileError_t hip_failure = {hipFileHipDriverError, hipErrorOutOfMemory};
    const hipFileError_t other_failure = {hipFileInvalidValue, hipSuccess};
    EXPECT_TRUE(IS_HIP_DRV_ERR(hip_failure));
    EXPECT_EQ(HIP_DRV_ERR(hip_failure), hipErrorOutOfMemory);
    EXPECT_FALSE(IS_HIP_DRV_ERR(other_failure));
    EXPECT_EQ(HIP_DRV_ERR(other_failure), hipSuccess);
}

namespace
{

struct ErrnoRow {
    int err;
    hipFileOpError_t code;
};

// The table documented in core/base/error.c.
const ErrnoRow kErrnoRows[] = {
    // arguments that cannot be served
    {EINVAL, hipFileInvalidValue},
    {EFAULT, hipFileInvalidValue},
    {EOVERFLOW, hipFileInvalidValue},
    {EFBIG, hipFileInvalidValue},
    {ERANGE, hipFileInvalidValue},
    {E2BIG, hipFileInvalidValue},
    {ENAMETOOLONG, hipFileInvalidValue},
    // access refused
    {EACCES, hipFilePermissionDenied},
    {EPERM, hipFilePermissionDenied},
    {EROFS, hipFilePermissionDenied},
    {EBADF, hipFilePermissionDenied},
    // kinds of file that cannot be served
    {EISDIR, hipFileInvalidFileType},
    {ESPIPE, hipFileInvalidFileType},
    // no path can serve
    {ENODEV, hipFileIONotSupported},
    {EOPNOTSUPP, hipFileIONotSupported},
    {ENOTSUP, hipFileIONotSupported},
    {ENOTTY, hipFileIONotSupported},
    {EREMOTEIO, hipFileIONotSupported},
    // system and devices
    {ENOSYS, hipFilePlatformNotSupported},
    {ENXIO, hipFileDeviceNotFound},
    {EMFILE, hipFileGetNewFDFailed},
    {ENFILE, hipFileGetNewFDFailed},
    {ESHUTDOWN, hipFileDriverClosing},
    {EIO, hipFileDriverError},
    {HF_EGPU, hipFileHipDriverError},
    // no public code; chosen on purpose
    {ENOMEM, hipFileInternalError},
    {EAGAIN, hipFileInternalError},
    {EBUSY, hipFileInternalError},
};

} // namespace

TEST(ErrnoMap, EveryRowMapsToItsCode)
{
    for (const ErrnoRow &row : kErrnoRows)
        EXPECT_EQ(hf_error_from_errno(row.err), row.code) << "errno " << row.err;
}

TEST(ErrnoMap, NegatedErrnoMapsLikeThePositiveOne)
{
    for (const ErrnoRow &row : kErrnoRows)
        EXPECT_EQ(hf_error_from_errno(-row.err), row.code) << "errno -" << row.err;
}

TEST(ErrnoMap, ZeroIsSuccess)
{
    EXPECT_EQ(hf_error_from_errno(0), hipFileSuccess);
}

TEST(ErrnoMap, UnmappedErrnoIsInternalError)
{
    for (int err : {ENOSPC, EEXIST, ENOENT, ETIMEDOUT, 9999, INT_MAX, INT_MIN})
        EXPECT_EQ(hf_error_from_errno(err), hipFileInternalError) << "errno " << err;
}

TEST(ErrnoMap, EveryResultIsAPublicCodeWithAMessage)
{
    for (int err = 1; err <= HF_EGPU; err++) {
        const hipFileOpError_t code = hf_error_from_errno(err);
        EXPECT_TRUE(IS_HIPFILE_ERR(code)) << "errno " << err;
        EXPECT_STRNE(hipFileGetOpErrorString(code), kUnknown) << "errno " << err;
    }
}

TEST(StatusConstructors, StatusCarriesCodeAndHipSuccess)
{
    const hipFileError_t status = hf_status(hipFileInvalidValue);
    EXPECT_EQ(status.err, hipFileInvalidValue);
    EXPECT_EQ(status.hip_drv_err, hipSuccess);
}

TEST(StatusConstructors, HipFailureKeepsTheRuntimeCode)
{
    const hipFileError_t status = hf_status_hip(hipErrorOutOfMemory);
    EXPECT_EQ(status.err, hipFileHipDriverError);
    EXPECT_EQ(status.hip_drv_err, hipErrorOutOfMemory);
    EXPECT_TRUE(IS_HIP_DRV_ERR(status));
}

TEST(StatusConstructors, HipSuccessIsSuccess)
{
    const hipFileError_t status = hf_status_hip(hipSuccess);
    EXPECT_EQ(status.err, hipFileSuccess);
    EXPECT_EQ(status.hip_drv_err, hipSuccess);
}

TEST(StatusConstructors, ErrnoResultGoesThroughTheTable)
{
    const hipFileError_t ok = hf_status_errno(0, hipSuccess);
    EXPECT_EQ(ok.err, hipFileSuccess);
    EXPECT_EQ(ok.hip_drv_err, hipSuccess);

    const hipFileError_t bad = hf_status_errno(-EINVAL, hipErrorOutOfMemory);
    EXPECT_EQ(bad.err, hipFileInvalidValue);
    EXPECT_EQ(bad.hip_drv_err, hipSuccess) << "a HIP code belongs only to -HF_EGPU";
}

TEST(StatusConstructors, GpuErrnoCarriesTheRuntimeCode)
{
    const hipFileError_t status = hf_status_errno(-HF_EGPU, hipErrorInvalidDevice);
    EXPECT_EQ(status.err, hipFileHipDriverError);
    EXPECT_EQ(status.hip_drv_err, hipErrorInvalidDevice);
}

TEST(StatusConstructors, GpuErrnoWithoutRuntimeCodeIsInternalError)
{
    const hipFileError_t status = hf_status_errno(-HF_EGPU, hipSuccess);
    EXPECT_EQ(status.err, hipFileInternalError);
    EXPECT_EQ(status.hip_drv_err, hipSuccess);
}

TEST(Version, ReportsTheHeaderVersion)
{
    unsigned major = 99, minor = 99, patch = 99;
    const hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    EXPECT_EQ(status.err, hipFileSuccess);
    EXPECT_EQ(status.hip_drv_err, hipSuccess);
    EXPECT_EQ(major, static_cast<unsigned>(HIPFILE_VERSION_MAJOR));
    EXPECT_EQ(minor, static_cast<unsigned>(HIPFILE_VERSION_MINOR));
    EXPECT_EQ(patch, static_cast<unsigned>(HIPFILE_VERSION_PATCH));
}

TEST(Version, MatchesTheProjectVersion)
{
    unsigned major = 99, minor = 99, patch = 99;
    ASSERT_EQ(hipFileGetVersion(&major, &minor, &patch).err, hipFileSuccess);
    EXPECT_EQ(std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch),
              HF_TEST_PROJECT_VERSION);
}

TEST(Version, AllNullPointersSucceed)
{
    const hipFileError_t status = hipFileGetVersion(nullptr, nullptr, nullptr);
    EXPECT_EQ(status.err, hipFileSuccess);
    EXPECT_EQ(status.hip_drv_err, hipSuccess);
}

TEST(Version, NullPointersAreSkippedOthersFilled)
{
    unsigned minor = 99;
    ASSERT_EQ(hipFileGetVersion(nullptr, &minor, nullptr).err, hipFileSuccess);
    EXPECT_EQ(minor, static_cast<unsigned>(HIPFILE_VERSION_MINOR));

    unsigned major = 99, patch = 99;
    ASSERT_EQ(hipFileGetVersion(&major, nullptr, &patch).err, hipFileSuccess);
    EXPECT_EQ(major, static_cast<unsigned>(HIPFILE_VERSION_MAJOR));
    EXPECT_EQ(patch, static_cast<unsigned>(HIPFILE_VERSION_PATCH));
}
