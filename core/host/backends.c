/*
 * The table of loaded backends. Slots are filled by the loader one at a time and published by
 * raising the count with release order, so readers walk it without a lock; a slot is never moved
 * or freed while the process runs (hf_backends_clear is for tests).
 */
#include "host/backends.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/log.h"
#include "host/backend_call.h"
#include "services/stats.h"

_Static_assert(HF_MAX_BACKENDS <= HF_STATS_MAX_BACKENDS,
               "the statistics count the requests of every loaded backend apart");

static struct hf_backend backends[HF_MAX_BACKENDS];
static atomic_uint backend_total;

unsigned hf_backend_count(void)
{
    return atomic_load_explicit(&backend_total, memory_order_acquire);
}

struct hf_backend *hf_backend_at(unsigned index)
{
    return index < hf_backend_count() ? &backends[index] : NULL;
}

struct hf_backend *hf_backend_find(const char *name)
{
    unsigned count = hf_backend_count();
    for (unsigned i = 0; name != NULL && i < count; i++) {
        if (strcmp(backends[i].name, name) == 0)
            return &backends[i];
    }
    return NULL;
}

bool hf_loader_has_direct_backend(void)
{
    unsigned count = hf_backend_count();
    for (unsigned i = 0; i < count; i++) {
        if (backends[i].complete.caps & HF_CAP_DIRECT)
            return true;
    }
    return false;
}

bool hf_backend_retryable(const struct hf_backend *backend, int err)
{
    if (err == ENODEV || err == EREMOTEIO)
        return true;
    for (unsigned i = 0; backend != NULL && i < backend->retry_errno_count; i++) {
        if (backend->retry_errnos[i] == err)
            return true;
    }
    return false;
}

/* Bits of hf_backend.stream_prepared; GPUs past the last bit are prepared on every request. */
#define STREAM_PREPARED_BITS 64

static bool stream_prepared(struct hf_backend *b, int device)
{
    return device < STREAM_PREPARED_BITS &&
           (__atomic_load_n(&b->stream_prepared, __ATOMIC_ACQUIRE) >> device & 1u);
}

void hf_backends_stream_prepare(int device)
{
    static pthread_mutex_t prepare_lock = PTHREAD_MUTEX_INITIALIZER;
    if (device < 0)
        return;
    unsigned count = hf_backend_count();
    bool pending = false;
    for (unsigned i = 0; i < count && !pending; i++)
        pending = !stream_prepared(&backends[i], device);
    if (!pending)
        return;
    pthread_mutex_lock(&prepare_lock);
    for (unsigned i = 0; i < count; i++) {
        struct hf_backend *b = &backends[i];
        if (stream_prepared(b, device))
            continue;
        int rc = hf_call_stream_prepare(b, device);
        if (rc != 0)
            hf_warn("backend %s could not get ready for stream-ordered I/O on GPU %d: %s; "
                    "it may allocate GPU resources while streams are held",
                    b->name, device, strerror(rc < 0 ? -rc : rc));
        else
            hf_debug("backend %s is ready for stream-ordered I/O on GPU %d", b->name, device);
        /* Tried once: asking again on every submission would warn each time, with streams held. */
        if (device < STREAM_PREPARED_BITS)
            __atomic_fetch_or(&b->stream_prepared, (uint64_t)1 << device, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&prepare_lock);
}

struct hf_backend *hf_backends_next_slot(void)
{
    unsigned count = hf_backend_count();
    if (count >= HF_MAX_BACKENDS)
        return NULL;
    memset(&backends[count], 0, sizeof(backends[count]));
    return &backends[count];
}

void hf_backends_publish(void)
{
    unsigned count = hf_backend_count();
    backends[count].index = count;
    atomic_store_explicit(&backend_total, count + 1, memory_order_release);
}

void hf_backends_discard_slot(void)
{
    unsigned count = hf_backend_count();
    if (count < HF_MAX_BACKENDS)
        memset(&backends[count], 0, sizeof(backends[count]));
}

void hf_backends_clear(void)
{
    unsigned count = hf_backend_count();
    atomic_store_explicit(&backend_total, 0, memory_order_release);
    /* Last loaded first, mirroring the load order. */
    for (unsigned i = count; i-- > 0;) {
        hf_call_fini(&backends[i]);
        memset(&backends[i], 0, sizeof(backends[i]));
    }
}
