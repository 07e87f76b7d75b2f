/*
 * The plugin loader: reads every manifest in plugins.directory (sorted), validates it, opens the
 * enabled plugins, performs the ABI handshake, init and probe, and keeps the backends that pass.
 * A plugin that fails any step is skipped with one log line saying why. Plugins are never unloaded.
 */
#ifndef HF_CORE_LOADER_H
#define HF_CORE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipfile/backend.h"
#include "manifest.h"

/** Most backends one process loads. */
#define HF_MAX_BACKENDS 32

/** A loaded, probed backend. */
struct hf_backend {
    unsigned index;           /**< position in the loaded table, 0..count-1 */
    char name[64];            /**< manifest name (equal to ops->name) */
    char manifest_path[4096]; /**< the manifest it came from */
    char library_path[4096];  /**< the shared object (real path) */
    char version[64];         /**< the plugin's version, from the manifest */
    char description[256];    /**< the manifest's description, may be empty */
    uint32_t abi_minor;       /**< negotiated minor */
    int manifest_priority;    /**< default priority from the manifest */
    int priority;             /**< effective priority (config overrides manifest) */
    uint32_t mem_types;       /**< bit (1 << enum hf_mem_type) per accepted memory type */
    uint32_t file_kinds;      /**< bit (1 << enum hf_file_kind) per accepted file kind */
    int retry_errnos[HF_MAX_RETRY_ERRNOS]; /**< errnos after which the next backend may retry */
    unsigned retry_errno_count;            /**< entries used in retry_errnos */
    const struct hf_backend_ops *ops;      /**< the plugin's table */
    void *state;                           /**< from ops->init */
    struct hf_host_api host;               /**< the host API handed to this backend */
    uint64_t stream_prepared; /**< bit d: stream_prepare ran for GPU d (atomic access) */
};

/**
 * Load every plugin from plugins.directory (hf_config_get_string), reading manifests in byte
 * order of their file names. Runs once per process (until hf_loader_reset); later calls return the
 * first result. Returns 0 even when no plugin loaded (that is logged); -errno only when the
 * directory cannot be read at all (logged as an error). Each backend's host API carries hf_gpu()
 * as it is at this call, so bind the GPU runtime first.
 */
int hf_loader_load_all(void);
/**
 * What to do about a plugin directory that is missing or holds no plugins, depending on who chose
 * it (HIPFILE_PLUGIN_DIR, plugins.directory at a file and line, or the default beside the
 * library), as one clause into @p buf.
 */
const char *hf_loader_directory_fix(char *buf, size_t size);
/** Number of loaded backends. */
unsigned hf_backend_count(void);
/** Backend @p index (0..count-1), or NULL. */
struct hf_backend *hf_backend_at(unsigned index);
/** Backend named @p name, or NULL. */
struct hf_backend *hf_backend_find(const char *name);
/** Whether a loaded backend offers a direct (no bounce buffer) path, HF_CAP_DIRECT. */
bool hf_loader_has_direct_backend(void);
/**
 * Forget every loaded backend (fini is called, libraries stay loaded) so a test can load another
 * directory. Tests only: no I/O and no registration may be in flight.
 */
void hf_loader_reset(void);
/**
 * Let every backend that offers stream_prepare (ABI minor 4) get ready for stream-ordered requests
 * on GPU @p device, before the first such request for it is queued; afterwards a call costs one
 * load per backend. Serialized, so no caller queues a request while another is still preparing.
 * A failure is logged once and not retried; the requests run anyway (the backend then makes what
 * it needs on demand).
 */
void hf_backends_stream_prepare(int device);
/** Whether @p err (positive errno) is retryable for @p backend (ENODEV, EREMOTEIO, manifest list).
 */
bool hf_backend_retryable(const struct hf_backend *backend, int err);

#endif
