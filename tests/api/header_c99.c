/*
 * hipfile.h as a C program sees it. Built as strict C99 and again as C17, with -pedantic and
 * without _GNU_SOURCE, so the header must stand on its own there; the build fails if any function
 * changes type. HF_HEADER_PROBE names the run-time probe each build exports to api_header.
 */
#include <hipfile.h>
#include <hipfile/device.h> /* the extension headers stand on their own too */
#include <hipfile/params.h>
#include <hipfile/remote.h>
#include <hipfile/stats.h>
#include <hipfile/vector.h>
#include <hipfile.h> /* a second inclusion must be harmless */

#include <stddef.h>
#include <string.h>

#ifndef HF_HEADER_PROBE
#error "the build names the probe function with HF_HEADER_PROBE"
#endif

#if !defined(HIPFILE_VERSION_MAJOR) || !defined(HIPFILE_VERSION_MINOR) ||                          \
    !defined(HIPFILE_VERSION_PATCH)
#error "the version macros are missing"
#elif HIPFILE_VERSION_MAJOR < 0 || HIPFILE_VERSION_MINOR < 0 || HIPFILE_VERSION_PATCH < 0
#error "the version macros must be usable in #if"
#endif

#ifdef __HIPFILE_NODISCARD
#error "__HIPFILE_NODISCARD must not leak out of hipfile.h"
#endif

#ifndef HIPFILE_API
#error "HIPFILE_API must stay defined for applications"
#endif

/* C99 has no _Static_assert: a negative array size fails the build instead. */
#define HF_C_ASSERT(name, cond) typedef char hf_assert_##name[(cond) ? 1 : -1]

/*
 * Comparing the function with a null pointer of the expected type draws "distinct pointer types"
 * (an error under -Werror) when the two differ. sizeof keeps it unevaluated, so nothing is linked.
 */
#define HF_SIGNATURE(name, ret, params)                                                            \
    typedef char hf_signature_##name[sizeof((name) == (ret(*) params)0)];
#include "header_signatures.h"
#undef HF_SIGNATURE

/* The struct layouts must be the same in C as in C++ (test_abi_layout pins the latter). */
HF_C_ASSERT(error_size, sizeof(hipFileError_t) == 8);
HF_C_ASSERT(props_size, sizeof(hipFileDriverProps_t) == 72);
HF_C_ASSERT(props_feature_flags, offsetof(hipFileDriverProps_t, feature_flags) == 32);
HF_C_ASSERT(descr_size, sizeof(hipFileDescr_t) == 24);
HF_C_ASSERT(descr_fs_ops, offsetof(hipFileDescr_t, fs_ops) == 16);
HF_C_ASSERT(io_params_size, sizeof(hipFileIOParams_t) == 64);
HF_C_ASSERT(io_params_size_field, offsetof(hipFileIOParams_t, u.batch.size) == 32);
HF_C_ASSERT(io_params_cookie, offsetof(hipFileIOParams_t, cookie) == 56);
HF_C_ASSERT(io_events_size, sizeof(hipFileIOEvents_t) == 24);
HF_C_ASSERT(stats_l1_size, sizeof(hipFileStatsLevel1_t) == 512);
HF_C_ASSERT(stats_l3_size, sizeof(hipFileStatsLevel3_t) == 5000);

/* Users name the enum tags too; the configuration enums' tags end in _t. */
static enum hipFileOpError hf_tag_op_error = hipFileSuccess;
static enum hipFileSizeTConfigParameter_t hf_tag_size_param = hipFileParamProfileStats;
static enum hipFileBoolConfigParameter_t hf_tag_bool_param = hipFileParamForceCompatMode;
static enum hipFileStringConfigParameter_t hf_tag_string_param = hipFileParamLogDir;
static struct hipFileError hf_tag_error = {hipFileSuccess, hipSuccess};

int HF_HEADER_PROBE(void);

/* 0 when every check holds, else the line of the first that failed. */
int HF_HEADER_PROBE(void)
{
    const ssize_t negated = -(ssize_t)hipFileInvalidValue;
    hipFileDescr_t descr = {hipFileHandleTypeOpaqueFD, {0}, NULL};
    hipFileIOParams_t params;
    unsigned major = 0;

    (void)hf_tag_op_error;
    (void)hf_tag_size_param;
    (void)hf_tag_bool_param;
    (void)hf_tag_string_param;
    (void)hf_tag_error;

    if (!IS_HIPFILE_ERR(negated) || IS_HIPFILE_ERR((ssize_t)HIPFILE_BASE_ERR) ||
        IS_HIPFILE_ERR((ssize_t)-1))
        return __LINE__;
    if (strcmp(HIPFILE_ERRSTR(negated), hipFileGetOpErrorString(hipFileInvalidValue)) != 0)
        return __LINE__;
    /* C may hold any int in the enum; anything that is not a code must still get a message. */
    if (strcmp(hipFileGetOpErrorString((hipFileOpError_t)-1), "unknown hipFile error") != 0)
        return __LINE__;
    if (strcmp(hipFileGetOpErrorString((hipFileOpError_t)-5022), "unknown hipFile error") != 0)
        return __LINE__;

    descr.handle.fd = 7;
    if (descr.handle.fd != 7 || descr.fs_ops != NULL)
        return __LINE__;
    memset(&params, 0, sizeof(params));
    params.mode = hipFileBatch;
    params.u.batch.size = 4096;
    params.opcode = hipFileBatchWrite;
    if (params.u.batch.size != 4096)
        return __LINE__;

    /* Without C23 the status is not nodiscard: C code that drops it builds under -Werror. */
    hipFileGetVersion(NULL, NULL, NULL);
    if (hipFileGetVersion(&major, NULL, NULL).err != hipFileSuccess)
        return __LINE__;
    if (major != HIPFILE_VERSION_MAJOR)
        return __LINE__;
    return 0;
}
