/*
 * The pinned bounce-buffer pool: a free list guarded by one mutex, a condition variable for takers
 * waiting on a full pool, and lazy allocation so a process that never moves device memory never
 * pins any.
 */
#include "common/bounce_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct hf_bounce_pool {
    const struct hf_host_api *host;
    size_t buffer_size;
    unsigned capacity;  /* entries in free_list: the bound the pool was created with */
    unsigned limit;     /* most buffers that may exist; lowered when the runtime runs out */
    unsigned allocated; /* buffers that exist or are being allocated */
    unsigned free_count;
    void **free_list;
    pthread_mutex_t lock;
    pthread_cond_t given_back;
};

int hf_bounce_pool_create(const struct hf_host_api *host, size_t buffer_size, unsigned max_buffers,
                          struct hf_bounce_pool **pool_p)
{
    if (buffer_size == 0 || max_buffers == 0) {
        host->log(host, HF_LOG_ERROR, "bounce pool: %u buffers of %zu bytes is not a pool",
                  max_buffers, buffer_size);
        return -EINVAL;
    }
    struct hf_bounce_pool *pool = calloc(1, sizeof(*pool));
    if (pool == NULL)
        goto fail;
    pool->free_list = calloc(max_buffers, sizeof(*pool->free_list));
    if (pool->free_list == NULL)
        goto free_pool;
    if (pthread_mutex_init(&pool->lock, NULL) != 0)
        goto free_list;
    if (pthread_cond_init(&pool->given_back, NULL) != 0)
        goto destroy_lock;
    pool->host = host;
    pool->buffer_size = buffer_size;
    pool->capacity = max_buffers;
    pool->limit = max_buffers;
    *pool_p = pool;
    return 0;

destroy_lock:
    pthread_mutex_destroy(&pool->lock);
free_list:
    free(pool->free_list);
free_pool:
    free(pool);
fail:
    host->log(host, HF_LOG_ERROR, "bounce pool: out of memory for its bookkeeping");
    return -ENOMEM;
}

void hf_bounce_pool_destroy(struct hf_bounce_pool *pool)
{
    if (pool == NULL)
        return;
    const struct hf_host_api *host = pool->host;
    for (unsigned i = 0; i < pool->free_count; i++) {
        int err = host->gpu->host_free_pinned(pool->free_list[i]);
        if (err != 0)
            host->log(host, HF_LOG_WARN, "bounce pool: freeing a pinned buffer failed: %s (%d)",
                      host->gpu->error_string(err), err);
    }
    if (pool->allocated != pool->free_count)
        host->log(host, HF_LOG_ERROR,
                  "bounce pool: %u buffers still taken at teardown; leaving them allocated",
                  pool->allocated - pool->free_count);
    pthread_cond_destroy(&pool->given_back);
    pthread_mutex_destroy(&pool->lock);
    free(pool->free_list);
    free(pool);
}

int hf_bounce_pool_take(struct hf_bounce_pool *pool, void **buffer_p, int *gpu_error_p)
{
    const struct hf_host_api *host = pool->host;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        if (pool->free_count > 0) {
            *buffer_p = pool->free_list[--pool->free_count];
            pthread_mutex_unlock(&pool->lock);
            return 0;
        }
        if (pool->allocated < pool->limit) {
            /* Reserve the slot, then allocate unlocked: pinning can take milliseconds. */
            pool->allocated++;
            pthread_mutex_unlock(&pool->lock);
            void *buffer = NULL;
            int err = host->gpu->host_alloc_pinned(&buffer, pool->buffer_size);
            if (err == 0) {
                *buffer_p = buffer;
                return 0;
            }
            pthread_mutex_lock(&pool->lock);
            pool->allocated--;
            /* A waiter may now be the one to allocate, or should learn the new bound. */
            pthread_cond_broadcast(&pool->given_back);
            if (pool->allocated == 0) {
                pthread_mutex_unlock(&pool->lock);
                host->log(host, HF_LOG_ERROR, "bounce pool: cannot pin a %zu-byte buffer: %s (%d)",
                          pool->buffer_size, host->gpu->error_string(err), err);
                *gpu_error_p = err;
                return -HF_EGPU;
            }
            if (pool->limit > pool->allocated) {
                pool->limit = pool->allocated;
                host->log(host, HF_LOG_WARN,
                          "bounce pool: cannot pin another %zu-byte buffer (%s); making do with %u",
                          pool->buffer_size, host->gpu->error_string(err), pool->limit);
            }
            continue;
        }
        pthread_cond_wait(&pool->given_back, &pool->lock);
    }
}

void hf_bounce_pool_give(struct hf_bounce_pool *pool, void *buffer)
{
    pthread_mutex_lock(&pool->lock);
    if (pool->free_count == pool->allocated) {
        pthread_mutex_unlock(&pool->lock);
        pool->host->log(pool->host, HF_LOG_ERROR,
                        "bounce pool: a buffer was given back that was not taken; ignoring it");
        return;
    }
    pool->free_list[pool->free_count++] = buffer;
    pthread_cond_signal(&pool->given_back);
    pthread_mutex_unlock(&pool->lock);
}

size_t hf_bounce_pool_buffer_size(const struct hf_bounce_pool *pool)
{
    return pool->buffer_size;
}
