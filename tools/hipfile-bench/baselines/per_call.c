/*
 * The baselines timed call by call, each a bench_method like the library's: raw pread/pwrite,
 * O_DIRECT pread/pwrite, pwrite with a timed fdatasync, the naive pageable path, an AMD-style
 * bounce path, and pread plus one pinned copy. Each is setup, one call, teardown, run by the same
 * measuring loop as the library.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int copy_error(const struct bench_thread *t, uint64_t offset, hipError_t err)
{
    return bench_call_error(t, "hipMemcpy", offset, hipGetErrorString(err));
}

/* ---- raw pread / pwrite, O_DIRECT, and pwrite + fdatasync
 * ------------------------------------------------- */

static int raw_setup(struct bench_thread *t)
{
    return bench_alloc(BENCH_MEM_PAGEABLE, t->ctx->opts->io_size, &t->buf);
}

static int odirect_setup(struct bench_thread *t)
{
    t->fd = t->ctx->file->direct_fd;
    return raw_setup(t);
}

static int raw_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    if (bench_thread_reads(t) ? bench_pread_full(t->fd, t->buf, size, offset)
                              : bench_pwrite_full(t->fd, t->buf, size, offset))
        return bench_errno_error(t, bench_thread_reads(t) ? "pread" : "pwrite", offset);
    return 0;
}

static void host_teardown(struct bench_thread *t)
{
    free(t->buf);
}

const struct bench_method bench_method_raw = {
    .name = "pread", .setup = raw_setup, .io = raw_io, .teardown = host_teardown};

const struct bench_method bench_method_odirect = {
    .name = "odirect-pread", .setup = odirect_setup, .io = raw_io, .teardown = host_teardown};

/* What a program that must find its data on the disk does after writing it. */
static int durable_end(struct bench_thread *t)
{
    if (fdatasync(t->fd) != 0)
        return bench_errno_error(t, "fdatasync", 0);
    return 0;
}

const struct bench_method bench_method_durable = {.name = "pwrite+fdatasync",
                                                  .setup = raw_setup,
                                                  .io = raw_io,
                                                  .teardown = host_teardown,
                                                  .pass_end = durable_end};

/* ---- naive: pageable staging and a synchronous copy per call -------------------------------- */

static int naive_setup(struct bench_thread *t)
{
    size_t size = t->ctx->opts->io_size;
    /* What an application without hipfile writes: buffered reads into plain malloc'd memory. */
    t->fd = t->ctx->file->check_fd;
    t->stage = malloc(size);
    if (t->stage == NULL) {
        fprintf(stderr, BENCH_NAME ": no memory for a %zu-byte buffer\n", size);
        return -1;
    }
    memset(t->stage, 0, size);
    t->buf_on_device = true;
    return bench_alloc(BENCH_MEM_DEVICE, size, &t->buf);
}

static int naive_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    hipError_t err;
    if (bench_thread_reads(t)) {
        if (bench_pread_full(t->fd, t->stage, size, offset) != 0)
            return bench_errno_error(t, "pread", offset);
        err = hipMemcpy(t->buf, t->stage, size, hipMemcpyHostToDevice);
        return err == hipSuccess ? 0 : copy_error(t, offset, err);
    }
    err = hipMemcpy(t->stage, t->buf, size, hipMemcpyDeviceToHost);
    if (err != hipSuccess)
        return copy_error(t, offset, err);
    if (bench_pwrite_full(t->fd, t->stage, size, offset) != 0)
        return bench_errno_error(t, "pwrite", offset);
    return 0;
}

static void naive_teardown(struct bench_thread *t)
{
    free(t->stage);
    bench_free(BENCH_MEM_DEVICE, t->buf);
}

const struct bench_method bench_method_naive = {
    .name = "naive", .setup = naive_setup, .io = naive_io, .teardown = naive_teardown};

/* ---- AMD-style: pageable bounce per call, sync copies, fdatasync per written chunk ------ */

static int amd_setup(struct bench_thread *t)
{
    t->fd = t->ctx->file->check_fd;
    t->buf_on_device = true;
    return bench_alloc(BENCH_MEM_DEVICE, t->ctx->opts->io_size, &t->buf);
}

static int amd_chunk(struct bench_thread *t, void *bounce, uint64_t offset, size_t done, size_t n)
{
    char *dev = (char *)t->buf + done;
    hipError_t err;
    if (bench_thread_reads(t)) {
        if (bench_pread_full(t->fd, bounce, n, offset + done) != 0)
            return bench_errno_error(t, "pread", offset + done);
        err = hipMemcpy(dev, bounce, n, hipMemcpyHostToDevice);
        return err == hipSuccess ? 0 : copy_error(t, offset + done, err);
    }
    err = hipMemcpy(bounce, dev, n, hipMemcpyDeviceToHost);
    if (err != hipSuccess)
        return copy_error(t, offset + done, err);
    if (bench_pwrite_full(t->fd, bounce, n, offset + done) != 0)
        return bench_errno_error(t, "pwrite", offset + done);
    if (fdatasync(t->fd) != 0)
        return bench_errno_error(t, "fdatasync", offset + done);
    return 0;
}

static int amd_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    size_t bounce_size = size < BENCH_AMD_BOUNCE_SIZE ? size : BENCH_AMD_BOUNCE_SIZE;
    void *bounce = malloc(bounce_size);
    int rc = 0;
    if (bounce == NULL)
        return bench_call_error(t, "malloc", offset, "no memory for the bounce buffer");
    for (size_t done = 0; done < size && rc == 0; done += bounce_size) {
        size_t n = size - done < bounce_size ? size - done : bounce_size;
        rc = amd_chunk(t, bounce, offset, done, n);
    }
    free(bounce);
    return rc;
}

static void amd_teardown(struct bench_thread *t)
{
    bench_free(BENCH_MEM_DEVICE, t->buf);
}

const struct bench_method bench_method_amd = {
    .name = "amd", .setup = amd_setup, .io = amd_io, .teardown = amd_teardown};

/* ---- pread plus one pinned copy: the floor for a small read's latency ----------------------- */

static int pread_copy_setup(struct bench_thread *t)
{
    size_t size = t->ctx->opts->io_size;
    t->fd = t->ctx->file->check_fd;
    if (bench_alloc(BENCH_MEM_PINNED, size, &t->stage) != 0)
        return -1;
    t->buf_on_device = true;
    return bench_alloc(BENCH_MEM_DEVICE, size, &t->buf);
}

static int pread_copy_io(struct bench_thread *t, uint64_t offset, size_t size)
{
    if (bench_pread_full(t->fd, t->stage, size, offset) != 0)
        return bench_errno_error(t, "pread", offset);
    hipError_t err = hipMemcpy(t->buf, t->stage, size, hipMemcpyHostToDevice);
    return err == hipSuccess ? 0 : copy_error(t, offset, err);
}

static void pread_copy_teardown(struct bench_thread *t)
{
    bench_free(BENCH_MEM_PINNED, t->stage);
    bench_free(BENCH_MEM_DEVICE, t->buf);
}

const struct bench_method bench_method_pread_copy = {.name = "pread+copy",
                                                     .setup = pread_copy_setup,
                                                     .io = pread_copy_io,
                                                     .teardown = pread_copy_teardown};
