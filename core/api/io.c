/*
 * hipFileRead and hipFileWrite: argument checks in the order AMD's library applies them, then the
 * selector, then the translation of the backend's -errno into the public return convention.
 */
#include "api/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>

#include "api/driver.h"
#include "api/registry.h"
#include "base/error.h"
#include "base/log.h"
#include "host/selector.h"
#include "services/stats.h"

static ssize_t sys_error(int err)
{
    errno = err;
    return -1;
}

/*
 * Backends speak errno. A GPU failure and "no backend could serve" have public codes of their own;
 * everything else is a system error the caller reads from errno, as with pread/pwrite. No backend
 * able to serve is hipFileIONotSupported ("GPU I/O not supported for this file"), the code AMD's
 * library gives when GPU I/O is impossible, rather than API.md's hipFileInternalError, whose text
 * blames the library for what is a setup or a request no backend takes (docs/decisions.rst).
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
        return -(ssize_t)hipFileIONotSupported;
    if (rc == -ENODEV) {
        hf_error("%s: the last backend able to serve this request reports it cannot; "
                 "hipfile-check --explain FILE shows each backend's answer",
                 what);
        return -(ssize_t)hipFileIONotSupported;
    }
    return sys_error((int)-rc);
}

/* Checks made before the file is looked up; false with *result_p when the call ends here. */
static inline bool io_call_allowed(int64_t file_offset, int64_t buffer_offset, const char *what,
                                   ssize_t *result_p)
{
    if (!hf_driver_is_open()) {
        hf_error("%s: driver is not open", what);
        *result_p = sys_error(EINVAL);
        return false;
    }
    if (file_offset < 0 || buffer_offset < 0) {
        hf_error("%s: negative %s offset %" PRId64, what, file_offset < 0 ? "file" : "buffer",
                 file_offset < 0 ? file_offset : buffer_offset);
        *result_p = sys_error(EINVAL);
        return false;
    }
    return true;
}

/* Whether @p file was opened for @p op; when not, logs how it was opened. */
static inline bool io_file_allows(const struct hf_file *file, int op, const char *what)
{
    int accmode = file->info.status_flags & O_ACCMODE;
    if ((op == HF_IO_READ && accmode == O_WRONLY) || (op == HF_IO_WRITE && accmode == O_RDONLY)) {
        if (file->info.kind == HF_FILE_USERSPACE_FS)
            hf_error("%s: user-space FS handle %p is read-only: it was registered without a "
                     "write callback",
                     what, file->info.fs_handle);
        else if (file->info.url != NULL)
            hf_error("%s: %s was opened for %s", what, file->info.url,
                     accmode == O_WRONLY ? "writing only" : "reading only");
        else
            hf_error("%s: fd %d was opened %s", what, file->caller_fd,
                     accmode == O_WRONLY ? "write-only" : "read-only");
        return false;
    }
    return true;
}

/*
 * Checks of the memory pointer and the file range; false with *result_p when the call ends here,
 * which an empty request does, successfully, once its pointer is known to be valid.
 */
static inline bool io_range_valid(const void *buffer_base, size_t size, int64_t file_offset,
                                  const char *what, ssize_t *result_p)
{
    if (buffer_base == NULL) {
        hf_error("%s: buffer_base is NULL", what);
        *result_p = -(ssize_t)hipFileInvalidValue;
        return false;
    }
    if (size == 0) {
        *result_p = 0;
        return false;
    }
    if ((uint64_t)file_offset + size < (uint64_t)file_offset ||
        (uint64_t)file_offset + size > (uint64_t)INT64_MAX) {
        hf_error("%s: file range at %" PRId64 " of %zu bytes overflows", what, file_offset, size);
        *result_p = -(ssize_t)hipFileInvalidValue;
        return false;
    }
    return true;
}

/*
 * Resolve the memory at @p buffer_base into *buffer_p (held; NULL for memory that is not
 * registered, whose facts go to call->view) and its facts into *buf_p, and check that the request
 * fits in it. False with *result_p, nothing held, when it does not.
 */
static inline bool io_memory_resolve(struct hf_io_call *call, void *buffer_base, size_t size,
                                     int64_t buffer_offset, struct hf_buffer **buffer_p,
                                     const struct hf_buf_info **buf_p, ssize_t *result_p)
{
    struct hf_buffer *buffer = NULL;
    int hip_err = 0;
    hipFileOpError_t err = hf_buffer_resolve(buffer_base, &buffer, &call->view, &hip_err);
    if (err != hipFileSuccess) {
        *result_p = -(ssize_t)err;
        return false;
    }
    const struct hf_buf_info *buf = buffer ? &buffer->info : &call->view;
    if ((uint64_t)buffer_offset >= buf->length || buf->length - (size_t)buffer_offset < size) {
        hf_error("%s: %zu bytes at buffer offset %" PRId64 " run past the buffer's %zu bytes",
                 call->what, size, buffer_offset, buf->length);
        hf_buffer_release(buffer);
        *result_p = -(ssize_t)hipFileInvalidValue;
        return false;
    }
    *buffer_p = buffer;
    *buf_p = buf;
    return true;
}

/* Hand the checked call its file and memory and set up the request a backend sees. */
static inline void io_request_fill(struct hf_io_call *call, int op, struct hf_file *file,
                                   struct hf_buffer *buffer, const struct hf_buf_info *buf,
                                   size_t size, int64_t file_offset, int64_t buffer_offset)
{
    for (unsigned i = 0; i < HF_MAX_BACKENDS; i++)
        call->declined[i] = file->declined[i] || (buffer != NULL && buffer->declined[i]);
    call->file = file;
    call->buffer = buffer;
    call->size = size;
    call->req = (struct hf_io_request){
        .struct_size = sizeof(call->req),
        .op = op,
        .file = &file->info,
        .buf = buf,
        /* The first piece; hf_io_finish serves the rest (whole transfers, docs/decisions.rst). */
        .size = size < HF_IO_MAX_BYTES ? size : HF_IO_MAX_BYTES,
        .file_offset = file_offset,
        .buf_offset = buffer_offset,
        .gpu_error_p = &call->gpu_err,
    };
    call->rec.device = buf->mem_type == HF_MEM_DEVICE ? buf->device : -1;
    call->rec.unaligned =
        ((uint64_t)file_offset | size | ((uintptr_t)buf->base + (uint64_t)buffer_offset)) % 4096 !=
        0;
}

bool hf_io_prepare(struct hf_io_call *call, int op, hipFileHandle_t fh, struct hf_file *held,
                   void *buffer_base, size_t size, int64_t file_offset, int64_t buffer_offset,
                   const char *what)
{
    /* Every call is counted, refused ones included, so the statistics match what callers did. */
    *call = (struct hf_io_call){.rec = {.op = op, .size = size, .device = -1, .served = -1},
                                .what = what};
    call->start_ns = hf_stats_now_ns();
    ssize_t result;
    if (!io_call_allowed(file_offset, buffer_offset, what, &result))
        goto finished;
    /* A batch entry runs on the file it held since submission, deregistered since or not. */
    struct hf_file *file = held != NULL ? hf_file_hold(held) : hf_file_acquire(fh);
    if (file == NULL) {
        hf_error("%s: handle %p is not registered", what, fh);
        result = -(ssize_t)hipFileHandleNotRegistered;
        goto finished;
    }
    if (!io_file_allows(file, op, what)) {
        result = sys_error(EBADF);
        goto release_file;
    }
    struct hf_buffer *buffer;
    const struct hf_buf_info *buf;
    if (!io_range_valid(buffer_base, size, file_offset, what, &result) ||
        !io_memory_resolve(call, buffer_base, size, buffer_offset, &buffer, &buf, &result))
        goto release_file;
    io_request_fill(call, op, file, buffer, buf, size, file_offset, buffer_offset);
    if (op == HF_IO_WRITE && file->info.kind == HF_FILE_REGULAR)
        hf_write_undo_begin(&file->write_undo, &call->undo, file->info.fd, (uint64_t)file_offset,
                            size);
    return true;

release_file:
    hf_file_release(file);
finished:
    call->rec.result = result;
    hf_io_record(call);
    return false;
}

struct hf_backend *hf_io_chain(struct hf_io_call *call, struct hf_chain *chain)
{
    if (hf_selector_chain(&call->req, call->file->backend_ctx,
                          call->buffer ? call->buffer->backend_ctx : NULL, call->declined,
                          chain) == 0)
        return NULL;
    struct hf_backend *first = chain->at[0].backend;
    /* The backend's contexts, as the selector would hand them over. */
    call->req.file_ctx = call->file->backend_ctx[first->index];
    call->req.buf_ctx = call->buffer ? call->buffer->backend_ctx[first->index] : NULL;
    return first;
}

ssize_t hf_io_serve(struct hf_io_call *call, const struct hf_chain *chain, size_t from)
{
    struct hf_backend *served = NULL;
    ssize_t rc = hf_selector_serve(chain, from, &call->req, call->file->backend_ctx,
                                   call->buffer ? call->buffer->backend_ctx : NULL, &served);
    return hf_io_finish(call, rc, served);
}

ssize_t hf_io_submit(struct hf_io_call *call)
{
    struct hf_backend *served = NULL;
    ssize_t rc = hf_selector_submit(&call->req, call->file->backend_ctx,
                                    call->buffer ? call->buffer->backend_ctx : NULL, call->declined,
                                    &served);
    return hf_io_finish(call, rc, served);
}

/*
 * Backends and the kernel move at most HF_IO_MAX_BYTES per call, but programs written for cuFile
 * (torch.cuda.gds among them) never loop on a short count: a request larger than that is served
 * piece after piece here, each through the selector, until it is whole, the file ends or an error
 * stops it. An error after some pieces moved returns the bytes moved, as pread(2) and pwrite(2) do
 * after a partial transfer; the error is logged, since the count alone cannot say it.
 */
static ssize_t io_rest(struct hf_io_call *call, ssize_t rc, struct hf_backend **served_p)
{
    size_t moved = 0;
    while (rc >= 0 && (size_t)rc == call->req.size && moved + (size_t)rc < call->size) {
        moved += (size_t)rc;
        size_t left = call->size - moved;
        call->req.size = left < HF_IO_MAX_BYTES ? left : HF_IO_MAX_BYTES;
        call->req.file_offset += rc;
        call->req.buf_offset += rc;
        rc = hf_selector_submit(&call->req, call->file->backend_ctx,
                                call->buffer ? call->buffer->backend_ctx : NULL, call->declined,
                                served_p);
    }
    if (moved == 0)
        return rc;
    if (rc < 0) {
        hf_error("%s: %s after %zu of %zu bytes; the call returns the %zu bytes moved", call->what,
                 rc == -HF_EGPU ? "GPU runtime error" : strerror((int)-rc), moved, call->size,
                 moved);
        return (ssize_t)moved;
    }
    return (ssize_t)(moved + (size_t)rc);
}

ssize_t hf_io_finish(struct hf_io_call *call, ssize_t rc, struct hf_backend *served)
{
    rc = io_rest(call, rc, &served);
    hf_write_undo_end(&call->file->write_undo, &call->undo, call->file->info.fd, call->size, rc,
                      call->what);
    call->rec.served = served != NULL ? (int)served->index : -1;
    call->rec.served_direct = served != NULL && (served->complete.caps & HF_CAP_DIRECT);
    call->rec.result = io_result(rc, call->gpu_err, call->what);
    int saved_errno = errno;
    hf_buffer_release(call->buffer);
    hf_file_release(call->file);
    call->buffer = NULL;
    call->file = NULL;
    hf_io_record(call);
    errno = saved_errno;
    return call->rec.result;
}

void hf_io_record(struct hf_io_call *call)
{
    int saved_errno = errno;
    call->rec.latency_ns = hf_stats_now_ns() - call->start_ns;
    hf_stats_io(&call->rec);
    errno = saved_errno;
}

ssize_t hf_io_run(int op, hipFileHandle_t fh, void *buffer_base, size_t size, int64_t file_offset,
                  int64_t buffer_offset, const char *what)
{
    struct hf_io_call call;
    if (!hf_io_prepare(&call, op, fh, NULL, buffer_base, size, file_offset, buffer_offset, what))
        return call.rec.result;
    return hf_io_submit(&call);
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
