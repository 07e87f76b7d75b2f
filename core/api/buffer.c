/*
 * Buffer registration and the per-I/O resolution of a memory pointer: a registered buffer is found
 * by its exact base; any other pointer is checked with the GPU runtime and described as an
 * unregistered view running to the end of its allocation (API.md section 8.3).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/driver.h"
#include "api/registry.h"
#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "host/backend_call.h"
#include "services/gpu.h"
#include "services/stats.h"

/* hipErrorInvalidValue has the same value in every HIP ABI and in our providers. */
#define HIP_ERROR_INVALID_VALUE 1

static pthread_mutex_t buffer_lock = PTHREAD_MUTEX_INITIALIZER;
/* Sorted by base address, so exact look-ups and overlap checks are binary searches. */
static struct hf_buffer **buffers;
static size_t buffer_len;
static size_t buffer_cap;

/* Index of the first buffer whose base is >= @p base. Called with buffer_lock held. */
static size_t buffer_lower_bound(uintptr_t base)
{
    size_t lo = 0, hi = buffer_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)buffers[mid]->info.base < base)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void buffer_backends_release(struct hf_buffer *buffer)
{
    for (unsigned i = 0; i < hf_backend_count(); i++) {
        struct hf_backend *b = hf_backend_at(i);
        if (!buffer->declined[i])
            hf_call_buf_deregister(b, buffer->backend_ctx[i]);
    }
}

void hf_buffer_release(struct hf_buffer *buffer)
{
    if (buffer != NULL && atomic_fetch_sub(&buffer->refs, 1) == 1) {
        buffer_backends_release(buffer);
        free(buffer);
    }
}

static bool mem_type_allowed(int mem_type)
{
    if (mem_type == HF_MEM_DEVICE)
        return true;
    /* Host and managed memory only when the user opted in (properties.allow_system_memory). */
    if (mem_type == HF_MEM_HOST_PINNED || mem_type == HF_MEM_UNKNOWN || mem_type == HF_MEM_MANAGED)
        return hf_setting_bool(HF_SETTING_ALLOW_SYSTEM_MEMORY);
    return false;
}

const char *hf_buffer_mem_type_name(int mem_type)
{
    switch (mem_type) {
    case HF_MEM_DEVICE:
        return "device";
    case HF_MEM_HOST_PINNED:
        return "pinned host";
    case HF_MEM_MANAGED:
        return "managed";
    case HF_MEM_ARRAY:
        return "array";
    default:
        return "pageable host";
    }
}

/*
 * Ask the runtime what @p ptr is. With allow_system_memory, a pointer the runtime does not know
 * (HIP 5.x answers hipErrorInvalidValue) is taken as pageable host memory of unknown extent.
 */
static hipFileOpError_t buffer_query(const void *ptr, struct hf_gpu_pointer_info *pi,
                                     int *hip_err_p, const char *what)
{
    const struct hf_gpu_ops *gpu = hf_gpu();
    memset(pi, 0, sizeof(*pi));
    int rc = gpu->pointer_info(ptr, pi);
    if (rc == HIP_ERROR_INVALID_VALUE && hf_setting_bool(HF_SETTING_ALLOW_SYSTEM_MEMORY)) {
        pi->mem_type = HF_MEM_UNKNOWN;
        pi->device = -1;
        pi->alloc_base = NULL;
        pi->alloc_size = 0;
        pi->host_accessible = true;
        return hipFileSuccess;
    }
    /* ROCm 6 reports unknown host memory as success with type "unregistered"; HIP 5.x and our
     * providers refuse the query. Both mean the same thing here. */
    if (rc == HIP_ERROR_INVALID_VALUE || (rc == 0 && pi->mem_type == HF_MEM_UNKNOWN &&
                                          !hf_setting_bool(HF_SETTING_ALLOW_SYSTEM_MEMORY))) {
        hf_error("%s: %p is not memory the GPU runtime knows", what, ptr);
        return hipFileInvalidValue;
    }
    if (rc != 0) {
        hf_error("%s: pointer query for %p failed: %s", what, ptr, gpu->error_string(rc));
        *hip_err_p = rc;
        return hipFileHipDriverError;
    }
    if (!mem_type_allowed(pi->mem_type)) {
        hf_error("%s: %p is %s memory, not device memory%s", what, ptr,
                 hf_buffer_mem_type_name(pi->mem_type),
                 pi->mem_type == HF_MEM_ARRAY ? "" : " (see properties.allow_system_memory)");
        return hipFileHipMemoryTypeInvalid;
    }
    return hipFileSuccess;
}

/* Bytes from @p ptr to the end of its allocation, or SIZE_MAX when the runtime cannot say. */
static size_t bytes_to_alloc_end(const void *ptr, const struct hf_gpu_pointer_info *pi)
{
    if (pi->alloc_base == NULL || pi->alloc_size == 0)
        return SIZE_MAX;
    uintptr_t end = (uintptr_t)pi->alloc_base + pi->alloc_size;
    return (uintptr_t)ptr < end ? (size_t)(end - (uintptr_t)ptr) : 0;
}

static void buffer_offer_to_backends(struct hf_buffer *buffer)
{
    for (unsigned i = 0; i < hf_backend_count(); i++) {
        struct hf_backend *b = hf_backend_at(i);
        void *ctx = NULL;
        int rc = hf_call_buf_register(b, &buffer->info, &ctx);
        if (rc == 0) {
            buffer->backend_ctx[i] = ctx;
        } else {
            buffer->declined[i] = true;
            if (rc == -EOPNOTSUPP)
                hf_debug("buffer register: backend %s declines %p", b->name, buffer->info.base);
            else
                hf_warn("buffer register: backend %s failed to accept %p: %s", b->name,
                        buffer->info.base, strerror(-rc));
        }
    }
}

/* Called with buffer_lock held. */
static hipFileOpError_t buffer_insert(struct hf_buffer *buffer)
{
    uintptr_t base = (uintptr_t)buffer->info.base;
    uintptr_t end = base + buffer->info.length;
    size_t at = buffer_lower_bound(base);
    if (at < buffer_len && (uintptr_t)buffers[at]->info.base == base) {
        hf_error("hipFileBufRegister: %p is already registered", buffer->info.base);
        return hipFileMemoryAlreadyRegistered;
    }
    const struct hf_buffer *prev = at > 0 ? buffers[at - 1] : NULL;
    const struct hf_buffer *next = at < buffer_len ? buffers[at] : NULL;
    if ((prev && (uintptr_t)prev->info.base + prev->info.length > base) ||
        (next && (uintptr_t)next->info.base < end)) {
        const struct hf_buffer *o =
            (prev && (uintptr_t)prev->info.base + prev->info.length > base) ? prev : next;
        hf_error("hipFileBufRegister: [%p, +%zu) overlaps the registered buffer [%p, +%zu)",
                 buffer->info.base, buffer->info.length, o->info.base, o->info.length);
        return hipFileMemoryAlreadyRegistered;
    }
    if (buffer_len == buffer_cap) {
        size_t cap = buffer_cap ? buffer_cap * 2 : 16;
        struct hf_buffer **grown = realloc(buffers, cap * sizeof(*grown));
        if (grown == NULL) {
            hf_error("hipFileBufRegister: out of memory");
            return hipFileInternalError;
        }
        buffers = grown;
        buffer_cap = cap;
    }
    memmove(&buffers[at + 1], &buffers[at], (buffer_len - at) * sizeof(*buffers));
    buffers[at] = buffer;
    buffer_len++;
    return hipFileSuccess;
}

hipFileError_t hf_buffer_register(const void *base, size_t length, int flags)
{
    /* Before the first buffer exists, so the last close always finds the hook. */
    hf_driver_on_last_close(HF_TEARDOWN_BUFFERS, hf_buffer_drop_all);
    hipFileOpError_t err = hf_driver_ensure_open();
    if (err != hipFileSuccess)
        return hf_status(err);
    if (base == NULL) {
        hf_error("hipFileBufRegister: buffer_base is NULL");
        return hf_status(hipFileInvalidValue);
    }
    if (length == 0) {
        hf_error("hipFileBufRegister: length is 0");
        return hf_status(hipFileInvalidValue);
    }
    /* AMD: a range that no allocation can hold is a pointer range error, like one that is too long.
     */
    if ((uintptr_t)base + length < (uintptr_t)base) {
        hf_error("hipFileBufRegister: [%p, +%zu) wraps the address space", base, length);
        return hf_status(hipFileHipPointerRangeError);
    }
    struct hf_gpu_pointer_info pi;
    int hip_err = 0;
    err = buffer_query(base, &pi, &hip_err, "hipFileBufRegister");
    if (err == hipFileHipDriverError)
        return hf_status_hip(hip_err);
    if (err != hipFileSuccess)
        return hf_status(err);
    size_t room = bytes_to_alloc_end(base, &pi);
    if (length > room) {
        hf_error("hipFileBufRegister: [%p, +%zu) runs past its allocation (%zu bytes left)", base,
                 length, room);
        return hf_status(hipFileHipPointerRangeError);
    }

    struct hf_buffer *buffer = calloc(1, sizeof(*buffer));
    if (buffer == NULL) {
        hf_error("hipFileBufRegister: out of memory");
        return hf_status(hipFileInternalError);
    }
    buffer->info.struct_size = sizeof(buffer->info);
    buffer->info.mem_type = pi.mem_type;
    buffer->info.base = (void *)base;
    buffer->info.length = length;
    buffer->info.device = pi.device;
    buffer->info.host_accessible = pi.host_accessible;
    buffer->info.registered = true;
    buffer->info.flags = flags;
    atomic_init(&buffer->refs, 1);

    pthread_mutex_lock(&buffer_lock);
    err = buffer_insert(buffer);
    pthread_mutex_unlock(&buffer_lock);
    if (err != hipFileSuccess) {
        free(buffer);
        return hf_status(err);
    }
    /* Offered after insertion: a failed insert never reaches a backend. */
    buffer_offer_to_backends(buffer);
    hf_stats_buf_register(true, pi.mem_type == HF_MEM_DEVICE ? pi.device : -1, length);
    return hf_status(hipFileSuccess);
}

hipFileError_t hf_buffer_deregister(const void *base)
{
    if (!hf_driver_is_open()) {
        hf_error("hipFileBufDeregister: driver is not open");
        return hf_status(hipFileDriverClosing);
    }
    pthread_mutex_lock(&buffer_lock);
    size_t at = buffer_lower_bound((uintptr_t)base);
    if (base == NULL || at == buffer_len || buffers[at]->info.base != base) {
        pthread_mutex_unlock(&buffer_lock);
        hf_error("hipFileBufDeregister: %p is not a registered buffer base", base);
        return hf_status(hipFileMemoryNotRegistered);
    }
    struct hf_buffer *buffer = buffers[at];
    if (atomic_load(&buffer->refs) > 1) {
        pthread_mutex_unlock(&buffer_lock);
        hf_error("hipFileBufDeregister: %p has I/O in flight", base);
        return hf_status(hipFileInternalError);
    }
    memmove(&buffers[at], &buffers[at + 1], (buffer_len - at - 1) * sizeof(*buffers));
    buffer_len--;
    pthread_mutex_unlock(&buffer_lock);
    hf_stats_buf_deregister(true, buffer->info.mem_type == HF_MEM_DEVICE ? buffer->info.device : -1,
                            buffer->info.length);
    hf_buffer_release(buffer);
    return hf_status(hipFileSuccess);
}

hipFileOpError_t hf_buffer_resolve(const void *ptr, struct hf_buffer **buffer_p,
                                   struct hf_buf_info *view_p, int *hip_err_p)
{
    pthread_mutex_lock(&buffer_lock);
    size_t at = buffer_lower_bound((uintptr_t)ptr);
    if (at < buffer_len && buffers[at]->info.base == ptr) {
        struct hf_buffer *buffer = buffers[at];
        atomic_fetch_add(&buffer->refs, 1);
        pthread_mutex_unlock(&buffer_lock);
        *buffer_p = buffer;
        return hipFileSuccess;
    }
    pthread_mutex_unlock(&buffer_lock);

    struct hf_gpu_pointer_info pi;
    hipFileOpError_t err = buffer_query(ptr, &pi, hip_err_p, "I/O buffer");
    if (err != hipFileSuccess)
        return err;
    memset(view_p, 0, sizeof(*view_p));
    view_p->struct_size = sizeof(*view_p);
    view_p->mem_type = pi.mem_type;
    view_p->base = (void *)ptr;
    view_p->length = bytes_to_alloc_end(ptr, &pi);
    view_p->device = pi.device;
    view_p->host_accessible = pi.host_accessible;
    view_p->registered = false;
    *buffer_p = NULL;
    return hipFileSuccess;
}

void hf_buffer_drop_all(void)
{
    pthread_mutex_lock(&buffer_lock);
    for (size_t i = 0; i < buffer_len; i++)
        hf_buffer_release(buffers[i]);
    buffer_len = 0;
    pthread_mutex_unlock(&buffer_lock);
}

size_t hf_buffer_count(void)
{
    pthread_mutex_lock(&buffer_lock);
    size_t n = buffer_len;
    pthread_mutex_unlock(&buffer_lock);
    return n;
}

HIPFILE_API hipFileError_t hipFileBufRegister(const void *buffer_base, size_t length, int flags)
{
    hipFileError_t e = hf_buffer_register(buffer_base, length, flags);
    if (e.err != hipFileSuccess)
        hf_stats_buf_register(false, -1, 0);
    return e;
}

HIPFILE_API hipFileError_t hipFileBufDeregister(const void *buffer_base)
{
    hipFileError_t e = hf_buffer_deregister(buffer_base);
    if (e.err != hipFileSuccess)
        hf_stats_buf_deregister(false, -1, 0);
    return e;
}
