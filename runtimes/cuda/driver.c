/*
 * The CUDA provider's link to the driver: opens libcuda.so.1 with dlopen at first use, resolves
 * the entry points by their versioned names, keeps each device's primary context current on the
 * threads that call in, and translates CUresult into hipError_t.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "cuda_driver.h"

const char hf_rt_provider_name[] = "hip-cuda";

/* The driver's soname; HIP_CUDA_DRIVER names another (a compat library, or a test double). */
#define CUDA_DRIVER_SONAME "libcuda.so.1"
#define HF_CUDA_MAX_DEVICES 64

struct hf_cuda_api hf_cu;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static hipError_t init_status = hipErrorNotInitialized;
static int device_count;

static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary_contexts[HF_CUDA_MAX_DEVICES];

static _Thread_local int current_device;
/* The device whose primary context this thread last made current; -1 before the first. */
static _Thread_local int bound_device = -1;

struct symbol {
    const char *name;     /* versioned name first */
    const char *fallback; /* older name with the same signature, or NULL */
    void **slot;
};

#define SYM(field, name)                                                                           \
    {                                                                                              \
        name, NULL, (void **)&hf_cu.field                                                          \
    }
#define SYM_OR(field, name, older)                                                                 \
    {                                                                                              \
        name, older, (void **)&hf_cu.field                                                         \
    }

static const struct symbol symbols[] = {
    SYM(Init, "cuInit"),
    SYM(DriverGetVersion, "cuDriverGetVersion"),
    SYM(DeviceGetCount, "cuDeviceGetCount"),
    SYM(DeviceGet, "cuDeviceGet"),
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
    SYM(DeviceGetName, "cuDeviceGetName"),
    SYM(DeviceTotalMem, "cuDeviceTotalMem_v2"),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(CtxSetCurrent, "cuCtxSetCurrent"),
    SYM(CtxSynchronize, "cuCtxSynchronize"),
    SYM(MemGetInfo, "cuMemGetInfo_v2"),
    SYM(MemAlloc, "cuMemAlloc_v2"),
    SYM(MemFree, "cuMemFree_v2"),
    SYM(MemAllocManaged, "cuMemAllocManaged"),
    SYM(MemHostAlloc, "cuMemHostAlloc"),
    SYM(MemFreeHost, "cuMemFreeHost"),
    SYM(MemHostRegister, "cuMemHostRegister_v2"),
    SYM(MemHostUnregister, "cuMemHostUnregister"),
    SYM(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
    SYM(MemHostGetFlags, "cuMemHostGetFlags"),
    SYM(PointerGetAttributes, "cuPointerGetAttributes"),
    SYM(MemGetAddressRange, "cuMemGetAddressRange_v2"),
    SYM(MemcpyAsync, "cuMemcpyAsync"),
    SYM(MemsetD8Async, "cuMemsetD8Async"),
    SYM(StreamCreate, "cuStreamCreate"),
    SYM(StreamDestroy, "cuStreamDestroy_v2"),
    SYM(StreamSynchronize, "cuStreamSynchronize"),
    SYM(StreamQuery, "cuStreamQuery"),
    SYM(StreamGetFlags, "cuStreamGetFlags"),
    SYM(StreamWaitEvent, "cuStreamWaitEvent"),
    SYM(LaunchHostFunc, "cuLaunchHostFunc"),
    SYM(StreamAddCallback, "cuStreamAddCallback"),
    /* CUDA 11.7 added the _v2 stream memory operations, usable without the opt-in the old
     * ones need; the old ones keep working where the driver enables them. */
    SYM_OR(StreamWaitValue32, "cuStreamWaitValue32_v2", "cuStreamWaitValue32"),
    SYM_OR(StreamWaitValue64, "cuStreamWaitValue64_v2", "cuStreamWaitValue64"),
    SYM_OR(StreamWriteValue32, "cuStreamWriteValue32_v2", "cuStreamWriteValue32"),
    SYM_OR(StreamWriteValue64, "cuStreamWriteValue64_v2", "cuStreamWriteValue64"),
    SYM(EventCreate, "cuEventCreate"),
    SYM(EventRecord, "cuEventRecord"),
    SYM(EventQuery, "cuEventQuery"),
    SYM(EventSynchronize, "cuEventSynchronize"),
    SYM_OR(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    SYM(EventDestroy, "cuEventDestroy_v2"),
};

static int symbols_resolve(void *lib)
{
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
        const struct symbol *s = &symbols[i];
        void *fn = dlsym(lib, s->name);

        if (fn == NULL && s->fallback != NULL)
            fn = dlsym(lib, s->fallback);
        if (fn == NULL)
            return -1;
        *s->slot = fn;
    }
    hf_cu.stream_memops_v2 = dlsym(lib, "cuStreamWaitValue32_v2") != NULL;
    /* Only hipStreamGetDevice needs it; a driver without it answers that one call with an error. */
    *(void **)&hf_cu.StreamGetCtx = dlsym(lib, "cuStreamGetCtx");
    return 0;
}

static void cuda_init_once(void)
{
    const char *name = secure_getenv("HIP_CUDA_DRIVER");
    void *lib;
    CUresult rc;
    int count = 0;

    if (name == NULL || name[0] == '\0')
        name = CUDA_DRIVER_SONAME;
    /* No driver library means no NVIDIA GPU here: the normal case on other machines. */
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        init_status = hipErrorNoDevice;
        return;
    }
    if (symbols_resolve(lib) != 0) {
        init_status = hipErrorNotInitialized;
        goto close_lib;
    }
    rc = hf_cu.Init(0);
    if (rc == HF_CUDA_SUCCESS)
        rc = hf_cu.DeviceGetCount(&count);
    if (rc != HF_CUDA_SUCCESS) {
        init_status = hf_cuda_error(rc);
        goto close_lib;
    }
    if (count <= 0) {
        init_status = hipErrorNoDevice;
        goto close_lib;
    }
    device_count = count < HF_CUDA_MAX_DEVICES ? count : HF_CUDA_MAX_DEVICES;
    init_status = hipSuccess;
    return;

close_lib:
    /* Nothing of the library stays referenced once it failed, so it can go. */
    dlclose(lib);
}

hipError_t hf_cuda_init(void)
{
    pthread_once(&init_once, cuda_init_once);
    return init_status;
}

int hf_cuda_device_count(void)
{
    return hf_cuda_init() == hipSuccess ? device_count : 0;
}

int hf_cuda_current_device(void)
{
    return current_device;
}

static hipError_t context_bind(int device)
{
    CUcontext ctx;
    CUresult rc;

    pthread_mutex_lock(&context_lock);
    ctx = primary_contexts[device];
    if (ctx == NULL) {
        CUdevice dev;

        rc = hf_cu.DeviceGet(&dev, device);
        if (rc == HF_CUDA_SUCCESS)
            rc = hf_cu.DevicePrimaryCtxRetain(&ctx, dev);
        if (rc != HF_CUDA_SUCCESS) {
            pthread_mutex_unlock(&context_lock);
            return hf_cuda_error(rc);
        }
        /* Retained for the life of the process: nothing GPU-related runs at exit. */
        primary_contexts[device] = ctx;
    }
    pthread_mutex_unlock(&context_lock);

    rc = hf_cu.CtxSetCurrent(ctx);
    if (rc != HF_CUDA_SUCCESS)
        return hf_cuda_error(rc);
    bound_device = device;
    return hipSuccess;
}

hipError_t hf_cuda_enter(void)
{
    hipError_t err = hf_cuda_init();

    if (err != hipSuccess)
        return err;
    if (bound_device == current_device)
        return hipSuccess;
    return context_bind(current_device);
}

hipError_t hf_cuda_select(int device)
{
    hipError_t err = context_bind(device);

    if (err == hipSuccess)
        current_device = device;
    return err;
}

int hf_cuda_context_device(CUcontext ctx)
{
    int device = -1;

    pthread_mutex_lock(&context_lock);
    for (int i = 0; i < device_count && ctx != NULL; i++) {
        if (primary_contexts[i] == ctx) {
            device = i;
            break;
        }
    }
    pthread_mutex_unlock(&context_lock);
    return device;
}

hipError_t hf_cuda_error(CUresult rc)
{
    switch (rc) {
    case HF_CUDA_SUCCESS:
        return hipSuccess;
    case HF_CUDA_ERROR_STUB_LIBRARY:
    case HF_CUDA_ERROR_DEVICE_UNAVAILABLE:
    case HF_CUDA_ERROR_NO_DEVICE:
    case HF_CUDA_ERROR_DEVICE_NOT_LICENSED:
        return hipErrorNoDevice;
    case HF_CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case HF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case HF_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        return hipErrorInsufficientDriver;
    case HF_CUDA_ERROR_SYSTEM_NOT_READY:
        return hipErrorNotInitialized;
    case HF_CUDA_ERROR_NOT_PERMITTED:
        return hipErrorNotSupported;
    default:
        break;
    }
    /* HIP numbers these errors as the CUDA driver does. */
    if ((rc >= 1 && rc <= 8) || rc == 101 || (rc >= 200 && rc <= 219) || (rc >= 300 && rc <= 304) ||
        rc == 400 || rc == 401 || rc == 500 || rc == 600 || (rc >= 700 && rc <= 702) || rc == 704 ||
        rc == 705 || (rc >= 708 && rc <= 710) || rc == 712 || rc == 713 || rc == 719 || rc == 720 ||
        rc == 801 || (rc >= 900 && rc <= 908) || rc == 910 || rc == 999)
        return (hipError_t)rc;
    if (rc >= 714 && rc <= 718)
        return hipErrorLaunchFailure;
    return hipErrorUnknown;
}
