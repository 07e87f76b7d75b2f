/*
 * Registered files and buffers. Handles are generation-tagged slot numbers, so a stale or forged
 * handle is rejected by lookup and never dereferenced. Each I/O holds a reference on the objects
 * it uses; a file deregistered during I/O is released when the last of it ends, and buffer
 * deregistration refuses buffers with I/O in flight.
 */
#ifndef HF_CORE_REGISTRY_H
#define HF_CORE_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <hipfile.h>

#include "hipfile/backend.h"
#include "host/backends.h"
#include "services/write_undo.h"

/** A registered file. */
struct hf_file {
    struct hf_file_info info;     /**< facts handed to backends */
    int caller_fd;                /**< the descriptor the caller registered, or -1 */
    const hipFileFSOps_t *fs_ops; /**< a user-space filesystem's callbacks, else NULL */
    int owned_fds[2];             /**< our twins (buffered, direct), the only fds backends see */
    uint64_t handle;              /**< the value handed out as hipFileHandle_t */
    atomic_int refs;              /**< registry reference + one per I/O in flight */
    void *backend_ctx[HF_MAX_BACKENDS]; /**< per-backend context from file_register */
    bool declined[HF_MAX_BACKENDS];     /**< backend declined this file */
    struct hf_write_undo write_undo;    /**< cuts back what failed writes added */
};

/** A registered GPU buffer. */
struct hf_buffer {
    struct hf_buf_info info;            /**< facts handed to backends */
    atomic_int refs;                    /**< registry reference + one per I/O in flight */
    void *backend_ctx[HF_MAX_BACKENDS]; /**< per-backend context from buf_register */
    bool declined[HF_MAX_BACKENDS];     /**< backend declined this buffer */
};

/** Register the file in @p descr; the public entry point's whole logic. */
hipFileError_t hf_file_register(hipFileHandle_t *fh, const hipFileDescr_t *descr);
/**
 * Register a file that has no descriptor, described by @p info (kind, URL, options, access mode);
 * the core copies @p info and its strings. Returns 0 with the handle in *fh, -EOPNOTSUPP when every
 * backend declined it, the first backend's -errno when one failed to take it, or -ENOMEM/-ENOSPC.
 * The caller has opened the driver.
 */
int hf_file_register_info(const struct hf_file_info *info, hipFileHandle_t *fh);
/**
 * Deregister (silently ignores unknown handles). The handle is refused from now on; I/O in flight
 * finishes on the file, which is released when the last of it ends.
 */
void hf_file_deregister(hipFileHandle_t fh);
/** Find the file for @p fh and take a reference; NULL for an unknown or stale handle. */
struct hf_file *hf_file_acquire(hipFileHandle_t fh);
/** Take one more reference on @p file, which the caller holds one on already; returns it. */
struct hf_file *hf_file_hold(struct hf_file *file);
/** Drop a reference taken by hf_file_acquire or hf_file_hold. */
void hf_file_release(struct hf_file *file);
/** Drop every file registration (driver count reached 0). */
void hf_file_drop_all(void);
/** Number of registered files. */
size_t hf_file_count(void);

/** Register a buffer; the public entry point's whole logic. */
hipFileError_t hf_buffer_register(const void *base, size_t length, int flags);
/** Deregister the buffer whose base is exactly @p base. */
hipFileError_t hf_buffer_deregister(const void *base);
/**
 * Resolve the memory at @p ptr for an I/O: the registered buffer with exactly this base (reference
 * taken, returned in *buffer_p), or an unregistered view filled into *view_p (*buffer_p NULL).
 * Returns hipFileSuccess or the error for an unusable pointer; *hip_err_p gets the runtime's code
 * with hipFileHipDriverError.
 */
hipFileOpError_t hf_buffer_resolve(const void *ptr, struct hf_buffer **buffer_p,
                                   struct hf_buf_info *view_p, int *hip_err_p);
/** Drop a reference taken by hf_buffer_resolve. */
void hf_buffer_release(struct hf_buffer *buffer);
/** Words for a memory type (enum hf_mem_type) in messages: "device", "pinned host"... */
const char *hf_buffer_mem_type_name(int mem_type);
/** Drop every buffer registration (driver count reached 0). */
void hf_buffer_drop_all(void);
/** Number of registered buffers. */
size_t hf_buffer_count(void);

#endif
