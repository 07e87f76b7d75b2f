/*
 * Error reporting shared by the HIP runtime providers: names and descriptions of hipError_t
 * values, and the per-thread last error behind hipGetLastError/hipPeekAtLastError.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "hip_provider.h"

struct error_text {
    hipError_t code;
    const char *name;
    const char *text;
};

static const struct error_text error_texts[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "an argument is invalid or out of range"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "the runtime could not be initialized"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "the runtime is shutting down"},
    {hipErrorProfilerDisabled, "hipErrorProfilerDisabled", "the profiler is disabled"},
    {hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized",
     "the profiler is not initialized"},
    {hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted",
     "the profiler is already running"},
    {hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped",
     "the profiler is already stopped"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid launch configuration"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection",
     "invalid copy direction (hipMemcpyKind)"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver",
     "the installed driver is older than the runtime needs"},
    {hipErrorMissingConfiguration, "hipErrorMissingConfiguration", "missing launch configuration"},
    {hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure", "an earlier launch failed"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction", "invalid device function"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no GPU device is available"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "invalid code object"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid or missing device context"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent",
     "the context is already current"},
    {hipErrorMapFailed, "hipErrorMapFailed", "mapping memory failed"},
    {hipErrorUnmapFailed, "hipErrorUnmapFailed", "unmapping memory failed"},
    {hipErrorArrayIsMapped, "hipErrorArrayIsMapped", "the array is mapped"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped", "the resource is already mapped"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no code object for this GPU"},
    {hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired", "the resource is already acquired"},
    {hipErrorNotMapped, "hipErrorNotMapped", "the resource is not mapped"},
    {hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray", "the resource is not mapped as array"},
    {hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer",
     "the resource is not mapped as pointer"},
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable", "uncorrectable ECC error"},
    {hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit", "unsupported limit"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse",
     "the context is in use by another thread"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported",
     "peer access is not supported between these devices"},
    {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile", "invalid kernel file"},
    {hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext", "invalid graphics context"},
    {hipErrorInvalidSource, "hipErrorInvalidSource", "invalid source"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound",
     "a shared object symbol was not found"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed",
     "a shared object failed to initialize"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem", "an operating system call failed"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid stream or event handle"},
    {hipErrorIllegalState, "hipErrorIllegalState",
     "the resource is not in a state that allows this operation"},
    {hipErrorNotFound, "hipErrorNotFound", "not found"},
    {hipErrorNotReady, "hipErrorNotReady", "the queued work has not completed yet"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory address was accessed"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut", "the launch timed out"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled",
     "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access is not enabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess",
     "cannot change this setting once the runtime is active"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "the context was destroyed"},
    {hipErrorAssert, "hipErrorAssert", "a device-side assertion failed"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered",
     "part of the range is already registered"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered",
     "the pointer is not the start of a registered range"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "the launch failed"},
    {hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge",
     "too many blocks for a cooperative launch"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported",
     "operation not allowed while the stream is capturing"},
    {hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated",
     "the stream capture was invalidated"},
    {hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge",
     "the operation would merge two captures"},
    {hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched",
     "the capture was not started on this stream"},
    {hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined",
     "the capture forked without joining"},
    {hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation",
     "the dependency would cross a capture boundary"},
    {hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit",
     "implicit dependency on a capturing stream"},
    {hipErrorCapturedEvent, "hipErrorCapturedEvent",
     "operation not allowed on an event recorded in a capture"},
    {hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread",
     "the capture was started by another thread"},
    {hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure",
     "the graph update was not allowed"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory", "a runtime memory call failed"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther", "a runtime call failed"},
};

/* Sticky until hipGetLastError reads it: a later success does not hide an earlier failure. */
static _Thread_local hipError_t last_error = hipSuccess;

static const struct error_text *error_text_find(hipError_t code)
{
    for (size_t i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++) {
        if (error_texts[i].code == code)
            return &error_texts[i];
    }
    return NULL;
}

hipError_t hf_rt_result(hipError_t err)
{
    if (err != hipSuccess)
        last_error = err;
    return err;
}

void hf_rt_warn(const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", hf_rt_provider_name, line);
}

const char *hipGetErrorName(hipError_t hip_error)
{
    const struct error_text *t = error_text_find(hip_error);

    return t ? t->name : "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t hipError)
{
    const struct error_text *t = error_text_find(hipError);

    return t ? t->text : "unknown error";
}

hipError_t hipGetLastError(void)
{
    hipError_t err = last_error;

    last_error = hipSuccess;
    return err;
}

hipError_t hipPeekAtLastError(void)
{
    return last_error;
}
