/*
 * Status values: the one table that turns an errno from the core or a backend into a public
 * hipFileOpError_t, and constructors that fill hipFileError_t by the API's rules.
 */
#ifndef HF_CORE_ERROR_H
#define HF_CORE_ERROR_H

#include <hipfile.h>

#include "hipfile/backend.h"

/**
 * The public code for errno @p err (either sign is accepted; 0 gives hipFileSuccess). HF_EGPU gives
 * hipFileHipDriverError; an errno with no better match gives hipFileInternalError. Callers that
 * know more than the errno says (which object was missing, which check failed) build the specific
 * code with hf_status instead.
 */
hipFileOpError_t hf_error_from_errno(int err);

/** {@p code, hipSuccess}. For a HIP runtime failure use hf_status_hip, which keeps its code. */
static inline hipFileError_t hf_status(hipFileOpError_t code)
{
    hipFileError_t status = {code, hipSuccess};
    return status;
}

/**
 * {hipFileHipDriverError, @p hip_err} for a failed HIP runtime call, or success when @p hip_err is
 * hipSuccess, so `return hf_status_hip(runtime_call(...));` is a complete error path.
 */
static inline hipFileError_t hf_status_hip(int hip_err)
{
    hipFileError_t status = {hipFileSuccess, hipSuccess};
    if (hip_err != (int)hipSuccess) {
        status.err = hipFileHipDriverError;
        status.hip_drv_err = (hipError_t)hip_err;
    }
    return status;
}

/**
 * The status for @p rc, an internal result (0 or -errno). -HF_EGPU becomes a HIP failure carrying
 * @p hip_err, the runtime code the failing call stored; if that code was lost (hipSuccess) the
 * result is hipFileInternalError, because {hipFileHipDriverError, hipSuccess} would tell the caller
 * nothing. Anything else goes through hf_error_from_errno.
 */
static inline hipFileError_t hf_status_errno(int rc, int hip_err)
{
    if (rc == -HF_EGPU)
        return hip_err != (int)hipSuccess ? hf_status_hip(hip_err)
                                          : hf_status(hipFileInternalError);
    return hf_status(hf_error_from_errno(rc));
}

#endif
