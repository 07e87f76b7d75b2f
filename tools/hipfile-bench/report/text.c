/*
 * The text report of one workload: the machine, runtime and library once, then what was measured
 * and how, a row of figures per result, the library's ratio to every baseline, and what the
 * ceiling's calibration chose, what served each backend's requests (--backends) and each device's
 * share of the run of all devices at once (--devices).
 */
#include <string.h>

#include "report/figures.h"

static void print_env_once(const struct bench_env *env)
{
    static bool printed;
    if (printed)
        return;
    printed = true;
    printf("machine  %s: %ld CPUs%s%s, %.1f GiB, Linux %s %s\n", env->hostname, env->cpus,
           env->cpu_model[0] ? " " : "", env->cpu_model,
           (double)env->memory_bytes / (1024.0 * 1024 * 1024), env->kernel, env->arch);
    printf("runtime  %s: %s (version %d), %d device%s%s%s\n",
           env->runtime_asked[0] ? env->runtime_asked : "auto", env->runtime_library,
           env->runtime_version, env->devices, env->devices == 1 ? "" : "s",
           env->device_name[0] ? ", " : "", env->device_name);
    /* Only the thread count is shown: the split and staging sizes that shape a run are the serving
     * backend's own settings (the fallback's group), which the public API cannot read. */
    printf("library  hipfile %s: %zu I/O threads, parallel I/O %s\n", env->hipfile_version,
           env->io_threads, env->parallel_io ? "on" : "off");
}

static void print_result_row(const struct bench_result *r, int width)
{
    char name[80];
    bench_result_label(r, name, sizeof(name));
    if (!r->ran) {
        printf("  %-*s %s: %s\n", width, name, r->failed ? "failed" : "skipped", r->note);
        return;
    }
    printf("  %-*s %7u %6u %9.3f %10.1f", width, name, r->threads, r->passes, bench_result_gbps(r),
           bench_result_iops(r));
    if (r->has_latency)
        printf(" %9.1f %9.1f %9.1f %9.1f", bench_result_latency_us(r, 50),
               bench_result_latency_us(r, 90), bench_result_latency_us(r, 99),
               (double)r->hist.max_ns / 1e3);
    else
        printf(" %9s %9s %9s %9s", "-", "-", "-", "-");
    printf(" %9.3f%s%s\n", bench_result_cpu_per_gb(r), r->failed ? "  FAILED: " : "",
           r->failed ? r->note : "");
}

static void print_ratios(const struct bench_result *results, unsigned n)
{
    for (unsigned l = 0; l < n; l++) {
        const struct bench_result *lib = &results[l];
        for (unsigned i = 0; i < n; i++) {
            const struct bench_result *b = &results[i];
            char ln[80], bn[80];
            if (!bench_ratio_wanted(lib, b))
                continue;
            bench_result_label(lib, ln, sizeof(ln));
            bench_result_label(b, bn, sizeof(bn));
            if (bench_result_is_latency_floor(b))
                printf("  %s p50 latency / %s p50 latency = %.2f\n", ln, bn,
                       bench_result_latency_us(lib, 50) / bench_result_latency_us(b, 50));
            else
                printf("  %s/%s = %.2f\n", ln, bn, bench_result_gbps(lib) / bench_result_gbps(b));
        }
    }
}

/* What the statistics of each backend's process say served its requests. */
static void print_served(const struct bench_result *results, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *r = &results[i];
        char name[80];
        if (r->backend_index < 0 || !r->ran)
            continue;
        printf("  %s: %llu measured requests counted as served (direct path %llu, compat %llu); "
               "its process: %llu of %llu requests served by %s, %llu by others\n",
               bench_result_label(r, name, sizeof(name)), (unsigned long long)r->counted,
               (unsigned long long)r->counted_direct, (unsigned long long)r->counted_compat,
               (unsigned long long)r->backend_served, (unsigned long long)r->worker_requests,
               r->backend, (unsigned long long)r->others_served);
    }
}

/* Each aggregate against the sum of its method's single-device runs. */
static void print_multi_device(const struct bench_result *results, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *agg = &results[i];
        double sum;
        char name[80];
        if (!agg->aggregate || !bench_result_measured(agg))
            continue;
        printf("  %s, each device at once:", bench_result_label(agg, name, sizeof(name)));
        for (unsigned g = 0; g < agg->n_groups; g++) {
            const struct bench_result *one =
                bench_single_run_of(results, n, agg->name, agg->groups[g].device);
            printf("%s device %d %.3f GB/s", g ? ";" : "", agg->groups[g].device,
                   bench_group_gbps(&agg->groups[g]));
            if (one != NULL && bench_result_measured(one))
                printf(" (alone %.3f)", bench_result_gbps(one));
        }
        printf("\n");
        if (bench_single_runs(results, n, agg, &sum) == agg->n_groups && sum > 0)
            printf("  %s = %.3f GB/s; sum of single-device runs = %.3f GB/s; aggregate/sum = "
                   "%.2f\n",
                   name, bench_result_gbps(agg), sum, bench_result_gbps(agg) / sum);
    }
}

/* The ceiling's configuration and every one its calibration tried, with what each gave. */
static void print_ceiling(const struct bench_result *results, unsigned n)
{
    /* A worker count's configurations share a line, the plain and streamed ones of a piece too. */
    const unsigned trials_per_line = 6;
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *r = &results[i];
        char piece[32];
        if (!r->is_ceiling || !r->ran)
            continue;
        printf("  ceiling: %u worker thread%s", r->threads, r->threads == 1 ? "" : "s");
        if (r->threads != r->ceiling_threads_per_caller)
            printf(" (%u per caller thread)", r->ceiling_threads_per_caller);
        printf(", %s pieces%s; workers %s, caller %s; best of %u configurations tried %.1f s each "
               "(threads x piece GB/s, " BENCH_STREAMED_MARK ": streaming stores):",
               bench_size_text(r->ceiling_piece_size, piece, sizeof(piece)),
               r->ceiling_streamed ? ", streaming stores" : "",
               r->ceiling_workers_spin ? "spin, then sleep" : "sleep",
               r->ceiling_caller_spins ? "spins, then sleeps" : "sleeps", r->n_ceiling_trials,
               r->ceiling_trial_s);
        unsigned on_line = 0;
        for (unsigned k = 0; k < r->n_ceiling_trials; k++) {
            const struct bench_ceiling_trial *trial = &r->ceiling_trials[k];
            bool new_line = k == 0 || on_line == trials_per_line ||
                            trial->threads != r->ceiling_trials[k - 1].threads;
            on_line = new_line ? 1 : on_line + 1;
            printf("%s%ux%s%s %.3f", new_line ? "\n    " : ", ", trial->threads,
                   bench_size_short(trial->piece_size, piece, sizeof(piece)),
                   trial->streamed ? BENCH_STREAMED_MARK : "", trial->gbps);
        }
        printf("\n");
    }
}

/* The methods measured while the hypervisor took a noticeable part of the machine's CPU time. */
static void print_steal(const struct bench_result *results, unsigned n)
{
    bool any = false;
    for (unsigned i = 0; i < n; i++) {
        double share = bench_result_steal_share(&results[i]);
        if (!bench_result_measured(&results[i]) || share < BENCH_STEAL_NOTE_SHARE)
            continue;
        char name[80];
        printf("%s %.1f%% during %s",
               any ? "," : "  CPU steal (the hypervisor's share of this machine's CPU time):",
               100 * share, bench_result_label(&results[i], name, sizeof(name)));
        any = true;
    }
    if (any)
        printf("; figures taken under different steal compare less well than their ratios say\n");
}

void bench_report_text(const struct bench_ctx *ctx, const struct bench_env *env,
                       const struct bench_result *results, unsigned n)
{
    const struct bench_options *o = ctx->opts;
    char io[32], file[32];
    print_env_once(env);
    printf("\n%s: %s calls over %s, %u caller thread%s, %s memory%s%s\n", ctx->wl->name,
           bench_size_text(o->io_size, io, sizeof(io)),
           bench_size_text(ctx->chunks * o->io_size, file, sizeof(file)), o->threads,
           o->threads == 1 ? "" : "s", bench_mem_name(o->mem), o->direct ? ", O_DIRECT" : "",
           o->verify ? ", verified" : "");
    printf("  file %s (%s)%s%s\n", ctx->file->path, ctx->file->fs_type,
           o->drop_cache ? "; cache dropped before each pass: " : "",
           o->drop_cache ? bench_drop_cache_note : "");
    /* Every method runs at most one thread per call of a pass (measure/measure.c): say what runs.
     */
    unsigned running =
        ctx->baseline_threads < ctx->chunks ? ctx->baseline_threads : (unsigned)ctx->chunks;
    if (running < ctx->baseline_threads)
        printf("  raw and O_DIRECT baselines at %u threads (%s: %u, at most one per call of a "
               "pass)\n",
               running, bench_baseline_threads_reason(ctx), ctx->baseline_threads);
    else
        printf("  raw and O_DIRECT baselines at %u threads (%s)\n", running,
               bench_baseline_threads_reason(ctx));
    if (o->apis & BENCH_API_ASYNC) {
        if (o->async_wait == BENCH_ASYNC_WAIT_POLL)
            printf("  library-async waits by polling hipStreamQuery, %ld us sleeps between "
                   "(--async-wait poll)\n",
                   BENCH_ASYNC_POLL_NS / 1000);
        else
            printf("  library-async waits in hipStreamSynchronize (--async-wait sync)\n");
    }
    if (o->n_backends != 0)
        printf("  library methods served by each of --backends in its own process, passes "
               "interleaved\n");
    if (o->n_devices != 0)
        printf("  library methods on each of --devices alone, then on all %u at once (%u "
               "thread%s per device)\n",
               o->n_devices, o->threads, o->threads == 1 ? "" : "s");
    int width = 14;
    for (unsigned i = 0; i < n; i++) {
        char name[80];
        int len = (int)strlen(bench_result_label(&results[i], name, sizeof(name)));
        if (len > width)
            width = len;
    }
    printf("  %-*s %7s %6s %9s %10s %9s %9s %9s %9s %9s\n", width, "method", "threads", "passes",
           "GB/s", "IOPS", "p50 us", "p90 us", "p99 us", "max us", "CPU s/GB");
    for (unsigned i = 0; i < n; i++)
        print_result_row(&results[i], width);
    print_ratios(results, n);
    print_ceiling(results, n);
    print_served(results, n);
    print_multi_device(results, n);
    print_steal(results, n);
    fflush(stdout);
}
