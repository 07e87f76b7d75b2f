/*
 * The bound GPU runtime: what the binding resolved, published with the struct hf_gpu_ops calls the
 * backends make through it, which translate pointer attributes, memory types and attribute numbers
 * from the running runtime's ABI and leave no error of their own for the application to find.
 */
#include "services/gpu_runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

/* Values that every HIP release shares (hip_runtime_api.h, driver_types.h). */
#define HIP_SUCCESS 0
#define HIP_ERROR_INVALID_VALUE 1
#define HIP_MEMCPY_DEFAULT 4
#define HIP_STREAM_NON_BLOCKING 0x01u
#define HIP_STREAM_PER_THREAD ((void *)2)
#define HIP_HOST_MALLOC_DEFAULT 0x0u
#define HIP_ERROR_NOT_SUPPORTED 801
#define HIP_GET_PROC_ADDRESS_DEFAULT 0x0u
#define HIP_HOST_REGISTER_PORTABLE 0x1u
/*
 * hipHostRegisterReadOnly (cudaHostRegisterReadOnly on NVIDIA). HIP 5.2 names 0x8
 * hipExtHostRegisterCoarseGrained instead and later releases say AMD GPUs ignore read-only: either
 * way the runtime pins what it can, and a runtime that wants write access to a read-only mapping
 * refuses, which its caller takes as "not this memory".
 */
#define HIP_HOST_REGISTER_READ_ONLY 0x8u
/* hipDeviceAttributePciBusId, PciDeviceId and PciDomainID, alike in HIP 5.2 and ROCm 6/7. */
#define HIP_ATTRIBUTE_PCI_BUS_ID 67
#define HIP_ATTRIBUTE_PCI_DEVICE_ID 68
#define HIP_ATTRIBUTE_PCI_DOMAIN_ID 69

/*
 * hipDeviceAttribute_t numbers of the attributes backends may ask for. HIP 5.2 and every ROCm 6/7
 * header number them alike (entries that went away became placeholders, never gaps), so one table
 * serves every runtime version; the CUDA provider maps them to CUDA's own attributes.
 */
static const int hip_attribute_numbers[] = {
    /* hipDeviceAttributeIntegrated */
    [HF_GPU_ATTR_INTEGRATED] = 16,
    /* hipDeviceAttributeHostNativeAtomicSupported */
    [HF_GPU_ATTR_HOST_NATIVE_ATOMICS] = 15,
    /* hipDeviceAttributePageableMemoryAccess */
    [HF_GPU_ATTR_PAGEABLE_MEMORY_ACCESS] = 65,
    /* hipDeviceAttributePageableMemoryAccessUsesHostPageTables */
    [HF_GPU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES] = 66,
    /* hipDeviceAttributeHostNumaId (ROCm 7; CUDA's HOST_NUMA_ID in our CUDA provider). Runtimes
     * that predate it refuse it, and the node then comes from the PCI bus (gpu_host_numa_node). */
    [HF_GPU_ATTR_HOST_NUMA_NODE] = 92,
};

/* hipMemoryType before ROCm 6.0. */
enum { HIP5_MEM_HOST = 0, HIP5_MEM_DEVICE = 1, HIP5_MEM_ARRAY = 2, HIP5_MEM_UNIFIED = 3 };
/* hipMemoryType from ROCm 6.0 on. */
enum {
    HIP6_MEM_UNREGISTERED = 0,
    HIP6_MEM_HOST = 1,
    HIP6_MEM_DEVICE = 2,
    HIP6_MEM_MANAGED = 3,
    HIP6_MEM_ARRAY = 10,
    HIP6_MEM_UNIFIED = 11,
};

/*
 * hipPointerAttribute_t as every HIP release lays it out; 6.0 renamed the first field (memoryType
 * to type) without moving anything. The call writes into a larger zeroed buffer so that a future
 * runtime with a longer struct cannot write past our stack object.
 */
struct hip_pointer_attributes {
    int type;
    int device;
    void *device_pointer;
    void *host_pointer;
    int is_managed;
    unsigned allocation_flags;
};
union hip_pointer_attributes_room {
    struct hip_pointer_attributes attributes;
    unsigned char room[256];
};

static struct hf_gpu_runtime bound_runtime;
static struct hf_gpu_ops bound_ops;
static char bound_name[HF_GPU_NAME_SIZE];
static _Atomic(const struct hf_gpu_ops *) bound_ops_p;

const char *hf_gpu_runtime_error_name(const struct hf_gpu_runtime *rt, int err)
{
    const char *text = rt->get_error_string != NULL ? rt->get_error_string(err) : NULL;
    return text != NULL ? text : "unknown error";
}

/*
 * The runtime keeps a last error per thread, which the application reads with hipGetLastError, and
 * these calls run on the application's threads. The ones that find things out (is this memory the
 * runtime's, does it export that function, does the device have that attribute, can this memory
 * be page-locked) fail as a matter of course, and must not leave their failure for the application
 * to find: when no error was pending before such a call, none is after it.
 */
static int last_error_pending(void)
{
    return bound_runtime.peek_at_last_error != NULL ? bound_runtime.peek_at_last_error()
                                                    : HIP_SUCCESS;
}

static int last_error_forget(int err, int pending)
{
    if (err != HIP_SUCCESS && pending == HIP_SUCCESS && bound_runtime.get_last_error != NULL)
        (void)bound_runtime.get_last_error();
    return err;
}

/* Translate a hipMemoryType of the running ABI; -1 for a value that ABI does not define. */
static int mem_type_normalise(bool memtype_v6, int type)
{
    if (memtype_v6) {
        switch (type) {
        case HIP6_MEM_UNREGISTERED:
            return HF_MEM_UNKNOWN;
        case HIP6_MEM_HOST:
            return HF_MEM_HOST_PINNED;
        case HIP6_MEM_DEVICE:
            return HF_MEM_DEVICE;
        case HIP6_MEM_MANAGED:
        case HIP6_MEM_UNIFIED:
            return HF_MEM_MANAGED;
        case HIP6_MEM_ARRAY:
            return HF_MEM_ARRAY;
        default:
            return -1;
        }
    }
    switch (type) {
    case HIP5_MEM_HOST:
        return HF_MEM_HOST_PINNED;
    case HIP5_MEM_DEVICE:
        return HF_MEM_DEVICE;
    case HIP5_MEM_ARRAY:
        return HF_MEM_ARRAY;
    case HIP5_MEM_UNIFIED:
        return HF_MEM_MANAGED;
    default:
        return -1;
    }
}

/*
 * Memory type, owner and extent of @p ptr. The runtime's error passes through unchanged: HIP 5.x
 * answers hipErrorInvalidValue (1) for memory it does not know, where 6.x answers success with
 * type Unregistered, reported as HF_MEM_UNKNOWN; callers treat the two alike. The extent comes from
 * hipMemGetAddressRange: required for device memory, best effort for pinned and managed memory
 * (runtimes that do not track those ranges leave alloc_base = ptr and alloc_size = 0, meaning
 * "unknown"); pageable and array memory always report alloc_base = ptr, alloc_size = 0.
 */
static int pointer_info_query(const void *ptr, struct hf_gpu_pointer_info *info_p)
{
    const struct hf_gpu_runtime *rt = &bound_runtime;
    if (ptr == NULL || info_p == NULL)
        return HIP_ERROR_INVALID_VALUE;
    union hip_pointer_attributes_room raw;
    memset(&raw, 0, sizeof(raw));
    struct hip_pointer_attributes *attr = &raw.attributes;
    int err = rt->pointer_get_attributes(attr, ptr);
    if (err != HIP_SUCCESS)
        return err;
    int mem_type = mem_type_normalise(rt->memtype_v6, attr->type);
    if (mem_type < 0) {
        hf_warn("GPU runtime: %p has memory type %d, unknown to HIP %d; refusing it", ptr,
                attr->type, rt->version);
        return HIP_ERROR_INVALID_VALUE;
    }
    if (attr->is_managed)
        mem_type = HF_MEM_MANAGED;

    struct hf_gpu_pointer_info info = {
        .mem_type = mem_type,
        .device = -1,
        .alloc_base = (void *)ptr,
        .alloc_size = 0,
        .host_accessible = true,
    };
    void *base = NULL;
    size_t size = 0;
    switch (mem_type) {
    case HF_MEM_DEVICE:
        err = rt->mem_get_address_range(&base, &size, (void *)ptr);
        if (err != HIP_SUCCESS)
            return err;
        info.alloc_base = base;
        info.alloc_size = size;
        info.device = attr->device;
        info.host_accessible = rt->host_emulated;
        break;
    case HF_MEM_MANAGED:
    case HF_MEM_HOST_PINNED:
        if (rt->mem_get_address_range(&base, &size, (void *)ptr) == HIP_SUCCESS && size > 0 &&
            (const char *)ptr >= (const char *)base &&
            (size_t)((const char *)ptr - (const char *)base) < size) {
            info.alloc_base = base;
            info.alloc_size = size;
        }
        if (mem_type == HF_MEM_MANAGED)
            info.device = attr->device;
        break;
    case HF_MEM_ARRAY:
        info.device = attr->device;
        info.host_accessible = false;
        break;
    default:
        break;
    }
    *info_p = info;
    return HIP_SUCCESS;
}

static int gpu_pointer_info(const void *ptr, struct hf_gpu_pointer_info *info_p)
{
    int pending = last_error_pending();
    return last_error_forget(pointer_info_query(ptr, info_p), pending);
}

static int gpu_host_alloc_pinned(void **ptr_p, size_t size)
{
    return bound_runtime.host_malloc(ptr_p, size, HIP_HOST_MALLOC_DEFAULT);
}

static int gpu_memcpy_sync(void *dst, const void *src, size_t size)
{
    return bound_runtime.memcpy_sync(dst, src, size, HIP_MEMCPY_DEFAULT);
}

static int gpu_memcpy_async(void *dst, const void *src, size_t size, void *stream)
{
    return bound_runtime.memcpy_async(dst, src, size, HIP_MEMCPY_DEFAULT, stream);
}

static int gpu_stream_create(void **stream_p)
{
    return bound_runtime.stream_create_with_flags(stream_p, HIP_STREAM_NON_BLOCKING);
}

static const char *gpu_error_string(int err)
{
    return hf_gpu_runtime_error_name(&bound_runtime, err);
}

/*
 * The kernel's word on the NUMA node of PCI function DDDD:BB:DD.0, which is every GPU's first
 * function: -1 when the file says so (no NUMA, or firmware without proximity data) or cannot be
 * read (no sysfs in a container), which both mean "unknown".
 */
static int pci_numa_node(int domain, int bus, int slot)
{
    char path[96];
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.0/numa_node",
             (unsigned)domain & 0xffffu, (unsigned)bus & 0xffu, (unsigned)slot & 0x1fu);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char text[16];
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    char *end;
    long node = strtol(text, &end, 10);
    if (end == text || node < -1 || node > INT_MAX)
        return -1;
    return (int)node;
}

/* @p device's PCI address as the runtime gives it: domain, bus and device (slot) numbers. */
static int gpu_pci_address(int device, int *domain_p, int *bus_p, int *slot_p)
{
    const struct hf_gpu_runtime *rt = &bound_runtime;
    int err = rt->device_get_attribute(domain_p, HIP_ATTRIBUTE_PCI_DOMAIN_ID, device);
    if (err == HIP_SUCCESS)
        err = rt->device_get_attribute(bus_p, HIP_ATTRIBUTE_PCI_BUS_ID, device);
    if (err == HIP_SUCCESS)
        err = rt->device_get_attribute(slot_p, HIP_ATTRIBUTE_PCI_DEVICE_ID, device);
    return err;
}

/*
 * The runtime's own answer first (hipDeviceAttributeHostNumaId); runtimes that predate it give the
 * device's PCI address instead, and sysfs knows the node of every PCI device. The host provider's
 * PCI numbers are made up, so its answer (HIP_HOST_DEVICE_NUMA) is the only one taken from it.
 */
static int gpu_host_numa_node(int device, int *node_p)
{
    const struct hf_gpu_runtime *rt = &bound_runtime;
    if (rt->device_get_attribute == NULL)
        return HIP_ERROR_NOT_SUPPORTED;
    int node = -1;
    int err =
        rt->device_get_attribute(&node, hip_attribute_numbers[HF_GPU_ATTR_HOST_NUMA_NODE], device);
    if (err == HIP_SUCCESS) {
        *node_p = node < -1 ? -1 : node;
        return HIP_SUCCESS;
    }
    if (rt->host_emulated)
        return err;
    int domain = 0, bus = 0, slot = 0;
    err = gpu_pci_address(device, &domain, &bus, &slot);
    if (err != HIP_SUCCESS)
        return err;
    *node_p = pci_numa_node(domain, bus, slot);
    return HIP_SUCCESS;
}

/* Largest memory BAR of PCI function DDDD:BB:DD.0 in bytes, or 0 when sysfs has no answer. */
static uint64_t pci_largest_memory_bar(int domain, int bus, int slot)
{
    char path[96];
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.0/resource",
             (unsigned)domain & 0xffffu, (unsigned)bus & 0xffu, (unsigned)slot & 0x1fu);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    /* IORESOURCE_MEM in the flags column (include/linux/ioport.h). */
    const unsigned long long resource_mem = 0x200;
    uint64_t largest = 0;
    unsigned long long start, end, flags;
    /* Lines 0-5 are the BARs; the expansion ROM and bridge windows follow. */
    for (int line = 0; line < 6 && fscanf(f, "%llx %llx %llx", &start, &end, &flags) == 3; line++) {
        if ((flags & resource_mem) != 0 && end > start && end - start + 1 > largest)
            largest = end - start + 1;
    }
    fclose(f);
    return largest;
}

int hf_gpu_bar_size_kb(int device, uint64_t *kb_p)
{
    const struct hf_gpu_runtime *rt = &bound_runtime;
    if (hf_gpu() == NULL || rt->host_emulated || rt->device_get_attribute == NULL)
        return -ENODEV;
    int domain = 0, bus = 0, slot = 0;
    if (gpu_pci_address(device, &domain, &bus, &slot) != HIP_SUCCESS)
        return -EIO;
    uint64_t bytes = pci_largest_memory_bar(domain, bus, slot);
    if (bytes == 0)
        return -ENOENT;
    *kb_p = bytes / 1024;
    return 0;
}

static int gpu_device_attribute(int device, int attr, int *value_p)
{
    if (value_p == NULL || attr <= 0 ||
        (size_t)attr >= sizeof(hip_attribute_numbers) / sizeof(hip_attribute_numbers[0]) ||
        hip_attribute_numbers[attr] == 0)
        return HIP_ERROR_INVALID_VALUE;
    if (bound_runtime.device_get_attribute == NULL)
        return HIP_ERROR_NOT_SUPPORTED;
    int pending = last_error_pending();
    int err;
    if (attr == HF_GPU_ATTR_HOST_NUMA_NODE)
        err = gpu_host_numa_node(device, value_p);
    else
        err = bound_runtime.device_get_attribute(value_p, hip_attribute_numbers[attr], device);
    return last_error_forget(err, pending);
}

/* Portable: a staging buffer registered while one GPU is current may be copied with any other. */
static int gpu_host_register(void *ptr, size_t size)
{
    if (bound_runtime.host_register == NULL)
        return HIP_ERROR_NOT_SUPPORTED;
    int pending = last_error_pending();
    return last_error_forget(bound_runtime.host_register(ptr, size, HIP_HOST_REGISTER_PORTABLE),
                             pending);
}

/* Pages the process may only read (a file's page cache, mapped read-only), for the copy engine. */
static int gpu_host_register_read_only(void *ptr, size_t size)
{
    if (bound_runtime.host_register == NULL)
        return HIP_ERROR_NOT_SUPPORTED;
    int pending = last_error_pending();
    return last_error_forget(
        bound_runtime.host_register(ptr, size,
                                    HIP_HOST_REGISTER_PORTABLE | HIP_HOST_REGISTER_READ_ONLY),
        pending);
}

static int gpu_host_unregister(void *ptr)
{
    if (bound_runtime.host_unregister == NULL)
        return HIP_ERROR_NOT_SUPPORTED;
    return bound_runtime.host_unregister(ptr);
}

/* AMD's own hipFile asks at the running runtime's version; so do we. */
static int gpu_get_proc_address(const char *symbol, void **fn_p)
{
    if (symbol == NULL || fn_p == NULL)
        return HIP_ERROR_INVALID_VALUE;
    *fn_p = NULL;
    if (bound_runtime.get_proc_address == NULL)
        return HIP_ERROR_NOT_SUPPORTED;
    void *fn = NULL;
    int status = 0;
    int pending = last_error_pending();
    int err = bound_runtime.get_proc_address(symbol, &fn, bound_runtime.version,
                                             HIP_GET_PROC_ADDRESS_DEFAULT, &status);
    err = last_error_forget(err, pending);
    if (err == HIP_SUCCESS && fn == NULL)
        err = HIP_ERROR_INVALID_VALUE;
    if (err == HIP_SUCCESS)
        *fn_p = fn;
    return err;
}

void hf_gpu_runtime_publish(const struct hf_gpu_runtime *rt, const char *name, const char *why)
{
    bound_runtime = *rt;
    snprintf(bound_name, sizeof(bound_name), "%s", name);
    bound_ops = (struct hf_gpu_ops){
        .struct_size = sizeof(struct hf_gpu_ops),
        .name = bound_name,
        .runtime_version = rt->version,
        .pointer_info = gpu_pointer_info,
        .device_count = rt->get_device_count,
        .get_device = rt->get_device,
        .set_device = rt->set_device,
        .host_alloc_pinned = gpu_host_alloc_pinned,
        .host_free_pinned = rt->host_free,
        .memcpy_sync = gpu_memcpy_sync,
        .memcpy_async = gpu_memcpy_async,
        .stream_create = gpu_stream_create,
        .stream_destroy = rt->stream_destroy,
        .stream_synchronize = rt->stream_synchronize,
        .error_string = gpu_error_string,
        .device_attribute = gpu_device_attribute,
        .get_proc_address = gpu_get_proc_address,
        .host_register = rt->host_register != NULL ? gpu_host_register : NULL,
        .host_unregister = rt->host_unregister != NULL ? gpu_host_unregister : NULL,
        .host_register_read_only = rt->host_register != NULL && rt->host_unregister != NULL
                                       ? gpu_host_register_read_only
                                       : NULL,
    };
    Dl_info where;
    const char *file = "?";
    if (dladdr((void *)rt->get_device_count, &where) != 0 && where.dli_fname != NULL)
        file = where.dli_fname;
    hf_info("GPU runtime: bound %s (%s, HIP %d.%d.%d, %d device%s, %s memory types): %s", name,
            file, rt->version / 10000000, rt->version / 100000 % 100, rt->version % 100000,
            rt->device_count, rt->device_count == 1 ? "" : "s", rt->memtype_v6 ? "6.x" : "5.x",
            why);
    atomic_store_explicit(&bound_ops_p, &bound_ops, memory_order_release);
}

void hf_gpu_runtime_forget(void)
{
    atomic_store_explicit(&bound_ops_p, NULL, memory_order_release);
    memset(&bound_runtime, 0, sizeof(bound_runtime));
}

const struct hf_gpu_ops *hf_gpu(void)
{
    return atomic_load_explicit(&bound_ops_p, memory_order_acquire);
}

bool hf_gpu_stream_is_implicit(const void *stream)
{
    return stream == NULL || stream == HIP_STREAM_PER_THREAD;
}

bool hf_gpu_stream_ready(void *stream)
{
    /* The implicit streams wait on the device's blocking streams (legacy ordering). */
    if (hf_gpu_stream_is_implicit(stream) || hf_gpu() == NULL ||
        bound_runtime.stream_query == NULL || bound_runtime.stream_get_flags == NULL)
        return false;
    int pending = last_error_pending();
    unsigned flags = 0;
    int err = last_error_forget(bound_runtime.stream_get_flags(stream, &flags), pending);
    if (err != HIP_SUCCESS || !(flags & HIP_STREAM_NON_BLOCKING))
        return false;
    /* hipErrorNotReady is the usual answer here, and no error of the application's. */
    return last_error_forget(bound_runtime.stream_query(stream), pending) == HIP_SUCCESS;
}

const struct hf_gpu_runtime *hf_gpu_runtime(void)
{
    return hf_gpu() != NULL ? &bound_runtime : NULL;
}
