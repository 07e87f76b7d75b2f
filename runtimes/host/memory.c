/*
 * Memory of the host provider: "device", pinned and managed allocations are page-aligned anonymous
 * mappings recorded in one range table with their kind and device, so pointer queries tell them
 * apart from ordinary host memory and find the allocation around any interior pointer.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host.h"

/* Every tracked range: allocations, registered host memory. Streams and events have their own. */
static struct hf_range_table mem_table = HF_RANGE_TABLE_INIT;

#define HOST_MALLOC_FLAGS                                                                          \
    (hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined |                    \
     hipHostMallocNumaUser | hipHostMallocCoherent | hipHostMallocNonCoherent)
#define HOST_REGISTER_FLAGS                                                                        \
    (hipHostRegisterPortable | hipHostRegisterMapped | hipHostRegisterIoMemory)

static size_t page_round(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    return (size + page - 1) & ~(page - 1);
}

static hipError_t mem_map(size_t size, int kind, unsigned flags, void **ptr_p)
{
    int device = hf_host_current_device();
    size_t mapped = page_round(size);
    void *p;

    if (mapped < size)
        return hipErrorOutOfMemory;
    p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return hipErrorOutOfMemory;

    struct hf_range range = {
        .base = (uintptr_t)p, .size = size, .kind = kind, .device = device, .flags = flags};
    if (hf_range_table_insert(&mem_table, &range) != 0)
        goto unmap;
    if (kind != HF_HOST_MEM_PINNED)
        hf_host_device_account(device, (long long)size);
    *ptr_p = p;
    return hipSuccess;

unmap:
    munmap(p, mapped);
    return hipErrorOutOfMemory;
}

/*
 * Free an allocation of one of @p kinds (a bit mask of 1 << kind) for the API function @p call.
 * Like a GPU runtime, freeing waits for the device's queued work first, so no stream copy is left
 * writing into unmapped pages.
 */
static hipError_t mem_unmap(void *ptr, unsigned kinds, const char *call)
{
    struct hf_range range;
    hipError_t err;

    if (ptr == NULL)
        return hipSuccess;
    hf_host_strict_gate(call);
    if (hf_range_table_find(&mem_table, (uintptr_t)ptr, NULL, &range) != 0 ||
        range.base != (uintptr_t)ptr || !(kinds & (1u << range.kind)))
        return hipErrorInvalidValue;
    err = hf_host_streams_drain(range.device);
    if (err != hipSuccess)
        return err;
    if (hf_range_table_remove(&mem_table, range.base, &range) != 0)
        return hipErrorInvalidValue; /* freed by another thread meanwhile */
    if (range.kind != HF_HOST_MEM_PINNED)
        hf_host_device_account(range.device, -(long long)range.size);
    munmap(ptr, page_round(range.size));
    return hipSuccess;
}

hipError_t hf_host_mem_check(const void *ptr, size_t size)
{
    struct hf_range range;
    uintptr_t p = (uintptr_t)ptr;

    /* Registered memory is the caller's own: bytes beyond the registered part are still valid. */
    if (hf_range_table_find(&mem_table, p, NULL, &range) != 0 ||
        range.kind == HF_HOST_MEM_REGISTERED)
        return hipSuccess;
    if (size > range.base + range.size - p)
        return hipErrorInvalidValue;
    return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t size)
{
    if (ptr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    if (size == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    hf_host_strict_gate("hipMalloc");
    return hf_rt_result(mem_map(size, HF_HOST_MEM_DEVICE, 0, ptr));
}

/*
 * AMD's extension; programs use it for signal words and fine-grained buffers. Every kind is
 * ordinary device memory here, whose stores the emulated streams see at once.
 */
hipError_t hipExtMallocWithFlags(void **ptr, size_t size, unsigned int flags)
{
    if (flags > HF_EXT_MALLOC_FLAGS_MAX)
        return hf_rt_result(hipErrorInvalidValue);
    return hipMalloc(ptr, size);
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags)
{
    if (dev_ptr == NULL || size == 0 || (flags != hipMemAttachGlobal && flags != hipMemAttachHost))
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    return hf_rt_result(mem_map(size, HF_HOST_MEM_MANAGED, flags, dev_ptr));
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    if (ptr == NULL || (flags & ~HOST_MALLOC_FLAGS) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent))
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    if (size == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    /* No strict-holds gate: the CUDA driver returned from cuMemHostAlloc with streams held. */
    return hf_rt_result(mem_map(size, HF_HOST_MEM_PINNED, flags, ptr));
}

hipError_t hipFree(void *ptr)
{
    unsigned kinds = (1u << HF_HOST_MEM_DEVICE) | (1u << HF_HOST_MEM_MANAGED);

    return hf_rt_result(mem_unmap(ptr, kinds, "hipFree"));
}

hipError_t hipHostFree(void *ptr)
{
    return hf_rt_result(mem_unmap(ptr, 1u << HF_HOST_MEM_PINNED, "hipHostFree"));
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)
{
    if (hostPtr == NULL || sizeBytes == 0 || (flags & ~HOST_REGISTER_FLAGS) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    hf_host_strict_gate("hipHostRegister");

    struct hf_range range = {.base = (uintptr_t)hostPtr,
                             .size = sizeBytes,
                             .kind = HF_HOST_MEM_REGISTERED,
                             .device = hf_host_current_device(),
                             .flags = flags};
    int rc = hf_range_table_insert(&mem_table, &range);
    if (rc == -EEXIST)
        return hf_rt_result(hipErrorHostMemoryAlreadyRegistered);
    if (rc != 0)
        return hf_rt_result(hipErrorOutOfMemory);
    return hipSuccess;
}

hipError_t hipHostUnregister(void *hostPtr)
{
    struct hf_range range;

    if (hostPtr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_strict_gate("hipHostUnregister");
    if (hf_range_table_find(&mem_table, (uintptr_t)hostPtr, NULL, &range) != 0 ||
        range.base != (uintptr_t)hostPtr || range.kind != HF_HOST_MEM_REGISTERED)
        return hf_rt_result(hipErrorHostMemoryNotRegistered);
    hipError_t err = hf_host_streams_drain(range.device);
    if (err != hipSuccess)
        return hf_rt_result(err);
    if (hf_range_table_remove(&mem_table, range.base, NULL) != 0)
        return hf_rt_result(hipErrorHostMemoryNotRegistered);
    return hipSuccess;
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
    struct hf_range range;

    if (devPtr == NULL || hstPtr == NULL || flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    if (hf_range_table_find(&mem_table, (uintptr_t)hstPtr, NULL, &range) != 0 ||
        (range.kind != HF_HOST_MEM_PINNED && range.kind != HF_HOST_MEM_REGISTERED))
        return hf_rt_result(hipErrorInvalidValue);
    /* Host and device share one address space here, as with unified addressing on a GPU. */
    *devPtr = hstPtr;
    return hipSuccess;
}

/*
 * Reported as AMD's HIP 5.x does: device memory is hipMemoryTypeDevice with no host pointer;
 * pinned and registered memory is hipMemoryTypeHost mapped at the same address; managed memory is
 * hipMemoryTypeHost with isManaged set (5.x never reports hipMemoryTypeUnified).
 */
hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr)
{
    struct hf_range range;

    if (attributes == NULL || ptr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (hf_range_table_find(&mem_table, (uintptr_t)ptr, NULL, &range) != 0)
        return hf_rt_result(hipErrorInvalidValue);

    memset(attributes, 0, sizeof(*attributes));
    attributes->device = range.device;
    attributes->devicePointer = (void *)ptr;
    attributes->allocationFlags = range.flags;
    if (range.kind == HF_HOST_MEM_DEVICE) {
        attributes->memoryType = hipMemoryTypeDevice;
    } else {
        attributes->memoryType = hipMemoryTypeHost;
        attributes->hostPointer = (void *)ptr;
        attributes->isManaged = range.kind == HF_HOST_MEM_MANAGED;
    }
    return hipSuccess;
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
    struct hf_range range;

    if (pbase == NULL || psize == NULL || dptr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (hf_range_table_find(&mem_table, (uintptr_t)dptr, NULL, &range) != 0)
        return hf_rt_result(hipErrorNotFound);
    *pbase = (hipDeviceptr_t)range.base;
    *psize = range.size;
    return hipSuccess;
}
