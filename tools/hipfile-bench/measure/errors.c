/*
 * How the bench reports a failure: a failed HIP runtime or hipFile call as one line on stderr
 * naming the call, the error and its code; a failed call of the workload as one line naming the
 * workload, the thread, the call and the file offset.
 */
#include <errno.h>
#include <string.h>

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

int bench_call_error(const struct bench_thread *t, const char *call, uint64_t offset,
                     const char *why)
{
    fprintf(stderr, BENCH_NAME ": %s, thread %u: %s at offset %llu: %s\n", t->ctx->wl->name,
            t->index, call, (unsigned long long)offset, why);
    return -1;
}

int bench_errno_error(const struct bench_thread *t, const char *call, uint64_t offset)
{
    return bench_call_error(t, call, offset,
                            errno == ENODATA ? "unexpected end of file" : strerror(errno));
}

int bench_moved_error(const struct bench_thread *t, const char *call, uint64_t offset,
                      ssize_t moved, size_t size)
{
    if (moved >= 0) {
        char why[64];
        snprintf(why, sizeof(why), "moved %zd of %zu bytes", moved, size);
        return bench_call_error(t, call, offset, why);
    }
    /* A negated hipfile code, or -1 with the reason in errno. */
    if (IS_HIPFILE_ERR(moved))
        return bench_call_error(t, call, offset, HIPFILE_ERRSTR(moved));
    if (moved == -1)
        return bench_errno_error(t, call, offset);
    /* Batch events carry the negated errno itself. */
    return bench_call_error(t, call, offset, strerror((int)-moved));
}
