/*
 * --backends: the library's methods served by each named backend in turn, in one invocation.
 *
 * The library reads plugins.enable once, when the driver is first set up, and keeps its plugins
 * loaded after the last hipFileDriverClose, so one process cannot switch backends. Each backend
 * therefore gets a worker: this program executed again with HIPFILE_PLUGINS naming that backend
 * alone, so no other backend can take a request, and statistics level 3 with a report at exit
 * (HIPFILE_STATS_REPORT). The workers set up and warm up, then the parent hands out measured
 * passes round-robin, rotating which backend goes first, so every backend sees the same file,
 * cache handling and moment. Each pass is checked against the worker's statistics (every call
 * counted as a served request), and at the end the report names how many requests each loaded
 * backend served: all of them must be the named backend's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "methods/worker.h"

extern char **environ;

struct worker {
    const char *backend; /* the one backend its library loads */
    pid_t pid;
    int cmd_fd;   /* commands to it */
    int reply_fd; /* its replies */
    char report[4096];
    bool running; /* set up and taking commands */
    bool done;    /* measured enough, or failed */
    unsigned passes;
    uint64_t measured_ns;
};

/* An empty file for the worker's statistics report, where the default file would be made. */
static int report_path(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/" BENCH_NAME "-stats.XXXXXX",
             dir != NULL && *dir != '\0' ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, BENCH_NAME ": cannot make %s: %s\n", path, strerror(errno));
        path[0] = '\0';
        return -1;
    }
    close(fd);
    return 0;
}

static bool replaced_variable(const char *entry)
{
    static const char *const names[] = {
        "HIPFILE_PLUGINS=", "HIPFILE_STATS_LEVEL=", "HIPFILE_STATS_REPORT="};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strncmp(entry, names[i], strlen(names[i])) == 0)
            return true;
    return false;
}

/* This process's environment, with the three variables that make a worker what it is. */
static char **worker_environment(const char *plugins, const char *report, char *storage,
                                 size_t storage_len)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 4, sizeof(*env));
    if (env == NULL)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (!replaced_variable(environ[i]))
            env[used++] = environ[i];
    int a = snprintf(storage, storage_len, "HIPFILE_PLUGINS=%s", plugins);
    int b =
        snprintf(storage + a + 1, storage_len - (size_t)a - 1, "HIPFILE_STATS_REPORT=%s", report);
    if (a < 0 || b < 0 || (size_t)a + (size_t)b + 2 > storage_len) {
        free(env);
        return NULL;
    }
    env[used++] = storage;
    env[used++] = storage + a + 1;
    env[used++] = "HIPFILE_STATS_LEVEL=3";
    env[used] = NULL;
    return env;
}

/* Fork and execute this program as a worker whose library loads only @p plugins. 0 or -1. */
static int worker_start(struct worker *w, const char *plugins, const struct bench_worker_setup *su)
{
    int to_worker[2], from_worker[2];
    char storage[8192], fds[32];
    w->pid = -1;
    w->cmd_fd = w->reply_fd = -1;
    if (report_path(w->report, sizeof(w->report)) != 0)
        return -1;
    char **env = worker_environment(plugins, w->report, storage, sizeof(storage));
    if (env == NULL) {
        fprintf(stderr, BENCH_NAME ": no memory for a worker's environment\n");
        return -1;
    }
    if (pipe2(to_worker, O_CLOEXEC) != 0) {
        fprintf(stderr, BENCH_NAME ": pipe: %s\n", strerror(errno));
        free(env);
        return -1;
    }
    if (pipe2(from_worker, O_CLOEXEC) != 0) {
        fprintf(stderr, BENCH_NAME ": pipe: %s\n", strerror(errno));
        close(to_worker[0]);
        close(to_worker[1]);
        free(env);
        return -1;
    }
    snprintf(fds, sizeof(fds), "%d,%d", to_worker[0], from_worker[1]);
    char *argv[] = {BENCH_NAME, "--backend-worker", fds, NULL};
    fflush(NULL);
    w->pid = fork();
    if (w->pid == 0) {
        /* Only async-signal-safe calls until exec. The worker's stdout is our stderr. */
        fcntl(to_worker[0], F_SETFD, 0);
        fcntl(from_worker[1], F_SETFD, 0);
        dup2(STDERR_FILENO, STDOUT_FILENO);
        execve("/proc/self/exe", argv, env);
        static const char msg[] = BENCH_NAME ": cannot execute /proc/self/exe for a worker\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)ignored;
        _exit(127);
    }
    int fork_errno = errno;
    free(env);
    close(to_worker[0]);
    close(from_worker[1]);
    w->cmd_fd = to_worker[1];
    w->reply_fd = from_worker[0];
    if (w->pid < 0) {
        fprintf(stderr, BENCH_NAME ": fork: %s\n", strerror(fork_errno));
        return -1;
    }
    if (bench_write_all(w->cmd_fd, su, sizeof(*su)) != 0) {
        fprintf(stderr, BENCH_NAME ": backend %s: its process did not take its setup\n",
                w->backend);
        return -1;
    }
    return 0;
}

/*
 * Close the pipes, wait for the worker and remove its report. Returns its exit status, or 128 +
 * the signal that ended it.
 */
static int worker_reap(struct worker *w)
{
    int status = 0;
    if (w->cmd_fd >= 0)
        close(w->cmd_fd);
    if (w->reply_fd >= 0)
        close(w->reply_fd);
    w->cmd_fd = w->reply_fd = -1;
    w->running = false;
    if (w->pid > 0) {
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
            ;
        w->pid = -1;
        status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return status;
}

static void report_remove(struct worker *w)
{
    if (w->report[0] != '\0')
        unlink(w->report);
    w->report[0] = '\0';
}

/* How many requests each loaded backend served, per the worker's report. */
struct served_counts {
    char names[BENCH_MAX_BACKENDS * 2][BENCH_BACKEND_NAME];
    uint64_t served[BENCH_MAX_BACKENDS * 2];
    unsigned n;
};

static int report_read(const char *path, struct served_counts *c)
{
    FILE *f = fopen(path, "r");
    char line[512];
    memset(c, 0, sizeof(*c));
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL && c->n < BENCH_MAX_BACKENDS * 2) {
        char name[BENCH_BACKEND_NAME];
        unsigned long long reads, writes;
        /* "  backend NAME served: reads N, writes M" (core/api/stats_report.c) */
        if (sscanf(line, " backend %31s served: reads %llu, writes %llu", name, &reads, &writes) !=
            3)
            continue;
        snprintf(c->names[c->n], sizeof(c->names[c->n]), "%s", name);
        c->served[c->n++] = reads + writes;
    }
    fclose(f);
    return 0;
}

static bool report_has(const struct served_counts *c, const char *name, uint64_t *served_p)
{
    for (unsigned i = 0; i < c->n; i++) {
        if (strcmp(c->names[i], name) == 0) {
            if (served_p != NULL)
                *served_p = c->served[i];
            return true;
        }
    }
    return false;
}

static void join_names(const struct bench_options *o, char *text, size_t len)
{
    size_t at = 0;
    text[0] = '\0';
    for (unsigned i = 0; i < o->n_backends && at < len; i++)
        at += (size_t)snprintf(text + at, len - at, "%s%s", i ? "," : "", o->backends[i]);
}

static void setup_message(const struct bench_options *o, struct bench_worker_setup *su)
{
    memset(su, 0, sizeof(*su));
    su->magic = BENCH_WORKER_MAGIC;
    su->size = sizeof(*su);
    su->opts = *o;
    su->opts.file = NULL;
}

int bench_backends_probe(const struct bench_options *o)
{
    struct worker w = {.backend = "(probe)"};
    struct bench_worker_setup su;
    struct bench_worker_reply reply;
    struct served_counts loaded;
    char plugins[BENCH_MAX_BACKENDS * BENCH_BACKEND_NAME];
    setup_message(o, &su);
    su.probe = true;
    join_names(o, plugins, sizeof(plugins));
    int rc = worker_start(&w, plugins, &su);
    bool replied = rc == 0 && bench_read_all(w.reply_fd, &reply, sizeof(reply)) == 0;
    int status = worker_reap(&w);
    if (rc != 0 || !replied || status != 0 || report_read(w.report, &loaded) != 0) {
        report_remove(&w);
        /* A bad --device is the worker's to report, with its own exit status. */
        if (replied && status == 2)
            return 2;
        fprintf(stderr, BENCH_NAME ": --backends: cannot start the library with %s alone\n",
                plugins);
        return 1;
    }
    report_remove(&w);
    for (unsigned i = 0; i < o->n_backends; i++) {
        if (report_has(&loaded, o->backends[i], NULL))
            continue;
        fprintf(stderr,
                BENCH_NAME ": --backends %s: no backend of that name loads (it is not in the "
                           "plugin directory, or it failed to load: hipfile-check lists the "
                           "backends and why)\n",
                o->backends[i]);
        return 2;
    }
    return 0;
}

/* Read the result a worker sends after a failed setup or after END. */
static int receive_result(struct worker *w, struct bench_result *r)
{
    struct bench_result got;
    uint64_t requests;
    if (bench_read_all(w->reply_fd, &got, sizeof(got)) != 0 ||
        bench_read_all(w->reply_fd, &requests, sizeof(requests)) != 0)
        return -1;
    int index = r->backend_index;
    got.worker_requests = requests;
    got.backend_index = index;
    snprintf(got.backend, sizeof(got.backend), "%s", w->backend);
    *r = got;
    return 0;
}

static void fail_worker(struct worker *w, struct bench_result *r, const char *why)
{
    fprintf(stderr, BENCH_NAME ": %s@%s: %s\n", r->name, w->backend, why);
    bench_result_fail(r, why);
}

/* The worker's report must show every request it made served by its one backend. */
static void check_served(struct worker *w, struct bench_result *r)
{
    struct served_counts c;
    char why[sizeof(r->note)];
    if (report_read(w->report, &c) != 0) {
        fail_worker(w, r, "its statistics report could not be read");
        return;
    }
    r->others_served = 0;
    for (unsigned i = 0; i < c.n; i++)
        if (strcmp(c.names[i], w->backend) != 0)
            r->others_served += c.served[i];
    if (!report_has(&c, w->backend, &r->backend_served)) {
        snprintf(why, sizeof(why), "backend %s was not loaded in its process", w->backend);
        fail_worker(w, r, why);
    } else if (r->others_served != 0 || r->backend_served != r->worker_requests) {
        snprintf(why, sizeof(why),
                 "%llu of its %llu requests were not served by %s (%llu by other backends)",
                 (unsigned long long)(r->worker_requests - r->backend_served),
                 (unsigned long long)r->worker_requests, w->backend,
                 (unsigned long long)r->others_served);
        fail_worker(w, r, why);
    }
}

static void start_workers(const struct bench_ctx *ctx, unsigned which, struct worker *w,
                          struct bench_result *r)
{
    const struct bench_options *o = ctx->opts;
    struct bench_worker_setup su;
    setup_message(o, &su);
    snprintf(su.file, sizeof(su.file), "%s", ctx->file->path);
    su.workload = (unsigned)(ctx->wl - bench_workloads);
    su.method = which;
    su.seed = ctx->seed;
    for (unsigned b = 0; b < o->n_backends && !bench_stop; b++) {
        struct bench_worker_reply reply;
        snprintf(su.backend, sizeof(su.backend), "%s", w[b].backend);
        if (worker_start(&w[b], w[b].backend, &su) != 0 ||
            bench_read_all(w[b].reply_fd, &reply, sizeof(reply)) != 0) {
            fail_worker(&w[b], &r[b], "its process did not set up");
        } else if (reply.rc != 0) {
            if (receive_result(&w[b], &r[b]) != 0 || r[b].note[0] == '\0')
                bench_result_fail(&r[b], "setup failed");
            fprintf(stderr, BENCH_NAME ": %s@%s: %s\n", r[b].name, w[b].backend, r[b].note);
            r[b].failed = true;
        } else {
            w[b].running = true;
            continue;
        }
        worker_reap(&w[b]);
        report_remove(&w[b]);
    }
}

/* One measured pass of one worker. */
static void pass_of(const struct bench_ctx *ctx, struct worker *w, struct bench_result *r)
{
    const struct bench_options *o = ctx->opts;
    uint64_t time_ns = (uint64_t)(o->time_s * 1e9);
    struct bench_worker_command cmd = {.kind = BENCH_WORKER_PASS,
                                       .budget_ns = time_ns != 0 ? time_ns - w->measured_ns : 0};
    struct bench_worker_reply reply;
    if (ctx->progress)
        fprintf(stderr, "\r\033[K%s %s@%s: measured pass %u", ctx->wl->name, r->name, w->backend,
                w->passes + 1);
    if (bench_write_all(w->cmd_fd, &cmd, sizeof(cmd)) != 0 ||
        bench_read_all(w->reply_fd, &reply, sizeof(reply)) != 0) {
        fail_worker(w, r, "its process ended during a pass");
        worker_reap(w);
        w->done = true;
        return;
    }
    w->passes++;
    w->measured_ns += reply.pass_ns;
    if (reply.rc != 0 || bench_stop ||
        (time_ns != 0 ? w->measured_ns >= time_ns : w->passes >= o->passes))
        w->done = true;
}

/* Passes round-robin, each round starting one backend later, until every backend has its share. */
static void interleave(const struct bench_ctx *ctx, struct worker *w, struct bench_result *r,
                       unsigned n)
{
    for (unsigned round = 0; !bench_stop; round++) {
        bool any = false;
        for (unsigned k = 0; k < n && !bench_stop; k++) {
            unsigned b = (k + round) % n;
            if (!w[b].running || w[b].done)
                continue;
            pass_of(ctx, &w[b], &r[b]);
            any = true;
        }
        if (!any)
            break;
    }
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
}

static void finish_worker(struct worker *w, struct bench_result *r)
{
    struct bench_worker_command end = {.kind = BENCH_WORKER_END};
    struct bench_worker_reply reply;
    char why[64];
    if (w->running) {
        if (bench_write_all(w->cmd_fd, &end, sizeof(end)) != 0 ||
            bench_read_all(w->reply_fd, &reply, sizeof(reply)) != 0 || receive_result(w, r) != 0)
            fail_worker(w, r, "its process did not send its result");
        int status = worker_reap(w);
        if (status != 0 && !r->failed) {
            snprintf(why, sizeof(why), "its process exited with status %d", status);
            fail_worker(w, r, why);
        } else if (r->ran) {
            check_served(w, r);
        }
    }
    report_remove(w);
}

int bench_backends_measure(const struct bench_ctx *ctx, const unsigned *which, unsigned n_which,
                           struct bench_result *results, unsigned *n_p)
{
    const struct bench_options *o = ctx->opts;
    int rc = 0;
    for (unsigned i = 0; i < n_which && !bench_stop; i++) {
        struct worker w[BENCH_MAX_BACKENDS];
        struct bench_result *r = &results[*n_p];
        struct bench_options seq_opts;
        struct bench_ctx mctx;
        struct bench_method m;
        bench_library_method(ctx, which[i], &seq_opts, &mctx, &m);
        memset(w, 0, sizeof(w));
        for (unsigned b = 0; b < o->n_backends; b++) {
            w[b].backend = o->backends[b];
            w[b].pid = -1;
            w[b].cmd_fd = w[b].reply_fd = -1;
            bench_result_init(&r[b], m.name);
            snprintf(r[b].backend, sizeof(r[b].backend), "%s", o->backends[b]);
            r[b].backend_index = (int)b;
            r[b].threads = m.threads;
        }
        *n_p += o->n_backends;
        start_workers(ctx, which[i], w, r);
        interleave(ctx, w, r, o->n_backends);
        for (unsigned b = 0; b < o->n_backends; b++) {
            finish_worker(&w[b], &r[b]);
            rc |= r[b].failed ? -1 : 0;
        }
    }
    return rc;
}
