/*
 * Cross-checks of a measured pass against the library's own statistics (hipFileGetStatsL1/L3):
 * every call the threads made was counted as a request that succeeded, and with device memory
 * each one was counted on the GPU its thread allocated on. Used where the report claims more
 * than the call results show: that a named backend served the pass (--backends) or that each
 * device's buffer was on that device (--devices).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int bench_counts_take(struct bench_counts *c)
{
    hipFileStatsLevel3_t *l3 = calloc(1, sizeof(*l3));
    memset(c, 0, sizeof(*c));
    if (l3 == NULL)
        return -1;
    /* Level 3 where the library allows it; the per-GPU checks are then skipped. */
    hipFileError_t status = hipFileGetStatsL3(l3);
    c->per_gpu = status.err == hipFileSuccess;
    if (!c->per_gpu)
        status = hipFileGetStatsL1(&l3->detailed.basic);
    if (status.err != hipFileSuccess) {
        free(l3);
        return -1;
    }
    const hipFileStatsLevel1_t *b = &l3->detailed.basic;
    c->ops[BENCH_READ][0] = b->read_ops.ok;
    c->ops[BENCH_READ][1] = b->read_ops.err;
    c->ops[BENCH_WRITE][0] = b->write_ops.ok;
    c->ops[BENCH_WRITE][1] = b->write_ops.err;
    for (unsigned d = 0; c->per_gpu && d < BENCH_MAX_DEVICES; d++) {
        const hipFilePerGpuStats_t *g = &l3->per_gpu_stats[d];
        c->gpu_total[BENCH_READ][d] = g->n_total_reads;
        c->gpu_direct[BENCH_READ][d] = g->n_nvfs_reads;
        c->gpu_compat[BENCH_READ][d] = g->n_posix_reads;
        c->gpu_total[BENCH_WRITE][d] = g->n_total_writes;
        c->gpu_direct[BENCH_WRITE][d] = g->n_nvfs_writes;
        c->gpu_compat[BENCH_WRITE][d] = g->n_posix_writes;
    }
    free(l3);
    return 0;
}

static int check_failed(struct bench_result *result, const char *fmt, unsigned long long a,
                        unsigned long long b, int device)
{
    char why[sizeof(result->note)];
    if (device >= 0)
        snprintf(why, sizeof(why), fmt, device, a, b);
    else
        snprintf(why, sizeof(why), fmt, a, b);
    fprintf(stderr, BENCH_NAME ": %s%s%s: %s\n", result->name, result->backend[0] ? "@" : "",
            result->backend, why);
    return bench_result_fail(result, why);
}

int bench_counts_check(const struct bench_ctx *ctx, const struct bench_counts *before,
                       const struct bench_counts *after, uint64_t calls,
                       const uint64_t *group_calls, struct bench_result *result)
{
    enum bench_op op = ctx->wl->op;
    uint64_t ok = after->ops[op][0] - before->ops[op][0];
    uint64_t err = after->ops[op][1] - before->ops[op][1];
    result->counted += ok;
    if (err != 0 || ok != calls)
        return check_failed(result,
                            "the library's statistics counted %llu served requests (and %llu "
                            "failed) for the pass's calls",
                            ok, err, -1);
    if (!after->per_gpu || !before->per_gpu || ctx->opts->mem != BENCH_MEM_DEVICE)
        return 0;
    unsigned groups = ctx->n_groups != 0 ? ctx->n_groups : 1;
    for (unsigned g = 0; g < groups; g++) {
        int d = ctx->n_groups != 0 ? ctx->group_devices[g] : ctx->opts->device;
        if (d < 0 || d >= BENCH_MAX_DEVICES)
            continue;
        uint64_t on_gpu = after->gpu_total[op][d] - before->gpu_total[op][d];
        result->counted_direct += after->gpu_direct[op][d] - before->gpu_direct[op][d];
        result->counted_compat += after->gpu_compat[op][d] - before->gpu_compat[op][d];
        if (on_gpu != group_calls[g])
            return check_failed(result,
                                "device %d: the library's statistics counted %llu requests on "
                                "it, its threads made %llu",
                                on_gpu, group_calls[g], d);
    }
    return 0;
}
