/*
 * Batch I/O. This first implementation validates a submission as a whole, then runs its entries
 * through the same data path as hipFileRead/Write before returning, so every entry is complete
 * (or failed, with its result) when hipFileBatchIOGetStatus looks. Running entries concurrently on
 * the executor is tracked separately.
 */
#include "batch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "error.h"
#include "io.h"
#include "log.h"
#include "registry.h"
#include "stats.h"

#define BATCH_MAX_ENTRIES 128

struct batch {
    struct batch *next;
    unsigned max_nr;
    unsigned done_len;       /* completed events not yet collected */
    hipFileIOEvents_t *done; /* max_nr slots */
};

static pthread_mutex_t batch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct batch *batch_list;

/* Called with batch_lock held: a handle is used only if it is one we handed out and still own. */
static struct batch *batch_find(hipFileBatchHandle_t handle)
{
    for (struct batch *b = batch_list; b != NULL; b = b->next) {
        if ((void *)b == handle)
            return b;
    }
    return NULL;
}

static hipFileError_t batch_setup(hipFileBatchHandle_t *batch_idp, unsigned max_nr)
{
    if (batch_idp == NULL || max_nr == 0 || max_nr > BATCH_MAX_ENTRIES) {
        hf_error("hipFileBatchIOSetUp: %s",
                 batch_idp == NULL ? "batch_idp is NULL" : "max_nr must be 1..128");
        return hf_status(hipFileInvalidValue);
    }
    hipFileOpError_t err = hf_driver_ensure_open();
    if (err != hipFileSuccess)
        return hf_status(err);
    struct batch *b = calloc(1, sizeof(*b));
    if (b != NULL)
        b->done = calloc(max_nr, sizeof(*b->done));
    if (b == NULL || b->done == NULL) {
        free(b);
        hf_error("hipFileBatchIOSetUp: out of memory");
        return hf_status(hipFileInternalError);
    }
    b->max_nr = max_nr;
    pthread_mutex_lock(&batch_lock);
    b->next = batch_list;
    batch_list = b;
    pthread_mutex_unlock(&batch_lock);
    *batch_idp = b;
    return hf_status(hipFileSuccess);
}

static bool entry_valid(const hipFileIOParams_t *p, unsigned index)
{
    int mode, opcode;
    memcpy(&mode, &p->mode, sizeof(mode));
    memcpy(&opcode, &p->opcode, sizeof(opcode));
    const char *why = NULL;
    if (mode != hipFileBatch)
        why = "mode is not hipFileBatch";
    else if (opcode != hipFileBatchRead && opcode != hipFileBatchWrite)
        why = "opcode is not read or write";
    else if (p->u.batch.file_offset < 0)
        why = "file_offset is negative";
    else if (p->u.batch.devPtr_offset < 0)
        why = "devPtr_offset is negative";
    else if (p->u.batch.devPtr_base == NULL)
        why = "devPtr_base is NULL";
    if (why == NULL) {
        struct hf_file *file = hf_file_acquire(p->fh);
        if (file == NULL)
            why = "fh is not registered";
        hf_file_release(file);
    }
    if (why == NULL) {
        struct hf_buffer *buffer = NULL;
        struct hf_buf_info view;
        int hip_err = 0;
        if (hf_buffer_resolve(p->u.batch.devPtr_base, &buffer, &view, &hip_err) != hipFileSuccess) {
            why = "devPtr_base is not usable GPU memory";
        } else {
            size_t length = buffer ? buffer->info.length : view.length;
            if ((uint64_t)p->u.batch.devPtr_offset >= length)
                why = "devPtr_offset is past the buffer";
            else if (p->u.batch.size > length - (size_t)p->u.batch.devPtr_offset)
                why = "size runs past the buffer";
            hf_buffer_release(buffer);
        }
    }
    if (why != NULL)
        hf_error("hipFileBatchIOSubmit: entry %u: %s", index, why);
    return why == NULL;
}

static hipFileError_t batch_submit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                   hipFileIOParams_t *iocbp, unsigned flags)
{
    (void)flags;
    if (nr > 0 && iocbp == NULL) {
        hf_error("hipFileBatchIOSubmit: iocbp is NULL");
        return hf_status(hipFileInvalidValue);
    }
    pthread_mutex_lock(&batch_lock);
    struct batch *b = batch_find(batch_idp);
    hipFileOpError_t err = hipFileSuccess;
    if (b == NULL) {
        hf_error("hipFileBatchIOSubmit: unknown batch handle %p", batch_idp);
        err = hipFileInvalidValue;
        goto unlock;
    }
    if (nr > b->max_nr - b->done_len) {
        hf_error("hipFileBatchIOSubmit: %u entries but room for %u", nr, b->max_nr - b->done_len);
        err = hipFileBatchFull;
        goto unlock;
    }
    for (unsigned i = 0; i < nr; i++) {
        if (!entry_valid(&iocbp[i], i)) {
            err = hipFileInvalidValue;
            goto unlock;
        }
    }
    uint64_t start_ns = hf_stats_now_ns();
    uint64_t bytes[2] = {0, 0};
    for (unsigned i = 0; i < nr; i++) {
        const hipFileIOParams_t *p = &iocbp[i];
        int op = p->opcode == hipFileBatchWrite ? HF_IO_WRITE : HF_IO_READ;
        ssize_t r =
            hf_io_run(op, p->fh, p->u.batch.devPtr_base, p->u.batch.size, p->u.batch.file_offset,
                      p->u.batch.devPtr_offset, "hipFileBatchIOSubmit");
        if (r == -1)
            r = -errno;
        hipFileIOEvents_t *ev = &b->done[b->done_len++];
        ev->cookie = p->cookie;
        ev->status = r >= 0 ? hipFileComplete : hipFileFailed;
        ev->ret = (size_t)r;
        if (r > 0)
            bytes[op] += (uint64_t)r;
    }
    hf_stats_batch_entries(nr, bytes[HF_IO_READ], bytes[HF_IO_WRITE], hf_stats_now_ns() - start_ns);
unlock:
    pthread_mutex_unlock(&batch_lock);
    return hf_status(err);
}

static bool timeout_valid(const struct timespec *t)
{
    return t == NULL || (t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < 1000000000L);
}

static hipFileError_t batch_getstatus(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned *nr,
                                      hipFileIOEvents_t *iocbp, struct timespec *timeout)
{
    if (iocbp == NULL || nr == NULL || *nr == 0 || min_nr > *nr || !timeout_valid(timeout)) {
        hf_error("hipFileBatchIOGetStatus: invalid arguments (NULL pointer, *nr 0, min_nr > *nr "
                 "or malformed timeout)");
        return hf_status(hipFileInvalidValue);
    }
    pthread_mutex_lock(&batch_lock);
    struct batch *b = batch_find(batch_idp);
    if (b == NULL) {
        pthread_mutex_unlock(&batch_lock);
        hf_error("hipFileBatchIOGetStatus: unknown batch handle %p", batch_idp);
        return hf_status(hipFileInvalidValue);
    }
    /* Every submitted entry is already complete, so min_nr never has to be waited for. */
    unsigned n = b->done_len < *nr ? b->done_len : *nr;
    memcpy(iocbp, b->done, n * sizeof(*iocbp));
    memmove(b->done, b->done + n, (b->done_len - n) * sizeof(*b->done));
    b->done_len -= n;
    *nr = n;
    pthread_mutex_unlock(&batch_lock);
    return hf_status(hipFileSuccess);
}

static hipFileError_t batch_cancel(hipFileBatchHandle_t batch_idp)
{
    pthread_mutex_lock(&batch_lock);
    struct batch *b = batch_find(batch_idp);
    pthread_mutex_unlock(&batch_lock);
    if (b == NULL) {
        hf_error("hipFileBatchIOCancel: unknown batch handle %p", batch_idp);
        return hf_status(hipFileInvalidValue);
    }
    /* Nothing is ever left unstarted: entries run to completion inside Submit. */
    return hf_status(hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t *batch_idp, unsigned max_nr)
{
    hipFileError_t e = batch_setup(batch_idp, max_nr);
    hf_stats_batch(HF_STATS_BATCH_SETUP, e.err == hipFileSuccess);
    return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t *iocbp, unsigned flags)
{
    hipFileError_t e = batch_submit(batch_idp, nr, iocbp, flags);
    hf_stats_batch(HF_STATS_BATCH_SUBMIT, e.err == hipFileSuccess);
    return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned *nr, hipFileIOEvents_t *iocbp,
                                                   struct timespec *timeout)
{
    uint64_t start_ns = hf_stats_now_ns();
    hipFileError_t e = batch_getstatus(batch_idp, min_nr, nr, iocbp, timeout);
    if (e.err == hipFileSuccess)
        hf_stats_batch_completed(*nr, hf_stats_now_ns() - start_ns);
    return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp)
{
    hipFileError_t e = batch_cancel(batch_idp);
    hf_stats_batch(HF_STATS_BATCH_CANCEL, e.err == hipFileSuccess);
    return e;
}

static void batch_unlink_locked(struct batch *b)
{
    for (struct batch **pp = &batch_list; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == b) {
            *pp = b->next;
            break;
        }
    }
    free(b->done);
    free(b);
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp)
{
    pthread_mutex_lock(&batch_lock);
    struct batch *b = batch_find(batch_idp);
    if (b != NULL)
        batch_unlink_locked(b);
    pthread_mutex_unlock(&batch_lock);
    hf_stats_batch(HF_STATS_BATCH_DESTROY, b != NULL);
    if (b == NULL)
        hf_warn("hipFileBatchIODestroy: unknown batch handle %p ignored", batch_idp);
}

void hf_batch_drop_all(void)
{
    pthread_mutex_lock(&batch_lock);
    while (batch_list != NULL)
        batch_unlink_locked(batch_list);
    pthread_mutex_unlock(&batch_lock);
}
