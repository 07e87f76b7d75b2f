/*
 * The worker side of --backends: a copy of this program started with only one backend enabled
 * (HIPFILE_PLUGINS), so that backend is the only one that can serve its requests. It sets one
 * library method up on the parent's file, warms it up, then runs measured passes when told to,
 * each checked against the library's statistics, and finally sends its result back. Its stdout
 * is the parent's stderr; the parent alone writes the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "methods/worker.h"

int bench_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int bench_read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Every request this process's library counted, refused and failed ones included. */
static uint64_t requests_counted(void)
{
    struct bench_counts c;
    if (bench_counts_take(&c) != 0)
        return 0;
    return c.ops[BENCH_READ][0] + c.ops[BENCH_READ][1] + c.ops[BENCH_WRITE][0] +
           c.ops[BENCH_WRITE][1];
}

static int send_result(int fd, int32_t rc, const struct bench_result *result)
{
    struct bench_worker_reply reply = {.rc = rc};
    uint64_t requests = requests_counted();
    if (bench_write_all(fd, &reply, sizeof(reply)) != 0 ||
        bench_write_all(fd, result, sizeof(*result)) != 0 ||
        bench_write_all(fd, &requests, sizeof(requests)) != 0)
        return -1;
    return 0;
}

/* A registration starts the statistics, so the report at exit lists every loaded backend. */
static int probe(void)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        hipFileDescr_t descr;
        hipFileHandle_t handle;
        memset(&descr, 0, sizeof(descr));
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        if (hipFileHandleRegister(&handle, &descr).err == hipFileSuccess)
            hipFileHandleDeregister(handle);
        close(fd);
    }
    return hipFileDriverClose().err == hipFileSuccess ? 0 : 1;
}

/* Passes until END; each one's result goes back at once. */
static int serve_passes(int in, int out, struct bench_session *session, const struct bench_ctx *ctx,
                        struct bench_result *result)
{
    for (;;) {
        struct bench_worker_command cmd;
        if (bench_read_all(in, &cmd, sizeof(cmd)) != 0)
            return -1;
        if (cmd.kind != BENCH_WORKER_PASS)
            return 0;
        struct bench_worker_reply reply = {0};
        reply.rc = bench_session_pass(session, cmd.budget_ns, result, &reply.pass_ns);
        /* The next backend's pass must not pay for this one's writeback. */
        if (bench_settle_writes(ctx) != 0)
            reply.rc = bench_result_fail(result, "fdatasync after the pass failed");
        if (bench_write_all(out, &reply, sizeof(reply)) != 0)
            return -1;
    }
}

static int measure_method(const struct bench_worker_setup *su, struct bench_options *opts,
                          struct bench_file *file, int in, int out)
{
    struct bench_ctx ctx = {
        .opts = opts,
        .wl = &bench_workloads[su->workload],
        .file = file,
        .chunks = opts->file_size / opts->io_size,
        .seed = su->seed,
        .count_requests = true,
    };
    size_t io_threads = 0;
    if (hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &io_threads).err ==
        hipFileSuccess)
        ctx.executor_threads = (unsigned)io_threads;
    struct bench_options seq_opts;
    struct bench_ctx mctx;
    struct bench_method m;
    struct bench_result result;
    struct bench_session *session;
    bench_library_method(&ctx, su->method, &seq_opts, &mctx, &m);
    if (bench_session_open(&mctx, &m, &result, &session) != 0) {
        send_result(out, -1, &result);
        return 1;
    }
    struct bench_worker_reply ready = {0};
    if (bench_write_all(out, &ready, sizeof(ready)) != 0) {
        bench_session_close(session, &result);
        return 1;
    }
    int rc = serve_passes(in, out, session, &mctx, &result);
    bench_session_close(session, &result);
    if (rc != 0)
        return 1;
    return send_result(out, result.failed ? -1 : 0, &result) == 0 ? 0 : 1;
}

int bench_worker_main(const struct bench_options *cmdline)
{
    int in = cmdline->worker_fds[0], out = cmdline->worker_fds[1];
    struct bench_worker_setup su;
    struct bench_result failed;
    if (bench_read_all(in, &su, sizeof(su)) != 0 || su.magic != BENCH_WORKER_MAGIC ||
        su.size != sizeof(su) || su.workload >= 4 || su.method > BENCH_METHOD_SYNC_SEQ) {
        fprintf(stderr, BENCH_NAME ": --backend-worker is for this program's own use\n");
        return 2;
    }
    su.file[sizeof(su.file) - 1] = '\0';
    su.backend[sizeof(su.backend) - 1] = '\0';
    struct bench_options opts = su.opts;
    opts.file = su.file;
    opts.keep = true;
    opts.progress = 0;
    opts.n_backends = 0;
    /* The file notes of an unpatterned file were the parent's to print, once. */
    opts.json = true;
    opts.worker_fds[0] = in;
    opts.worker_fds[1] = out;

    bench_result_init(&failed, "library");
    int rc = bench_library_open(&opts);
    if (rc != 0) {
        bench_result_fail(&failed, "the library did not open (see above)");
        send_result(out, -1, &failed);
        return rc < 0 ? 1 : rc;
    }
    if (su.probe) {
        struct bench_worker_reply reply = {.rc = probe()};
        return bench_write_all(out, &reply, sizeof(reply)) == 0 ? reply.rc : 1;
    }
    struct bench_file file;
    if (bench_file_open(&opts, &file) != 0) {
        bench_result_fail(&failed, "cannot open the file (see above)");
        send_result(out, -1, &failed);
        hipFileDriverClose();
        return 1;
    }
    rc = measure_method(&su, &opts, &file, in, out);
    bench_file_close(&opts, &file);
    hipFileDriverClose();
    return rc;
}
