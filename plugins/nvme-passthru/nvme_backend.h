/*
 * The nvme-passthru backend's state: settings, the namespaces it opened, idle submission queues,
 * staging pools, and one registered file; and what each of its source files offers the others.
 */
#ifndef HF_PLUGIN_NVME_BACKEND_H
#define HF_PLUGIN_NVME_BACKEND_H

#include <stdatomic.h>

#include "common/staging_pool.h"
#include "nvme_passthru_internal.h"

/**
 * The plugin ABI minor nvme-passthru needs: minor 7's transfer op, and with it everything earlier
 * minors added (declared settings, stream_prepare among them). Its manifest says the same.
 */
#define NVME_ABI_MINOR 7

/** Keys nvme-passthru declares for its config group (nvme_settings.c). */
#define NVME_SETTING_COUNT 5

/** The declaration of every key of the backend's config group, hung on its ops table. */
extern const struct hf_setting_decl nvme_setting_decls[NVME_SETTING_COUNT];

/** The backend's settings, read once at init. */
struct nvme_settings {
    bool writes;               /**< serve writes (off by default) */
    int mechanism;             /**< enum nvme_mechanism as configured */
    unsigned queue_depth;      /**< commands in flight per request */
    size_t chunk_size;         /**< bytes per staging buffer */
    unsigned slots_per_device; /**< staging slots per GPU */
};

/** One namespace the backend has opened, shared by the files on it. */
struct nvme_namespace {
    struct nvme_namespace *next; /**< the backend's list */
    unsigned refs;               /**< files registered on it */
    struct nvme_target target;   /**< sysfs facts of the first file (its partition start aside) */
    int fd;                      /**< the generic char device */
    bool writable;               /**< fd is open for writing */
    unsigned lba_shift;          /**< log2 of the logical block size */
};

/** The backend's state. */
struct nvme_passthru {
    const struct hf_host_api *host;            /**< what the core handed over */
    struct nvme_settings set;                  /**< settings */
    int mechanism;                             /**< URING or IOCTL, as probed */
    const char *sysfs_root;                    /**< "/sys"; fixture trees in tests */
    const char *dev_root;                      /**< "/dev"; fixture trees in tests */
    bool uring_probed;                         /**< whether a ring was made to probe io_uring */
    pid_t uring_probe_tid;                     /**< the thread that made it, when that worked */
    pthread_mutex_t lock;                      /**< guards namespaces and queues */
    struct nvme_namespace *namespaces;         /**< opened generic devices */
    struct nvme_queue **idle_queues;           /**< queues not in use */
    size_t idle_count;                         /**< entries of idle_queues in use */
    size_t idle_capacity;                      /**< entries of idle_queues allocated */
    unsigned pool_count;                       /**< GPUs + 1 */
    _Atomic(struct hfp_staging_pool *) *pools; /**< by device + 1, created on first use */
};

/** A registered file. */
struct nvme_file {
    struct nvme_namespace *ns;   /**< where its blocks are */
    uint64_t dev_start;          /**< byte offset of the filesystem on the namespace */
    uint32_t lba_size;           /**< logical block size */
    uint64_t max_transfer;       /**< largest command, bytes (a multiple of lba_size) */
    int fd;                      /**< the core's buffered descriptor */
    struct nvme_map_cache cache; /**< its mapping */
};

/** Log through the core, tagged with the backend's name. */
#define nvme_log(np, level, ...) (np)->host->log((np)->host, (level), __VA_ARGS__)

/** Read the settings from the backend's config group, logging bad values and their defaults. */
void nvme_settings_read(const struct hf_host_api *host, struct nvme_settings *set_p);

/** The config spelling of an enum nvme_mechanism value. */
const char *nvme_mechanism_name(int mechanism);

/**
 * Check @p file for the backend and, when it qualifies, open (or share) its namespace and fill
 * @p nf. Returns 0, -EOPNOTSUPP after logging why the file is declined, or -ENOMEM.
 */
int nvme_file_open(struct nvme_passthru *np, const struct hf_file_info *file, struct nvme_file *nf);

/** Release what nvme_file_open took. */
void nvme_file_close(struct nvme_passthru *np, struct nvme_file *nf);

/** Close every namespace (at fini). */
void nvme_namespaces_close(struct nvme_passthru *np);

/**
 * Settle np->mechanism from the configured one: io_uring when it is wanted or "auto", a generic
 * char device exists under np->dev_root, and a queue's thread can make a ring that takes URING_CMD
 * (that queue joins the idle list); else the ioctl. Logs why io_uring is not used when it matters.
 */
void nvme_mechanism_pick(struct nvme_passthru *np);

/** Take a submission queue from the backend's idle list, creating one when none is idle. */
int nvme_queue_take(struct nvme_passthru *np, struct nvme_queue **queue_p);

/** Give a queue with nothing in flight back to the idle list (a broken one is destroyed). */
void nvme_queue_give(struct nvme_passthru *np, struct nvme_queue *queue);

/**
 * Make every staging slot GPU @p device's stream-ordered requests may use, and keep them (see
 * hf_backend_ops.stream_prepare). Returns 0 or -errno (logged).
 */
int nvme_io_stream_prepare(struct nvme_passthru *np, int device);

/**
 * Serve a checked, non-empty request on @p nf through staging buffers: reads as NVMe Read
 * commands (zeros for holes and unwritten extents), writes as NVMe Write commands over written
 * extents. Returns the bytes moved (short only at end of file), -ENODEV when the request must go
 * to another backend (nothing moved), or another -errno.
 */
ssize_t nvme_io_transfer(struct nvme_passthru *np, struct nvme_file *nf,
                         const struct hf_io_request *req);

#endif
