/*
 * One piece of a request on one thread, straight between the file and memory the CPU can address
 * (staged memory goes through fallback_staged.c). Results count bytes in request order only.
 */
#include "common/align.h"
#include "fallback_internal.h"

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

ssize_t fallback_piece_run(struct fallback_io *io, unsigned index, size_t begin, size_t end)
{
    size_t at = begin;
    while (at < end && !piece_should_stop(io, index)) {
        size_t len = window_length(io, at, end);
        int64_t pos = io->offset + (int64_t)at;
        ssize_t n = io->op == HF_IO_READ ? io->window_read(io, io->mem + at, len, pos)
                                         : io->window_write(io, io->mem + at, len, pos);
        if (n < 0)
            return at > begin ? (ssize_t)(at - begin) : n;
        at += (size_t)n;
        if ((size_t)n < len)
            break;
    }
    return (ssize_t)(at - begin);
}
