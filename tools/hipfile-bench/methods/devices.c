/*
 * --devices: each library method on each listed device alone, then on all of them at once. The
 * single-device runs are what `--device N` measures (--threads threads over the whole file); in
 * the run of all devices each device has its own group of --threads threads, its own buffers
 * (allocated by those threads with their device current) and its own part of the file. The
 * report sets the aggregate against the sum of the single-device figures.
 */
#include <string.h>

#include "bench.h"

static int measure_on(const struct bench_ctx *ctx, const struct bench_method *base,
                      const int *devices, unsigned n_devices, struct bench_result *result)
{
    struct bench_ctx run = *ctx;
    struct bench_method m = *base;
    run.group_devices = devices;
    run.n_groups = n_devices;
    run.count_requests = true;
    m.threads = base->threads * n_devices;
    int rc = bench_measure(&run, &m, result);
    if (n_devices == 1)
        result->device = devices[0];
    else
        result->aggregate = true;
    return bench_settle_writes(ctx) != 0 ? -1 : rc;
}

int bench_devices_measure(const struct bench_ctx *ctx, const unsigned *which, unsigned n_which,
                          struct bench_result *results, unsigned *n_p)
{
    const struct bench_options *o = ctx->opts;
    int rc = 0;
    for (unsigned i = 0; i < n_which && !bench_stop; i++) {
        struct bench_options seq_opts;
        struct bench_ctx mctx;
        struct bench_method m;
        /* sync-seq's call size then fits every device's part of the file. */
        struct bench_ctx all = *ctx;
        all.n_groups = o->n_devices;
        bench_library_method(&all, which[i], &seq_opts, &mctx, &m);
        mctx.n_groups = 0;
        for (unsigned d = 0; d < o->n_devices && !bench_stop; d++)
            rc |= measure_on(&mctx, &m, &o->devices[d], 1, &results[(*n_p)++]);
        if (!bench_stop)
            rc |= measure_on(&mctx, &m, o->devices, o->n_devices, &results[(*n_p)++]);
    }
    return rc;
}
