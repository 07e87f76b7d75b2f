/*
 * Cutting back what failed writes added to a file. A failed write can leave bytes past the file's
 * old end: the kernel's pwrite does (a 32 MiB write to a 16 MiB file system returns ENOSPC after
 * extending the file), and so do backends that write pieces in parallel, where a later piece lands
 * though an earlier one failed. The caller is told -1 or a short count, so those bytes are a change
 * nobody reported; plain pwrite(2) with O_DIRECT leaves the size alone, and programs expect that.
 *
 * Several writes may be in flight on one file, and a cut must not take bytes from one that is
 * still running or that succeeded. So a failed write only records where it wants the file cut,
 * and the last write of the spell (the in-flight count back at zero) cuts to the largest of every
 * failed write's wish and every reported byte of the spell. Waiting instead could deadlock: a
 * batch task holds several of one file's writes at once.
 */
#include "services/write_undo.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sys.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void hf_write_undo_init(struct hf_write_undo *undo, uint64_t size)
{
    *undo = (struct hf_write_undo){.size_seen = size};
    pthread_mutex_init(&undo->lock, NULL);
}

void hf_write_undo_fini(struct hf_write_undo *undo)
{
    pthread_mutex_destroy(&undo->lock);
}

void hf_write_undo_begin(struct hf_write_undo *undo, struct hf_write_undo_call *call, int fd,
                         uint64_t offset, size_t size)
{
    *call = (struct hf_write_undo_call){.offset = offset, .old_size = UINT64_MAX, .active = true};
    pthread_mutex_lock(&undo->lock);
    undo->in_flight++;
    /*
     * A write that ends inside the largest size seen extends nothing, unless another program cut
     * the file since; those skip the fstat. The size is read after counting this write in
     * flight, so every write that ends later is one the cut below waits for.
     */
    bool may_extend = offset + size > undo->size_seen;
    pthread_mutex_unlock(&undo->lock);
    if (!may_extend)
        return;
    struct stat st;
    if (hf_core_sys()->fstat(fd, &st) != 0)
        return;
    uint64_t size_now = (uint64_t)st.st_size;
    if (offset + size > size_now)
        call->old_size = size_now;
    pthread_mutex_lock(&undo->lock);
    undo->size_seen = max_u64(undo->size_seen, size_now);
    pthread_mutex_unlock(&undo->lock);
}

/* Called with undo->lock held, by the last write of the spell. */
static void cut_back(struct hf_write_undo *undo, int fd, const char *what)
{
    uint64_t keep = max_u64(undo->cut_to, undo->kept_end);
    struct stat st;
    if (hf_core_sys()->fstat(fd, &st) != 0) {
        hf_error("%s: a failed write may have left bytes past the file's old end: fstat: %s", what,
                 strerror(errno));
        return;
    }
    if ((uint64_t)st.st_size <= keep)
        return;
    if (ftruncate(fd, (off_t)keep) != 0) {
        hf_error("%s: a failed write left the file at %" PRIu64
                 " bytes; cutting it back to %" PRIu64 " failed: %s",
                 what, (uint64_t)st.st_size, keep, strerror(errno));
        return;
    }
    undo->size_seen = keep;
    hf_warn("%s: the failed write had extended the file to %" PRIu64 " bytes; cut back to %" PRIu64,
            what, (uint64_t)st.st_size, keep);
}

void hf_write_undo_end(struct hf_write_undo *undo, struct hf_write_undo_call *call, int fd,
                       size_t size, ssize_t written, const char *what)
{
    if (!call->active)
        return;
    call->active = false;
    int saved_errno = errno;
    uint64_t reported_end = call->offset + (written > 0 ? (uint64_t)written : 0);
    pthread_mutex_lock(&undo->lock);
    undo->kept_end = max_u64(undo->kept_end, reported_end);
    undo->size_seen = max_u64(undo->size_seen, reported_end);
    if ((size_t)(written > 0 ? written : 0) < size && call->old_size != UINT64_MAX) {
        uint64_t wish = max_u64(call->old_size, reported_end);
        undo->cut_to = undo->cut_pending ? max_u64(undo->cut_to, wish) : wish;
        undo->cut_pending = true;
    }
    if (--undo->in_flight == 0) {
        if (undo->cut_pending)
            cut_back(undo, fd, what);
        undo->cut_pending = false;
        undo->kept_end = 0;
        undo->cut_to = 0;
    }
    pthread_mutex_unlock(&undo->lock);
    errno = saved_errno;
}
