/*
 * hipfile-bench: sets the library up, makes the benchmark file, then for each workload (and with
 * --sweep for each call size) measures the library (as it chooses its backend, per --backends or
 * per --devices) and every baseline that applies in the same run, and reports them side by side.
 *
 * Where things are, in the order a run meets them (bench.h declares what the folders share):
 *   options/    the command line: options.c takes each option by its --help group, the values
 *               in option_values.c and option_lists.c, combinations in option_checks.c, the
 *               --help text in help.c, sizes written for people in size_text.c
 *   measure/    what every method is timed in: the file and its pattern (file.c), the threads,
 *               passes and warm-up (measure.c), latency histograms (hist.c), the library's
 *               statistics as a check (counts.c), buffers (memory.c), failures (errors.c), result
 *               rows (result.c)
 *   methods/    the ways the library is measured: the driver set up and which methods run
 *               (library.c), the sync, async and batch APIs (library_sync.c, library_async.c,
 *               library_batch.c), each backend in a worker process of its own (backends.c,
 *               worker.c), each device alone and all at once (devices.c)
 *   baselines/  what the library is judged against: which apply (baselines.c), the per-call ones
 *               such as pread and O_DIRECT (per_call.c), pinned copy bandwidth (pinned_copy.c),
 *               the best bare pipeline for one call (ceiling.c on ceiling_pool.c)
 *   report/     what is printed: facts about the machine (environment.c), the figures and which
 *               results are compared (figures.c), text (text.c) or JSON (json.c), the --sweep
 *               table (sweep.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common/cmdline.h"
#include "methods/worker.h"

volatile sig_atomic_t bench_stop;

static void stop_on_signal(int signo)
{
    (void)signo;
    bench_stop = 1;
}

/* The library once per --api, named after the API ("library" is the sync one), then sync-seq. */
static int measure_library(const struct bench_ctx *ctx, const unsigned *which, unsigned n_which,
                           struct bench_result *results, unsigned *n_p)
{
    int rc = 0;
    for (unsigned i = 0; i < n_which && !bench_stop; i++) {
        struct bench_options seq_opts;
        struct bench_ctx mctx;
        struct bench_method m;
        bench_library_method(ctx, which[i], &seq_opts, &mctx, &m);
        rc |= bench_measure_named(&mctx, &m, m.name, m.threads, &results[(*n_p)++]);
    }
    return rc;
}

static int run_workload(struct bench_ctx *ctx, const struct bench_env *env, unsigned index)
{
    const struct bench_options *o = ctx->opts;
    struct bench_file *f = ctx->file;
    unsigned which[4], n_which = bench_library_methods(o, which);
    unsigned per_method = o->n_backends != 0  ? o->n_backends
                          : o->n_devices != 0 ? o->n_devices + 1
                                              : 1;
    struct bench_result *results = calloc(n_which * per_method + 8, sizeof(*results));
    unsigned n = 0;
    int rc = 0;

    if (results == NULL) {
        fprintf(stderr, BENCH_NAME ": no memory for the results\n");
        return -1;
    }
    ctx->wl = &bench_workloads[index];
    /* Writes put their own pattern down, so a write that never reached the file is caught. */
    ctx->seed = ctx->wl->op == BENCH_READ ? o->seed : o->seed + 1 + index;
    if (ctx->wl->op == BENCH_READ && o->verify &&
        (!f->pattern_known || f->expected_seed != o->seed) &&
        bench_file_fill(f, ctx->chunks * o->io_size, o->seed, ctx->progress) != 0) {
        free(results);
        return -1;
    }
    if (o->n_backends != 0)
        rc |= bench_backends_measure(ctx, which, n_which, results, &n);
    else if (o->n_devices != 0)
        rc |= bench_devices_measure(ctx, which, n_which, results, &n);
    else
        rc |= measure_library(ctx, which, n_which, results, &n);
    rc |= bench_baselines_measure(ctx, results[0].bytes, results, &n);
    if (ctx->wl->op == BENCH_WRITE)
        f->pattern_known = false;
    if (ctx->sweep != NULL)
        bench_sweep_add(ctx->sweep, ctx, env, results, n);
    else
        bench_report(ctx, env, results, n);
    free(results);
    return rc;
}

/*
 * What the command line asks of the file that only the open file can answer: --direct needs
 * every call to be whole O_DIRECT blocks, and write workloads need a file we may write.
 */
static bool file_suits_options(const struct bench_options *o, const struct bench_file *file)
{
    for (unsigned i = 0; i < (o->n_sweep != 0 ? o->n_sweep : 1); i++) {
        size_t io_size = o->n_sweep != 0 ? o->sweep_sizes[i] : o->io_size;
        if (o->direct && io_size % file->dio_align != 0) {
            fprintf(stderr,
                    BENCH_NAME ": --direct needs %s to be a multiple of the file's O_DIRECT "
                               "alignment, %u bytes\n",
                    o->n_sweep != 0 ? "every --sweep size" : "--io-size", file->dio_align);
            return false;
        }
    }
    for (unsigned i = 0; i < 4; i++) {
        if ((o->workloads & (1u << i)) && bench_workloads[i].op == BENCH_WRITE &&
            file->access == O_RDONLY) {
            fprintf(stderr, BENCH_NAME ": --workload %s: %s may only be read\n",
                    bench_workloads[i].name, file->path);
            return false;
        }
    }
    return true;
}

static int run_all(const struct bench_options *o, struct bench_file *file,
                   const struct bench_env *env, struct bench_sweep *sweep)
{
    struct bench_ctx ctx = {
        .opts = o,
        .file = file,
        .chunks = o->file_size / o->io_size,
        .executor_threads = (unsigned)env->io_threads,
        .progress = tool_progress_wanted(o->progress),
        .sweep = sweep,
    };
    ctx.baseline_threads = o->baseline_threads != 0 ? o->baseline_threads
                           : o->threads == 1        ? ctx.executor_threads + 1
                                                    : o->threads;
    /* What the cache drop does is found out and said once: a sweep comes here once per size. */
    if (o->drop_cache && bench_drop_cache_note[0] == '\0') {
        if (bench_file_drop_cache(file, bench_drop_cache_note, sizeof(bench_drop_cache_note)) != 0)
            fprintf(stderr, BENCH_NAME ": warning: --drop-cache: %s; reads may be cached\n",
                    bench_drop_cache_note);
        else if (strncmp(bench_drop_cache_note, "sync,", 5) != 0)
            fprintf(stderr, BENCH_NAME ": note: --drop-cache drops %s\n", bench_drop_cache_note);
    }
    int rc = 0;
    for (unsigned i = 0; i < 4 && !bench_stop; i++)
        if (o->workloads & (1u << i))
            rc |= run_workload(&ctx, env, i);
    return rc;
}

/* --sweep: every workload once per call size, in the order given, then the table of them all. */
static int run_sweep(const struct bench_options *o, struct bench_file *file,
                     const struct bench_env *env)
{
    struct bench_sweep *sweep = bench_sweep_begin(o);
    int rc = 0;
    if (sweep == NULL)
        return -1;
    for (unsigned i = 0; i < o->n_sweep && !bench_stop; i++) {
        struct bench_options size_opts = *o;
        size_opts.io_size = o->sweep_sizes[i];
        rc |= run_all(&size_opts, file, env, sweep);
    }
    bench_sweep_end(sweep);
    return rc;
}

int main(int argc, char **argv)
{
    struct bench_options opts;
    struct bench_file file;
    struct bench_env env;

    int parsed = bench_options_parse(argc, argv, &opts);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = stop_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (opts.worker_fds[0] >= 0)
        return bench_worker_main(&opts);

    int rc = 0;
    if (opts.n_backends != 0) {
        /* A command to a worker that died fails with EPIPE instead of ending this program. */
        signal(SIGPIPE, SIG_IGN);
        rc = bench_backends_probe(&opts);
        if (rc != 0)
            return rc;
    }
    rc = bench_library_open(&opts);
    if (rc != 0)
        return rc < 0 ? 1 : rc;
    bench_env_gather(&opts, &env);
    rc = 1;
    if (bench_file_open(&opts, &file) == 0) {
        if (!file_suits_options(&opts, &file))
            rc = 2;
        else if (opts.n_sweep != 0)
            rc = run_sweep(&opts, &file, &env) != 0 ? 1 : 0;
        else
            rc = run_all(&opts, &file, &env, NULL) != 0 ? 1 : 0;
        bench_file_close(&opts, &file);
    }
    hipFileError_t status = hipFileDriverClose();
    if (status.err != hipFileSuccess)
        rc = bench_status_error("hipFileDriverClose", status);
    if (bench_stop) {
        fprintf(stderr, BENCH_NAME ": interrupted\n");
        return 130;
    }
    return rc < 0 ? 1 : rc;
}
