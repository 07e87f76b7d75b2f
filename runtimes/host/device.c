/*
 * Emulated devices of the host provider: how many there are (HIP_HOST_DEVICE_COUNT), the NUMA node
 * each says it is near (HIP_HOST_DEVICE_NUMA), the calling thread's current device, versions,
 * attributes, properties and memory accounting. Strict holds (HIP_HOST_STRICT_HOLDS) live in
 * strict.c and are read here, with the rest of the environment.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

const char hf_rt_provider_name[] = "hip-host";

#define HOST_DEVICE_NAME "hipfile host emulation"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int device_count = 1;
static int device_numa_node[HF_HOST_MAX_DEVICES];
static atomic_llong device_allocated[HF_HOST_MAX_DEVICES];
static _Thread_local int current_device;

static void device_count_read(void)
{
    const char *text = secure_getenv("HIP_HOST_DEVICE_COUNT");
    char *end;
    long n;

    if (text == NULL || text[0] == '\0')
        return;
    errno = 0;
    n = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || n < 1 || n > HF_HOST_MAX_DEVICES) {
        hf_rt_warn("HIP_HOST_DEVICE_COUNT=\"%s\" is not a number in 1..%d; emulating 1 device",
                   text, HF_HOST_MAX_DEVICES);
        return;
    }
    device_count = (int)n;
}

/*
 * HIP_HOST_DEVICE_NUMA: a comma-separated node per device, in device order ("0,0,1,1"); -1 or a
 * missing entry means the platform does not say, as on a machine without NUMA. It lets tests give
 * emulated devices the placement a multi-socket GPU server has. Nothing is taken from a malformed
 * list, so a typo never places memory on a node nobody asked for.
 */
static void device_numa_read(void)
{
    const char *text = secure_getenv("HIP_HOST_DEVICE_NUMA");
    int nodes[HF_HOST_MAX_DEVICES];
    const char *at = text;
    int count = 0;

    for (int i = 0; i < HF_HOST_MAX_DEVICES; i++)
        device_numa_node[i] = -1;
    if (text == NULL || text[0] == '\0')
        return;
    for (;;) {
        char *end;
        long node;

        errno = 0;
        node = strtol(at, &end, 10);
        if (errno != 0 || end == at || node < -1 || node > INT_MAX ||
            count == HF_HOST_MAX_DEVICES || (*end != ',' && *end != '\0')) {
            hf_rt_warn("HIP_HOST_DEVICE_NUMA=\"%s\" is not a list of up to %d node numbers "
                       "(-1 for none); no device reports a node",
                       text, HF_HOST_MAX_DEVICES);
            return;
        }
        nodes[count++] = (int)node;
        if (*end == '\0')
            break;
        at = end + 1;
    }
    for (int i = 0; i < count; i++)
        device_numa_node[i] = nodes[i];
}

static void host_init_once(void)
{
    device_count_read();
    device_numa_read();
    hf_host_strict_init();
}

void hf_host_init(void)
{
    pthread_once(&init_once, host_init_once);
}

int hf_host_device_count(void)
{
    hf_host_init();
    return device_count;
}

int hf_host_current_device(void)
{
    return current_device;
}

size_t hf_host_device_allocated(int device)
{
    long long n = atomic_load(&device_allocated[device]);

    return n > 0 ? (size_t)n : 0;
}

void hf_host_device_account(int device, long long delta)
{
    atomic_fetch_add(&device_allocated[device], delta);
}

size_t hf_host_total_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);

    if (pages <= 0 || page_size <= 0)
        return (size_t)1 << 30;
    return (size_t)pages * (size_t)page_size;
}

static size_t host_free_mem(int device)
{
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    size_t total = hf_host_total_mem();
    size_t used = hf_host_device_allocated(device);
    size_t unused = used < total ? total - used : 0;
    size_t available = (pages > 0 && page_size > 0) ? (size_t)pages * (size_t)page_size : unused;

    return available < unused ? available : unused;
}

static bool device_valid(int device)
{
    return device >= 0 && device < hf_host_device_count();
}

hipError_t hipInit(unsigned int flags)
{
    hf_host_init();
    if (flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    return hipSuccess;
}

hipError_t hipDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    *driverVersion = HIP_VERSION;
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
    if (count == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    *count = hf_host_device_count();
    return hipSuccess;
}

hipError_t hipSetDevice(int deviceId)
{
    if (!device_valid(deviceId))
        return hf_rt_result(hipErrorInvalidDevice);
    current_device = deviceId;
    return hipSuccess;
}

hipError_t hipGetDevice(int *deviceId)
{
    if (deviceId == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    *deviceId = current_device;
    return hipSuccess;
}

static int clamp_int(size_t value)
{
    return value > INT_MAX ? INT_MAX : (int)value;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n > 0 ? (int)n : 1;
}

/*
 * Device memory is system memory here, so the device reports itself as integrated (like an APU):
 * the CPU can address every kind of memory, pageable memory included.
 */
static int attribute_value(hipDeviceAttribute_t attr, int device, int *value_p)
{
    switch (attr) {
    case hipDeviceAttributeIntegrated:
    case hipDeviceAttributeCanMapHostMemory:
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem:
    case hipDeviceAttributeConcurrentKernels:
    case hipDeviceAttributeConcurrentManagedAccess:
    case hipDeviceAttributeDirectManagedMemAccessFromHost:
    case hipDeviceAttributeHostNativeAtomicSupported:
    case hipDeviceAttributeManagedMemory:
    case hipDeviceAttributePageableMemoryAccess:
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
    case hipDeviceAttributeUnifiedAddressing:
    case hipDeviceAttributeCanUseStreamWaitValue:
    case hipDeviceAttributeFineGrainSupport:
    case hipDeviceAttributeIsLargeBar:
    case hipDeviceAttributeAsyncEngineCount:
    case hipDeviceAttributeComputeCapabilityMajor:
        *value_p = 1;
        return 0;
    case hipDeviceAttributeEccEnabled:
    case hipDeviceAttributeComputeMode:
    case hipDeviceAttributeComputeCapabilityMinor:
    case hipDeviceAttributeCooperativeLaunch:
    case hipDeviceAttributeCooperativeMultiDeviceLaunch:
    case hipDeviceAttributeIsMultiGpuBoard:
    case hipDeviceAttributeKernelExecTimeout:
    case hipDeviceAttributeL2CacheSize:
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
    case hipDeviceAttributeTotalConstantMemory:
    case hipDeviceAttributeTccDriver:
    case hipDeviceAttributeMemoryPoolsSupported:
    case hipDeviceAttributePciDomainID:
    case hipDeviceAttributePciBusId:
        *value_p = 0;
        return 0;
    case hipDeviceAttributePciDeviceId:
        *value_p = device;
        return 0;
    case hipDeviceAttributeMultiprocessorCount:
        *value_p = online_cpus();
        return 0;
    case hipDeviceAttributeWarpSize:
        *value_p = 1;
        return 0;
    case hipDeviceAttributeMaxThreadsPerBlock:
    case hipDeviceAttributeMaxBlockDimX:
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
        *value_p = 1024;
        return 0;
    case hipDeviceAttributeMaxBlockDimY:
    case hipDeviceAttributeMaxBlockDimZ:
        *value_p = 1024;
        return 0;
    case hipDeviceAttributeMaxGridDimX:
    case hipDeviceAttributeMaxGridDimY:
    case hipDeviceAttributeMaxGridDimZ:
        *value_p = INT_MAX;
        return 0;
    case hipDeviceAttributeClockRate:
    case hipDeviceAttributeMemoryClockRate:
        *value_p = 1000000; /* kHz; nothing is timed against it */
        return 0;
    case hipDeviceAttributeMemoryBusWidth:
        *value_p = 64;
        return 0;
    case hipDeviceAttributeTotalGlobalMem:
        *value_p = clamp_int(hf_host_total_mem());
        return 0;
    case hipDeviceAttributeMaxPitch:
        *value_p = INT_MAX;
        return 0;
    case hipDeviceAttributeTextureAlignment:
    case hipDeviceAttributeTexturePitchAlignment:
        *value_p = 256;
        return 0;
    default:
        return -EINVAL;
    }
}

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
    int value;

    if (pi == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (!device_valid(deviceId))
        return hf_rt_result(hipErrorInvalidDevice);
    /* Outside the HIP 5.2 enumeration, so not a case of attribute_value's switch. */
    if (attr == HF_RT_ATTRIBUTE_HOST_NUMA_ID) {
        *pi = device_numa_node[deviceId];
        return hipSuccess;
    }
    if (attribute_value(attr, deviceId, &value) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    *pi = value;
    return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId)
{
    if (prop == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (!device_valid(deviceId))
        return hf_rt_result(hipErrorInvalidDevice);

    memset(prop, 0, sizeof(*prop));
    strncpy(prop->name, HOST_DEVICE_NAME, sizeof(prop->name) - 1);
    strncpy(prop->gcnArchName, "host", sizeof(prop->gcnArchName) - 1);
    prop->totalGlobalMem = hf_host_total_mem();
    prop->warpSize = 1;
    prop->maxThreadsPerBlock = 1024;
    for (int i = 0; i < 3; i++) {
        prop->maxThreadsDim[i] = 1024;
        prop->maxGridSize[i] = INT_MAX;
    }
    prop->clockRate = 1000000;
    prop->memoryClockRate = 1000000;
    prop->memoryBusWidth = 64;
    prop->major = 1;
    prop->minor = 0;
    prop->multiProcessorCount = online_cpus();
    prop->maxThreadsPerMultiProcessor = 1024;
    prop->concurrentKernels = 1;
    prop->pciDeviceID = deviceId;
    prop->canMapHostMemory = 1;
    prop->integrated = 1;
    prop->memPitch = INT_MAX;
    prop->textureAlignment = 256;
    prop->texturePitchAlignment = 256;
    prop->isLargeBar = 1;
    prop->managedMemory = 1;
    prop->directManagedMemAccessFromHost = 1;
    prop->concurrentManagedAccess = 1;
    prop->pageableMemoryAccess = 1;
    prop->pageableMemoryAccessUsesHostPageTables = 1;
    return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
    if (name == NULL || len <= 0)
        return hf_rt_result(hipErrorInvalidValue);
    if (!device_valid(device))
        return hf_rt_result(hipErrorInvalidDevice);
    strncpy(name, HOST_DEVICE_NAME, (size_t)len - 1);
    name[len - 1] = '\0';
    return hipSuccess;
}

hipError_t hipMemGetInfo(size_t *free, size_t *total)
{
    if (free == NULL || total == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    *free = host_free_mem(current_device);
    *total = hf_host_total_mem();
    return hipSuccess;
}
