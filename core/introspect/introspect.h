/*
 * What hipfile-check may ask the core, and nothing more: the setup steps of the first
 * hipFileDriverOpen one at a time, the settings with their values and origins, the keys plugins
 * declare, the bound runtime, the manifests and loaded backends, and the selector's verdict for one
 * registered file and buffer. Plain structs and functions, so the tool depends on this header
 * (and the public ones) alone, and core/introspect/introspect.c is the one place its needs touch
 * the core's internals.
 */
#ifndef HF_CORE_INTROSPECT_H
#define HF_CORE_INTROSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hipfile.h>

#include "introspect/introspect_settings.h"
#include "hipfile/backend.h"

/** Room for a plugin name and its terminator. */
#define HF_INTROSPECT_NAME_SIZE 64
/** Room for why a manifest was rejected. */
#define HF_INTROSPECT_WHY_SIZE 512
/** Most backends loaded at once. */
#define HF_INTROSPECT_MAX_BACKENDS 32
/** Most bytes one backend call moves; longer requests are served in pieces of this size. */
#define HF_INTROSPECT_IO_MAX_BYTES ((size_t)0x7ffff000)

/* ---- setting up, one step at a time ---------------------------------------------------------- */

/** Load the configuration again (hf_config_load): 0 or -errno, the reason logged. */
int hf_introspect_config_load(void);
/** Bind the GPU runtime @p runtime names ("auto", "host", a path): 0 or -errno, logged. */
int hf_introspect_gpu_bind(const char *runtime);
/** Load the plugins of plugins.directory: 0 or -errno, each plugin's fate logged. */
int hf_introspect_plugins_load(void);
/** Open the driver as the first registration does. */
hipFileOpError_t hf_introspect_driver_open(void);
/** Point the core's log at @p path (NULL: standard error). 0 or -errno. */
int hf_introspect_log_to(const char *path);
/** Log lines up to @p level (enum hf_log_level) from now on. */
void hf_introspect_log_level(int level);

/* ---- the GPU runtime ------------------------------------------------------------------------- */

/** The bound runtime. */
struct hf_introspect_runtime {
    const char *name;    /**< its provider's name ("host", "hip", "cuda") */
    const char *library; /**< the file it was loaded from, NULL when unknown */
    int version;         /**< hipRuntimeGetVersion */
    int device_count;    /**< devices it reported */
    bool memtype_v6;     /**< ROCm 6 memory type numbering */
    bool host_emulated;  /**< the host emulation: device memory is host memory */
};
/** The bound runtime into *out; false when none is bound. */
bool hf_introspect_runtime(struct hf_introspect_runtime *out);
/** The runtime's words for its error @p code. */
const char *hf_introspect_runtime_error(int code);
/** Symbol @p name of the bound runtime's library (hipMalloc, hipFree), or NULL. */
void *hf_introspect_runtime_symbol(const char *name);
/** Pinned host memory through the bound runtime: 0 or the runtime's error. */
int hf_introspect_host_malloc(void **ptr_p, size_t size);
/** Free what hf_introspect_host_malloc gave. */
void hf_introspect_host_free(void *ptr);

/* ---- what the process may use --------------------------------------------------------------- */

/** The budgets the library sizes its threads' work and its pinned staging by. */
struct hf_introspect_budgets {
    unsigned cpus; /**< CPUs the process may use: its affinity mask under its cgroup's quota */
    unsigned affinity_cpus;  /**< CPUs in its affinity mask */
    uint64_t memory_bytes;   /**< memory it may use: physical memory under its cgroup's limit */
    uint64_t physical_bytes; /**< the machine's physical memory, 0 when unknown */
    uint64_t pinned_kb;      /**< pinned memory per GPU a backend may take (the core's limit) */
    uint64_t staging_kb;     /**< staging memory per GPU (properties.max_device_cache_size_kb) */
};
/** The budgets as the library reads them now. */
void hf_introspect_budgets(struct hf_introspect_budgets *out);

/* ---- manifests and backends ------------------------------------------------------------------ */

/** What a manifest says, as far as the report needs it. */
struct hf_introspect_manifest {
    char name[HF_INTROSPECT_NAME_SIZE]; /**< the plugin's name */
    char version[64];                   /**< its version */
    char library_path[4096];            /**< its library in the plugin directory, "" if unusable */
};
/**
 * Read and validate manifest @p path of plugin directory @p dir into *out. Returns 0, or -errno
 * with why it is invalid in @p why.
 */
int hf_introspect_manifest_read(const char *path, const char *dir,
                                struct hf_introspect_manifest *out, char *why, size_t why_size);
/** Whether the backend named @p name is loaded from manifest @p manifest_path. */
bool hf_introspect_loaded_from(const char *name, const char *manifest_path);
/** Whether the core accepts plugin directory @p dir: 0, or -errno with why in @p why. */
int hf_introspect_trust_directory(const char *dir, char *why, size_t why_size);
/** What to do about a missing or empty plugin directory, in @p buf. */
const char *hf_introspect_directory_fix(char *buf, size_t size);
/** Whether some loaded backend moves data without a host bounce buffer. */
bool hf_introspect_has_direct_backend(void);

/** One loaded backend. Strings stay valid while it is loaded. */
struct hf_introspect_backend {
    unsigned index;             /**< its place in load order */
    const char *name;           /**< its name */
    const char *version;        /**< its version */
    const char *description;    /**< one line, may be "" */
    const char *library_path;   /**< its shared object */
    const char *manifest_path;  /**< its manifest */
    unsigned abi_minor;         /**< the negotiated ABI minor */
    int priority;               /**< effective priority */
    int manifest_priority;      /**< the manifest's priority */
    uint32_t caps;              /**< enum hf_backend_caps */
    uint32_t mem_types;         /**< bit per enum hf_mem_type its manifest accepts */
    uint32_t file_kinds;        /**< bit per enum hf_file_kind its manifest accepts */
    const int *retry_errnos;    /**< errnos after which the next backend may retry */
    unsigned retry_errno_count; /**< entries in retry_errnos */
};
/** Loaded backends. */
unsigned hf_introspect_backend_count(void);
/** Backend @p index into *out: 0, or -ENOENT past the last. */
int hf_introspect_backend_at(unsigned index, struct hf_introspect_backend *out);
/** Manifest spelling of memory type bit @p bit ("device"). */
const char *hf_introspect_mem_name(int bit);
/** Manifest spelling of file kind bit @p bit ("regular"). */
const char *hf_introspect_file_kind_name(int bit);
/** Symbolic name of @p err ("ENODEV"), or NULL. */
const char *hf_introspect_errno_name(int err);
/** Words for memory type @p mem_type ("device", "pinned host"). */
const char *hf_introspect_buffer_mem_name(int mem_type);

/* ---- the selector's verdict for one request -------------------------------------------------- */

/** A file registered as hipFileHandleRegister registers it, held for a verdict. */
struct hf_introspect_file;
/** A buffer registered as hipFileBufRegister registers it, held for a verdict. */
struct hf_introspect_buffer;

/** Register open descriptor @p fd into *file_p (NULL on failure): the registration's status. */
hipFileError_t hf_introspect_file_register(int fd, struct hf_introspect_file **file_p);
/** The facts backends see of @p file. */
const struct hf_file_info *hf_introspect_file_info(const struct hf_introspect_file *file);
/** Release and deregister @p file (NULL: nothing). */
void hf_introspect_file_release(struct hf_introspect_file *file);

/**
 * Register @p size bytes at @p base into *buffer_p: the registration's status. *buffer_p is NULL
 * when registration or the look-up after it failed (nothing stays registered then).
 */
hipFileError_t hf_introspect_buffer_register(void *base, size_t size,
                                             struct hf_introspect_buffer **buffer_p);
/** The facts backends see of @p buffer. */
const struct hf_buf_info *hf_introspect_buffer_info(const struct hf_introspect_buffer *buffer);
/** Release and deregister @p buffer (NULL: nothing). */
void hf_introspect_buffer_release(struct hf_introspect_buffer *buffer);

/** One backend's verdict on a request. */
struct hf_introspect_candidate {
    const char *name;     /**< the backend */
    int score;            /**< its score; negative = refused */
    const char *reason;   /**< why, never NULL */
    bool declined_file;   /**< it declined the file at registration */
    bool declined_buffer; /**< it declined the buffer at registration */
    int priority;         /**< its effective priority */
};
/**
 * Rank every loaded backend for a read (or @p write) of @p size bytes at @p offset of @p file into
 * @p buffer, built as hipFileRead/hipFileWrite build it: candidates first in serving order, then
 * the refused ones. Returns the number filled (at most @p max).
 */
size_t hf_introspect_rank(const struct hf_introspect_file *file,
                          const struct hf_introspect_buffer *buffer, bool write, size_t size,
                          int64_t offset, struct hf_introspect_candidate *out, size_t max);

#endif
