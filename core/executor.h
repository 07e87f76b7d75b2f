/*
 * The executor: a fixed pool of I/O worker threads (execution.max_io_threads) that run the pieces
 * of split requests. The calling thread works too, so a request never waits for a free worker to
 * make progress.
 */
#ifndef HF_CORE_EXECUTOR_H
#define HF_CORE_EXECUTOR_H

/**
 * Run task(arg, i) for every i in [0, n) on the workers and the calling thread; return when all
 * have finished. Returns 0, or -errno when no worker could be started and nothing ran.
 */
int hf_executor_run(unsigned n, void (*task)(void *arg, unsigned index), void *arg);
/** Most tasks that run at once: workers + the caller. Starts the workers if needed. */
unsigned hf_executor_width(void);

#endif
