/*
 * The coherent-memory engine: where the CPU addresses a GPU's memory directly (APUs such as the
 * MI300A, GPUs on a cache-coherent host link, the host runtime's emulated device memory), the
 * kernel can move file data straight into it: cached data copied out of the page cache, the rest
 * with O_DIRECT pread/pwrite. No bounce buffer and no GPU copy either way. Whether a GPU qualifies
 * comes from the runtime's device attributes only.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "common/align.h"
#include "common/cache_probe.h"
#include "fastpath_internal.h"

/* Most pieces one request is cut into, as in the fallback: a bound keeps the plan on the stack. */
#define PIECES_MAX 64
/* Interior piece boundaries fall on this grid (or the O_DIRECT block size, if larger). */
#define PIECE_GRANULE (64 * 1024)
/*
 * Reads ask the page cache once per window of this size: a range cached only from its middle on
 * then still finds the cache at the next window. The fallback's default chunk, so both backends
 * probe alike.
 */
#define PROBE_WINDOW (4 * 1024 * 1024)
/* Largest byte count one read or write system call moves (the kernel's MAX_RW_COUNT). */
#define CALL_MAX ((size_t)0x7ffff000)
/* direct_end before the file size was looked up. */
#define DIRECT_END_UNKNOWN UINT64_MAX
/* direct_end of a block device: no end of file to keep below. */
#define DIRECT_END_NONE ((uint64_t)INT64_MAX)

static int attribute_or_zero(struct fastpath *fp, int device, int attr, const char *name)
{
    int value = 0;
    int err = fp->host->gpu->device_attribute(device, attr, &value);
    if (err != 0) {
        fastpath_log(fp, HF_LOG_DEBUG, "GPU %d: the runtime cannot say %s (%s); taken as 0", device,
                     name, fp->host->gpu->error_string(err));
        return 0;
    }
    return value;
}

/*
 * An integrated GPU's memory is system memory; a discrete GPU on a link with native host atomics
 * that reaches pageable memory through the host's page tables (NVLink-C2C on Grace Hopper) is
 * cache-coherent both ways. PCIe GPUs have neither, and their memory is never CPU-addressable.
 */
void fastpath_coherent_setup(struct fastpath *fp)
{
    if (!fp->set.coherent)
        return;
    for (int d = 0; d < fp->device_count; d++) {
        int integrated = attribute_or_zero(fp, d, HF_GPU_ATTR_INTEGRATED, "integrated");
        int atomics =
            attribute_or_zero(fp, d, HF_GPU_ATTR_HOST_NATIVE_ATOMICS, "host native atomics");
        int host_tables = attribute_or_zero(fp, d, HF_GPU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES,
                                            "pageable access through host page tables");
        fp->coherent[d] = integrated == 1 || (atomics == 1 && host_tables == 1);
        fastpath_log(fp, HF_LOG_INFO,
                     "GPU %d: integrated %d, host native atomics %d, host page tables %d: memory "
                     "%s CPU-addressable",
                     d, integrated, atomics, host_tables, fp->coherent[d] ? "is" : "is not");
    }
}

const char *fastpath_coherent_refusal(const struct fastpath *fp, const struct hf_io_request *req)
{
    (void)fp;
    return fastpath_alignment_refusal(req, req->file->dio_offset_align, req->file->dio_mem_align);
}

/* One request as its pieces see it. */
struct coherent_io {
    struct fastpath *fp;
    int op;
    int direct_fd;
    int buffered_fd; /* cache probes and the bytes O_DIRECT cannot reach */
    bool probe_cache;
    bool from_storage; /* mostly uncached by the kernel's count (hfp_window_worth_probing) */
    uint64_t offset_align;
    uint64_t mem_align;
    char *mem;
    int64_t offset;
    unsigned count;
    size_t bounds[PIECES_MAX + 1];
    ssize_t results[PIECES_MAX];
    atomic_uint first_short;
    /* Where O_DIRECT reads stop: the last whole block before end of file, looked up once. */
    _Atomic uint64_t direct_end;
    /* errno of the first O_DIRECT call the kernel refused (EFAULT, EINVAL, EOPNOTSUPP), or 0. */
    atomic_int direct_refused;
};

/* Errors that say O_DIRECT cannot take this memory or range, not that the file failed. */
static bool direct_refusal(int err)
{
    return err == EFAULT || err == EINVAL || err == EOPNOTSUPP;
}

static void refusal_note(struct coherent_io *io, int err)
{
    int none = 0;
    atomic_compare_exchange_strong(&io->direct_refused, &none, err);
}

/*
 * Bytes [0, len) at file offset @p at with one descriptor, going on after short calls and EINTR;
 * the bytes moved before an error, or -errno when none were.
 */
static ssize_t calls_move(struct coherent_io *io, int fd, char *mem, int64_t at, size_t len)
{
    const struct hf_sys_ops *sys = io->fp->host->sys;
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < CALL_MAX ? len - done : CALL_MAX;
        off_t pos = (off_t)(at + (int64_t)done);
        ssize_t n = io->op == HF_IO_READ ? sys->pread(fd, mem + done, want, pos)
                                         : sys->pwrite(fd, mem + done, want, pos);
        if (n == 0)
            break;
        if (n > 0 && (size_t)n <= want) {
            done += (size_t)n;
            continue;
        }
        int err = n > 0 || errno == 0 ? EIO : errno;
        if (err == EINTR)
            continue;
        if (fd == io->direct_fd && direct_refusal(err))
            refusal_note(io, err);
        return done > 0 ? (ssize_t)done : -err;
    }
    return (ssize_t)done;
}

/*
 * The read rule, per window (the same as the fallback's for reads it does not stage):
 *
 *  1. preadv2(RWF_NOWAIT) on the buffered descriptor copies whatever leading part of the window
 *     the page cache holds, at memory speed, and never waits for the disk (asking for the first
 *     page before the rest: see hfp_cache_probe). All of it: done.
 *  2. The rest (EAGAIN: not cached; a short count: partly cached; EOPNOTSUPP: the kernel cannot
 *     tell, taken as not cached) goes through the O_DIRECT descriptor from the first block
 *     boundary on, up to the last whole block before end of file. The bytes before that boundary
 *     (only where the cached part ended mid-block) and past the last whole block are read
 *     buffered. Both land straight in the caller's memory.
 *
 * O_DIRECT stays coherent with buffered writes: the kernel writes back dirty cached pages of the
 * range before a direct read.
 */

/*
 * A direct read that reaches end of file stores the whole last block, bytes past end of file
 * included. To leave the caller's memory past the returned count untouched, O_DIRECT stops at
 * the last whole block before end of file, looked up when the first direct read is due (cached
 * data never needs it; racing pieces look it up alike). Without the size, everything is read
 * buffered: slower, never wrong.
 */
static uint64_t direct_end(struct coherent_io *io)
{
    uint64_t end = atomic_load_explicit(&io->direct_end, memory_order_relaxed);
    if (end != DIRECT_END_UNKNOWN)
        return end;
    struct stat st;
    end = 0;
    if (io->fp->host->sys->fstat(io->direct_fd, &st) == 0) {
        if (st.st_size > 0)
            end = hfp_align_down((uint64_t)st.st_size, io->offset_align);
    } else {
        fastpath_log(io->fp, HF_LOG_WARN, "cannot look up the file size (%s); reading buffered",
                     fastpath_errno_text(errno));
    }
    atomic_store_explicit(&io->direct_end, end, memory_order_relaxed);
    return end;
}

/* Which descriptor and how many bytes the next blocking read of [at, at + left) asks for. */
static int read_step(struct coherent_io *io, const char *mem, size_t left, int64_t at,
                     size_t *want_p)
{
    if (!hfp_align_direct_step((uint64_t)at, left, mem, io->offset_align, io->mem_align, want_p))
        return io->buffered_fd;
    uint64_t end = direct_end(io);
    if ((uint64_t)at >= end) {
        *want_p = left;
        return io->buffered_fd;
    }
    if ((uint64_t)at + *want_p > end)
        *want_p = (size_t)(end - (uint64_t)at);
    return io->direct_fd;
}

/* One window of a read: the cached leading part, then blocking reads of the rest. */
static ssize_t window_read(struct coherent_io *io, char *mem, size_t len, int64_t at)
{
    const struct hf_sys_ops *sys = io->fp->host->sys;
    size_t done =
        io->probe_cache && hfp_window_worth_probing(sys, io->buffered_fd, io->from_storage, at, len)
            ? hfp_cache_probe(sys, io->buffered_fd, mem, len, at)
            : 0;
    while (done < len) {
        size_t want;
        int fd = read_step(io, mem + done, len - done, at + (int64_t)done, &want);
        ssize_t n = calls_move(io, fd, mem + done, at + (int64_t)done, want);
        if (n < 0)
            return done > 0 ? (ssize_t)done : n;
        done += (size_t)n;
        /* Short: end of file (a direct call then asks again, buffered, and gets 0), or an error. */
        if (n == 0 || ((size_t)n < want && fd != io->direct_fd))
            break;
        if ((size_t)n < want && atomic_load(&io->direct_refused) != 0)
            break;
    }
    return (ssize_t)done;
}

static ssize_t range_read(struct coherent_io *io, char *mem, size_t len, int64_t at)
{
    size_t done = 0;
    while (done < len) {
        size_t window = len - done < PROBE_WINDOW ? len - done : PROBE_WINDOW;
        ssize_t n = window_read(io, mem + done, window, at + (int64_t)done);
        if (n < 0)
            return done > 0 ? (ssize_t)done : n;
        done += (size_t)n;
        if ((size_t)n < window)
            break;
    }
    return (ssize_t)done;
}

static void note_short(struct coherent_io *io, unsigned index)
{
    unsigned seen = atomic_load(&io->first_short);
    while (index < seen && !atomic_compare_exchange_weak(&io->first_short, &seen, index))
        ;
}

static void piece_task(void *arg, unsigned index)
{
    struct coherent_io *io = arg;
    size_t begin = io->bounds[index];
    size_t end = io->bounds[index + 1];
    char *mem = io->mem + begin;
    int64_t at = io->offset + (int64_t)begin;
    ssize_t r;
    /*
     * An earlier piece ended short, or O_DIRECT refused and the request is handed on: what comes
     * after cannot be returned anyway.
     */
    if (atomic_load(&io->first_short) < index || atomic_load(&io->direct_refused) != 0)
        r = 0;
    else if (io->op == HF_IO_READ)
        r = range_read(io, mem, end - begin, at);
    else
        r = calls_move(io, io->direct_fd, mem, at, end - begin);
    io->results[index] = r;
    if (r < 0 || (size_t)r < end - begin)
        note_short(io, index);
}

/* Cut [0, len) into up to @p width pieces of at least split_threshold on the granule grid. */
static void plan(struct coherent_io *io, size_t len, unsigned width, uint64_t granule)
{
    size_t count = len / io->fp->set.split_threshold;
    if (count > width)
        count = width;
    if (count > PIECES_MAX)
        count = PIECES_MAX;
    if (count < 1)
        count = 1;
    size_t nominal = len / count;
    uint64_t start = (uint64_t)io->offset;
    io->count = 0;
    io->bounds[0] = 0;
    for (size_t i = 1; i < count; i++) {
        uint64_t line = hfp_align_down(start + i * nominal, granule);
        if (line <= start + io->bounds[io->count])
            continue;
        io->bounds[++io->count] = (size_t)(line - start);
    }
    io->bounds[++io->count] = len;
}

/* The bytes moved in order up to the first piece that ended short, or the first error. */
static ssize_t pieces_result(const struct coherent_io *io)
{
    size_t total = 0;
    for (unsigned i = 0; i < io->count; i++) {
        ssize_t r = io->results[i];
        if (r < 0)
            return total > 0 ? (ssize_t)total : r;
        total += (size_t)r;
        if ((size_t)r < io->bounds[i + 1] - io->bounds[i])
            break;
    }
    return (ssize_t)total;
}

/* The whole request: on the caller when small, else split across the core's workers. */
static ssize_t pieces_run(struct coherent_io *io, size_t len)
{
    struct fastpath *fp = io->fp;
    unsigned width = 1;
    if (len > fp->set.inline_max)
        width = fp->host->parallel_width(fp->host);
    uint64_t granule = io->offset_align > PIECE_GRANULE ? io->offset_align : PIECE_GRANULE;
    plan(io, len, width, granule);
    if (io->count > 1 && fp->host->parallel_run(fp->host, io->count, piece_task, io) == 0)
        return pieces_result(io);
    /* One piece, or the workers could not be had: the whole range on the caller. */
    io->count = 1;
    io->bounds[1] = len;
    piece_task(io, 0);
    return io->results[0];
}

/*
 * O_DIRECT refusing the memory means another backend may succeed, even after some bytes moved
 * (it serves the whole request again): EFAULT (the kernel cannot pin this GPU's pages, so it
 * never will) switches the engine off for the GPU; EINVAL or EOPNOTSUPP (a granule stricter than
 * statx reported) declines this request only.
 */
static ssize_t refusal_result(struct fastpath *fp, const struct hf_io_request *req, int err)
{
    int device = req->buf->device;
    const char *what = req->op == HF_IO_READ ? "read" : "write";
    if (err == EFAULT) {
        atomic_store(&fp->coherent_off[device],
                     "coherent: the kernel could not pin this GPU's memory for O_DIRECT (EFAULT)");
        fastpath_log(fp, HF_LOG_WARN,
                     "GPU %d: O_DIRECT %s answered EFAULT; the coherent engine is off for this "
                     "GPU",
                     device, what);
    } else {
        fastpath_log(fp, HF_LOG_DEBUG, "O_DIRECT %s of %zu bytes at %lld refused (%s); declining",
                     what, req->size, (long long)req->file_offset, fastpath_errno_text(err));
    }
    return -EREMOTEIO;
}

ssize_t fastpath_coherent_transfer(struct fastpath *fp, const struct hf_io_request *req)
{
    const struct hf_file_info *file = req->file;
    bool read = req->op == HF_IO_READ;
    struct coherent_io io = {
        .fp = fp,
        .op = req->op,
        .direct_fd = file->direct_fd,
        .buffered_fd = file->fd,
        .probe_cache = read,
        .offset_align = file->dio_offset_align,
        .mem_align = file->dio_mem_align,
        .mem = (char *)req->buf->base + req->buf_offset,
        .offset = req->file_offset,
    };
    atomic_init(&io.first_short, UINT_MAX);
    atomic_init(&io.direct_end, file->kind == HF_FILE_BLOCK ? DIRECT_END_NONE : DIRECT_END_UNKNOWN);
    atomic_init(&io.direct_refused, 0);
    /*
     * Small reads probe without asking: the count would be one more system call on a read of a
     * few microseconds. Larger ones ask once for the whole request, as the fallback does.
     */
    if (read && req->size > fp->set.inline_max)
        io.from_storage = hfp_mostly_uncached(
            hfp_cached_bytes(fp->host->sys, file->fd, (uint64_t)req->file_offset, req->size),
            req->size);
    ssize_t r = pieces_run(&io, req->size);
    int refused = atomic_load(&io.direct_refused);
    if (refused != 0)
        return refusal_result(fp, req, refused);
    if (r < 0)
        fastpath_log(fp, HF_LOG_ERROR, "%s of %zu bytes at %lld failed: %s",
                     read ? "read" : "O_DIRECT write", req->size, (long long)req->file_offset,
                     fastpath_errno_text((int)-r));
    return r;
}
