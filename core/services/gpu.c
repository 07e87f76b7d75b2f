/*
 * The GPU runtime binding: finds the HIP provider library gpu.runtime names (sharing the instance
 * the program already loaded), resolves its entry points with dlsym, and translates pointer
 * attributes from the running runtime's ABI into enum hf_mem_type.
 */
#include "services/gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/log.h"
#include "common/regular_file.h"

/* Values that every HIP release shares (hip_runtime_api.h, driver_types.h). */
#define HIP_SUCCESS 0
#define HIP_ERROR_INVALID_VALUE 1
#define HIP_MEMCPY_DEFAULT 4
#define HIP_STREAM_NON_BLOCKING 0x01u
#define HIP_HOST_MALLOC_DEFAULT 0x0u
#define HIP_ERROR_NOT_SUPPORTED 801
#define HIP_GET_PROC_ADDRESS_DEFAULT 0x0u
#define HIP_HOST_REGISTER_PORTABLE 0x1u
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

/* One provider name and the sonames it answers to, preferred first. */
struct gpu_provider {
    const char *name;
    const char *const *sonames;
};

static const char *const hip_sonames[] = {"libamdhip64.so.7", "libamdhip64.so.6",
                                          "libamdhip64.so.5", "libamdhip64.so", NULL};
static const char *const cuda_sonames[] = {"libhip-cuda.so.0", NULL};
static const char *const host_sonames[] = {"libhip-host.so.0", NULL};

static const struct gpu_provider provider_hip = {"hip", hip_sonames};
static const struct gpu_provider provider_cuda = {"cuda", cuda_sonames};
static const struct gpu_provider provider_host = {"host", host_sonames};

/* Where each symbol lands in struct hf_gpu_runtime. */
struct gpu_symbol {
    const char *name;
    size_t offset;
    bool mandatory;
};

#define GPU_SYMBOL(hip_name, member, is_mandatory)                                                 \
    {                                                                                              \
        hip_name, offsetof(struct hf_gpu_runtime, member), is_mandatory                            \
    }

static const struct gpu_symbol gpu_symbols[] = {
    GPU_SYMBOL("hipRuntimeGetVersion", runtime_get_version, true),
    GPU_SYMBOL("hipGetDeviceCount", get_device_count, true),
    GPU_SYMBOL("hipGetDevice", get_device, true),
    GPU_SYMBOL("hipSetDevice", set_device, true),
    GPU_SYMBOL("hipPointerGetAttributes", pointer_get_attributes, true),
    GPU_SYMBOL("hipMemGetAddressRange", mem_get_address_range, true),
    GPU_SYMBOL("hipHostMalloc", host_malloc, true),
    GPU_SYMBOL("hipHostFree", host_free, true),
    GPU_SYMBOL("hipMemcpy", memcpy_sync, true),
    GPU_SYMBOL("hipMemcpyAsync", memcpy_async, true),
    GPU_SYMBOL("hipStreamCreateWithFlags", stream_create_with_flags, true),
    GPU_SYMBOL("hipStreamDestroy", stream_destroy, true),
    GPU_SYMBOL("hipStreamSynchronize", stream_synchronize, true),
    GPU_SYMBOL("hipGetErrorString", get_error_string, true),
    GPU_SYMBOL("hipGetProcAddress", get_proc_address, false),
    GPU_SYMBOL("hipLaunchHostFunc", launch_host_func, false),
    GPU_SYMBOL("hipStreamAddCallback", stream_add_callback, false),
    GPU_SYMBOL("hipStreamWaitValue32", stream_wait_value32, false),
    GPU_SYMBOL("hipStreamWaitValue64", stream_wait_value64, false),
    GPU_SYMBOL("hipStreamWriteValue32", stream_write_value32, false),
    GPU_SYMBOL("hipStreamWriteValue64", stream_write_value64, false),
    GPU_SYMBOL("hipEventCreate", event_create, false),
    GPU_SYMBOL("hipEventCreateWithFlags", event_create_with_flags, false),
    GPU_SYMBOL("hipEventRecord", event_record, false),
    GPU_SYMBOL("hipEventQuery", event_query, false),
    GPU_SYMBOL("hipEventSynchronize", event_synchronize, false),
    GPU_SYMBOL("hipEventDestroy", event_destroy, false),
    GPU_SYMBOL("hipDeviceGetAttribute", device_get_attribute, false),
    GPU_SYMBOL("hipStreamGetDevice", stream_get_device, false),
    GPU_SYMBOL("hipHostRegister", host_register, false),
    GPU_SYMBOL("hipHostUnregister", host_unregister, false),
    GPU_SYMBOL("hipGetLastError", get_last_error, false),
    GPU_SYMBOL("hipPeekAtLastError", peek_at_last_error, false),
};

/* dlsym hands back data pointers; storing them as function pointers relies on POSIX's guarantee. */
_Static_assert(sizeof(void *) == sizeof(int (*)(void)), "function pointers must fit a void *");

/* What was tried while binding, for the one failure line. */
struct gpu_attempts {
    char text[768];
    size_t used;
};

static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hf_gpu_runtime bound_runtime;
static struct hf_gpu_ops bound_ops;
static char bound_name[PATH_MAX];
static _Atomic(const struct hf_gpu_ops *) bound_ops_p;

static const char *runtime_error_name(const struct hf_gpu_runtime *rt, int err)
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
    return runtime_error_name(&bound_runtime, err);
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
    err = rt->device_get_attribute(&domain, HIP_ATTRIBUTE_PCI_DOMAIN_ID, device);
    if (err == HIP_SUCCESS)
        err = rt->device_get_attribute(&bus, HIP_ATTRIBUTE_PCI_BUS_ID, device);
    if (err == HIP_SUCCESS)
        err = rt->device_get_attribute(&slot, HIP_ATTRIBUTE_PCI_DEVICE_ID, device);
    if (err != HIP_SUCCESS)
        return err;
    *node_p = pci_numa_node(domain, bus, slot);
    return HIP_SUCCESS;
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

__attribute__((format(printf, 2, 3))) static void attempts_add(struct gpu_attempts *tried,
                                                               const char *fmt, ...)
{
    if (tried->used >= sizeof(tried->text) - 1)
        return;
    size_t room = sizeof(tried->text) - tried->used;
    int n = snprintf(tried->text + tried->used, room, "%s", tried->used > 0 ? "; " : "");
    if (n < 0 || (size_t)n >= room) {
        tried->used = sizeof(tried->text) - 1;
        return;
    }
    tried->used += (size_t)n;
    room -= (size_t)n;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(tried->text + tried->used, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room)
        tried->used = sizeof(tried->text) - 1;
    else
        tried->used += (size_t)n;
}

/*
 * Resolve every symbol from @p handle and check the runtime has a device. @p label names the
 * library in the failure text. -ENOENT: a mandatory symbol is missing; -ENODEV: no device.
 */
static int runtime_probe(void *handle, const char *label, struct hf_gpu_runtime *rt_p,
                         struct gpu_attempts *tried)
{
    struct hf_gpu_runtime rt = {.handle = handle};
    for (size_t i = 0; i < sizeof(gpu_symbols) / sizeof(gpu_symbols[0]); i++) {
        void *fn = dlsym(handle, gpu_symbols[i].name);
        if (fn == NULL && gpu_symbols[i].mandatory) {
            attempts_add(tried, "%s lacks %s", label, gpu_symbols[i].name);
            return -ENOENT;
        }
        memcpy((char *)&rt + gpu_symbols[i].offset, &fn, sizeof(fn));
    }
    int err = rt.runtime_get_version(&rt.version);
    if (err != HIP_SUCCESS) {
        attempts_add(tried, "%s: hipRuntimeGetVersion failed (%d, %s)", label, err,
                     runtime_error_name(&rt, err));
        return -ENODEV;
    }
    int count = 0;
    err = rt.get_device_count(&count);
    if (err != HIP_SUCCESS || count < 1) {
        if (err != HIP_SUCCESS)
            attempts_add(tried, "%s reports no device (hipGetDeviceCount: %s)", label,
                         runtime_error_name(&rt, err));
        else
            attempts_add(tried, "%s reports no device (0 devices)", label);
        return -ENODEV;
    }
    rt.device_count = count;
    rt.memtype_v6 = rt.version >= HF_GPU_VERSION_MEMTYPE_V6;
    /* Identity, not name: a path to libhip-host.so.0 is the host provider too. */
    void *host = dlopen(host_sonames[0], RTLD_NOW | RTLD_NOLOAD);
    rt.host_emulated = host != NULL && host == handle;
    *rt_p = rt;
    return 0;
}

/* A provider the program already loaded (by linking it), or NULL. */
static void *provider_find_loaded(const struct gpu_provider *provider, const char **soname_p)
{
    for (const char *const *soname = provider->sonames; *soname != NULL; soname++) {
        void *handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        if (handle != NULL) {
            *soname_p = *soname;
            return handle;
        }
    }
    return NULL;
}

/* Open a provider: beside the library holding the core first (installed layout), then by soname. */
static void *provider_open(const struct gpu_provider *provider, const char **soname_p)
{
    char dir[PATH_MAX] = "";
    Dl_info self;
    if (dladdr((void *)hf_gpu_bind, &self) != 0 && self.dli_fname != NULL) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash != NULL && (size_t)(slash - self.dli_fname) < sizeof(dir))
            snprintf(dir, sizeof(dir), "%.*s", (int)(slash - self.dli_fname), self.dli_fname);
    }
    for (const char *const *soname = provider->sonames; *soname != NULL; soname++) {
        char path[PATH_MAX];
        void *handle = NULL;
        if (dir[0] != '\0' &&
            snprintf(path, sizeof(path), "%s/%s", dir, *soname) < (int)sizeof(path))
            handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL)
            handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL);
        if (handle != NULL) {
            *soname_p = *soname;
            return handle;
        }
    }
    return NULL;
}

/* @p prefix names the provider in the text, for auto, where several are tried. */
static void attempts_add_not_found(struct gpu_attempts *tried, const struct gpu_provider *provider,
                                   bool prefix)
{
    char names[256] = "";
    size_t used = 0;
    for (const char *const *soname = provider->sonames; *soname != NULL && used < sizeof(names);
         soname++) {
        int n = snprintf(names + used, sizeof(names) - used, "%s%s", used > 0 ? ", " : "", *soname);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    attempts_add(tried, "%s%s%s not found", prefix ? provider->name : "", prefix ? ": " : "",
                 names);
}

/* Publish @p rt under @p name; @p why says how it was chosen. Called with bind_lock held. */
static void runtime_commit(const struct hf_gpu_runtime *rt, const char *name, const char *why)
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

/* A named provider: the loaded instance if there is one, else the first soname that opens. */
static int bind_provider(const struct gpu_provider *provider, struct gpu_attempts *tried)
{
    const char *soname = NULL;
    const char *why = "gpu.runtime names it; already loaded by the program";
    void *handle = provider_find_loaded(provider, &soname);
    if (handle == NULL) {
        why = "gpu.runtime names it";
        handle = provider_open(provider, &soname);
    }
    if (handle == NULL) {
        attempts_add_not_found(tried, provider, false);
        return -ENOENT;
    }
    struct hf_gpu_runtime rt;
    int rc = runtime_probe(handle, soname, &rt, tried);
    if (rc != 0)
        return rc;
    runtime_commit(&rt, provider->name, why);
    return 0;
}

static int bind_path(const char *path, struct gpu_attempts *tried)
{
    /* dlopen opens the path itself, and would wait for ever on a FIFO. */
    char why[HFP_REGULAR_WHY_SIZE];
    int rc = hfp_check_regular(path, why, sizeof(why));
    if (rc == -EINVAL) {
        attempts_add(tried, "%s: %s", path, why);
        return -ENOENT;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) {
        const char *err = dlerror();
        attempts_add(tried, "%s", err != NULL ? err : "cannot be opened");
        return -ENOENT;
    }
    struct hf_gpu_runtime rt;
    rc = runtime_probe(handle, "the library", &rt, tried);
    if (rc != 0)
        return rc;
    runtime_commit(&rt, path, "gpu.runtime names this library");
    return 0;
}

/* Probe @p handle, found for @p provider under @p soname, labelling failures with both. */
static int provider_probe(const struct gpu_provider *provider, void *handle, const char *soname,
                          struct hf_gpu_runtime *rt_p, struct gpu_attempts *tried)
{
    char label[128];
    snprintf(label, sizeof(label), "%s: %s", provider->name, soname);
    return runtime_probe(handle, label, rt_p, tried);
}

/*
 * auto: a provider the program linked wins (sharing its instance is what makes its pointers
 * known to us); otherwise the first real GPU runtime with a device. Emulation only when linked.
 */
static int bind_auto(struct gpu_attempts *tried)
{
    const struct gpu_provider *const providers[] = {&provider_hip, &provider_cuda, &provider_host};
    enum { PROVIDER_COUNT = sizeof(providers) / sizeof(providers[0]) };
    bool was_loaded[PROVIDER_COUNT] = {false};
    struct hf_gpu_runtime rt;
    const char *soname = NULL;

    for (size_t i = 0; i < PROVIDER_COUNT; i++) {
        void *handle = provider_find_loaded(providers[i], &soname);
        if (handle == NULL)
            continue;
        was_loaded[i] = true;
        if (provider_probe(providers[i], handle, soname, &rt, tried) == 0) {
            runtime_commit(&rt, providers[i]->name,
                           "gpu.runtime is auto and the program already loaded it");
            return 0;
        }
    }
    for (size_t i = 0; i < PROVIDER_COUNT; i++) {
        if (was_loaded[i])
            continue;
        if (providers[i] == &provider_host) {
            attempts_add(tried, "host: not loaded by the program (auto never opens emulation)");
            continue;
        }
        void *handle = provider_open(providers[i], &soname);
        if (handle == NULL) {
            attempts_add_not_found(tried, providers[i], true);
            continue;
        }
        if (provider_probe(providers[i], handle, soname, &rt, tried) == 0) {
            runtime_commit(&rt, providers[i]->name,
                           "gpu.runtime is auto and it is the first runtime with a device");
            return 0;
        }
    }
    return -ENODEV;
}

int hf_gpu_bind(const char *runtime)
{
    const struct gpu_provider *provider = NULL;
    bool is_auto = false;
    if (runtime == NULL || runtime[0] == '\0') {
        hf_error("GPU runtime: gpu.runtime is %s; expected auto, hip, cuda, host or a library path",
                 runtime == NULL ? "not set" : "empty");
        return -EINVAL;
    }
    if (strchr(runtime, '/') == NULL) {
        if (strcasecmp(runtime, "auto") == 0)
            is_auto = true;
        else if (strcasecmp(runtime, provider_hip.name) == 0)
            provider = &provider_hip;
        else if (strcasecmp(runtime, provider_cuda.name) == 0)
            provider = &provider_cuda;
        else if (strcasecmp(runtime, provider_host.name) == 0)
            provider = &provider_host;
        else {
            hf_error("GPU runtime: gpu.runtime \"%s\" is not auto, hip, cuda, host or a library "
                     "path (a path contains '/')",
                     runtime);
            return -EINVAL;
        }
    } else if (strlen(runtime) >= sizeof(bound_name)) {
        hf_error("GPU runtime: gpu.runtime is a library path of %zu bytes, longer than %zu",
                 strlen(runtime), sizeof(bound_name) - 1);
        return -EINVAL;
    }

    pthread_mutex_lock(&bind_lock);
    if (atomic_load_explicit(&bound_ops_p, memory_order_acquire) != NULL) {
        if (strcasecmp(runtime, bound_name) != 0 && !is_auto)
            hf_debug("GPU runtime: %s already bound; gpu.runtime=%s ignored", bound_name, runtime);
        pthread_mutex_unlock(&bind_lock);
        return 0;
    }
    struct gpu_attempts tried = {.used = 0};
    int rc;
    if (is_auto)
        rc = bind_auto(&tried);
    else if (provider != NULL)
        rc = bind_provider(provider, &tried);
    else
        rc = bind_path(runtime, &tried);
    pthread_mutex_unlock(&bind_lock);
    if (rc != 0)
        hf_error("GPU runtime: cannot bind gpu.runtime=%s: %s", runtime, tried.text);
    return rc;
}

void hf_gpu_reset(void)
{
    pthread_mutex_lock(&bind_lock);
    atomic_store_explicit(&bound_ops_p, NULL, memory_order_release);
    memset(&bound_runtime, 0, sizeof(bound_runtime));
    pthread_mutex_unlock(&bind_lock);
}

const struct hf_gpu_ops *hf_gpu(void)
{
    return atomic_load_explicit(&bound_ops_p, memory_order_acquire);
}

const struct hf_gpu_runtime *hf_gpu_runtime(void)
{
    return hf_gpu() != NULL ? &bound_runtime : NULL;
}
