/*
 * One loaded backend as the core keeps it: what its manifest says, the negotiated ABI minor, its
 * complete ops table and state, and the host API it was handed. The table of them is backends.h.
 */
#ifndef HF_CORE_LOADED_BACKEND_H
#define HF_CORE_LOADED_BACKEND_H

#include <stdint.h>

#include "hipfile/backend.h"
#include "host/manifest.h"

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
    const struct hf_backend_ops *ops;      /**< the plugin's own table */
    /**
     * The plugin's table with every optional op it lacks (older minor, or NULL) replaced by the
     * core's default; filled once at load (hf_call_complete) and called only through
     * backend_call.h.
     */
    struct hf_backend_ops complete;
    void *state; /**< from ops->init */
    /**
     * What complete.submit_many receives: state for the plugin's own, the backend itself for the
     * core's default (which serves the requests one by one through complete.read and write).
     */
    void *submit_many_arg;
    struct hf_host_api host;  /**< the host API handed to this backend */
    uint64_t stream_prepared; /**< bit d: stream_prepare ran for GPU d (atomic access) */
};

#endif
