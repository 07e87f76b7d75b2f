/*
 * Failed writes leave a file no longer than they found it: a write that extended a regular file
 * and then failed, or ended short, cuts the file back to the larger of its old size and the end of
 * the bytes it reports written (docs/reliability.rst, "Failed writes").
 */
#ifndef HF_CORE_WRITE_UNDO_H
#define HF_CORE_WRITE_UNDO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * What one registered file keeps for its writes: how many are in flight, what the writes of the
 * current busy spell (since the count was last zero) must keep, and the largest size seen.
 */
struct hf_write_undo {
    pthread_mutex_t lock; /**< guards the members below */
    unsigned in_flight;   /**< writes between begin and end */
    uint64_t kept_end;    /**< end of the bytes writes of this spell reported written */
    uint64_t cut_to;      /**< where a failed write of this spell wants the file cut */
    bool cut_pending;     /**< a failed write extended the file; the last writer cuts it */
    uint64_t size_seen;   /**< the largest size known; writes ending below it extend nothing */
};

/** One write's part: where it began, and the file's size before it when it may extend it. */
struct hf_write_undo_call {
    uint64_t offset;   /**< the write's file offset */
    uint64_t old_size; /**< the size before the write, or UINT64_MAX when it extends nothing */
    bool active;       /**< begin was called and end is due */
};

/** Set up @p undo for a file of @p size bytes at registration. */
void hf_write_undo_init(struct hf_write_undo *undo, uint64_t size);
/** Release what hf_write_undo_init set up. */
void hf_write_undo_fini(struct hf_write_undo *undo);

/**
 * Before a write of @p size bytes at @p offset to the regular file open as @p fd: count it in
 * flight and, when it may end past the file's end, note the size before it.
 */
void hf_write_undo_begin(struct hf_write_undo *undo, struct hf_write_undo_call *call, int fd,
                         uint64_t offset, size_t size);

/**
 * After the write: @p written is the count it returns (negative for an error, none written).
 * A write that reported fewer than @p size bytes and may have extended the file asks for the
 * file to be cut back; the last write in flight cuts it, so no write still running loses bytes.
 * @p what names the caller in log lines.
 */
void hf_write_undo_end(struct hf_write_undo *undo, struct hf_write_undo_call *call, int fd,
                       size_t size, ssize_t written, const char *what);

#endif
