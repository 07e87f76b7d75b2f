/*
 * What the HIP runtime providers (libhip-host, libhip-cuda) share: the HIP API declarations with
 * default visibility, the ROCm 6 hipGetProcAddress declaration the HIP 5.2 header lacks, the
 * per-thread last error, and the table of exported names behind hipGetProcAddress.
 */
#ifndef HF_RUNTIMES_HIP_PROVIDER_H
#define HF_RUNTIMES_HIP_PROVIDER_H

#include <stdint.h>

/* Everything the HIP header declares is an export of the provider; everything we declare after
 * it stays hidden (the build sets -fvisibility=hidden) and the version script keeps only hip*. */
#pragma GCC visibility push(default)
#include <hip/hip_runtime_api.h>

/* ROCm 6 renumbered hipMemoryType, renamed hipPointerAttribute_t.memoryType and versioned
 * hipDeviceProp_t; the providers implement the HIP 5 ABI that Debian's headers describe. */
#if HIP_VERSION_MAJOR >= 6
#error "the hipfile HIP runtime providers are written against the HIP 5 headers (HIP_VERSION < 6)"
#endif

#ifndef HIP_GET_PROC_ADDRESS_DEFAULT
/** hipGetProcAddress flags, as ROCm 6 defines them. */
#define HIP_GET_PROC_ADDRESS_DEFAULT 0
/** Resolve the legacy-default-stream variant of the symbol. */
#define HIP_GET_PROC_ADDRESS_LEGACY_STREAM (1 << 0)
/** Resolve the per-thread-default-stream variant of the symbol. */
#define HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (1 << 1)

/** Outcome of a hipGetProcAddress lookup, numbered as in ROCm 6. */
typedef enum hipDriverProcAddressQueryResult {
    HIP_GET_PROC_ADDRESS_SUCCESS = 0,
    HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
} hipDriverProcAddressQueryResult;

/**
 * Resolve @p symbol among the provider's own HIP exports (ROCm 6 signature; the HIP 5.2 header
 * does not declare it). Unknown names give hipErrorInvalidValue with *pfn = NULL and
 * HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, as ROCm does.
 */
hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             hipDriverProcAddressQueryResult *symbolStatus);
#endif

/**
 * The device @p stream belongs to (ROCm's signature; the HIP 5.2 header does not declare it). The
 * null stream and hipStreamPerThread belong to the calling thread's current device.
 */
hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device);
#pragma GCC visibility pop

/**
 * hipDeviceAttributeHostNumaId as ROCm 7 numbers it (the HIP 5.2 enumeration ends before it): the
 * NUMA node of the host memory nearest the device, -1 when the platform does not say.
 */
#define HF_RT_ATTRIBUTE_HOST_NUMA_ID ((hipDeviceAttribute_t)92)

/**
 * The highest hipExtMallocWithFlags flag value ROCm defines: hipDeviceMallocDefault (0),
 * Finegrained (1), hipMallocSignalMemory (2), and ROCm 6's hipDeviceMallocUncached (3) and
 * hipDeviceMallocContiguous (4). Larger values are refused with hipErrorInvalidValue, as ROCm does.
 */
#define HF_EXT_MALLOC_FLAGS_MAX 4u

/** HIP_VERSION in the "major * 100 + minor" form hipGetProcAddress takes as hipVersion. */
#define HF_RT_PROC_VERSION (HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR)

/**
 * Record @p err as the calling thread's last error when it is one, and return it. Every exported
 * function returns through this so hipGetLastError sees the most recent failure (sticky until
 * read, as CUDA and ROCm 6 behave).
 */
hipError_t hf_rt_result(hipError_t err);

/** Write one diagnostic line "<provider>: <message>" to stderr. */
void hf_rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Name of this provider for diagnostics ("hip-host", "hip-cuda"); each provider defines it. */
extern const char hf_rt_provider_name[];

#endif
