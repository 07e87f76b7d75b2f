/*
 * The ceiling baseline's pipeline for one caller thread: persistent workers, each with its own
 * stream and pinned double buffer, claim pieces of a call from a shared counter, pread each piece
 * into one buffer (directly, or through a small bounce with streaming stores) while the copy out
 * of the other is in flight, and synchronize their stream once at the end of the call. Nothing is
 * allocated and no thread is started while a call runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/ceiling_pool.h"
#include "common/stream_copy.h"

/*
 * Back-to-back calls leave a worker idle from the end of its last piece until the caller's next
 * call: the spread of the workers' finishing times plus the caller's turnaround, a few hundred
 * microseconds at most for calls of a few MiB (a 4 MiB call takes ~250 us at the probe's rate).
 * Spinning that long keeps a wake-up (tens of microseconds on a VM) out of every call; longer
 * gaps (between passes, during --verify) sleep.
 */
#define WORKER_SPIN_NS 200000ull

/*
 * The caller waits for a whole call. Calls up to a few MiB end within 2 ms; a longer call pays one
 * wake-up, under 1% of it.
 */
#define CALLER_SPIN_NS 2000000ull

/* Bytes of a cache line on every CPU this runs on, the bounce's alignment. */
#define BOUNCE_ALIGN 64

/* A word one thread waits on for a change: it spins first, then sleeps on a condition variable. */
struct park {
    _Atomic unsigned word;
    atomic_bool sleeping;
    pthread_mutex_t lock;
    pthread_cond_t wake;
};

struct ceiling_worker {
    struct ceiling_pool *pool;
    pthread_t thread;
    struct park call; /* the generation of the call this worker is asked to join */
    hipStream_t stream;
    void *staging[2];
    hipEvent_t copied[2]; /* recorded after the copy out of staging[i] */
    /*
     * Streamed starts pread into this, then stream it on to staging. Ordinary memory: only this
     * worker's core touches it, and it should stay in that core's cache.
     */
    void *bounce;
};

struct ceiling_pool {
    int device;
    char *device_buffer;
    unsigned max_workers;
    struct ceiling_worker *workers;
    /* set by ceiling_pool_start */
    unsigned started;
    size_t piece_size;
    bool streamed;
    int fd;
    uint64_t worker_spin_ns, caller_spin_ns;
    atomic_bool quit;
    /* the call in progress, written by the caller before it wakes the workers */
    unsigned generation;
    uint64_t call_offset;
    size_t call_size;
    _Atomic size_t next_byte;
    _Atomic unsigned unfinished;
    atomic_bool failed;
    struct ceiling_error error; /* written by the first worker that fails a call */
    struct park done;           /* the generation of the last call every worker finished */
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void park_init(struct park *p)
{
    atomic_init(&p->word, 0);
    atomic_init(&p->sleeping, false);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
}

static void park_destroy(struct park *p)
{
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
}

/*
 * Wait until the word differs from @p seen and return it. The sleeper announces itself before it
 * reads the word again, and park_set stores the word before it looks for a sleeper; both are
 * sequentially consistent, so one of the two always sees the other and no wake-up is lost.
 */
static unsigned park_wait(struct park *p, unsigned seen, uint64_t spin_ns)
{
    unsigned word = atomic_load(&p->word);
    if (word != seen || spin_ns == 0)
        goto sleep;
    uint64_t until = bench_now_ns() + spin_ns;
    for (unsigned i = 1;; i++) {
        cpu_relax();
        if ((word = atomic_load(&p->word)) != seen)
            return word;
        /* A clock read costs as much as dozens of pauses. */
        if (i % 64 == 0 && bench_now_ns() >= until)
            break;
    }
sleep:
    if (word != seen)
        return word;
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->sleeping, true);
    while ((word = atomic_load(&p->word)) == seen)
        pthread_cond_wait(&p->wake, &p->lock);
    atomic_store(&p->sleeping, false);
    pthread_mutex_unlock(&p->lock);
    return word;
}

static void park_set(struct park *p, unsigned word)
{
    atomic_store(&p->word, word);
    if (atomic_load(&p->sleeping)) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The first failure of a call is the one reported; it also stops the other workers claiming. */
static void call_fail(struct ceiling_pool *pool, const char *call, uint64_t offset, const char *why)
{
    if (atomic_exchange(&pool->failed, true))
        return;
    pool->error.call = call;
    pool->error.offset = offset;
    snprintf(pool->error.why, sizeof(pool->error.why), "%s", why);
}

static void call_fail_hip(struct ceiling_pool *pool, const char *call, uint64_t offset,
                          hipError_t err)
{
    call_fail(pool, call, offset, hipGetErrorString(err));
}

/* Claim pieces until the call is used up: pread into one buffer while the other is copied. */
static void worker_run_call(struct ceiling_worker *w)
{
    struct ceiling_pool *pool = w->pool;
    bool in_flight[2] = {false, false};
    unsigned turn = 0;
    hipError_t err;
    for (;;) {
        size_t at =
            atomic_fetch_add_explicit(&pool->next_byte, pool->piece_size, memory_order_relaxed);
        if (at >= pool->call_size || atomic_load_explicit(&pool->failed, memory_order_relaxed))
            break;
        size_t n =
            pool->call_size - at < pool->piece_size ? pool->call_size - at : pool->piece_size;
        uint64_t offset = pool->call_offset + at;
        unsigned b = turn++ & 1;
        /* The buffer's previous copy must be done before pread overwrites it. */
        if (in_flight[b] && (err = hipEventSynchronize(w->copied[b])) != hipSuccess) {
            call_fail_hip(pool, "hipEventSynchronize", offset, err);
            break;
        }
        int read_rc = pool->streamed
                          ? bench_pread_streamed(pool->fd, w->staging[b], n, offset, w->bounce)
                          : bench_pread_full(pool->fd, w->staging[b], n, offset);
        if (read_rc != 0) {
            call_fail(pool, "pread", offset,
                      errno == ENODATA ? "unexpected end of file" : strerror(errno));
            break;
        }
        err = hipMemcpyAsync(pool->device_buffer + at, w->staging[b], n, hipMemcpyHostToDevice,
                             w->stream);
        if (err != hipSuccess) {
            call_fail_hip(pool, "hipMemcpyAsync", offset, err);
            break;
        }
        in_flight[b] = true;
        if ((err = hipEventRecord(w->copied[b], w->stream)) != hipSuccess) {
            call_fail_hip(pool, "hipEventRecord", offset, err);
            break;
        }
    }
    /* Even after a failure: the staging buffers must be free before the next call. */
    if ((in_flight[0] || in_flight[1]) && (err = hipStreamSynchronize(w->stream)) != hipSuccess)
        call_fail_hip(pool, "hipStreamSynchronize", pool->call_offset, err);
}

static void *worker_main(void *arg)
{
    struct ceiling_worker *w = arg;
    struct ceiling_pool *pool = w->pool;
    unsigned seen = 0;
    /* The current device is per thread in HIP; the pool's streams and buffers are on this one. */
    hipError_t device_err = hipSetDevice(pool->device);
    for (;;) {
        seen = park_wait(&w->call, seen, pool->worker_spin_ns);
        if (atomic_load(&pool->quit))
            break;
        if (device_err != hipSuccess)
            call_fail_hip(pool, "hipSetDevice", pool->call_offset, device_err);
        else
            worker_run_call(w);
        if (atomic_fetch_sub(&pool->unfinished, 1) == 1)
            park_set(&pool->done, seen);
    }
    return NULL;
}

int ceiling_pool_read(struct ceiling_pool *pool, uint64_t offset, size_t size,
                      struct ceiling_error *error_p)
{
    /* Only as many workers as the call has pieces: waking the others would be pure cost. */
    size_t pieces = (size + pool->piece_size - 1) / pool->piece_size;
    unsigned joining = pieces < pool->started ? (unsigned)pieces : pool->started;
    unsigned generation = ++pool->generation;
    pool->call_offset = offset;
    pool->call_size = size;
    atomic_store_explicit(&pool->next_byte, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->failed, false, memory_order_relaxed);
    atomic_store(&pool->unfinished, joining);
    for (unsigned i = 0; i < joining; i++)
        park_set(&pool->workers[i].call, generation);
    unsigned done = generation - 1;
    while (done != generation)
        done = park_wait(&pool->done, done, pool->caller_spin_ns);
    if (!atomic_load(&pool->failed))
        return 0;
    *error_p = pool->error;
    return -1;
}

int ceiling_pool_start(struct ceiling_pool *pool, unsigned workers, size_t piece_size,
                       bool streamed, int fd, bool workers_spin, bool caller_spins)
{
    pool->piece_size = piece_size;
    pool->streamed = streamed;
    pool->fd = fd;
    pool->worker_spin_ns = workers_spin ? WORKER_SPIN_NS : 0;
    pool->caller_spin_ns = caller_spins ? CALLER_SPIN_NS : 0;
    atomic_store(&pool->quit, false);
    pool->generation = 0;
    atomic_store(&pool->done.word, 0);
    for (pool->started = 0; pool->started < workers; pool->started++) {
        struct ceiling_worker *w = &pool->workers[pool->started];
        /* A worker's park counts calls of this start only. */
        atomic_store(&w->call.word, 0);
        int rc = pthread_create(&w->thread, NULL, worker_main, w);
        if (rc != 0) {
            fprintf(stderr, BENCH_NAME ": ceiling: cannot start worker thread %u: %s\n",
                    pool->started, strerror(rc));
            ceiling_pool_stop(pool);
            return -1;
        }
    }
    return 0;
}

void ceiling_pool_stop(struct ceiling_pool *pool)
{
    atomic_store(&pool->quit, true);
    for (unsigned i = 0; i < pool->started; i++)
        park_set(&pool->workers[i].call, atomic_load(&pool->workers[i].call.word) + 1);
    for (unsigned i = 0; i < pool->started; i++)
        pthread_join(pool->workers[i].thread, NULL);
    pool->started = 0;
}

static int worker_buffers_create(struct ceiling_worker *w, size_t staging_size)
{
    hipError_t err = hipStreamCreateWithFlags(&w->stream, hipStreamNonBlocking);
    if (err != hipSuccess) {
        w->stream = NULL;
        return bench_hip_error("hipStreamCreateWithFlags", err);
    }
    for (unsigned b = 0; b < 2; b++) {
        if (bench_alloc(BENCH_MEM_PINNED, staging_size, &w->staging[b]) != 0)
            return -1;
        if ((err = hipEventCreateWithFlags(&w->copied[b], hipEventDisableTiming)) != hipSuccess) {
            w->copied[b] = NULL;
            return bench_hip_error("hipEventCreateWithFlags", err);
        }
    }
    /* Aligned to a cache line, so that each copy out of it loads whole lines. */
    w->bounce = aligned_alloc(BOUNCE_ALIGN, HFP_STREAM_BOUNCE_SIZE);
    if (w->bounce == NULL) {
        fprintf(stderr, BENCH_NAME ": ceiling: no memory for a %zu-byte bounce buffer\n",
                HFP_STREAM_BOUNCE_SIZE);
        return -1;
    }
    return 0;
}

static void worker_buffers_destroy(struct ceiling_worker *w)
{
    free(w->bounce);
    for (unsigned b = 0; b < 2; b++) {
        if (w->copied[b] != NULL)
            (void)hipEventDestroy(w->copied[b]);
        bench_free(BENCH_MEM_PINNED, w->staging[b]);
    }
    if (w->stream != NULL)
        (void)hipStreamDestroy(w->stream);
}

int ceiling_pool_create(unsigned max_workers, size_t staging_size, size_t call_size, int device,
                        struct ceiling_pool **pool_p)
{
    struct ceiling_pool *pool = calloc(1, sizeof(*pool));
    if (pool == NULL || (pool->workers = calloc(max_workers, sizeof(*pool->workers))) == NULL) {
        fprintf(stderr, BENCH_NAME ": ceiling: no memory for %u workers\n", max_workers);
        free(pool);
        return -1;
    }
    pool->device = device;
    pool->max_workers = max_workers;
    atomic_init(&pool->next_byte, 0);
    atomic_init(&pool->unfinished, 0);
    atomic_init(&pool->failed, false);
    atomic_init(&pool->quit, false);
    park_init(&pool->done);
    for (unsigned i = 0; i < max_workers; i++) {
        pool->workers[i].pool = pool;
        park_init(&pool->workers[i].call);
    }
    void *device_buffer = NULL;
    int rc = bench_alloc(BENCH_MEM_DEVICE, call_size, &device_buffer);
    pool->device_buffer = device_buffer;
    for (unsigned i = 0; i < max_workers && rc == 0; i++)
        rc = worker_buffers_create(&pool->workers[i], staging_size);
    if (rc != 0) {
        ceiling_pool_destroy(pool);
        return -1;
    }
    *pool_p = pool;
    return 0;
}

void ceiling_pool_destroy(struct ceiling_pool *pool)
{
    if (pool == NULL)
        return;
    for (unsigned i = 0; i < pool->max_workers; i++) {
        worker_buffers_destroy(&pool->workers[i]);
        park_destroy(&pool->workers[i].call);
    }
    park_destroy(&pool->done);
    bench_free(BENCH_MEM_DEVICE, pool->device_buffer);
    free(pool->workers);
    free(pool);
}

void *ceiling_pool_device_buffer(const struct ceiling_pool *pool)
{
    return pool->device_buffer;
}
