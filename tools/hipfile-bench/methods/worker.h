/*
 * What hipfile-bench and the processes it starts for --backends say to each other over a pair of
 * pipes. Both ends are the same program, so the structures go across as they are in memory.
 */
#ifndef HIPFILE_BENCH_WORKER_H
#define HIPFILE_BENCH_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

/** First word of a setup message: the right program on the other end. */
#define BENCH_WORKER_MAGIC 0x68666277u

/** The one message that starts a worker: what to measure, on which file. */
struct bench_worker_setup {
    uint32_t magic;                   /**< BENCH_WORKER_MAGIC */
    uint32_t size;                    /**< sizeof(struct bench_worker_setup) */
    struct bench_options opts;        /**< the command line; opts.file is NULL, the path is below */
    char file[4096];                  /**< the benchmark file, made and filled by the parent */
    char backend[BENCH_BACKEND_NAME]; /**< the only backend the worker's library loads */
    unsigned workload;                /**< index into bench_workloads */
    unsigned method;                  /**< library method, as bench_library_method numbers them */
    uint64_t seed;                    /**< pattern seed of the workload */
    bool probe;                       /**< only open the driver and register a file, then exit */
};

/** Commands from the parent. */
enum bench_worker_command_kind {
    BENCH_WORKER_PASS = 1, /**< run one measured pass */
    BENCH_WORKER_END = 2,  /**< stop, send the result and exit */
};

/** One command. */
struct bench_worker_command {
    uint32_t kind;      /**< enum bench_worker_command_kind */
    uint64_t budget_ns; /**< PASS: stop the pass after this long (0: a whole pass) */
};

/**
 * The answer to the setup (after the warm-up) and to each PASS. After a failed setup and after
 * END, a struct bench_result follows, then a uint64_t: every request the worker's library
 * counted, warm-up included.
 */
struct bench_worker_reply {
    int32_t rc;       /**< 0, or -1: failed (the result that follows says why) */
    uint64_t pass_ns; /**< PASS: the pass's wall time */
};

/** Write all @p len bytes. 0, or -1 with errno set. */
int bench_write_all(int fd, const void *buf, size_t len);

/** Read exactly @p len bytes. 0, or -1 (errno 0 at end of file). */
int bench_read_all(int fd, void *buf, size_t len);

/** The worker's side: run by main for the hidden --backend-worker option. Exit status. */
int bench_worker_main(const struct bench_options *cmdline);

#endif
