/*
 * One piece of a request, on one thread: straight between the file and memory the CPU can
 * address, or through a staging slot for device memory, with the file I/O of each chunk
 * overlapped with the GPU copy of its neighbour. Results count bytes in request order only.
 */
#include "common/align.h"
#include "fallback.h"

/* Whether an earlier piece ended short, making this one's bytes past the result anyway. */
static bool piece_should_stop(struct fallback_io *io, unsigned index)
{
    return atomic_load_explicit(&io->first_short_piece, memory_order_relaxed) < index;
}

/*
 * Chunk windows sit on a grid of chunk_size in file offsets, whatever the request's start, so a
 * window's data lands in a staging buffer at (file offset mod chunk_size): DIO-aligned file
 * offsets land at DIO-aligned addresses of the page-aligned buffer.
 */
static size_t window_skew(const struct fallback_io *io, size_t at)
{
    return (size_t)((uint64_t)(io->offset + (int64_t)at) % io->fb->set.chunk_size);
}

/* Bytes from request offset @p at to the next grid line, or to @p end if that comes first. */
static size_t window_length(const struct fallback_io *io, size_t at, size_t end)
{
    size_t to_line = io->fb->set.chunk_size - window_skew(io, at);
    return end - at < to_line ? end - at : to_line;
}

/* Memory the CPU can address: the kernel moves the bytes straight in or out of it. */
static ssize_t straight_run(struct fallback_io *io, unsigned index, size_t begin, size_t end)
{
    size_t at = begin;
    while (at < end && !piece_should_stop(io, index)) {
        size_t len = window_length(io, at, end);
        int64_t pos = io->offset + (int64_t)at;
        ssize_t n = io->op == HF_IO_READ ? hf_fallback_window_read(io, io->mem + at, len, pos)
                                         : hf_fallback_window_write(io, io->mem + at, len, pos);
        if (n < 0)
            return at > begin ? (ssize_t)(at - begin) : n;
        at += (size_t)n;
        if ((size_t)n < len)
            break;
    }
    return (ssize_t)(at - begin);
}

/* A staged piece in flight: which buffers have copies queued and the first failure in order. */
struct staged {
    struct fallback_io *io;
    struct hf_staging_slot *slot;
    bool queued[HF_STAGING_SLOT_BUFFERS];
    size_t queued_end[HF_STAGING_SLOT_BUFFERS]; /* request offset where the queued chunk ends */
    size_t confirmed;                           /* request offset up to which bytes moved */
    ssize_t failure;                            /* first failure in request order, 0 if none */
    int gpu_error;                              /* the runtime's code when failure is -HF_EGPU */
    bool wait_failed;                           /* a copy's completion could not be confirmed */
    bool gpu_trouble;                           /* a runtime call failed: streams are suspect */
};

/* Log a runtime failure at request byte @p at; the slot's streams are suspect from now on. */
static void staged_gpu_trouble(struct staged *st, int err, const char *what, size_t at)
{
    struct fallback *fb = st->io->fb;
    fallback_log(fb, HF_LOG_ERROR, "%s at request byte %zu failed: %s (%d)", what, at,
                 fb->host->gpu->error_string(err), err);
    st->gpu_trouble = true;
}

/* A runtime failure that ends the piece; it decides the result if nothing failed before it. */
static void staged_gpu_failure(struct staged *st, int err, const char *what, size_t at)
{
    staged_gpu_trouble(st, err, what, at);
    if (st->failure == 0) {
        st->failure = -HF_EGPU;
        st->gpu_error = err;
    }
}

/* Queue the copy of request bytes [at, at + len) between memory and buffer @p b. */
static int staged_copy(struct staged *st, int b, size_t at, size_t len)
{
    struct fallback_io *io = st->io;
    char *staging = (char *)st->slot->buffer[b] + window_skew(io, at);
    char *mem = io->mem + at;
    bool to_device = io->op == HF_IO_READ;
    int err = io->fb->host->gpu->memcpy_async(to_device ? mem : staging, to_device ? staging : mem,
                                              len, st->slot->stream[b]);
    if (err == 0) {
        st->queued[b] = true;
        st->queued_end[b] = at + len;
    }
    return err;
}

/* Wait for the copy queued on buffer @p b. */
static int staged_wait(struct staged *st, int b)
{
    st->queued[b] = false;
    return st->io->fb->host->gpu->stream_synchronize(st->slot->stream[b]);
}

/*
 * The buffer whose queued copy is older, when both have one; else the one that has one (or 0).
 */
static int staged_older(const struct staged *st)
{
    if (st->queued[0] && st->queued[1])
        return st->queued_end[1] < st->queued_end[0];
    return st->queued[1];
}

/*
 * A completed copy to the device confirms its bytes, provided every earlier copy completed: a
 * copy that cannot be confirmed ends the bytes that count, and it precedes in request order any
 * failure seen while reading later chunks.
 */
static void staged_read_confirm(struct staged *st, int b)
{
    size_t end = st->queued_end[b];
    int err = staged_wait(st, b);
    if (st->wait_failed) {
        st->gpu_trouble = st->gpu_trouble || err != 0;
        return;
    }
    if (err == 0) {
        st->confirmed = end;
        return;
    }
    st->wait_failed = true;
    st->failure = 0;
    staged_gpu_failure(st, err, "copy to the device", end);
}

/*
 * Reads alternate between the slot's two buffers: chunk k is read into one while the copy of chunk
 * k-1 runs from the other, and a buffer's own stream is synchronized only when that buffer is
 * about to be reused.
 */
static void staged_read(struct staged *st, unsigned index, size_t begin, size_t end)
{
    struct fallback_io *io = st->io;
    size_t at = begin;
    for (int b = 0; at < end && !piece_should_stop(io, index); b ^= 1) {
        if (st->queued[b]) {
            staged_read_confirm(st, b);
            if (st->failure != 0)
                break;
        }
        size_t len = window_length(io, at, end);
        char *staging = (char *)st->slot->buffer[b] + window_skew(io, at);
        ssize_t got = hf_fallback_window_read(io, staging, len, io->offset + (int64_t)at);
        if (got < 0) {
            st->failure = got;
            break;
        }
        int err = got > 0 ? staged_copy(st, b, at, (size_t)got) : 0;
        if (err != 0) {
            staged_gpu_failure(st, err, "queueing a copy to the device", at);
            break;
        }
        at += (size_t)got;
        if ((size_t)got < len)
            break;
    }
    for (int i = 0, b = staged_older(st); i < HF_STAGING_SLOT_BUFFERS; i++, b ^= 1) {
        if (st->queued[b])
            staged_read_confirm(st, b);
    }
}

/*
 * Writes run the other way round: the copy of chunk k+1 from the device is queued before chunk k
 * is written to the file, so the two overlap. Bytes count once pwrite has taken them.
 */
static void staged_write(struct staged *st, unsigned index, size_t begin, size_t end)
{
    struct fallback_io *io = st->io;
    size_t at = begin;
    size_t len = window_length(io, at, end);
    int err = staged_copy(st, 0, at, len);
    if (err != 0)
        staged_gpu_failure(st, err, "queueing a copy from the device", at);
    for (int b = 0; err == 0; b ^= 1) {
        size_t next = at + len;
        size_t next_len = 0;
        if (next < end && !piece_should_stop(io, index))
            next_len = window_length(io, next, end);
        /* A failure to queue the next copy only ends the piece once this chunk is written. */
        int next_err = next_len > 0 ? staged_copy(st, !b, next, next_len) : 0;
        if (next_err != 0)
            staged_gpu_trouble(st, next_err, "queueing a copy from the device", next);
        err = staged_wait(st, b);
        if (err != 0) {
            staged_gpu_failure(st, err, "copy from the device", at);
            break;
        }
        char *staging = (char *)st->slot->buffer[b] + window_skew(io, at);
        ssize_t put = hf_fallback_window_write(io, staging, len, io->offset + (int64_t)at);
        if (put < 0) {
            st->failure = put;
            break;
        }
        st->confirmed = at + (size_t)put;
        if ((size_t)put < len || next_len == 0)
            break;
        if (next_err != 0) {
            st->failure = -HF_EGPU;
            st->gpu_error = next_err;
            break;
        }
        at = next;
        len = next_len;
    }
    /* Copies queued for chunks that will not be written still have to finish before reuse. */
    for (int b = 0; b < HF_STAGING_SLOT_BUFFERS; b++) {
        if (st->queued[b] && staged_wait(st, b) != 0)
            st->gpu_trouble = true;
    }
}

ssize_t hf_fallback_piece_run(struct fallback_io *io, unsigned index, size_t begin, size_t end,
                              int *gpu_error_p)
{
    if (!io->staged)
        return straight_run(io, index, begin, end);
    struct staged st = {.io = io, .confirmed = begin};
    int gpu_error = 0;
    int rc = hf_staging_pool_take(io->pool, &st.slot, &gpu_error);
    if (rc < 0) {
        if (rc == -HF_EGPU)
            *gpu_error_p = gpu_error;
        return rc;
    }
    if (io->op == HF_IO_READ)
        staged_read(&st, index, begin, end);
    else
        staged_write(&st, index, begin, end);
    if (st.gpu_trouble)
        hf_staging_pool_discard(io->pool, st.slot);
    else
        hf_staging_pool_give(io->pool, st.slot);
    if (st.confirmed > begin)
        return (ssize_t)(st.confirmed - begin);
    if (st.failure == -HF_EGPU)
        *gpu_error_p = st.gpu_error;
    return st.failure;
}
