/*
 * Worker pool behind hf_executor_run. A job is a task function, an index range and a completion
 * count, kept on the submitter's stack; workers claim indices from the oldest job that has some
 * left, so concurrent requests share the pool in arrival order. Workers start on first use and
 * live as long as the process (no destructor touches them).
 */
#include "executor.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "log.h"

struct job {
    struct job *next;
    void (*task)(void *arg, unsigned index);
    void *arg;
    unsigned n;
    unsigned claimed; /* indices handed out, under pool_lock */
    unsigned done;    /* indices finished, under pool_lock */
    pthread_cond_t finished;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static struct job *job_head, *job_tail; /* jobs with unclaimed indices, oldest first */
static unsigned worker_count;
static bool workers_started;

/* Called with pool_lock held; removes a job once every index has been claimed. */
static bool job_claim_locked(struct job *job, unsigned *index_p)
{
    if (job->claimed >= job->n)
        return false;
    *index_p = job->claimed++;
    if (job->claimed == job->n) {
        struct job **pp = &job_head;
        struct job *prev = NULL;
        while (*pp != NULL && *pp != job) {
            prev = *pp;
            pp = &(*pp)->next;
        }
        if (*pp == job) {
            *pp = job->next;
            if (job_tail == job)
                job_tail = prev;
        }
    }
    return true;
}

/* Called with pool_lock held, returns with it held. */
static void job_run_one_locked(struct job *job, unsigned index)
{
    pthread_mutex_unlock(&pool_lock);
    job->task(job->arg, index);
    pthread_mutex_lock(&pool_lock);
    if (++job->done == job->n)
        pthread_cond_signal(&job->finished);
}

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (job_head == NULL)
            pthread_cond_wait(&pool_work, &pool_lock);
        struct job *job = job_head;
        unsigned index;
        if (job_claim_locked(job, &index))
            job_run_one_locked(job, index);
    }
    return NULL;
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
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
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
    if (job_tail != NULL)
        job_tail->next = &job;
    else
        job_head = &job;
    job_tail = &job;
    pthread_cond_broadcast(&pool_work);
    /* The caller works on its own job until nothing is left to claim, then waits. */
    unsigned index;
    while (job_claim_locked(&job, &index))
        job_run_one_locked(&job, index);
    while (job.done < job.n)
        pthread_cond_wait(&job.finished, &pool_lock);
    pthread_mutex_unlock(&pool_lock);
    pthread_cond_destroy(&job.finished);
    return 0;
}
