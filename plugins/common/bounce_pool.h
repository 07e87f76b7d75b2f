/*
 * Pinned bounce-buffer pool shared by the plugins. Buffers all have one size, are allocated through
 * the GPU runtime on first demand up to a bound, and are taken and given back one at a time; a
 * taker waits while every buffer is in use, so a pool never holds more pinned memory than
 * buffer size x bound, however many threads do I/O.
 */
#ifndef HF_PLUGIN_COMMON_BOUNCE_POOL_H
#define HF_PLUGIN_COMMON_BOUNCE_POOL_H

#include <stddef.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A pool of equal-sized pinned host buffers. */
struct hf_bounce_pool;

/**
 * Create a pool of at most @p max_buffers buffers of @p buffer_size bytes, allocated with
 * host->gpu->host_alloc_pinned when first needed (creating allocates none). Failures are logged
 * through host->log. Returns 0, -EINVAL for a zero size or count, or -ENOMEM.
 */
int hf_bounce_pool_create(const struct hf_host_api *host, size_t buffer_size, unsigned max_buffers,
                          struct hf_bounce_pool **pool_p);

/**
 * Free every buffer and the pool. Every buffer must have been given back; one still out is a
 * caller bug, logged and left allocated rather than freed under its user.
 */
void hf_bounce_pool_destroy(struct hf_bounce_pool *pool);

/**
 * Take a buffer, allocating one when fewer than the bound exist and none is free, else waiting
 * for one to be given back. When the runtime cannot allocate but other buffers exist, the pool
 * lowers its bound to what it has (logged once) and waits instead. Returns 0, or -HF_EGPU when
 * the pool has no buffer and the runtime cannot allocate one; the runtime's code then goes to
 * *gpu_error_p.
 */
int hf_bounce_pool_take(struct hf_bounce_pool *pool, void **buffer_p, int *gpu_error_p);

/** Give back a buffer from hf_bounce_pool_take, waking one waiting taker. */
void hf_bounce_pool_give(struct hf_bounce_pool *pool, void *buffer);

/** Size in bytes of every buffer of @p pool. */
size_t hf_bounce_pool_buffer_size(const struct hf_bounce_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
