/*
 * hipFileRead and hipFileWrite: argument checks in the order AMD's library applies them, then the
 * selector, then the translation of the backend's -errno into the public return convention.
 */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>

#include "driver.h"
#include "error.h"
#include "log.h"
#include "registry.h"
#include "selector.h"
#include "stats.h"

static ssize_t sys_error(int err)
{
    errno = err;
    return -1;
}

/*
 * Backends speak errno. A GPU failure and "no backend could serve" have public codes of their own;
 * everything else is a system error the caller reads from errno, as with pread/pwrite.
 */
static ssize_t io_result(ssize_t rc, int gpu_err, const char *what)
{
    if (rc >= 0)
        return rc;
    if (rc == -HF_EGPU) {
        hf_error("%s: GPU runtime error %d", what, gpu_err);
        return -(ssize_t)hipFileHipDriverError;
    }
    /* The selector has logged which backends it considered and why none served. */
    if (rc == -HF_ENOBACKEND)
        return -(ssize_t)hipFileInternalError;
    if (rc == -ENODEV) {
        hf_error("%s: the last backend able to serve this request reports it cannot", what);
        return -(ssize_t)hipFileInternalError;
    }
    return sys_error((int)-rc);
}

/* The request itself; fills in *rec what the statistics need as it learns it. */
static ssize_t io_run_counted(int op, hipFileHandle_t fh, void *buffer_base, size_t size,
                              int64_t file_offset, int64_t buffer_offset, const char *what,
                              struct hf_stats_io_record *rec)
{
    if (!hf_driver_is_open()) {
        hf_error("%s: driver is not open", what);
        return sys_error(EINVAL);
    }
    if (file_offset < 0 || buffer_offset < 0) {
        hf_error("%s: negative %s offset %" PRId64, what, file_offset < 0 ? "file" : "buffer",
                 file_offset < 0 ? file_offset : buffer_offset);
        return sys_error(EINVAL);
    }
    struct hf_file *file = hf_file_acquire(fh);
    if (file == NULL) {
        hf_error("%s: handle %p is not registered", what, fh);
        return -(ssize_t)hipFileHandleNotRegistered;
    }
    ssize_t result;
    int accmode = file->info.status_flags & O_ACCMODE;
    if ((op == HF_IO_READ && accmode == O_WRONLY) || (op == HF_IO_WRITE && accmode == O_RDONLY)) {
        hf_error("%s: fd %d was opened %s", what, file->caller_fd,
                 accmode == O_WRONLY ? "write-only" : "read-only");
        result = sys_error(EBADF);
        goto release_file;
    }
    if (buffer_base == NULL) {
        hf_error("%s: buffer_base is NULL", what);
        result = -(ssize_t)hipFileInvalidValue;
        goto release_file;
    }
    if (size == 0) {
        result = 0;
        goto release_file;
    }
    if ((uint64_t)file_offset + size < (uint64_t)file_offset ||
        (uint64_t)file_offset + size > (uint64_t)INT64_MAX) {
        hf_error("%s: file range at %" PRId64 " of %zu bytes overflows", what, file_offset, size);
        result = -(ssize_t)hipFileInvalidValue;
        goto release_file;
    }

    struct hf_buffer *buffer = NULL;
    struct hf_buf_info view;
    int hip_err = 0;
    hipFileOpError_t err = hf_buffer_resolve(buffer_base, &buffer, &view, &hip_err);
    if (err != hipFileSuccess) {
        result = -(ssize_t)err;
        goto release_file;
    }
    const struct hf_buf_info *buf = buffer ? &buffer->info : &view;
    if ((uint64_t)buffer_offset >= buf->length || buf->length - (size_t)buffer_offset < size) {
        hf_error("%s: %zu bytes at buffer offset %" PRId64 " run past the buffer's %zu bytes", what,
                 size, buffer_offset, buf->length);
        result = -(ssize_t)hipFileInvalidValue;
        goto release_buffer;
    }
    if (size > HF_IO_MAX_BYTES)
        size = HF_IO_MAX_BYTES;

    bool declined[HF_MAX_BACKENDS];
    for (unsigned i = 0; i < HF_MAX_BACKENDS; i++)
        declined[i] = file->declined[i] || (buffer != NULL && buffer->declined[i]);
    int gpu_err = 0;
    struct hf_io_request req = {
        .struct_size = sizeof(req),
        .op = op,
        .file = &file->info,
        .buf = buf,
        .size = size,
        .file_offset = file_offset,
        .buf_offset = buffer_offset,
        .gpu_error_p = &gpu_err,
    };
    struct hf_backend *served = NULL;
    ssize_t rc = hf_selector_submit(&req, file->backend_ctx, buffer ? buffer->backend_ctx : NULL,
                                    declined, &served);
    result = io_result(rc, gpu_err, what);
    rec->served = served;
    rec->device = buf->mem_type == HF_MEM_DEVICE ? buf->device : -1;
    rec->unaligned =
        ((uint64_t)file_offset | size | ((uintptr_t)buf->base + (uint64_t)buffer_offset)) % 4096 !=
        0;

release_buffer:
    hf_buffer_release(buffer);
release_file:
    hf_file_release(file);
    return result;
}

ssize_t hf_io_run(int op, hipFileHandle_t fh, void *buffer_base, size_t size, int64_t file_offset,
                  int64_t buffer_offset, const char *what)
{
    /* Every call is counted, refused ones included, so the statistics match what callers did. */
    struct hf_stats_io_record rec = {.op = op, .size = size, .device = -1};
    uint64_t start_ns = hf_stats_now_ns();
    int saved_errno;
    rec.result = io_run_counted(op, fh, buffer_base, size, file_offset, buffer_offset, what, &rec);
    saved_errno = errno;
    rec.latency_ns = hf_stats_now_ns() - start_ns;
    hf_stats_io(&rec);
    errno = saved_errno;
    return rec.result;
}

HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void *buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset)
{
    return hf_io_run(HF_IO_READ, fh, buffer_base, size, file_offset, buffer_offset, "hipFileRead");
}

HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void *buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset)
{
    return hf_io_run(HF_IO_WRITE, fh, (void *)buffer_base, size, file_offset, buffer_offset,
                     "hipFileWrite");
}
