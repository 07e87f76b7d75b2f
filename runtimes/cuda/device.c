/*
 * Devices through the CUDA provider: initialisation, versions, device selection (per thread, as
 * in HIP), attributes and properties translated from CUDA's attribute numbering, memory info.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cuda_driver.h"

/* hipDeviceAttribute_t -> CUdevice_attribute, for the attributes CUDA has. */
struct attribute_map {
    hipDeviceAttribute_t hip;
    int cuda;
};

static const struct attribute_map attribute_maps[] = {
    {hipDeviceAttributeEccEnabled, 32},
    {hipDeviceAttributeAccessPolicyMaxWindowSize, 109},
    {hipDeviceAttributeAsyncEngineCount, 40},
    {hipDeviceAttributeCanMapHostMemory, 19},
    {hipDeviceAttributeCanUseHostPointerForRegisteredMem, 91},
    {hipDeviceAttributeClockRate, 13},
    {hipDeviceAttributeComputeMode, 20},
    {hipDeviceAttributeComputePreemptionSupported, 90},
    {hipDeviceAttributeConcurrentKernels, 31},
    {hipDeviceAttributeConcurrentManagedAccess, 89},
    {hipDeviceAttributeCooperativeLaunch, 95},
    {hipDeviceAttributeCooperativeMultiDeviceLaunch, 96},
    {hipDeviceAttributeDeviceOverlap, 15},
    {hipDeviceAttributeDirectManagedMemAccessFromHost, 101},
    {hipDeviceAttributeGlobalL1CacheSupported, 79},
    {hipDeviceAttributeHostNativeAtomicSupported, 86},
    {hipDeviceAttributeIntegrated, 18},
    {hipDeviceAttributeIsMultiGpuBoard, 84},
    {hipDeviceAttributeKernelExecTimeout, 17},
    {hipDeviceAttributeL2CacheSize, 38},
    {hipDeviceAttributeLocalL1CacheSupported, 80},
    {hipDeviceAttributeComputeCapabilityMajor, 75},
    {hipDeviceAttributeManagedMemory, 83},
    {hipDeviceAttributeMaxBlocksPerMultiProcessor, 106},
    {hipDeviceAttributeMaxBlockDimX, 2},
    {hipDeviceAttributeMaxBlockDimY, 3},
    {hipDeviceAttributeMaxBlockDimZ, 4},
    {hipDeviceAttributeMaxGridDimX, 5},
    {hipDeviceAttributeMaxGridDimY, 6},
    {hipDeviceAttributeMaxGridDimZ, 7},
    {hipDeviceAttributeMaxThreadsPerBlock, 1},
    {hipDeviceAttributeMaxThreadsPerMultiProcessor, 39},
    {hipDeviceAttributeMaxPitch, 11},
    {hipDeviceAttributeMemoryBusWidth, 37},
    {hipDeviceAttributeMemoryClockRate, 36},
    {hipDeviceAttributeComputeCapabilityMinor, 76},
    {hipDeviceAttributeMultiGpuBoardGroupID, 85},
    {hipDeviceAttributeMultiprocessorCount, 16},
    {hipDeviceAttributePageableMemoryAccess, 88},
    {hipDeviceAttributePageableMemoryAccessUsesHostPageTables, 100},
    {hipDeviceAttributePciBusId, 33},
    {hipDeviceAttributePciDeviceId, 34},
    {hipDeviceAttributePciDomainID, 50},
    {hipDeviceAttributePersistingL2CacheMaxSize, 108},
    {hipDeviceAttributeMaxRegistersPerBlock, 12},
    {hipDeviceAttributeMaxRegistersPerMultiprocessor, 82},
    {hipDeviceAttributeReservedSharedMemPerBlock, 111},
    {hipDeviceAttributeMaxSharedMemoryPerBlock, 8},
    {hipDeviceAttributeSharedMemPerBlockOptin, 97},
    {hipDeviceAttributeSharedMemPerMultiprocessor, 81},
    {hipDeviceAttributeSingleToDoublePrecisionPerfRatio, 87},
    {hipDeviceAttributeStreamPrioritiesSupported, 78},
    {hipDeviceAttributeSurfaceAlignment, 30},
    {hipDeviceAttributeTccDriver, 35},
    {hipDeviceAttributeTextureAlignment, 14},
    {hipDeviceAttributeTexturePitchAlignment, 51},
    {hipDeviceAttributeTotalConstantMemory, 9},
    {hipDeviceAttributeUnifiedAddressing, 41},
    {hipDeviceAttributeWarpSize, 10},
    {hipDeviceAttributeMemoryPoolsSupported, 115},
    {hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, 81},
};

static bool device_valid(int device)
{
    return device >= 0 && device < hf_cuda_device_count();
}

/* Checks that apply to every per-device query: a driver, then a valid ordinal. */
static hipError_t device_check(int device)
{
    hipError_t err = hf_cuda_init();

    if (err != hipSuccess)
        return err;
    return device_valid(device) ? hipSuccess : hipErrorInvalidDevice;
}

static hipError_t cuda_attribute(int cuda_attr, int device, int *value_p)
{
    CUdevice dev;
    CUresult rc = hf_cu.DeviceGet(&dev, device);

    if (rc == HF_CUDA_SUCCESS)
        rc = hf_cu.DeviceGetAttribute(value_p, cuda_attr, dev);
    return hf_cuda_error(rc);
}

static hipError_t total_mem(int device, size_t *bytes_p)
{
    CUdevice dev;
    CUresult rc = hf_cu.DeviceGet(&dev, device);

    if (rc == HF_CUDA_SUCCESS)
        rc = hf_cu.DeviceTotalMem(bytes_p, dev);
    return hf_cuda_error(rc);
}

hipError_t hipInit(unsigned int flags)
{
    if (flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    return hf_rt_result(hf_cuda_init());
}

/* The CUDA driver's own version, as HIP reports it on NVIDIA; 0 with no driver, like CUDA. */
hipError_t hipDriverGetVersion(int *driverVersion)
{
    int version = 0;

    if (driverVersion == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (hf_cuda_init() == hipSuccess && hf_cu.DriverGetVersion(&version) != HF_CUDA_SUCCESS)
        version = 0;
    *driverVersion = version;
    return hipSuccess;
}

hipError_t hipRuntimeGetVersion(int *runtimeVersion)
{
    if (runtimeVersion == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    *runtimeVersion = HIP_VERSION;
    return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count)
{
    hipError_t err;

    if (count == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_init();
    *count = err == hipSuccess ? hf_cuda_device_count() : 0;
    return hf_rt_result(err);
}

hipError_t hipSetDevice(int deviceId)
{
    hipError_t err = device_check(deviceId);

    if (err != hipSuccess)
        return hf_rt_result(err);
    return hf_rt_result(hf_cuda_select(deviceId));
}

hipError_t hipGetDevice(int *deviceId)
{
    hipError_t err;

    if (deviceId == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_init();
    if (err != hipSuccess)
        return hf_rt_result(err);
    *deviceId = hf_cuda_current_device();
    return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
    hipError_t err;
    size_t bytes;

    if (pi == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = device_check(deviceId);
    if (err != hipSuccess)
        return hf_rt_result(err);

    if (attr == hipDeviceAttributeTotalGlobalMem) {
        err = total_mem(deviceId, &bytes);
        if (err == hipSuccess)
            *pi = bytes > INT_MAX ? INT_MAX : (int)bytes;
        return hf_rt_result(err);
    }
    /* CUDA 12.2 and later answer it; the core asks sysfs about older drivers' devices. */
    if (attr == HF_RT_ATTRIBUTE_HOST_NUMA_ID)
        return hf_rt_result(cuda_attribute(HF_CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, deviceId, pi));
    if (attr == hipDeviceAttributeCanUseStreamWaitValue) {
        if (hf_cu.stream_memops_v2) {
            *pi = 1;
            return hipSuccess;
        }
        return hf_rt_result(
            cuda_attribute(HF_CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, deviceId, pi));
    }
    for (size_t i = 0; i < sizeof(attribute_maps) / sizeof(attribute_maps[0]); i++) {
        if (attribute_maps[i].hip == attr)
            return hf_rt_result(cuda_attribute(attribute_maps[i].cuda, deviceId, pi));
    }
    return hf_rt_result(hipErrorInvalidValue);
}

/* Attributes newer drivers dropped (clock rates in CUDA 13) leave their field at 0. */
static int prop_attribute(hipDeviceAttribute_t attr, int device)
{
    int value = 0;

    for (size_t i = 0; i < sizeof(attribute_maps) / sizeof(attribute_maps[0]); i++) {
        if (attribute_maps[i].hip == attr) {
            if (cuda_attribute(attribute_maps[i].cuda, device, &value) != hipSuccess)
                value = 0;
            break;
        }
    }
    return value;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId)
{
    hipError_t err;
    CUdevice dev;
    int d = deviceId;

    if (prop == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = device_check(deviceId);
    if (err != hipSuccess)
        return hf_rt_result(err);

    memset(prop, 0, sizeof(*prop));
    err = hf_cuda_error(hf_cu.DeviceGet(&dev, deviceId));
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.DeviceGetName(prop->name, (int)sizeof(prop->name) - 1, dev));
    if (err == hipSuccess)
        err = total_mem(deviceId, &prop->totalGlobalMem);
    if (err != hipSuccess)
        return hf_rt_result(err);

    prop->sharedMemPerBlock = (size_t)prop_attribute(hipDeviceAttributeMaxSharedMemoryPerBlock, d);
    prop->regsPerBlock = prop_attribute(hipDeviceAttributeMaxRegistersPerBlock, d);
    prop->warpSize = prop_attribute(hipDeviceAttributeWarpSize, d);
    prop->maxThreadsPerBlock = prop_attribute(hipDeviceAttributeMaxThreadsPerBlock, d);
    prop->maxThreadsDim[0] = prop_attribute(hipDeviceAttributeMaxBlockDimX, d);
    prop->maxThreadsDim[1] = prop_attribute(hipDeviceAttributeMaxBlockDimY, d);
    prop->maxThreadsDim[2] = prop_attribute(hipDeviceAttributeMaxBlockDimZ, d);
    prop->maxGridSize[0] = prop_attribute(hipDeviceAttributeMaxGridDimX, d);
    prop->maxGridSize[1] = prop_attribute(hipDeviceAttributeMaxGridDimY, d);
    prop->maxGridSize[2] = prop_attribute(hipDeviceAttributeMaxGridDimZ, d);
    prop->clockRate = prop_attribute(hipDeviceAttributeClockRate, d);
    prop->memoryClockRate = prop_attribute(hipDeviceAttributeMemoryClockRate, d);
    prop->memoryBusWidth = prop_attribute(hipDeviceAttributeMemoryBusWidth, d);
    prop->totalConstMem = (size_t)prop_attribute(hipDeviceAttributeTotalConstantMemory, d);
    prop->major = prop_attribute(hipDeviceAttributeComputeCapabilityMajor, d);
    prop->minor = prop_attribute(hipDeviceAttributeComputeCapabilityMinor, d);
    prop->multiProcessorCount = prop_attribute(hipDeviceAttributeMultiprocessorCount, d);
    prop->l2CacheSize = prop_attribute(hipDeviceAttributeL2CacheSize, d);
    prop->maxThreadsPerMultiProcessor =
        prop_attribute(hipDeviceAttributeMaxThreadsPerMultiProcessor, d);
    prop->computeMode = prop_attribute(hipDeviceAttributeComputeMode, d);
    prop->concurrentKernels = prop_attribute(hipDeviceAttributeConcurrentKernels, d);
    prop->pciDomainID = prop_attribute(hipDeviceAttributePciDomainID, d);
    prop->pciBusID = prop_attribute(hipDeviceAttributePciBusId, d);
    prop->pciDeviceID = prop_attribute(hipDeviceAttributePciDeviceId, d);
    prop->maxSharedMemoryPerMultiProcessor =
        (size_t)prop_attribute(hipDeviceAttributeSharedMemPerMultiprocessor, d);
    prop->isMultiGpuBoard = prop_attribute(hipDeviceAttributeIsMultiGpuBoard, d);
    prop->canMapHostMemory = prop_attribute(hipDeviceAttributeCanMapHostMemory, d);
    prop->integrated = prop_attribute(hipDeviceAttributeIntegrated, d);
    prop->cooperativeLaunch = prop_attribute(hipDeviceAttributeCooperativeLaunch, d);
    prop->cooperativeMultiDeviceLaunch =
        prop_attribute(hipDeviceAttributeCooperativeMultiDeviceLaunch, d);
    prop->memPitch = (size_t)prop_attribute(hipDeviceAttributeMaxPitch, d);
    prop->textureAlignment = (size_t)prop_attribute(hipDeviceAttributeTextureAlignment, d);
    prop->texturePitchAlignment =
        (size_t)prop_attribute(hipDeviceAttributeTexturePitchAlignment, d);
    prop->kernelExecTimeoutEnabled = prop_attribute(hipDeviceAttributeKernelExecTimeout, d);
    prop->ECCEnabled = prop_attribute(hipDeviceAttributeEccEnabled, d);
    prop->tccDriver = prop_attribute(hipDeviceAttributeTccDriver, d);
    prop->managedMemory = prop_attribute(hipDeviceAttributeManagedMemory, d);
    prop->directManagedMemAccessFromHost =
        prop_attribute(hipDeviceAttributeDirectManagedMemAccessFromHost, d);
    prop->concurrentManagedAccess = prop_attribute(hipDeviceAttributeConcurrentManagedAccess, d);
    prop->pageableMemoryAccess = prop_attribute(hipDeviceAttributePageableMemoryAccess, d);
    prop->pageableMemoryAccessUsesHostPageTables =
        prop_attribute(hipDeviceAttributePageableMemoryAccessUsesHostPageTables, d);
    snprintf(prop->gcnArchName, sizeof(prop->gcnArchName), "sm_%d%d", prop->major, prop->minor);
    return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
    hipError_t err;
    CUdevice dev;

    if (name == NULL || len <= 0)
        return hf_rt_result(hipErrorInvalidValue);
    err = device_check(device);
    if (err != hipSuccess)
        return hf_rt_result(err);
    err = hf_cuda_error(hf_cu.DeviceGet(&dev, device));
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.DeviceGetName(name, len, dev));
    return hf_rt_result(err);
}

hipError_t hipMemGetInfo(size_t *free, size_t *total)
{
    hipError_t err;

    if (free == NULL || total == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemGetInfo(free, total));
    return hf_rt_result(err);
}

hipError_t hipDeviceSynchronize(void)
{
    hipError_t err = hf_cuda_enter();

    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.CtxSynchronize());
    return hf_rt_result(err);
}
