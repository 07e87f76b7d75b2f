/*
 * The library through the batch API: --batch-entries calls per hipFileBatchIOSubmit, every event
 * collected before the next submission. The buffer (one stretch per entry) and its registration
 * are the sync method's (library_sync.c).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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
    hipFileOpcode_t opcode = bench_thread_reads(t) ? hipFileBatchRead : hipFileBatchWrite;
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
                rc = bench_moved_error(t, bench_thread_reads(t) ? "batch read" : "batch write",
                                       offsets[entry], (ssize_t)ev->ret, size);
        }
        done += nr;
    }
    return rc;
}

const struct bench_method bench_method_library_batch = {
    .name = "library-batch", .setup = batch_setup, .io_many = batch_io, .teardown = batch_teardown};
