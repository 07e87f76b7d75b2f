/*
 * A stand-in for libcuda.so.1 that the CUDA provider's CPU tests load through HIP_CUDA_DRIVER.
 * FAKE_CUDA_MODE picks the machine it pretends to be: "nodevice", "stub", "mismatch", "zero"
 * (no GPUs) or "device" (one GPU whose stream-memory and pointer calls are recorded).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0,
    NOT_INITIALIZED = 3,
    STUB_LIBRARY = 34,
    NO_DEVICE = 100,
    NOT_SUPPORTED = 801,
    SYSTEM_DRIVER_MISMATCH = 803,
};

/** The last host registration: the flags the provider translated HIP's into. */
EXPORT struct fake_cuda_register {
    int calls;
    void *ptr;
    size_t size;
    unsigned flags;
} fake_cuda_last_register;

/** The last stream wait-value call: what the provider translated HIP's arguments into. */
EXPORT struct fake_cuda_wait {
    int calls;
    int width;
    CUdeviceptr addr;
    uint64_t value;
    unsigned flags;
} fake_cuda_last_wait;

static int mode_is(const char *mode)
{
    const char *m = getenv("FAKE_CUDA_MODE");

    return m != NULL && strcmp(m, mode) == 0;
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int flags)
{
    if (!mode_is("device"))
        return NOT_SUPPORTED;
    fake_cuda_last_register.calls++;
    fake_cuda_last_register.ptr = p;
    fake_cuda_last_register.size = bytesize;
    fake_cuda_last_register.flags = flags;
    return OK;
}

EXPORT CUresult cuInit(unsigned flags)
{
    (void)flags;
    if (mode_is("stub"))
        return STUB_LIBRARY;
    if (mode_is("mismatch"))
        return SYSTEM_DRIVER_MISMATCH;
    if (mode_is("zero") || mode_is("device"))
        return OK;
    return NO_DEVICE;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    *count = mode_is("device") ? 1 : 0;
    return OK;
}

EXPORT CUresult cuDriverGetVersion(int *version)
{
    *version = 12080;
    return OK;
}

EXPORT CUresult cuDeviceGet(int *device, int ordinal)
{
    *device = ordinal;
    return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    *ctx = (void *)(uintptr_t)(0x1000 + device);
    return OK;
}

EXPORT CUresult cuCtxSetCurrent(void *ctx)
{
    (void)ctx;
    return OK;
}

static CUresult record_wait(int width, CUdeviceptr addr, uint64_t value, unsigned flags)
{
    fake_cuda_last_wait.calls++;
    fake_cuda_last_wait.width = width;
    fake_cuda_last_wait.addr = addr;
    fake_cuda_last_wait.value = value;
    fake_cuda_last_wait.flags = flags;
    return OK;
}

EXPORT CUresult cuStreamWaitValue32_v2(void *stream, CUdeviceptr addr, uint32_t value,
                                       unsigned flags)
{
    (void)stream;
    return record_wait(4, addr, value, flags);
}

EXPORT CUresult cuStreamWaitValue64_v2(void *stream, CUdeviceptr addr, uint64_t value,
                                       unsigned flags)
{
    (void)stream;
    return record_wait(8, addr, value, flags);
}

/**
 * How hipStreamSynchronize waited. The test sets busy_queries (stream queries answered "not
 * ready" before query_result), event_create_result and event_sync_result; the rest is counted.
 */
EXPORT struct fake_cuda_sync {
    long busy_queries;
    CUresult query_result;
    CUresult event_create_result;
    CUresult event_sync_result;
    int queries;
    unsigned event_flags;
    int events_created, events_recorded, events_synchronized, events_destroyed;
    int stream_syncs;
} fake_cuda_sync;

EXPORT CUresult cuStreamQuery(void *stream)
{
    (void)stream;
    fake_cuda_sync.queries++;
    if (fake_cuda_sync.busy_queries > 0) {
        fake_cuda_sync.busy_queries--;
        return 600; /* CUDA_ERROR_NOT_READY */
    }
    return fake_cuda_sync.query_result;
}

EXPORT CUresult cuStreamSynchronize(void *stream)
{
    (void)stream;
    fake_cuda_sync.stream_syncs++;
    return OK;
}

EXPORT CUresult cuEventCreate(void **event, unsigned flags)
{
    fake_cuda_sync.event_flags = flags;
    if (fake_cuda_sync.event_create_result != OK)
        return fake_cuda_sync.event_create_result;
    fake_cuda_sync.events_created++;
    *event = (void *)(uintptr_t)0x7700;
    return OK;
}

EXPORT CUresult cuEventRecord(void *event, void *stream)
{
    (void)event;
    (void)stream;
    fake_cuda_sync.events_recorded++;
    return OK;
}

EXPORT CUresult cuEventSynchronize(void *event)
{
    (void)event;
    fake_cuda_sync.events_synchronized++;
    return fake_cuda_sync.event_sync_result;
}

EXPORT CUresult cuEventDestroy_v2(void *event)
{
    (void)event;
    fake_cuda_sync.events_destroyed++;
    return OK;
}

/* Pointers below 0x10000 are "device memory" of 4096 bytes at 0x1000; the rest are unknown. */
EXPORT CUresult cuPointerGetAttributes(unsigned count, int *attrs, void **data, CUdeviceptr ptr)
{
    int known = ptr >= 0x1000 && ptr < 0x2000;

    for (unsigned i = 0; i < count; i++) {
        switch (attrs[i]) {
        case 2: /* memory type */
            *(unsigned *)data[i] = known ? 2 : 0;
            break;
        case 9: /* device ordinal */
            *(int *)data[i] = known ? 0 : -2;
            break;
        case 11: /* range start */
            *(CUdeviceptr *)data[i] = known ? 0x1000 : 0;
            break;
        case 12: /* range size */
            *(size_t *)data[i] = known ? 4096 : 0;
            break;
        default:
            break;
        }
    }
    return OK;
}

EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr ptr)
{
    if (ptr < 0x1000 || ptr >= 0x2000)
        return 500; /* not found */
    *base = 0x1000;
    *size = 4096;
    return OK;
}

/* Everything else the provider resolves exists but does nothing useful. */
#define UNSUPPORTED(name)                                                                          \
    EXPORT CUresult name(void)                                                                     \
    {                                                                                              \
        return NOT_SUPPORTED;                                                                      \
    }
UNSUPPORTED(cuDeviceGetAttribute)
UNSUPPORTED(cuDeviceGetName)
UNSUPPORTED(cuDeviceTotalMem_v2)
UNSUPPORTED(cuCtxSynchronize)
UNSUPPORTED(cuMemGetInfo_v2)
UNSUPPORTED(cuMemAlloc_v2)
UNSUPPORTED(cuMemFree_v2)
UNSUPPORTED(cuMemAllocManaged)
UNSUPPORTED(cuMemHostAlloc)
UNSUPPORTED(cuMemFreeHost)
UNSUPPORTED(cuMemHostUnregister)
UNSUPPORTED(cuMemHostGetDevicePointer_v2)
UNSUPPORTED(cuMemHostGetFlags)
UNSUPPORTED(cuMemcpyAsync)
UNSUPPORTED(cuMemsetD8Async)
UNSUPPORTED(cuStreamCreate)
UNSUPPORTED(cuStreamDestroy_v2)
UNSUPPORTED(cuStreamGetFlags)
UNSUPPORTED(cuStreamWaitEvent)
UNSUPPORTED(cuLaunchHostFunc)
UNSUPPORTED(cuStreamAddCallback)
UNSUPPORTED(cuStreamWriteValue32_v2)
UNSUPPORTED(cuStreamWriteValue64_v2)
UNSUPPORTED(cuEventQuery)
UNSUPPORTED(cuEventElapsedTime_v2)
