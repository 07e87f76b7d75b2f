/*
 * The recording HIP runtime (device_record_hip.h): forwards to the host provider and counts, per
 * device, pinned allocations, registrations and streams made while that device was current, and
 * the copies queued on each device's streams, noting any that touch another device's memory.
 */
#include "device_record_hip.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_EXPORT __attribute__((visibility("default")))

enum { HIP_OK = 0, HIP_ERROR_INVALID_DEVICE = 101 };
/* hipMemoryTypeDevice in the HIP 5 numbering the host provider reports. */
enum { HIP5_MEMORY_TYPE_DEVICE = 1 };

/* The leading members of hipPointerAttribute_t, alike in every HIP release. */
struct pointer_attributes {
    int type;
    int device;
    void *device_pointer;
    void *host_pointer;
    int is_managed;
    unsigned allocation_flags;
    unsigned char room[64];
};

struct device_slot {
    atomic_long pinned_allocs;
    atomic_long registered;
    atomic_long streams_created;
    atomic_long copies;
    atomic_long copied_bytes;
    atomic_long foreign_copies;
    atomic_long set_device_calls;
};

static struct device_slot slots[DEVICE_RECORD_MAX_DEVICES];
static atomic_int failing_device = -1;

/* The host provider's @p name, opened by soname so it is the instance the program linked. */
static void *real_symbol(_Atomic(void *) *slot, const char *name)
{
    void *fn = atomic_load_explicit(slot, memory_order_acquire);
    if (fn != NULL)
        return fn;
    void *provider = dlopen("libhip-host.so.0", RTLD_NOW | RTLD_GLOBAL);
    fn = provider != NULL ? dlsym(provider, name) : NULL;
    if (fn == NULL) {
        fprintf(stderr, "device-record-hip: libhip-host.so.0 does not provide %s\n", name);
        abort();
    }
    atomic_store_explicit(slot, fn, memory_order_release);
    return fn;
}

#define REAL(name, type, var)                                                                      \
    static _Atomic(void *) var##_slot;                                                             \
    __typeof__(type) var;                                                                          \
    *(void **)&var = real_symbol(&var##_slot, name)

static struct device_slot *slot_of(int device)
{
    return device >= 0 && device < DEVICE_RECORD_MAX_DEVICES ? &slots[device] : NULL;
}

static struct device_slot *current_slot(void)
{
    REAL("hipGetDevice", int (*)(int *), get_device);
    int device = -1;
    return get_device(&device) == HIP_OK ? slot_of(device) : NULL;
}

/* The device owning @p ptr when it is device memory, else -1. */
static int device_memory_owner(const void *ptr)
{
    REAL("hipPointerGetAttributes", int (*)(void *, const void *), attributes);
    struct pointer_attributes attr;
    memset(&attr, 0, sizeof(attr));
    if (attributes(&attr, ptr) != HIP_OK || attr.type != HIP5_MEMORY_TYPE_DEVICE)
        return -1;
    return attr.device;
}

RECORD_EXPORT void device_record_counts(int device, struct device_record_counts *counts_p)
{
    memset(counts_p, 0, sizeof(*counts_p));
    struct device_slot *s = slot_of(device);
    if (s == NULL)
        return;
    counts_p->pinned_allocs = atomic_load(&s->pinned_allocs);
    counts_p->registered = atomic_load(&s->registered);
    counts_p->streams_created = atomic_load(&s->streams_created);
    counts_p->copies = atomic_load(&s->copies);
    counts_p->copied_bytes = atomic_load(&s->copied_bytes);
    counts_p->foreign_copies = atomic_load(&s->foreign_copies);
    counts_p->set_device_calls = atomic_load(&s->set_device_calls);
}

RECORD_EXPORT void device_record_reset(void)
{
    for (int i = 0; i < DEVICE_RECORD_MAX_DEVICES; i++) {
        struct device_slot *s = &slots[i];
        atomic_store(&s->pinned_allocs, 0);
        atomic_store(&s->registered, 0);
        atomic_store(&s->streams_created, 0);
        atomic_store(&s->copies, 0);
        atomic_store(&s->copied_bytes, 0);
        atomic_store(&s->foreign_copies, 0);
        atomic_store(&s->set_device_calls, 0);
    }
    atomic_store(&failing_device, -1);
}

RECORD_EXPORT void device_record_fail_set_device(int device)
{
    atomic_store(&failing_device, device);
}

/* hipError_t is an int-sized enum and handles are pointers, all the core assumes of them too. */
#define FORWARD(name, params, args)                                                                \
    RECORD_EXPORT int name params                                                                  \
    {                                                                                              \
        REAL(#name, int(*) params, real);                                                          \
        return real args;                                                                          \
    }

FORWARD(hipRuntimeGetVersion, (int *version_p), (version_p))
FORWARD(hipGetDeviceCount, (int *count_p), (count_p))
FORWARD(hipGetDevice, (int *device_p), (device_p))
FORWARD(hipPointerGetAttributes, (void *attributes_p, const void *ptr), (attributes_p, ptr))
FORWARD(hipMemGetAddressRange, (void **base_p, size_t *size_p, void *ptr), (base_p, size_p, ptr))
FORWARD(hipHostFree, (void *ptr), (ptr))
FORWARD(hipHostUnregister, (void *ptr), (ptr))
FORWARD(hipMemcpy, (void *dst, const void *src, size_t size, int kind), (dst, src, size, kind))
FORWARD(hipStreamDestroy, (void *stream), (stream))
FORWARD(hipStreamSynchronize, (void *stream), (stream))
FORWARD(hipStreamGetDevice, (void *stream, int *device_p), (stream, device_p))
FORWARD(hipLaunchHostFunc, (void *stream, void (*fn)(void *user), void *user), (stream, fn, user))
FORWARD(hipStreamAddCallback,
        (void *stream, void (*fn)(void *stream, int status, void *user), void *user,
         unsigned flags),
        (stream, fn, user, flags))
FORWARD(hipStreamWaitValue32,
        (void *stream, void *ptr, uint32_t value, unsigned flags, uint32_t mask),
        (stream, ptr, value, flags, mask))
FORWARD(hipStreamWaitValue64,
        (void *stream, void *ptr, uint64_t value, unsigned flags, uint64_t mask),
        (stream, ptr, value, flags, mask))
FORWARD(hipStreamWriteValue32, (void *stream, void *ptr, uint32_t value, unsigned flags),
        (stream, ptr, value, flags))
FORWARD(hipStreamWriteValue64, (void *stream, void *ptr, uint64_t value, unsigned flags),
        (stream, ptr, value, flags))
FORWARD(hipEventCreate, (void **event_p), (event_p))
FORWARD(hipEventCreateWithFlags, (void **event_p, unsigned flags), (event_p, flags))
FORWARD(hipEventRecord, (void *event, void *stream), (event, stream))
FORWARD(hipEventQuery, (void *event), (event))
FORWARD(hipEventSynchronize, (void *event), (event))
FORWARD(hipEventDestroy, (void *event), (event))
FORWARD(hipDeviceGetAttribute, (int *value_p, int attribute, int device),
        (value_p, attribute, device))

RECORD_EXPORT const char *hipGetErrorString(int err)
{
    REAL("hipGetErrorString", const char *(*)(int), real);
    return real(err);
}

RECORD_EXPORT int hipSetDevice(int device)
{
    REAL("hipSetDevice", int (*)(int), real);
    struct device_slot *s = slot_of(device);
    if (s != NULL)
        atomic_fetch_add(&s->set_device_calls, 1);
    if (device >= 0 && device == atomic_load(&failing_device))
        return HIP_ERROR_INVALID_DEVICE;
    return real(device);
}

RECORD_EXPORT int hipHostMalloc(void **ptr_p, size_t size, unsigned flags)
{
    REAL("hipHostMalloc", int (*)(void **, size_t, unsigned), real);
    int rc = real(ptr_p, size, flags);
    struct device_slot *s = current_slot();
    if (rc == HIP_OK && s != NULL)
        atomic_fetch_add(&s->pinned_allocs, 1);
    return rc;
}

RECORD_EXPORT int hipHostRegister(void *ptr, size_t size, unsigned flags)
{
    REAL("hipHostRegister", int (*)(void *, size_t, unsigned), real);
    int rc = real(ptr, size, flags);
    struct device_slot *s = current_slot();
    if (rc == HIP_OK && s != NULL)
        atomic_fetch_add(&s->registered, 1);
    return rc;
}

RECORD_EXPORT int hipStreamCreateWithFlags(void **stream_p, unsigned flags)
{
    REAL("hipStreamCreateWithFlags", int (*)(void **, unsigned), real);
    int rc = real(stream_p, flags);
    struct device_slot *s = current_slot();
    if (rc == HIP_OK && s != NULL)
        atomic_fetch_add(&s->streams_created, 1);
    return rc;
}

/* A copy counts for the device of the stream it is queued on (the device whose engine runs it). */
RECORD_EXPORT int hipMemcpyAsync(void *dst, const void *src, size_t size, int kind, void *stream)
{
    REAL("hipMemcpyAsync", int (*)(void *, const void *, size_t, int, void *), real);
    REAL("hipStreamGetDevice", int (*)(void *, int *), stream_device);
    int device = -1;
    struct device_slot *s = stream_device(stream, &device) == HIP_OK ? slot_of(device) : NULL;
    if (s != NULL) {
        int dst_owner = device_memory_owner(dst);
        int src_owner = device_memory_owner(src);
        atomic_fetch_add(&s->copies, 1);
        atomic_fetch_add(&s->copied_bytes, (long)size);
        if ((dst_owner >= 0 && dst_owner != device) || (src_owner >= 0 && src_owner != device))
            atomic_fetch_add(&s->foreign_copies, 1);
    }
    return real(dst, src, size, kind, stream);
}
