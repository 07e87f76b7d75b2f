/*
 * The library method through its other two APIs: stream-ordered async calls on one registered
 * stream per thread, and the batch API with --batch-entries calls per submission. Both share the
 * sync method's buffers and registration, so the three differ only in how calls reach the library.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static bool is_read(const struct bench_thread *t)
{
    return t->ctx->wl->op == BENCH_READ;
}

/* ---- async: one registered stream per thread, each call waited for before the next --------- */

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
    const char *call = is_read(t) ? "hipFileReadAsync" : "hipFileWriteAsync";
    /* Read by the stream when it reaches the call: they must outlive the wait below. */
    size_t size_arg = size;
    hoff_t file_offset = (hoff_t)offset, buf_offset = 0;
    ssize_t moved = 0;
    hipFileError_t status = is_read(t) ? hipFileReadAsync(fh, t->buf, &size_arg, &file_offset,
                                                          &buf_offset, &moved, as->stream)
                                       : hipFileWriteAsync(fh, t->buf, &size_arg, &file_offset,
                                                           &buf_offset, &moved, as->stream);
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

/* ---- batch: --batch-entries calls per submission, all collected before the next ------------- */

struct batch_state {
    hipFileBatchHandle_t handle;
    bool set_up;
    hipFileIOParams_t *params;
    hipFileIOEvents_t *events;
};

static void batch_teardown(struct bench_thread *t)
{
    struct batch_state *bs = t->api;
    if (bs != NULL) {
        if (bs->set_up)
            hipFileBatchIODestroy(bs->handle);
        free(bs->params);
        free(bs->events);
        free(bs);
        t->api = NULL;
    }
    bench_library_teardown(t);
}

static int batch_setup(struct bench_thread *t)
{
    const struct bench_options *o = t->ctx->opts;
    unsigned entries = o->batch_entries;
    struct batch_state *bs = calloc(1, sizeof(*bs));
    if (bs != NULL) {
        bs->params = calloc(entries, sizeof(*bs->params));
        bs->events = calloc(entries, sizeof(*bs->events));
    }
    t->api = bs;
    if (bs == NULL || bs->params == NULL || bs->events == NULL) {
        fprintf(stderr, BENCH_NAME ": no memory for a batch of %u entries\n", entries);
        return -1;
    }
    /* Each entry has its own stretch of the buffer, so entries never share bytes. */
    if (bench_library_setup(t, (size_t)entries * o->io_size) != 0)
        return -1;
    hipFileError_t status = hipFileBatchIOSetUp(&bs->handle, entries);
    if (status.err != hipFileSuccess) {
        bench_status_error("hipFileBatchIOSetUp", status);
        fprintf(stderr,
                BENCH_NAME ": --batch-entries %u may be over properties.max_batch_io_count; "
                           "raise it in the configuration file or HIPFILE_MAX_BATCH_IO_COUNT\n",
                entries);
        return -1;
    }
    bs->set_up = true;
    return 0;
}

static int batch_io(struct bench_thread *t, const uint64_t *offsets, unsigned n, size_t size)
{
    struct batch_state *bs = t->api;
    hipFileOpcode_t opcode = is_read(t) ? hipFileBatchRead : hipFileBatchWrite;
    for (unsigned i = 0; i < n; i++) {
        hipFileIOParams_t *p = &bs->params[i];
        memset(p, 0, sizeof(*p));
        p->mode = hipFileBatch;
        p->u.batch.devPtr_base = t->buf;
        p->u.batch.file_offset = (int64_t)offsets[i];
        p->u.batch.devPtr_offset = (int64_t)((size_t)i * size);
        p->u.batch.size = size;
        p->fh = t->ctx->file->handle;
        p->opcode = opcode;
        p->cookie = (void *)(uintptr_t)i;
    }
    hipFileError_t status = hipFileBatchIOSubmit(bs->handle, n, bs->params, 0);
    if (status.err != hipFileSuccess)
        return bench_status_error("hipFileBatchIOSubmit", status);
    int rc = 0;
    for (unsigned done = 0; done < n;) {
        unsigned nr = n - done;
        status = hipFileBatchIOGetStatus(bs->handle, nr, &nr, bs->events, NULL);
        if (status.err != hipFileSuccess)
            return bench_status_error("hipFileBatchIOGetStatus", status);
        for (unsigned i = 0; i < nr; i++) {
            const hipFileIOEvents_t *ev = &bs->events[i];
            uintptr_t entry = (uintptr_t)ev->cookie;
            if (entry >= n)
                return bench_call_error(t, "hipFileBatchIOGetStatus", offsets[0],
                                        "an event with a cookie no entry had");
            if (ev->status == hipFileComplete && ev->ret == size)
                continue;
            if (rc == 0)
                rc = bench_moved_error(t, is_read(t) ? "batch read" : "batch write", offsets[entry],
                                       (ssize_t)ev->ret, size);
        }
        done += nr;
    }
    return rc;
}

const struct bench_method bench_method_library_batch = {
    .name = "library-batch", .setup = batch_setup, .io_many = batch_io, .teardown = batch_teardown};
