// hipfile.h as a C++ program sees it. Built as C++11 and again as C++17, with -pedantic: the header
// must compile there, every function must keep its exact type and C linkage, and the structs must
// stay plain C data. HF_HEADER_PROBE names the run-time probe each build exports to api_header.
#include <hipfile.h>
#include <hipfile/device.h> // the extension headers stand on their own too
#include <hipfile/params.h>
#include <hipfile/remote.h>
#include <hipfile/stats.h>
#include <hipfile/vector.h>
#include <hipfile.h> // a second inclusion must be harmless

#include <cstring>
#include <type_traits>

#ifndef HF_HEADER_PROBE
#error "the build names the probe function with HF_HEADER_PROBE"
#endif

#ifdef __HIPFILE_NODISCARD
#error "__HIPFILE_NODISCARD must not leak out of hipfile.h"
#endif

#if HIPFILE_VERSION_MAJOR < 0 || HIPFILE_VERSION_MINOR < 0 || HIPFILE_VERSION_PATCH < 0
#error "the version macros must be usable in #if"
#endif

#define HF_SIGNATURE(name, ret, params)                                                            \
    static_assert(std::is_same<decltype(name), ret params>::value, #name " changed type");
#include "header_signatures.h"
#undef HF_SIGNATURE

// C++ users memset, memcpy and brace-initialise these; they must stay plain C data.
#define HF_PLAIN_DATA(type)                                                                        \
    static_assert(std::is_standard_layout<type>::value && std::is_trivial<type>::value,            \
                  #type " is not plain C data")
HF_PLAIN_DATA(hipFileError_t);
HF_PLAIN_DATA(hipFileDriverProps_t);
HF_PLAIN_DATA(hipFileRDMAInfo_t);
HF_PLAIN_DATA(hipFileFSOps_t);
HF_PLAIN_DATA(hipFileDescr_t);
HF_PLAIN_DATA(hipFileIOParams_t);
HF_PLAIN_DATA(hipFileIOEvents_t);
HF_PLAIN_DATA(hipFileOpCounter_t);
HF_PLAIN_DATA(hipFileStatsLevel1_t);
HF_PLAIN_DATA(hipFileStatsLevel2_t);
HF_PLAIN_DATA(hipFilePerGpuStats_t);
HF_PLAIN_DATA(hipFileStatsLevel3_t);

// The enum and struct tags users may spell out.
static_assert(std::is_same<enum hipFileOpError, hipFileOpError_t>::value, "tag hipFileOpError");
static_assert(std::is_same<struct hipFileError, hipFileError_t>::value, "tag hipFileError");
static_assert(
    std::is_same<enum hipFileSizeTConfigParameter_t, hipFileSizeTConfigParameter_t>::value,
    "tag hipFileSizeTConfigParameter_t");
static_assert(std::is_same<enum hipFileStatus, hipFileStatus_t>::value, "tag hipFileStatus");

// Unscoped enums, so they convert to int as in C.
static_assert(std::is_convertible<hipFileOpError_t, int>::value, "hipFileOpError_t is a C enum");

extern "C" int HF_HEADER_PROBE(void);

// 0 when every check holds, else the line of the first that failed.
extern "C" int HF_HEADER_PROBE(void)
{
    const ssize_t negated = -static_cast<ssize_t>(hipFileHandleNotRegistered);
    if (!IS_HIPFILE_ERR(negated) || IS_HIPFILE_ERR(static_cast<ssize_t>(HIPFILE_BASE_ERR)))
        return __LINE__;
    if (std::strcmp(HIPFILE_ERRSTR(negated), "file handle not registered") != 0)
        return __LINE__;

    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = 7;
    if (descr.handle.fd != 7 || descr.fs_ops != nullptr)
        return __LINE__;

    hipFileIOParams_t params = {};
    params.mode = hipFileBatch;
    params.u.batch.size = 4096;
    if (params.u.batch.size != 4096 || params.cookie != nullptr)
        return __LINE__;

    // Explicitly discarding a status is always allowed, nodiscard or not.
    (void)hipFileGetVersion(nullptr, nullptr, nullptr);
    unsigned major = 0, minor = 0, patch = 0;
    const hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    if (IS_HIP_DRV_ERR(status) || HIP_DRV_ERR(status) != hipSuccess || status.err != hipFileSuccess)
        return __LINE__;
    if (major != HIPFILE_VERSION_MAJOR || minor != HIPFILE_VERSION_MINOR ||
        patch != HIPFILE_VERSION_PATCH)
        return __LINE__;
    return 0;
}
