/*
 * The executor: a fixed pool of I/O worker threads (execution.max_io_threads) shared by the pieces
 * of split requests and by asynchronous work such as batch entries. A synchronous caller works on
 * its own job too, so a request never waits for a free worker to make progress, even when it is
 * issued from inside a worker.
 */
#ifndef HF_CORE_EXECUTOR_H
#define HF_CORE_EXECUTOR_H

/**
 * Run task(arg, i) for every i in [0, n) on the workers and the calling thread; return when all
 * have finished. Safe to call from inside a task (the caller claims its own indices, so nesting
 * never waits on a busy pool). Returns 0, or -EINVAL when @p task is NULL.
 */
int hf_executor_run(unsigned n, void (*task)(void *arg, unsigned index), void *arg);

/**
 * Queue task(arg, i) for every i in [0, n) on the workers and return at once; each task reports
 * its own completion. Never runs a task on the calling thread, so the caller may hold locks that
 * tasks take. Workers serve queued jobs in turn, one index each, so asynchronous work and split
 * synchronous requests share the pool. Returns 0, -EINVAL when @p task is NULL, -ENOMEM, or
 * -EAGAIN when no worker is running to serve it (nothing was queued).
 */
int hf_executor_submit(unsigned n, void (*task)(void *arg, unsigned index), void *arg);

/**
 * Take back the indices of jobs queued by hf_executor_submit with this @p task and @p arg that no
 * worker has claimed yet; they will never run. Returns how many were taken back. Tasks already
 * claimed still run: the owner must count them out before freeing @p arg.
 */
unsigned hf_executor_withdraw(void (*task)(void *arg, unsigned index), const void *arg);

/**
 * How many idle workers may poll for work before they sleep (execution.idle_pollers, resolved).
 * Starts the workers if needed.
 */
unsigned hf_executor_idle_pollers(void);

/** Most tasks that run at once: workers + the caller. Starts the workers if needed. */
unsigned hf_executor_width(void);

#endif
