/*
 * Events of the host provider. Each hipEventRecord starts a new generation; the stream that
 * reaches the record completes it and stamps the time. Only the latest record counts, as in HIP.
 * Recording on a stream and waiting for an event on a stream are stream operations
 * (stream_event.c).
 */
#include <stdlib.h>

#include "host.h"

#define EVENT_FLAGS                                                                                \
    (hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess |                         \
     hipEventReleaseToDevice | hipEventReleaseToSystem)

static struct hf_range_table event_table = HF_RANGE_TABLE_INIT;

void hf_host_event_hold(void *obj)
{
    struct ihipEvent_t *e = obj;

    atomic_fetch_add(&e->refs, 1);
}

void hf_host_event_release(struct ihipEvent_t *e)
{
    if (atomic_fetch_sub(&e->refs, 1) != 1)
        return;
    pthread_cond_destroy(&e->done);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

hipError_t hf_host_event_acquire(hipEvent_t event, struct ihipEvent_t **e_p)
{
    struct hf_range range;

    if (event == NULL)
        return hipErrorInvalidHandle;
    if (hf_range_table_find(&event_table, (uintptr_t)event, hf_host_event_hold, &range) != 0 ||
        range.obj != (void *)event)
        return hipErrorInvalidHandle;
    *e_p = range.obj;
    return hipSuccess;
}

void hf_host_event_complete(struct ihipEvent_t *e, uint64_t generation)
{
    pthread_mutex_lock(&e->lock);
    if (generation > e->completed) {
        e->completed = generation;
        if (generation == e->recorded)
            clock_gettime(CLOCK_MONOTONIC, &e->time);
        pthread_cond_broadcast(&e->done);
    }
    pthread_mutex_unlock(&e->lock);
}

void hf_host_event_wait(struct ihipEvent_t *e, uint64_t generation)
{
    pthread_mutex_lock(&e->lock);
    while (e->completed < generation)
        pthread_cond_wait(&e->done, &e->lock);
    pthread_mutex_unlock(&e->lock);
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
    struct ihipEvent_t *e;

    if (event == NULL || (flags & ~(unsigned)EVENT_FLAGS) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    /* An interprocess event cannot carry timing, as in CUDA. */
    if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming))
        return hf_rt_result(hipErrorInvalidValue);
    e = calloc(1, sizeof(*e));
    if (e == NULL)
        return hf_rt_result(hipErrorOutOfMemory);
    atomic_init(&e->refs, 1);
    e->flags = flags;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->done, NULL);

    struct hf_range range = {.base = (uintptr_t)e,
                             .size = sizeof(*e),
                             .kind = HF_HOST_EVENT,
                             .device = hf_host_current_device(),
                             .flags = flags,
                             .obj = e};
    if (hf_range_table_insert(&event_table, &range) != 0) {
        hf_host_event_release(e);
        return hf_rt_result(hipErrorOutOfMemory);
    }
    *event = e;
    return hipSuccess;
}

hipError_t hipEventCreate(hipEvent_t *event)
{
    return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventDestroy(hipEvent_t event)
{
    struct hf_range range;

    if (event == NULL || hf_range_table_remove(&event_table, (uintptr_t)event, &range) != 0)
        return hf_rt_result(hipErrorInvalidHandle);
    hf_host_event_release(range.obj);
    return hipSuccess;
}

hipError_t hipEventQuery(hipEvent_t event)
{
    struct ihipEvent_t *e;
    hipError_t err = hf_host_event_acquire(event, &e);

    if (err != hipSuccess)
        return hf_rt_result(err);
    pthread_mutex_lock(&e->lock);
    err = e->completed >= e->recorded ? hipSuccess : hipErrorNotReady;
    pthread_mutex_unlock(&e->lock);
    hf_host_event_release(e);
    return err;
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
    struct ihipEvent_t *e;
    hipError_t err = hf_host_event_acquire(event, &e);

    if (err != hipSuccess)
        return hf_rt_result(err);
    pthread_mutex_lock(&e->lock);
    uint64_t generation = e->recorded;
    pthread_mutex_unlock(&e->lock);
    hf_host_event_wait(e, generation);
    hf_host_event_release(e);
    return hipSuccess;
}

static double timespec_ms(const struct timespec *t)
{
    return (double)t->tv_sec * 1e3 + (double)t->tv_nsec / 1e6;
}

static hipError_t event_time(struct ihipEvent_t *e, struct timespec *time_p)
{
    hipError_t err = hipSuccess;

    pthread_mutex_lock(&e->lock);
    if ((e->flags & hipEventDisableTiming) || e->recorded == 0)
        err = hipErrorInvalidHandle;
    else if (e->completed < e->recorded)
        err = hipErrorNotReady;
    else
        *time_p = e->time;
    pthread_mutex_unlock(&e->lock);
    return err;
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    struct ihipEvent_t *s, *e;
    struct timespec t0, t1;
    hipError_t err;

    if (ms == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    err = hf_host_event_acquire(start, &s);
    if (err != hipSuccess)
        return hf_rt_result(err);
    err = hf_host_event_acquire(stop, &e);
    if (err != hipSuccess)
        goto release_start;
    err = event_time(s, &t0);
    if (err == hipSuccess)
        err = event_time(e, &t1);
    if (err == hipSuccess)
        *ms = (float)(timespec_ms(&t1) - timespec_ms(&t0));
    hf_host_event_release(e);
release_start:
    hf_host_event_release(s);
    return err == hipErrorNotReady ? err : hf_rt_result(err);
}
