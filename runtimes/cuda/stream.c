/*
 * Streams and events through the CUDA provider. HIP's null stream and hipStreamPerThread have the
 * same handle values as CUDA's legacy and per-thread streams, so handles pass straight through.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cuda_driver.h"

#define EVENT_FLAGS                                                                                \
    (hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess |                         \
     hipEventReleaseToDevice | hipEventReleaseToSystem)
/* The event flags CUDA knows; hipEventRelease* are AMD cache-scope hints. */
#define CUDA_EVENT_FLAGS (hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess)

static CUstream custream(hipStream_t stream)
{
    return (CUstream)stream;
}

/* Run a driver call that needs the thread's context, mapping the result. */
#define CUDA_CALL(call)                                                                            \
    do {                                                                                           \
        hipError_t enter_err_ = hf_cuda_enter();                                                   \
        if (enter_err_ != hipSuccess)                                                              \
            return hf_rt_result(enter_err_);                                                       \
        return hf_rt_result(hf_cuda_error(call));                                                  \
    } while (0)

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    CUstream s;
    hipError_t err;

    /* hipStreamNonBlocking and CU_STREAM_NON_BLOCKING are both 1. */
    if (stream == NULL || (flags & ~(unsigned)hipStreamNonBlocking) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.StreamCreate(&s, flags));
    if (err == hipSuccess)
        *stream = (hipStream_t)s;
    return hf_rt_result(err);
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
    return hipStreamCreateWithFlags(stream, hipStreamDefault);
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
    if (stream == NULL || stream == hipStreamPerThread)
        return hf_rt_result(hipErrorInvalidHandle);
    CUDA_CALL(hf_cu.StreamDestroy(custream(stream)));
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Waits the way HIP's default scheduling does on AMD (hipDeviceScheduleAuto, with fewer contexts
 * than CPUs, yields): the stream is checked with the CPU yielded between checks, and a wait that
 * lasts past SYNC_YIELD_NS sleeps on a blocking event until the stream's work is done. Under
 * CUDA's own default cuStreamSynchronize spins a core for the whole wait: eight threads waiting
 * on stream-ordered reads took eight cores from the threads doing the reads.
 */
#define SYNC_YIELD_NS 1000000u

hipError_t hipStreamSynchronize(hipStream_t stream)
{
    CUstream s = custream(stream);
    hipError_t err = hf_cuda_enter();
    if (err != hipSuccess)
        return hf_rt_result(err);
    uint64_t start = monotonic_ns();
    for (;;) {
        CUresult rc = hf_cu.StreamQuery(s);
        if (rc != HF_CUDA_ERROR_NOT_READY)
            return hf_rt_result(hf_cuda_error(rc));
        if (monotonic_ns() - start >= SYNC_YIELD_NS)
            break;
        sched_yield();
    }
    CUevent event;
    if (hf_cu.EventCreate(&event, hipEventBlockingSync | hipEventDisableTiming) != HF_CUDA_SUCCESS)
        return hf_rt_result(hf_cuda_error(hf_cu.StreamSynchronize(s)));
    CUresult rc = hf_cu.EventRecord(event, s);
    rc = rc == HF_CUDA_SUCCESS ? hf_cu.EventSynchronize(event) : hf_cu.StreamSynchronize(s);
    hf_cu.EventDestroy(event);
    return hf_rt_result(hf_cuda_error(rc));
}

/* hipErrorNotReady is an answer, not a failure: it is not kept as the last error. */
hipError_t hipStreamQuery(hipStream_t stream)
{
    hipError_t err = hf_cuda_enter();

    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.StreamQuery(custream(stream)));
    return err == hipErrorNotReady ? err : hf_rt_result(err);
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
    if (flags == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    CUDA_CALL(hf_cu.StreamGetFlags(custream(stream), flags));
}

/*
 * A stream belongs to the context it was created in; every stream this provider creates is in a
 * device's primary context, so the context names the device.
 */
hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)
{
    CUcontext ctx = NULL;
    hipError_t err;
    int ordinal;

    if (device == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return hf_rt_result(err);
    if (stream == NULL || stream == hipStreamPerThread) {
        *device = hf_cuda_current_device();
        return hipSuccess;
    }
    if (hf_cu.StreamGetCtx == NULL)
        return hf_rt_result(hipErrorNotSupported);
    err = hf_cuda_error(hf_cu.StreamGetCtx(custream(stream), &ctx));
    if (err != hipSuccess)
        return hf_rt_result(err);
    ordinal = hf_cuda_context_device(ctx);
    if (ordinal < 0)
        return hf_rt_result(hipErrorInvalidHandle);
    *device = ordinal;
    return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    if (flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    if (event == NULL)
        return hf_rt_result(hipErrorInvalidHandle);
    CUDA_CALL(hf_cu.StreamWaitEvent(custream(stream), (CUevent)event, 0));
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)
{
    if (fn == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    CUDA_CALL(hf_cu.LaunchHostFunc(custream(stream), fn, userData));
}

/* A HIP callback wants HIP's stream handle and status; the trampoline translates both. */
struct callback_call {
    hipStreamCallback_t fn;
    void *data;
    hipStream_t stream;
};

static void callback_trampoline(CUstream stream, CUresult status, void *arg)
{
    struct callback_call call = *(struct callback_call *)arg;

    (void)stream;
    free(arg);
    call.fn(call.stream, hf_cuda_error(status), call.data);
}

hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void *userData,
                                unsigned int flags)
{
    struct callback_call *call;
    hipError_t err;

    if (callback == NULL || flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return hf_rt_result(err);
    call = malloc(sizeof(*call));
    if (call == NULL)
        return hf_rt_result(hipErrorOutOfMemory);
    *call = (struct callback_call){callback, userData, stream};
    err = hf_cuda_error(hf_cu.StreamAddCallback(custream(stream), callback_trampoline, call, 0));
    if (err != hipSuccess)
        free(call);
    return hf_rt_result(err);
}

/*
 * CUDA's wait operations have no mask. With a full mask HIP's conditions are CUDA's (the flags
 * share their numbers); And folds the mask into the value; Nor with a partial mask always holds
 * (the masked-off bits read as zero, so their complement is set). Gte and Eq with a partial mask
 * cannot be expressed and are refused.
 */
static hipError_t wait_value_flags(unsigned flags, uint64_t *value, uint64_t mask,
                                   uint64_t full_mask, bool *skip_p)
{
    *skip_p = false;
    if (flags > hipStreamWaitValueNor)
        return hipErrorInvalidValue;
    if ((mask & full_mask) == full_mask)
        return hipSuccess;
    switch (flags) {
    case hipStreamWaitValueAnd:
        *value &= mask;
        return hipSuccess;
    case hipStreamWaitValueNor:
        *skip_p = true;
        return hipSuccess;
    default:
        return hipErrorNotSupported;
    }
}

static hipError_t wait_value(hipStream_t stream, void *ptr, uint64_t value, unsigned flags,
                             uint64_t mask, int width)
{
    uint64_t full_mask = width == 4 ? UINT32_MAX : UINT64_MAX;
    hipError_t err;
    bool skip;

    if (ptr == NULL || ((uintptr_t)ptr % (uintptr_t)width) != 0)
        return hipErrorInvalidValue;
    err = wait_value_flags(flags, &value, mask, full_mask, &skip);
    if (err != hipSuccess || skip)
        return err;
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return err;
    CUdeviceptr addr = (CUdeviceptr)(uintptr_t)ptr;
    if (width == 4)
        return hf_cuda_error(
            hf_cu.StreamWaitValue32(custream(stream), addr, (uint32_t)value, flags));
    return hf_cuda_error(hf_cu.StreamWaitValue64(custream(stream), addr, value, flags));
}

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask)
{
    return hf_rt_result(wait_value(stream, ptr, value, flags, mask, 4));
}

hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags,
                                uint64_t mask)
{
    return hf_rt_result(wait_value(stream, ptr, value, flags, mask, 8));
}

/* HIP documents the write-value flags as reserved and ignored; CUDA gets its default. */
static hipError_t write_value(hipStream_t stream, void *ptr, uint64_t value, int width)
{
    hipError_t err;

    if (ptr == NULL || ((uintptr_t)ptr % (uintptr_t)width) != 0)
        return hipErrorInvalidValue;
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return err;
    CUdeviceptr addr = (CUdeviceptr)(uintptr_t)ptr;
    if (width == 4)
        return hf_cuda_error(hf_cu.StreamWriteValue32(custream(stream), addr, (uint32_t)value, 0));
    return hf_cuda_error(hf_cu.StreamWriteValue64(custream(stream), addr, value, 0));
}

hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags)
{
    (void)flags;
    return hf_rt_result(write_value(stream, ptr, value, 4));
}

hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags)
{
    (void)flags;
    return hf_rt_result(write_value(stream, ptr, value, 8));
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
    CUevent e;
    hipError_t err;

    if (event == NULL || (flags & ~(unsigned)EVENT_FLAGS) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming))
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.EventCreate(&e, flags & CUDA_EVENT_FLAGS));
    if (err == hipSuccess)
        *event = (hipEvent_t)e;
    return hf_rt_result(err);
}

hipError_t hipEventCreate(hipEvent_t *event)
{
    return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventDestroy(hipEvent_t event)
{
    if (event == NULL)
        return hf_rt_result(hipErrorInvalidHandle);
    CUDA_CALL(hf_cu.EventDestroy((CUevent)event));
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    if (event == NULL)
        return hf_rt_result(hipErrorInvalidHandle);
    CUDA_CALL(hf_cu.EventRecord((CUevent)event, custream(stream)));
}

hipError_t hipEventQuery(hipEvent_t event)
{
    hipError_t err;

    if (event == NULL)
        return hf_rt_result(hipErrorInvalidHandle);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.EventQuery((CUevent)event));
    return err == hipErrorNotReady ? err : hf_rt_result(err);
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
    if (event == NULL)
        return hf_rt_result(hipErrorInvalidHandle);
    CUDA_CALL(hf_cu.EventSynchronize((CUevent)event));
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    hipError_t err;

    if (ms == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (start == NULL || stop == NULL)
        return hf_rt_result(hipErrorInvalidHandle);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.EventElapsedTime(ms, (CUevent)start, (CUevent)stop));
    return err == hipErrorNotReady ? err : hf_rt_result(err);
}
