/*
 * The bound GPU runtime: the entry points the binding (services/gpu.h) resolved, typed as the
 * library exports them, and the struct hf_gpu_ops calls the backends make through them, which
 * normalise what differs between HIP ABIs (memory type numbering, pointer attribute layout,
 * attribute numbers).
 */
#ifndef HF_CORE_GPU_RUNTIME_H
#define HF_CORE_GPU_RUNTIME_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipfile/backend.h"

/** hipRuntimeGetVersion from which hipMemoryType uses the ROCm 6.0 numbering. */
#define HF_GPU_VERSION_MEMTYPE_V6 60000000
/** Bytes the bound runtime's name may take: gpu.runtime may name a library by its path. */
#define HF_GPU_NAME_SIZE ((size_t)PATH_MAX)

/**
 * Everything the binding resolved from the runtime library, typed as the library exports it:
 * hipError_t (a 32-bit enum) as int, stream and event handles as void *. Mandatory members are
 * never NULL once bound; optional ones are NULL when the library does not export them (HIP 5.2
 * declares hipLaunchHostFunc but does not export it, and has no hipGetProcAddress). Numbering
 * inside arguments (hipDeviceAttribute_t, stream value flags) is the running runtime's, given by
 * `version`. For core code (async I/O, executor) that needs more than struct hf_gpu_ops.
 */
struct hf_gpu_runtime {
    void *handle;       /**< dlopen handle of the bound library (never closed) */
    int version;        /**< hipRuntimeGetVersion of the bound library */
    int device_count;   /**< devices reported when the runtime was bound */
    bool memtype_v6;    /**< hipMemoryType numbering of ROCm >= 6.0 (version >= 60000000) */
    bool host_emulated; /**< the host provider: its device memory is ordinary host pages */

    /* Mandatory. */
    int (*runtime_get_version)(int *version_p);       /**< hipRuntimeGetVersion */
    int (*get_device_count)(int *count_p);            /**< hipGetDeviceCount */
    int (*get_device)(int *device_p);                 /**< hipGetDevice */
    int (*set_device)(int device);                    /**< hipSetDevice */
    int (*pointer_get_attributes)(void *attributes_p, /**< hipPointerGetAttributes */
                                  const void *ptr);   /*   (raw hipPointerAttribute_t) */
    int (*mem_get_address_range)(void **base_p,       /**< hipMemGetAddressRange */
                                 size_t *size_p, void *ptr);
    int (*host_malloc)(void **ptr_p, size_t size, unsigned flags);         /**< hipHostMalloc */
    int (*host_free)(void *ptr);                                           /**< hipHostFree */
    int (*memcpy_sync)(void *dst, const void *src, size_t size, int kind); /**< hipMemcpy */
    int (*memcpy_async)(void *dst, const void *src, size_t size, int kind,
                        void *stream); /**< hipMemcpyAsync */
    int (*stream_create_with_flags)(void **stream_p,
                                    unsigned flags); /**< hipStreamCreateWithFlags */
    int (*stream_destroy)(void *stream);             /**< hipStreamDestroy */
    int (*stream_synchronize)(void *stream);         /**< hipStreamSynchronize */
    const char *(*get_error_string)(int err);        /**< hipGetErrorString */

    /* Optional (NULL when absent). */
    /** hipGetProcAddress (ROCm >= 6.2); status_p is a hipDriverProcAddressQueryResult. */
    int (*get_proc_address)(const char *symbol, void **fn_p, int hip_version, uint64_t flags,
                            int *status_p);
    /** hipLaunchHostFunc */
    int (*launch_host_func)(void *stream, void (*fn)(void *user), void *user);
    /** hipStreamAddCallback */
    int (*stream_add_callback)(void *stream, void (*fn)(void *stream, int status, void *user),
                               void *user, unsigned flags);
    /** hipStreamWaitValue32 */
    int (*stream_wait_value32)(void *stream, void *ptr, uint32_t value, unsigned flags,
                               uint32_t mask);
    /** hipStreamWaitValue64 */
    int (*stream_wait_value64)(void *stream, void *ptr, uint64_t value, unsigned flags,
                               uint64_t mask);
    /** hipStreamWriteValue32 */
    int (*stream_write_value32)(void *stream, void *ptr, uint32_t value, unsigned flags);
    /** hipStreamWriteValue64 */
    int (*stream_write_value64)(void *stream, void *ptr, uint64_t value, unsigned flags);
    int (*event_create)(void **event_p);                            /**< hipEventCreate */
    int (*event_create_with_flags)(void **event_p, unsigned flags); /**< hipEventCreateWithFlags */
    int (*event_record)(void *event, void *stream);                 /**< hipEventRecord */
    int (*event_query)(void *event);                                /**< hipEventQuery */
    int (*event_synchronize)(void *event);                          /**< hipEventSynchronize */
    int (*event_destroy)(void *event);                              /**< hipEventDestroy */
    /** hipDeviceGetAttribute (attribute numbering of the running runtime) */
    int (*device_get_attribute)(int *value_p, int attribute, int device);
    /** hipStreamGetDevice (newer ROCm and our providers; absent from HIP 5.2) */
    int (*stream_get_device)(void *stream, int *device_p);
    /** hipStreamQuery: 0 once everything queued on the stream has finished */
    int (*stream_query)(void *stream);
    /** hipStreamGetFlags */
    int (*stream_get_flags)(void *stream, unsigned *flags_p);
    /** hipHostRegister */
    int (*host_register)(void *ptr, size_t size, unsigned flags);
    /** hipHostUnregister */
    int (*host_unregister)(void *ptr);
    /** hipGetLastError: the calling thread's last error, which it then clears */
    int (*get_last_error)(void);
    /** hipPeekAtLastError: the same, left as it is */
    int (*peek_at_last_error)(void);
};

/**
 * Make @p rt the bound runtime, named @p name, and publish the struct hf_gpu_ops calls made through
 * it; the log line that says so gives @p why, how it was chosen. The binding calls it under its
 * lock, once per binding.
 */
void hf_gpu_runtime_publish(const struct hf_gpu_runtime *rt, const char *name, const char *why);
/** Withdraw the bound runtime and clear it. The binding calls it under its lock; tests only. */
void hf_gpu_runtime_forget(void);
/** The text runtime @p rt (bound or not) gives for its error @p err; never NULL. */
const char *hf_gpu_runtime_error_name(const struct hf_gpu_runtime *rt, int err);
/** The bound runtime; NULL before a successful hf_gpu_bind. */
const struct hf_gpu_ops *hf_gpu(void);
/**
 * Size in KiB of @p device's largest memory BAR, the aperture through which peers reach its
 * memory (NVIDIA's BAR1, AMD's BAR0), from the PCI function's sysfs resource file. Returns 0,
 * -ENODEV when no runtime is bound or its devices are host-emulated (no PCI function),
 * -EIO when the runtime cannot say the device's PCI address, or -ENOENT when sysfs does not
 * list the function (a container without /sys).
 */
int hf_gpu_bar_size_kb(int device, uint64_t *kb_p);
/**
 * Whether @p stream is the null stream or the per-thread default stream (hipStreamPerThread):
 * the current device's implicit streams, which wait on its blocking streams.
 */
bool hf_gpu_stream_is_implicit(const void *stream);
/**
 * Whether work queued on @p stream now would start at once: a stream created non-blocking (so it
 * waits on no other stream) with everything queued on it finished. False when it cannot tell (the
 * null or per-thread stream, a runtime without hipStreamQuery or hipStreamGetFlags, an error); a
 * failure is not left as the calling thread's last error.
 */
bool hf_gpu_stream_ready(void *stream);
/** Everything resolved from the bound runtime; NULL before a successful hf_gpu_bind. */
const struct hf_gpu_runtime *hf_gpu_runtime(void);

#endif
