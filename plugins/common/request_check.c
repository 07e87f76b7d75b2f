/*
 * Request checks shared by the backends; see request_check.h. Each backend adds its own
 * (memory kinds, registrations) as the phrase it passes to hfp_request_check.
 */
#include "common/request_check.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

const char *hfp_request_range_problem(const struct hf_io_request *req)
{
    if (req->file_offset < 0 || req->buf_offset < 0)
        return "a negative offset";
    if (req->size > (size_t)SSIZE_MAX ||
        (uint64_t)req->file_offset > (uint64_t)INT64_MAX - req->size)
        return "a size that overflows the file offset";
    if ((uint64_t)req->buf_offset > req->buf->length ||
        req->size > req->buf->length - (uint64_t)req->buf_offset)
        return "a range past the end of the buffer";
    if (req->buf->base == NULL && req->size > 0)
        return "a NULL buffer";
    return NULL;
}

int hfp_request_access_problem(const struct hf_io_request *req, const char **what_p)
{
    int mode = req->file->status_flags & O_ACCMODE;
    if (req->op == HF_IO_READ && mode == O_WRONLY) {
        *what_p = "cannot read: the file was opened write-only";
        return -EBADF;
    }
    if (req->op == HF_IO_WRITE && mode == O_RDONLY) {
        *what_p = "cannot write: the file was opened read-only";
        return -EBADF;
    }
    /* Linux pwrite(2) appends under O_APPEND whatever the offset: the data would land elsewhere. */
    if (req->op == HF_IO_WRITE && (req->file->status_flags & O_APPEND) != 0) {
        *what_p = "cannot write at an offset: the file was opened with O_APPEND";
        return -EINVAL;
    }
    return 0;
}

int hfp_request_check(const struct hf_host_api *host, const struct hf_io_request *req,
                      const char *own_problem)
{
    const char *what = own_problem != NULL ? own_problem : hfp_request_range_problem(req);
    if (what != NULL) {
        host->log(host, HF_LOG_ERROR, "rejecting a %s of %zu bytes: %s",
                  req->op == HF_IO_WRITE ? "write" : "read", req->size, what);
        return -EINVAL;
    }
    int rc = hfp_request_access_problem(req, &what);
    if (rc < 0)
        host->log(host, HF_LOG_ERROR, "%s", what);
    return rc;
}
