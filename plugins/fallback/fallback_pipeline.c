/*
 * Staged reads as one pipeline: several threads read the request's pieces, claimed in file order,
 * into a ring of staging buffers, and one of them, the copier, queues the copies to the GPU block
 * by block as each block becomes whole, and synchronizes a buffer's stream only when the buffer is
 * needed again or the request ends. Readers make no runtime call at all: a request of a few MiB
 * then costs the runtime a few copies and one synchronization from one thread, instead of a copy
 * and a wait per piece from every thread, which serialize in the driver (docs/performance.rst).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_relax.h"
#include "common/device_switch.h"
#include "fallback_internal.h"

/* Slots (two buffers each) one request takes: a 64 MiB ring with 4 MiB chunks. */
#define PIPE_SLOTS_MAX 8
#define PIPE_BUFFERS_MAX (PIPE_SLOTS_MAX * HF_STAGING_SLOT_BUFFERS)
/* A block's pieces are tracked in one 64-bit mask; a buffer holds at most 32 blocks. */
#define PIPE_PIECES_PER_BLOCK_MAX 64
#define PIPE_BLOCKS_PER_BUFFER_MAX 32
#define PIPE_RING_MAX (PIPE_BUFFERS_MAX * PIPE_BLOCKS_PER_BUFFER_MAX)
/* Request byte 0 sits this far into the first buffer: its offset within a page, so page-aligned
 * file offsets land on page-aligned staging addresses, as O_DIRECT needs. */
#define PIPE_PAGE 4096
/* Polls before a waiting thread sleeps or yields: some tens of microseconds. */
#define PIPE_SPINS 4096
/*
 * With more readers than this the copier only copies: a piece it read would hold back the copies
 * of every block that became whole meanwhile.
 */
#define PIPE_COPIER_READS_MAX_LANES 4

struct pipe {
    struct fallback_io *io;
    size_t skew;      /* staging position of request byte 0 */
    size_t span;      /* positions [skew, span) hold the request */
    size_t buf_size;  /* bytes per staging buffer */
    unsigned buffers; /* in the ring */
    void *buffer[PIPE_BUFFERS_MAX];
    void *stream[PIPE_BUFFERS_MAX];
    size_t block;            /* bytes per GPU copy; divides buf_size */
    size_t piece;            /* bytes per file read; divides block */
    size_t pieces_per_block; /* block / piece */
    size_t blocks;           /* blocks covering [0, span) */
    size_t pieces;           /* pieces covering [0, span) */
    size_t ring_blocks;      /* blocks the ring holds at once */
    atomic_size_t next_piece;
    atomic_size_t piece_limit; /* pieces below this may be read: their buffer is free */
    _Atomic uint64_t read_mask[PIPE_RING_MAX]; /* pieces read, per ring block */
    unsigned lanes;                            /* tasks serving the request */
    atomic_uint cannot_copy;                   /* tasks that could not make the GPU current */
    atomic_bool copier_taken;                  /* a task took the copier's role */
    atomic_bool copier_done;   /* the copier left: nothing is read for it any more */
    _Atomic uint32_t ring_seq; /* bumped whenever piece_limit moves, and at the end */
    atomic_uint ring_sleepers; /* readers asleep on ring_seq */
    atomic_uint readers;       /* tasks reading now (other than the copier) */
    _Atomic uint32_t read_seq; /* bumped whenever a piece has been read */
    atomic_bool copier_asleep; /* the copier sleeps on read_seq */
    atomic_size_t short_pos;   /* lowest position where the bytes stop; SIZE_MAX */
    pthread_mutex_t lock;      /* orders the short record's writers */
    ssize_t short_error;       /* -errno when the bytes stop on a failure */
    int short_gpu_error;       /* the runtime's code for -HF_EGPU */
    struct hfp_staging_slot *slots[PIPE_SLOTS_MAX];
    unsigned slot_count;
};

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Sleep on @p word while it holds @p seen, at most @p ns nanoseconds (a missed wake costs that). */
static void futex_wait_ns(_Atomic uint32_t *word, uint32_t seen, long ns)
{
    struct timespec timeout = {.tv_sec = 0, .tv_nsec = ns};
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, &timeout, NULL, 0);
}

/* Wake up to @p n threads asleep on @p word. */
static void futex_wake(_Atomic uint32_t *word, int n)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/*
 * A reader waiting for the ring polls briefly, then sleeps until the copier frees a buffer or
 * ends: a dozen readers yielding in a loop would take the CPU from the copier they wait for.
 */
static void pipe_wait_for_ring(struct pipe *p, unsigned *spins_inout)
{
    if (++*spins_inout < PIPE_SPINS) {
        hfp_cpu_relax();
        return;
    }
    uint32_t seen = atomic_load_explicit(&p->ring_seq, memory_order_seq_cst);
    atomic_fetch_add_explicit(&p->ring_sleepers, 1, memory_order_seq_cst);
    /* Checked again after announcing the sleep: the copier bumps ring_seq, then looks. */
    if (atomic_load_explicit(&p->next_piece, memory_order_seq_cst) >=
            atomic_load_explicit(&p->piece_limit, memory_order_seq_cst) &&
        !atomic_load_explicit(&p->copier_done, memory_order_seq_cst) &&
        atomic_load_explicit(&p->copier_taken, memory_order_seq_cst)) {
        futex_wait_ns(&p->ring_seq, seen, 2000000);
    }
    atomic_fetch_sub_explicit(&p->ring_sleepers, 1, memory_order_relaxed);
}

/* Wake the readers asleep in pipe_wait_for_ring: the ring moved or the request ended. */
static void pipe_ring_moved(struct pipe *p)
{
    atomic_fetch_add_explicit(&p->ring_seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&p->ring_sleepers, memory_order_seq_cst) > 0)
        futex_wake(&p->ring_seq, INT_MAX);
}

/* The copier, waiting for a block to be read, polls, yielding now and then. */
static void pipe_pause(unsigned *spins_inout)
{
    if (++*spins_inout % PIPE_SPINS != 0)
        hfp_cpu_relax();
    else
        sched_yield();
}

/* The bytes stop at position @p pos (with @p error when none of that piece moved); lowest wins. */
static void pipe_note_short(struct pipe *p, size_t pos, ssize_t error, int gpu_error)
{
    pthread_mutex_lock(&p->lock);
    if (pos < atomic_load_explicit(&p->short_pos, memory_order_relaxed)) {
        p->short_error = error;
        p->short_gpu_error = gpu_error;
        atomic_store_explicit(&p->short_pos, pos, memory_order_release);
    }
    pthread_mutex_unlock(&p->lock);
}

static char *pipe_staging(const struct pipe *p, size_t pos)
{
    return (char *)p->buffer[(pos / p->buf_size) % p->buffers] + pos % p->buf_size;
}

static size_t piece_start(const struct pipe *p, size_t index)
{
    size_t pos = index * p->piece;
    return pos < p->skew ? p->skew : pos;
}

/*
 * Claim the next piece. False when nothing is left to read for this request (*blocked_p false) or
 * when the next piece's buffer is still being copied from (*blocked_p true: try again).
 */
static bool pipe_claim(struct pipe *p, size_t *index_p, bool *blocked_p)
{
    *blocked_p = false;
    size_t i = atomic_load_explicit(&p->next_piece, memory_order_relaxed);
    for (;;) {
        if (i >= p->pieces || atomic_load_explicit(&p->copier_done, memory_order_acquire) ||
            piece_start(p, i) >= atomic_load_explicit(&p->short_pos, memory_order_acquire))
            return false;
        if (i >= atomic_load_explicit(&p->piece_limit, memory_order_acquire)) {
            *blocked_p = true;
            return false;
        }
        if (atomic_compare_exchange_weak_explicit(&p->next_piece, &i, i + 1, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *index_p = i;
            return true;
        }
    }
}

static void pipe_read_piece(struct pipe *p, size_t index)
{
    struct fallback_io *io = p->io;
    size_t pos = piece_start(p, index);
    size_t end = min_size((index + 1) * p->piece, p->span);
    ssize_t got =
        io->window_read(io, pipe_staging(p, pos), end - pos, io->offset + (int64_t)(pos - p->skew));
    if (got < 0 || (size_t)got < end - pos)
        pipe_note_short(p, pos + (got > 0 ? (size_t)got : 0), got < 0 ? got : 0, 0);
    size_t block = index / p->pieces_per_block;
    uint64_t bit = (uint64_t)1 << (index % p->pieces_per_block);
    atomic_fetch_or_explicit(&p->read_mask[block % p->ring_blocks], bit, memory_order_release);
    atomic_fetch_add_explicit(&p->read_seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&p->copier_asleep, memory_order_seq_cst))
        futex_wake(&p->read_seq, 1);
}

static void pipe_copier(struct pipe *p);

/*
 * Take the copier's role if nobody holds it, and copy: first the thread that starts first, or,
 * when the one that took it could not make the GPU current, the next thread that comes by (the
 * caller, whose GPU is current, always comes by). Returns false when another thread copies or
 * this one cannot.
 */
static bool pipe_try_copy(struct pipe *p, bool *cannot_copy_inout)
{
    if (*cannot_copy_inout ||
        atomic_exchange_explicit(&p->copier_taken, true, memory_order_acq_rel))
        return false;
    /* Workers belong to the core: the device they are left on matters to no one. */
    int previous = -1, gpu_error = 0;
    if (p->io->device >= 0 &&
        hfp_device_enter(p->io->fb->host, p->io->device, &previous, &gpu_error) < 0) {
        *cannot_copy_inout = true;
        /* Nobody at all can copy: the request fails rather than wait for ever. */
        if (atomic_fetch_add(&p->cannot_copy, 1) + 1 == p->lanes) {
            pipe_note_short(p, p->skew, -HF_EGPU, gpu_error);
            atomic_store_explicit(&p->copier_done, true, memory_order_release);
            pipe_ring_moved(p);
        }
        atomic_store_explicit(&p->copier_taken, false, memory_order_release);
        return false;
    }
    pipe_copier(p);
    return true;
}

/*
 * Read pieces until none is left, waiting while the ring is full; copy instead when nobody does.
 * Readers make no runtime call and need no device.
 */
static void pipe_reader(struct pipe *p)
{
    unsigned spins = 0;
    bool cannot_copy = false;
    if (pipe_try_copy(p, &cannot_copy))
        return;
    /* Counted while reading, so a copier with nobody else reading reads too (the workers may all
     * be busy with other requests). */
    atomic_fetch_add_explicit(&p->readers, 1, memory_order_relaxed);
    for (;;) {
        if (!cannot_copy && !atomic_load_explicit(&p->copier_taken, memory_order_acquire)) {
            atomic_fetch_sub_explicit(&p->readers, 1, memory_order_relaxed);
            if (pipe_try_copy(p, &cannot_copy))
                return;
            atomic_fetch_add_explicit(&p->readers, 1, memory_order_relaxed);
        }
        size_t index;
        bool blocked;
        if (pipe_claim(p, &index, &blocked)) {
            pipe_read_piece(p, index);
            spins = 0;
        } else if (blocked || !atomic_load_explicit(&p->copier_taken, memory_order_acquire)) {
            /* Without a copier, nothing frees the ring or ends the request: stay to take over. */
            if (atomic_load_explicit(&p->copier_done, memory_order_acquire))
                break;
            if (blocked)
                pipe_wait_for_ring(p, &spins);
            else
                pipe_pause(&spins);
        } else {
            break;
        }
    }
    atomic_fetch_sub_explicit(&p->readers, 1, memory_order_relaxed);
}

/*
 * Whether every piece of block @p k that holds bytes before @p end has been read. Pieces past the
 * end may still be in flight; they are not copied.
 */
static bool block_ready(const struct pipe *p, size_t k, size_t end)
{
    size_t first = k * p->pieces_per_block;
    size_t last = min_size(first + p->pieces_per_block, p->pieces);
    size_t needed = 0;
    while (first + needed < last && piece_start(p, first + needed) < end)
        needed++;
    uint64_t want = needed == 64 ? UINT64_MAX : ((uint64_t)1 << needed) - 1;
    uint64_t have = atomic_load_explicit(&p->read_mask[k % p->ring_blocks], memory_order_acquire);
    return (have & want) == want;
}

/*
 * Queue the copy of block @p k, read from @p start on, to the device on its buffer's stream,
 * marking the buffer as having copies pending from the first one queued. False when the request
 * stops here: the block holds no byte before the end, or the runtime refused the copy (noted).
 */
static inline bool pipe_queue_copy(struct pipe *p, size_t k, size_t start, bool *pending,
                                   size_t *pending_from)
{
    struct fallback_io *io = p->io;
    const struct hf_gpu_ops *gpu = io->fb->host->gpu;
    /* A piece of this block that ended short noted it before it counted as read. */
    size_t end = min_size(atomic_load_explicit(&p->short_pos, memory_order_acquire), p->span);
    size_t stop = min_size((k + 1) * p->block, end);
    if (stop <= start)
        return false;
    unsigned b = (unsigned)((start / p->buf_size) % p->buffers);
    int err = gpu->memcpy_async(io->mem + (start - p->skew), pipe_staging(p, start), stop - start,
                                p->stream[b]);
    if (err != 0) {
        fallback_log(io->fb, HF_LOG_ERROR,
                     "queueing a copy to the device at request byte %zu failed: %s (%d)",
                     start - p->skew, gpu->error_string(err), err);
        pipe_note_short(p, start, -HF_EGPU, err);
        return false;
    }
    if (!pending[b])
        pending_from[b] = start;
    pending[b] = true;
    return true;
}

/*
 * The readers wait for the oldest buffer once they have filled the ring: wait for its copies (all
 * queued by now, @p k being the next block to copy), then let them reuse it, moving
 * *confirmed_inout past its @p blocks_per_buffer blocks. False when a copy failed (noted).
 */
static inline bool pipe_recycle_oldest(struct pipe *p, size_t k, size_t blocks_per_buffer,
                                       size_t *confirmed_inout, bool *pending,
                                       const size_t *pending_from)
{
    struct fallback_io *io = p->io;
    const struct hf_gpu_ops *gpu = io->fb->host->gpu;
    size_t confirmed = *confirmed_inout;
    unsigned b = (unsigned)(((confirmed * p->block) / p->buf_size) % p->buffers);
    int err = gpu->stream_synchronize(p->stream[b]);
    if (err != 0) {
        fallback_log(io->fb, HF_LOG_ERROR,
                     "copy to the device before request byte %zu failed: %s (%d)",
                     k * p->block - p->skew, gpu->error_string(err), err);
        pipe_note_short(p, pending_from[b], -HF_EGPU, err);
        return false;
    }
    pending[b] = false;
    for (size_t i = 0; i < blocks_per_buffer; i++)
        atomic_store_explicit(&p->read_mask[(confirmed + i) % p->ring_blocks], 0,
                              memory_order_relaxed);
    confirmed += blocks_per_buffer;
    atomic_store_explicit(&p->piece_limit,
                          min_size((confirmed + p->ring_blocks) * p->pieces_per_block, p->pieces),
                          memory_order_release);
    pipe_ring_moved(p);
    *confirmed_inout = confirmed;
    return true;
}

/*
 * The copier waits for block @p k to be read (before @p end): it polls briefly, then sleeps until
 * a reader reports a piece (a piece is only waited for when a reader holds it: the copier reads
 * itself when nobody else does). A copier that polled for the whole read took a core from the
 * readers and from the caller's own threads (a model being built next to the read, several requests
 * or processes at once); a piece is tens of microseconds, so the wake costs little.
 */
static void pipe_copier_wait(struct pipe *p, unsigned *spins_inout, size_t k, size_t end)
{
    if (++*spins_inout < PIPE_SPINS) {
        hfp_cpu_relax();
        return;
    }
    uint32_t seen = atomic_load_explicit(&p->read_seq, memory_order_seq_cst);
    atomic_store_explicit(&p->copier_asleep, true, memory_order_seq_cst);
    /* Checked again after announcing the sleep: a reader bumps read_seq, then looks. */
    if (!block_ready(p, k, end) &&
        atomic_load_explicit(&p->short_pos, memory_order_acquire) == SIZE_MAX) {
        futex_wait_ns(&p->read_seq, seen, 1000000);
    }
    atomic_store_explicit(&p->copier_asleep, false, memory_order_relaxed);
    *spins_inout = 0;
}

/* Nothing to queue yet: with few readers, read a piece rather than wait for one. */
static inline void pipe_copier_idle(struct pipe *p, unsigned *spins_inout, size_t k, size_t end)
{
    size_t index;
    bool blocked;
    bool reads = p->lanes <= PIPE_COPIER_READS_MAX_LANES ||
                 atomic_load_explicit(&p->readers, memory_order_relaxed) == 0;
    if (reads && pipe_claim(p, &index, &blocked)) {
        pipe_read_piece(p, index);
        *spins_inout = 0;
    } else {
        pipe_copier_wait(p, spins_inout, k, end);
    }
}

/* The request's bytes count once their copies completed. */
static inline void pipe_copies_wait(struct pipe *p, const bool *pending, const size_t *pending_from)
{
    struct fallback_io *io = p->io;
    const struct hf_gpu_ops *gpu = io->fb->host->gpu;
    for (unsigned b = 0; b < p->buffers; b++) {
        if (!pending[b])
            continue;
        int err = gpu->stream_synchronize(p->stream[b]);
        if (err != 0) {
            fallback_log(io->fb, HF_LOG_ERROR, "copy to the device failed: %s (%d)",
                         gpu->error_string(err), err);
            /* Which of the buffer's copies failed is unknown: none of them counts. */
            pipe_note_short(p, pending_from[b], -HF_EGPU, err);
        }
    }
}

/* The copier: queue each block's copy as it becomes whole; free buffers for the readers. */
static void pipe_copier(struct pipe *p)
{
    size_t blocks_per_buffer = p->buf_size / p->block;
    bool pending[PIPE_BUFFERS_MAX] = {false};
    size_t pending_from[PIPE_BUFFERS_MAX]; /* position of a pending buffer's first queued copy */
    size_t k = 0;                          /* next block to copy */
    size_t confirmed = 0;                  /* blocks whose copies are known to be done */
    unsigned spins = 0;
    while (k < p->blocks) {
        size_t end = min_size(atomic_load_explicit(&p->short_pos, memory_order_acquire), p->span);
        size_t start = k * p->block < p->skew ? p->skew : k * p->block;
        if (start >= end)
            break;
        /*
         * A block past the ring's free buffers cannot have been read: its mask is an older one's.
         */
        if (k < confirmed + p->ring_blocks && block_ready(p, k, end)) {
            if (!pipe_queue_copy(p, k, start, pending, pending_from))
                break;
            k++;
            spins = 0;
            continue;
        }
        bool starved = atomic_load_explicit(&p->next_piece, memory_order_relaxed) >=
                       atomic_load_explicit(&p->piece_limit, memory_order_relaxed);
        if (starved && k >= confirmed + blocks_per_buffer) {
            if (!pipe_recycle_oldest(p, k, blocks_per_buffer, &confirmed, pending, pending_from))
                break;
            continue;
        }
        pipe_copier_idle(p, &spins, k, end);
    }
    atomic_store_explicit(&p->copier_done, true, memory_order_release);
    pipe_ring_moved(p);
    pipe_copies_wait(p, pending, pending_from);
}

/*
 * Every task reads, and the first to start copies (it is running, so readers waiting for a free
 * buffer never wait for a task still queued).
 */
static void pipe_task(void *arg, unsigned index)
{
    (void)index;
    pipe_reader(arg);
}

/* The largest power of two no larger than @p v (v >= 1). */
static size_t pow2_floor(size_t v)
{
    return (size_t)1 << (63 - __builtin_clzll((unsigned long long)v));
}

/*
 * The largest multiple of 4 KiB that divides @p whole (itself a multiple of 4 KiB) and is at most
 * @p target, or 4 KiB. Powers of two for the usual power-of-two chunks, found by halving.
 */
static size_t page_divisor(size_t whole, size_t target)
{
    if (target >= whole)
        return whole;
    if ((whole & (whole - 1)) == 0)
        return target < PIPE_PAGE ? PIPE_PAGE : pow2_floor(target);
    for (size_t d = target / PIPE_PAGE * PIPE_PAGE; d > PIPE_PAGE; d -= PIPE_PAGE) {
        if (whole % d == 0)
            return d;
    }
    return PIPE_PAGE;
}

/*
 * Block and piece sizes for @p lanes readers: pieces small enough that every lane gets a couple,
 * so all start at once and the last ends soon after the first, and no larger than 128 KiB (with
 * streaming stores, 128 KiB pieces moved 16 MiB calls faster than 256 KiB ones in six pairings of
 * six on the H200, and 64 MiB calls faster than 1 MiB ones in five of six; docs/performance.rst);
 * blocks of a quarter of the request, so the first copy starts early, but no smaller than the copy
 * engine runs well with. Both are powers of two dividing the buffer, so pieces never straddle
 * blocks nor blocks buffers.
 */
static void pipe_plan(struct pipe *p, unsigned lanes)
{
    const struct fallback_settings *set = &p->io->fb->set;
    size_t size = p->io->size;
    size_t buf_size = p->buf_size;
    size_t piece = set->pipeline_piece;
    if (piece == 0) {
        piece = size / (2 * (size_t)lanes);
        if (piece > FALLBACK_PIPELINE_PIECE_AUTO_MAX)
            piece = FALLBACK_PIPELINE_PIECE_AUTO_MAX;
    }
    size_t block = set->pipeline_block;
    if (block == 0)
        block = size / 4;
    piece = piece < FALLBACK_PIPELINE_PIECE_MIN ? FALLBACK_PIPELINE_PIECE_MIN : piece;
    piece = piece > FALLBACK_PIPELINE_PIECE_MAX ? FALLBACK_PIPELINE_PIECE_MAX : piece;
    block = block < FALLBACK_PIPELINE_BLOCK_MIN ? FALLBACK_PIPELINE_BLOCK_MIN : block;
    /* At most PIPE_BLOCKS_PER_BUFFER_MAX blocks per buffer, each a whole number of pages. */
    if (block < buf_size / PIPE_BLOCKS_PER_BUFFER_MAX)
        block = buf_size / PIPE_BLOCKS_PER_BUFFER_MAX;
    block = page_divisor(buf_size, block);
    if (piece < block / PIPE_PIECES_PER_BLOCK_MAX)
        piece = block / PIPE_PIECES_PER_BLOCK_MAX;
    piece = page_divisor(block, piece);
    p->block = block;
    p->piece = piece;
    p->pieces_per_block = block / piece;
    p->blocks = (p->span + block - 1) / block;
    p->pieces = (p->span + piece - 1) / piece;
}

/*
 * Take the first slot (waiting for one), then more, if free now: as many as the request fills, up
 * to one per two readers, so the readers never wait on the ring for long while copies run.
 */
static int pipe_take_slots(struct pipe *p, unsigned lanes, int *gpu_error_p)
{
    size_t per_slot = p->buf_size * HF_STAGING_SLOT_BUFFERS;
    size_t wanted = (p->span + per_slot - 1) / per_slot;
    if (wanted > (lanes + 1) / 2)
        wanted = (lanes + 1) / 2;
    if (wanted > PIPE_SLOTS_MAX)
        wanted = PIPE_SLOTS_MAX;
    int rc = hfp_staging_pool_take_some(p->io->pool, p->slots, (unsigned)wanted, &p->slot_count,
                                        gpu_error_p);
    if (rc < 0)
        return rc;
    p->buffers = 0;
    for (unsigned s = 0; s < p->slot_count; s++) {
        for (unsigned b = 0; b < HF_STAGING_SLOT_BUFFERS; b++) {
            p->buffer[p->buffers] = p->slots[s]->buffer[b];
            p->stream[p->buffers] = p->slots[s]->stream[b];
            p->buffers++;
        }
    }
    return 0;
}

/* Give the slots back, or discard them when a runtime failure leaves their streams suspect. */
static void pipe_give_slots(struct pipe *p, bool gpu_trouble)
{
    for (unsigned s = 0; s < p->slot_count; s++) {
        if (gpu_trouble)
            hfp_staging_pool_discard(p->io->pool, p->slots[s]);
        else
            hfp_staging_pool_give(p->io->pool, p->slots[s]);
    }
}

ssize_t fallback_pipeline_read(struct fallback_io *io, unsigned lanes, int *gpu_error_p)
{
    struct pipe *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return -ENOMEM;
    p->io = io;
    p->skew = (size_t)((uint64_t)io->offset % PIPE_PAGE);
    p->span = p->skew + io->size;
    p->buf_size = hfp_staging_pool_buffer_size(io->pool);
    atomic_init(&p->short_pos, SIZE_MAX);
    atomic_init(&p->read_seq, 0);
    atomic_init(&p->copier_asleep, false);
    pthread_mutex_init(&p->lock, NULL);
    if (lanes == 0)
        lanes = 1;
    ssize_t result = pipe_take_slots(p, lanes, gpu_error_p);
    if (result < 0)
        goto free_pipe;
    pipe_plan(p, lanes);
    p->ring_blocks = p->buffers * (p->buf_size / p->block);
    atomic_init(&p->next_piece, 0);
    atomic_init(&p->piece_limit, min_size(p->ring_blocks * p->pieces_per_block, p->pieces));
    for (size_t i = 0; i < p->ring_blocks; i++)
        atomic_init(&p->read_mask[i], 0);
    if (lanes > p->pieces)
        lanes = (unsigned)p->pieces;
    p->lanes = lanes;
    int rc = lanes > 1 ? io->fb->host->parallel_run(io->fb->host, lanes, pipe_task, p) : -1;
    if (rc != 0) {
        if (lanes > 1)
            fallback_log(io->fb, HF_LOG_WARN,
                         "the executor could not run %u readers (%s); serving the request whole "
                         "on the calling thread",
                         lanes, fallback_errno_text(-rc));
        p->lanes = 1;
        pipe_task(p, 0);
    }
    size_t stop = atomic_load(&p->short_pos);
    size_t moved = stop == SIZE_MAX || stop > p->span ? io->size : stop - p->skew;
    if (moved > 0 || p->short_error == 0) {
        result = (ssize_t)moved;
    } else {
        result = p->short_error;
        if (result == -HF_EGPU)
            *gpu_error_p = p->short_gpu_error;
    }
    pipe_give_slots(p, p->short_error == -HF_EGPU);
free_pipe:
    pthread_mutex_destroy(&p->lock);
    free(p);
    return result;
}
