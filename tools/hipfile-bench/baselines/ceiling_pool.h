/*
 * The ceiling baseline's pipeline (ceiling_pool.c), as its calibration and method (ceiling.c) use
 * it: one pool per caller thread, whose buffers, streams and events are made once for the whole
 * run and whose worker threads are started once per configuration measured.
 */
#ifndef HIPFILE_BENCH_CEILING_POOL_H
#define HIPFILE_BENCH_CEILING_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

/** One caller thread's pipeline. */
struct ceiling_pool;

/** What went wrong in a call, as bench_call_error reports it. */
struct ceiling_error {
    const char *call; /**< "pread", "hipMemcpyAsync", ... */
    uint64_t offset;  /**< file offset of the piece */
    char why[128];    /**< strerror or the HIP error string */
};

/**
 * Make a pool of up to @p max_workers workers: for each a non-blocking stream, two pinned staging
 * buffers of @p staging_size bytes, an event per buffer and a host bounce of
 * HFP_STREAM_BOUNCE_SIZE bytes for streamed starts; and a device buffer of @p call_size bytes
 * for the calls. Runs on a thread whose current device is @p device. 0, or -1 after printing.
 */
int ceiling_pool_create(unsigned max_workers, size_t staging_size, size_t call_size, int device,
                        struct ceiling_pool **pool_p);

/** Free what ceiling_pool_create made; the workers must be stopped. NULL is ignored. */
void ceiling_pool_destroy(struct ceiling_pool *pool);

/** The device buffer every call of the pool lands in. */
void *ceiling_pool_device_buffer(const struct ceiling_pool *pool);

/**
 * Start @p workers worker threads (at most max_workers) that read @p fd in pieces of
 * @p piece_size bytes (at most staging_size). With @p streamed each piece is read through the
 * worker's bounce and stored into staging with streaming stores (bench_pread_streamed), as the
 * library's fallback stages page-cache reads; without, it is read straight into staging. With
 * @p workers_spin they spin briefly for the next call before sleeping; with @p caller_spins the
 * caller does so for the end of its call. 0, or -1 after printing (nothing left running).
 */
int ceiling_pool_start(struct ceiling_pool *pool, unsigned workers, size_t piece_size,
                       bool streamed, int fd, bool workers_spin, bool caller_spins);

/** Stop and join the worker threads; the buffers stay for the next start. */
void ceiling_pool_stop(struct ceiling_pool *pool);

/**
 * One synchronous call: @p size bytes of the file at @p offset into the device buffer, in place
 * when this returns. 0, or -1 with *error_p saying which piece failed and why.
 */
int ceiling_pool_read(struct ceiling_pool *pool, uint64_t offset, size_t size,
                      struct ceiling_error *error_p);

#endif
