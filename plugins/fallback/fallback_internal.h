/*
 * Internals of the fallback backend shared by its source files: the backend's state and settings,
 * one request as its pieces see it, and what each file offers the others. Nothing here is
 * exported; the plugin's version script keeps every symbol but the entry point private.
 */
#ifndef HF_PLUGIN_FALLBACK_INTERNAL_H
#define HF_PLUGIN_FALLBACK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/staging_pool.h"
#include "common/stream_copy.h"
#include "hipfile/backend.h"

/**
 * The plugin ABI minor the fallback needs: minor 7's transfer op (one function for both
 * directions), and with it everything earlier minors added (user-space filesystem files, declared
 * settings, core limits, the executor, preadv2). Its manifest says the same.
 */
#define FALLBACK_ABI_MINOR 7

/** When reads may go through the file's O_DIRECT descriptor (setting fallback.direct_io). */
enum fallback_direct_io {
    FALLBACK_DIRECT_AUTO = 0,   /**< aligned ranges the page cache does not hold */
    FALLBACK_DIRECT_ALWAYS = 1, /**< every aligned range, without asking the page cache */
    FALLBACK_DIRECT_NEVER = 2,  /**< never: buffered reads only */
};

/** The backend's settings, read once at init (fallback_settings.c). */
struct fallback_settings {
    size_t chunk_size;           /**< bytes per staging buffer and per file I/O window */
    unsigned slots_per_device;   /**< most staging slots one GPU's pool creates */
    size_t split_threshold;      /**< smallest piece of a split request, bytes; 0 = the core's
                                      execution.min_io_threshold_size_kb, read per request */
    size_t inline_max;           /**< largest request always served whole on the caller */
    size_t tail_window;          /**< smallest window the tail of a request in several lanes is
                                      cut into, bytes; 0 keeps every window a whole chunk */
    int direct_io;               /**< enum fallback_direct_io */
    bool bounce_host_accessible; /**< stage device memory even when the CPU can address it */
    bool pipeline_reads;         /**< staged reads run as one pipeline (fallback_pipeline.c) */
    bool streaming_stores;       /**< staged reads from the page cache go through a bounce buffer
                                      and reach staging with non-temporal stores */
    size_t pipeline_max;         /**< larger staged reads run in lanes; 0 = no limit */
    size_t pipeline_piece;       /**< bytes per file read of a pipeline; 0 = chosen per request */
    size_t pipeline_block;       /**< bytes per GPU copy of a pipeline; 0 = chosen per request */
    bool mapped_reads;           /**< cached reads to staged memory copy from the page cache's
                                      own pages (fallback_mapped.c) */
    size_t mapped_min;           /**< smallest request read that way, bytes */
    size_t mapped_block;         /**< bytes locked and copied at once; 0 = chosen per request */
};

/**
 * Largest window lanes read from the storage at once, in a read that gives every lane at least a
 * chunk or spans FALLBACK_STORAGE_WINDOW_CHUNKS chunks (a divisor of the chunk when the chunk is
 * larger), short of FALLBACK_STORAGE_LONG_CHUNKS a lane: the device completes such reads one after
 * another, so each lane's copy starts while the others' reads still run (docs/performance.rst).
 */
#define FALLBACK_STORAGE_WINDOW ((size_t)1024 * 1024)

/**
 * Chunks from which a read from the storage takes storage windows however many lanes serve it:
 * with seventeen lanes a 64 MiB read gave no lane a second chunk, and its sixteen whole chunks
 * landed together, their copies after them.
 */
#define FALLBACK_STORAGE_WINDOW_CHUNKS 16

/**
 * Window of a read from the storage that gives every lane at least FALLBACK_STORAGE_LONG_CHUNKS
 * chunks (a divisor of the chunk when the chunk is larger): each lane still reads several in turn,
 * while the kernel's and the copies' cost per window, which 1 MiB windows of a 1 GiB call took to
 * 2.1-2.6 times 17-thread O_DIRECT's CPU, is paid half as often (docs/performance.rst).
 */
#define FALLBACK_STORAGE_WINDOW_LONG ((size_t)2048 * 1024)

/** Chunks per lane from which a read from the storage takes FALLBACK_STORAGE_WINDOW_LONG. */
#define FALLBACK_STORAGE_LONG_CHUNKS 4

/**
 * Window of a read from the storage no longer than a chunk (a divisor of the chunk when the chunk
 * is larger), which the calling thread reads alone: the copy of one window to the device runs while
 * the next is read, where a whole chunk's copy could only follow its read (docs/performance.rst).
 */
#define FALLBACK_STORAGE_WINDOW_ONE_LANE ((size_t)2048 * 1024)

/** Smallest and largest pieces a pipeline reads the file in, and its smallest copy. */
#define FALLBACK_PIPELINE_PIECE_MIN ((size_t)64 * 1024)
#define FALLBACK_PIPELINE_PIECE_MAX ((size_t)1024 * 1024)
/** Largest piece a pipeline chooses by itself (pipeline_piece_kb = 0; decision 43). */
#define FALLBACK_PIPELINE_PIECE_AUTO_MAX ((size_t)128 * 1024)
#define FALLBACK_PIPELINE_BLOCK_MIN ((size_t)256 * 1024)

/** The core's settings one request follows, read as it starts (fallback_settings.c). */
struct fallback_limits {
    bool parallel;          /**< execution.parallel_io: requests may be split at all */
    unsigned max_pieces;    /**< execution.max_request_parallelism */
    size_t split_threshold; /**< smallest piece, bytes */
    int direct_io;          /**< enum fallback_direct_io, "always" under force_odirect_mode */
    unsigned cpu_lanes;     /**< most lanes of work the CPUs do (the page cache's copies): one
                                 more than the CPUs the process may use; UINT_MAX when unknown */
};

/** Bounce buffers of HFP_STREAM_BOUNCE_SIZE for staged reads from the page cache: how many, their
 * alignment. */
#define FALLBACK_BOUNCE_SLOTS 64
#define FALLBACK_BOUNCE_ALIGN ((size_t)4096)
/** Smallest staged read whose page-cache bytes are streamed (fallback.streaming_stores). */
#define FALLBACK_STREAM_MIN ((size_t)64 * 1024)

/** The backend's state, one per init. */
struct fallback {
    const struct hf_host_api *host;            /**< what the core handed over */
    struct fallback_settings set;              /**< settings */
    unsigned pool_count;                       /**< GPUs + 1; pool 0 is for memory no GPU owns */
    _Atomic(struct hfp_staging_pool *) *pools; /**< by device + 1, each created on first use */
    pthread_mutex_t pools_lock;                /**< guards creation of pools */
    _Atomic uint64_t bounce_taken;             /**< bounce buffers in use, one bit each */
    char *bounce[FALLBACK_BOUNCE_SLOTS];       /**< made on first use (fallback_bounce.c) */
    bool can_map;            /**< mapped_reads, and the runtime can lock read-only pages */
    atomic_bool map_refused; /**< the runtime refused the page cache's pages: never again */
    atomic_bool map_worked;  /**< the runtime locked them once: a refusal is not for ever */
};

struct fallback_io;

/**
 * How one request reads a window of file bytes [pos, pos + len) to @p dst: the bytes read (short
 * only at end of file or on an error after some), or -errno when an error came before any.
 */
typedef ssize_t (*fallback_window_read_fn)(struct fallback_io *io, char *dst, size_t len,
                                           int64_t pos);

/**
 * How one request writes @p len bytes from @p src at @p pos: the bytes written (short only on an
 * error after some), or -errno when an error came before any.
 */
typedef ssize_t (*fallback_window_write_fn)(struct fallback_io *io, const char *src, size_t len,
                                            int64_t pos);

/** One request as its pieces see it (fallback_split.c builds it). */
struct fallback_io {
    struct fallback *fb;                   /**< the backend */
    const struct hf_file_info *file;       /**< the file */
    fallback_window_read_fn window_read;   /**< file I/O of every read window */
    fallback_window_write_fn window_write; /**< file I/O of every write window */
    int op;                                /**< enum hf_io_op */
    bool staged;                   /**< the memory goes through staging slots and GPU copies */
    int device;                    /**< GPU owning the memory, -1 for none */
    struct hfp_staging_pool *pool; /**< the device's staging pool when staged */
    char *mem;                     /**< first byte of the request in memory */
    int64_t offset;                /**< file offset of that byte */
    size_t size;                   /**< bytes in the request */
    int fd;                        /**< the buffered descriptor */
    int direct_fd;                 /**< O_DIRECT descriptor for reads, -1 when not used */
    size_t dio_offset_align;       /**< O_DIRECT file offset and length granule */
    size_t dio_mem_align;          /**< O_DIRECT memory address granule */
    _Atomic uint64_t direct_end;   /**< O_DIRECT reads stay below this file offset */
    bool probe_cache;              /**< ask the page cache (RWF_NOWAIT) before going direct */
    bool streamed;                 /**< buffered reads reach memory through a bounce buffer and
                                        non-temporal stores (fallback_bounce.c) */
    int64_t cached_bytes;          /**< the page cache's bytes of the range as cachestat counted
                                        them (-1: it cannot say), FALLBACK_CACHED_UNASKED before */
    bool from_storage;             /**< a read the page cache mostly lacks: its windows are
                                        probed only where cachestat counts cached bytes, and if
                                        staged, lanes read it in storage windows
                                        (fallback_staged.c) */
    bool direct_write;             /**< whole O_DIRECT granules are written through direct_fd:
                                        the program opened the file with O_DIRECT */
    atomic_bool direct_refused;    /**< O_DIRECT answered EINVAL once: buffered from then on */
    atomic_uint first_short_piece; /**< lowest straight piece that ended short; later ones stop */
};

/** fallback_io.cached_bytes before anybody asked the kernel. */
#define FALLBACK_CACHED_UNASKED INT64_MIN

/** fallback_io.direct_end before the file's size was looked up (straight reads look it up late). */
#define FALLBACK_DIRECT_END_UNKNOWN (UINT64_MAX - 1)

/** Log through the core, tagged with the backend's name. */
#define fallback_log(fb, level, ...) (fb)->host->log((fb)->host, (level), __VA_ARGS__)

/** Keys the fallback declares for its config group (fallback_settings.c). */
#define FALLBACK_SETTING_COUNT 15

/** The declaration of every key of the backend's config group, hung on its ops table. */
extern const struct hf_setting_decl fallback_setting_decls[FALLBACK_SETTING_COUNT];

/** Read the settings from the backend's config group, logging each bad value and its default. */
void fallback_settings_read(const struct hf_host_api *host, struct fallback_settings *set_p);

/** The limits a request starting now follows, from the core's limits (hfp_core_limits). */
void fallback_limits_read(const struct fallback *fb, struct fallback_limits *lim_p);

/**
 * Staging slots one GPU's pool may hold now (an hfp_staging_bound_fn; @p backend is the struct
 * fallback): fallback.staging_slots_per_device, lowered to what the core's
 * max_device_cache_size_kb and max_device_pinned_mem_size_kb limits allow at two chunks per slot.
 */
unsigned fallback_slot_bound(void *backend);

/**
 * Take a free bounce buffer of HFP_STREAM_BOUNCE_SIZE bytes, its slot in *slot_p; NULL when all are
 * in use or one cannot be made (the caller then reads straight to its memory).
 */
char *fallback_bounce_take(struct fallback *fb, unsigned *slot_p);

/** Give back the bounce buffer taken as @p slot. */
void fallback_bounce_give(struct fallback *fb, unsigned slot);

/** Free every bounce buffer; no read may be in flight. */
void fallback_bounce_free(struct fallback *fb);

/** Text of an errno value, never NULL. */
const char *fallback_errno_text(int err);

/**
 * A fallback_window_read_fn for files with descriptors: from the page cache when it holds the
 * bytes, else through O_DIRECT for the aligned part and buffered reads for the rest (the rule in
 * fallback_posix.c). Goes on after short reads, EINTR and a bounded number of EAGAIN.
 */
ssize_t fallback_posix_read(struct fallback_io *io, char *dst, size_t len, int64_t pos);

/**
 * A fallback_window_write_fn for files with descriptors: writes through the buffered descriptor,
 * or, for a file the program opened with O_DIRECT (io->direct_write), whole granules at aligned
 * addresses through the O_DIRECT descriptor and the unaligned head and tail buffered. Goes on
 * after short writes, EINTR and a bounded number of EAGAIN.
 */
ssize_t fallback_posix_write(struct fallback_io *io, const char *src, size_t len, int64_t pos);

/**
 * A fallback_window_read_fn for user-space filesystem files: calls the filesystem's read callback
 * (hf_file_info.fs_read) with host memory, going on after short counts until it returns 0.
 */
ssize_t fallback_fs_read(struct fallback_io *io, char *dst, size_t len, int64_t pos);

/**
 * A fallback_window_write_fn for user-space filesystem files: calls the filesystem's write
 * callback (hf_file_info.fs_write), going on after short counts; a callback that makes no progress
 * is an I/O error.
 */
ssize_t fallback_fs_write(struct fallback_io *io, const char *src, size_t len, int64_t pos);

/**
 * Move request bytes [begin, end) (offsets from the request's start) on the calling thread,
 * straight between the file and memory the CPU can address. Returns the bytes moved in order from
 * @p begin (short at end of file, on a failure after some, or when an earlier piece ended short),
 * or -errno when nothing moved.
 */
ssize_t fallback_piece_run(struct fallback_io *io, unsigned index, size_t begin, size_t end);

/**
 * Move a request through io->device's staging slots in up to @p lanes lanes (the calling thread and
 * the core's workers), each overlapping the file I/O of one chunk window with the GPU copy of
 * another. The caller has made io->device current. Returns the bytes moved in order from the
 * request's start, or -errno (-HF_EGPU with the runtime's code in *gpu_error_p) when none moved.
 */
ssize_t fallback_staged_run(struct fallback_io *io, unsigned lanes, int *gpu_error_p);

/**
 * Read a staged request as one pipeline in up to @p lanes threads (the calling thread and the
 * core's workers): all of them read pieces of the file into a ring of staging buffers taken from
 * io->pool, and one of them queues the GPU copies block by block as blocks become whole. The
 * caller has made io->device current. Returns the bytes moved in order from the request's start,
 * or -errno (-HF_EGPU with the runtime's code in *gpu_error_p) when none moved.
 */
ssize_t fallback_pipeline_read(struct fallback_io *io, unsigned lanes, int *gpu_error_p);

/**
 * Read a staged request from the page cache's own pages when it can (fallback_mapped.c): the
 * runtime locks read-only pages and has not refused them, the request is a read of at least
 * mapped_min bytes into staged memory, lies inside the file as it is now, and the page cache holds
 * it. Maps the range read-only, and in up to @p lanes lanes locks blocks of it for the GPU and
 * copies them to io->mem. The caller has made io->device current. Returns the bytes moved in order
 * from the request's start: 0 when it did not apply, short when the runtime would not lock a
 * block (the caller reads the rest another way). *gpu_failed_p says whether a GPU failure stopped
 * it, which ends the request: the bytes before it, or -HF_EGPU with the runtime's code in
 * *gpu_error_p when none moved.
 */
ssize_t fallback_mapped_read(struct fallback_io *io, unsigned lanes, int *gpu_error_p,
                             bool *gpu_failed_p);

/** Most requests fallback_staged_read_many serves in one lane before starting another. */
#define FALLBACK_MANY_MAX 32

/**
 * Read @p n staged requests of one device and staging pool (ios[i], built as for
 * fallback_staged_run) in one lane on the calling thread, the file read of each chunk window
 * overlapping the GPU copy of the one before, across requests. results[i] is what
 * fallback_staged_run would return for ios[i], with the runtime's code in gpu_errors[i] for
 * -HF_EGPU. A failure in one request leaves the others whole, but a runtime failure ends the
 * lane: the requests it had not reached get -HF_EGPU.
 */
void fallback_staged_read_many(struct fallback_io *ios, unsigned n, ssize_t *results,
                               int *gpu_errors);

/**
 * Whether @p buf goes through staging slots and GPU copies: memory the CPU cannot address, and
 * device memory it can when bounce_host_accessible is set.
 */
bool fallback_memory_is_staged(const struct fallback *fb, const struct hf_buf_info *buf);

/**
 * Make the table of staging pools, one slot per GPU the runtime reports now plus one for memory
 * no GPU owns, each pool created on first use. Returns 0 or -ENOMEM.
 */
int fallback_pools_setup(struct fallback *fb);

/** Destroy every pool made and the table; no request may be in flight. */
void fallback_pools_teardown(struct fallback *fb);

/**
 * The staging pool of GPU @p device (-1: memory no GPU owns), created on first use. Returns 0,
 * -EINVAL for a device the runtime did not report at init, or -ENOMEM.
 */
int fallback_pool_get(struct fallback *fb, int device, struct hfp_staging_pool **pool_p);

/**
 * Serve a checked, non-empty request: whole on the calling thread when small, else split into
 * pieces run on the core's workers. Returns the bytes moved in order from the start, or -errno.
 */
ssize_t fallback_serve(struct fallback *fb, const struct hf_io_request *req);

/**
 * Serve @p n checked, non-empty requests (a batch's entries): small staged reads of one device
 * share one lane on the calling thread (fallback_staged_read_many), every other request is
 * served as fallback_serve serves it. results[i] is the result of reqs[i].
 */
void fallback_serve_many(struct fallback *fb, const struct hf_io_request *const *reqs, unsigned n,
                         ssize_t *results);

#endif
