/*
 * The measuring loop shared by the library and every per-call baseline: threads that each own a
 * region of the file, a warm-up, measured passes with optional cache drops, per-call latency,
 * CPU time from getrusage, --verify checks, and the progress line.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"

char bench_drop_cache_note[160];

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double bench_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/*
 * Steal time is CPU time the hypervisor gave other guests while this one had work: on a shared
 * virtual machine it slows whatever runs then, so methods measured under different steal do not
 * compare as well as their ratios suggest.
 */
static double steal_seconds(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (f == NULL)
        return -1;
    unsigned long long v[8];
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return n == 8 && hz > 0 ? (double)v[7] / (double)hz : -1;
}

struct bench_cpu_mark bench_cpu_mark_now(void)
{
    return (struct bench_cpu_mark){.process_s = bench_cpu_seconds(), .steal_s = steal_seconds()};
}

void bench_cpu_mark_charge(struct bench_result *result, const struct bench_cpu_mark *since)
{
    struct bench_cpu_mark now = bench_cpu_mark_now();
    result->cpu_s += now.process_s - since->process_s;
    if (since->steal_s < 0 || now.steal_s < 0)
        result->steal_unknown = true;
    else
        result->steal_s += now.steal_s - since->steal_s;
}

/* ---- Threads and passes --------------------------------------------------------------------- */

struct runner;

/* A method thread and the runner it reports to. */
struct slot {
    struct runner *r;
    pthread_t tid;
    struct bench_thread t;
};

/* What the coordinating thread and the method threads share. */
struct runner {
    const struct bench_ctx *ctx;
    const struct bench_method *method;
    struct slot *slots;
    unsigned n;
    pthread_mutex_t lock;
    pthread_cond_t start;    /* a new pass (or the end) for the threads */
    pthread_cond_t finished; /* the last thread of a pass is done */
    unsigned generation;     /* bumped to start a pass */
    unsigned running;        /* threads still in the pass */
    unsigned ready;          /* threads that finished setup (or failed it) */
    bool quit;
    int setup_failures;
    uint64_t deadline_ns; /* 0: none */
};

static void report_mismatch(struct bench_thread *t, const char *what, uint64_t offset, uint64_t bad)
{
    if (t->mismatches++ == 0)
        fprintf(stderr,
                BENCH_NAME ": %s %s, thread %u: %s at offset %llu differs from the pattern at "
                           "byte %llu\n",
                t->ctx->wl->name, what, t->index, t->ctx->wl->op == BENCH_READ ? "read" : "write",
                (unsigned long long)offset, (unsigned long long)bad);
}

/* Before a checked write: the pattern of this offset, in the method's buffer @p buf. */
static int verify_prepare(struct bench_thread *t, void *buf, uint64_t offset, size_t size)
{
    bench_pattern_fill(t->check, size, offset, t->ctx->seed);
    if (!t->buf_on_device) {
        memcpy(buf, t->check, size);
        return 0;
    }
    hipError_t err = hipMemcpy(buf, t->check, size, hipMemcpyHostToDevice);
    return err == hipSuccess ? 0 : bench_hip_error("hipMemcpy (--verify)", err);
}

/* After a call: the data read into @p buf, or the bytes read back from the file, match. */
static int verify_result(struct bench_thread *t, const void *buf, const char *what, uint64_t offset,
                         size_t size)
{
    const void *data = buf;
    uint64_t bad;
    if (t->ctx->wl->op == BENCH_WRITE) {
        if (bench_pread_full(t->ctx->file->check_fd, t->check, size, offset) != 0) {
            fprintf(stderr, BENCH_NAME ": read-back at offset %llu: %s\n",
                    (unsigned long long)offset, strerror(errno));
            return -1;
        }
        data = t->check;
    } else if (t->buf_on_device) {
        hipError_t err = hipMemcpy(t->check, buf, size, hipMemcpyDeviceToHost);
        if (err != hipSuccess)
            return bench_hip_error("hipMemcpy (--verify)", err);
        data = t->check;
    }
    if (!bench_pattern_check(data, size, offset, t->ctx->seed, &bad))
        report_mismatch(t, what, offset, bad);
    return 0;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

/* Where the data of call @p i of an io_many lands or comes from. */
static void *call_buffer(const struct bench_thread *t, unsigned i, size_t size)
{
    return (char *)t->buf + (size_t)i * size;
}

/*
 * One pass of one thread: a sweep of its region, --iterations calls, or until the deadline. A
 * method with io_many takes up to --batch-entries calls at once; one latency sample per take.
 */
static void run_pass(struct runner *r, struct bench_thread *t)
{
    const struct bench_options *o = r->ctx->opts;
    const struct bench_method *m = r->method;
    uint64_t calls = o->iterations != 0 ? o->iterations : t->n_chunks;
    unsigned per_take = m->io_many != NULL ? o->batch_entries : 1;
    bool verify = o->verify, write = r->ctx->wl->op == BENCH_WRITE;
    uint64_t single_offset;
    uint64_t *offsets = m->io_many != NULL ? t->offsets : &single_offset;
    if (o->iterations == 0)
        t->next = 0;
    for (uint64_t i = 0; i < calls && !t->failed;) {
        unsigned n = calls - i < per_take ? (unsigned)(calls - i) : per_take;
        for (unsigned k = 0; k < n; k++) {
            uint64_t chunk =
                r->ctx->wl->random ? next_random(&t->rng) % t->n_chunks : t->next++ % t->n_chunks;
            offsets[k] = (t->first_chunk + chunk) * o->io_size;
            if (verify && write &&
                verify_prepare(t, call_buffer(t, k, o->io_size), offsets[k], o->io_size) != 0)
                goto failed;
        }
        uint64_t t0 = bench_now_ns();
        int rc = m->io_many != NULL ? m->io_many(t, offsets, n, o->io_size)
                                    : m->io(t, offsets[0], o->io_size);
        if (rc != 0)
            goto failed;
        uint64_t t1 = bench_now_ns();
        bench_hist_add(&t->hist, t1 - t0);
        t->calls += n;
        i += n;
        atomic_fetch_add_explicit(&t->bytes, (uint64_t)n * o->io_size, memory_order_relaxed);
        for (unsigned k = 0; verify && k < n; k++)
            if (verify_result(t, call_buffer(t, k, o->io_size), m->name, offsets[k], o->io_size) !=
                0)
                goto failed;
        if ((r->deadline_ns != 0 && t1 >= r->deadline_ns) || bench_stop)
            break;
        continue;
    failed:
        t->failed = true;
    }
    if (m->pass_end != NULL && !t->failed && m->pass_end(t) != 0)
        t->failed = true;
    t->end_ns = bench_now_ns();
}

static void *thread_main(void *arg)
{
    struct slot *s = arg;
    struct runner *r = s->r;
    struct bench_thread *t = &s->t;
    unsigned seen = 0;

    /* The current device is per thread in HIP: each thread sets its own, never the caller's. */
    hipError_t err = hipSetDevice(t->device);
    int rc = err == hipSuccess ? r->method->setup(t) : bench_hip_error("hipSetDevice", err);
    pthread_mutex_lock(&r->lock);
    r->ready++;
    if (rc != 0)
        r->setup_failures++;
    pthread_cond_signal(&r->finished);
    for (;;) {
        while (r->generation == seen && !r->quit)
            pthread_cond_wait(&r->start, &r->lock);
        if (r->quit)
            break;
        seen = r->generation;
        pthread_mutex_unlock(&r->lock);
        run_pass(r, t);
        pthread_mutex_lock(&r->lock);
        if (--r->running == 0)
            pthread_cond_signal(&r->finished);
    }
    pthread_mutex_unlock(&r->lock);
    r->method->teardown(t);
    return NULL;
}

static uint64_t bytes_so_far(const struct runner *r)
{
    uint64_t bytes = 0;
    for (unsigned i = 0; i < r->n; i++)
        bytes += atomic_load_explicit(&r->slots[i].t.bytes, memory_order_relaxed);
    return bytes;
}

/* Start one pass on every thread and wait for it, printing progress twice a second. */
static void run_one_pass(struct runner *r, const char *phase, unsigned pass, uint64_t start_ns)
{
    pthread_mutex_lock(&r->lock);
    r->running = r->n;
    r->generation++;
    pthread_cond_broadcast(&r->start);
    while (r->running > 0) {
        if (!r->ctx->progress) {
            pthread_cond_wait(&r->finished, &r->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        if (pthread_cond_timedwait(&r->finished, &r->lock, &until) != ETIMEDOUT)
            continue;
        double s = (double)(bench_now_ns() - start_ns) / 1e9;
        double gb = (double)bytes_so_far(r) / 1e9;
        fprintf(stderr, "\r\033[K%s %s: %s pass %u, %.2f GB in %.1f s, %.2f GB/s", r->ctx->wl->name,
                r->method->name, phase, pass, gb, s, s > 0 ? gb / s : 0.0);
    }
    pthread_mutex_unlock(&r->lock);
}

/*
 * Give every thread its region, device, random state and check buffer. With device groups the
 * file is cut into one part per group and each part among that group's threads.
 */
static int slots_init(struct runner *r)
{
    const struct bench_ctx *ctx = r->ctx;
    unsigned groups = ctx->n_groups != 0 ? ctx->n_groups : 1;
    unsigned per_group = r->n / groups;
    uint64_t group_chunks = ctx->chunks / groups;
    for (unsigned i = 0; i < r->n; i++) {
        struct bench_thread *t = &r->slots[i].t;
        unsigned g = i / per_group, k = i % per_group;
        uint64_t per = group_chunks / per_group, extra = group_chunks % per_group;
        r->slots[i].r = r;
        t->ctx = ctx;
        t->index = i;
        t->group = g;
        t->device = ctx->n_groups != 0 ? ctx->group_devices[g] : ctx->opts->device;
        t->first_chunk = g * group_chunks + k * per + (k < extra ? k : extra);
        t->n_chunks = per + (k < extra ? 1 : 0);
        t->fd = ctx->file->fd;
        t->rng = (ctx->opts->seed + 1) * 0x9e3779b97f4a7c15ull ^
                 ((uint64_t)i + 1) * 0xd1b54a32d192ed03ull;
        if (t->rng == 0)
            t->rng = 1;
        if (ctx->opts->verify && posix_memalign(&t->check, 4096, ctx->opts->io_size) != 0) {
            fprintf(stderr, BENCH_NAME ": no memory for the --verify buffers\n");
            return -1;
        }
        if (r->method->io_many != NULL &&
            (t->offsets = calloc(ctx->opts->batch_entries, sizeof(*t->offsets))) == NULL) {
            fprintf(stderr, BENCH_NAME ": no memory for the batch offsets\n");
            return -1;
        }
    }
    return 0;
}

static void result_collect(struct runner *r, struct bench_result *result)
{
    for (unsigned i = 0; i < r->n; i++) {
        struct bench_thread *t = &r->slots[i].t;
        result->bytes += atomic_load(&t->bytes);
        result->calls += t->calls;
        result->mismatches += t->mismatches;
        result->failed |= t->failed || t->mismatches != 0;
        bench_hist_merge(&result->hist, &t->hist);
        if (r->ctx->n_groups == 0)
            continue;
        struct bench_group_result *g = &result->groups[t->group];
        g->device = t->device;
        g->threads++;
        g->bytes += atomic_load(&t->bytes);
        g->calls += t->calls;
        if ((double)t->active_ns / 1e9 > g->seconds)
            g->seconds = (double)t->active_ns / 1e9;
    }
    result->n_groups = r->ctx->n_groups;
    result->has_latency = result->calls > 0;
}

static void counters_reset(struct runner *r)
{
    for (unsigned i = 0; i < r->n; i++) {
        struct bench_thread *t = &r->slots[i].t;
        atomic_store(&t->bytes, 0);
        t->calls = 0;
        t->active_ns = 0;
        memset(&t->hist, 0, sizeof(t->hist));
    }
}

static bool any_failed(const struct runner *r)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->slots[i].t.failed || r->slots[i].t.mismatches != 0)
            return true;
    return false;
}

static uint64_t calls_so_far(const struct runner *r)
{
    uint64_t calls = 0;
    for (unsigned i = 0; i < r->n; i++)
        calls += r->slots[i].t.calls;
    return calls;
}

struct bench_session {
    struct runner r;
    unsigned started;  /* threads running */
    uint64_t start_ns; /* when the first measured pass began, for the progress line */
};

static void warm_up(struct runner *r)
{
    uint64_t now = bench_now_ns();
    r->deadline_ns = now + (uint64_t)(r->ctx->opts->warmup_s * 1e9);
    run_one_pass(r, "warm-up", 1, now);
    counters_reset(r);
}

/* Stop the threads (each tears its method down) and join them; their counters stay. */
static void session_stop(struct bench_session *s)
{
    struct runner *r = &s->r;
    pthread_mutex_lock(&r->lock);
    r->quit = true;
    pthread_cond_broadcast(&r->start);
    pthread_mutex_unlock(&r->lock);
    for (unsigned i = 0; i < s->started; i++)
        pthread_join(r->slots[i].tid, NULL);
    s->started = 0;
}

static void session_free(struct bench_session *s)
{
    struct runner *r = &s->r;
    session_stop(s);
    for (unsigned i = 0; i < r->n; i++) {
        free(r->slots[i].t.check);
        free(r->slots[i].t.offsets);
    }
    pthread_cond_destroy(&r->finished);
    pthread_cond_destroy(&r->start);
    pthread_mutex_destroy(&r->lock);
    free(r->slots);
    free(s);
}

int bench_session_open(const struct bench_ctx *ctx, const struct bench_method *method,
                       struct bench_result *result, struct bench_session **session_p)
{
    /* Every thread owns at least one call's worth of the file. */
    unsigned n = method->threads < ctx->chunks ? method->threads : (unsigned)ctx->chunks;
    bench_result_init(result, method->name);
    *session_p = NULL;
    struct bench_session *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->r.slots = calloc(n, sizeof(*s->r.slots))) == NULL) {
        snprintf(result->note, sizeof(result->note), "no memory for %u threads", n);
        result->failed = true;
        free(s);
        return -1;
    }
    struct runner *r = &s->r;
    r->ctx = ctx;
    r->method = method;
    r->n = n;
    result->threads = n;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->start, NULL);
    pthread_cond_init(&r->finished, NULL);
    if (slots_init(r) != 0) {
        snprintf(result->note, sizeof(result->note), "setup failed");
        goto failed;
    }
    for (; s->started < r->n; s->started++) {
        int rc =
            pthread_create(&r->slots[s->started].tid, NULL, thread_main, &r->slots[s->started]);
        if (rc != 0) {
            snprintf(result->note, sizeof(result->note), "cannot start thread %u: %s", s->started,
                     strerror(rc));
            goto failed;
        }
    }
    pthread_mutex_lock(&r->lock);
    while (r->ready < s->started)
        pthread_cond_wait(&r->finished, &r->lock);
    pthread_mutex_unlock(&r->lock);
    if (r->setup_failures > 0) {
        snprintf(result->note, sizeof(result->note), "setup failed on %d of %u threads",
                 r->setup_failures, r->n);
        goto failed;
    }
    if (ctx->opts->warmup_s > 0)
        warm_up(r);
    s->start_ns = bench_now_ns();
    *session_p = s;
    return 0;

failed:
    session_free(s);
    result->failed = true;
    return -1;
}

int bench_session_pass(struct bench_session *s, uint64_t budget_ns, struct bench_result *result,
                       uint64_t *pass_ns_p)
{
    struct runner *r = &s->r;
    const struct bench_ctx *ctx = r->ctx;
    struct bench_counts before, after;
    if (ctx->opts->drop_cache)
        bench_file_drop_cache(ctx->file, bench_drop_cache_note, sizeof(bench_drop_cache_note));
    if (ctx->count_requests && bench_counts_take(&before) != 0)
        return bench_result_fail(result, "cannot read the library's statistics");
    uint64_t calls_before = calls_so_far(r);
    /* Each group's calls of this pass: minus the count before it here, plus the count after. */
    uint64_t group_calls[BENCH_MAX_DEVICES] = {0};
    for (unsigned i = 0; i < r->n; i++)
        group_calls[r->slots[i].t.group] -= r->slots[i].t.calls;
    struct bench_cpu_mark c0 = bench_cpu_mark_now();
    uint64_t t0 = bench_now_ns();
    r->deadline_ns = budget_ns != 0 ? t0 + budget_ns : 0;
    run_one_pass(r, "measured", result->passes + 1, s->start_ns);
    uint64_t t1 = t0;
    for (unsigned i = 0; i < r->n; i++) {
        struct bench_thread *t = &r->slots[i].t;
        if (t->end_ns > t1)
            t1 = t->end_ns;
        t->active_ns += t->end_ns - t0;
    }
    result->seconds += (double)(t1 - t0) / 1e9;
    bench_cpu_mark_charge(result, &c0);
    result->passes++;
    *pass_ns_p = t1 - t0;
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
    if (any_failed(r))
        return -1;
    if (ctx->count_requests) {
        if (bench_counts_take(&after) != 0)
            return bench_result_fail(result, "cannot read the library's statistics");
        for (unsigned i = 0; i < r->n; i++)
            group_calls[r->slots[i].t.group] += r->slots[i].t.calls;
        return bench_counts_check(ctx, &before, &after, calls_so_far(r) - calls_before, group_calls,
                                  result);
    }
    return 0;
}

void bench_session_close(struct bench_session *s, struct bench_result *result)
{
    session_stop(s);
    result_collect(&s->r, result);
    session_free(s);
    result->ran = true;
    if (result->mismatches != 0)
        snprintf(result->note, sizeof(result->note), "wrong data in %llu call(s)",
                 (unsigned long long)result->mismatches);
    else if (result->failed && result->note[0] == '\0')
        snprintf(result->note, sizeof(result->note), "stopped by an I/O error");
    if (result->note[0] != '\0')
        result->failed = true;
}

int bench_measure(const struct bench_ctx *ctx, const struct bench_method *method,
                  struct bench_result *result)
{
    struct bench_session *s;
    if (bench_session_open(ctx, method, result, &s) != 0)
        return -1;
    uint64_t time_ns = (uint64_t)(ctx->opts->time_s * 1e9), measured_ns = 0, pass_ns;
    int rc = 0;
    while (rc == 0 && !bench_stop) {
        rc = bench_session_pass(s, time_ns != 0 ? time_ns - measured_ns : 0, result, &pass_ns);
        measured_ns += pass_ns;
        if (time_ns != 0 ? measured_ns >= time_ns : result->passes >= ctx->opts->passes)
            break;
    }
    bench_session_close(s, result);
    return result->failed ? -1 : 0;
}

int bench_measure_named(const struct bench_ctx *ctx, const struct bench_method *base,
                        const char *name, unsigned threads, struct bench_result *result)
{
    struct bench_method m = *base;
    m.name = name;
    m.threads = threads;
    int rc = bench_measure(ctx, &m, result);
    return bench_settle_writes(ctx) != 0 ? -1 : rc;
}
