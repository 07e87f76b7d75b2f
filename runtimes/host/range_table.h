/*
 * A thread-safe table of non-overlapping address ranges, sorted by base, that finds the range
 * containing any address. The host provider keeps its allocations, streams and events in one each.
 */
#ifndef HF_HOST_RANGE_TABLE_H
#define HF_HOST_RANGE_TABLE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/** One range [base, base + size) and what the owner records about it. */
struct hf_range {
    uintptr_t base; /**< first address */
    size_t size;    /**< length in bytes, at least 1 */
    int kind;       /**< owner-defined kind */
    int device;     /**< owning device */
    unsigned flags; /**< flags given at creation */
    void *obj;      /**< owner-defined object */
};

/** The table; initialise with HF_RANGE_TABLE_INIT. */
struct hf_range_table {
    pthread_rwlock_t lock;   /**< writers insert/remove, readers look up */
    struct hf_range *ranges; /**< sorted by base */
    size_t count;            /**< ranges in use */
    size_t capacity;         /**< ranges allocated */
};

/** Static initialiser for an empty table. */
#define HF_RANGE_TABLE_INIT                                                                        \
    {                                                                                              \
        PTHREAD_RWLOCK_INITIALIZER, NULL, 0, 0                                                     \
    }

/** Add @p range. Returns 0, -EEXIST when it overlaps a range in the table, or -ENOMEM. */
int hf_range_table_insert(struct hf_range_table *t, const struct hf_range *range);
/** Remove the range that starts exactly at @p base into *removed_p. Returns 0 or -ENOENT. */
int hf_range_table_remove(struct hf_range_table *t, uintptr_t base, struct hf_range *removed_p);
/**
 * Find the range containing @p addr and copy it to *found_p. When @p hold is not NULL it is called
 * with the range's obj while the table is locked, so the object cannot go away before the caller
 * takes its reference. Returns 0 or -ENOENT.
 */
int hf_range_table_find(struct hf_range_table *t, uintptr_t addr, void (*hold)(void *obj),
                        struct hf_range *found_p);
/**
 * Copy out the obj of every range whose kind is @p kind and device is @p device (any device when
 * negative), calling @p hold on each under the lock. *objs_p is malloc'd (NULL when none).
 * Returns 0 or -ENOMEM.
 */
int hf_range_table_collect(struct hf_range_table *t, int kind, int device, void (*hold)(void *obj),
                           void ***objs_p, size_t *count_p);

#endif
