/*
 * Which baselines a workload runs, each at the thread count that makes it comparable with the
 * library, and why each one that does not apply is skipped (reported as such, not left out).
 */
#include "bench.h"

static void record_skipped(struct bench_result *r, const char *name, const char *why)
{
    bench_result_init(r, name);
    snprintf(r->note, sizeof(r->note), "%s", why);
}

/* The baselines that move data per call, each at the thread count that makes it comparable. */
static int measure_io_baselines(const struct bench_ctx *ctx, struct bench_result *results,
                                unsigned *n_p)
{
    const struct bench_options *o = ctx->opts;
    const struct bench_file *f = ctx->file;
    bool read = ctx->wl->op == BENCH_READ, device = o->mem == BENCH_MEM_DEVICE;
    const char *host_mem = "the library's buffers are host memory: no copy to compare with";
    unsigned n = *n_p;
    int rc = 0;

    if (o->baselines & BENCH_BL_RAW)
        rc |= bench_measure_named(ctx, &bench_method_raw, read ? "pread" : "pwrite",
                                  ctx->baseline_threads, &results[n++]);
    const char *odirect = read ? "odirect-pread" : "odirect-pwrite";
    if ((o->baselines & BENCH_BL_ODIRECT) && f->direct_fd < 0)
        record_skipped(&results[n++], odirect, f->direct_error);
    else if ((o->baselines & BENCH_BL_ODIRECT) && o->io_size % f->dio_align != 0)
        record_skipped(&results[n++], odirect,
                       "--io-size is not a multiple of the O_DIRECT alignment");
    else if (o->baselines & BENCH_BL_ODIRECT)
        rc |= bench_measure_named(ctx, &bench_method_odirect, odirect, ctx->baseline_threads,
                                  &results[n++]);
    if ((o->baselines & BENCH_BL_DURABLE) && read)
        record_skipped(&results[n++], "pwrite+fdatasync", "writes only");
    else if (o->baselines & BENCH_BL_DURABLE)
        rc |= bench_measure_named(ctx, &bench_method_durable, "pwrite+fdatasync",
                                  ctx->baseline_threads, &results[n++]);
    if ((o->baselines & BENCH_BL_NAIVE) && !device)
        record_skipped(&results[n++], "naive", host_mem);
    else if (o->baselines & BENCH_BL_NAIVE)
        rc |= bench_measure_named(ctx, &bench_method_naive, "naive", o->threads, &results[n++]);
    if ((o->baselines & BENCH_BL_AMD) && !device)
        record_skipped(&results[n++], "amd", host_mem);
    else if (o->baselines & BENCH_BL_AMD)
        rc |= bench_measure_named(ctx, &bench_method_amd, "amd", o->threads, &results[n++]);
    *n_p = n;
    return rc;
}

static int measure_copy_baselines(const struct bench_ctx *ctx, uint64_t library_bytes,
                                  struct bench_result *results, unsigned *n_p)
{
    const struct bench_options *o = ctx->opts;
    bool read = ctx->wl->op == BENCH_READ, device = o->mem == BENCH_MEM_DEVICE;
    const char *copy_name = read ? "pinned-h2d" : "pinned-d2h";
    unsigned n = *n_p;
    int rc = 0;

    if ((o->baselines & BENCH_BL_PINNED) && !device)
        record_skipped(&results[n++], copy_name, "the library's buffers are host memory");
    else if (o->baselines & BENCH_BL_PINNED)
        rc |= bench_copy_bandwidth(ctx, ctx->wl->op, library_bytes, &results[n++]);
    if ((o->baselines & BENCH_BL_CEILING) && !read)
        record_skipped(&results[n++], "ceiling", "reads only");
    else if ((o->baselines & BENCH_BL_CEILING) && !device)
        record_skipped(&results[n++], "ceiling", "the library's buffers are host memory");
    else if (o->baselines & BENCH_BL_CEILING)
        rc |= bench_ceiling_measure(ctx, &results[n++]);
    if (o->baselines & BENCH_BL_PREAD_COPY) {
        if (!read)
            record_skipped(&results[n++], "pread+copy", "reads only");
        else if (!device)
            record_skipped(&results[n++], "pread+copy", "the library's buffers are host memory");
        else if (!o->baselines_explicit && o->io_size > (1u << 20))
            record_skipped(
                &results[n++], "pread+copy",
                "latency baseline for small reads: runs for --io-size up to 1 MiB or when named "
                "in --baselines");
        else
            rc |= bench_measure_named(ctx, &bench_method_pread_copy, "pread+copy", o->threads,
                                      &results[n++]);
    }
    *n_p = n;
    return rc;
}

int bench_baselines_measure(const struct bench_ctx *ctx, uint64_t library_bytes,
                            struct bench_result *results, unsigned *n_p)
{
    int rc = 0;
    if (!bench_stop)
        rc |= measure_io_baselines(ctx, results, n_p);
    if (!bench_stop)
        rc |= measure_copy_baselines(ctx, library_bytes, results, n_p);
    return rc;
}
