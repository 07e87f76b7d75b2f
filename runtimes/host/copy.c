/*
 * Copies and fills of the host provider. Every kind of memory is host memory, so a copy of any
 * direction is a memmove; the direction is checked only for being a valid hipMemcpyKind.
 */
#include "host.h"

static hipError_t copy_submit(void *dst, const void *src, size_t size, hipMemcpyKind kind,
                              hipStream_t stream)
{
    hipError_t err;

    if ((unsigned)kind > hipMemcpyDefault)
        return hipErrorInvalidMemcpyDirection;
    if (size == 0)
        return hipSuccess;
    if (dst == NULL || src == NULL)
        return hipErrorInvalidValue;
    err = hf_host_mem_check(dst, size);
    if (err == hipSuccess)
        err = hf_host_mem_check(src, size);
    if (err != hipSuccess)
        return err;

    struct hf_host_op op = {.kind = HF_OP_COPY, .u.copy = {dst, src, size}};
    return hf_host_stream_submit(stream, &op);
}

static hipError_t set_submit(void *dst, int value, size_t size, hipStream_t stream)
{
    hipError_t err;

    if (dst == NULL)
        return hipErrorInvalidValue;
    if (size == 0)
        return hipSuccess;
    err = hf_host_mem_check(dst, size);
    if (err != hipSuccess)
        return err;

    struct hf_host_op op = {.kind = HF_OP_MEMSET, .u.set = {dst, value, size}};
    return hf_host_stream_submit(stream, &op);
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
    return hf_rt_result(copy_submit(dst, src, sizeBytes, kind, NULL));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream)
{
    return hf_rt_result(copy_submit(dst, src, sizeBytes, kind, stream));
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)
{
    return hf_rt_result(copy_submit(dst, src, sizeBytes, hipMemcpyHostToDevice, NULL));
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
    return hf_rt_result(copy_submit(dst, src, sizeBytes, hipMemcpyDeviceToHost, NULL));
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
    return hf_rt_result(copy_submit(dst, src, sizeBytes, hipMemcpyDeviceToDevice, NULL));
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes)
{
    return hf_rt_result(set_submit(dst, value, sizeBytes, NULL));
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
    return hf_rt_result(set_submit(dst, value, sizeBytes, stream));
}
