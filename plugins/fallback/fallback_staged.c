/*
 * Staged transfers: memory the CPU cannot address moves through staging slots and GPU copies. A
 * request is cut into windows on the chunk grid; lanes (the calling thread and the core's
 * workers) each take one slot and claim windows in order from a shared counter, overlapping the
 * file I/O of one window with the GPU copy of the window before. The result counts bytes in
 * request order up to the first window that ended short.
 */
#include <limits.h>
#include <stdint.h>

#include "common/device_switch.h"
#include "fallback.h"

/*
 * Claiming windows one at a time, rather than handing each thread a fixed share, keeps a thread
 * the scheduler parks from holding back the whole request: the others take its windows.
 */
struct lane_run {
    struct fallback_io *io;
    size_t windows;            /* windows in the request */
    size_t head;               /* bytes of window 0: from the request's start to a grid line */
    size_t head_skew;          /* where window 0 starts in a staging buffer */
    atomic_size_t next;        /* next window to claim */
    atomic_size_t short_first; /* lowest window that ended short, SIZE_MAX while none */
    pthread_mutex_t lock;      /* orders the short record's writers */
    size_t short_bytes;        /* bytes that moved in short_first */
    ssize_t short_error;       /* -errno when none moved in it because of a failure, else 0 */
    int short_gpu_error;       /* the runtime's code when short_error is -HF_EGPU */
    ssize_t start_error;       /* a lane that could not start: no slot */
    int start_gpu_error;       /* the runtime's code when start_error is -HF_EGPU */
};

static size_t window_begin(const struct lane_run *run, size_t w)
{
    return w == 0 ? 0 : run->head + (w - 1) * run->io->fb->set.chunk_size;
}

static size_t window_end(const struct lane_run *run, size_t w)
{
    size_t end = run->head + w * run->io->fb->set.chunk_size;
    return end < run->io->size ? end : run->io->size;
}

/* Where window @p w's bytes sit in a staging buffer: at (file offset mod chunk_size). */
static size_t window_skew(const struct lane_run *run, size_t w)
{
    return w == 0 ? run->head_skew : 0;
}

/* Window @p w moved @p bytes of its length (0 with @p error on a failure); lowest window wins. */
static void run_note_short(struct lane_run *run, size_t w, size_t bytes, ssize_t error,
                           int gpu_error)
{
    pthread_mutex_lock(&run->lock);
    size_t first = atomic_load_explicit(&run->short_first, memory_order_relaxed);
    if (w < first || (w == first && bytes < run->short_bytes)) {
        run->short_bytes = bytes;
        run->short_error = bytes == 0 ? error : 0;
        run->short_gpu_error = gpu_error;
        atomic_store_explicit(&run->short_first, w, memory_order_relaxed);
    }
    pthread_mutex_unlock(&run->lock);
}

/* The next window for a lane, or SIZE_MAX when none is left or an earlier one ended short. */
static size_t run_claim(struct lane_run *run)
{
    size_t w = atomic_fetch_add_explicit(&run->next, 1, memory_order_relaxed);
    if (w >= run->windows || w > atomic_load_explicit(&run->short_first, memory_order_relaxed))
        return SIZE_MAX;
    return w;
}

/*
 * One lane's slot and the copies it has queued, buffer b holding window win[b] of run[b]. A lane
 * serves the windows of runs[0], then those of runs[1] and so on: one request in several lanes, or
 * several requests (a batch's entries) in one.
 */
struct lane {
    struct lane_run *runs;
    unsigned run_count;
    unsigned current; /* the run windows are claimed from */
    struct hf_staging_slot *slot;
    bool queued[HF_STAGING_SLOT_BUFFERS];
    struct lane_run *run[HF_STAGING_SLOT_BUFFERS];
    size_t win[HF_STAGING_SLOT_BUFFERS];
    size_t len[HF_STAGING_SLOT_BUFFERS]; /* bytes the queued copy moves */
    bool gpu_trouble;                    /* a runtime call failed: the streams are suspect */
    int gpu_error;                       /* the runtime's code of that failure */
};

/* The lane's next window (its run in *run_p), or SIZE_MAX when every run is done. */
static size_t lane_claim(struct lane *ln, struct lane_run **run_p)
{
    for (; ln->current < ln->run_count; ln->current++) {
        size_t w = run_claim(&ln->runs[ln->current]);
        if (w != SIZE_MAX) {
            *run_p = &ln->runs[ln->current];
            return w;
        }
    }
    return SIZE_MAX;
}

/* The queued copy that is older when both buffers have one, else the one that has one (or 0). */
static int lane_older(const struct lane *ln)
{
    if (ln->queued[0] && ln->queued[1])
        return ln->run[1] != ln->run[0] ? ln->run[1] < ln->run[0] : ln->win[1] < ln->win[0];
    return ln->queued[1];
}

static void lane_gpu_failure(struct lane *ln, struct lane_run *run, size_t w, int err,
                             const char *what)
{
    struct fallback *fb = run->io->fb;
    fallback_log(fb, HF_LOG_ERROR, "%s at request byte %zu failed: %s (%d)", what,
                 window_begin(run, w), fb->host->gpu->error_string(err), err);
    ln->gpu_trouble = true;
    ln->gpu_error = err;
    run_note_short(run, w, 0, -HF_EGPU, err);
}

/* Queue the copy of window @p w's first @p len bytes between memory and buffer @p b. */
static int lane_copy(struct lane *ln, int b, struct lane_run *run, size_t w, size_t len)
{
    struct fallback_io *io = run->io;
    char *staging = (char *)ln->slot->buffer[b] + window_skew(run, w);
    char *mem = io->mem + window_begin(run, w);
    bool to_device = io->op == HF_IO_READ;
    int err = io->fb->host->gpu->memcpy_async(to_device ? mem : staging, to_device ? staging : mem,
                                              len, ln->slot->stream[b]);
    if (err == 0) {
        ln->queued[b] = true;
        ln->run[b] = run;
        ln->win[b] = w;
        ln->len[b] = len;
    }
    return err;
}

/* Wait for the copy queued on buffer @p b; returns the runtime's code. */
static int lane_wait(struct lane *ln, int b)
{
    ln->queued[b] = false;
    return ln->run[b]->io->fb->host->gpu->stream_synchronize(ln->slot->stream[b]);
}

/*
 * A read window counts once its copy to the device completed; it is short when the file gave
 * fewer bytes than the window holds.
 */
static bool lane_read_confirm(struct lane *ln, int b)
{
    struct lane_run *run = ln->run[b];
    size_t w = ln->win[b], len = ln->len[b];
    int err = lane_wait(ln, b);
    if (err != 0) {
        lane_gpu_failure(ln, run, w, err, "copy to the device");
        return false;
    }
    if (len < window_end(run, w) - window_begin(run, w))
        run_note_short(run, w, len, 0, 0);
    return true;
}

/* Reads alternate buffers: window k is read into one while the copy of window k-1 runs. */
static void lane_read(struct lane *ln)
{
    for (int b = 0;; b ^= 1) {
        if (ln->queued[b] && !lane_read_confirm(ln, b))
            break;
        struct lane_run *run;
        size_t w = lane_claim(ln, &run);
        if (w == SIZE_MAX)
            break;
        struct fallback_io *io = run->io;
        size_t at = window_begin(run, w), len = window_end(run, w) - at;
        char *staging = (char *)ln->slot->buffer[b] + window_skew(run, w);
        ssize_t got = hf_fallback_window_read(io, staging, len, io->offset + (int64_t)at);
        /* A failure ends this request only: the lane goes on with the next one it serves. */
        if (got <= 0) {
            run_note_short(run, w, 0, got, 0);
            ln->current++;
            continue;
        }
        int err = lane_copy(ln, b, run, w, (size_t)got);
        if (err != 0) {
            lane_gpu_failure(ln, run, w, err, "queueing a copy to the device");
            break;
        }
        /* The window's short end is noted when its copy is confirmed; the file ends here. */
        if ((size_t)got < len)
            ln->current++;
    }
    for (int i = 0, b = lane_older(ln); i < HF_STAGING_SLOT_BUFFERS; i++, b ^= 1) {
        if (ln->queued[b])
            (void)lane_read_confirm(ln, b);
    }
}

/*
 * Writes run the other way round: the copy from the device of the lane's next window is queued
 * before the current one is written to the file, so the two overlap. Bytes count once pwrite has
 * taken them. A lane writes for one request only.
 */
static void lane_write(struct lane *ln)
{
    struct lane_run *run = &ln->runs[0];
    struct fallback_io *io = run->io;
    size_t w = run_claim(run);
    if (w == SIZE_MAX)
        return;
    int err = lane_copy(ln, 0, run, w, window_end(run, w) - window_begin(run, w));
    if (err != 0) {
        lane_gpu_failure(ln, run, w, err, "queueing a copy from the device");
        return;
    }
    for (int b = 0;; b ^= 1) {
        size_t next = run_claim(run);
        if (next != SIZE_MAX) {
            err = lane_copy(ln, !b, run, next, window_end(run, next) - window_begin(run, next));
            /* The next window fails; this one is still written first. */
            if (err != 0) {
                lane_gpu_failure(ln, run, next, err, "queueing a copy from the device");
                next = SIZE_MAX;
            }
        }
        err = lane_wait(ln, b);
        if (err != 0) {
            lane_gpu_failure(ln, run, w, err, "copy from the device");
            break;
        }
        size_t at = window_begin(run, w), len = ln->len[b];
        char *staging = (char *)ln->slot->buffer[b] + window_skew(run, w);
        ssize_t put = hf_fallback_window_write(io, staging, len, io->offset + (int64_t)at);
        if (put < 0 || (size_t)put < len) {
            run_note_short(run, w, put < 0 ? 0 : (size_t)put, put < 0 ? put : 0, 0);
            break;
        }
        if (next == SIZE_MAX)
            break;
        w = next;
    }
    /* Copies queued for windows that will not be written still have to finish before reuse. */
    for (int b = 0; b < HF_STAGING_SLOT_BUFFERS; b++) {
        if (ln->queued[b] && lane_wait(ln, b) != 0)
            ln->gpu_trouble = true;
    }
}

/* A lane could not serve @p run's unclaimed windows: nothing will, so they fail with @p rc. */
static void run_note_start_error(struct lane_run *run, ssize_t rc, int gpu_error)
{
    pthread_mutex_lock(&run->lock);
    if (run->start_error == 0) {
        run->start_error = rc;
        run->start_gpu_error = gpu_error;
    }
    pthread_mutex_unlock(&run->lock);
}

/* One lane: take a slot, serve windows until none is left, give the slot back. */
static void lane_main(struct lane_run *runs, unsigned run_count)
{
    struct fallback_io *io = runs[0].io;
    struct lane ln = {.runs = runs, .run_count = run_count};
    int gpu_error = 0;
    int rc = hf_staging_pool_take(io->pool, &ln.slot, &gpu_error);
    if (rc < 0) {
        for (unsigned r = 0; r < run_count; r++)
            run_note_start_error(&runs[r], rc, gpu_error);
        return;
    }
    if (io->op == HF_IO_READ)
        lane_read(&ln);
    else
        lane_write(&ln);
    /* A lane that stopped on a runtime failure leaves the requests it had not reached. */
    if (ln.gpu_trouble) {
        for (unsigned r = ln.current; r < run_count; r++)
            run_note_start_error(&runs[r], -HF_EGPU, ln.gpu_error);
        hf_staging_pool_discard(io->pool, ln.slot);
    } else {
        hf_staging_pool_give(io->pool, ln.slot);
    }
}

static void lane_task(void *arg, unsigned index)
{
    struct lane_run *run = arg;
    /* Workers belong to the core: the device they are left on matters to no one. */
    int unused_previous, gpu_error = 0;
    (void)index;
    if (run->io->device >= 0 && hf_plugin_device_enter(run->io->fb->host, run->io->device,
                                                       &unused_previous, &gpu_error) < 0) {
        run_note_start_error(run, -HF_EGPU, gpu_error);
        return;
    }
    lane_main(run, 1);
}

/* The bytes that moved in request order, or the failure that came before any. */
static ssize_t run_result(const struct lane_run *run, int *gpu_error_p)
{
    size_t first = atomic_load(&run->short_first);
    size_t claimed = atomic_load(&run->next);
    size_t moved = first == SIZE_MAX ? run->io->size : window_begin(run, first) + run->short_bytes;
    ssize_t error = first == SIZE_MAX ? 0 : run->short_error;
    int gpu_error = run->short_gpu_error;
    /* Windows nobody claimed: every lane that could have stopped before reaching them. */
    if (claimed < run->windows && (first == SIZE_MAX || claimed <= first) &&
        run->start_error != 0) {
        moved = window_begin(run, claimed);
        error = run->start_error;
        gpu_error = run->start_gpu_error;
    }
    if (moved > 0 || error == 0)
        return (ssize_t)moved;
    if (error == -HF_EGPU)
        *gpu_error_p = gpu_error;
    return error;
}

static void run_init(struct lane_run *run, struct fallback_io *io)
{
    size_t chunk = io->fb->set.chunk_size;
    size_t skew = (size_t)((uint64_t)io->offset % chunk);
    size_t head = chunk - skew;
    if (head > io->size)
        head = io->size;
    *run = (struct lane_run){
        .io = io,
        .head = head,
        .head_skew = skew,
        .windows = 1 + (io->size - head + chunk - 1) / chunk,
    };
    atomic_init(&run->next, 0);
    atomic_init(&run->short_first, SIZE_MAX);
    pthread_mutex_init(&run->lock, NULL);
}

ssize_t hf_fallback_staged_run(struct fallback_io *io, unsigned lanes, int *gpu_error_p)
{
    struct lane_run run;
    run_init(&run, io);
    if (lanes > run.windows)
        lanes = (unsigned)run.windows;
    int rc = lanes > 1 ? io->fb->host->parallel_run(io->fb->host, lanes, lane_task, &run) : 0;
    if (rc != 0)
        fallback_log(io->fb, HF_LOG_WARN,
                     "the executor could not run %u lanes (%s); serving the request whole on the "
                     "calling thread",
                     lanes, hf_fallback_errno_text(-rc));
    if (lanes <= 1 || rc != 0)
        lane_main(&run, 1);
    ssize_t result = run_result(&run, gpu_error_p);
    pthread_mutex_destroy(&run.lock);
    return result;
}

void hf_fallback_staged_read_many(struct fallback_io *ios, unsigned n, ssize_t *results,
                                  int *gpu_errors)
{
    struct lane_run runs[FALLBACK_MANY_MAX];
    for (unsigned done = 0; done < n;) {
        unsigned count = n - done < FALLBACK_MANY_MAX ? n - done : FALLBACK_MANY_MAX;
        for (unsigned i = 0; i < count; i++)
            run_init(&runs[i], &ios[done + i]);
        lane_main(runs, count);
        for (unsigned i = 0; i < count; i++) {
            results[done + i] = run_result(&runs[i], &gpu_errors[done + i]);
            pthread_mutex_destroy(&runs[i].lock);
        }
        done += count;
    }
}
