/*
 * Statistics: process-wide counters behind hipFileGetStatsL1/L2/L3, fed by the registration,
 * I/O and batch paths. Counting is a handful of relaxed atomic adds per request and is skipped
 * entirely at profile.stats = 0.
 */
#ifndef HF_CORE_STATS_H
#define HF_CORE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <hipfile.h>

#include "hipfile/backend.h"


/** What one finished read or write looked like, for hf_stats_io. */
struct hf_stats_io_record {
    int op;                          /**< enum hf_io_op */
    size_t size;                     /**< bytes asked for */
    ssize_t result;                  /**< bytes moved, or < 0 for a failure */
    uint64_t latency_ns;             /**< time in the library */
    int device;                      /**< GPU of the buffer, -1 for host memory */
    bool unaligned;                  /**< offset, size or address not 4 KiB aligned */
    int served;                      /**< index of the backend whose result was returned, or -1 */
    bool served_direct;              /**< that backend moves data without a bounce (HF_CAP_DIRECT) */
};

/** Count one read or write. */
void hf_stats_io(const struct hf_stats_io_record *rec);
/** Count a file registration (ok or not) or deregistration. */
void hf_stats_file_register(bool ok);
/** Count a file deregistration. */
void hf_stats_file_deregister(void);
/** Count a buffer registration of @p bytes on @p device (-1: host). */
void hf_stats_buf_register(bool ok, int device, size_t bytes);
/** Count a buffer deregistration of @p bytes on @p device. */
void hf_stats_buf_deregister(bool ok, int device, size_t bytes);

/** Batch events counted for the level-1 batch fields. */
enum hf_stats_batch_event {
    HF_STATS_BATCH_SETUP,   /**< hipFileBatchIOSetUp */
    HF_STATS_BATCH_SUBMIT,  /**< hipFileBatchIOSubmit */
    HF_STATS_BATCH_CANCEL,  /**< hipFileBatchIOCancel */
    HF_STATS_BATCH_DESTROY, /**< hipFileBatchIODestroy */
};
/** Count a batch call. */
void hf_stats_batch(enum hf_stats_batch_event event, bool ok);
/** Count the entries of a batch submission: @p entries queued, of which reads/writes bytes. */
void hf_stats_batch_entries(unsigned entries, uint64_t read_bytes, uint64_t write_bytes,
                            uint64_t submit_ns);
/** Count @p events completions collected by hipFileBatchIOGetStatus. */
void hf_stats_batch_completed(unsigned events, uint64_t wait_ns);

/** Most backends whose requests are counted apart (backend indexes below it). */
#define HF_STATS_MAX_BACKENDS 32

/** Requests each loaded backend served (index = backend index), for reports. */
uint64_t hf_stats_backend_served(unsigned backend_index, int op);
/**
 * Every counter as hipFileGetStatsL3 reports it, whatever profile.stats says (reports and tools).
 */
void hf_stats_snapshot(hipFileStatsLevel3_t *stats);
/** Whether anything has been counted in this process. */
bool hf_stats_started(void);

/** Monotonic clock in nanoseconds. */
uint64_t hf_stats_now_ns(void);

#endif
