/*
 * How hipfile's statuses read in cuFile terms, and the library's own log lines. hipFileOpError_t
 * was numbered after cuFile's codes, so every code hipfile returns has the same value in cuFile;
 * HIP runtime errors of the hipfile providers carry CUDA's numbers wherever CUDA has the error.
 */
#include "cufile_compat.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* CUresult values (CUDA driver ABI) for the HIP errors whose numbers differ. */
enum {
    HF_CU_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    HF_CU_ERROR_UNKNOWN = 999,
};

CUfileOpError hf_cufile_op_error(hipFileOpError_t code)
{
    /* hipFileIOMaxError (5039) only marks the end of hipfile's list; cuFile uses 5039 for a
     * batch error, so it must not pass through. */
    if (code == hipFileSuccess)
        return CU_FILE_SUCCESS;
    if (code > HIPFILE_BASE_ERR && code < hipFileIOMaxError && code != HIPFILE_BASE_ERR + 21 &&
        code != HIPFILE_BASE_ERR + 32)
        return (CUfileOpError)code;
    return CU_FILE_INTERNAL_ERROR;
}

CUresult hf_cufile_cu_result(hipError_t err)
{
    int rc = (int)err;

    if (err == hipErrorInsufficientDriver)
        return (CUresult)HF_CU_ERROR_SYSTEM_DRIVER_MISMATCH;
    /* The CUDA provider maps CUresult to the hipError_t of the same number for these ranges
     * (runtimes/cuda/driver.c), so the reverse is the identity; no-device, not-initialised,
     * not-supported and launch-failure share CUDA's numbers too. */
    if ((rc >= 0 && rc <= 8) || rc == 100 || rc == 101 || (rc >= 200 && rc <= 219) ||
        (rc >= 300 && rc <= 304) || rc == 400 || rc == 401 || rc == 500 || rc == 600 ||
        (rc >= 700 && rc <= 702) || rc == 704 || rc == 705 || (rc >= 708 && rc <= 710) ||
        rc == 712 || rc == 713 || rc == 719 || rc == 720 || rc == 801 || (rc >= 900 && rc <= 908) ||
        rc == 910 || rc == 999)
        return (CUresult)rc;
    return (CUresult)HF_CU_ERROR_UNKNOWN;
}

CUfileError_t hf_cufile_status(hipFileError_t status)
{
    CUfileError_t out = {hf_cufile_op_error(status.err), CUDA_SUCCESS};

    if (status.err == hipFileHipDriverError)
        out.cu_err = hf_cufile_cu_result(status.hip_drv_err);
    return out;
}

CUfileError_t hf_cufile_error(CUfileOpError code)
{
    CUfileError_t out = {code, CUDA_SUCCESS};
    return out;
}

ssize_t hf_cufile_io_result(ssize_t result)
{
    if (result >= -1)
        return result;
    return -(ssize_t)hf_cufile_op_error((hipFileOpError_t)(-result));
}

/* The core's own log level decides (config, HIPFILE_LOG_LEVEL or the parameter API), so these
 * lines appear exactly when the core's would. */
static int log_level_enabled(const char *level)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    char current[16] = "";
    int want = 0, have = 1;

    for (int i = 0; i < 4; i++) {
        if (strcmp(level, names[i]) == 0)
            want = i;
    }
    if (hipFileGetParameterString(hipFileParamLoggingLevel, current, (int)sizeof(current)).err ==
        hipFileSuccess) {
        for (int i = 0; i < 4; i++) {
            if (strcasecmp(current, names[i]) == 0 ||
                (current[0] == (char)('0' + i) && current[1] == '\0'))
                have = i;
        }
    }
    return want <= have;
}

__attribute__((format(printf, 2, 0))) static void log_line(const char *level, const char *fmt,
                                                           va_list ap)
{
    char line[512];
    int n;

    if (!log_level_enabled(level))
        return;
    n = snprintf(line, sizeof(line), "hipfile[cufile] %s: ", level);
    if (n < 0 || (size_t)n >= sizeof(line))
        return;
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    fprintf(stderr, "%s\n", line);
}

__attribute__((format(printf, 1, 2))) static void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("warn", fmt, ap);
    va_end(ap);
}

CUfileError_t hf_cufile_not_supported(atomic_bool *warned, const char *function, const char *why)
{
    /* One warning per function: a program that polls an unsupported query must not flood the
     * log. */
    if (!atomic_exchange(warned, true))
        log_warn("%s: not supported by hipfile's cuFile library (%s); returning "
                 "CU_FILE_PLATFORM_NOT_SUPPORTED",
                 function, why);
    return hf_cufile_error(CU_FILE_PLATFORM_NOT_SUPPORTED);
}

CUfileError_t hf_cufile_reject(CUfileOpError code, const char *function, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    log_warn("%s: %s", function, what);
    return hf_cufile_error(code);
}
