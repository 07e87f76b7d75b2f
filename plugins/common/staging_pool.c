/*
 * The staging-slot pool: a free list of slots (two pinned buffers, two streams) guarded by one
 * mutex, a condition variable for takers waiting on a full pool, and lazy creation so a process
 * that never moves device memory never pins any or creates a stream. Also where staging memory is
 * placed on the NUMA node of its GPU.
 */
#include "common/staging_pool.h"

#include "common/device_switch.h"
#include "hipfile/plugin_kit.h"

#include <errno.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Node masks handed to the kernel: room for more nodes than any machine we know of has. */
#define NODE_MASK_BITS 1024
#define BITS_PER_WORD (8 * sizeof(unsigned long))
#define NODE_MASK_WORDS (NODE_MASK_BITS / BITS_PER_WORD)

struct hfp_staging_pool {
    const struct hf_host_api *host;
    size_t buffer_size;
    int device;
    atomic_int numa_node; /* node buffers are bound to, -1 for none; dropped after a failure */
    unsigned limit;       /* most slots that may exist; lowered when the runtime runs out */
    hfp_staging_bound_fn bound; /* the moving bound below limit, or NULL */
    void *bound_ctx;
    unsigned allocated; /* slots that exist or are being created */
    bool kept;          /* filled for stream-ordered use: slots are neither created nor freed */
    unsigned free_count;
    struct hfp_staging_slot *free_list;
    pthread_mutex_t lock;
    pthread_cond_t given_back;
};

/* Whether NUMA placement can work: ABI minor 3, and a runtime that page-locks ordinary memory. */
static bool host_can_place(const struct hf_host_api *host)
{
    const struct hf_gpu_ops *gpu = host->gpu;
    return host->abi_minor >= 3 && gpu->struct_size >= hfp_gpu_ops_size(3) &&
           gpu->host_register != NULL && gpu->host_unregister != NULL;
}

/* The memory nodes this process may allocate from (cpuset and all), as a count and a mask. */
static int mems_allowed(unsigned long mask[NODE_MASK_WORDS])
{
    memset(mask, 0, NODE_MASK_WORDS * sizeof(mask[0]));
    if (syscall(SYS_get_mempolicy, NULL, mask, (unsigned long)NODE_MASK_BITS, NULL,
                (unsigned long)MPOL_F_MEMS_ALLOWED) != 0)
        return -errno;
    int count = 0;
    for (size_t i = 0; i < NODE_MASK_WORDS; i++)
        count += __builtin_popcountl(mask[i]);
    return count;
}

/*
 * Where a new pool for @p device puts its buffers. Placement only pays where there is a choice:
 * with a single memory node (or a kernel without NUMA) the pool allocates as it always has.
 */
static int pool_numa_node(const struct hf_host_api *host, int device)
{
    if (device < 0 || !host_can_place(host))
        return -1;
    int node = -1;
    if (host->gpu->device_attribute(device, HF_GPU_ATTR_HOST_NUMA_NODE, &node) != 0 || node < 0)
        return -1;
    unsigned long mask[NODE_MASK_WORDS];
    int nodes = mems_allowed(mask);
    if (nodes <= 1)
        return -1;
    if (node >= NODE_MASK_BITS || !(mask[node / BITS_PER_WORD] & (1ul << (node % BITS_PER_WORD)))) {
        host->log(host, HF_LOG_INFO,
                  "staging pool (GPU %d): NUMA node %d is not one this process may use; "
                  "leaving placement to the runtime",
                  device, node);
        return -1;
    }
    host->log(host, HF_LOG_INFO, "staging pool (GPU %d): buffers go on NUMA node %d", device, node);
    return node;
}

static size_t page_round(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size + page - 1) & ~(page - 1);
}

/*
 * Bind a fresh mapping to @p node, fault every page in there, then pin it. Registering our own
 * mapping works alike with every runtime; hipHostMalloc has no portable way to name a node
 * (AMD's hipHostMallocNumaUser follows the thread's policy, cuMemHostAlloc documents none).
 * Returns 0, or the step that failed in *what_p with -errno or the runtime's error.
 */
static int buffer_alloc_on_node(const struct hf_host_api *host, size_t size, int node, void **ptr_p,
                                const char **what_p)
{
    size_t mapped = page_round(size);
    void *ptr = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ptr == MAP_FAILED) {
        *what_p = "map";
        return -errno;
    }
    unsigned long mask[NODE_MASK_WORDS] = {0};
    mask[node / BITS_PER_WORD] = 1ul << (node % BITS_PER_WORD);
    /* The kernel reads maxnode - 1 bits (the historical off-by-one every caller allows for). */
    if (syscall(SYS_mbind, ptr, mapped, (unsigned long)MPOL_PREFERRED, mask,
                (unsigned long)NODE_MASK_BITS + 1, 0ul) != 0) {
        int err = -errno;
        munmap(ptr, mapped);
        *what_p = "bind";
        return err;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t at = 0; at < mapped; at += page)
        ((volatile char *)ptr)[at] = 0;
    int err = host->gpu->host_register(ptr, mapped);
    if (err != 0) {
        munmap(ptr, mapped);
        *what_p = "register";
        return err;
    }
    *ptr_p = ptr;
    return 0;
}

int hfp_staging_buffer_alloc(const struct hf_host_api *host, size_t size, int numa_node,
                             void **ptr_p, int *bound_node_p)
{
    if (numa_node >= 0 && numa_node < NODE_MASK_BITS && host_can_place(host)) {
        const char *what = "place";
        int err = buffer_alloc_on_node(host, size, numa_node, ptr_p, &what);
        if (err == 0) {
            *bound_node_p = numa_node;
            return 0;
        }
        host->log(host, HF_LOG_WARN,
                  "staging buffer: cannot %s %zu bytes on NUMA node %d (%s %d); pinning them "
                  "wherever the runtime chooses",
                  what, size, numa_node, err < 0 ? strerror(-err) : host->gpu->error_string(err),
                  err < 0 ? -err : err);
    }
    int err = host->gpu->host_alloc_pinned(ptr_p, size);
    if (err == 0)
        *bound_node_p = -1;
    return err;
}

int hfp_staging_buffer_free(const struct hf_host_api *host, void *ptr, size_t size, int bound_node)
{
    const struct hf_gpu_ops *gpu = host->gpu;
    int err;
    if (bound_node < 0) {
        err = gpu->host_free_pinned(ptr);
        if (err != 0)
            host->log(host, HF_LOG_WARN, "staging pool: freeing a pinned buffer failed: %s (%d)",
                      gpu->error_string(err), err);
        return err;
    }
    /* Unpinned before unmapped: the runtime must not keep pages the process gives back. */
    err = gpu->host_unregister(ptr);
    if (err != 0) {
        host->log(host, HF_LOG_WARN,
                  "staging pool: unregistering a staging buffer failed: %s (%d); leaving it mapped",
                  gpu->error_string(err), err);
        return err;
    }
    munmap(ptr, page_round(size));
    return 0;
}

int hfp_staging_pool_create(const struct hf_host_api *host, size_t buffer_size, unsigned max_slots,
                            int device, struct hfp_staging_pool **pool_p)
{
    if (buffer_size == 0 || max_slots == 0) {
        host->log(host, HF_LOG_ERROR, "staging pool: %u slots of %zu-byte buffers is not a pool",
                  max_slots, buffer_size);
        return -EINVAL;
    }
    struct hfp_staging_pool *pool = calloc(1, sizeof(*pool));
    if (pool == NULL)
        goto fail;
    if (pthread_mutex_init(&pool->lock, NULL) != 0)
        goto free_pool;
    if (pthread_cond_init(&pool->given_back, NULL) != 0)
        goto destroy_lock;
    pool->host = host;
    pool->buffer_size = buffer_size;
    pool->device = device;
    atomic_init(&pool->numa_node, pool_numa_node(host, device));
    pool->limit = max_slots;
    *pool_p = pool;
    return 0;

destroy_lock:
    pthread_mutex_destroy(&pool->lock);
free_pool:
    free(pool);
fail:
    host->log(host, HF_LOG_ERROR, "staging pool: out of memory for its bookkeeping");
    return -ENOMEM;
}

/* Release what a slot holds; members still NULL were never created. Failures only warn. */
static void slot_free(const struct hfp_staging_pool *pool, struct hfp_staging_slot *slot)
{
    const struct hf_host_api *host = pool->host;
    const struct hf_gpu_ops *gpu = host->gpu;
    for (int i = 0; i < HF_STAGING_SLOT_BUFFERS; i++) {
        int err = 0;
        if (slot->stream[i] != NULL && (err = gpu->stream_destroy(slot->stream[i])) != 0)
            host->log(host, HF_LOG_WARN, "staging pool: destroying a stream failed: %s (%d)",
                      gpu->error_string(err), err);
        if (slot->buffer[i] != NULL)
            (void)hfp_staging_buffer_free(host, slot->buffer[i], pool->buffer_size,
                                          slot->numa_node[i]);
    }
    free(slot);
}

/*
 * A new slot on the current device. Returns 0, the runtime's error code (positive), or -ENOMEM
 * when the slot's own bookkeeping cannot be allocated.
 */
static int slot_create(struct hfp_staging_pool *pool, struct hfp_staging_slot **slot_p,
                       const char **what_p)
{
    const struct hf_gpu_ops *gpu = pool->host->gpu;
    struct hfp_staging_slot *slot = calloc(1, sizeof(*slot));
    if (slot == NULL) {
        *what_p = "allocate a slot's bookkeeping";
        return -ENOMEM;
    }
    int err = 0;
    for (int i = 0; i < HF_STAGING_SLOT_BUFFERS; i++)
        slot->numa_node[i] = -1;
    for (int i = 0; i < HF_STAGING_SLOT_BUFFERS && err == 0; i++) {
        int node = atomic_load_explicit(&pool->numa_node, memory_order_relaxed);
        err = hfp_staging_buffer_alloc(pool->host, pool->buffer_size, node, &slot->buffer[i],
                                       &slot->numa_node[i]);
        if (err != 0) {
            slot->buffer[i] = NULL;
            *what_p = "pin a staging buffer";
            break;
        }
        /* Placement failed once (logged): later buffers go straight to the runtime. */
        if (node >= 0 && slot->numa_node[i] < 0)
            atomic_store_explicit(&pool->numa_node, -1, memory_order_relaxed);
        err = gpu->stream_create(&slot->stream[i]);
        if (err != 0) {
            slot->stream[i] = NULL;
            *what_p = "create a staging stream";
        }
    }
    if (err != 0) {
        slot_free(pool, slot);
        return err;
    }
    *slot_p = slot;
    return 0;
}

void hfp_staging_pool_destroy(struct hfp_staging_pool *pool)
{
    if (pool == NULL)
        return;
    const struct hf_host_api *host = pool->host;
    const struct hf_gpu_ops *gpu = host->gpu;
    /* Streams are destroyed on the device they were created on; the caller's device comes back. */
    int previous = -1;
    int current;
    if (pool->free_list != NULL && pool->device >= 0 && gpu->get_device(&current) == 0 &&
        current != pool->device && gpu->set_device(pool->device) == 0)
        previous = current;
    while (pool->free_list != NULL) {
        struct hfp_staging_slot *slot = pool->free_list;
        pool->free_list = slot->next;
        slot_free(pool, slot);
    }
    if (previous >= 0)
        (void)gpu->set_device(previous);
    if (pool->allocated != pool->free_count)
        host->log(host, HF_LOG_ERROR,
                  "staging pool: %u slots still taken at teardown; leaving them allocated",
                  pool->allocated - pool->free_count);
    pthread_cond_destroy(&pool->given_back);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

void hfp_staging_pool_set_bound(struct hfp_staging_pool *pool, hfp_staging_bound_fn bound,
                                void *ctx)
{
    pthread_mutex_lock(&pool->lock);
    pool->bound = bound;
    pool->bound_ctx = ctx;
    pthread_mutex_unlock(&pool->lock);
}

/* Most slots that may exist now. Lock held. */
static unsigned limit_now_locked(const struct hfp_staging_pool *pool)
{
    unsigned limit = pool->limit;
    if (pool->bound != NULL) {
        unsigned bound = pool->bound(pool->bound_ctx);
        if (bound < 1)
            bound = 1;
        if (bound < limit)
            limit = bound;
    }
    return limit;
}

/*
 * Take free slots off the list while more slots exist than @p limit allows; the caller frees them
 * unlocked (freeing pinned memory can take milliseconds). Lock held.
 */
static struct hfp_staging_slot *surplus_detach_locked(struct hfp_staging_pool *pool, unsigned limit)
{
    struct hfp_staging_slot *surplus = NULL;
    while (pool->allocated > limit && pool->free_list != NULL) {
        struct hfp_staging_slot *slot = pool->free_list;
        pool->free_list = slot->next;
        pool->free_count--;
        pool->allocated--;
        slot->next = surplus;
        surplus = slot;
    }
    return surplus;
}

static void surplus_free(struct hfp_staging_pool *pool, struct hfp_staging_slot *surplus)
{
    if (surplus == NULL)
        return;
    /* Streams are destroyed on the device they were created on; the caller's device comes back. */
    const struct hf_gpu_ops *gpu = pool->host->gpu;
    int previous = -1;
    int current;
    if (pool->device >= 0 && gpu->get_device(&current) == 0 && current != pool->device &&
        gpu->set_device(pool->device) == 0)
        previous = current;
    while (surplus != NULL) {
        struct hfp_staging_slot *next = surplus->next;
        slot_free(pool, surplus);
        surplus = next;
    }
    if (previous >= 0)
        (void)gpu->set_device(previous);
}

/* hfp_staging_pool_take and _try_take: with @p wait false, -EAGAIN instead of waiting. */
static int pool_take(struct hfp_staging_pool *pool, struct hfp_staging_slot **slot_p,
                     int *gpu_error_p, bool wait)
{
    const struct hf_host_api *host = pool->host;
    pthread_mutex_lock(&pool->lock);
    unsigned limit = limit_now_locked(pool);
    struct hfp_staging_slot *surplus = pool->kept ? NULL : surplus_detach_locked(pool, limit);
    if (surplus != NULL) {
        pthread_mutex_unlock(&pool->lock);
        surplus_free(pool, surplus);
        pthread_mutex_lock(&pool->lock);
    }
    for (;;) {
        /* A kept pool holds surplus slots instead of freeing them; only the bound may be out. */
        bool within = !pool->kept || pool->allocated - pool->free_count < limit;
        if (pool->free_list != NULL && within) {
            struct hfp_staging_slot *slot = pool->free_list;
            pool->free_list = slot->next;
            pool->free_count--;
            pthread_mutex_unlock(&pool->lock);
            slot->next = NULL;
            *slot_p = slot;
            return 0;
        }
        if (pool->allocated < limit && (!pool->kept || pool->allocated == 0)) {
            /* Reserve the slot, then create it unlocked: pinning can take milliseconds. */
            pool->allocated++;
            pthread_mutex_unlock(&pool->lock);
            struct hfp_staging_slot *slot = NULL;
            const char *what = "create a slot";
            int err = slot_create(pool, &slot, &what);
            if (err == 0) {
                *slot_p = slot;
                return 0;
            }
            pthread_mutex_lock(&pool->lock);
            pool->allocated--;
            /* A waiter may now be the one to create, or should learn the new bound. */
            pthread_cond_broadcast(&pool->given_back);
            const char *why = err < 0 ? "out of memory" : host->gpu->error_string(err);
            if (pool->allocated == 0) {
                pthread_mutex_unlock(&pool->lock);
                host->log(host, HF_LOG_ERROR,
                          "staging pool (GPU %d): cannot %s of %zu bytes: %s (%d)", pool->device,
                          what, pool->buffer_size, why, err);
                if (err < 0)
                    return err;
                *gpu_error_p = err;
                return -HF_EGPU;
            }
            if (pool->limit > pool->allocated) {
                pool->limit = pool->allocated;
                host->log(host, HF_LOG_WARN,
                          "staging pool (GPU %d): cannot %s (%s); making do with %u slots",
                          pool->device, what, why, pool->limit);
            }
            if (limit > pool->limit)
                limit = pool->limit;
            continue;
        }
        if (!wait) {
            pthread_mutex_unlock(&pool->lock);
            return -EAGAIN;
        }
        pthread_cond_wait(&pool->given_back, &pool->lock);
        /* The bound may have moved while this taker slept. */
        limit = limit_now_locked(pool);
    }
}

int hfp_staging_pool_take(struct hfp_staging_pool *pool, struct hfp_staging_slot **slot_p,
                          int *gpu_error_p)
{
    return pool_take(pool, slot_p, gpu_error_p, true);
}

int hfp_staging_pool_try_take(struct hfp_staging_pool *pool, struct hfp_staging_slot **slot_p,
                              int *gpu_error_p)
{
    return pool_take(pool, slot_p, gpu_error_p, false);
}

int hfp_staging_pool_take_some(struct hfp_staging_pool *pool, struct hfp_staging_slot **slots,
                               unsigned wanted, unsigned *count_p, int *gpu_error_p)
{
    *count_p = 0;
    int rc = hfp_staging_pool_take(pool, &slots[0], gpu_error_p);
    if (rc < 0)
        return rc;
    unsigned count = 1;
    while (count < wanted) {
        int unused = 0;
        if (hfp_staging_pool_try_take(pool, &slots[count], &unused) < 0)
            break;
        count++;
    }
    *count_p = count;
    return 0;
}

void hfp_staging_pool_give(struct hfp_staging_pool *pool, struct hfp_staging_slot *slot)
{
    pthread_mutex_lock(&pool->lock);
    if (slot == NULL || pool->free_count == pool->allocated) {
        pthread_mutex_unlock(&pool->lock);
        pool->host->log(pool->host, HF_LOG_ERROR,
                        "staging pool: a slot was given back that was not taken; ignoring it");
        return;
    }
    unsigned limit = limit_now_locked(pool);
    if (pool->allocated > limit && !pool->kept) {
        /* Over a bound that was lowered while the slot was out: it goes instead of coming back. */
        pool->allocated--;
        struct hfp_staging_slot *surplus = surplus_detach_locked(pool, limit);
        pthread_cond_broadcast(&pool->given_back);
        pthread_mutex_unlock(&pool->lock);
        slot->next = surplus;
        surplus_free(pool, slot);
        return;
    }
    slot->next = pool->free_list;
    pool->free_list = slot;
    pool->free_count++;
    pthread_cond_signal(&pool->given_back);
    pthread_mutex_unlock(&pool->lock);
}

void hfp_staging_pool_discard(struct hfp_staging_pool *pool, struct hfp_staging_slot *slot)
{
    if (slot == NULL)
        return;
    slot_free(pool, slot);
    pthread_mutex_lock(&pool->lock);
    pool->allocated--;
    pthread_cond_broadcast(&pool->given_back);
    pthread_mutex_unlock(&pool->lock);
}

static int pool_fill(struct hfp_staging_pool *pool, int *gpu_error_p);

int hfp_staging_pool_fill(struct hfp_staging_pool *pool, int *gpu_error_p)
{
    const struct hf_host_api *host = pool->host;
    int previous = -1;
    int rc = hfp_device_enter(host, pool->device, &previous, gpu_error_p);
    if (rc != 0)
        return rc;
    rc = pool_fill(pool, gpu_error_p);
    hfp_device_restore(host, previous);
    return rc;
}

/* hfp_staging_pool_fill with the pool's device current. */
static int pool_fill(struct hfp_staging_pool *pool, int *gpu_error_p)
{
    const struct hf_host_api *host = pool->host;
    pthread_mutex_lock(&pool->lock);
    while (pool->allocated < limit_now_locked(pool)) {
        /* Reserved first, created unlocked, as in hfp_staging_pool_take. */
        pool->allocated++;
        pthread_mutex_unlock(&pool->lock);
        struct hfp_staging_slot *slot = NULL;
        const char *what = "create a slot";
        int err = slot_create(pool, &slot, &what);
        pthread_mutex_lock(&pool->lock);
        if (err == 0) {
            slot->next = pool->free_list;
            pool->free_list = slot;
            pool->free_count++;
            pthread_cond_signal(&pool->given_back);
            continue;
        }
        pool->allocated--;
        pthread_cond_broadcast(&pool->given_back);
        const char *why = err < 0 ? "out of memory" : host->gpu->error_string(err);
        if (pool->allocated == 0) {
            pthread_mutex_unlock(&pool->lock);
            host->log(host, HF_LOG_ERROR, "staging pool (GPU %d): cannot %s of %zu bytes: %s (%d)",
                      pool->device, what, pool->buffer_size, why, err);
            if (err < 0)
                return err;
            *gpu_error_p = err;
            return -HF_EGPU;
        }
        if (pool->limit > pool->allocated)
            pool->limit = pool->allocated;
        host->log(host, HF_LOG_WARN, "staging pool (GPU %d): cannot %s (%s); keeping %u slots",
                  pool->device, what, why, pool->allocated);
        break;
    }
    if (!pool->kept)
        host->log(host, HF_LOG_DEBUG,
                  "staging pool (GPU %d): %u slots of 2 x %zu bytes kept for stream-ordered use",
                  pool->device, pool->allocated, pool->buffer_size);
    pool->kept = true;
    pthread_mutex_unlock(&pool->lock);
    return 0;
}

int hfp_staging_pool_numa_node(const struct hfp_staging_pool *pool)
{
    return atomic_load_explicit(&pool->numa_node, memory_order_relaxed);
}

size_t hfp_staging_pool_buffer_size(const struct hfp_staging_pool *pool)
{
    return pool->buffer_size;
}

unsigned hfp_staging_pool_slot_count(struct hfp_staging_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    unsigned count = pool->allocated;
    pthread_mutex_unlock(&pool->lock);
    return count;
}
