/*
 * Cached reads to GPU memory without a CPU copy. The request's range of the file is mapped
 * read-only, so its pages are the page cache's own; once the runtime has locked a block of them
 * for the GPU (hf_gpu_ops.host_register_read_only) the copy engine reads them where they are. The
 * staged paths copy every byte once more on a CPU, from the page cache into pinned staging: a core
 * per few GB/s, and memory bandwidth that every process on the host shares. Here a byte costs
 * locking and unlocking its page (a page-table walk, tens of GB/s per thread) and the copy
 * engine's read. Each lane holds a staging slot for its two streams: it locks one block while the
 * copy of the one before runs, then waits for that copy and unlocks its pages.
 *
 * Only a request that lies inside the file, and whose pages the page cache holds, is taken: a page
 * past the end of the file cannot be mapped, and one that is not cached would be read from the
 * disk by the lock, one fault at a time. A file cut short meanwhile makes the lock fail for the
 * pages gone; the caller then reads the rest through staging, which stops at the new end as any
 * read does. Pages locked before the cut hold the bytes they had, as a read that came first would.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/align.h"
#include "common/cache_probe.h"
#include "common/device_switch.h"
#include "fallback_internal.h"

/* Most lanes one request runs in; each holds a staging slot for its streams. */
#define MAP_LANES_MAX 64
/*
 * Blocks chosen per request: a quarter of it, within these bounds. Each lock and unlock is a
 * driver call with a fixed cost that serializes with the others of the process: on an H100
 * machine, 1 GiB in 64 MiB blocks moved 26-29 GB/s and in 16 MiB blocks 21-23; 16 MiB in 4 MiB
 * blocks 16.5 GB/s and in 2 MiB blocks 10.
 */
#define MAP_BLOCKS_PER_REQUEST 4
#define MAP_BLOCK_MIN ((size_t)2 * 1024 * 1024)
#define MAP_BLOCK_MAX ((size_t)64 * 1024 * 1024)
#define MAP_BLOCK_GRANULE ((size_t)1024 * 1024)

struct mapped {
    struct fallback_io *io;
    const char *map;       /* the mapping's first byte: the page holding the request's first */
    size_t page;           /* bytes per page */
    size_t skew;           /* offset of the request's first byte in the mapping */
    size_t span;           /* skew + io->size */
    size_t block;          /* bytes locked and copied at once, a multiple of the page */
    size_t blocks;         /* blocks covering [0, span) */
    atomic_size_t next;    /* next block to claim */
    atomic_size_t stop;    /* lowest block that was not moved; SIZE_MAX while none */
    atomic_int gpu_error;  /* the runtime's code of the first copy failure */
    atomic_int lock_error; /* the runtime's code of the first refused lock */
    struct hfp_staging_slot *slots[MAP_LANES_MAX];
    unsigned lanes;
    bool *locked; /* per block: its pages are locked */
};

/* Block @p index did not arrive: nothing from it on counts. */
static void mapped_stop_at(struct mapped *m, size_t index)
{
    size_t seen = atomic_load(&m->stop);
    while (index < seen && !atomic_compare_exchange_weak(&m->stop, &seen, index))
        ;
}

/* Request bytes [from, to) of block @p index, in request offsets. */
static void block_range(const struct mapped *m, size_t index, size_t *from_p, size_t *to_p)
{
    size_t begin = index * m->block;
    size_t end = begin + m->block < m->span ? begin + m->block : m->span;
    *from_p = begin < m->skew ? 0 : begin - m->skew;
    *to_p = end - m->skew;
}

/* Wait for block @p index's copy on @p stream. */
static void block_finish(struct mapped *m, size_t index, void *stream)
{
    int err = m->io->fb->host->gpu->stream_synchronize(stream);
    if (err != 0) {
        int none = 0;
        atomic_compare_exchange_strong(&m->gpu_error, &none, err);
        mapped_stop_at(m, index);
    }
}

/*
 * One lane: claim blocks in file order; lock each and queue its copy on one stream while the
 * previous block's copy runs on the other.
 */
static void mapped_task(void *arg, unsigned lane)
{
    struct mapped *m = arg;
    struct fallback_io *io = m->io;
    const struct hf_gpu_ops *gpu = io->fb->host->gpu;
    struct hfp_staging_slot *slot = m->slots[lane];
    int previous = -1, gpu_error = 0;
    /* Workers belong to the core: the device they are left on matters to no one. */
    if (io->device >= 0 && hfp_device_enter(io->fb->host, io->device, &previous, &gpu_error) < 0) {
        int none = 0;
        atomic_compare_exchange_strong(&m->gpu_error, &none, gpu_error);
        mapped_stop_at(m, atomic_load(&m->next));
        return;
    }
    size_t pending = SIZE_MAX; /* block whose copy runs on the other stream */
    unsigned which = 0;
    for (;;) {
        size_t index = atomic_fetch_add(&m->next, 1);
        if (index >= m->blocks || index >= atomic_load(&m->stop))
            break;
        size_t from, to;
        block_range(m, index, &from, &to);
        const char *pages = m->map + index * m->block;
        size_t page_bytes = hfp_align_up(m->skew + to, m->page) - index * m->block;
        int err = gpu->host_register_read_only((void *)pages, page_bytes);
        if (err != 0) {
            int none = 0;
            atomic_compare_exchange_strong(&m->lock_error, &none, err);
            mapped_stop_at(m, index);
            break;
        }
        m->locked[index] = true;
        err = gpu->memcpy_async(io->mem + from, m->map + m->skew + from, to - from,
                                slot->stream[which]);
        if (err != 0) {
            int none = 0;
            atomic_compare_exchange_strong(&m->gpu_error, &none, err);
            mapped_stop_at(m, index);
            break;
        }
        if (pending != SIZE_MAX)
            block_finish(m, pending, slot->stream[which ^ 1]);
        pending = index;
        which ^= 1;
    }
    if (pending != SIZE_MAX)
        block_finish(m, pending, slot->stream[which ^ 1]);
    hfp_device_restore(io->fb->host, previous);
}

/* Bytes per block: whole pages, within the bounds above. */
static size_t mapped_block(const struct fallback *fb, size_t span, size_t page)
{
    size_t block = fb->set.mapped_block;
    if (block == 0) {
        block = hfp_align_up((span + MAP_BLOCKS_PER_REQUEST - 1) / MAP_BLOCKS_PER_REQUEST,
                             MAP_BLOCK_GRANULE);
        if (block < MAP_BLOCK_MIN)
            block = MAP_BLOCK_MIN;
        if (block > MAP_BLOCK_MAX)
            block = MAP_BLOCK_MAX;
    }
    return hfp_align_up(block, page);
}

/* Whether the request lies inside the file and the page cache holds it (counted into @p io). */
static bool mapped_fits(struct fallback_io *io)
{
    const struct fallback *fb = io->fb;
    const struct hf_sys_ops *sys = fb->host->sys;
    if (!fb->can_map || atomic_load_explicit(&fb->map_refused, memory_order_relaxed) ||
        !io->staged || io->op != HF_IO_READ || io->file->kind != HF_FILE_REGULAR || io->fd < 0 ||
        io->size < fb->set.mapped_min || io->size == 0)
        return false;
    struct stat st;
    if (sys->fstat(io->fd, &st) != 0 || !S_ISREG(st.st_mode) || io->offset < 0 ||
        (uint64_t)io->offset + io->size > (uint64_t)st.st_size)
        return false;
    int64_t cached = hfp_cached_bytes(sys, io->fd, (uint64_t)io->offset, io->size);
    io->cached_bytes = cached;
    if (cached >= 0)
        return (uint64_t)cached >= io->size;
    /* The kernel cannot count: the first and last byte stand for the range. */
    return hfp_byte_cached(sys, io->fd, io->offset) &&
           hfp_byte_cached(sys, io->fd, io->offset + (int64_t)io->size - 1);
}

/*
 * A lock refused while the range still lies inside the file is the runtime's answer for this kind
 * of memory: unless it locked such pages before, no later request asks again.
 */
static void mapped_note_refusal(struct fallback_io *io, int err)
{
    struct fallback *fb = io->fb;
    struct stat st;
    if (atomic_load(&fb->map_worked) || fb->host->sys->fstat(io->fd, &st) != 0 ||
        (uint64_t)io->offset + io->size > (uint64_t)st.st_size)
        return;
    if (!atomic_exchange(&fb->map_refused, true))
        fallback_log(fb, HF_LOG_INFO,
                     "the GPU runtime will not lock the page cache's pages (%s): cached reads go "
                     "through staging buffers",
                     fb->host->gpu->error_string(err));
}

ssize_t fallback_mapped_read(struct fallback_io *io, unsigned lanes, int *gpu_error_p,
                             bool *gpu_failed_p)
{
    *gpu_failed_p = false;
    if (!mapped_fits(io))
        return 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    struct mapped *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return 0;
    m->io = io;
    m->page = page;
    m->skew = (size_t)((uint64_t)io->offset % page);
    m->span = m->skew + io->size;
    size_t map_len = hfp_align_up(m->span, page);
    void *map = mmap(NULL, map_len, PROT_READ, MAP_SHARED, io->fd, io->offset - (off_t)m->skew);
    if (map == MAP_FAILED) {
        free(m);
        return 0;
    }
    m->map = map;
    if (lanes == 0)
        lanes = 1;
    if (lanes > MAP_LANES_MAX)
        lanes = MAP_LANES_MAX;
    m->block = mapped_block(io->fb, m->span, page);
    m->blocks = (m->span + m->block - 1) / m->block;
    m->locked = calloc(m->blocks, sizeof(*m->locked));
    if (m->locked == NULL) {
        munmap(map, map_len);
        free(m);
        return 0;
    }
    atomic_init(&m->next, 0);
    atomic_init(&m->stop, SIZE_MAX);
    atomic_init(&m->gpu_error, 0);
    atomic_init(&m->lock_error, 0);
    ssize_t result = hfp_staging_pool_take_some(io->pool, m->slots,
                                                lanes < m->blocks ? lanes : (unsigned)m->blocks,
                                                &m->lanes, gpu_error_p);
    if (result < 0) {
        /* Without a slot the staged paths fare no better; a runtime failure ends the request. */
        *gpu_failed_p = result == -HF_EGPU;
        if (!*gpu_failed_p)
            result = 0;
        goto unmap;
    }
    int rc = m->lanes > 1 ? io->fb->host->parallel_run(io->fb->host, m->lanes, mapped_task, m) : -1;
    if (rc != 0)
        mapped_task(m, 0);
    /*
     * Unlocked once every copy has ended: the CUDA driver's unlock waits for the copies in flight
     * on the GPU, so unlocking in the lanes stalled each lane behind the others' copies.
     */
    for (size_t b = 0; b < m->blocks; b++)
        if (m->locked[b])
            io->fb->host->gpu->host_unregister((void *)(m->map + b * m->block));
    size_t stop = atomic_load(&m->stop);
    size_t moved = io->size;
    if (stop != SIZE_MAX) {
        size_t from, to;
        block_range(m, stop, &from, &to);
        moved = from;
    }
    int gpu_error = atomic_load(&m->gpu_error);
    int lock_error = atomic_load(&m->lock_error);
    if (gpu_error != 0) {
        *gpu_failed_p = true;
        if (moved == 0) {
            *gpu_error_p = gpu_error;
            result = -HF_EGPU;
        } else {
            result = (ssize_t)moved;
        }
    } else {
        result = (ssize_t)moved;
        if (lock_error != 0)
            mapped_note_refusal(io, lock_error);
        else
            atomic_store(&io->fb->map_worked, true);
    }
    for (unsigned s = 0; s < m->lanes; s++) {
        if (gpu_error != 0)
            hfp_staging_pool_discard(io->pool, m->slots[s]);
        else
            hfp_staging_pool_give(io->pool, m->slots[s]);
    }
unmap:
    munmap(map, map_len);
    free(m->locked);
    free(m);
    return result;
}
