/*
 * How the bench reports a failed HIP runtime or hipFile call: one line on stderr naming the call,
 * the error and its code.
 */
#include "bench.h"

int bench_hip_error(const char *what, hipError_t err)
{
    fprintf(stderr, BENCH_NAME ": %s failed: %s (HIP error %d)\n", what, hipGetErrorString(err),
            (int)err);
    return -1;
}

int bench_status_error(const char *what, hipFileError_t status)
{
    if (IS_HIP_DRV_ERR(status))
        fprintf(stderr, BENCH_NAME ": %s failed: %s (HIP error %d: %s)\n", what,
                hipFileGetOpErrorString(status.err), (int)HIP_DRV_ERR(status),
                hipGetErrorString(HIP_DRV_ERR(status)));
    else
        fprintf(stderr, BENCH_NAME ": %s failed: %s (%d)\n", what,
                hipFileGetOpErrorString(status.err), (int)status.err);
    return -1;
}
