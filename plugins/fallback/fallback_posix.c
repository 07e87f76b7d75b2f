/*
 * File I/O of the fallback backend: the rule that picks, range by range, between the page cache
 * and O_DIRECT for reads, and the POSIX loops that go on after short transfers, EINTR and EAGAIN.
 * Every system call goes through the core's replaceable table, so tests can inject any fault.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#include "common/align.h"
#include "common/cache_probe.h"
#include "fallback_internal.h"

/*
 * EAGAIN from a blocking descriptor is rare (O_NONBLOCK on a filesystem that honours it, a
 * network filesystem under pressure) and usually passes: retry a few times with growing pauses,
 * about 13 ms in all, then report it rather than spin.
 */
#define EAGAIN_RETRIES 8
#define EAGAIN_FIRST_PAUSE_US 50

const char *fallback_errno_text(int err)
{
    const char *text = strerrordesc_np(err);
    return text != NULL ? text : "unknown error";
}

/* Whether another attempt after EAGAIN is allowed; pauses before it. */
static bool eagain_pause(unsigned *attempts_inout)
{
    if (*attempts_inout >= EAGAIN_RETRIES)
        return false;
    long pause_us = (long)EAGAIN_FIRST_PAUSE_US << *attempts_inout;
    struct timespec pause = {.tv_sec = 0, .tv_nsec = pause_us * 1000};
    (*attempts_inout)++;
    nanosleep(&pause, NULL);
    return true;
}

/*
 * The read rule, per window of at most one chunk:
 *
 *  1. With direct_io = "auto" and an O_DIRECT descriptor, ask the page cache first:
 *     preadv2(RWF_NOWAIT) on the buffered descriptor, of the first page and then of the rest,
 *     copies whatever leading part of the window is cached and never waits for the disk. All of
 *     it: done, at memory speed. A read from the storage asks only for windows the kernel counts
 *     cached bytes in.
 *  2. The rest (EAGAIN: not cached; a short count: partly cached; EOPNOTSUPP or no preadv2: the
 *     kernel cannot tell, taken as not cached) is read with blocking calls. Its aligned middle
 *     goes through the O_DIRECT descriptor when the file offset, the length and the memory
 *     address are multiples of the file's DIO granules: uncached data then moves once, disk to
 *     memory, without filling the page cache. An unaligned head (up to the next granule) and tail
 *     (less than a granule) are read buffered. direct_io = "always" skips step 1; "never", or a
 *     file without an O_DIRECT descriptor, reads everything buffered.
 *
 * O_DIRECT stays coherent with buffered writes: the kernel writes back dirty cached pages of the
 * range before a direct read. A direct read that ends short stops at end of file; the loop asks
 * again, buffered at an unaligned offset, and gets 0.
 */

/*
 * Where direct reads into memory the caller sees must stop: the last whole granule before end of
 * file, looked up once per request (racing pieces look it up alike). No direct reads when the
 * size cannot be had.
 */
static uint64_t direct_end(struct fallback_io *io)
{
    uint64_t end = atomic_load_explicit(&io->direct_end, memory_order_relaxed);
    if (end != FALLBACK_DIRECT_END_UNKNOWN)
        return end;
    struct stat st;
    end = 0;
    if (io->fb->host->sys->fstat(io->fd, &st) == 0 && st.st_size > 0)
        end = hfp_align_down((uint64_t)st.st_size, io->dio_offset_align);
    atomic_store_explicit(&io->direct_end, end, memory_order_relaxed);
    return end;
}

/*
 * Whether a read or write loop tries again after a step on @p fd failed with @p err: after EINTR,
 * a bounded number of EAGAIN, and O_DIRECT refused by the filesystem or the memory (the rest of
 * the request then goes buffered, with one warning). Otherwise logs the failure.
 */
static bool step_goes_on(struct fallback_io *io, int fd, int err, bool reading, size_t want,
                         int64_t at, size_t done, unsigned *eagain_attempts)
{
    if (err == EINTR || (err == EAGAIN && eagain_pause(eagain_attempts)))
        return true;
    bool direct = fd == io->direct_fd && fd != io->fd;
    if (direct && (err == EINVAL || err == EFAULT)) {
        if (!atomic_exchange(&io->direct_refused, true))
            fallback_log(io->fb, HF_LOG_WARN, "O_DIRECT %s of %zu bytes at %lld refused (%s); %s",
                         reading ? "read" : "write", want, (long long)at, fallback_errno_text(err),
                         reading ? "reading buffered" : "writing buffered");
        return true;
    }
    fallback_log(io->fb, HF_LOG_ERROR, "%s%s of %zu bytes at %lld failed after %zu: %s",
                 direct ? "O_DIRECT " : "", reading ? "pread" : "pwrite", want, (long long)at, done,
                 fallback_errno_text(err));
    return false;
}

/* Which descriptor and how many bytes the next blocking read of [at, at + left) asks for. */
static int read_step(struct fallback_io *io, const char *to, size_t left, int64_t at,
                     size_t *want_p)
{
    *want_p = left;
    if (io->direct_fd < 0 || atomic_load_explicit(&io->direct_refused, memory_order_relaxed) ||
        !hfp_align_direct_step((uint64_t)at, left, to, io->dio_offset_align, io->dio_mem_align,
                               want_p))
        return io->fd;
    uint64_t end = direct_end(io);
    if ((uint64_t)at >= end) {
        *want_p = left;
        return io->fd;
    }
    if ((uint64_t)at + *want_p > end)
        *want_p = (size_t)(end - (uint64_t)at);
    return io->direct_fd;
}

/*
 * pread(2) of [at, at + want) from the buffered descriptor into @p dst through @p bounce, streamed
 * on to @p dst: the bytes read, or as pread reports a failure before any.
 */
static ssize_t pread_streamed(struct fallback_io *io, char *dst, size_t want, int64_t at,
                              char *bounce)
{
    size_t done = 0;
    while (done < want) {
        size_t ask = want - done < HFP_STREAM_BOUNCE_SIZE ? want - done : HFP_STREAM_BOUNCE_SIZE;
        ssize_t got = io->fb->host->sys->pread(io->fd, bounce, ask, (off_t)(at + (int64_t)done));
        if (got > 0 && (size_t)got > ask) {
            /* More than asked for: nothing of it can be trusted. */
            got = -1;
            errno = EIO;
        }
        if (got <= 0)
            return done > 0 ? (ssize_t)done : got;
        hfp_stream_copy(dst + done, bounce, (size_t)got);
        done += (size_t)got;
        if ((size_t)got < ask)
            break;
    }
    return (ssize_t)done;
}

/* The page cache's leading part of the window, as hfp_cache_probe, streamed through @p bounce. */
static size_t cache_probe_streamed(struct fallback_io *io, char *dst, size_t len, int64_t pos,
                                   char *bounce)
{
    size_t done = 0;
    while (done < len) {
        size_t ask = len - done < HFP_STREAM_BOUNCE_SIZE ? len - done : HFP_STREAM_BOUNCE_SIZE;
        size_t got = hfp_cache_probe(io->fb->host->sys, io->fd, bounce, ask, pos + (int64_t)done);
        hfp_stream_copy(dst + done, bounce, got);
        done += got;
        if (got < ask)
            break;
    }
    return done;
}

/*
 * Blocking reads of window bytes [done, len), the first @p done already in place; buffered ones
 * through @p bounce when it is not NULL.
 */
static ssize_t read_rest(struct fallback_io *io, char *dst, size_t len, int64_t pos, size_t done,
                         char *bounce)
{
    struct fallback *fb = io->fb;
    unsigned eagain_attempts = 0;
    while (done < len) {
        int64_t at = pos + (int64_t)done;
        size_t want;
        int fd = read_step(io, dst + done, len - done, at, &want);
        ssize_t n = bounce != NULL && fd == io->fd
                        ? pread_streamed(io, dst + done, want, at, bounce)
                        : fb->host->sys->pread(fd, dst + done, want, (off_t)at);
        if (n == 0)
            break;
        if (n > 0 && (size_t)n <= want) {
            done += (size_t)n;
            eagain_attempts = 0;
            continue;
        }
        int err = n > 0 || errno == 0 ? EIO : errno;
        if (step_goes_on(io, fd, err, true, want, at, done, &eagain_attempts))
            continue;
        return done > 0 ? (ssize_t)done : -err;
    }
    return (ssize_t)done;
}

/* One window read by the rule above; buffered reads through @p bounce when it is not NULL. */
static ssize_t read_window(struct fallback_io *io, char *dst, size_t len, int64_t pos, char *bounce)
{
    size_t done = 0;
    if (io->probe_cache && !atomic_load_explicit(&io->direct_refused, memory_order_relaxed) &&
        hfp_window_worth_probing(io->fb->host->sys, io->fd, io->from_storage, pos, len)) {
        done = bounce != NULL ? cache_probe_streamed(io, dst, len, pos, bounce)
                              : hfp_cache_probe(io->fb->host->sys, io->fd, dst, len, pos);
        if (done == len)
            return (ssize_t)len;
    }
    return read_rest(io, dst, len, pos, done, bounce);
}

ssize_t fallback_posix_read(struct fallback_io *io, char *dst, size_t len, int64_t pos)
{
    unsigned slot = 0;
    char *bounce = io->streamed ? fallback_bounce_take(io->fb, &slot) : NULL;
    ssize_t result = read_window(io, dst, len, pos, bounce);
    if (bounce != NULL)
        fallback_bounce_give(io->fb, slot);
    return result;
}

/*
 * Which descriptor and how many bytes the next write of [at, at + left) from @p from takes: for a
 * file the program opened with O_DIRECT, whole granules from an aligned address go direct; the
 * unaligned head (up to the next granule) and the tail (less than one) go buffered, and so do
 * whole granules from an unaligned address, unless a bounce buffer takes them (below). The kernel
 * writes back and drops cached pages of a direct write's range first, so the two stay coherent.
 */
static int write_step(struct fallback_io *io, const char *from, size_t left, int64_t at,
                      size_t *want_p)
{
    *want_p = left;
    if (!io->direct_write || atomic_load_explicit(&io->direct_refused, memory_order_relaxed) ||
        !hfp_align_direct_step((uint64_t)at, left, from, io->dio_offset_align, io->dio_mem_align,
                               want_p))
        return io->fd;
    return io->direct_fd;
}

/*
 * Whether the buffered write write_step chose of [at, at + want) is whole granules from an aligned
 * offset that only its memory address keeps from O_DIRECT (straight writes from the program's
 * memory). Copied through a bounce buffer, such bytes go direct at the one copy the page cache
 * would have cost, and the program's wish to leave the cache alone holds.
 */
static bool write_wants_bounce(const struct fallback_io *io, int fd, size_t want, int64_t at)
{
    return fd == io->fd && io->direct_write &&
           !atomic_load_explicit(&io->direct_refused, memory_order_relaxed) &&
           hfp_align_is_aligned((uint64_t)at, io->dio_offset_align) &&
           want >= io->dio_offset_align && io->dio_offset_align <= HFP_STREAM_BOUNCE_SIZE &&
           io->dio_mem_align <= FALLBACK_BOUNCE_ALIGN;
}

ssize_t fallback_posix_write(struct fallback_io *io, const char *src, size_t len, int64_t pos)
{
    struct fallback *fb = io->fb;
    unsigned eagain_attempts = 0;
    size_t done = 0;
    char *bounce = NULL;
    unsigned slot = 0;
    while (done < len) {
        size_t want;
        int64_t at = pos + (int64_t)done;
        int fd = write_step(io, src + done, len - done, at, &want);
        const char *from = src + done;
        if (write_wants_bounce(io, fd, want, at) &&
            (bounce != NULL || (bounce = fallback_bounce_take(fb, &slot)) != NULL)) {
            want = (size_t)hfp_align_down(want < HFP_STREAM_BOUNCE_SIZE ? want
                                                                        : HFP_STREAM_BOUNCE_SIZE,
                                          io->dio_offset_align);
            memcpy(bounce, from, want);
            from = bounce;
            fd = io->direct_fd;
        }
        ssize_t n = fb->host->sys->pwrite(fd, from, want, (off_t)at);
        if (n > 0 && (size_t)n <= want) {
            done += (size_t)n;
            eagain_attempts = 0;
            continue;
        }
        /* A write that makes no progress would loop forever; report it as the I/O error it is. */
        int err = n >= 0 || errno == 0 ? EIO : errno;
        if (step_goes_on(io, fd, err, false, want, at, done, &eagain_attempts))
            continue;
        if (bounce != NULL)
            fallback_bounce_give(fb, slot);
        return done > 0 ? (ssize_t)done : -err;
    }
    if (bounce != NULL)
        fallback_bounce_give(fb, slot);
    return (ssize_t)done;
}
