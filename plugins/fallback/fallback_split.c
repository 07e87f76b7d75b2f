/*
 * How the fallback serves one checked request: whether the memory is staged, whether reads may
 * use O_DIRECT, and whether the request runs whole on the calling thread or in pieces on the
 * core's workers; then the one result rule for pieces: bytes in request order up to the first
 * piece that ended short.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>

#include "common/align.h"
#include "common/cache_probe.h"
#include "common/device_switch.h"
#include "fallback_internal.h"

/*
 * Most pieces one request is cut into. Past a few dozen threads one request gains nothing (the
 * copy engines and the page cache saturate first), and a bound keeps the bookkeeping on the stack.
 */
#define PIECES_MAX 64

/* Interior piece boundaries of requests with pieces smaller than a chunk fall on this grid. */
#define PIECE_GRANULE (64 * 1024)

/*
 * Memory the CPU cannot address has to be staged; device memory it can address (host-emulated
 * device memory, APUs) is moved straight unless the settings ask for staging anyway.
 */
bool fallback_memory_is_staged(const struct fallback *fb, const struct hf_buf_info *buf)
{
    if (!buf->host_accessible)
        return true;
    return buf->mem_type == HF_MEM_DEVICE && fb->set.bounce_host_accessible;
}

/*
 * Reads may use the file's O_DIRECT descriptor when the settings and its granules allow. Writes
 * use it only for a file the program opened with O_DIRECT: such a program asked for its writes to
 * leave the page cache alone, and others expect them to land in it (decision 56).
 */
static void direct_setup(struct fallback_io *io, const struct hf_io_request *req, int direct_io)
{
    const struct fallback *fb = io->fb;
    const struct hf_file_info *file = req->file;
    io->direct_fd = -1;
    if (direct_io == FALLBACK_DIRECT_NEVER || file->direct_fd < 0 ||
        !hfp_align_is_pow2(file->dio_offset_align) || !hfp_align_is_pow2(file->dio_mem_align) ||
        fb->set.chunk_size % file->dio_offset_align != 0)
        return;
    if (req->op != HF_IO_READ) {
        if ((file->status_flags & O_DIRECT) == 0)
            return;
        io->direct_fd = file->direct_fd;
        io->dio_offset_align = file->dio_offset_align;
        io->dio_mem_align = file->dio_mem_align;
        io->direct_write = true;
        return;
    }
    /*
     * A direct read reaching end of file stores the whole last block, bytes past the end of file
     * included, though it returns only those before. Staged reads copy only what was returned;
     * straight reads keep O_DIRECT below the last whole granule before end of file, looked up
     * when the first direct read is due (cached data never needs it).
     */
    bool bounded = !io->staged && file->kind != HF_FILE_BLOCK;
    atomic_init(&io->direct_end, bounded ? FALLBACK_DIRECT_END_UNKNOWN : UINT64_MAX);
    io->direct_fd = file->direct_fd;
    io->dio_offset_align = file->dio_offset_align;
    io->dio_mem_align = file->dio_mem_align;
    io->probe_cache = direct_io == FALLBACK_DIRECT_AUTO;
}

/* A request cut into pieces; piece i is request bytes [bounds[i], bounds[i + 1]). */
struct split {
    struct fallback_io *io;
    unsigned count;
    size_t bounds[PIECES_MAX + 1];
    ssize_t results[PIECES_MAX];
};

/*
 * Cut the request into up to @p width pieces of at least split_threshold bytes. Interior
 * boundaries fall on the chunk grid when pieces span chunks (each piece then moves whole chunks),
 * else on a 64 KiB grid, which keeps them DIO-aligned.
 */
static void split_plan(struct split *sp, unsigned width, size_t split_threshold)
{
    const struct fallback_io *io = sp->io;
    const struct fallback_settings *set = &io->fb->set;
    size_t count = io->size / split_threshold;
    if (count > width)
        count = width;
    if (count > PIECES_MAX)
        count = PIECES_MAX;
    if (count < 1)
        count = 1;
    size_t nominal = io->size / count;
    uint64_t granule = nominal >= set->chunk_size ? set->chunk_size : PIECE_GRANULE;
    if (io->direct_fd >= 0 && granule < io->dio_offset_align)
        granule = io->dio_offset_align;
    uint64_t start = (uint64_t)io->offset;
    sp->count = 0;
    sp->bounds[0] = 0;
    for (size_t i = 1; i < count; i++) {
        uint64_t line = (start + i * nominal) / granule * granule;
        if (line <= start + sp->bounds[sp->count])
            continue;
        sp->bounds[++sp->count] = (size_t)(line - start);
    }
    sp->bounds[++sp->count] = io->size;
}

/* Mark piece @p index as ended short, so later pieces stop at their next chunk. */
static void split_note_short(struct fallback_io *io, unsigned index)
{
    unsigned seen = atomic_load(&io->first_short_piece);
    while (index < seen && !atomic_compare_exchange_weak(&io->first_short_piece, &seen, index))
        ;
}

static void split_task(void *arg, unsigned index)
{
    struct split *sp = arg;
    struct fallback_io *io = sp->io;
    size_t begin = sp->bounds[index];
    size_t end = sp->bounds[index + 1];
    ssize_t result = fallback_piece_run(io, index, begin, end);
    sp->results[index] = result;
    if (result < 0 || (size_t)result < end - begin)
        split_note_short(io, index);
}

/* The bytes that moved in request order up to the first piece that ended short. */
static ssize_t split_result(const struct split *sp)
{
    size_t total = 0;
    for (unsigned i = 0; i < sp->count; i++) {
        ssize_t r = sp->results[i];
        if (r < 0) {
            return total > 0 ? (ssize_t)total : r;
        }
        total += (size_t)r;
        if ((size_t)r < sp->bounds[i + 1] - sp->bounds[i])
            break;
    }
    return (ssize_t)total;
}

/* Run the pieces on the workers and the calling thread; whole on the caller when that fails. */
static ssize_t split_run(struct fallback_io *io, unsigned width, size_t split_threshold)
{
    struct fallback *fb = io->fb;
    struct split sp = {.io = io};
    split_plan(&sp, width, split_threshold);
    if (sp.count > 1) {
        int rc = fb->host->parallel_run(fb->host, sp.count, split_task, &sp);
        if (rc == 0)
            return split_result(&sp);
        fallback_log(fb, HF_LOG_WARN,
                     "the executor could not run %u pieces (%s); serving the request whole",
                     sp.count, fallback_errno_text(-rc));
    }
    return fallback_piece_run(io, 0, 0, io->size);
}

/* Fill *io for @p req as the limits @p lim say. */
static void io_init(struct fallback_io *io, struct fallback *fb, const struct hf_io_request *req,
                    const struct fallback_limits *lim)
{
    *io = (struct fallback_io){
        .fb = fb,
        .op = req->op,
        .staged = fallback_memory_is_staged(fb, req->buf),
        .device = req->buf->device,
        .mem = (char *)req->buf->base + req->buf_offset,
        .offset = req->file_offset,
        .size = req->size,
        .fd = req->file->fd,
        .file = req->file,
        .cached_bytes = FALLBACK_CACHED_UNASKED,
    };
    /* Every part of the fallback moves file bytes through these two, whatever the file is. */
    if (req->file->kind == HF_FILE_USERSPACE_FS) {
        io->window_read = fallback_fs_read;
        io->window_write = fallback_fs_write;
    } else {
        io->window_read = fallback_posix_read;
        io->window_write = fallback_posix_write;
    }
    /*
     * Staging is read next by the copy engine, which reads lines a core holds modified slowly; a
     * request of a few pages costs the copy engine microseconds either way, and the bounce more.
     */
    io->streamed = io->staged && io->op == HF_IO_READ && fb->set.streaming_stores &&
                   req->size >= FALLBACK_STREAM_MIN && req->file->kind != HF_FILE_USERSPACE_FS &&
                   hfp_stream_copy_available();
    atomic_init(&io->direct_refused, false);
    atomic_init(&io->first_short_piece, UINT_MAX);
    direct_setup(io, req, lim->direct_io);
}

/*
 * A read that O_DIRECT may serve, of a range the page cache mostly lacks, is bound by the storage.
 * Its windows are probed only where the kernel counts cached bytes (fallback_posix.c), and
 * staged, it runs in lanes, each reading a window with blocking O_DIRECT reads and copying it,
 * rather than as the pipeline, whose copier polls for blocks and, for a disk a hundred times
 * slower than the page cache, burns a core doing it. Small reads, served on the caller's thread,
 * are not asked: the question would cost them a system call. Measured on an H100 machine from a
 * fast block device (docs/performance.rst): lanes 1.05-1.29 of 17-thread O_DIRECT at 4-64 MiB calls
 * with 0.06-0.09 CPU s/GB, the pipeline 0.78-1.02 with 0.46-0.84.
 */
static bool read_goes_to_storage(const struct fallback_io *io)
{
    if (io->direct_fd < 0 || io->size <= io->fb->set.inline_max)
        return false;
    /* The mapped path may have counted this very range already. */
    int64_t cached =
        io->cached_bytes != FALLBACK_CACHED_UNASKED
            ? io->cached_bytes
            : hfp_cached_bytes(io->fb->host->sys, io->fd, (uint64_t)io->offset, io->size);
    return hfp_mostly_uncached(cached, io->size);
}

ssize_t fallback_serve(struct fallback *fb, const struct hf_io_request *req)
{
    struct fallback_io io;
    struct fallback_limits lim;
    fallback_limits_read(fb, &lim);
    io_init(&io, fb, req, &lim);

    int previous_device = -1;
    if (io.staged) {
        int rc = fallback_pool_get(fb, io.device, &io.pool);
        if (rc < 0)
            return rc;
        int gpu_error = 0;
        if (io.device >= 0 &&
            hfp_device_enter(fb->host, io.device, &previous_device, &gpu_error) < 0) {
            if (req->gpu_error_p != NULL)
                *req->gpu_error_p = gpu_error;
            return -HF_EGPU;
        }
    }
    /* Small requests stay on the caller: the executor round trip would cost more than it saves. */
    unsigned width = 1;
    if (lim.parallel && req->size > fb->set.inline_max)
        width = fb->host->parallel_width(fb->host);
    if (width > lim.max_pieces)
        width = lim.max_pieces;
    /* What the page cache holds whole goes to the GPU from its own pages (fallback_mapped.c). */
    bool gpu_failed = false;
    int mapped_gpu_error = 0;
    ssize_t mapped = fallback_mapped_read(&io, width, &mapped_gpu_error, &gpu_failed);
    if (gpu_failed || (size_t)mapped == io.size) {
        if (mapped == -HF_EGPU && req->gpu_error_p != NULL)
            *req->gpu_error_p = mapped_gpu_error;
        hfp_device_restore(fb->host, previous_device);
        return mapped;
    }
    /* A block the runtime would not lock, and all after it, are read the usual way. */
    io.mem += mapped;
    io.offset += mapped;
    io.size -= (size_t)mapped;
    if (mapped > 0)
        io.cached_bytes = FALLBACK_CACHED_UNASKED;
    ssize_t result;
    /*
     * Staged reads run by the answer; straight ones only probe by it, so they ask only when they
     * would probe at all.
     */
    io.from_storage =
        io.op == HF_IO_READ && (io.staged || io.probe_cache) && read_goes_to_storage(&io);
    /*
     * Staged work that the page cache serves is the CPUs' own copying: lanes past the CPUs the
     * process may use only wait for a turn, and on two CPUs cost a sixth to a third of the rate
     * (docs/performance.rst). Reads from the storage and direct writes wait on the device, and
     * keep every lane: their threads are what keep its queue full.
     */
    bool storage_bound = io.op == HF_IO_READ ? io.from_storage : io.direct_write;
    if (io.staged && !storage_bound && width > lim.cpu_lanes)
        width = lim.cpu_lanes;
    if (io.staged && io.op == HF_IO_READ && fb->set.pipeline_reads &&
        (fb->set.pipeline_max == 0 || io.size <= fb->set.pipeline_max) && !io.from_storage) {
        /* The pipeline's readers need no slot each: every worker may read. */
        int gpu_error = 0;
        result = fallback_pipeline_read(&io, width, &gpu_error);
        if (result == -HF_EGPU && req->gpu_error_p != NULL)
            *req->gpu_error_p = gpu_error;
    } else if (io.staged) {
        /*
         * Lanes of at least split_threshold bytes each, as pieces are, and no more than the pool
         * has slots: a lane past that would only wait for one until the others are done.
         */
        size_t lanes = io.size / lim.split_threshold;
        unsigned slots = fallback_slot_bound(fb);
        if (lanes > width)
            lanes = width;
        if (lanes > slots)
            lanes = slots;
        int gpu_error = 0;
        /*
         * A lane's window is a whole chunk, larger than a core's cache: most of it has left the
         * cache when the copy starts, and streaming it measured no faster on the H200.
         */
        io.streamed = false;
        result = fallback_staged_run(&io, lanes > 0 ? (unsigned)lanes : 1, &gpu_error);
        if (result == -HF_EGPU && req->gpu_error_p != NULL)
            *req->gpu_error_p = gpu_error;
    } else {
        result = split_run(&io, width, lim.split_threshold);
    }
    hfp_device_restore(fb->host, previous_device);
    if (mapped > 0)
        return result < 0 ? mapped : mapped + result;
    return result;
}

/* Reads small enough to run whole on one thread, through staging: these share a lane. */
static bool request_shares_a_lane(const struct fallback *fb, const struct hf_io_request *req)
{
    return req->op == HF_IO_READ && req->size <= fb->set.inline_max &&
           fallback_memory_is_staged(fb, req->buf);
}

/* Read @p n requests of one device through one lane; the caller checked each shares a lane. */
static void transfer_lane(struct fallback *fb, const struct hf_io_request *const *reqs, unsigned n,
                          ssize_t *results)
{
    struct fallback_io ios[FALLBACK_MANY_MAX];
    int gpu_errors[FALLBACK_MANY_MAX] = {0};
    struct fallback_limits lim;
    fallback_limits_read(fb, &lim);
    int device = reqs[0]->buf->device;
    struct hfp_staging_pool *pool;
    int previous_device = -1, gpu_error = 0;
    ssize_t rc = fallback_pool_get(fb, device, &pool);
    if (rc == 0 && device >= 0 &&
        hfp_device_enter(fb->host, device, &previous_device, &gpu_error) < 0)
        rc = -HF_EGPU;
    if (rc < 0) {
        for (unsigned i = 0; i < n; i++) {
            results[i] = rc;
            if (rc == -HF_EGPU && reqs[i]->gpu_error_p != NULL)
                *reqs[i]->gpu_error_p = gpu_error;
        }
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        io_init(&ios[i], fb, reqs[i], &lim);
        ios[i].pool = pool;
    }
    fallback_staged_read_many(ios, n, results, gpu_errors);
    for (unsigned i = 0; i < n; i++) {
        if (results[i] == -HF_EGPU && reqs[i]->gpu_error_p != NULL)
            *reqs[i]->gpu_error_p = gpu_errors[i];
    }
    hfp_device_restore(fb->host, previous_device);
}

void fallback_serve_many(struct fallback *fb, const struct hf_io_request *const *reqs, unsigned n,
                         ssize_t *results)
{
    for (unsigned base = 0; base < n; base += FALLBACK_MANY_MAX) {
        unsigned count = n - base < FALLBACK_MANY_MAX ? n - base : FALLBACK_MANY_MAX;
        bool done[FALLBACK_MANY_MAX] = {false};
        for (unsigned i = 0; i < count; i++) {
            if (done[i])
                continue;
            const struct hf_io_request *req = reqs[base + i];
            const struct hf_io_request *group[FALLBACK_MANY_MAX];
            unsigned members[FALLBACK_MANY_MAX];
            unsigned k = 0;
            if (request_shares_a_lane(fb, req)) {
                for (unsigned j = i; j < count; j++) {
                    const struct hf_io_request *other = reqs[base + j];
                    if (!done[j] && request_shares_a_lane(fb, other) &&
                        other->buf->device == req->buf->device) {
                        members[k] = j;
                        group[k++] = other;
                    }
                }
            }
            if (k < 2) {
                results[base + i] = fallback_serve(fb, req);
                done[i] = true;
                continue;
            }
            ssize_t group_results[FALLBACK_MANY_MAX];
            transfer_lane(fb, group, k, group_results);
            for (unsigned m = 0; m < k; m++) {
                results[base + members[m]] = group_results[m];
                done[members[m]] = true;
            }
        }
    }
}
