/*
 * Worker pool behind hf_executor_run and hf_executor_submit. A job is a task function, an index
 * range and a completion count; workers take one index from the job at the head of the queue and
 * move that job to the back, so concurrent jobs (split requests, batch entries) share the pool in
 * turn. Workers start on first use and live as long as the process (no destructor touches them).
 */
#include "executor.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

struct job {
    struct job *next;
    void (*task)(void *arg, unsigned index);
    void *arg;
    unsigned n;
    unsigned claimed;        /* indices handed out, under pool_lock */
    unsigned done;           /* indices finished, under pool_lock */
    bool detached;           /* from hf_executor_submit: the pool frees it after its last task */
    pthread_cond_t finished; /* hf_executor_run's caller waits here; unused when detached */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static struct job *job_head, *job_tail; /* jobs with unclaimed indices, next to serve first */
static unsigned worker_count;
static bool workers_started;

/* Called with pool_lock held. */
static void queue_append_locked(struct job *job)
{
    job->next = NULL;
    if (job_tail != NULL)
        job_tail->next = job;
    else
        job_head = job;
    job_tail = job;
}

/* Called with pool_lock held; @p job must be queued. */
static void queue_remove_locked(struct job *job)
{
    struct job *prev = NULL;
    for (struct job *j = job_head; j != NULL; prev = j, j = j->next) {
        if (j != job)
            continue;
        if (prev != NULL)
            prev->next = j->next;
        else
            job_head = j->next;
        if (job_tail == j)
            job_tail = prev;
        return;
    }
}

/*
 * Called with pool_lock held, returns with it held. Returns true when @p job was detached and this
 * was its last task: the caller then owns it and frees it.
 */
static bool job_run_one_locked(struct job *job, unsigned index)
{
    pthread_mutex_unlock(&pool_lock);
    job->task(job->arg, index);
    pthread_mutex_lock(&pool_lock);
    if (++job->done < job->n)
        return false;
    if (job->detached)
        return true;
    pthread_cond_signal(&job->finished);
    return false;
}

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (job_head == NULL)
            pthread_cond_wait(&pool_work, &pool_lock);
        struct job *job = job_head;
        job_head = job->next;
        if (job_head == NULL)
            job_tail = NULL;
        unsigned index = job->claimed++;
        /* Back of the queue: the next free worker serves the next job, not this one again. */
        if (job->claimed < job->n)
            queue_append_locked(job);
        if (job_run_one_locked(job, index))
            free(job);
    }
    return NULL;
}

/*
 * Workers live in the application's process but take none of its signals: a process-directed
 * signal goes to any thread that does not block it, and on a worker it would run the application's
 * handler on a thread it does not know of, or be taken from the thread that waits for it (sigwait,
 * signalfd). Faults stay unblocked, since the kernel kills a process whose thread blocks the fault
 * it raised without running the application's handler. The mask is set in the attributes, so the
 * calling thread's own mask never changes. plugins/common/plugin_thread.c does the same.
 */
static void worker_signals(sigset_t *blocked)
{
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
    sigfillset(blocked);
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(blocked, faults[i]);
}

/* Called with pool_lock held. */
static void workers_start_locked(void)
{
    if (workers_started)
        return;
    workers_started = true;
    int64_t wanted = hf_config_get_int("execution.max_io_threads");
    if (wanted < 1)
        wanted = 1;
    pthread_attr_t attr;
    sigset_t blocked;
    worker_signals(&blocked);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setsigmask_np(&attr, &blocked);
    for (int64_t i = 0; i < wanted; i++) {
        pthread_t tid;
        int rc = pthread_create(&tid, &attr, worker_main, NULL);
        if (rc != 0) {
            hf_warn("executor: started %u of %lld I/O threads: %s", worker_count, (long long)wanted,
                    strerror(rc));
            break;
        }
        worker_count++;
    }
    pthread_attr_destroy(&attr);
    hf_debug("executor: %u I/O threads", worker_count);
}

unsigned hf_executor_width(void)
{
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    unsigned width = worker_count + 1;
    pthread_mutex_unlock(&pool_lock);
    return width;
}

int hf_executor_run(unsigned n, void (*task)(void *arg, unsigned index), void *arg)
{
    if (task == NULL)
        return -EINVAL;
    if (n == 0)
        return 0;
    if (n == 1) {
        task(arg, 0);
        return 0;
    }
    struct job job = {.task = task, .arg = arg, .n = n};
    pthread_cond_init(&job.finished, NULL);
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    queue_append_locked(&job);
    pthread_cond_broadcast(&pool_work);
    /*
     * The caller works on its own job until nothing is left to claim, then waits only for pieces
     * other threads are running; so a task may call this without waiting on a busy pool.
     */
    while (job.claimed < job.n) {
        unsigned index = job.claimed++;
        if (job.claimed == job.n)
            queue_remove_locked(&job);
        (void)job_run_one_locked(&job, index); /* never detached: nothing to free */
    }
    while (job.done < job.n)
        pthread_cond_wait(&job.finished, &pool_lock);
    pthread_mutex_unlock(&pool_lock);
    pthread_cond_destroy(&job.finished);
    return 0;
}

int hf_executor_submit(unsigned n, void (*task)(void *arg, unsigned index), void *arg)
{
    if (task == NULL)
        return -EINVAL;
    if (n == 0)
        return 0;
    struct job *job = calloc(1, sizeof(*job));
    if (job == NULL)
        return -ENOMEM;
    *job = (struct job){.task = task, .arg = arg, .n = n, .detached = true};
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    if (worker_count == 0) {
        pthread_mutex_unlock(&pool_lock);
        free(job);
        return -EAGAIN;
    }
    queue_append_locked(job);
    pthread_cond_broadcast(&pool_work);
    pthread_mutex_unlock(&pool_lock);
    return 0;
}

unsigned hf_executor_withdraw(void (*task)(void *arg, unsigned index), const void *arg)
{
    unsigned taken = 0;
    pthread_mutex_lock(&pool_lock);
    struct job *prev = NULL, *job = job_head;
    while (job != NULL) {
        struct job *next = job->next;
        if (!job->detached || job->task != task || job->arg != arg) {
            prev = job;
            job = next;
            continue;
        }
        if (prev != NULL)
            prev->next = next;
        else
            job_head = next;
        if (job_tail == job)
            job_tail = prev;
        taken += job->n - job->claimed;
        job->n = job->claimed;
        /* Claimed tasks still running free the job when the last of them finishes. */
        if (job->done == job->n)
            free(job);
        job = next;
    }
    pthread_mutex_unlock(&pool_lock);
    return taken;
}
