/*
 * Small per-call bounce buffers, for two kinds of call:
 *  - Staged reads from the page cache. The kernel copies cached file bytes with plain stores,
 *    which leave the staging lines modified in the reading core's private cache, and the copy
 *    engine then reads them at about half speed (docs/performance.rst, "Why staged reads clean
 *    their stores"). Reading into a bounce buffer that stays in that cache and streaming it into
 *    staging with non-temporal stores costs a cache-hot copy and keeps the copy engine at full
 *    speed.
 *  - Writes to a file opened O_DIRECT from an address O_DIRECT would refuse: whole granules are
 *    copied into one and written direct (fallback_posix.c).
 *
 * Buffers are made on first use and kept until the backend ends; a call that finds all of them
 * taken goes on without one, as before: reads straight into staging, writes buffered.
 */
#include <stdlib.h>

#include "fallback_internal.h"

char *fallback_bounce_take(struct fallback *fb, unsigned *slot_p)
{
    uint64_t taken = atomic_load_explicit(&fb->bounce_taken, memory_order_relaxed);
    for (;;) {
        if (taken == UINT64_MAX)
            return NULL;
        unsigned slot = (unsigned)__builtin_ctzll(~taken);
        if (!atomic_compare_exchange_weak_explicit(&fb->bounce_taken, &taken,
                                                   taken | ((uint64_t)1 << slot),
                                                   memory_order_acquire, memory_order_relaxed))
            continue;
        if (fb->bounce[slot] == NULL) {
            fb->bounce[slot] = aligned_alloc(FALLBACK_BOUNCE_ALIGN, HFP_STREAM_BOUNCE_SIZE);
            if (fb->bounce[slot] == NULL) {
                atomic_fetch_and_explicit(&fb->bounce_taken, ~((uint64_t)1 << slot),
                                          memory_order_release);
                return NULL;
            }
        }
        *slot_p = slot;
        return fb->bounce[slot];
    }
}

void fallback_bounce_give(struct fallback *fb, unsigned slot)
{
    atomic_fetch_and_explicit(&fb->bounce_taken, ~((uint64_t)1 << slot), memory_order_release);
}

void fallback_bounce_free(struct fallback *fb)
{
    for (unsigned i = 0; i < FALLBACK_BOUNCE_SLOTS; i++) {
        free(fb->bounce[i]);
        fb->bounce[i] = NULL;
    }
}
