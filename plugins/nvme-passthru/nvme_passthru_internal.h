/*
 * The nvme-passthru backend's building blocks, shared by its source files and its unit tests: the
 * namespace facts sysfs gives, the command encoding, the extent rules, the per-file mapping cache
 * and the submission queues. Nothing here is exported from the plugin; the unit tests link the
 * same sources as a static archive. nvme_backend.h has the backend's own state.
 */
#ifndef HF_PLUGIN_NVME_PASSTHRU_INTERNAL_H
#define HF_PLUGIN_NVME_PASSTHRU_INTERNAL_H

#include <linux/nvme_ioctl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sysfs resolution (nvme_sysfs.c) ---- */

/** Where a file's block device sits on an NVMe namespace, as sysfs tells it. */
struct nvme_target {
    char disk[32];             /**< namespace block device name, "nvme0n1" */
    char generic_name[32];     /**< its generic char device name, "ng0n1" */
    unsigned generic_major;    /**< device number of the generic char device (sysfs "dev") */
    unsigned generic_minor;    /**< minor of the same */
    uint32_t nsid;             /**< namespace id (sysfs "nsid") */
    uint64_t part_start_bytes; /**< partition start in bytes, 0 for the whole namespace */
    uint32_t lba_size;         /**< logical block size in bytes */
    uint64_t max_transfer;     /**< largest data length of one command, bytes: within
                                    max_hw_sectors_kb and max_segments pages */
};

/**
 * Resolve block device @p major:@p minor under the sysfs tree at @p sysfs_root ("/sys" outside
 * tests) to an NVMe namespace and its generic char device. Returns 0, or -EOPNOTSUPP with a static
 * reason in *reason_p when the device is not a partition or namespace of an NVMe controller
 * (btrfs and other anonymous devices, device-mapper, md, loop, SCSI...), or when sysfs lacks a
 * fact the backend needs.
 */
int nvme_sysfs_resolve(const char *sysfs_root, unsigned major, unsigned minor,
                       struct nvme_target *target_p, const char **reason_p);

/* ---- command encoding (nvme_cmd.c) ---- */

/** NVM command set opcodes the backend issues. */
enum nvme_opcode {
    NVME_OP_FLUSH = 0x00, /**< Flush */
    NVME_OP_WRITE = 0x01, /**< Write */
    NVME_OP_READ = 0x02,  /**< Read */
};

/** One I/O command as the backend thinks of it, before encoding. */
struct nvme_io {
    uint8_t opcode;     /**< enum nvme_opcode */
    uint32_t nsid;      /**< namespace id */
    uint64_t slba;      /**< first logical block */
    uint32_t blocks;    /**< logical blocks (1-based count; 0 only for Flush) */
    unsigned lba_shift; /**< log2 of the logical block size */
    void *buf;          /**< data buffer of exactly blocks << lba_shift bytes */
};

/** Most logical blocks one command can carry: NLB is a 16-bit 0-based field. */
#define NVME_MAX_BLOCKS_PER_CMD 65536u

/**
 * Encode @p io as the kernel's passthrough command (the ioctl form; the io_uring form is its first
 * 72 bytes). The data length is always exactly blocks << lba_shift: the kernel does not check it
 * against NLB, and a shorter buffer lets the device DMA past it. Returns 0, or -EINVAL for a
 * block count outside [1, NVME_MAX_BLOCKS_PER_CMD] (0 for Flush), a length over 4 GiB, a shift
 * outside [9, 16] or a NULL buffer with data.
 */
int nvme_cmd_encode(const struct nvme_io *io, struct nvme_passthru_cmd64 *cmd_p);

/**
 * Turn a passthrough result (ioctl return or cqe->res) into -errno: 0 stays 0, negative values
 * are kernel errnos, positive ones NVMe status fields (-EREMOTEIO).
 */
int nvme_status_to_errno(int result);

/**
 * Describe an NVMe status field (positive passthrough result) in @p text: status code type,
 * status code, and the do-not-retry bit. Returns @p text.
 */
const char *nvme_status_text(int status, char *text, size_t size);

/* ---- extents (nvme_extent.c) ---- */

/** What a FIEMAP extent means for one direction of I/O. */
enum nvme_extent_use {
    NVME_EXTENT_DEVICE = 0, /**< its bytes are at fe_physical on the device */
    NVME_EXTENT_ZERO = 1,   /**< reads as zeros without touching the device */
    NVME_EXTENT_REFUSE = 2, /**< the request must go to another backend */
};

/**
 * How an extent with FIEMAP flags @p fe_flags may be used by an @p op (enum hf_io_op) request.
 * Reads: unwritten extents read as zeros; unknown location, delayed allocation, encoded or
 * encrypted data, inline or tail-packed or unaligned data, and flags this code does not know are
 * refused. Writes also refuse unwritten extents (the filesystem would keep reading zeros) and
 * shared ones (the write would change the other files too). *reason_p gets a static string.
 */
enum nvme_extent_use nvme_extent_classify(uint32_t fe_flags, int op, const char **reason_p);

/** One extent of a file's mapping, as FIEMAP gave it. */
struct nvme_extent {
    uint64_t logical;  /**< file offset, bytes */
    uint64_t physical; /**< offset on the filesystem's block device, bytes */
    uint64_t length;   /**< bytes */
    uint32_t flags;    /**< FIEMAP_EXTENT_* */
};

/** A file's mapping over [0, mapped_end): extents sorted by logical offset, holes between. */
struct nvme_map {
    unsigned refs;               /**< holders (atomic builtins); the last one frees it */
    struct nvme_extent *extents; /**< sorted, non-overlapping */
    size_t count;                /**< extents */
    uint64_t mapped_end;         /**< file offsets below this are described; holes otherwise */
};

/** A stretch of a request: on the device at dev_offset, or zeros. */
struct nvme_segment {
    uint64_t file_offset; /**< first byte */
    uint64_t length;      /**< bytes */
    uint64_t dev_offset;  /**< namespace byte offset of file_offset (device segments) */
    bool zero;            /**< reads as zeros */
};

/**
 * The segment of @p map that starts at file offset @p pos and ends at the next extent boundary or
 * at @p end, for an @p op request on a namespace whose partition starts at @p dev_start bytes with
 * @p lba_size logical blocks. Device extents must start, end and sit at LBA boundaries; a segment
 * may run past the mapping's end inside the last extent (whole blocks are read). Writes refuse
 * holes. Returns 0, or -ENODEV with a static reason when another backend must serve the range, or
 * -ERANGE when @p pos is at or past @p end or the mapping's end (end of file).
 */
int nvme_segment_at(const struct nvme_map *map, uint64_t pos, uint64_t end, int op,
                    uint64_t dev_start, uint32_t lba_size, struct nvme_segment *seg_p,
                    const char **reason_p);

/**
 * Why a file with inode flags @p iflags (FS_IOC_GETFLAGS) and extended flags @p xflags
 * (FS_IOC_FSGETXATTR) cannot be served, or NULL when it can: data journalling, encryption,
 * verity, inline data, DAX, and XFS realtime files all keep their bytes somewhere FIEMAP's
 * physical offsets do not describe, or change them behind the filesystem's back.
 */
const char *nvme_inode_refusal(uint32_t iflags, uint32_t xflags);

/* ---- mapping cache (nvme_map.c) ---- */

/** What identifies one version of a file's mapping. */
struct nvme_file_stamp {
    uint64_t ino;     /**< inode */
    uint64_t size;    /**< bytes */
    uint64_t blocks;  /**< 512-byte blocks allocated */
    int64_t mtime_ns; /**< modification time */
    int64_t ctime_ns; /**< change time */
};

/** A file's mapping cache. */
struct nvme_map_cache {
    pthread_mutex_t lock;         /**< guards the members below */
    struct nvme_map *map;         /**< the cached mapping, or NULL */
    struct nvme_file_stamp stamp; /**< the file as it was when map was taken */
};

/** Read @p fd's stamp with statx. Returns 0 or -errno. */
int nvme_file_stamp_take(int fd, struct nvme_file_stamp *stamp_p);

/** Whether two stamps describe the same version of a file. */
bool nvme_file_stamp_equal(const struct nvme_file_stamp *a, const struct nvme_file_stamp *b);

/**
 * FIEMAP the whole of @p fd with FIEMAP_FLAG_SYNC, which writes back and waits for the file's
 * dirty pages first, so data in the page cache is on the device before its mapping is read.
 * @p ioctl_fn is the system call table's ioctl. Returns 0 with a map holding one reference, or
 * -errno (-EOPNOTSUPP when the filesystem has no FIEMAP).
 */
int nvme_map_fetch(int fd, int (*ioctl_fn)(int, unsigned long, void *), uint64_t size,
                   struct nvme_map **map_p);

/** Drop a reference to @p map (NULL is fine). */
void nvme_map_put(struct nvme_map *map);

/**
 * Whether @p stamp's file changed so shortly before @p now_ns (CLOCK_REALTIME) that a further
 * change could leave the stamp as it is: file timestamps come from a coarse clock (a jiffy, up to
 * 10 ms). A clock behind the file's times also counts as recent.
 */
bool nvme_stamp_is_recent(const struct nvme_file_stamp *stamp, int64_t now_ns);

/** Initialise an empty cache. Returns 0 or -ENOMEM. */
int nvme_map_cache_init(struct nvme_map_cache *cache);

/** Free the cache and its mapping. */
void nvme_map_cache_destroy(struct nvme_map_cache *cache);

/**
 * The mapping of @p fd for a request over [offset, offset + size): first the range's dirty pages
 * are written back and waited for, then the cached mapping is used when the file's stamp is the
 * one it was taken at, else a fresh one is fetched (and cached unless the file changed within the
 * timestamp granularity, when a later change could keep the same stamp). @p fresh forces a fetch.
 * Returns 0 with a referenced map and the stamp it belongs to, or -errno.
 */
int nvme_map_get(struct nvme_map_cache *cache, int fd, int (*ioctl_fn)(int, unsigned long, void *),
                 uint64_t offset, uint64_t size, bool fresh, struct nvme_map **map_p,
                 struct nvme_file_stamp *stamp_p);

/** Forget the cached mapping (the file changed under a request). */
void nvme_map_cache_drop(struct nvme_map_cache *cache);

/* ---- submission (nvme_queue.c) ---- */

/** How commands reach the kernel. */
enum nvme_mechanism {
    NVME_MECH_AUTO = 0,  /**< io_uring when the kernel offers passthrough on it, else ioctl */
    NVME_MECH_URING = 1, /**< io_uring IORING_OP_URING_CMD (SQE128/CQE32) */
    NVME_MECH_IOCTL = 2, /**< NVME_IOCTL_IO64_CMD, one command at a time */
};

/**
 * A submission queue: an io_uring ring with a thread of its own that makes, enters and closes it,
 * or the synchronous ioctl on the calling thread.
 */
struct nvme_queue;

/**
 * Create a queue of @p depth commands using @p mechanism (URING or IOCTL, not AUTO); ioctl goes
 * through @p ioctl_fn. A ring is made on the queue's own thread (its signals blocked), and only
 * kept when the kernel takes URING_CMD on it. Returns 0, or -errno: io_uring_queue_init's,
 * -EOPNOTSUPP for a kernel without URING_CMD, or pthread_create's.
 */
int nvme_queue_create(int mechanism, unsigned depth, int (*ioctl_fn)(int, unsigned long, void *),
                      struct nvme_queue **queue_p);

/** Free a queue with nothing in flight; a ring is closed on its own thread, which ends. */
void nvme_queue_destroy(struct nvme_queue *queue);

/** False once a ring failed in a way that leaves its state unknown: destroy it, do not reuse it. */
bool nvme_queue_usable(const struct nvme_queue *queue);

/** The thread that makes and enters the queue's ring (gettid), 0 for the ioctl. */
pid_t nvme_queue_thread_id(const struct nvme_queue *queue);

/** Rings made so far in this process, probes included (tests check that none was made). */
unsigned long nvme_rings_made(void);

/**
 * Queue @p io on the generic device @p fd; with ioctl it runs now, with io_uring it goes out with
 * the next submission the ring's thread makes (when the ring is full, or at drain). When the ring
 * is full, waits for a completion first. Returns 0, or -errno for the first failure seen (a
 * command's own, or one reaped while making room); *status_p then holds the NVMe status when there
 * was one, else 0.
 */
int nvme_queue_submit(struct nvme_queue *queue, int fd, const struct nvme_io *io, int *status_p);

/**
 * Submit and wait for every queued command. Returns 0, or -errno for the first failure, with the
 * NVMe status in *status_p as for nvme_queue_submit.
 */
int nvme_queue_drain(struct nvme_queue *queue, int *status_p);

#ifdef __cplusplus
}
#endif

#endif
