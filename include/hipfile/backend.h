/*
 * hipfile backend plugin ABI, version 1.
 *
 * A backend is a shared object in the plugin directory, described by an XML manifest, that exports
 * exactly one symbol: hf_backend_entry_v1. The ABI major is part of that name; the minor is
 * negotiated at load (each side uses the lower of the two). Every struct here is append-only: a
 * new member goes at the end and bumps HF_BACKEND_ABI_MINOR, and readers check struct_size (or the
 * negotiated minor) before touching a member newer than the one they were built with.
 *
 * Backends never link libhipfile. Everything they need from the core (logging, their config group,
 * the GPU runtime, the system calls they make) comes through struct hf_host_api.
 *
 * Return values: 0 or a byte count on success, -errno on failure. Backends never return public
 * hipFileOpError_t codes; the core maps errno values in one table. -ENODEV and -EREMOTEIO mean
 * "another backend may succeed" (the manifest can name more retryable errnos). -HF_EGPU reports a
 * GPU runtime failure; the runtime's own error code is passed back through the request's
 * gpu_error_p.
 */
#ifndef HIPFILE_BACKEND_H
#define HIPFILE_BACKEND_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** First member of every struct hf_backend_ops: "HFBE" in ASCII. */
#define HF_BACKEND_MAGIC 0x48464245u
/** ABI major implemented by this header; also the suffix of the entry symbol. */
#define HF_BACKEND_ABI_MAJOR 1u
/** ABI minor implemented by this header. */
#define HF_BACKEND_ABI_MINOR 11u
/** Name of the one symbol a plugin exports. */
#define HF_BACKEND_ENTRY_SYMBOL "hf_backend_entry_v1"

/** Marks the entry point's definition in a plugin (the build hides every other symbol). */
#define HF_BACKEND_EXPORT __attribute__((visibility("default")))

/** Negative of this value: a GPU runtime call failed (see hf_io_request.gpu_error_p). */
#define HF_EGPU 4096

/** Log levels, most severe first. */
enum hf_log_level {
    HF_LOG_ERROR = 0, /**< an operation failed */
    HF_LOG_WARN = 1,  /**< something is wrong but work goes on */
    HF_LOG_INFO = 2,  /**< one-off facts: what was loaded, chosen, declined */
    HF_LOG_DEBUG = 3, /**< per-request detail (selection, fallbacks) */
};

/** Direction of a request. */
enum hf_io_op {
    HF_IO_READ = 0,  /**< file to memory */
    HF_IO_WRITE = 1, /**< memory to file */
};

/** Kind of a registered file. */
enum hf_file_kind {
    HF_FILE_REGULAR = 1, /**< regular file */
    HF_FILE_BLOCK = 2,   /**< block device */
    /**
     * Since ABI minor 6: a file of a user-space filesystem, reached only through the caller's
     * callbacks (hf_file_info.fs_read and fs_write); fd and direct_fd are -1. Manifest name
     * "userspace-fs".
     */
    HF_FILE_USERSPACE_FS = 3,
    /**
     * Since ABI minor 6: an object named by a URL (hf_file_info.url), opened with
     * hipFileRemoteOpen; fd and direct_fd are -1. Manifest name "remote".
     */
    HF_FILE_REMOTE = 4,
};

/** Kind of memory a buffer lives in, normalised across runtime versions. */
enum hf_mem_type {
    HF_MEM_UNKNOWN = 0,     /**< not known to the GPU runtime (pageable host memory) */
    HF_MEM_DEVICE = 1,      /**< device memory */
    HF_MEM_HOST_PINNED = 2, /**< page-locked host memory known to the runtime */
    HF_MEM_MANAGED = 3,     /**< managed/unified memory */
    HF_MEM_ARRAY = 4,       /**< array memory (never usable for I/O) */
};

/**
 * Capability bits in hf_backend_ops.caps: the directions a backend serves and which kind of path
 * it is (direct, or the compatibility path). Which memory and which files it accepts is stated
 * once, in the manifest's <requirements>; the selector never offers a backend a request outside
 * them, so score() need not check them again.
 */
enum hf_backend_caps {
    HF_CAP_READ = 1u << 0,  /**< serves reads */
    HF_CAP_WRITE = 1u << 1, /**< serves writes */
    /**
     * Reserved: nothing reads this bit (it was HF_CAP_DEVICE_MEM, ignored since ABI minor 5, when
     * the manifest's <memory> list took over saying which memory a backend takes).
     */
    HF_CAP_RESERVED_2 = 1u << 2,
    /** Reserved: nothing reads this bit (it was HF_CAP_HOST_MEM, ignored since ABI minor 5). */
    HF_CAP_RESERVED_3 = 1u << 3,
    /** The first name of HF_CAP_RESERVED_2, kept so that backends that set it still build. */
    HF_CAP_DEVICE_MEM = HF_CAP_RESERVED_2,
    /** The first name of HF_CAP_RESERVED_3, kept so that backends that set it still build. */
    HF_CAP_HOST_MEM = HF_CAP_RESERVED_3,
    HF_CAP_DIRECT = 1u << 4, /**< a direct path: no host bounce buffer */
    /** The compatibility (POSIX) path, which properties.compat_mode allows, forces or forbids. */
    HF_CAP_COMPAT = 1u << 5,
};

/** Facts about a registered file, gathered once at registration. */
struct hf_file_info {
    uint32_t struct_size;   /**< sizeof(struct hf_file_info) as built by the core */
    int fd;                 /**< buffered descriptor (the caller's, or a twin without O_DIRECT) */
    int direct_fd;          /**< O_DIRECT descriptor, or -1 when the file has none */
    int kind;               /**< enum hf_file_kind */
    uint32_t mode;          /**< st_mode */
    int status_flags;       /**< fcntl(F_GETFL) of the caller's fd less O_APPEND: fd and direct_fd
                               never have it (the core reopens such files without it) */
    uint32_t dio_mem_align; /**< O_DIRECT memory alignment in bytes, 0 without direct_fd */
    uint32_t dio_offset_align; /**< O_DIRECT offset/size alignment in bytes, 0 without direct_fd */
    uint64_t fs_magic;         /**< statfs f_type */
    char fs_name[16];          /**< filesystem name ("ext4", "xfs", "tmpfs", ...) or "unknown" */
    char ext4_data_mode[16];   /**< ext4 data= mode ("ordered", "journal", "writeback"), else "" */
    uint64_t dev;              /**< st_dev */
    uint64_t ino;              /**< st_ino */
    uint64_t size_at_register; /**< st_size at registration (block devices: device size) */
    /** Since ABI minor 6: the caller's handle passed to fs_read and fs_write (user-space FS). */
    void *fs_handle;
    /**
     * Since ABI minor 6, HF_FILE_USERSPACE_FS only: the filesystem's read callback. It fills host
     * memory at @p buf and returns the bytes read (short only at end of file) or a negative
     * value. The last argument is always NULL: no RDMA descriptor is offered.
     */
    ssize_t (*fs_read)(void *fs_handle, char *buf, size_t size, off_t offset, void *rdma_info);
    /** Since ABI minor 6, HF_FILE_USERSPACE_FS only: the write callback, or NULL (read-only). */
    ssize_t (*fs_write)(void *fs_handle, const char *buf, size_t size, off_t offset,
                        void *rdma_info);
    /** Since ABI minor 6, HF_FILE_REMOTE only: the URL given to hipFileRemoteOpen. */
    const char *url;
    /**
     * Since ABI minor 6, HF_FILE_REMOTE only: the options string given to hipFileRemoteOpen
     * ("key=value" pairs separated by ';'), or NULL.
     */
    const char *remote_options;
    /** Since ABI minor 6, HF_FILE_REMOTE only: opened for writing (hipFileRemoteOpen mode). */
    bool remote_writable;
};

/** Facts about the memory side of a request. */
struct hf_buf_info {
    uint32_t struct_size; /**< sizeof(struct hf_buf_info) as built by the core */
    int mem_type;         /**< enum hf_mem_type */
    void *base;           /**< first byte of the buffer extent */
    size_t length;        /**< bytes in the extent */
    int device;           /**< GPU index owning the memory, -1 for host memory */
    bool host_accessible; /**< the CPU may load/store this memory directly */
    bool registered;      /**< registered with hipFileBufRegister */
    int flags;            /**< hipFileBufRegister flags */
};

/** One request, the same descriptor for score() and for read()/write(). */
struct hf_io_request {
    uint32_t struct_size;            /**< sizeof(struct hf_io_request) as built by the core */
    int op;                          /**< enum hf_io_op */
    const struct hf_file_info *file; /**< the file */
    const struct hf_buf_info *buf;   /**< the memory */
    void *file_ctx;                  /**< this backend's per-file context (file_register) */
    void *buf_ctx;                   /**< this backend's per-buffer context (buf_register) */
    size_t size;                     /**< bytes to move */
    int64_t file_offset;             /**< byte offset in the file */
    int64_t buf_offset;              /**< byte offset from buf->base */
    uint32_t flags;                  /**< reserved, 0 */
    int *gpu_error_p;                /**< where a backend stores the runtime error with -HF_EGPU */
};

/**
 * Device attributes a backend may ask hf_gpu_ops.device_attribute for (since ABI minor 2). The
 * core translates them to the bound runtime's own numbering.
 */
enum hf_gpu_attr {
    /** 1: an integrated GPU (APU): its memory is system memory the CPU addresses directly. */
    HF_GPU_ATTR_INTEGRATED = 1,
    /** 1: the link between GPU and host supports native atomics (a cache-coherent link). */
    HF_GPU_ATTR_HOST_NATIVE_ATOMICS = 2,
    /** 1: the GPU accesses pageable host memory coherently. */
    HF_GPU_ATTR_PAGEABLE_MEMORY_ACCESS = 3,
    /** 1: the GPU accesses pageable host memory through the host's own page tables. */
    HF_GPU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES = 4,
    /**
     * Since ABI minor 3: the NUMA node of the host memory nearest the GPU, -1 when the platform
     * does not say (no NUMA, or a runtime and bus that cannot tell).
     */
    HF_GPU_ATTR_HOST_NUMA_NODE = 5,
};

/** Pointer facts as the core's GPU layer normalises them. */
struct hf_gpu_pointer_info {
    int mem_type;         /**< enum hf_mem_type */
    int device;           /**< owning GPU, -1 for host memory */
    void *alloc_base;     /**< start of the allocation containing the pointer */
    size_t alloc_size;    /**< size of that allocation */
    bool host_accessible; /**< the CPU may load/store this memory directly */
};

/**
 * The GPU runtime, as the core bound it. Every function returns the runtime's own error code
 * (0 = success); hf_gpu_ops.error_string names it. Streams are the runtime's opaque stream handles.
 */
struct hf_gpu_ops {
    uint32_t struct_size; /**< sizeof(struct hf_gpu_ops) as built by the core */
    const char *name;     /**< "hip", "cuda", "host", or the library path given in the config */
    int runtime_version;  /**< hipRuntimeGetVersion of the bound library */
    /** Memory type, device and allocation extent of @p ptr. */
    int (*pointer_info)(const void *ptr, struct hf_gpu_pointer_info *info_p);
    /** Number of GPUs. */
    int (*device_count)(int *count_p);
    /** Current device of the calling thread. */
    int (*get_device)(int *device_p);
    /** Make @p device current for the calling thread. */
    int (*set_device)(int device);
    /** Allocate page-locked host memory usable for async copies. */
    int (*host_alloc_pinned)(void **ptr_p, size_t size);
    /** Free memory from host_alloc_pinned. */
    int (*host_free_pinned)(void *ptr);
    /** Copy @p size bytes between any two kinds of memory, synchronously. */
    int (*memcpy_sync)(void *dst, const void *src, size_t size);
    /** Queue a copy on @p stream. */
    int (*memcpy_async)(void *dst, const void *src, size_t size, void *stream);
    /** Create a non-blocking stream on the current device. */
    int (*stream_create)(void **stream_p);
    /** Destroy a stream from stream_create. */
    int (*stream_destroy)(void *stream);
    /** Wait for everything queued on @p stream. */
    int (*stream_synchronize)(void *stream);
    /** Name of a runtime error code (never NULL). */
    const char *(*error_string)(int err);
    /**
     * Since ABI minor 2: attribute @p attr (enum hf_gpu_attr) of GPU @p device in *value_p.
     * Returns the runtime's error, nonzero also when the runtime cannot answer that attribute.
     */
    int (*device_attribute)(int device, int attr, int *value_p);
    /**
     * Since ABI minor 2: hipGetProcAddress of the bound runtime, asked at the runtime's own
     * version. *fn_p gets the function or NULL; nonzero when the runtime lacks @p symbol or has
     * no hipGetProcAddress at all.
     */
    int (*get_proc_address)(const char *symbol, void **fn_p);
    /**
     * Since ABI minor 3: page-lock @p size bytes of ordinary host memory at @p ptr (page aligned)
     * for async copies with every GPU (hipHostRegister, portable). NULL when the runtime lacks it.
     */
    int (*host_register)(void *ptr, size_t size);
    /** Since ABI minor 3: undo host_register before the memory is unmapped. */
    int (*host_unregister)(void *ptr);
    /**
     * Since ABI minor 10: page-lock @p size bytes at @p ptr (page aligned) that the process may
     * only read, such as a read-only mapping of a file whose pages are the page cache's own, so
     * the GPU's copy engine reads them in host-to-device copies on any GPU. Undone with
     * host_unregister. NULL when the runtime cannot; a runtime error when it refuses this memory.
     */
    int (*host_register_read_only)(void *ptr, size_t size);
};

/** System calls a backend makes, replaceable by tests to inject faults. */
struct hf_sys_ops {
    uint32_t struct_size; /**< sizeof(struct hf_sys_ops) */
    ssize_t (*pread)(int fd, void *buf, size_t count, off_t offset);        /**< pread(2) */
    ssize_t (*pwrite)(int fd, const void *buf, size_t count, off_t offset); /**< pwrite(2) */
    int (*fstat)(int fd, struct stat *st);                                  /**< fstat(2) */
    int (*fdatasync)(int fd);                                               /**< fdatasync(2) */
    int (*ioctl)(int fd, unsigned long request, void *arg);                 /**< ioctl(2) */
    /** preadv2(2), since ABI minor 1 (RWF_NOWAIT tells whether a range is in the page cache). */
    ssize_t (*preadv2)(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);
    /**
     * Bytes of [offset, offset + len) of @p fd that the page cache holds, as cachestat(2) counts
     * them (since ABI minor 8); -1 with errno set (ENOSYS before Linux 6.5) where the kernel
     * cannot say.
     */
    int64_t (*cached_bytes)(int fd, uint64_t offset, uint64_t len);
};

/** Type of a setting a backend declares (since ABI minor 5). */
enum hf_setting_decl_type {
    HF_DECL_INT = 1,    /**< integer within [min, max], a multiple of `multiple` when nonzero */
    HF_DECL_BOOL = 2,   /**< true or false */
    HF_DECL_STRING = 3, /**< text; `names`, when not NULL, lists the values accepted */
};

/**
 * One key of a backend's config group, declared by the backend (since ABI minor 5). The core checks
 * the config file's value against it when the plugin loads, warns with file:line about keys in the
 * group that no declaration names, lists every declared key with its value and where that value
 * came from in hipfile-check and the documentation, and answers config_int, config_bool and
 * config_string with the declared default when the key is unset.
 */
struct hf_setting_decl {
    const char *key;            /**< name inside the backend's group, dotted for subgroups */
    int type;                   /**< enum hf_setting_decl_type */
    const char *unit;           /**< "KiB", "ms"... or NULL */
    int64_t default_int;        /**< default of an int or bool (0/1) key */
    const char *default_string; /**< default of a string key, NULL for none */
    int64_t min;                /**< smallest int value accepted */
    int64_t max;                /**< largest int value accepted */
    int64_t multiple;           /**< an int value must be a multiple of this; 0 = any */
    const char *const *names;   /**< accepted values of a string key, NULL-terminated, or NULL */
    const char *env;            /**< environment variable that overrides the key, or NULL */
    bool live;                  /**< may change while the driver is open (read it when used) */
    const char *help;           /**< one line for hipfile-check and the docs */
};

/**
 * Since ABI minor 5: the core settings a backend obeys, as their current values. hf_host_api.
 * core_limits fills it with a few atomic loads, so a backend may read it for every request. The
 * core's settings table documents each key. The core fills the members that the struct_size the
 * caller set holds (those of minor 5 whatever it says), and sets struct_size to the bytes it
 * filled.
 */
struct hf_core_limits {
    uint32_t struct_size;              /**< sizeof(struct hf_core_limits) as built by the core */
    bool parallel_io;                  /**< execution.parallel_io */
    bool force_odirect_mode;           /**< properties.force_odirect_mode */
    uint32_t max_request_parallelism;  /**< execution.max_request_parallelism, 0 = no limit */
    uint64_t min_io_threshold_size_kb; /**< execution.min_io_threshold_size_kb */
    uint64_t per_buffer_cache_size_kb; /**< properties.per_buffer_cache_size_kb */
    uint64_t max_device_cache_size_kb; /**< properties.max_device_cache_size_kb */
    /** properties.max_device_pinned_mem_size_kb, at most an eighth of the memory the process may
     *  use (physical memory or its cgroup's limit) divided among the GPUs */
    uint64_t max_device_pinned_mem_size_kb;
    /** Since ABI minor 11: CPUs the process may use (its affinity mask, bounded by its cgroup's
     *  CPU quota); 0 where the core does not say */
    uint32_t cpu_budget;
};

/**
 * What the core offers a backend. One instance per loaded backend. The core fills every member
 * up to its own ABI minor (host->abi_minor); a backend that needs minor N checks
 * host->abi_minor >= N once, at its entry point, and never tests members one by one.
 */
struct hf_host_api {
    uint32_t struct_size; /**< sizeof(struct hf_host_api) as built by the core */
    uint32_t abi_minor;   /**< the core's ABI minor */
    void *core_private;   /**< the core's per-backend state; backends pass the host pointer back */
    /** Log a line tagged with the backend's name. */
    void (*log)(const struct hf_host_api *host, int level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
    /**
     * Read an integer from the backend's config group; -ENOENT when unset. A key that starts with
     * a core group ("properties.max_device_cache_size_kb", "execution.parallel_io") reads the
     * core's current value of that setting instead; the same holds for config_bool and
     * config_string. Such values may change while the driver is open, so read them when used.
     */
    int (*config_int)(const struct hf_host_api *host, const char *key, int64_t *value_p);
    /** Read a boolean from the backend's config group; -ENOENT when unset. */
    int (*config_bool)(const struct hf_host_api *host, const char *key, bool *value_p);
    /** Read a string from the backend's config group; -ENOENT when unset. Valid until unload. */
    int (*config_string)(const struct hf_host_api *host, const char *key, const char **value_p);
    /** The bound GPU runtime. */
    const struct hf_gpu_ops *gpu;
    /** The system calls to use. */
    const struct hf_sys_ops *sys;
    /**
     * Since ABI minor 1: run task(arg, i) for every i in [0, n) on the core's I/O worker threads
     * and the calling thread, returning when all have finished. Tasks report their own results
     * through @p arg. Returns 0, or -errno when the work could not be started (nothing ran).
     */
    int (*parallel_run)(const struct hf_host_api *host, unsigned n,
                        void (*task)(void *arg, unsigned index), void *arg);
    /** Since ABI minor 1: how many tasks parallel_run may run at once (workers + caller). */
    unsigned (*parallel_width)(const struct hf_host_api *host);
    /** Since ABI minor 5: the current values of the core settings a backend obeys. */
    void (*core_limits)(const struct hf_host_api *host, struct hf_core_limits *limits_p);
};

/** A backend's operations. Members after `caps` may be NULL only where marked optional. */
struct hf_backend_ops {
    uint32_t magic;       /**< HF_BACKEND_MAGIC */
    uint32_t abi_major;   /**< HF_BACKEND_ABI_MAJOR the backend was built with */
    uint32_t abi_minor;   /**< HF_BACKEND_ABI_MINOR the backend was built with */
    uint32_t struct_size; /**< sizeof(struct hf_backend_ops) as built by the backend */
    const char *name;     /**< must equal the manifest's name */
    uint32_t caps;        /**< enum hf_backend_caps */

    /** Set up process-wide state. Mandatory. */
    int (*init)(const struct hf_host_api *host, void **backend_p);
    /** Tear down what init set up. Mandatory. */
    void (*fini)(void *backend);
    /** 0 when usable on this machine, -ENODEV when not. Mandatory. */
    int (*probe)(void *backend);

    /** Optional: accept a file (context in *ctx_p) or decline it with -EOPNOTSUPP. */
    int (*file_register)(void *backend, const struct hf_file_info *file, void **ctx_p);
    /** Optional: release what file_register kept. */
    void (*file_deregister)(void *backend, void *ctx);
    /** Optional: accept a buffer (context in *ctx_p) or decline it with -EOPNOTSUPP. */
    int (*buf_register)(void *backend, const struct hf_buf_info *buf, void **ctx_p);
    /** Optional: release what buf_register kept. */
    void (*buf_deregister)(void *backend, void *ctx);

    /**
     * How well this backend serves @p req: higher is better, negative refuses. Pure and cheap.
     * @p reason_p, when not NULL, receives a static string saying why (for hipfile-check).
     * Mandatory.
     */
    int (*score)(void *backend, const struct hf_io_request *req, const char **reason_p);
    /**
     * Read: bytes moved (short only at end of file) or -errno. Mandatory with HF_CAP_READ unless
     * transfer is set (since ABI minor 7).
     */
    ssize_t (*read)(void *backend, const struct hf_io_request *req);
    /** Write: bytes moved or -errno. Mandatory with HF_CAP_WRITE unless transfer is set. */
    ssize_t (*write)(void *backend, const struct hf_io_request *req);
    /**
     * Optional, since ABI minor 3: serve @p n independent requests at once (entries of one batch),
     * results[i] being what read or write would return for reqs[i]. The core passes only requests
     * this backend ranked first for, so it may overlap one request's file I/O with another's GPU
     * copy. A retryable errno in results[i] sends reqs[i] down the selector's chain as usual.
     */
    void (*submit_many)(void *backend, const struct hf_io_request *const *reqs, unsigned n,
                        ssize_t *results);
    /**
     * Optional, since ABI minor 4: get ready for stream-ordered requests on GPU @p device. The
     * core calls it when the driver opens, for the calling thread's current GPU, and on the
     * submitting thread before it queues the first hipFileReadAsync or hipFileWriteAsync for a GPU
     * not yet prepared (once per GPU while the backend stays loaded). Those
     * requests run while the runtime holds an application stream, and a runtime may block every
     * thread when a stream or pinned memory is created or freed then (CUDA does), so the backend
     * allocates here whatever GPU resources such requests need and keeps them until fini.
     * Returns 0 or -errno (logged by the backend); a failure is logged by the core and the
     * requests still run.
     */
    int (*stream_prepare)(void *backend, int device);
    /**
     * Optional, since ABI minor 5: the keys of this backend's config group (hf_setting_decl),
     * setting_count of them. With a table, the core validates the group against it before init,
     * and config_int, config_bool and config_string answer a declared key with its default when
     * it is unset; a key the table does not declare reads as -ENOENT.
     */
    const struct hf_setting_decl *settings;
    /** Since ABI minor 5: entries in settings. */
    unsigned setting_count;
    /**
     * Optional, since ABI minor 7: serve @p req in the direction req->op names, returning what
     * read or write would. A backend whose reads and writes go through one function sets this
     * and may leave read and write NULL; when it is set, the core calls it for both directions
     * and never calls read or write.
     */
    ssize_t (*transfer)(void *backend, const struct hf_io_request *req);
    /**
     * Optional, since ABI minor 9: the size in bytes of the file that @p file_ctx (a context this
     * backend's file_register made) stands for, where the backend knows it and the core cannot
     * (a remote object's size, pinned when it was opened). Returns 0 with *size_p set, or
     * -errno: -EOPNOTSUPP when the backend does not know it for this file.
     */
    int (*file_size)(void *backend, void *file_ctx, uint64_t *size_p);
};

/**
 * The entry point, exported as hf_backend_entry_v1. On entry *minor_inout is the core's ABI minor;
 * the backend lowers it to its own if that is lower, and returns its ops table in *ops_p.
 * Returns 0 or -errno.
 */
typedef int (*hf_backend_entry_fn)(const struct hf_host_api *host, uint32_t *minor_inout,
                                   const struct hf_backend_ops **ops_p);

/** Declaration of the entry point each plugin defines. */
int hf_backend_entry_v1(const struct hf_host_api *host, uint32_t *minor_inout,
                        const struct hf_backend_ops **ops_p);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_BACKEND_H */
