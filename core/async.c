/*
 * hipFileReadAsync/WriteAsync. This first implementation keeps stream order by waiting for the
 * stream to reach the operation, then running the I/O on the calling thread and storing the
 * result before returning, so later work on the stream sees it. Offsets and sizes are therefore
 * read when the stream reaches the operation, as the API requires. It blocks the caller; a truly
 * stream-ordered implementation that does not is tracked separately.
 */
#include <errno.h>

#include "driver.h"
#include "error.h"
#include "gpu.h"
#include "io.h"
#include "log.h"
#include "stream.h"

static hipFileError_t async_run(int op, hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                hoff_t *file_offset_p, hoff_t *buffer_offset_p, ssize_t *bytes_p,
                                hipStream_t stream, const char *what)
{
    if (!hf_driver_is_open()) {
        /* AMD: the async calls open the driver implicitly and still report the call invalid. */
        (void)hf_driver_ensure_open();
        hf_error("%s: driver was not open", what);
        return hf_status(hipFileInvalidValue);
    }
    if (buffer_base == NULL || size_p == NULL || file_offset_p == NULL || buffer_offset_p == NULL ||
        bytes_p == NULL) {
        hf_error("%s: a pointer argument is NULL", what);
        return hf_status(hipFileInvalidValue);
    }
    *bytes_p = 0;
    size_t submit_size = *size_p;
    if (submit_size == 0)
        return hf_status(hipFileSuccess);

    const struct hf_gpu_ops *gpu = hf_gpu();
    int rc = gpu->stream_synchronize((void *)stream);
    if (rc != 0) {
        hf_error("%s: waiting for stream %p failed: %s", what, (void *)stream,
                 gpu->error_string(rc));
        return hf_status_hip(rc);
    }
    size_t size = *size_p;
    if (size > submit_size) {
        hf_error("%s: size grew from %zu at submit to %zu", what, submit_size, size);
        *bytes_p = -(ssize_t)hipFileInvalidValue;
        return hf_status(hipFileSuccess);
    }
    *bytes_p = hf_io_run(op, fh, buffer_base, size, *file_offset_p, *buffer_offset_p, what);
    return hf_status(hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                            hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                            ssize_t *bytes_read_p, hipStream_t stream)
{
    return async_run(HF_IO_READ, fh, buffer_base, size_p, file_offset_p, buffer_offset_p,
                     bytes_read_p, stream, "hipFileReadAsync");
}

HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                             hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                             ssize_t *bytes_written_p, hipStream_t stream)
{
    return async_run(HF_IO_WRITE, fh, buffer_base, size_p, file_offset_p, buffer_offset_p,
                     bytes_written_p, stream, "hipFileWriteAsync");
}
