/*
 * The sorted range table: binary search under a read lock for look-ups, insertion and removal
 * under the write lock. Allocations are few enough that a sorted array beats a tree here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "range_table.h"

/* Index of the first range whose end is above addr: the only candidate to contain it. */
static size_t range_table_lower(const struct hf_range_table *t, uintptr_t addr)
{
    size_t lo = 0, hi = t->count;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct hf_range *r = &t->ranges[mid];

        if (r->base + r->size <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int hf_range_table_insert(struct hf_range_table *t, const struct hf_range *range)
{
    int rc = 0;

    pthread_rwlock_wrlock(&t->lock);
    size_t at = range_table_lower(t, range->base);
    if (at < t->count && t->ranges[at].base < range->base + range->size) {
        rc = -EEXIST;
        goto unlock;
    }
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : 64;
        struct hf_range *grown = realloc(t->ranges, capacity * sizeof(*grown));

        if (grown == NULL) {
            rc = -ENOMEM;
            goto unlock;
        }
        t->ranges = grown;
        t->capacity = capacity;
    }
    memmove(&t->ranges[at + 1], &t->ranges[at], (t->count - at) * sizeof(t->ranges[0]));
    t->ranges[at] = *range;
    t->count++;
unlock:
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

int hf_range_table_remove(struct hf_range_table *t, uintptr_t base, struct hf_range *removed_p)
{
    int rc = -ENOENT;

    pthread_rwlock_wrlock(&t->lock);
    size_t at = range_table_lower(t, base);
    if (at < t->count && t->ranges[at].base == base) {
        if (removed_p != NULL)
            *removed_p = t->ranges[at];
        memmove(&t->ranges[at], &t->ranges[at + 1], (t->count - at - 1) * sizeof(t->ranges[0]));
        t->count--;
        rc = 0;
    }
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

int hf_range_table_find(struct hf_range_table *t, uintptr_t addr, void (*hold)(void *obj),
                        struct hf_range *found_p)
{
    int rc = -ENOENT;

    pthread_rwlock_rdlock(&t->lock);
    size_t at = range_table_lower(t, addr);
    if (at < t->count && t->ranges[at].base <= addr) {
        if (hold != NULL)
            hold(t->ranges[at].obj);
        *found_p = t->ranges[at];
        rc = 0;
    }
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

int hf_range_table_collect(struct hf_range_table *t, int kind, int device, void (*hold)(void *obj),
                           void ***objs_p, size_t *count_p)
{
    void **objs = NULL;
    size_t n = 0;

    pthread_rwlock_rdlock(&t->lock);
    if (t->count > 0) {
        objs = malloc(t->count * sizeof(*objs));
        if (objs == NULL) {
            pthread_rwlock_unlock(&t->lock);
            return -ENOMEM;
        }
    }
    for (size_t i = 0; i < t->count; i++) {
        const struct hf_range *r = &t->ranges[i];

        if (r->kind != kind || (device >= 0 && r->device != device))
            continue;
        if (hold != NULL)
            hold(r->obj);
        objs[n++] = r->obj;
    }
    pthread_rwlock_unlock(&t->lock);
    if (n == 0) {
        free(objs);
        objs = NULL;
    }
    *objs_p = objs;
    *count_p = n;
    return 0;
}
