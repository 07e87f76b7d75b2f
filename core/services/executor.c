/*
 * Worker pool behind hf_executor_run and hf_executor_submit. A job is a task function, an index
 * range and a completion count; workers take one index from the job at the head of the queue and
 * move that job to the back, so concurrent jobs (split requests, batch entries) share the pool in
 * turn. Workers start on first use and live as long as the process (no destructor touches them).
 *
 * Hand-offs are spin-then-sleep: a request of a few MiB lasts about 100 us on a fast machine, and a
 * futex wake-up costs tens of microseconds per thread, woken one after another. So a few idle
 * workers (one CPU fewer than the process may use at most, none on small machines) poll for work
 * for a short while before they sleep, a submitter wakes only as many sleepers as the spinners
 * cannot cover, and a caller waiting for its job's last task polls briefly too. Threads whose
 * last task mostly waited for the storage do not poll: there the wake-up is cheap next to the
 * wait, and polls cost CPU time a storage-bound read does not otherwise spend.
 */
#include "services/executor.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cpu_budget.h"
#include "base/log.h"
#include "common/cpu_relax.h"
#include "config/config.h"

/* How long an idle worker, or a caller waiting for its job, polls before it sleeps. */
#define SPIN_NS 60000
/*
 * A thread whose last task of a request spent more than half its time off its CPU (blocked on the
 * storage) sleeps at once when idle: the next request will wait on the storage too, and a poll
 * saves microseconds against milliseconds. Reading the thread's CPU clock costs a system call, so
 * only the tasks of split requests, each a large part of one, are timed; a task shorter than a
 * poll is not judged by its CPU share, which a single wake-up would dominate.
 */
#define SPIN_AFTER_WAITING_MIN_NS SPIN_NS
/* Fewer CPUs than this: nobody spins, since a spinner would take a CPU from the work itself. */
#define SPIN_MIN_CPUS 8

struct job {
    struct job *next;
    void (*task)(void *arg, unsigned index);
    void *arg;
    unsigned n;
    unsigned claimed;        /* indices handed out, under pool_lock */
    atomic_uint done;        /* indices finished; written under pool_lock, polled without */
    bool detached;           /* from hf_executor_submit: the pool frees it after its last task */
    pthread_cond_t finished; /* hf_executor_run's caller waits here; unused when detached */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static struct job *job_head, *job_tail; /* jobs with unclaimed indices, next to serve first */
static unsigned worker_count;
static bool workers_started;
static unsigned sleepers;       /* workers waiting on pool_work, under pool_lock */
static atomic_uint spinners;    /* workers polling for work */
static unsigned spin_limit;     /* most workers that poll at once; set when workers start */
static atomic_bool work_queued; /* job_head != NULL, for pollers; written under pool_lock */

/* Whether this thread's last timed task mostly waited; it then does not poll when idle. */
static _Thread_local bool task_waited;

static uint64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/*
 * Called with pool_lock held: @p wanted more threads could serve the queue now. Spinners take work
 * on their own; sleepers are woken one each for the rest.
 */
static void wake_locked(unsigned wanted)
{
    unsigned polling = atomic_load_explicit(&spinners, memory_order_relaxed);
    unsigned wake = wanted > polling ? wanted - polling : 0;
    if (wake > sleepers)
        wake = sleepers;
    if (wake == sleepers)
        pthread_cond_broadcast(&pool_work);
    else
        for (unsigned i = 0; i < wake; i++)
            pthread_cond_signal(&pool_work);
}

/* Called with pool_lock held. */
static void queue_append_locked(struct job *job)
{
    job->next = NULL;
    if (job_tail != NULL)
        job_tail->next = job;
    else
        job_head = job;
    job_tail = job;
    atomic_store_explicit(&work_queued, true, memory_order_release);
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
        break;
    }
    if (job_head == NULL)
        atomic_store_explicit(&work_queued, false, memory_order_relaxed);
}

/*
 * Called with pool_lock held, returns with it held. Returns true when @p job was detached and this
 * was its last task: the caller then owns it and frees it.
 */
static bool job_run_one_locked(struct job *job, unsigned index)
{
    pthread_mutex_unlock(&pool_lock);
    if (job->detached) {
        job->task(job->arg, index);
        task_waited = false;
    } else {
        uint64_t wall = now_ns(), cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        job->task(job->arg, index);
        wall = now_ns() - wall;
        cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
        task_waited = wall >= SPIN_AFTER_WAITING_MIN_NS && 2 * cpu < wall;
    }
    pthread_mutex_lock(&pool_lock);
    if (atomic_fetch_add_explicit(&job->done, 1, memory_order_release) + 1 < job->n)
        return false;
    if (job->detached)
        return true;
    pthread_cond_signal(&job->finished);
    return false;
}

/*
 * Called with pool_lock held and the queue empty; returns with it held. Polls for a while when
 * fewer than spin_limit workers poll already, else (or then) sleeps until woken.
 */
static void worker_idle_locked(void)
{
    unsigned polling = atomic_load_explicit(&spinners, memory_order_relaxed);
    if (polling < spin_limit && !task_waited) {
        atomic_fetch_add_explicit(&spinners, 1, memory_order_relaxed);
        pthread_mutex_unlock(&pool_lock);
        uint64_t until = now_ns() + SPIN_NS;
        for (unsigned i = 1; !atomic_load_explicit(&work_queued, memory_order_acquire); i++) {
            hfp_cpu_relax();
            if (i % 64 == 0 && now_ns() > until)
                break;
        }
        pthread_mutex_lock(&pool_lock);
        atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
        if (job_head != NULL)
            return;
    }
    sleepers++;
    pthread_cond_wait(&pool_work, &pool_lock);
    sleepers--;
}

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (job_head == NULL)
            worker_idle_locked();
        struct job *job = job_head;
        job_head = job->next;
        if (job_head == NULL) {
            job_tail = NULL;
            atomic_store_explicit(&work_queued, false, memory_order_relaxed);
        }
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
    int64_t wanted = hf_setting_int(HF_SETTING_MAX_IO_THREADS);
    if (wanted < 1)
        wanted = 1;
    int64_t pollers = hf_setting_int(HF_SETTING_IDLE_POLLERS);
    if (pollers < 0) {
        /* The CPUs this process may use, not those online: in a container limited to four CPUs
         * of a large machine, one poller per online CPU would spin on CPUs it does not get. */
        unsigned cpus = hf_cpu_budget();
        pollers = cpus >= SPIN_MIN_CPUS ? (int64_t)cpus - 1 : 0;
    }
    spin_limit = (unsigned)pollers;
    if (spin_limit > wanted)
        spin_limit = (unsigned)wanted;
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
    hf_debug("executor: %u I/O threads, up to %u of them polling for work when idle", worker_count,
             spin_limit);
}

unsigned hf_executor_width(void)
{
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    unsigned width = worker_count + 1;
    pthread_mutex_unlock(&pool_lock);
    return width;
}

unsigned hf_executor_idle_pollers(void)
{
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    unsigned pollers = spin_limit;
    pthread_mutex_unlock(&pool_lock);
    return pollers;
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
    atomic_init(&job.done, 0);
    pthread_cond_init(&job.finished, NULL);
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    queue_append_locked(&job);
    wake_locked(n - 1); /* the caller serves one index itself */
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
    if (atomic_load_explicit(&job.done, memory_order_acquire) < job.n && spin_limit > 0 &&
        !task_waited) {
        /* The last tasks of a short job end within microseconds: poll before sleeping. */
        pthread_mutex_unlock(&pool_lock);
        uint64_t until = now_ns() + SPIN_NS;
        for (unsigned i = 1; atomic_load_explicit(&job.done, memory_order_acquire) < job.n; i++) {
            hfp_cpu_relax();
            if (i % 64 == 0 && now_ns() > until)
                break;
        }
        pthread_mutex_lock(&pool_lock);
    }
    while (atomic_load_explicit(&job.done, memory_order_relaxed) < job.n)
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
    atomic_init(&job->done, 0);
    pthread_mutex_lock(&pool_lock);
    workers_start_locked();
    if (worker_count == 0) {
        pthread_mutex_unlock(&pool_lock);
        free(job);
        return -EAGAIN;
    }
    queue_append_locked(job);
    wake_locked(n);
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
