/*
 * The stream operations on events: hipEventRecord queues a record that the stream completes when
 * it reaches it, hipStreamWaitEvent queues a wait for the event's latest record.
 */
#include "host.h"

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    struct ihipEvent_t *e;
    hipError_t err = hf_host_event_acquire(event, &e);

    if (err != hipSuccess)
        return hf_rt_result(err);
    pthread_mutex_lock(&e->lock);
    uint64_t generation = ++e->recorded;
    pthread_mutex_unlock(&e->lock);

    /* The op owns the reference taken by event_acquire; keep one to finish a failed record. */
    hf_host_event_hold(e);
    struct hf_host_op op = {.kind = HF_OP_EVENT_RECORD, .u.event = {e, generation}};
    err = hf_host_stream_submit(stream, &op);
    if (err != hipSuccess)
        hf_host_event_complete(e, generation); /* so waiters on this record do not hang */
    hf_host_event_release(e);
    return hf_rt_result(err);
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    struct ihipEvent_t *e;
    hipError_t err;

    if (flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_host_event_acquire(event, &e);
    if (err != hipSuccess)
        return hf_rt_result(err);
    pthread_mutex_lock(&e->lock);
    uint64_t generation = e->recorded;
    pthread_mutex_unlock(&e->lock);

    struct hf_host_op op = {.kind = HF_OP_EVENT_WAIT, .u.event = {e, generation}};
    return hf_rt_result(hf_host_stream_submit(stream, &op));
}
