/*
 * Staging slots for pipelined transfers between files and one GPU. A slot is two pinned host
 * buffers of one size and two non-blocking streams created on the pool's device, one stream per
 * buffer, so the file I/O of one chunk can run while the copy of the previous chunk is in flight
 * and only the stream of the buffer about to be reused needs synchronizing. Slots are created on
 * first demand up to a bound, handed out whole, given back for reuse, and freed with the pool. The
 * bound may move while the pool is in use (hfp_staging_pool_set_bound): the pool then shrinks as
 * slots come back, or grows on demand. Where the runtime names the NUMA node nearest the pool's
 * GPU and the machine has more than one, the buffers are placed on that node.
 */
#ifndef HF_PLUGIN_COMMON_STAGING_POOL_H
#define HF_PLUGIN_COMMON_STAGING_POOL_H

#include <stddef.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Buffers (and streams) in one staging slot. */
#define HF_STAGING_SLOT_BUFFERS 2

/** One slot: buffer[i] is only ever copied to or from on stream[i]. */
struct hfp_staging_slot {
    void *buffer[HF_STAGING_SLOT_BUFFERS];  /**< pinned host memory, page aligned */
    void *stream[HF_STAGING_SLOT_BUFFERS];  /**< the runtime's non-blocking streams */
    int numa_node[HF_STAGING_SLOT_BUFFERS]; /**< node buffer[i] is bound to, -1 for none */
    struct hfp_staging_slot *next;          /**< the pool's free list; not for takers */
};

/** A bounded set of staging slots for one device. */
struct hfp_staging_pool;

/**
 * Create a pool of at most @p max_slots slots whose buffers are @p buffer_size bytes, for GPU
 * @p device (-1: memory no GPU owns; streams then belong to whichever device is current). Creating
 * allocates no slot. Failures are logged through host->log. Returns 0, -EINVAL for a zero size or
 * count, or -ENOMEM.
 */
int hfp_staging_pool_create(const struct hf_host_api *host, size_t buffer_size, unsigned max_slots,
                            int device, struct hfp_staging_pool **pool_p);

/**
 * Free every slot and the pool, making the pool's device current for the calls and restoring the
 * caller's afterwards. Every slot must have been given back; one still out is a caller bug, logged
 * and left allocated rather than freed under its user.
 */
void hfp_staging_pool_destroy(struct hfp_staging_pool *pool);

/**
 * Take a slot, creating one when fewer than the bound exist and none is free, else waiting for one
 * to be given back. The caller must have made the pool's device current (streams are created on
 * the current device). When the runtime cannot create another slot but others exist, the pool
 * lowers its bound to what it has (logged once) and waits instead. Returns 0, -HF_EGPU when the
 * pool has no slot and the runtime cannot create one (the runtime's code then goes to
 * *gpu_error_p), or -ENOMEM when not even the slot's bookkeeping can be allocated.
 */
int hfp_staging_pool_take(struct hfp_staging_pool *pool, struct hfp_staging_slot **slot_p,
                          int *gpu_error_p);

/**
 * hfp_staging_pool_take that never waits: -EAGAIN when every slot the bound allows is out. For
 * takers that can make do with the slots they hold already.
 */
int hfp_staging_pool_try_take(struct hfp_staging_pool *pool, struct hfp_staging_slot **slot_p,
                              int *gpu_error_p);

/**
 * Take up to @p wanted slots (at least one) into @p slots: the first waiting for one
 * (hfp_staging_pool_take), the others only while one is free now, for a request that can run in as
 * many lanes as it gets. *count_p gets how many were taken. Returns 0, or what
 * hfp_staging_pool_take returned for the first (nothing taken).
 */
int hfp_staging_pool_take_some(struct hfp_staging_pool *pool, struct hfp_staging_slot **slots,
                               unsigned wanted, unsigned *count_p, int *gpu_error_p);

/**
 * Give back a slot from hfp_staging_pool_take, waking one waiting taker. Nothing may still be
 * queued on its streams.
 */
void hfp_staging_pool_give(struct hfp_staging_pool *pool, struct hfp_staging_slot *slot);

/**
 * Destroy a slot whose streams saw a runtime failure instead of giving it back, so the next taker
 * gets fresh streams; the pool may create a replacement later.
 */
void hfp_staging_pool_discard(struct hfp_staging_pool *pool, struct hfp_staging_slot *slot);

/**
 * How many slots a pool may hold right now, asked whenever the pool would create a slot and
 * whenever a slot comes back; @p ctx is what hfp_staging_pool_set_bound was given. Must not block.
 */
typedef unsigned (*hfp_staging_bound_fn)(void *ctx);

/**
 * Let @p bound lower the pool's limit below the max_slots it was created with, at any time (a
 * bound of 0 counts as 1: a pool must be able to serve). Above the bound, the pool stops creating
 * slots and frees slots as they are given back until it is within it; when the bound rises, it
 * creates slots again on demand. NULL removes the bound. Call before the pool is shared.
 */
void hfp_staging_pool_set_bound(struct hfp_staging_pool *pool, hfp_staging_bound_fn bound,
                                void *ctx);

/**
 * The NUMA node @p pool binds its buffers to, or -1 when it leaves placement to the runtime: the
 * pool belongs to no GPU, the runtime does not say where its GPU is (or cannot register host
 * memory), the machine has a single memory node, or binding failed once.
 */
int hfp_staging_pool_numa_node(const struct hfp_staging_pool *pool);

/**
 * Allocate @p size bytes of page-locked host memory for staging. With @p numa_node >= 0 and a
 * runtime that registers host memory (hf_gpu_ops.host_register), the memory is an anonymous mapping
 * whose pages are bound to that node (MPOL_PREFERRED: another node when that one is full, never a
 * failure), faulted in there and then registered with the runtime for every GPU. Otherwise, or when
 * binding or registering fails (logged), it comes from host_alloc_pinned, placed as the runtime
 * chooses. *bound_node_p gets the node the memory is bound to, or -1. Returns 0, or the runtime's
 * error (positive) when not even host_alloc_pinned succeeds.
 */
int hfp_staging_buffer_alloc(const struct hf_host_api *host, size_t size, int numa_node,
                             void **ptr_p, int *bound_node_p);

/**
 * Free memory from hfp_staging_buffer_alloc; @p size and @p bound_node are what it was given and
 * reported. Returns 0 or the runtime's error (logged).
 */
int hfp_staging_buffer_free(const struct hf_host_api *host, void *ptr, size_t size, int bound_node);

/**
 * Create slots until the pool holds as many as its bound allows now, then keep them: from then on
 * the pool never creates or frees a slot on its own (a runtime may block every thread when a
 * stream or pinned memory is created or freed while it holds an application stream). A bound
 * lowered later limits how many slots are out at once instead of freeing any; a bound raised later
 * creates none. A pool left without any slot (every one discarded) still creates one for a taker.
 * The pool's device is made current for the calls and the caller's put back. Returns 0 (also
 * when the runtime ran out
 * after some slots were made: the pool keeps those, logged), -HF_EGPU with the runtime's code in
 * *gpu_error_p when it could make none, or -ENOMEM.
 */
int hfp_staging_pool_fill(struct hfp_staging_pool *pool, int *gpu_error_p);

/** Size in bytes of each buffer of every slot of @p pool. */
size_t hfp_staging_pool_buffer_size(const struct hfp_staging_pool *pool);

/** Slots that exist now (taken or free). */
unsigned hfp_staging_pool_slot_count(struct hfp_staging_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
