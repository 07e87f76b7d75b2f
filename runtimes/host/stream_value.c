/*
 * Stream memory operations of the host provider, as a stream's worker runs them: a wait-value
 * holds the worker until a word of memory meets a condition, a write-value stores one in stream
 * order. The calls that queue them are in stream_memop.c.
 */
#include "host.h"

/* Wait-value ops sleep here between polls; provider-side writes wake them early. */
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memory_cond = PTHREAD_COND_INITIALIZER;
static atomic_int memory_waiters;

#define WAIT_SPINS 256
#define WAIT_BACKOFF_MAX_NS 100000L

void hf_host_memory_changed(void)
{
    if (atomic_load(&memory_waiters) == 0)
        return;
    pthread_mutex_lock(&memory_lock);
    pthread_cond_broadcast(&memory_cond);
    pthread_mutex_unlock(&memory_lock);
}

static uint64_t value_load(const struct hf_host_op *op)
{
    if (op->u.value.width == 4)
        return __atomic_load_n((const uint32_t *)op->u.value.ptr, __ATOMIC_ACQUIRE);
    return __atomic_load_n((const uint64_t *)op->u.value.ptr, __ATOMIC_ACQUIRE);
}

/* The conditions as HIP documents them; the mask applies to the memory (and for Nor the value). */
bool hf_host_value_ready(const struct hf_host_op *op)
{
    uint64_t width_mask = op->u.value.width == 4 ? UINT32_MAX : UINT64_MAX;
    uint64_t mask = op->u.value.mask & width_mask;
    uint64_t value = op->u.value.value & width_mask;
    uint64_t current = value_load(op) & mask;

    switch (op->u.value.flags) {
    case hipStreamWaitValueGte:
        return current >= value;
    case hipStreamWaitValueEq:
        return current == value;
    case hipStreamWaitValueAnd:
        return (current & value) != 0;
    default: /* hipStreamWaitValueNor */
        return (~(current | (value & mask)) & width_mask) != 0;
    }
}

/*
 * Host threads may satisfy the condition with a plain store that nobody signals, so poll: spin
 * briefly, then sleep with a doubling timeout capped at 100 us, woken early by provider writes.
 * In strict mode the stream counts as held from the moment the condition is seen unmet (or from
 * its queuing, when the enqueuer already counted it) until it is met.
 */
void hf_host_value_wait(const struct hf_host_op *op)
{
    long backoff_ns = 1000;
    bool held = op->u.value.held;

    for (int i = 0; i < WAIT_SPINS; i++) {
        if (hf_host_value_ready(op))
            goto done;
    }
    if (!held && hf_host_strict_holds()) {
        hf_host_hold_begin();
        held = true;
    }
    atomic_fetch_add(&memory_waiters, 1);
    pthread_mutex_lock(&memory_lock);
    while (!hf_host_value_ready(op)) {
        struct timespec deadline;

        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += backoff_ns;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&memory_cond, &memory_lock, &deadline);
        if (backoff_ns < WAIT_BACKOFF_MAX_NS)
            backoff_ns *= 2;
    }
    pthread_mutex_unlock(&memory_lock);
    atomic_fetch_sub(&memory_waiters, 1);
done:
    if (held)
        hf_host_hold_end();
}

void hf_host_value_write(const struct hf_host_op *op)
{
    if (op->u.value.width == 4)
        __atomic_store_n((uint32_t *)op->u.value.ptr, (uint32_t)op->u.value.value,
                         __ATOMIC_RELEASE);
    else
        __atomic_store_n((uint64_t *)op->u.value.ptr, op->u.value.value, __ATOMIC_RELEASE);
    hf_host_memory_changed();
}
