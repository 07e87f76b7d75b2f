/*
 * Staged transfers: memory the CPU cannot address moves through staging slots and GPU copies. A
 * request is cut into windows on the chunk grid, smaller towards its end when several lanes serve
 * it; lanes (the calling thread and the core's workers) each take one slot and claim windows in
 * order from a shared cursor, overlapping the file I/O of one window with the GPU copy of the
 * window before. The result counts bytes in request order up to the first window that ended short.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/device_switch.h"
#include "fallback_internal.h"

struct lane;

/*
 * Claiming windows one at a time, rather than handing each thread a fixed share, keeps a thread
 * the scheduler parks from holding back the whole request: the others take its windows.
 */
struct lane_run {
    struct fallback_io *io;
    size_t window;      /* bytes of a whole window: the chunk, or a part of it that divides it */
    size_t windows;     /* whole windows in the request (the most lanes that pay) */
    size_t head;        /* bytes of the first window: from the request's start to a grid line */
    size_t head_skew;   /* where the first window starts in a staging buffer */
    size_t tail_window; /* smallest window of the shrinking tail; 0 while only one lane */
    unsigned lanes;     /* lanes serving the request */
    atomic_size_t next; /* request byte where the next window starts */
    atomic_size_t
        short_first;      /* start of the lowest window that ended short, SIZE_MAX while none */
    pthread_mutex_t lock; /* orders the short record's writers */
    size_t short_bytes;   /* bytes that moved in the window at short_first */
    ssize_t short_error;  /* -errno when none moved in it because of a failure, else 0 */
    int short_gpu_error;  /* the runtime's code when short_error is -HF_EGPU */
    ssize_t start_error;  /* a lane that could not start: no slot */
    int start_gpu_error;  /* the runtime's code when start_error is -HF_EGPU */
    struct lane *parked;  /* lanes whose last copies the caller waits for (under lock); NULL:
                             each lane waits for its own */
    unsigned parked_count;
    struct hfp_staging_slot **slots; /* with parked: lane i's slot, taken before any lane starts
                                        (NULL once the lane has it); NULL: lanes take their own */
};

/*
 * Bytes of the window starting at request byte @p at: the head up to the first grid line, then a
 * chunk, or, once less than a chunk per lane is left, the lanes' share of what is left in
 * multiples of the tail window. Windows after the head start on the chunk grid or on multiples of
 * the tail window past it, so they stay aligned for O_DIRECT.
 */
static size_t window_length(const struct lane_run *run, size_t at)
{
    if (at == 0)
        return run->head;
    size_t left = run->io->size - at;
    size_t len = run->window;
    size_t grain = run->tail_window;
    if (grain > 0 && left / run->lanes < len) {
        size_t share = (left / run->lanes + grain - 1) / grain * grain;
        len = share < len ? share : len;
    }
    return len < left ? len : left;
}

/* Where the window at request byte @p at sits in a staging buffer: at (file offset mod chunk). */
static size_t window_skew(const struct lane_run *run, size_t at)
{
    return at == 0 ? run->head_skew : 0;
}

/* The window at @p at moved @p bytes (0 with @p error on a failure); the lowest window wins. */
static void run_note_short(struct lane_run *run, size_t at, size_t bytes, ssize_t error,
                           int gpu_error)
{
    pthread_mutex_lock(&run->lock);
    size_t first = atomic_load_explicit(&run->short_first, memory_order_relaxed);
    if (at < first || (at == first && bytes < run->short_bytes)) {
        run->short_bytes = bytes;
        run->short_error = bytes == 0 ? error : 0;
        run->short_gpu_error = gpu_error;
        atomic_store_explicit(&run->short_first, at, memory_order_relaxed);
    }
    pthread_mutex_unlock(&run->lock);
}

/*
 * The next window for a lane, [*at_p, *end_p) of the request; false when none is left or an
 * earlier one ended short.
 */
static bool run_claim(struct lane_run *run, size_t *at_p, size_t *end_p)
{
    size_t at = atomic_load_explicit(&run->next, memory_order_relaxed);
    for (;;) {
        if (at >= run->io->size ||
            at > atomic_load_explicit(&run->short_first, memory_order_relaxed))
            return false;
        size_t end = at + window_length(run, at);
        if (atomic_compare_exchange_weak_explicit(&run->next, &at, end, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *at_p = at;
            *end_p = end;
            return true;
        }
    }
}

/* Smallest window a write is cut into for more lanes: pwrite's fixed cost stays small next to it.
 */
#define WRITE_WINDOW_MIN ((size_t)256 * 1024)

/* Most windows one buffer gathers for one copy, and the alignment a joining window keeps. */
#define LANE_GATHER_MAX 32
#define LANE_GATHER_ALIGN 4096

/* A window read into a buffer: [at, end) of run, got bytes of it. */
struct lane_part {
    struct lane_run *run;
    size_t at;
    size_t end;
    size_t got;
};

/* What one buffer holds for its copy to the device: windows back to back from start. */
struct lane_gather {
    struct lane_part part[LANE_GATHER_MAX];
    unsigned count;
    size_t start; /* where the first window sits in the buffer */
    size_t bytes; /* bytes read into the buffer from start */
    char *mem;    /* where they go in memory */
};

/*
 * One lane's slot and the copies it has queued: for writes, buffer b holds the window at request
 * byte at[b] of run[b], end[b] its end; for reads, what gather[b] lists. A lane
 * serves the windows of runs[0], then those of runs[1] and so on: one request in several lanes, or
 * several requests (a batch's entries) in one.
 */
struct lane {
    struct lane_run *runs;
    unsigned run_count;
    unsigned current; /* the run windows are claimed from */
    struct hfp_staging_slot *slot;
    bool queued[HF_STAGING_SLOT_BUFFERS];
    struct lane_run *run[HF_STAGING_SLOT_BUFFERS];
    size_t at[HF_STAGING_SLOT_BUFFERS];
    size_t end[HF_STAGING_SLOT_BUFFERS];
    size_t len[HF_STAGING_SLOT_BUFFERS];                /* bytes the queued copy moves */
    struct lane_gather gather[HF_STAGING_SLOT_BUFFERS]; /* reads: what each buffer's copy moves */
    unsigned order[HF_STAGING_SLOT_BUFFERS];            /* reads: copy sequence of each buffer */
    unsigned copies;                                    /* reads: copies queued so far */
    bool gpu_trouble; /* a runtime call failed: the streams are suspect */
    int gpu_error;    /* the runtime's code of that failure */
};

/* The lane's next window (its run in *run_p), or false when every run is done. */
static bool lane_claim(struct lane *ln, struct lane_run **run_p, size_t *at_p, size_t *end_p)
{
    for (; ln->current < ln->run_count; ln->current++) {
        if (run_claim(&ln->runs[ln->current], at_p, end_p)) {
            *run_p = &ln->runs[ln->current];
            return true;
        }
    }
    return false;
}

static void lane_gpu_failure(struct lane *ln, struct lane_run *run, size_t at, int err,
                             const char *what)
{
    struct fallback *fb = run->io->fb;
    fallback_log(fb, HF_LOG_ERROR, "%s at request byte %zu failed: %s (%d)", what, at,
                 fb->host->gpu->error_string(err), err);
    ln->gpu_trouble = true;
    ln->gpu_error = err;
    run_note_short(run, at, 0, -HF_EGPU, err);
}

/*
 * Queue the copy of the first @p len bytes of the window [at, end) between memory and buffer
 * @p b.
 */
static int lane_copy(struct lane *ln, int b, struct lane_run *run, size_t at, size_t end,
                     size_t len)
{
    struct fallback_io *io = run->io;
    char *staging = (char *)ln->slot->buffer[b] + window_skew(run, at);
    char *mem = io->mem + at;
    bool to_device = io->op == HF_IO_READ;
    int err = io->fb->host->gpu->memcpy_async(to_device ? mem : staging, to_device ? staging : mem,
                                              len, ln->slot->stream[b]);
    if (err == 0) {
        ln->queued[b] = true;
        ln->run[b] = run;
        ln->at[b] = at;
        ln->end[b] = end;
        ln->len[b] = len;
    }
    return err;
}

/* Wait for the copy queued on buffer @p b; returns the runtime's code. */
static int lane_wait(struct lane *ln, int b)
{
    ln->queued[b] = false;
    return ln->runs[0].io->fb->host->gpu->stream_synchronize(ln->slot->stream[b]);
}

/*
 * A read window counts once its copy to the device completed; it is short when the file gave
 * fewer bytes than the window holds.
 */
static bool lane_read_confirm(struct lane *ln, int b)
{
    struct lane_gather *g = &ln->gather[b];
    int err = lane_wait(ln, b);
    for (unsigned i = 0; i < g->count; i++) {
        const struct lane_part *part = &g->part[i];
        if (err != 0 && i == 0)
            lane_gpu_failure(ln, part->run, part->at, err, "copy to the device");
        else if (err != 0)
            run_note_short(part->run, part->at, 0, -HF_EGPU, err);
        else if (part->got < part->end - part->at)
            run_note_short(part->run, part->at, part->got, 0, 0);
    }
    return err == 0;
}

/*
 * Whether the window [at, end) of @p run can join what buffer @p b gathered: the windows before it
 * were read whole, its memory continues theirs, it fits the buffer, and it lands at an address as
 * aligned as its file offset (so O_DIRECT stays possible).
 */
static bool lane_gather_joins(const struct lane *ln, int b, const struct lane_run *run, size_t at,
                              size_t end)
{
    const struct lane_gather *g = &ln->gather[b];
    /*
     * Windows of a read from the storage are kept apart so each goes to the device as soon as it
     * lands: one lane reading a request's windows in turn would otherwise gather them all.
     */
    if (g->count == 0 || g->count == LANE_GATHER_MAX || run->io->from_storage)
        return false;
    const struct lane_part *last = &g->part[g->count - 1];
    size_t put = g->start + g->bytes;
    return last->got == last->end - last->at && run->io->mem + at == g->mem + g->bytes &&
           put + (end - at) <= run->io->fb->set.chunk_size &&
           (put - (uint64_t)(run->io->offset + (int64_t)at)) % LANE_GATHER_ALIGN == 0;
}

/*
 * Reads alternate buffers: windows are read into one while the copy of the other runs. Windows
 * that continue each other in memory (a batch's entries filling one buffer, say) gather in one
 * buffer and go to the device in one copy: a GPU moves a few large copies faster than many small
 * ones.
 */
static void lane_read(struct lane *ln)
{
    int b = 0;
    struct lane_run *run;
    size_t at, end;
    bool have = lane_claim(ln, &run, &at, &end);
    while (have) {
        struct lane_gather *g = &ln->gather[b];
        g->count = 0;
        g->bytes = 0;
        while (have) {
            if (g->count == 0) {
                g->start = window_skew(run, at);
                g->mem = run->io->mem + at;
            }
            struct fallback_io *io = run->io;
            char *staging = (char *)ln->slot->buffer[b] + g->start + g->bytes;
            ssize_t got = io->window_read(io, staging, end - at, io->offset + (int64_t)at);
            /* A failure or the file's end ends this request only: the lane goes on with the next.
             */
            if (got <= 0) {
                run_note_short(run, at, 0, got, 0);
                ln->current++;
            } else {
                g->part[g->count++] = (struct lane_part){run, at, end, (size_t)got};
                g->bytes += (size_t)got;
                if ((size_t)got < end - at)
                    ln->current++;
            }
            have = lane_claim(ln, &run, &at, &end);
            if (have && g->count > 0 && !lane_gather_joins(ln, b, run, at, end))
                break;
        }
        if (g->count > 0) {
            int err = g->part[0].run->io->fb->host->gpu->memcpy_async(
                g->mem, (char *)ln->slot->buffer[b] + g->start, g->bytes, ln->slot->stream[b]);
            if (err != 0) {
                lane_gpu_failure(ln, g->part[0].run, g->part[0].at, err,
                                 "queueing a copy to the device");
                for (unsigned i = 1; i < g->count; i++)
                    run_note_short(g->part[i].run, g->part[i].at, 0, -HF_EGPU, err);
                break;
            }
            ln->queued[b] = true;
            ln->order[b] = ++ln->copies;
        }
        b ^= 1;
        if (ln->queued[b] && !lane_read_confirm(ln, b))
            break;
    }
    /* A window claimed but not read because the GPU failed: nothing else will serve it. */
    if (have)
        run_note_short(run, at, 0, -HF_EGPU, ln->gpu_error);
}

/* The copies a read lane still has queued, confirmed in the order they were queued. */
static void lane_read_finish(struct lane *ln)
{
    int first = ln->queued[0] && ln->queued[1] ? ln->order[1] < ln->order[0] : ln->queued[1];
    for (int i = 0, c = first; i < HF_STAGING_SLOT_BUFFERS; i++, c ^= 1) {
        if (ln->queued[c])
            (void)lane_read_confirm(ln, c);
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
    size_t at, end;
    if (!run_claim(run, &at, &end))
        return;
    int err = lane_copy(ln, 0, run, at, end, end - at);
    if (err != 0) {
        lane_gpu_failure(ln, run, at, err, "queueing a copy from the device");
        return;
    }
    for (int b = 0;; b ^= 1) {
        size_t next_at, next_end;
        bool next = run_claim(run, &next_at, &next_end);
        if (next) {
            err = lane_copy(ln, !b, run, next_at, next_end, next_end - next_at);
            /* The next window fails; this one is still written first. */
            if (err != 0) {
                lane_gpu_failure(ln, run, next_at, err, "queueing a copy from the device");
                next = false;
            }
        }
        err = lane_wait(ln, b);
        if (err != 0) {
            lane_gpu_failure(ln, run, at, err, "copy from the device");
            break;
        }
        size_t len = ln->len[b];
        char *staging = (char *)ln->slot->buffer[b] + window_skew(run, at);
        ssize_t put = io->window_write(io, staging, len, io->offset + (int64_t)at);
        if (put < 0 || (size_t)put < len) {
            run_note_short(run, at, put < 0 ? 0 : (size_t)put, put < 0 ? put : 0, 0);
            break;
        }
        if (!next)
            break;
        at = next_at;
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

/* Give the lane's slot back, or discard it after a runtime failure, noting what it left. */
static void lane_release(struct lane *ln)
{
    struct fallback_io *io = ln->runs[0].io;
    /* A lane that stopped on a runtime failure leaves the requests it had not reached. */
    if (ln->gpu_trouble) {
        for (unsigned r = ln->current; r < ln->run_count; r++)
            run_note_start_error(&ln->runs[r], -HF_EGPU, ln->gpu_error);
        hfp_staging_pool_discard(io->pool, ln->slot);
    } else {
        hfp_staging_pool_give(io->pool, ln->slot);
    }
}

/*
 * Leave the lane, its slot and its last copies to the caller of the run, when the run keeps a
 * parking lot: the lane's thread is then free at once, rather than waiting for a copy it has just
 * queued, and only the caller waits, for all the lanes' last copies together.
 */
static bool lane_park(struct lane *ln)
{
    struct lane_run *run = &ln->runs[0];
    if (run->parked == NULL || ln->run_count != 1 || ln->gpu_trouble)
        return false;
    pthread_mutex_lock(&run->lock);
    run->parked[run->parked_count++] = *ln;
    pthread_mutex_unlock(&run->lock);
    return true;
}

/*
 * One lane: take a slot (or use @p slot, taken for it), serve windows until none is left, give the
 * slot back (or park it).
 */
static void lane_main(struct lane_run *runs, unsigned run_count, struct hfp_staging_slot *slot)
{
    struct fallback_io *io = runs[0].io;
    struct lane ln = {.runs = runs, .run_count = run_count, .slot = slot};
    int gpu_error = 0;
    int rc = slot != NULL ? 0 : hfp_staging_pool_take(io->pool, &ln.slot, &gpu_error);
    if (rc < 0) {
        for (unsigned r = 0; r < run_count; r++)
            run_note_start_error(&runs[r], rc, gpu_error);
        return;
    }
    if (io->op == HF_IO_READ) {
        lane_read(&ln);
        if (lane_park(&ln))
            return;
        lane_read_finish(&ln);
    } else {
        lane_write(&ln);
    }
    lane_release(&ln);
}

/* The caller's part of a run with a parking lot: each parked lane's last copies, then its slot. */
static void run_finish_parked(struct lane_run *run)
{
    for (unsigned i = 0; i < run->parked_count; i++) {
        lane_read_finish(&run->parked[i]);
        lane_release(&run->parked[i]);
    }
}

/* Lane @p index's slot where the run took them up front, handed over once; else NULL. */
static struct hfp_staging_slot *run_lane_slot(struct lane_run *run, unsigned index)
{
    if (run->slots == NULL)
        return NULL;
    struct hfp_staging_slot *slot = run->slots[index];
    run->slots[index] = NULL;
    return slot;
}

static void lane_task(void *arg, unsigned index)
{
    struct lane_run *run = arg;
    /* Workers belong to the core: the device they are left on matters to no one. */
    int unused_previous, gpu_error = 0;
    if (run->io->device >= 0 &&
        hfp_device_enter(run->io->fb->host, run->io->device, &unused_previous, &gpu_error) < 0) {
        run_note_start_error(run, -HF_EGPU, gpu_error);
        return;
    }
    lane_main(run, 1, run_lane_slot(run, index));
}

/*
 * Parked lanes keep their slots until the caller ends the run, so a lane that waited for a slot
 * then could wait for ever on other requests whose lanes wait the same way (a batch of cold reads
 * did, every lane of every entry in pool_take). A run that parks takes every slot before its lanes
 * start, the first waiting and the others only while one is free, as the pipeline does, and runs
 * in as many lanes as it got: nothing then waits for a slot while holding one. Returns the lanes,
 * or 0 where no slot could be had (noted as the run's start error). Without memory for the
 * bookkeeping the lanes neither park nor take up front.
 */
static unsigned run_take_parking_slots(struct lane_run *run, unsigned lanes)
{
    run->parked = calloc(lanes, sizeof(*run->parked));
    run->slots = calloc(lanes, sizeof(*run->slots));
    if (run->parked == NULL || run->slots == NULL) {
        free(run->parked);
        free(run->slots);
        run->parked = NULL;
        run->slots = NULL;
        return lanes;
    }
    unsigned got = 0;
    int gpu_error = 0;
    int rc = hfp_staging_pool_take_some(run->io->pool, run->slots, lanes, &got, &gpu_error);
    if (rc < 0) {
        run_note_start_error(run, rc, gpu_error);
        return 0;
    }
    return got;
}

/* Give back the slots taken up front that no lane used, and free the run's parking lot. */
static void run_free_parking(struct lane_run *run, unsigned lanes)
{
    for (unsigned i = 0; run->slots != NULL && i < lanes; i++) {
        if (run->slots[i] != NULL)
            hfp_staging_pool_give(run->io->pool, run->slots[i]);
    }
    free(run->slots);
    free(run->parked);
}

/* The bytes that moved in request order, or the failure that came before any. */
static ssize_t run_result(const struct lane_run *run, int *gpu_error_p)
{
    size_t first = atomic_load(&run->short_first);
    size_t claimed = atomic_load(&run->next);
    size_t moved = first == SIZE_MAX ? run->io->size : first + run->short_bytes;
    ssize_t error = first == SIZE_MAX ? 0 : run->short_error;
    int gpu_error = run->short_gpu_error;
    /* Bytes nobody claimed: every lane that could have stopped before reaching them. */
    if (claimed < run->io->size && (first == SIZE_MAX || claimed <= first) &&
        run->start_error != 0) {
        moved = claimed;
        error = run->start_error;
        gpu_error = run->start_gpu_error;
    }
    if (moved > 0 || error == 0)
        return (ssize_t)moved;
    if (error == -HF_EGPU)
        *gpu_error_p = gpu_error;
    return error;
}

/* @p window divides the chunk: windows then never straddle a staging buffer's end. */
static void run_init(struct lane_run *run, struct fallback_io *io, size_t window)
{
    size_t skew = (size_t)((uint64_t)io->offset % window);
    size_t head = window - skew;
    if (head > io->size)
        head = io->size;
    *run = (struct lane_run){
        .io = io,
        .window = window,
        .head = head,
        .head_skew = skew,
        .windows = 1 + (io->size - head + window - 1) / window,
        .lanes = 1,
    };
    atomic_init(&run->next, 0);
    atomic_init(&run->short_first, SIZE_MAX);
    pthread_mutex_init(&run->lock, NULL);
}

/*
 * Windows for *lanes_inout lanes: whole chunks for reads from the page cache, which gather and
 * overlap well in chunks; FALLBACK_STORAGE_WINDOW_ONE_LANE for a read from the storage no longer
 * than a chunk, which then runs in one lane (*lanes_inout becomes 1): read as one chunk, its copy
 * could only follow its read, and cut over several lanes it measured no faster, at more CPU time;
 * FALLBACK_STORAGE_WINDOW for reads from the storage that give every lane at least
 * a chunk or span FALLBACK_STORAGE_WINDOW_CHUNKS chunks, as the storage completes them in turn
 * (whole chunks in sixteen lanes all landed at the end of a request, their copies after it). A
 * smaller read keeps whole chunks: smaller windows would only bring more lanes, and their CPU
 * time, into it, and measured slower there. A read that gives every lane four chunks or more takes
 * FALLBACK_STORAGE_WINDOW_LONG, to pay the kernel's and the copies' cost per window less often;
 * whole chunks there saved more CPU but lost a tenth of the rate in every paired round, where
 * 2 MiB windows kept it at or about O_DIRECT's (docs/performance.rst). Direct writes that give
 * every lane a chunk take storage windows: the storage then starts on the first while the copies
 * from the device of the others still run. Other writes: small enough that every lane gets one
 * (pwrite, not the copy, is what takes the time, and a 16 MiB tensor is four chunks but wants many
 * writers), down to WRITE_WINDOW_MIN.
 */
static size_t run_window(const struct fallback_io *io, unsigned *lanes_inout)
{
    size_t chunk = io->fb->set.chunk_size;
    bool storage_read = io->op == HF_IO_READ && io->from_storage;
    bool storage = storage_read || (io->op != HF_IO_READ && io->direct_write);
    unsigned lanes = *lanes_inout;
    size_t want;
    if (storage_read && io->size <= chunk) {
        *lanes_inout = 1;
        want = FALLBACK_STORAGE_WINDOW_ONE_LANE;
    } else if (storage_read && io->size / lanes >= FALLBACK_STORAGE_LONG_CHUNKS * chunk)
        want = FALLBACK_STORAGE_WINDOW_LONG;
    else if (storage && (io->size / lanes >= chunk ||
                         (storage_read && io->size >= FALLBACK_STORAGE_WINDOW_CHUNKS * chunk)))
        want = FALLBACK_STORAGE_WINDOW;
    else if (io->op == HF_IO_READ || lanes <= 1)
        return chunk;
    else
        want = io->size / lanes > WRITE_WINDOW_MIN ? io->size / lanes : WRITE_WINDOW_MIN;
    if (want >= chunk)
        return chunk;
    /* The largest multiple of a page at most want that divides the chunk. */
    for (size_t w = want / 4096 * 4096; w >= 4096; w -= 4096) {
        if (chunk % w == 0)
            return w;
    }
    return chunk;
}

ssize_t fallback_staged_run(struct fallback_io *io, unsigned lanes, int *gpu_error_p)
{
    struct lane_run run;
    run_init(&run, io, run_window(io, &lanes));
    if (lanes > run.windows)
        lanes = (unsigned)run.windows;
    /* One lane has nobody to wait for: its tail is not cut into tail windows. */
    if (lanes > 1) {
        run.lanes = lanes;
        run.tail_window = io->fb->set.tail_window;
    }
    /*
     * Lanes reading from the storage leave their last copies to the caller: each would otherwise
     * wait for a copy it has just queued, a few tens of microseconds of a yielding CPU per lane
     * and request, where the caller waits once for all of them.
     */
    if (lanes > 1 && io->op == HF_IO_READ && io->from_storage) {
        lanes = run_take_parking_slots(&run, lanes);
        if (lanes == 0) {
            ssize_t failed = run_result(&run, gpu_error_p);
            run_free_parking(&run, 0);
            pthread_mutex_destroy(&run.lock);
            return failed;
        }
        run.lanes = lanes;
        if (lanes == 1)
            run.tail_window = 0;
    }
    int rc = lanes > 1 ? io->fb->host->parallel_run(io->fb->host, lanes, lane_task, &run) : 0;
    if (rc != 0)
        fallback_log(io->fb, HF_LOG_WARN,
                     "the executor could not run %u lanes (%s); serving the request whole on the "
                     "calling thread",
                     lanes, fallback_errno_text(-rc));
    if (lanes <= 1 || rc != 0)
        lane_main(&run, 1, run_lane_slot(&run, 0));
    run_finish_parked(&run);
    run_free_parking(&run, lanes);
    ssize_t result = run_result(&run, gpu_error_p);
    pthread_mutex_destroy(&run.lock);
    return result;
}

void fallback_staged_read_many(struct fallback_io *ios, unsigned n, ssize_t *results,
                               int *gpu_errors)
{
    struct lane_run runs[FALLBACK_MANY_MAX];
    for (unsigned done = 0; done < n;) {
        unsigned count = n - done < FALLBACK_MANY_MAX ? n - done : FALLBACK_MANY_MAX;
        for (unsigned i = 0; i < count; i++)
            run_init(&runs[i], &ios[done + i], ios[done + i].fb->set.chunk_size);
        lane_main(runs, count, NULL);
        for (unsigned i = 0; i < count; i++) {
            results[done + i] = run_result(&runs[i], &gpu_errors[done + i]);
            pthread_mutex_destroy(&runs[i].lock);
        }
        done += count;
    }
}
