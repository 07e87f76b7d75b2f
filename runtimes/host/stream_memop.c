/*
 * The stream memory operations as a program calls them: hipStreamWaitValue32/64 and
 * hipStreamWriteValue32/64 check their arguments and queue an operation on the stream, which runs
 * it through stream_value.c.
 */
#include "host.h"

static hipError_t value_submit(hipStream_t stream, int kind, void *ptr, uint64_t value,
                               unsigned flags, uint64_t mask, int width)
{
    if (ptr == NULL || ((uintptr_t)ptr % (uintptr_t)width) != 0)
        return hipErrorInvalidValue;
    if (kind == HF_OP_WAIT_VALUE && flags > hipStreamWaitValueNor)
        return hipErrorInvalidValue;
    struct hf_host_op op = {
        .kind = kind,
        .u.value = {.ptr = ptr, .value = value, .mask = mask, .flags = flags, .width = width}};
    return hf_host_stream_submit(stream, &op);
}

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask)
{
    return hf_rt_result(value_submit(stream, HF_OP_WAIT_VALUE, ptr, value, flags, mask, 4));
}

hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags,
                                uint64_t mask)
{
    return hf_rt_result(value_submit(stream, HF_OP_WAIT_VALUE, ptr, value, flags, mask, 8));
}

/* HIP documents the flags of the write-value calls as reserved and ignored. */
hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags)
{
    return hf_rt_result(value_submit(stream, HF_OP_WRITE_VALUE, ptr, value, flags, UINT32_MAX, 4));
}

hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags)
{
    return hf_rt_result(value_submit(stream, HF_OP_WRITE_VALUE, ptr, value, flags, UINT64_MAX, 8));
}
