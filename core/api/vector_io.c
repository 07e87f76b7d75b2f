/*
 * hipFileReadv and hipFileWritev (include/hipfile/vector.h): every memory range becomes one call
 * of the ordinary data path at its place in the file range. All of them are checked before any
 * moves data, so a bad range refuses the whole vector rather than leaving part of it written;
 * then they run as groups on the executor (io_group.h), each group on one task.
 */
#include <hipfile/vector.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api/driver.h"
#include "api/io.h"
#include "api/io_group.h"
#include "base/error.h"
#include "base/log.h"
#include "services/executor.h"

struct vector {
    struct hf_io_call *calls; /* one per range that has bytes */
    bool *open;
    ssize_t *results; /* bytes, or -errno, or a negated hipFileOpError_t */
    unsigned count;
    unsigned group; /* calls per task */
};

static void vector_task(void *arg, unsigned index)
{
    struct vector *v = arg;
    unsigned first = index * v->group;
    unsigned n = v->count - first < v->group ? v->count - first : v->group;
    hf_io_serve_group(&v->calls[first], &v->open[first], n, &v->results[first]);
}

/* -1 with errno for a system error, the negated hipFileOpError_t as it is otherwise. */
static ssize_t public_result(ssize_t r)
{
    if (r < 0 && -r < HIPFILE_BASE_ERR) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

static ssize_t invalid(const char *what, const char *why, size_t at)
{
    hf_error("%s: %s (entry %zu)", what, why, at);
    return -(ssize_t)hipFileInvalidValue;
}

/* The checks of the whole vector, before any range is looked at on its own. */
static ssize_t vector_check(const hipFileIOVec_t *iov, size_t iovcnt, int64_t file_offset,
                            unsigned flags, const char *what, size_t *total_p, unsigned *count_p)
{
    if (!hf_driver_is_open()) {
        hf_error("%s: driver is not open", what);
        errno = EINVAL;
        return -1;
    }
    if (flags != 0) {
        hf_error("%s: flags 0x%x: no flag is defined, pass 0", what, flags);
        return -(ssize_t)hipFileInvalidValue;
    }
    if (iov == NULL && iovcnt > 0) {
        hf_error("%s: iov is NULL with %zu entries", what, iovcnt);
        return -(ssize_t)hipFileInvalidValue;
    }
    if (iovcnt > HIPFILE_IOV_MAX) {
        hf_error("%s: %zu entries; at most HIPFILE_IOV_MAX (%d) are taken", what, iovcnt,
                 HIPFILE_IOV_MAX);
        return -(ssize_t)hipFileInvalidValue;
    }
    if (file_offset < 0) {
        hf_error("%s: negative file offset %" PRId64, what, file_offset);
        errno = EINVAL;
        return -1;
    }
    size_t total = 0;
    unsigned count = 0;
    for (size_t i = 0; i < iovcnt; i++) {
        if (iov[i].len == 0)
            continue;
        if (iov[i].base == NULL)
            return invalid(what, "base is NULL", i);
        if (total + iov[i].len < total || total + iov[i].len > (uint64_t)INT64_MAX - file_offset)
            return invalid(what, "the lengths add up past the largest file offset", i);
        total += iov[i].len;
        count++;
    }
    *total_p = total;
    *count_p = count;
    return 0;
}

/* Bytes in range order up to the first range that ended short; an error only when none moved. */
static ssize_t vector_result(const struct vector *v, const hipFileIOVec_t *iov, size_t iovcnt,
                             size_t total, const char *what)
{
    size_t moved = 0;
    unsigned k = 0;
    for (size_t i = 0; i < iovcnt; i++) {
        if (iov[i].len == 0)
            continue;
        ssize_t r = v->results[k++];
        if (r < 0) {
            if (moved == 0)
                return public_result(r);
            hf_error("%s: entry %zu failed (%s) after %zu of %zu bytes; the call returns the "
                     "%zu bytes before it",
                     what, i, -r < HIPFILE_BASE_ERR ? strerror((int)-r) : "see above", moved, total,
                     moved);
            break;
        }
        moved += (size_t)r;
        if ((size_t)r < iov[i].len)
            break;
    }
    return (ssize_t)moved;
}

static ssize_t vector_run(int op, hipFileHandle_t fh, const hipFileIOVec_t *iov, size_t iovcnt,
                          int64_t file_offset, unsigned flags, const char *what)
{
    size_t total = 0;
    unsigned count = 0;
    ssize_t rc = vector_check(iov, iovcnt, file_offset, flags, what, &total, &count);
    if (rc != 0 || count == 0)
        return rc;
    struct vector v = {.count = count};
    v.calls = malloc(count * sizeof(*v.calls));
    v.open = malloc(count * sizeof(*v.open));
    v.results = calloc(count, sizeof(*v.results));
    if (v.calls == NULL || v.open == NULL || v.results == NULL) {
        hf_error("%s: out of memory for %u entries", what, count);
        rc = -(ssize_t)hipFileInternalError;
        goto out;
    }
    unsigned k = 0;
    int64_t at = file_offset;
    for (size_t i = 0; i < iovcnt; i++) {
        if (iov[i].len == 0)
            continue;
        v.open[k] = hf_io_prepare(&v.calls[k], op, fh, NULL, iov[i].base, iov[i].len, at, 0, what);
        if (!v.open[k]) {
            rc = v.calls[k].rec.result;
            int saved_errno = errno;
            /* Nothing has moved: the ranges already checked are given up, not run. */
            for (unsigned j = 0; j < k; j++)
                hf_io_finish(&v.calls[j], -ECANCELED, NULL);
            errno = saved_errno;
            goto out;
        }
        at += (int64_t)iov[i].len;
        k++;
    }
    /* As many groups as keep every worker busy, and no more than HF_IO_GROUP_MAX calls in one. */
    unsigned width = hf_executor_width();
    unsigned group = count / (width > 0 ? width : 1);
    v.group = group < 1 ? 1 : group > HF_IO_GROUP_MAX ? HF_IO_GROUP_MAX : group;
    unsigned tasks = (count + v.group - 1) / v.group;
    if (hf_executor_run(tasks, vector_task, &v) != 0) {
        for (unsigned j = 0; j < count; j++)
            hf_io_finish(&v.calls[j], -ECANCELED, NULL);
        rc = -(ssize_t)hipFileInternalError;
        goto out;
    }
    rc = vector_result(&v, iov, iovcnt, total, what);
out:
    free(v.calls);
    free(v.open);
    free(v.results);
    return rc;
}

HIPFILE_API ssize_t hipFileReadv(hipFileHandle_t fh, const hipFileIOVec_t *iov, size_t iovcnt,
                                 hoff_t file_offset, unsigned flags)
{
    return vector_run(HF_IO_READ, fh, iov, iovcnt, file_offset, flags, "hipFileReadv");
}

HIPFILE_API ssize_t hipFileWritev(hipFileHandle_t fh, const hipFileIOVec_t *iov, size_t iovcnt,
                                  hoff_t file_offset, unsigned flags)
{
    return vector_run(HF_IO_WRITE, fh, iov, iovcnt, file_offset, flags, "hipFileWritev");
}
