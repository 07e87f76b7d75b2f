/*
 * The library's own method: hipFileRead/hipFileWrite into buffers of --mem memory, registered
 * with --register. Its buffers and registration are also what the async and batch methods set up
 * (library_async.c, library_batch.c), so the three differ only in how calls reach the library.
 */
#include "bench.h"

int bench_library_setup(struct bench_thread *t, size_t size)
{
    const struct bench_options *o = t->ctx->opts;
    if (bench_alloc(o->mem, size, &t->buf) != 0)
        return -1;
    t->buf_on_device = o->mem == BENCH_MEM_DEVICE;
    if (o->buf_register) {
        hipFileError_t status = hipFileBufRegister(t->buf, size, 0);
        if (status.err != hipFileSuccess)
            return bench_status_error("hipFileBufRegister", status);
        t->registered = true;
    }
    return 0;
}

static int library_setup(struct bench_thread *t)
{
    return bench_library_setup(t, t->ctx->opts->io_size);
}

static int library_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    hipFileHandle_t fh = t->ctx->file->handle;
    bool read = bench_thread_reads(t);
    ssize_t n = read ? hipFileRead(fh, t->buf, size, (hoff_t)offset, 0)
                     : hipFileWrite(fh, t->buf, size, (hoff_t)offset, 0);
    if (n == (ssize_t)size)
        return 0;
    return bench_moved_error(t, read ? "hipFileRead" : "hipFileWrite", offset, n, size);
}

void bench_library_teardown(struct bench_thread *t)
{
    if (t->registered) {
        hipFileError_t status = hipFileBufDeregister(t->buf);
        if (status.err != hipFileSuccess)
            bench_status_error("hipFileBufDeregister", status);
    }
    bench_free(t->ctx->opts->mem, t->buf);
}

const struct bench_method bench_method_library = {.name = "library",
                                                  .setup = library_setup,
                                                  .io = library_io,
                                                  .teardown = bench_library_teardown};
