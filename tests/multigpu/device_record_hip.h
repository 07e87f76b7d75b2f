/*
 * A recording HIP runtime for the multi-GPU tests: every function the core binds is forwarded to
 * the host provider (libhip-host.so.0, the one the test program links), and the calls that say
 * which device the library works with are counted per device. Because it is not the host provider
 * itself, the core treats its device memory as memory the CPU cannot address, so the fallback
 * stages every request through its pools, as it does on a discrete GPU. The test names this
 * library in gpu.runtime and reaches the controls below with dlsym.
 */
#ifndef HF_TEST_DEVICE_RECORD_HIP_H
#define HF_TEST_DEVICE_RECORD_HIP_H

#ifdef __cplusplus
extern "C" {
#endif

/** Most devices the recorder keeps counts for (the host provider's own limit). */
#define DEVICE_RECORD_MAX_DEVICES 16

/** What the library did on behalf of one device since the last reset. */
struct device_record_counts {
    long pinned_allocs;    /**< hipHostMalloc calls made while the device was current */
    long registered;       /**< hipHostRegister calls made while the device was current */
    long streams_created;  /**< hipStreamCreateWithFlags calls made while the device was current */
    long copies;           /**< hipMemcpyAsync calls queued on a stream of the device */
    long copied_bytes;     /**< bytes those copies moved */
    long foreign_copies;   /**< of those, copies whose device memory belongs to another device */
    long set_device_calls; /**< hipSetDevice calls naming the device */
};

/** Copy the counts of @p device into *counts_p; zeroes for a device out of range. */
typedef void (*device_record_counts_fn)(int device, struct device_record_counts *counts_p);
/** Zero every count and disarm the injected failure. */
typedef void (*device_record_reset_fn)(void);
/**
 * Make hipSetDevice(@p device) fail with hipErrorInvalidDevice from now on, as if that device had
 * gone away (-1: disarm).
 */
typedef void (*device_record_fail_set_device_fn)(int device);

#ifdef __cplusplus
}
#endif

#endif
