/*
 * Starting plugin threads with the application's signals blocked. A process-directed signal goes
 * to any thread that does not block it: on ours it would run the application's handler on a
 * thread the application does not know, or be taken from the thread that waits for it with
 * sigwait or a signalfd. Faults stay unblocked: the kernel kills a process whose thread blocks the
 * fault it raised, without running the handler the application may have for it. The core's I/O
 * workers start the same way (core/services/executor.c).
 */
#include "plugin_thread.h"

#include <errno.h>
#include <signal.h>

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};

int hfp_thread_start(pthread_t *thread_p, void *(*main_fn)(void *), void *arg)
{
    sigset_t blocked;
    sigfillset(&blocked);
    for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
        sigdelset(&blocked, fault_signals[i]);
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0)
        return -rc;
    /* In the attributes (glibc 2.32+): the thread starts blocked, the caller's mask stays. */
    rc = pthread_attr_setsigmask_np(&attr, &blocked);
    if (rc == 0)
        rc = pthread_create(thread_p, &attr, main_fn, arg);
    pthread_attr_destroy(&attr);
    return -rc;
}
