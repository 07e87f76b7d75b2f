/*
 * Memory through the CUDA provider: device, managed and pinned allocations, host registration,
 * pointer queries answered in HIP 5.2 terms, and copies and fills (all on the driver's unified
 * address space, so one copy call serves every hipMemcpyKind).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"

#define HOST_MALLOC_FLAGS                                                                          \
    (hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined |                    \
     hipHostMallocNumaUser | hipHostMallocCoherent | hipHostMallocNonCoherent)
/* hipHostRegisterReadOnly, which HIP 5.2's header lacks: CUDA's read-only registration. */
#define HF_HIP_HOST_REGISTER_READ_ONLY 0x8u
#define HOST_REGISTER_FLAGS                                                                        \
    (hipHostRegisterPortable | hipHostRegisterMapped | hipHostRegisterIoMemory |                   \
     HF_HIP_HOST_REGISTER_READ_ONLY)

static CUdeviceptr devptr(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

hipError_t hipMalloc(void **ptr, size_t size)
{
    CUdeviceptr d;
    hipError_t err;

    if (ptr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return hf_rt_result(err);
    if (size == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    err = hf_cuda_error(hf_cu.MemAlloc(&d, size));
    if (err == hipSuccess)
        *ptr = (void *)(uintptr_t)d;
    return hf_rt_result(err);
}

/*
 * AMD's extension; programs use it for signal words and fine-grained buffers. CUDA device memory
 * serves every kind: stream memory operations wait on it, and its stores are coherent at stream
 * boundaries.
 */
hipError_t hipExtMallocWithFlags(void **ptr, size_t size, unsigned int flags)
{
    if (flags > HF_EXT_MALLOC_FLAGS_MAX)
        return hf_rt_result(hipErrorInvalidValue);
    return hipMalloc(ptr, size);
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags)
{
    CUdeviceptr d;
    hipError_t err;

    /* hipMemAttach* and CU_MEM_ATTACH_* share their values. */
    if (dev_ptr == NULL || size == 0 || (flags != hipMemAttachGlobal && flags != hipMemAttachHost))
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemAllocManaged(&d, size, flags));
    if (err == hipSuccess)
        *dev_ptr = (void *)(uintptr_t)d;
    return hf_rt_result(err);
}

/* Pinned memory is portable (usable from every device's context) and mapped, as on AMD. */
hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    unsigned cu_flags = HF_CU_MEMHOSTALLOC_PORTABLE | HF_CU_MEMHOSTALLOC_DEVICEMAP;
    hipError_t err;
    void *p;

    if (ptr == NULL || (flags & ~HOST_MALLOC_FLAGS) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent))
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return hf_rt_result(err);
    if (size == 0) {
        *ptr = NULL;
        return hipSuccess;
    }
    if (flags & hipHostMallocWriteCombined)
        cu_flags |= HF_CU_MEMHOSTALLOC_WRITECOMBINED;
    err = hf_cuda_error(hf_cu.MemHostAlloc(&p, size, cu_flags));
    if (err == hipSuccess)
        *ptr = p;
    return hf_rt_result(err);
}

hipError_t hipFree(void *ptr)
{
    hipError_t err;

    if (ptr == NULL)
        return hipSuccess;
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemFree(devptr(ptr)));
    return hf_rt_result(err);
}

hipError_t hipHostFree(void *ptr)
{
    hipError_t err;

    if (ptr == NULL)
        return hipSuccess;
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemFreeHost(ptr));
    return hf_rt_result(err);
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)
{
    unsigned cu_flags = HF_CU_MEMHOSTREGISTER_PORTABLE | HF_CU_MEMHOSTREGISTER_DEVICEMAP;
    hipError_t err;

    if (hostPtr == NULL || sizeBytes == 0 || (flags & ~HOST_REGISTER_FLAGS) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    if (flags & hipHostRegisterIoMemory)
        cu_flags |= HF_CU_MEMHOSTREGISTER_IOMEMORY;
    /* The device only reads such memory, so pages mapped read-only (a file's page cache) pin. */
    if (flags & HF_HIP_HOST_REGISTER_READ_ONLY)
        cu_flags |= HF_CU_MEMHOSTREGISTER_READ_ONLY;
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemHostRegister(hostPtr, sizeBytes, cu_flags));
    return hf_rt_result(err);
}

hipError_t hipHostUnregister(void *hostPtr)
{
    hipError_t err;

    if (hostPtr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemHostUnregister(hostPtr));
    return hf_rt_result(err);
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
    CUdeviceptr d;
    hipError_t err;

    if (devPtr == NULL || hstPtr == NULL || flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(hf_cu.MemHostGetDevicePointer(&d, hstPtr, 0));
    if (err == hipSuccess)
        *devPtr = (void *)(uintptr_t)d;
    return hf_rt_result(err);
}

/* What the driver knows about a pointer; memory_type 0 means nothing. */
struct pointer_facts {
    uint32_t memory_type;
    int device;
    bool managed;
    CUdeviceptr device_pointer;
    CUdeviceptr range_start;
    size_t range_size;
};

/* Every attribute lands in zeroed 8-byte storage, whatever its width (all little-endian here). */
static hipError_t pointer_facts_get(const void *ptr, struct pointer_facts *facts_p)
{
    int attrs[] = {HF_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,      HF_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                   HF_CU_POINTER_ATTRIBUTE_IS_MANAGED,       HF_CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                   HF_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, HF_CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    enum { N = sizeof(attrs) / sizeof(attrs[0]) };
    uint64_t values[N] = {0};
    void *data[N];
    hipError_t err;

    for (int i = 0; i < N; i++)
        data[i] = &values[i];
    err = hf_cuda_error(hf_cu.PointerGetAttributes(N, attrs, data, devptr(ptr)));
    if (err != hipSuccess)
        return err;
    facts_p->memory_type = (uint32_t)values[0];
    facts_p->device = (int)(uint32_t)values[1];
    facts_p->managed = values[2] != 0;
    facts_p->device_pointer = values[3];
    facts_p->range_start = values[4];
    facts_p->range_size = (size_t)values[5];
    return hipSuccess;
}

/*
 * Reported as AMD's HIP 5.x does, so both providers agree: device memory is hipMemoryTypeDevice
 * with no host pointer; pinned and registered memory is hipMemoryTypeHost; managed memory is
 * hipMemoryTypeHost with isManaged set. Unknown pointers are hipErrorInvalidValue.
 */
hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr)
{
    struct pointer_facts facts;
    hipError_t err;
    unsigned flags = 0;

    if (attributes == NULL || ptr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = pointer_facts_get(ptr, &facts);
    if (err != hipSuccess)
        return hf_rt_result(err);
    if (facts.memory_type == 0)
        return hf_rt_result(hipErrorInvalidValue);

    memset(attributes, 0, sizeof(*attributes));
    attributes->device = facts.device;
    attributes->isManaged = facts.managed;
    if (facts.managed) {
        attributes->memoryType = hipMemoryTypeHost;
        attributes->hostPointer = (void *)ptr;
        attributes->devicePointer = (void *)ptr;
    } else if (facts.memory_type == HF_CU_MEMORYTYPE_HOST) {
        attributes->memoryType = hipMemoryTypeHost;
        attributes->hostPointer = (void *)ptr;
        attributes->devicePointer =
            facts.device_pointer ? (void *)(uintptr_t)facts.device_pointer : (void *)ptr;
        /* cuMemHostAlloc flags share their values with hipHostMalloc's. */
        if (hf_cu.MemHostGetFlags(&flags, (void *)ptr) == HF_CUDA_SUCCESS)
            attributes->allocationFlags = flags;
    } else {
        attributes->memoryType =
            facts.memory_type == HF_CU_MEMORYTYPE_ARRAY ? hipMemoryTypeArray : hipMemoryTypeDevice;
        attributes->devicePointer = (void *)ptr;
    }
    return hipSuccess;
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
    struct pointer_facts facts;
    CUdeviceptr base;
    size_t size;
    hipError_t err;

    if (pbase == NULL || psize == NULL || dptr == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return hf_rt_result(err);
    err = hf_cuda_error(hf_cu.MemGetAddressRange(&base, &size, devptr(dptr)));
    if (err != hipSuccess) {
        /* Host allocations are not device ranges to the driver; their extent comes from the
         * pointer attributes instead. */
        hipError_t range_err = pointer_facts_get(dptr, &facts);

        if (range_err != hipSuccess)
            return hf_rt_result(range_err);
        if (facts.memory_type == 0)
            return hf_rt_result(hipErrorNotFound);
        if (facts.range_size == 0)
            return hf_rt_result(err);
        base = facts.range_start;
        size = facts.range_size;
    }
    *pbase = (hipDeviceptr_t)(uintptr_t)base;
    *psize = size;
    return hipSuccess;
}

static hipError_t copy_checks(void *dst, const void *src, size_t size, hipMemcpyKind kind)
{
    if ((unsigned)kind > hipMemcpyDefault)
        return hipErrorInvalidMemcpyDirection;
    if (size != 0 && (dst == NULL || src == NULL))
        return hipErrorInvalidValue;
    return hipSuccess;
}

/* HIP's synchronous copies and fills complete before returning, device-to-device ones too. */
static hipError_t legacy_stream_finish(CUresult rc)
{
    if (rc == HF_CUDA_SUCCESS)
        rc = hf_cu.StreamSynchronize(NULL);
    return hf_cuda_error(rc);
}

static hipError_t copy_sync(void *dst, const void *src, size_t size, hipMemcpyKind kind)
{
    hipError_t err = copy_checks(dst, src, size, kind);

    if (err != hipSuccess || size == 0)
        return err;
    err = hf_cuda_enter();
    if (err != hipSuccess)
        return err;
    return legacy_stream_finish(hf_cu.MemcpyAsync(devptr(dst), devptr(src), size, NULL));
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
    return hf_rt_result(copy_sync(dst, src, sizeBytes, kind));
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)
{
    return hf_rt_result(copy_sync(dst, src, sizeBytes, hipMemcpyHostToDevice));
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
    return hf_rt_result(copy_sync(dst, src, sizeBytes, hipMemcpyDeviceToHost));
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
    return hf_rt_result(copy_sync(dst, src, sizeBytes, hipMemcpyDeviceToDevice));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream)
{
    hipError_t err = copy_checks(dst, src, sizeBytes, kind);

    if (err != hipSuccess || sizeBytes == 0)
        return hf_rt_result(err);
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err =
            hf_cuda_error(hf_cu.MemcpyAsync(devptr(dst), devptr(src), sizeBytes, (CUstream)stream));
    return hf_rt_result(err);
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes)
{
    hipError_t err;

    if (dst == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (sizeBytes == 0)
        return hipSuccess;
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = legacy_stream_finish(
            hf_cu.MemsetD8Async(devptr(dst), (unsigned char)value, sizeBytes, NULL));
    return hf_rt_result(err);
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
    hipError_t err;

    if (dst == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (sizeBytes == 0)
        return hipSuccess;
    err = hf_cuda_enter();
    if (err == hipSuccess)
        err = hf_cuda_error(
            hf_cu.MemsetD8Async(devptr(dst), (unsigned char)value, sizeBytes, (CUstream)stream));
    return hf_rt_result(err);
}
