/*
 * The fallback's staging pools: one per GPU, created on first use, and the one for memory no GPU
 * owns.
 */
#include <errno.h>
#include <stdlib.h>

#include "fallback_internal.h"

/*
 * One staging pool per GPU the runtime reports now, plus one for memory no GPU owns. Pools are
 * created on first use, so only GPUs that move data pin memory.
 */
int fallback_pools_setup(struct fallback *fb)
{
    const struct hf_host_api *host = fb->host;
    int devices = 0;
    int err = host->gpu->device_count(&devices);
    if (err != 0 || devices < 0) {
        host->log(host, HF_LOG_WARN, "cannot count GPUs (%s); staging only memory no GPU owns",
                  host->gpu->error_string(err));
        devices = 0;
    }
    fb->pool_count = (unsigned)devices + 1;
    fb->pools = calloc(fb->pool_count, sizeof(*fb->pools));
    if (fb->pools == NULL)
        return -ENOMEM;
    for (unsigned i = 0; i < fb->pool_count; i++)
        atomic_init(&fb->pools[i], NULL);
    if (pthread_mutex_init(&fb->pools_lock, NULL) != 0) {
        free(fb->pools);
        return -ENOMEM;
    }
    return 0;
}

int fallback_pool_get(struct fallback *fb, int device, struct hfp_staging_pool **pool_p)
{
    if (device < -1 || (unsigned)(device + 1) >= fb->pool_count) {
        fallback_log(fb, HF_LOG_ERROR, "GPU %d is not one of the %u the runtime reported at start",
                     device, fb->pool_count - 1);
        return -EINVAL;
    }
    _Atomic(struct hfp_staging_pool *) *slot = &fb->pools[device + 1];
    struct hfp_staging_pool *pool = atomic_load_explicit(slot, memory_order_acquire);
    if (pool != NULL) {
        *pool_p = pool;
        return 0;
    }
    int rc = 0;
    pthread_mutex_lock(&fb->pools_lock);
    pool = atomic_load_explicit(slot, memory_order_relaxed);
    if (pool == NULL) {
        rc = hfp_staging_pool_create(fb->host, fb->set.chunk_size, fb->set.slots_per_device, device,
                                     &pool);
        if (rc == 0) {
            hfp_staging_pool_set_bound(pool, fallback_slot_bound, fb);
            atomic_store_explicit(slot, pool, memory_order_release);
        }
    }
    pthread_mutex_unlock(&fb->pools_lock);
    if (rc == 0)
        *pool_p = pool;
    return rc;
}

void fallback_pools_teardown(struct fallback *fb)
{
    for (unsigned i = 0; i < fb->pool_count; i++)
        hfp_staging_pool_destroy(atomic_load(&fb->pools[i]));
    pthread_mutex_destroy(&fb->pools_lock);
    free(fb->pools);
}
