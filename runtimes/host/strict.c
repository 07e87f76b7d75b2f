/*
 * Strict holds (HIP_HOST_STRICT_HOLDS=1): while any stream is held by a stream wait-value whose
 * condition is not met, the CUDA driver has been seen to block calls that create or free streams
 * and pinned or device memory until the stream moves. The host provider does not need to, so a
 * program that makes such calls while it holds streams runs here and deadlocks on a GPU. Strict
 * mode makes those calls wait the same way, and turns a wait longer than the timeout into an abort
 * that names the call, so CPU tests catch the pattern.
 */
#include <errno.h>
#include <stdlib.h>

#include "host.h"

#define STRICT_TIMEOUT_DEFAULT_MS 5000L
#define STRICT_TIMEOUT_MAX_MS 86400000L

atomic_bool hf_host_strict_on;

static long strict_timeout_ms = STRICT_TIMEOUT_DEFAULT_MS;

/* Guards held_count. Taken after a stream's lock, never before one. */
static pthread_mutex_t holds_lock = PTHREAD_MUTEX_INITIALIZER;
/* Signalled when held_count drops to 0; uses CLOCK_MONOTONIC (set up in strict_read). */
static pthread_cond_t holds_released;
/* Streams whose next operation is a wait-value whose condition is not met. */
static long held_count;

static void strict_timeout_read(void)
{
    const char *text = secure_getenv("HIP_HOST_STRICT_HOLDS_TIMEOUT_MS");
    char *end;
    long ms;

    if (text == NULL || text[0] == '\0')
        return;
    errno = 0;
    ms = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || ms < 1 || ms > STRICT_TIMEOUT_MAX_MS) {
        hf_rt_warn("HIP_HOST_STRICT_HOLDS_TIMEOUT_MS=\"%s\" is not a number of milliseconds in "
                   "1..%ld; using %ld",
                   text, STRICT_TIMEOUT_MAX_MS, STRICT_TIMEOUT_DEFAULT_MS);
        return;
    }
    strict_timeout_ms = ms;
}

static pthread_once_t strict_once = PTHREAD_ONCE_INIT;

static void strict_read(void)
{
    const char *text = secure_getenv("HIP_HOST_STRICT_HOLDS");
    pthread_condattr_t attr;

    if (text == NULL || text[0] == '\0' || (text[0] == '0' && text[1] == '\0'))
        return;
    if (!(text[0] == '1' && text[1] == '\0')) {
        hf_rt_warn("HIP_HOST_STRICT_HOLDS=\"%s\" is neither 0 nor 1; strict holds stay off", text);
        return;
    }
    strict_timeout_read();
    if (pthread_condattr_init(&attr) != 0 ||
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&holds_released, &attr) != 0) {
        hf_rt_warn("HIP_HOST_STRICT_HOLDS=1: cannot set up a monotonic condition variable; strict "
                   "holds stay off");
        return;
    }
    pthread_condattr_destroy(&attr);
    atomic_store_explicit(&hf_host_strict_on, true, memory_order_relaxed);
}

void hf_host_strict_init(void)
{
    pthread_once(&strict_once, strict_read);
}

void hf_host_hold_begin(void)
{
    pthread_mutex_lock(&holds_lock);
    held_count++;
    pthread_mutex_unlock(&holds_lock);
}

void hf_host_hold_end(void)
{
    pthread_mutex_lock(&holds_lock);
    if (--held_count == 0)
        pthread_cond_broadcast(&holds_released);
    pthread_mutex_unlock(&holds_lock);
}

void hf_host_strict_gate(const char *call)
{
    struct timespec deadline;

    hf_host_strict_init();
    if (!hf_host_strict_holds())
        return;
    pthread_mutex_lock(&holds_lock);
    if (held_count == 0) {
        pthread_mutex_unlock(&holds_lock);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += strict_timeout_ms / 1000;
    deadline.tv_nsec += (strict_timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    while (held_count > 0) {
        if (pthread_cond_timedwait(&holds_released, &holds_lock, &deadline) == ETIMEDOUT &&
            held_count > 0) {
            /* One line, then abort: the message is the test's diagnosis. */
            hf_rt_warn("HIP_HOST_STRICT_HOLDS: %s called while a stream is held by an unmet "
                       "stream wait-value (%ld held, still after %ld ms): the CUDA driver would "
                       "have blocked here for as long as the stream is held (a deadlock when the "
                       "stream waits for the caller); aborting",
                       call, held_count, strict_timeout_ms);
            abort();
        }
    }
    pthread_mutex_unlock(&holds_lock);
}
