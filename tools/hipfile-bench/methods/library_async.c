/*
 * The library through hipFileReadAsync/WriteAsync: one registered stream per caller thread, each
 * call waited for (as --async-wait says) before the next. The buffers and their registration are
 * the sync method's (library_sync.c).
 */
#include <stdlib.h>
#include <time.h>

#include "bench.h"

struct async_state {
    hipStream_t stream;
    bool registered;
};

static void async_teardown(struct bench_thread *t)
{
    struct async_state *as = t->api;
    if (as != NULL) {
        if (as->registered) {
            hipFileError_t status = hipFileStreamDeregister(as->stream);
            if (status.err != hipFileSuccess)
                bench_status_error("hipFileStreamDeregister", status);
        }
        if (as->stream != NULL)
            (void)hipStreamDestroy(as->stream);
        free(as);
        t->api = NULL;
    }
    bench_library_teardown(t);
}

static int async_setup(struct bench_thread *t)
{
    struct async_state *as = calloc(1, sizeof(*as));
    if (as == NULL) {
        fprintf(stderr, BENCH_NAME ": no memory for a stream's state\n");
        return -1;
    }
    t->api = as;
    if (bench_library_setup(t, t->ctx->opts->io_size) != 0)
        return -1;
    hipError_t err = hipStreamCreateWithFlags(&as->stream, hipStreamNonBlocking);
    if (err != hipSuccess)
        return bench_hip_error("hipStreamCreateWithFlags", err);
    t->stream = as->stream;
    /* Flags 0: sizes and offsets are read when the stream reaches the call, the default. */
    hipFileError_t status = hipFileStreamRegister(as->stream, 0);
    if (status.err != hipFileSuccess)
        return bench_status_error("hipFileStreamRegister", status);
    as->registered = true;
    return 0;
}

/*
 * The runtime's own wait. With CUDA's and HIP's default schedule it spins a CPU while the call
 * runs, so each caller thread waiting here takes a CPU the library's I/O threads could use.
 */
static int async_wait_sync(hipStream_t stream)
{
    hipError_t err = hipStreamSynchronize(stream);
    return err == hipSuccess ? 0 : bench_hip_error("hipStreamSynchronize", err);
}

/*
 * As a program that leaves its CPUs to the library's I/O threads would wait: ask the stream
 * whether it is done and sleep in between. The end of a call is then seen up to one sleep late,
 * which the call's latency includes, as it would in such a program.
 */
static int async_wait_poll(hipStream_t stream)
{
    static const struct timespec pause = {.tv_sec = 0, .tv_nsec = BENCH_ASYNC_POLL_NS};
    hipError_t err;
    /* A sleep cut short by a signal only makes the next query come sooner. */
    while ((err = hipStreamQuery(stream)) == hipErrorNotReady)
        (void)nanosleep(&pause, NULL);
    return err == hipSuccess ? 0 : bench_hip_error("hipStreamQuery", err);
}

static int async_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    struct async_state *as = t->api;
    hipFileHandle_t fh = t->ctx->file->handle;
    const char *call = bench_thread_reads(t) ? "hipFileReadAsync" : "hipFileWriteAsync";
    /* Read by the stream when it reaches the call: they must outlive the wait below. */
    size_t size_arg = size;
    hoff_t file_offset = (hoff_t)offset, buf_offset = 0;
    ssize_t moved = 0;
    hipFileError_t status =
        bench_thread_reads(t)
            ? hipFileReadAsync(fh, t->buf, &size_arg, &file_offset, &buf_offset, &moved, as->stream)
            : hipFileWriteAsync(fh, t->buf, &size_arg, &file_offset, &buf_offset, &moved,
                                as->stream);
    if (status.err != hipFileSuccess)
        return bench_status_error(call, status);
    int rc = t->ctx->opts->async_wait == BENCH_ASYNC_WAIT_POLL ? async_wait_poll(as->stream)
                                                               : async_wait_sync(as->stream);
    if (rc != 0)
        return rc;
    return moved == (ssize_t)size ? 0 : bench_moved_error(t, call, offset, moved, size);
}

const struct bench_method bench_method_library_async = {
    .name = "library-async", .setup = async_setup, .io = async_io, .teardown = async_teardown};
