/*
 * The data path. A request is cut into windows of one staging buffer on a grid of logical blocks;
 * NVMe commands fill (or drain) one buffer of a staging slot while the GPU copy of the previous
 * window runs from the other on its own stream. The whole range is checked against the file's
 * mapping before any command goes out, so a request is either served here in full or handed to
 * the next backend with nothing moved. After the commands, the file's stamp is checked again: a
 * file that changed under a read is read again by the next backend.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/align.h"
#include "common/device_switch.h"
#include "nvme_backend.h"

/* The largest page cache folio on x86-64 (a PMD): 2 MiB. */
#define FOLIO_MAX (2u * 1024 * 1024)

/* One request in flight. */
struct transfer {
    struct nvme_passthru *np;
    struct nvme_file *nf;
    int op;
    struct nvme_map *map;
    struct nvme_queue *queue;
    struct hfp_staging_slot *slot;
    char *mem;         /* the request's first byte in memory */
    uint64_t offset;   /* the request's first file byte */
    uint64_t end;      /* one past its last (clipped at end of file for reads) */
    uint64_t grid;     /* first window's start: offset rounded down to a block */
    uint64_t grid_end; /* end rounded up to a block */
    bool queued[HF_STAGING_SLOT_BUFFERS];
    int gpu_error;    /* the runtime's code with -HF_EGPU */
    bool gpu_trouble; /* a runtime call failed: the slot's streams are suspect */
};

static int pool_get(struct nvme_passthru *np, int device, struct hfp_staging_pool **pool_p)
{
    if (device < -1 || (unsigned)(device + 1) >= np->pool_count) {
        nvme_log(np, HF_LOG_ERROR, "GPU %d is not one of the %u the runtime reported at start",
                 device, np->pool_count - 1);
        return -EINVAL;
    }
    _Atomic(struct hfp_staging_pool *) *slot = &np->pools[device + 1];
    struct hfp_staging_pool *pool = atomic_load_explicit(slot, memory_order_acquire);
    if (pool == NULL) {
        pthread_mutex_lock(&np->lock);
        pool = atomic_load_explicit(slot, memory_order_relaxed);
        int rc = 0;
        if (pool == NULL) {
            rc = hfp_staging_pool_create(np->host, np->set.chunk_size, np->set.slots_per_device,
                                         device, &pool);
            if (rc == 0)
                atomic_store_explicit(slot, pool, memory_order_release);
        }
        pthread_mutex_unlock(&np->lock);
        if (rc < 0)
            return rc;
    }
    *pool_p = pool;
    return 0;
}

int nvme_io_stream_prepare(struct nvme_passthru *np, int device)
{
    struct hfp_staging_pool *pool = NULL;
    int rc = pool_get(np, device, &pool);
    if (rc != 0)
        return rc;
    int gpu_error = 0;
    rc = hfp_staging_pool_fill(pool, &gpu_error);
    return rc == -HF_EGPU ? -EIO : rc;
}

/* Log a device failure once, with the NVMe status decoded when there is one. */
static int device_failure(struct transfer *t, int rc, int status, const char *what)
{
    char text[128];
    if (status > 0)
        nvme_log(t->np, HF_LOG_ERROR, "%s failed: %s", what,
                 nvme_status_text(status, text, sizeof(text)));
    else
        nvme_log(t->np, HF_LOG_ERROR, "%s failed: %s", what, strerror(-rc));
    /* The filesystem path may still succeed; the next backend serves the request again. */
    return -EREMOTEIO;
}

static int gpu_failure(struct transfer *t, int err, const char *what)
{
    nvme_log(t->np, HF_LOG_ERROR, "%s failed: %s (%d)", what, t->np->host->gpu->error_string(err),
             err);
    t->gpu_error = err;
    t->gpu_trouble = true;
    return -HF_EGPU;
}

/* Check every segment of the request before any command goes out. */
static int range_check(struct transfer *t)
{
    uint64_t pos = t->grid;
    while (pos < t->grid_end) {
        struct nvme_segment seg;
        const char *reason = NULL;
        int rc = nvme_segment_at(t->map, pos, t->grid_end, t->op, t->nf->dev_start, t->nf->lba_size,
                                 &seg, &reason);
        if (rc == -ERANGE && t->op == HF_IO_READ)
            return 0; /* past end of file: zeros that are never copied */
        if (rc < 0) {
            nvme_log(t->np, HF_LOG_DEBUG, "%s at file byte %llu goes to the next backend: %s",
                     t->op == HF_IO_READ ? "read" : "write", (unsigned long long)pos,
                     reason != NULL ? reason : "past end of file");
            return -ENODEV;
        }
        pos += seg.length;
    }
    return 0;
}

/* Send the commands that move window [from, to) between the device and @p buffer. */
static int window_commands(struct transfer *t, char *buffer, uint64_t from, uint64_t to)
{
    const struct nvme_namespace *ns = t->nf->ns;
    uint8_t opcode = t->op == HF_IO_READ ? NVME_OP_READ : NVME_OP_WRITE;
    uint64_t pos = from;
    int status = 0;
    while (pos < to) {
        struct nvme_segment seg;
        const char *reason = NULL;
        int rc = nvme_segment_at(t->map, pos, to, t->op, t->nf->dev_start, t->nf->lba_size, &seg,
                                 &reason);
        if (rc == -ERANGE) {
            memset(buffer + (pos - from), 0, to - pos);
            break;
        }
        if (rc < 0)
            return -ENODEV; /* range_check saw the same map: not reached */
        if (seg.zero) {
            memset(buffer + (pos - from), 0, seg.length);
            pos += seg.length;
            continue;
        }
        for (uint64_t done = 0; done < seg.length;) {
            uint64_t len = seg.length - done;
            if (len > t->nf->max_transfer)
                len = t->nf->max_transfer;
            struct nvme_io io = {
                .opcode = opcode,
                .nsid = ns->target.nsid,
                .slba = (seg.dev_offset + done) >> ns->lba_shift,
                .blocks = (uint32_t)(len >> ns->lba_shift),
                .lba_shift = ns->lba_shift,
                .buf = buffer + (pos - from) + done,
            };
            rc = nvme_queue_submit(t->queue, ns->fd, &io, &status);
            if (rc < 0) {
                int ignored;
                nvme_queue_drain(t->queue, &ignored);
                return device_failure(t, rc, status,
                                      opcode == NVME_OP_READ ? "NVMe read" : "NVMe write");
            }
            done += len;
        }
        pos += seg.length;
    }
    int rc = nvme_queue_drain(t->queue, &status);
    if (rc < 0)
        return device_failure(t, rc, status, opcode == NVME_OP_READ ? "NVMe read" : "NVMe write");
    return 0;
}

static int stream_wait(struct transfer *t, int b, const char *what)
{
    if (!t->queued[b])
        return 0;
    t->queued[b] = false;
    int err = t->np->host->gpu->stream_synchronize(t->slot->stream[b]);
    return err == 0 ? 0 : gpu_failure(t, err, what);
}

/* Reads: window k is read into one buffer while the copy of window k-1 leaves the other. */
static int read_windows(struct transfer *t, size_t chunk)
{
    const struct hf_gpu_ops *gpu = t->np->host->gpu;
    int rc = 0;
    int b = 0;
    for (uint64_t w = t->grid; w < t->grid_end && rc == 0; w += chunk, b ^= 1) {
        uint64_t wend = w + chunk < t->grid_end ? w + chunk : t->grid_end;
        rc = stream_wait(t, b, "copy to the device");
        if (rc == 0)
            rc = window_commands(t, t->slot->buffer[b], w, wend);
        uint64_t from = w > t->offset ? w : t->offset;
        uint64_t to = wend < t->end ? wend : t->end;
        if (rc == 0 && to > from) {
            int err = gpu->memcpy_async(t->mem + (from - t->offset),
                                        (char *)t->slot->buffer[b] + (from - w), to - from,
                                        t->slot->stream[b]);
            if (err != 0)
                rc = gpu_failure(t, err, "queueing a copy to the device");
            else
                t->queued[b] = true;
        }
    }
    for (int i = 0; i < HF_STAGING_SLOT_BUFFERS; i++, b ^= 1) {
        int wait_rc = stream_wait(t, b, "copy to the device");
        if (rc == 0)
            rc = wait_rc;
    }
    return rc;
}

/* Writes: the copy of window k+1 from the GPU runs while window k's commands go out. */
static int write_windows(struct transfer *t, size_t chunk)
{
    const struct hf_gpu_ops *gpu = t->np->host->gpu;
    int rc = 0;
    int b = 0;
    uint64_t w = t->grid;
    uint64_t wend = w + chunk < t->end ? w + chunk : t->end;
    int err = gpu->memcpy_async(t->slot->buffer[0], t->mem, wend - w, t->slot->stream[0]);
    if (err != 0)
        return gpu_failure(t, err, "queueing a copy from the device");
    t->queued[0] = true;
    while (rc == 0) {
        rc = stream_wait(t, b, "copy from the device");
        if (rc != 0)
            break;
        uint64_t next = wend;
        uint64_t next_end = next + chunk < t->end ? next + chunk : t->end;
        if (next < t->end) {
            err = gpu->memcpy_async(t->slot->buffer[!b], t->mem + (next - t->offset),
                                    next_end - next, t->slot->stream[!b]);
            if (err != 0) {
                rc = gpu_failure(t, err, "queueing a copy from the device");
                break;
            }
            t->queued[!b] = true;
        }
        rc = window_commands(t, t->slot->buffer[b], w, wend);
        if (next >= t->end)
            break;
        w = next;
        wend = next_end;
        b ^= 1;
    }
    for (int i = 0; i < HF_STAGING_SLOT_BUFFERS; i++) {
        int wait_rc = stream_wait(t, i, "copy from the device");
        if (rc == 0)
            rc = wait_rc;
    }
    return rc;
}

/*
 * Drop the clean cached pages over the request. The range is widened to 2 MiB boundaries: page
 * cache folios may be that large (XFS uses large folios), and the kernel keeps a folio the range
 * covers only in part.
 */
static void cache_drop(struct transfer *t)
{
    uint64_t from = hfp_align_down(t->offset, FOLIO_MAX);
    uint64_t to = hfp_align_up(t->end, FOLIO_MAX);
    (void)posix_fadvise(t->nf->fd, (off_t)from, (off_t)(to - from), POSIX_FADV_DONTNEED);
}

/*
 * Before a write: no page of the range may stay in the page cache, where a dirty page would later
 * overwrite the device bytes and a mapped one would go on showing the old data. Clean pages are
 * dropped; anything that survives (mapped or dirtied again) sends the write elsewhere.
 */
static int write_cache_check(struct transfer *t)
{
    int fd = t->nf->fd;
    cache_drop(t);
    long page = sysconf(_SC_PAGESIZE);
    uint64_t first = hfp_align_down(t->offset, (uint64_t)page);
    uint64_t last = hfp_align_up(t->end, (uint64_t)page);
    size_t pages = (size_t)((last - first) / (uint64_t)page);
    void *addr = mmap(NULL, last - first, PROT_READ, MAP_SHARED, fd, (off_t)first);
    if (addr == MAP_FAILED) {
        nvme_log(t->np, HF_LOG_DEBUG,
                 "write goes to the next backend: cannot map the range to "
                 "check the page cache");
        return -ENODEV;
    }
    unsigned char *vec = malloc(pages);
    int rc = vec == NULL ? -ENOMEM : 0;
    if (rc == 0 && mincore(addr, last - first, vec) != 0)
        rc = -ENODEV;
    for (size_t i = 0; rc == 0 && i < pages; i++) {
        if (vec[i] & 1) {
            nvme_log(t->np, HF_LOG_DEBUG,
                     "write goes to the next backend: file byte %llu stays in the page cache "
                     "(mapped or dirty)",
                     (unsigned long long)(first + i * (uint64_t)page));
            rc = -ENODEV;
        }
    }
    free(vec);
    munmap(addr, last - first);
    return rc;
}

/*
 * After a write: pages read in meanwhile hold the old bytes, so drop them; move the timestamps as
 * a write through the filesystem would (other mapping caches key on them); flush the device's
 * write cache when the file asks for synchronous writes.
 */
static void write_finish(struct transfer *t, int status_flags)
{
    int fd = t->nf->fd;
    cache_drop(t);
    const struct timespec now[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_NOW}};
    if (futimens(fd, now) != 0)
        nvme_log(t->np, HF_LOG_WARN, "cannot update the file's timestamps after a write: %s",
                 strerror(errno));
    nvme_map_cache_drop(&t->nf->cache);
    if ((status_flags & (O_SYNC | O_DSYNC)) != 0) {
        struct nvme_io flush = {.opcode = NVME_OP_FLUSH,
                                .nsid = t->nf->ns->target.nsid,
                                .lba_shift = t->nf->ns->lba_shift};
        int status = 0;
        int rc = nvme_queue_submit(t->queue, t->nf->ns->fd, &flush, &status);
        if (rc == 0)
            rc = nvme_queue_drain(t->queue, &status);
        if (rc < 0)
            device_failure(t, rc, status, "NVMe flush");
    }
}

/* Windows through one staging slot, on the buffer's device. */
static int transfer_staged(struct transfer *t, const struct hf_io_request *req)
{
    struct hfp_staging_pool *pool;
    int rc = pool_get(t->np, req->buf->device, &pool);
    if (rc < 0)
        return rc;
    int previous = -1;
    rc = hfp_device_enter(t->np->host, req->buf->device, &previous, &t->gpu_error);
    if (rc < 0)
        return rc;
    rc = hfp_staging_pool_take(pool, &t->slot, &t->gpu_error);
    if (rc == 0) {
        size_t chunk = hfp_staging_pool_buffer_size(pool);
        rc = t->op == HF_IO_READ ? read_windows(t, chunk) : write_windows(t, chunk);
        if (t->gpu_trouble)
            hfp_staging_pool_discard(pool, t->slot);
        else
            hfp_staging_pool_give(pool, t->slot);
    }
    hfp_device_restore(t->np->host, previous);
    return rc;
}

static ssize_t transfer_result(struct transfer *t, const struct hf_io_request *req, int rc)
{
    if (rc == -HF_EGPU && req->gpu_error_p != NULL)
        *req->gpu_error_p = t->gpu_error;
    return rc < 0 ? rc : (ssize_t)(t->end - t->offset);
}

ssize_t nvme_io_transfer(struct nvme_passthru *np, struct nvme_file *nf,
                         const struct hf_io_request *req)
{
    struct transfer t = {
        .np = np,
        .nf = nf,
        .op = req->op,
        .mem = (char *)req->buf->base + req->buf_offset,
        .offset = (uint64_t)req->file_offset,
        .end = (uint64_t)req->file_offset + req->size,
    };
    uint64_t lba = nf->lba_size;
    bool write = req->op == HF_IO_WRITE;
    if (write && (!hfp_align_is_aligned(t.offset, lba) || !hfp_align_is_aligned(t.end, lba))) {
        nvme_log(np, HF_LOG_DEBUG, "write goes to the next backend: not on %llu-byte blocks",
                 (unsigned long long)lba);
        return -ENODEV;
    }
    struct nvme_file_stamp stamp;
    int rc = nvme_map_get(&nf->cache, nf->fd, np->host->sys->ioctl, t.offset, req->size, write,
                          &t.map, &stamp);
    if (rc < 0) {
        nvme_log(np, HF_LOG_DEBUG, "request goes to the next backend: no mapping (%s)",
                 strerror(-rc));
        return -ENODEV;
    }
    if (t.offset >= stamp.size) {
        rc = 0;
        t.end = t.offset;
        goto put_map;
    }
    if (t.end > stamp.size) {
        if (write) {
            nvme_log(np, HF_LOG_DEBUG, "write goes to the next backend: it ends past end of file");
            rc = -ENODEV;
            goto put_map;
        }
        t.end = stamp.size;
    }
    t.grid = hfp_align_down(t.offset, lba);
    t.grid_end = hfp_align_up(t.end, lba);
    rc = range_check(&t);
    if (rc == 0 && write)
        rc = write_cache_check(&t);
    if (rc < 0)
        goto put_map;
    rc = nvme_queue_take(np, &t.queue);
    if (rc < 0) {
        rc = -ENODEV;
        goto put_map;
    }
    rc = transfer_staged(&t, req);
    if (write && rc != -ENODEV)
        write_finish(&t, req->file->status_flags);
    nvme_queue_give(np, t.queue);
    if (rc == 0 && !write) {
        /* A file that changed while its blocks were read may have moved them: read it again. */
        struct nvme_file_stamp after;
        if (nvme_file_stamp_take(nf->fd, &after) != 0 || !nvme_file_stamp_equal(&stamp, &after)) {
            nvme_log(np, HF_LOG_DEBUG, "the file changed during a read; the next backend reads it");
            nvme_map_cache_drop(&nf->cache);
            rc = -ENODEV;
        }
    }

put_map:
    nvme_map_put(t.map);
    return transfer_result(&t, req, rc);
}
