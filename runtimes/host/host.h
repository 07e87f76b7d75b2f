/*
 * Internal interfaces of the host-emulation HIP provider (libhip-host): device state, the
 * allocation table, and the stream and event machinery the API files share.
 */
#ifndef HF_HOST_HOST_H
#define HF_HOST_HOST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "hip_provider.h"
#include "range_table.h"

/** Most emulated devices HIP_HOST_DEVICE_COUNT may ask for. */
#define HF_HOST_MAX_DEVICES 16

/** Kinds of range in the host provider's tables. */
enum hf_host_kind {
    HF_HOST_MEM_DEVICE = 1, /**< hipMalloc: emulated device memory */
    HF_HOST_MEM_PINNED,     /**< hipHostMalloc: page-locked host memory */
    HF_HOST_MEM_MANAGED,    /**< hipMallocManaged */
    HF_HOST_MEM_REGISTERED, /**< hipHostRegister'd user memory */
    HF_HOST_STREAM,         /**< a stream handle */
    HF_HOST_EVENT,          /**< an event handle */
};

/**
 * Initialise the provider once (device count from HIP_HOST_DEVICE_COUNT). Cheap after the first
 * call; every entry point that touches state calls it.
 */
void hf_host_init(void);
/** Number of emulated devices. */
int hf_host_device_count(void);
/** The calling thread's current device. */
int hf_host_current_device(void);
/** Bytes of device and managed memory currently allocated on @p device. */
size_t hf_host_device_allocated(int device);
/** Account @p delta bytes (may be negative) to @p device. */
void hf_host_device_account(int device, long long delta);
/** Emulated memory per device: the machine's physical memory. */
size_t hf_host_total_mem(void);

/**
 * Check that [ptr, ptr + size) does not run past the end of the provider allocation it starts in:
 * real GPUs reject such copies instead of corrupting a neighbour. Other memory passes.
 */
hipError_t hf_host_mem_check(const void *ptr, size_t size);

/** Stream operation kinds. */
enum hf_host_op_kind {
    HF_OP_COPY,         /**< memmove */
    HF_OP_MEMSET,       /**< memset */
    HF_OP_HOST_FN,      /**< hipLaunchHostFunc */
    HF_OP_CALLBACK,     /**< hipStreamAddCallback */
    HF_OP_WAIT_VALUE,   /**< hipStreamWaitValue32/64 */
    HF_OP_WRITE_VALUE,  /**< hipStreamWriteValue32/64 */
    HF_OP_EVENT_RECORD, /**< hipEventRecord */
    HF_OP_EVENT_WAIT,   /**< hipStreamWaitEvent */
};

/** One queued stream operation. */
struct hf_host_op {
    struct hf_host_op *next; /**< queue link */
    int kind;                /**< enum hf_host_op_kind */
    union {
        struct {
            void *dst;
            const void *src;
            size_t size;
        } copy; /**< HF_OP_COPY */
        struct {
            void *dst;
            int value;
            size_t size;
        } set; /**< HF_OP_MEMSET */
        struct {
            hipHostFn_t fn;
            void *data;
        } host_fn; /**< HF_OP_HOST_FN */
        struct {
            hipStreamCallback_t fn;
            void *data;
            hipStream_t stream;
        } callback; /**< HF_OP_CALLBACK */
        struct {
            void *ptr;
            uint64_t value;
            uint64_t mask;
            unsigned flags;
            int width; /**< 4 or 8 bytes */
            bool held; /**< wait counted as a strict-mode hold since it was queued */
        } value;       /**< HF_OP_WAIT_VALUE, HF_OP_WRITE_VALUE */
        struct {
            struct ihipEvent_t *event; /**< held until the op has run */
            uint64_t generation;
        } event; /**< HF_OP_EVENT_RECORD, HF_OP_EVENT_WAIT */
    } u;
};

/**
 * Run @p op on @p stream: queued behind earlier work on a created stream (the op is copied), or
 * run now in the caller's thread on the null stream, after the device's blocking streams drained
 * (the legacy default stream's ordering), or on hipStreamPerThread. On failure an event held by the
 * op is released here.
 */
hipError_t hf_host_stream_submit(hipStream_t stream, const struct hf_host_op *op);
/** Wait until every stream of @p device (any device when negative) has drained. */
hipError_t hf_host_streams_drain(int device);
/** Wake stream workers blocked in a wait-value so they re-read memory (stream_value.c). */
void hf_host_memory_changed(void);
/** Block the calling stream worker until the HF_OP_WAIT_VALUE condition of @p op holds. */
void hf_host_value_wait(const struct hf_host_op *op);
/** Perform the HF_OP_WRITE_VALUE store of @p op and wake waiters. */
void hf_host_value_write(const struct hf_host_op *op);
/** Whether the HF_OP_WAIT_VALUE condition of @p op holds now. */
bool hf_host_value_ready(const struct hf_host_op *op);

/** Whether HIP_HOST_STRICT_HOLDS is on; set once by hf_host_strict_init, read relaxed. */
extern atomic_bool hf_host_strict_on;

/**
 * Read HIP_HOST_STRICT_HOLDS and HIP_HOST_STRICT_HOLDS_TIMEOUT_MS, once per process however often
 * it is called (hf_host_init calls it, and so does the gate).
 */
void hf_host_strict_init(void);

/** Whether strict mode is on (call after hf_host_init or hf_host_strict_init). */
static inline bool hf_host_strict_holds(void)
{
    return atomic_load_explicit(&hf_host_strict_on, memory_order_relaxed);
}

/** Strict mode: a stream's next operation became a wait-value whose condition is not met. */
void hf_host_hold_begin(void);
/** Strict mode: a hold counted by hf_host_hold_begin ended (its condition was met). */
void hf_host_hold_end(void);

/**
 * Strict mode: block the caller of @p call (a HIP function name) until no stream is held by an
 * unmet wait-value, as the CUDA driver blocks some calls; abort the process when that takes longer
 * than HIP_HOST_STRICT_HOLDS_TIMEOUT_MS. Returns at once when strict mode is off.
 */
void hf_host_strict_gate(const char *call);

/** An event, as the HIP header forward-declares it. */
struct ihipEvent_t {
    atomic_int refs;      /**< handle + queued ops */
    unsigned flags;       /**< hipEvent* flags */
    pthread_mutex_t lock; /**< guards the fields below */
    pthread_cond_t done;  /**< signalled when a record completes */
    uint64_t recorded;    /**< generation of the latest hipEventRecord */
    uint64_t completed;   /**< highest generation that has completed */
    struct timespec time; /**< when the latest record completed */
};

/**
 * The event of handle @p event, with a reference taken for the caller (hf_host_event_release
 * drops it), or hipErrorInvalidHandle for a handle that is not a live event.
 */
hipError_t hf_host_event_acquire(hipEvent_t event, struct ihipEvent_t **event_p);
/** Take a reference on an event. */
void hf_host_event_hold(void *event);
/** Drop a reference; the last one frees the event. */
void hf_host_event_release(struct ihipEvent_t *event);
/** Mark record @p generation complete (run by the stream that reached it). */
void hf_host_event_complete(struct ihipEvent_t *event, uint64_t generation);
/** Block until record @p generation (or a later one) has completed. */
void hf_host_event_wait(struct ihipEvent_t *event, uint64_t generation);

#endif
