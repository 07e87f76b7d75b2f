/*
 * The CUDA driver API as the CUDA provider (libhip-cuda) uses it: our own minimal declarations of
 * the types, values and entry points we call, resolved from libcuda.so.1 at run time, so the
 * provider builds and loads on machines without CUDA. Values are those of the CUDA driver ABI.
 */
#ifndef HF_CUDA_DRIVER_H
#define HF_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "hip_provider.h"

/** CUresult: 0 is success. */
typedef int CUresult;
/** A device address (64-bit on every platform we build for). */
typedef unsigned long long CUdeviceptr;
/** A device handle from cuDeviceGet. */
typedef int CUdevice;
/** Opaque driver handles. */
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
/** Host function and stream callback types. */
typedef void (*CUhostFn)(void *userData);
typedef void (*CUstreamCallback)(CUstream hStream, CUresult status, void *userData);

/** CUresult values the provider treats specially. */
enum {
    HF_CUDA_SUCCESS = 0,
    HF_CUDA_ERROR_INVALID_VALUE = 1,
    HF_CUDA_ERROR_OUT_OF_MEMORY = 2,
    HF_CUDA_ERROR_NOT_INITIALIZED = 3,
    HF_CUDA_ERROR_STUB_LIBRARY = 34,
    HF_CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
    HF_CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
    HF_CUDA_ERROR_NO_DEVICE = 100,
    HF_CUDA_ERROR_INVALID_DEVICE = 101,
    HF_CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
    HF_CUDA_ERROR_NOT_READY = 600,
    HF_CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
    HF_CUDA_ERROR_NOT_PERMITTED = 800,
    HF_CUDA_ERROR_NOT_SUPPORTED = 801,
    HF_CUDA_ERROR_SYSTEM_NOT_READY = 802,
    HF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    HF_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
};

/** CUpointer_attribute values. */
enum {
    HF_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    HF_CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    HF_CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
    HF_CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    HF_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    HF_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    HF_CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};

/** CUmemorytype values (0 means the driver does not know the pointer). */
enum {
    HF_CU_MEMORYTYPE_HOST = 1,
    HF_CU_MEMORYTYPE_DEVICE = 2,
    HF_CU_MEMORYTYPE_ARRAY = 3,
    HF_CU_MEMORYTYPE_UNIFIED = 4,
};

/** Flags of cuMemHostAlloc and cuMemHostRegister. */
enum {
    HF_CU_MEMHOSTALLOC_PORTABLE = 0x01,
    HF_CU_MEMHOSTALLOC_DEVICEMAP = 0x02,
    HF_CU_MEMHOSTALLOC_WRITECOMBINED = 0x04,
    HF_CU_MEMHOSTREGISTER_PORTABLE = 0x01,
    HF_CU_MEMHOSTREGISTER_DEVICEMAP = 0x02,
    HF_CU_MEMHOSTREGISTER_IOMEMORY = 0x04,
    HF_CU_MEMHOSTREGISTER_READ_ONLY = 0x08,
};

/** CUstreamWaitValue_flags: numbered as HIP's hipStreamWaitValue* flags. */
enum {
    HF_CU_STREAM_WAIT_VALUE_GEQ = 0,
    HF_CU_STREAM_WAIT_VALUE_EQ = 1,
    HF_CU_STREAM_WAIT_VALUE_AND = 2,
    HF_CU_STREAM_WAIT_VALUE_NOR = 3,
};

/** CUdevice_attribute values the provider reads directly. */
enum {
    HF_CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92,
    /** CUDA 12.2: NUMA node of the host memory nearest the device, -1 without NUMA. */
    HF_CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134,
};

/**
 * The driver entry points, resolved at the first hf_cuda_init. Each member is the cu* function of
 * the same name (cuMemAlloc_v2 for MemAlloc and so on; driver.c lists the exact names).
 */
struct hf_cuda_api {
    CUresult (*Init)(unsigned int flags);
    CUresult (*DriverGetVersion)(int *version);
    CUresult (*DeviceGetCount)(int *count);
    CUresult (*DeviceGet)(CUdevice *device, int ordinal);
    CUresult (*DeviceGetAttribute)(int *pi, int attrib, CUdevice dev);
    CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
    CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
    CUresult (*CtxSetCurrent)(CUcontext ctx);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemGetInfo)(size_t *free, size_t *total);
    CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytesize);
    CUresult (*MemFree)(CUdeviceptr dptr);
    CUresult (*MemAllocManaged)(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
    CUresult (*MemHostAlloc)(void **pp, size_t bytesize, unsigned int flags);
    CUresult (*MemFreeHost)(void *p);
    CUresult (*MemHostRegister)(void *p, size_t bytesize, unsigned int flags);
    CUresult (*MemHostUnregister)(void *p);
    CUresult (*MemHostGetDevicePointer)(CUdeviceptr *pdptr, void *p, unsigned int flags);
    CUresult (*MemHostGetFlags)(unsigned int *flags, void *p);
    CUresult (*PointerGetAttributes)(unsigned int count, int *attributes, void **data,
                                     CUdeviceptr ptr);
    CUresult (*MemGetAddressRange)(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
    CUresult (*MemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
    CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream);
    CUresult (*StreamCreate)(CUstream *stream, unsigned int flags);
    CUresult (*StreamDestroy)(CUstream stream);
    CUresult (*StreamSynchronize)(CUstream stream);
    CUresult (*StreamQuery)(CUstream stream);
    CUresult (*StreamGetFlags)(CUstream stream, unsigned int *flags);
    CUresult (*StreamWaitEvent)(CUstream stream, CUevent event, unsigned int flags);
    CUresult (*LaunchHostFunc)(CUstream stream, CUhostFn fn, void *data);
    CUresult (*StreamAddCallback)(CUstream stream, CUstreamCallback cb, void *data,
                                  unsigned int flags);
    CUresult (*StreamWaitValue32)(CUstream stream, CUdeviceptr addr, uint32_t value,
                                  unsigned int flags);
    CUresult (*StreamWaitValue64)(CUstream stream, CUdeviceptr addr, uint64_t value,
                                  unsigned int flags);
    CUresult (*StreamWriteValue32)(CUstream stream, CUdeviceptr addr, uint32_t value,
                                   unsigned int flags);
    CUresult (*StreamWriteValue64)(CUstream stream, CUdeviceptr addr, uint64_t value,
                                   unsigned int flags);
    CUresult (*EventCreate)(CUevent *event, unsigned int flags);
    CUresult (*EventRecord)(CUevent event, CUstream stream);
    CUresult (*EventQuery)(CUevent event);
    CUresult (*EventSynchronize)(CUevent event);
    CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
    CUresult (*EventDestroy)(CUevent event);
    int stream_memops_v2; /**< the CUDA 11.7+ _v2 stream memory operations were found */
    /** Optional (NULL when the driver lacks it): cuStreamGetCtx (CUDA 9.2). */
    CUresult (*StreamGetCtx)(CUstream stream, CUcontext *pctx);
};

/** The resolved driver; valid once hf_cuda_enter or hf_cuda_init returned hipSuccess. */
extern struct hf_cuda_api hf_cu;

/**
 * Load and initialise the driver once. Returns hipSuccess, hipErrorNoDevice (no libcuda, a stub
 * library, or no device), or the mapped driver error (hipErrorNotInitialized when a required
 * entry point is missing).
 */
hipError_t hf_cuda_init(void);
/**
 * hf_cuda_init, then make the calling thread's current device's primary context current on this
 * thread (retaining it at first use). Every call that touches the GPU starts here.
 */
hipError_t hf_cuda_enter(void);
/** Make @p device (a valid ordinal) the calling thread's current device and bind its context. */
hipError_t hf_cuda_select(int device);
/** Number of CUDA devices (0 before a successful init). */
int hf_cuda_device_count(void);
/** The calling thread's current device ordinal. */
int hf_cuda_current_device(void);
/**
 * The ordinal whose primary context is @p ctx, or -1 when @p ctx is no primary context this
 * provider has made current (a context the program created with the driver API itself).
 */
int hf_cuda_context_device(CUcontext ctx);
/** Map a CUresult to the closest hipError_t. */
hipError_t hf_cuda_error(CUresult rc);

#endif
