/*
 * Streams of the host provider: each created stream is an ordered queue served by its own worker
 * thread (started at the first submission). The null stream runs work in the caller's thread once
 * the device's blocking streams have drained, which gives the legacy default stream's ordering.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

/** A stream, as the HIP header forward-declares it. */
struct ihipStream_t {
    atomic_int refs;         /* the handle, the worker, and callers in flight */
    int device;              /* device current at creation */
    unsigned flags;          /* hipStreamDefault or hipStreamNonBlocking */
    pthread_mutex_t lock;    /* guards the queue and counters */
    pthread_cond_t work;     /* the worker waits here for ops or destruction */
    pthread_cond_t idle;     /* synchronizers wait here for completions */
    struct hf_host_op *head; /* next op to run */
    struct hf_host_op *tail; /* last op queued */
    uint64_t submitted;      /* ops ever queued */
    uint64_t completed;      /* ops ever finished */
    bool worker_started;     /* a worker thread serves the queue */
    bool destroyed;          /* the handle is gone: drain, then let the worker exit */
};

static struct hf_range_table stream_table = HF_RANGE_TABLE_INIT;

/*
 * Destroyed streams whose queued work had not finished, each with a reference. A destroyed handle
 * leaves stream_table at once, yet its copies still run: freeing memory must wait for them as it
 * does for live streams', or a free after hipStreamDestroy would unmap pages a copy still uses.
 */
struct retired {
    struct retired *next;
    struct ihipStream_t *s;
};
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static struct retired *retired_head;

static void stream_hold(void *obj)
{
    struct ihipStream_t *s = obj;

    atomic_fetch_add(&s->refs, 1);
}

static void stream_release(struct ihipStream_t *s)
{
    if (atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    /*
     * The other holder let go of its reference after its last unlock. Taking the lock once more
     * orders that unlock before the teardown for tools that cannot see the counter's atomics (a
     * ThreadSanitizer build of a program linked to this uninstrumented runtime).
     */
    pthread_mutex_lock(&s->lock);
    pthread_mutex_unlock(&s->lock);
    for (struct hf_host_op *op = s->head, *next; op != NULL; op = next) {
        next = op->next;
        free(op);
    }
    pthread_cond_destroy(&s->idle);
    pthread_cond_destroy(&s->work);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static hipError_t stream_acquire(hipStream_t stream, struct ihipStream_t **s_p)
{
    struct hf_range range;

    if (hf_range_table_find(&stream_table, (uintptr_t)stream, stream_hold, &range) != 0 ||
        range.obj != (void *)stream)
        return hipErrorInvalidHandle;
    *s_p = range.obj;
    return hipSuccess;
}

/*
 * A copy of one aligned 4- or 8-byte word is stored as one atomic word: programs release a stream
 * waiting on a word (hipStreamWaitValue) by copying the new value in with hipMemcpy, as AMD's
 * tests do, and a GPU's stores of a word are single transactions that the waiter never sees torn.
 */
static void copy_run(void *dst, const void *src, size_t size)
{
    if (size == sizeof(uint64_t) && (uintptr_t)dst % sizeof(uint64_t) == 0) {
        uint64_t word;
        memcpy(&word, src, sizeof(word));
        __atomic_store_n((uint64_t *)dst, word, __ATOMIC_RELEASE);
    } else if (size == sizeof(uint32_t) && (uintptr_t)dst % sizeof(uint32_t) == 0) {
        uint32_t word;
        memcpy(&word, src, sizeof(word));
        __atomic_store_n((uint32_t *)dst, word, __ATOMIC_RELEASE);
    } else {
        memmove(dst, src, size);
    }
}

static void op_run(const struct hf_host_op *op, hipStream_t stream)
{
    switch (op->kind) {
    case HF_OP_COPY:
        copy_run(op->u.copy.dst, op->u.copy.src, op->u.copy.size);
        hf_host_memory_changed();
        break;
    case HF_OP_MEMSET:
        memset(op->u.set.dst, op->u.set.value, op->u.set.size);
        hf_host_memory_changed();
        break;
    case HF_OP_HOST_FN:
        op->u.host_fn.fn(op->u.host_fn.data);
        break;
    case HF_OP_CALLBACK:
        op->u.callback.fn(stream, hipSuccess, op->u.callback.data);
        break;
    case HF_OP_WAIT_VALUE:
        hf_host_value_wait(op);
        break;
    case HF_OP_WRITE_VALUE:
        hf_host_value_write(op);
        break;
    case HF_OP_EVENT_RECORD:
        hf_host_event_complete(op->u.event.event, op->u.event.generation);
        hf_host_event_release(op->u.event.event);
        break;
    case HF_OP_EVENT_WAIT:
        hf_host_event_wait(op->u.event.event, op->u.event.generation);
        hf_host_event_release(op->u.event.event);
        break;
    }
}

static void *stream_worker(void *arg)
{
    struct ihipStream_t *s = arg;

    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->head == NULL && !s->destroyed)
            pthread_cond_wait(&s->work, &s->lock);
        struct hf_host_op *op = s->head;
        if (op == NULL)
            break;
        s->head = op->next;
        if (s->head == NULL)
            s->tail = NULL;
        pthread_mutex_unlock(&s->lock);

        op_run(op, s);
        free(op);

        pthread_mutex_lock(&s->lock);
        s->completed++;
        pthread_cond_broadcast(&s->idle);
    }
    pthread_mutex_unlock(&s->lock);
    stream_release(s);
    return NULL;
}

/*
 * A stream's worker stands for a GPU queue, not for a thread of the program: it takes none of the
 * program's signals (a process-directed signal goes to any thread that does not block it), only
 * the faults it raises itself, which the kernel would otherwise turn into a kill.
 */
static void worker_sigmask(sigset_t *blocked)
{
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    sigfillset(blocked);
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(blocked, faults[i]);
}

/* Called with s->lock held. The worker holds its own reference until it exits. */
static int worker_start(struct ihipStream_t *s)
{
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t blocked;
    int rc;

    if (s->worker_started)
        return 0;
    rc = pthread_attr_init(&attr);
    if (rc != 0)
        return -rc;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    worker_sigmask(&blocked);
    pthread_attr_setsigmask_np(&attr, &blocked);
    stream_hold(s);
    rc = pthread_create(&thread, &attr, stream_worker, s);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        atomic_fetch_sub(&s->refs, 1); /* the handle's reference keeps it alive */
        return -rc;
    }
    s->worker_started = true;
    return 0;
}

static void stream_wait_idle(struct ihipStream_t *s)
{
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->submitted;
    while (s->completed < target)
        pthread_cond_wait(&s->idle, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

static bool stream_is_idle(struct ihipStream_t *s)
{
    pthread_mutex_lock(&s->lock);
    bool idle = s->completed == s->submitted;
    pthread_mutex_unlock(&s->lock);
    return idle;
}

/*
 * Visit the streams of @p device (any when negative); with @p blocking_only, only those that
 * synchronize with the null stream. @p visit returns false to stop early. Returns hipSuccess, or
 * hipErrorNotReady when a visit stopped it, or hipErrorOutOfMemory.
 */
static hipError_t streams_visit(int device, bool blocking_only,
                                bool (*visit)(struct ihipStream_t *))
{
    void **objs;
    size_t count;
    hipError_t err = hipSuccess;

    if (hf_range_table_collect(&stream_table, HF_HOST_STREAM, device, stream_hold, &objs, &count) !=
        0)
        return hipErrorOutOfMemory;
    for (size_t i = 0; i < count; i++) {
        struct ihipStream_t *s = objs[i];

        if (err == hipSuccess && !(blocking_only && (s->flags & hipStreamNonBlocking)) && !visit(s))
            err = hipErrorNotReady;
        stream_release(s);
    }
    free(objs);
    return err;
}

static bool visit_drain(struct ihipStream_t *s)
{
    stream_wait_idle(s);
    return true;
}

/*
 * Wait for the retired streams of @p device (any when negative). Idle ones are forgotten; a busy
 * one stays listed while this thread waits for it, so a concurrent drain waits for it too.
 */
static void retired_drain(int device)
{
    for (;;) {
        struct ihipStream_t *busy = NULL;
        pthread_mutex_lock(&retired_lock);
        for (struct retired **link = &retired_head; *link != NULL && busy == NULL;) {
            struct retired *r = *link;
            if (device >= 0 && r->s->device != device) {
                link = &r->next;
            } else if (stream_is_idle(r->s)) {
                *link = r->next;
                stream_release(r->s);
                free(r);
            } else {
                busy = r->s;
                stream_hold(busy);
            }
        }
        pthread_mutex_unlock(&retired_lock);
        if (busy == NULL)
            return;
        stream_wait_idle(busy);
        stream_release(busy);
    }
}

hipError_t hf_host_streams_drain(int device)
{
    hipError_t err = streams_visit(device, false, visit_drain);
    retired_drain(device);
    return err;
}

static hipError_t null_stream_drain(void)
{
    return streams_visit(hf_host_current_device(), true, visit_drain);
}

static void op_discard(const struct hf_host_op *op)
{
    if (op->kind == HF_OP_EVENT_RECORD || op->kind == HF_OP_EVENT_WAIT)
        hf_host_event_release(op->u.event.event);
}

static hipError_t stream_enqueue(struct ihipStream_t *s, const struct hf_host_op *op)
{
    struct hf_host_op *queued = malloc(sizeof(*queued));

    if (queued == NULL)
        return hipErrorOutOfMemory;
    *queued = *op;
    queued->next = NULL;

    pthread_mutex_lock(&s->lock);
    if (worker_start(s) != 0) {
        pthread_mutex_unlock(&s->lock);
        free(queued);
        return hipErrorOutOfMemory;
    }
    /*
     * A wait-value queued on an idle stream holds it from now on, as a GPU's stream is held as
     * soon as the wait reaches its front; counting it here rather than when the worker gets to it
     * makes strict mode see the hold deterministically. The worker ends the hold.
     */
    if (queued->kind == HF_OP_WAIT_VALUE && s->completed == s->submitted &&
        hf_host_strict_holds() && !hf_host_value_ready(queued)) {
        queued->u.value.held = true;
        hf_host_hold_begin();
    }
    if (s->tail != NULL)
        s->tail->next = queued;
    else
        s->head = queued;
    s->tail = queued;
    s->submitted++;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->lock);
    return hipSuccess;
}

hipError_t hf_host_stream_submit(hipStream_t stream, const struct hf_host_op *op)
{
    struct ihipStream_t *s;
    hipError_t err;

    hf_host_init();
    if (stream == NULL || stream == hipStreamPerThread) {
        err = stream == NULL ? null_stream_drain() : hipSuccess;
        if (err != hipSuccess)
            goto discard;
        op_run(op, stream);
        return hipSuccess;
    }
    err = stream_acquire(stream, &s);
    if (err != hipSuccess)
        goto discard;
    err = stream_enqueue(s, op);
    stream_release(s);
    if (err != hipSuccess)
        goto discard;
    return hipSuccess;

discard:
    op_discard(op);
    return err;
}

/* @p call names the API function in strict mode's abort message. */
static hipError_t stream_create(hipStream_t *stream, unsigned int flags, const char *call)
{
    struct ihipStream_t *s;

    if (stream == NULL || (flags & ~(unsigned)hipStreamNonBlocking) != 0)
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    hf_host_strict_gate(call);
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return hf_rt_result(hipErrorOutOfMemory);
    atomic_init(&s->refs, 1);
    s->device = hf_host_current_device();
    s->flags = flags;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->idle, NULL);

    struct hf_range range = {.base = (uintptr_t)s,
                             .size = sizeof(*s),
                             .kind = HF_HOST_STREAM,
                             .device = s->device,
                             .flags = flags,
                             .obj = s};
    if (hf_range_table_insert(&stream_table, &range) != 0) {
        stream_release(s);
        return hf_rt_result(hipErrorOutOfMemory);
    }
    *stream = s;
    return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    return stream_create(stream, flags, "hipStreamCreateWithFlags");
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
    return stream_create(stream, hipStreamDefault, "hipStreamCreate");
}

/* Like CUDA, destruction does not wait: queued work still runs, then the worker frees the stream.
 */
hipError_t hipStreamDestroy(hipStream_t stream)
{
    struct hf_range range;

    if (stream == NULL || stream == hipStreamPerThread)
        return hf_rt_result(hipErrorInvalidHandle);
    hf_host_strict_gate("hipStreamDestroy");
    if (hf_range_table_remove(&stream_table, (uintptr_t)stream, &range) != 0)
        return hf_rt_result(hipErrorInvalidHandle);
    struct ihipStream_t *s = range.obj;
    pthread_mutex_lock(&s->lock);
    s->destroyed = true;
    pthread_cond_signal(&s->work);
    bool busy = s->completed != s->submitted;
    pthread_mutex_unlock(&s->lock);
    struct retired *r = busy ? malloc(sizeof(*r)) : NULL;
    if (r != NULL) {
        /* The handle's reference moves to the retired list. */
        r->s = s;
        pthread_mutex_lock(&retired_lock);
        r->next = retired_head;
        retired_head = r;
        pthread_mutex_unlock(&retired_lock);
        return hipSuccess;
    }
    if (busy)
        stream_wait_idle(s); /* no memory to remember it: finish its work now instead */
    stream_release(s);
    return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
    struct ihipStream_t *s;
    hipError_t err;

    hf_host_init();
    if (stream == NULL)
        return hf_rt_result(null_stream_drain());
    if (stream == hipStreamPerThread)
        return hipSuccess;
    err = stream_acquire(stream, &s);
    if (err != hipSuccess)
        return hf_rt_result(err);
    stream_wait_idle(s);
    stream_release(s);
    return hipSuccess;
}

hipError_t hipDeviceSynchronize(void)
{
    hf_host_init();
    return hf_rt_result(hf_host_streams_drain(hf_host_current_device()));
}
hipError_t hipStreamQuery(hipStream_t stream)
{
    struct ihipStream_t *s;
    hipError_t err;

    hf_host_init();
    if (stream == NULL)
        return streams_visit(hf_host_current_device(), true, stream_is_idle);
    if (stream == hipStreamPerThread)
        return hipSuccess;
    err = stream_acquire(stream, &s);
    if (err != hipSuccess)
        return hf_rt_result(err);
    err = stream_is_idle(s) ? hipSuccess : hipErrorNotReady;
    stream_release(s);
    return err;
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
    struct ihipStream_t *s;
    hipError_t err;

    if (flags == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (stream == NULL || stream == hipStreamPerThread) {
        *flags = hipStreamDefault;
        return hipSuccess;
    }
    err = stream_acquire(stream, &s);
    if (err != hipSuccess)
        return hf_rt_result(err);
    *flags = s->flags;
    stream_release(s);
    return hipSuccess;
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)
{
    struct ihipStream_t *s;
    hipError_t err;

    if (device == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    hf_host_init();
    if (stream == NULL || stream == hipStreamPerThread) {
        *device = hf_host_current_device();
        return hipSuccess;
    }
    err = stream_acquire(stream, &s);
    if (err != hipSuccess)
        return hf_rt_result(err);
    *device = s->device;
    stream_release(s);
    return hipSuccess;
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)
{
    if (fn == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    struct hf_host_op op = {.kind = HF_OP_HOST_FN, .u.host_fn = {fn, userData}};
    return hf_rt_result(hf_host_stream_submit(stream, &op));
}

hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void *userData,
                                unsigned int flags)
{
    if (callback == NULL || flags != 0)
        return hf_rt_result(hipErrorInvalidValue);
    struct hf_host_op op = {.kind = HF_OP_CALLBACK, .u.callback = {callback, userData, stream}};
    return hf_rt_result(hf_host_stream_submit(stream, &op));
}
