/*
 * A program that does its own I/O beside the library's on the same thread, as AMD's own tests do
 * (their fixture reads /dev/urandom and trusts the count): ten cycles of hipFileDriverOpen,
 * hipFileHandleRegister, one hipFileRead, hipFileHandleDeregister and hipFileDriverClose, each call
 * followed by read(2)s of 1 MiB from /dev/urandom. Such a read is interruptible: work the kernel
 * queues on this thread (io_uring teardown does) cuts it short, and most programs never retry.
 *
 * Also checks that the library left the process as it found it: every descriptor it opened is
 * close-on-exec (checked while a file is registered and after each close); no signal action,
 * signal mask, umask, working directory, environment variable, resource limit, CPU affinity or
 * thread name changed; and the HIP runtime's last error on this thread, which the program reads
 * with hipGetLastError, holds no failure of the library's own look-ups.
 *
 * Usage: thread_hygiene FILE [CYCLES [READS_PER_CALL]]. Exit 0 only if every read was whole and
 * nothing changed. FILE is removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include "client_data.h"
#include "pattern.h"

#define READ_SIZE ((size_t)1 << 20)
#define FILE_SIZE ((size_t)4 << 20)
#define SEED 11
#define MAX_FD 4096

extern char **environ;

/* What the library must leave as it is. */
struct process_state {
    struct sigaction actions[NSIG];
    bool action_known[NSIG];
    sigset_t mask;
    mode_t umask;
    char cwd[PATH_MAX];
    char *environment; /* every variable, joined */
    struct rlimit limits[RLIM_NLIMITS];
    cpu_set_t affinity;
    char thread_name[16];
    bool inheritable[MAX_FD]; /* descriptors open without FD_CLOEXEC */
};

static struct process_state before;
static unsigned char *urandom_buf;
static int urandom_fd = -1;
static unsigned long reads_total, reads_short;

/* The umask without changing it, even for a moment: /proc says it since Linux 4.7. */
static mode_t umask_now(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    unsigned mask = 0;
    char line[256];
    bool found = false;
    while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
        found = sscanf(line, "Umask: %o", &mask) == 1;
    if (f != NULL)
        fclose(f);
    if (!found) {
        mode_t old = umask(022);
        umask(old);
        return old;
    }
    return (mode_t)mask;
}

static char *environment_now(void)
{
    size_t len = 1;
    for (char **e = environ; *e != NULL; e++)
        len += strlen(*e) + 1;
    char *text = malloc(len);
    if (text == NULL)
        return NULL;
    text[0] = '\0';
    for (char **e = environ; *e != NULL; e++) {
        strcat(text, *e);
        strcat(text, "\n");
    }
    return text;
}

static void state_take(struct process_state *s)
{
    memset(s, 0, sizeof(*s));
    for (int sig = 1; sig < NSIG; sig++)
        s->action_known[sig] = sigaction(sig, NULL, &s->actions[sig]) == 0;
    pthread_sigmask(SIG_BLOCK, NULL, &s->mask);
    s->umask = umask_now();
    if (getcwd(s->cwd, sizeof(s->cwd)) == NULL)
        s->cwd[0] = '\0';
    s->environment = environment_now();
    for (int r = 0; r < RLIM_NLIMITS; r++)
        getrlimit((__rlimit_resource_t)r, &s->limits[r]);
    CPU_ZERO(&s->affinity);
    sched_getaffinity(0, sizeof(s->affinity), &s->affinity);
    pthread_getname_np(pthread_self(), s->thread_name, sizeof(s->thread_name));
    for (int fd = 0; fd < MAX_FD; fd++) {
        int flags = fcntl(fd, F_GETFD);
        s->inheritable[fd] = flags >= 0 && (flags & FD_CLOEXEC) == 0;
    }
}

static bool action_equal(const struct sigaction *a, const struct sigaction *b)
{
    if (a->sa_flags != b->sa_flags)
        return false;
    if ((a->sa_flags & SA_SIGINFO) ? a->sa_sigaction != b->sa_sigaction
                                   : a->sa_handler != b->sa_handler)
        return false;
    for (int sig = 1; sig < NSIG; sig++) {
        if (sigismember(&a->sa_mask, sig) != sigismember(&b->sa_mask, sig))
            return false;
    }
    return true;
}

/* Descriptors opened since @p s was taken that lack FD_CLOEXEC, each reported. */
static int fds_leaking(const struct process_state *s, const char *when)
{
    int leaks = 0;
    for (int fd = 0; fd < MAX_FD; fd++) {
        int flags = fcntl(fd, F_GETFD);
        if (flags < 0 || (flags & FD_CLOEXEC) != 0 || s->inheritable[fd])
            continue;
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        fprintf(stderr, "%s: fd %d (%s) is open without FD_CLOEXEC\n", when, fd, target);
        leaks++;
    }
    return leaks;
}

/* Everything in @p s that differs now, each reported. */
static int state_changes(const struct process_state *s, const char *when)
{
    struct process_state *now = malloc(sizeof(*now));
    if (now == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    state_take(now);
    int changes = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        if (s->action_known[sig] != now->action_known[sig] ||
            (s->action_known[sig] && !action_equal(&s->actions[sig], &now->actions[sig]))) {
            fprintf(stderr, "%s: the action of signal %d (%s) changed\n", when, sig,
                    strsignal(sig));
            changes++;
        }
        if (sigismember(&s->mask, sig) != sigismember(&now->mask, sig)) {
            fprintf(stderr, "%s: signal %d (%s) was %s this thread's mask\n", when, sig,
                    strsignal(sig), sigismember(&now->mask, sig) ? "added to" : "removed from");
            changes++;
        }
    }
    if (s->umask != now->umask) {
        fprintf(stderr, "%s: umask %03o became %03o\n", when, s->umask, now->umask);
        changes++;
    }
    if (strcmp(s->cwd, now->cwd) != 0) {
        fprintf(stderr, "%s: working directory %s became %s\n", when, s->cwd, now->cwd);
        changes++;
    }
    if (s->environment == NULL || now->environment == NULL ||
        strcmp(s->environment, now->environment) != 0) {
        fprintf(stderr, "%s: the environment changed\n", when);
        changes++;
    }
    for (int r = 0; r < RLIM_NLIMITS; r++) {
        if (s->limits[r].rlim_cur != now->limits[r].rlim_cur ||
            s->limits[r].rlim_max != now->limits[r].rlim_max) {
            fprintf(stderr, "%s: resource limit %d changed\n", when, r);
            changes++;
        }
    }
    if (!CPU_EQUAL(&s->affinity, &now->affinity)) {
        fprintf(stderr, "%s: this thread's CPU affinity changed\n", when);
        changes++;
    }
    if (strcmp(s->thread_name, now->thread_name) != 0) {
        fprintf(stderr, "%s: this thread was renamed %s\n", when, now->thread_name);
        changes++;
    }
    changes += fds_leaking(s, when);
    free(now->environment);
    free(now);
    return changes;
}

/* @p count reads of 1 MiB from /dev/urandom on this thread; the short ones are counted. */
static void urandom_reads(unsigned count, const char *after)
{
    unsigned short_here = 0;
    for (unsigned i = 0; i < count; i++) {
        ssize_t n = read(urandom_fd, urandom_buf, READ_SIZE);
        reads_total++;
        if (n != (ssize_t)READ_SIZE) {
            if (short_here++ == 0)
                fprintf(stderr, "read %u of /dev/urandom after %s returned %zd%s%s\n", i + 1, after,
                        n, n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
            reads_short++;
        }
    }
}

/*
 * What the program sees on this thread after a library call: its reads of /dev/urandom whole, and
 * no HIP error it did not cause. Returns the number of failures other than short reads.
 */
static int after_call(const char *what, unsigned reads)
{
    urandom_reads(reads, what);
    hipError_t err = hipGetLastError();
    if (err == hipSuccess)
        return 0;
    fprintf(stderr, "hipGetLastError after %s: %s\n", what, hipGetErrorName(err));
    return 1;
}

static bool ok(hipFileError_t status, const char *what)
{
    if (status.err == hipFileSuccess)
        return true;
    fprintf(stderr, "%s failed: %s\n", what, HIPFILE_ERRSTR(status.err));
    return false;
}

/* One cycle; returns the number of failures (library calls and state changes). */
static int cycle(unsigned index, int fd, void *dev, unsigned reads)
{
    char when[64];
    int failures = 0;
    if (!ok(hipFileDriverOpen(), "hipFileDriverOpen"))
        return 1;
    failures += after_call("hipFileDriverOpen", reads);

    hipFileHandle_t fh;
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = fd};
    if (ok(hipFileHandleRegister(&fh, &descr), "hipFileHandleRegister")) {
        failures += after_call("hipFileHandleRegister", reads);
        hoff_t offset = (hoff_t)(index % (FILE_SIZE / READ_SIZE)) * (hoff_t)READ_SIZE;
        ssize_t n = hipFileRead(fh, dev, READ_SIZE, offset, 0);
        if (n != (ssize_t)READ_SIZE) {
            fprintf(stderr, "hipFileRead of %zu bytes returned %zd\n", READ_SIZE, n);
            failures++;
        } else if (client_check_device(dev, READ_SIZE, SEED, "after hipFileRead") != 0) {
            failures++;
        }
        failures += after_call("hipFileRead", reads);
        snprintf(when, sizeof(when), "cycle %u, file registered", index + 1);
        failures += fds_leaking(&before, when);
        hipFileHandleDeregister(fh);
        failures += after_call("hipFileHandleDeregister", reads);
    } else {
        failures++;
    }
    if (!ok(hipFileDriverClose(), "hipFileDriverClose"))
        failures++;
    failures += after_call("hipFileDriverClose", reads);
    snprintf(when, sizeof(when), "cycle %u, after hipFileDriverClose", index + 1);
    return failures + state_changes(&before, when);
}

/* Four pieces of 1 MiB, each stream SEED from its start: a read of any piece checks alike. */
static int file_make(int fd)
{
    unsigned char *data = malloc(READ_SIZE);
    if (data == NULL)
        return 1;
    pattern_fill(data, READ_SIZE, SEED, 0);
    int rc = 0;
    for (size_t at = 0; at < FILE_SIZE && rc == 0; at += READ_SIZE)
        rc = pwrite(fd, data, READ_SIZE, (off_t)at) == (ssize_t)READ_SIZE ? 0 : 1;
    free(data);
    if (rc != 0 || fsync(fd) != 0) {
        perror("writing the test file");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s FILE [CYCLES [READS_PER_CALL]]\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    unsigned cycles = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10;
    unsigned reads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 21;
    int failures = 0;
    int rc = 1;
    void *dev = NULL;

    urandom_buf = malloc(READ_SIZE);
    urandom_fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (urandom_buf == NULL || urandom_fd < 0 || fd < 0) {
        perror("setup");
        return 1;
    }
    if (file_make(fd) != 0)
        goto close_file;
    if (hipMalloc(&dev, READ_SIZE) != hipSuccess) {
        fprintf(stderr, "hipMalloc of %zu bytes failed\n", READ_SIZE);
        goto close_file;
    }
    state_take(&before);
    for (unsigned i = 0; i < cycles; i++)
        failures += cycle(i, fd, dev, reads);
    hipFree(dev);

    printf("thread_hygiene: %lu of %lu reads of 1 MiB from /dev/urandom came back short\n",
           reads_short, reads_total);
    if (failures == 0 && reads_short == 0 && reads_total >= (unsigned long)cycles * reads) {
        printf("thread_hygiene: %u cycles, every read whole, the process left as it was\n", cycles);
        rc = 0;
    }

close_file:
    close(fd);
    unlink(path);
    close(urandom_fd);
    free(urandom_buf);
    free(before.environment);
    return rc;
}
