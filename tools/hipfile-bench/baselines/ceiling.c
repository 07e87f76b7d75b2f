/*
 * The ceiling baseline: one synchronous read of --io-size bytes into device memory on the best
 * bare pipeline this machine has (ceiling_pool.c), so that what the library spends per call shows
 * as a ratio. A short calibration tries worker counts and piece sizes, as the H200 probe did, each
 * with and without streaming stores into staging, as the library's fallback stages; the best is
 * then measured like every other method: same file, call size, offsets, passes, --verify.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines/ceiling_pool.h"
#include "common/stream_copy.h"

/*
 * Seconds each configuration gets in the calibration: at most 30 of them (15 where the CPU has no
 * streaming stores), 3 s in all.
 */
#define TRIAL_S 0.1

/* Worker threads over all caller threads, as the probe tried them; capped at the online CPUs. */
static const unsigned total_worker_counts[] = {8, 12, 16};

/*
 * Bytes a worker claims at a time. On the H200 the probe's best pieces were 256 KiB to 4 MiB:
 * smaller ones pay a pread and a copy launch per few microseconds of transfer, larger ones leave
 * too few pieces to spread a call over the workers.
 */
static const size_t piece_sizes[] = {256u << 10, 512u << 10, 1u << 20, 2u << 20, 4u << 20};

/* Each worker count and piece size is tried plain and streamed. */
_Static_assert(sizeof(total_worker_counts) / sizeof(total_worker_counts[0]) *
                       (sizeof(piece_sizes) / sizeof(piece_sizes[0])) * 2 <=
                   BENCH_CEILING_MAX_TRIALS,
               "BENCH_CEILING_MAX_TRIALS holds every configuration of the calibration");

struct bench_ceiling_shape {
    unsigned threads_per_caller;
    size_t piece_size;
    bool streamed;
    bool workers_spin, caller_spins;
    struct ceiling_pool **pools; /* one per caller thread, by bench_thread.index */
};

/* ---- The method: one caller thread's calls through its pool ---------------------------------- */

static int ceiling_setup(struct bench_thread *t)
{
    const struct bench_ceiling_shape *shape = t->ctx->ceiling;
    struct ceiling_pool *pool = shape->pools[t->index];
    t->buf = ceiling_pool_device_buffer(pool);
    t->buf_on_device = true;
    if (ceiling_pool_start(pool, shape->threads_per_caller, shape->piece_size, shape->streamed,
                           t->fd, shape->workers_spin, shape->caller_spins) != 0)
        return -1;
    t->api = pool;
    return 0;
}

static int ceiling_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    struct ceiling_error error;
    if (ceiling_pool_read(t->api, offset, size, &error) == 0)
        return 0;
    return bench_call_error(t, error.call, error.offset, error.why);
}

/* The buffers belong to the pool, which outlives every configuration measured. */
static void ceiling_teardown(struct bench_thread *t)
{
    if (t->api != NULL)
        ceiling_pool_stop(t->api);
    t->api = NULL;
    t->buf = NULL;
}

static struct bench_method ceiling_method(unsigned callers)
{
    return (struct bench_method){.name = "ceiling",
                                 .threads = callers,
                                 .setup = ceiling_setup,
                                 .io = ceiling_io,
                                 .teardown = ceiling_teardown};
}

/* ---- Calibration ----------------------------------------------------------------------------- */

/*
 * The configurations to try, fewest workers first. Pieces above half the call would leave workers
 * idle, so only the smallest piece is tried for a call that small. Each is tried plain and, where
 * the CPU has streaming stores, streamed: which wins depends on the piece size and on how the
 * machine's copy engine reads lines a core holds modified, so only measuring both keeps this the
 * best bare pipeline.
 */
static unsigned trials_make(const struct bench_ctx *ctx, unsigned callers,
                            struct bench_ceiling_trial *trials)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cap = cpus > 1 ? (unsigned)cpus : 1, last_per_caller = 0, n = 0;
    size_t io_size = ctx->opts->io_size;
    bool streams = hfp_stream_copy_available();
    for (size_t c = 0; c < sizeof(total_worker_counts) / sizeof(total_worker_counts[0]); c++) {
        unsigned total = total_worker_counts[c] < cap ? total_worker_counts[c] : cap;
        unsigned per_caller = total / callers > 0 ? total / callers : 1;
        if (per_caller == last_per_caller)
            continue;
        last_per_caller = per_caller;
        for (size_t p = 0; p < sizeof(piece_sizes) / sizeof(piece_sizes[0]); p++) {
            if (p > 0 && 2 * piece_sizes[p] > io_size)
                break;
            struct bench_ceiling_trial trial = {.threads = per_caller * callers,
                                                .piece_size = piece_sizes[p]};
            trials[n++] = trial;
            if (streams) {
                trial.streamed = true;
                trials[n++] = trial;
            }
        }
    }
    return n;
}

static struct bench_ceiling_shape shape_of(const struct bench_ceiling_trial *trial,
                                           unsigned callers, struct ceiling_pool **pools)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned per_caller = trial->threads / callers;
    /*
     * A thread that spins where the CPUs are all taken steals the CPU of one that has work: the
     * workers spin when they have a CPU each, the callers when they have one too.
     */
    return (struct bench_ceiling_shape){
        .threads_per_caller = per_caller,
        .piece_size = trial->piece_size,
        .streamed = trial->streamed,
        .workers_spin = (long)callers * per_caller <= cpus,
        .caller_spins = (long)callers * (per_caller + 1) <= cpus,
        .pools = pools,
    };
}

/*
 * Measure each trial for TRIAL_S seconds, untimed first call included, without --verify (the
 * measurement of the best one checks). Stores the best's index in *best_p. 0, or -1 with
 * result's note set.
 */
static int calibrate(const struct bench_ctx *ctx, unsigned callers, struct ceiling_pool **pools,
                     struct bench_ceiling_trial *trials, unsigned n, unsigned *best_p,
                     struct bench_result *result)
{
    struct bench_options quick = *ctx->opts;
    struct bench_ctx quick_ctx = *ctx;
    struct bench_method method = ceiling_method(callers);
    quick.time_s = TRIAL_S;
    /* One untimed call per caller: the first copy on a new stream pays the runtime's set-up. */
    quick.warmup_s = 1e-9;
    quick.verify = false;
    quick_ctx.opts = &quick;
    quick_ctx.progress = false;
    *best_p = 0;
    for (unsigned i = 0; i < n && !bench_stop; i++) {
        struct bench_ceiling_shape shape = shape_of(&trials[i], callers, pools);
        char piece[32];
        if (ctx->progress)
            fprintf(stderr, "\r\033[K%s ceiling: calibrating %u of %u (%u threads, %s pieces%s)",
                    ctx->wl->name, i + 1, n, trials[i].threads,
                    bench_size_short(trials[i].piece_size, piece, sizeof(piece)),
                    trials[i].streamed ? ", streaming stores" : "");
        quick_ctx.ceiling = &shape;
        if (bench_measure(&quick_ctx, &method, result) != 0) {
            char why[sizeof(result->note)];
            snprintf(why, sizeof(why), "%s", result->note);
            snprintf(result->note, sizeof(result->note), "calibration: %.*s",
                     (int)sizeof(result->note) - 14, why);
            return -1;
        }
        trials[i].gbps = result->seconds > 0 ? (double)result->bytes / result->seconds / 1e9 : 0;
        if (trials[i].gbps > trials[*best_p].gbps)
            *best_p = i;
    }
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
    return 0;
}

/* ---- The baseline ---------------------------------------------------------------------------- */

static int measure_best(const struct bench_ctx *ctx, unsigned callers, struct ceiling_pool **pools,
                        struct bench_ceiling_trial *trials, unsigned n_trials,
                        struct bench_result *result)
{
    unsigned best;
    if (calibrate(ctx, callers, pools, trials, n_trials, &best, result) != 0)
        return -1;
    if (bench_stop)
        return bench_result_fail(result, "interrupted");
    struct bench_ceiling_shape shape = shape_of(&trials[best], callers, pools);
    struct bench_ctx best_ctx = *ctx;
    struct bench_method method = ceiling_method(callers);
    best_ctx.ceiling = &shape;
    int rc = bench_measure(&best_ctx, &method, result);
    result->is_ceiling = true;
    result->threads = trials[best].threads;
    result->ceiling_threads_per_caller = shape.threads_per_caller;
    result->ceiling_piece_size = shape.piece_size;
    result->ceiling_streamed = shape.streamed;
    result->ceiling_workers_spin = shape.workers_spin;
    result->ceiling_caller_spins = shape.caller_spins;
    result->ceiling_trial_s = TRIAL_S;
    result->n_ceiling_trials = n_trials;
    memcpy(result->ceiling_trials, trials, n_trials * sizeof(*trials));
    return rc;
}

int bench_ceiling_measure(const struct bench_ctx *ctx, struct bench_result *result)
{
    const struct bench_options *o = ctx->opts;
    /* As many callers as bench_measure runs: each owns at least one call of the file. */
    unsigned callers = o->threads < ctx->chunks ? o->threads : (unsigned)ctx->chunks;
    struct bench_ceiling_trial trials[BENCH_CEILING_MAX_TRIALS];
    unsigned n_trials = trials_make(ctx, callers, trials);
    unsigned max_per_caller = trials[n_trials - 1].threads / callers;
    size_t staging = trials[n_trials - 1].piece_size;
    int rc = -1;

    bench_result_init(result, "ceiling");
    if (staging > o->io_size)
        staging = o->io_size;
    /* The pools are made once for the run, here, on --device; their workers set it too. */
    hipError_t err = hipSetDevice(o->device);
    if (err != hipSuccess) {
        bench_hip_error("hipSetDevice", err);
        return bench_result_fail(result, "hipSetDevice failed");
    }
    struct ceiling_pool **pools = calloc(callers, sizeof(*pools));
    if (pools == NULL)
        return bench_result_fail(result, "no memory");
    for (unsigned i = 0; i < callers; i++) {
        if (ceiling_pool_create(max_per_caller, staging, o->io_size, o->device, &pools[i]) != 0) {
            bench_result_fail(result, "cannot make the pinned buffers, streams and events");
            goto destroy_pools;
        }
    }
    rc = measure_best(ctx, callers, pools, trials, n_trials, result);
destroy_pools:
    for (unsigned i = 0; i < callers; i++)
        ceiling_pool_destroy(pools[i]);
    free(pools);
    return rc;
}
