/*
 * Batch I/O (hipFileBatchIO*): contexts of up to max_nr outstanding entries. Submit validates a
 * whole submission, then queues its entries on the executor; each runs through the same data path
 * as hipFileRead/Write and its event is reported once by GetStatus, in the order entries finished.
 */
#include "api/batch.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/driver.h"
#include "api/io.h"
#include "api/io_group.h"
#include "api/registry.h"
#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "services/executor.h"
#include "services/stats.h"

#define NO_SLOT UINT_MAX

enum slot_state {
    SLOT_FREE,    /* on the free list */
    SLOT_PENDING, /* accepted, queued for a worker (hipFilePending) */
    SLOT_RUNNING, /* a worker is moving its data */
};

/* The entries of one hipFileBatchIOSubmit call, counted into the statistics when all are done. */
struct submission {
    unsigned entries;
    unsigned left;     /* entries not yet finished or canceled */
    uint64_t bytes[2]; /* moved, by enum hf_io_op */
    uint64_t start_ns;
};

struct entry {
    enum slot_state state;
    unsigned next; /* pending queue or free list */
    int op;        /* enum hf_io_op */
    hipFileHandle_t fh;
    void *base;
    size_t size;
    int64_t file_offset;
    int64_t buf_offset;
    void *cookie;
    /* References taken at Submit and dropped before the event is queued, so a file or buffer
     * with entries outstanding cannot be deregistered and is free to go once they are reported. */
    struct hf_file *file;
    struct hf_buffer *buffer; /* NULL for memory that is not registered */
    struct submission *sub;
};

struct batch {
    struct batch *next;     /* batch_list, under batch_list_lock */
    pthread_mutex_t lock;   /* everything below */
    pthread_cond_t changed; /* an event queued, an entry or task finished, a sleeper left */
    unsigned max_nr;
    struct entry *entries; /* max_nr slots */
    unsigned free_head;
    unsigned pending_head, pending_tail; /* oldest first */
    unsigned in_flight;                  /* pending + running */
    unsigned running;
    unsigned tasks;            /* executor tasks for this batch queued or running */
    unsigned sleepers;         /* threads that may wait on changed: GetStatus and Cancel */
    hipFileIOEvents_t *events; /* ring of max_nr: finished, not yet reported */
    unsigned events_head, events_len;
};

static pthread_mutex_t batch_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct batch *batch_list;

/*
 * Find the batch behind @p handle and return it locked. A handle is used only if it is one we
 * handed out and still own; lock order is batch_list_lock, then the batch.
 */
static struct batch *batch_enter(hipFileBatchHandle_t handle, const char *what)
{
    pthread_mutex_lock(&batch_list_lock);
    struct batch *b = batch_list;
    while (b != NULL && (void *)b != handle)
        b = b->next;
    if (b != NULL)
        pthread_mutex_lock(&b->lock);
    pthread_mutex_unlock(&batch_list_lock);
    if (b == NULL)
        hf_error("%s: unknown batch handle %p", what, handle);
    return b;
}

static struct batch *batch_create(unsigned max_nr)
{
    struct batch *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return NULL;
    b->entries = calloc(max_nr, sizeof(*b->entries));
    b->events = calloc(max_nr, sizeof(*b->events));
    if (b->entries == NULL || b->events == NULL)
        goto free_arrays;
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        goto free_arrays;
    /* GetStatus timeouts are intervals: the wall clock stepping must not stretch or cut them. */
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&b->changed, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0)
        goto free_arrays;
    pthread_mutex_init(&b->lock, NULL);
    b->max_nr = max_nr;
    for (unsigned i = 0; i < max_nr; i++)
        b->entries[i].next = i + 1 < max_nr ? i + 1 : NO_SLOT;
    b->free_head = 0;
    b->pending_head = b->pending_tail = NO_SLOT;
    return b;

free_arrays:
    free(b->events);
    free(b->entries);
    free(b);
    return NULL;
}

static void batch_free(struct batch *b)
{
    pthread_cond_destroy(&b->changed);
    pthread_mutex_destroy(&b->lock);
    free(b->events);
    free(b->entries);
    free(b);
}

static hipFileError_t batch_setup(hipFileBatchHandle_t *batch_idp, unsigned max_nr)
{
    if (batch_idp == NULL || max_nr == 0) {
        hf_error("hipFileBatchIOSetUp: %s",
                 batch_idp == NULL ? "batch_idp is NULL" : "max_nr is 0");
        return hf_status(hipFileInvalidValue);
    }
    /*
     * AMD's setup leaves the driver as it is (use count 0 stays 0); the handles the entries name
     * open it when they are registered. Only the configuration is needed, for the limit.
     */
    if (hf_config_ensure_loaded() < 0) {
        hf_error("hipFileBatchIOSetUp: configuration%s%s is not usable",
                 hf_config_path() ? " " : "", hf_config_path() ? hf_config_path() : "");
        return hf_status(hipFileDriverSetupError);
    }
    int64_t limit = hf_setting_int(HF_SETTING_MAX_BATCH_IO_COUNT);
    if ((int64_t)max_nr > limit) {
        hf_error("hipFileBatchIOSetUp: max_nr %u is over properties.max_batch_io_count (%lld)",
                 max_nr, (long long)limit);
        return hf_status(hipFileInvalidValue);
    }
    /* Before the first batch exists, so the last close always finds the hook. */
    hf_driver_on_last_close(HF_TEARDOWN_BATCHES, hf_batch_drop_all);
    struct batch *b = batch_create(max_nr);
    if (b == NULL) {
        hf_error("hipFileBatchIOSetUp: out of memory for %u entries", max_nr);
        return hf_status(hipFileInternalError);
    }
    pthread_mutex_lock(&batch_list_lock);
    b->next = batch_list;
    batch_list = b;
    pthread_mutex_unlock(&batch_list_lock);
    *batch_idp = b;
    return hf_status(hipFileSuccess);
}

/*
 * Check entry @p index of a submission and fill *e from it, holding references on its file and
 * registered buffer; false (logged) when the entry is invalid.
 */
static bool entry_prepare(struct entry *e, const hipFileIOParams_t *p, unsigned index)
{
    int mode, opcode;
    memcpy(&mode, &p->mode, sizeof(mode));
    memcpy(&opcode, &p->opcode, sizeof(opcode));
    struct hf_file *file = NULL;
    struct hf_buffer *buffer = NULL;
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
    else if ((file = hf_file_acquire(p->fh)) == NULL)
        why = "fh is not registered";
    if (why == NULL) {
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
        }
    }
    if (why != NULL) {
        hf_error("hipFileBatchIOSubmit: entry %u: %s", index, why);
        hf_buffer_release(buffer);
        hf_file_release(file);
        return false;
    }
    *e = (struct entry){
        .op = opcode == hipFileBatchWrite ? HF_IO_WRITE : HF_IO_READ,
        .fh = p->fh,
        .base = p->u.batch.devPtr_base,
        .size = p->u.batch.size,
        .file_offset = p->u.batch.file_offset,
        .buf_offset = p->u.batch.devPtr_offset,
        .cookie = p->cookie,
        .file = file,
        .buffer = buffer,
    };
    return true;
}

static void entry_drop_refs(struct entry *e)
{
    hf_buffer_release(e->buffer);
    hf_file_release(e->file);
    e->buffer = NULL;
    e->file = NULL;
}

/* Called with b->lock held: queue the event of slot @p slot (its references already dropped). */
static void entry_finish_locked(struct batch *b, unsigned slot, hipFileStatus_t status, ssize_t ret)
{
    struct entry *e = &b->entries[slot];
    hipFileIOEvents_t *ev = &b->events[(b->events_head + b->events_len) % b->max_nr];
    ev->cookie = e->cookie;
    ev->status = status;
    ev->ret = (size_t)ret;
    b->events_len++;
    b->in_flight--;

    struct submission *sub = e->sub;
    if (status == hipFileComplete)
        sub->bytes[e->op] += (uint64_t)ret;
    if (--sub->left == 0) {
        hf_stats_batch_entries(sub->entries, sub->bytes[HF_IO_READ], sub->bytes[HF_IO_WRITE],
                               hf_stats_now_ns() - sub->start_ns);
        free(sub);
    }
    e->sub = NULL;
    e->file = NULL;
    e->buffer = NULL;
    e->state = SLOT_FREE;
    e->next = b->free_head;
    b->free_head = slot;
    pthread_cond_broadcast(&b->changed);
}

/* Run @p n (at most HF_IO_GROUP_MAX) entries together (hf_io_serve_group). */
static void entries_run(const struct entry *runs, unsigned n, ssize_t *results)
{
    struct hf_io_call calls[HF_IO_GROUP_MAX];
    bool open[HF_IO_GROUP_MAX];
    for (unsigned i = 0; i < n; i++) {
        const struct entry *e = &runs[i];
        open[i] = hf_io_prepare(&calls[i], e->op, e->fh, e->file, e->base, e->size, e->file_offset,
                                e->buf_offset, "hipFileBatchIO entry");
        results[i] = open[i] ? 0 : hf_io_event_result(calls[i].rec.result);
    }
    hf_io_serve_group(calls, open, n, results);
}

/*
 * One executor task per submitted entry. A task runs the oldest pending entries rather than fixed
 * ones, so Cancel can take entries out of the queue without finding their tasks; a task that finds
 * the queue empty (its entries were canceled or taken by another task) just ends. While many are
 * pending a task takes up to HF_IO_GROUP_MAX of them, as many as keep every worker busy.
 */
static void entry_task(void *arg, unsigned index)
{
    (void)index;
    struct batch *b = arg;
    unsigned width = hf_executor_width();
    pthread_mutex_lock(&b->lock);
    unsigned want = (b->in_flight - b->running) / (width > 0 ? width : 1);
    want = want < 1 ? 1 : want > HF_IO_GROUP_MAX ? HF_IO_GROUP_MAX : want;
    unsigned slots[HF_IO_GROUP_MAX];
    struct entry runs[HF_IO_GROUP_MAX];
    unsigned n = 0;
    while (n < want && b->pending_head != NO_SLOT) {
        unsigned slot = b->pending_head;
        struct entry *e = &b->entries[slot];
        b->pending_head = e->next;
        if (b->pending_head == NO_SLOT)
            b->pending_tail = NO_SLOT;
        e->state = SLOT_RUNNING;
        b->running++;
        slots[n] = slot;
        runs[n++] = *e;
    }
    if (n > 0) {
        pthread_mutex_unlock(&b->lock);
        ssize_t results[HF_IO_GROUP_MAX];
        entries_run(runs, n, results);
        /* Dropped before the events are visible, so the caller may deregister at once. */
        for (unsigned i = 0; i < n; i++)
            entry_drop_refs(&runs[i]);
        pthread_mutex_lock(&b->lock);
        for (unsigned i = 0; i < n; i++) {
            b->running--;
            entry_finish_locked(b, slots[i], results[i] >= 0 ? hipFileComplete : hipFileFailed,
                                results[i]);
        }
    }
    b->tasks--;
    pthread_cond_broadcast(&b->changed);
    /* Nothing may touch b after this: Destroy frees it once tasks reaches 0. */
    pthread_mutex_unlock(&b->lock);
}

/*
 * Called with b->lock held: check each of the @p nr entries of @p iocbp and fill a free slot from
 * it, for submission @p sub, chaining the slots in order from *first_p to *last_p. False (logged)
 * at the first invalid entry; the slots filled before it stay chained from *first_p.
 */
static bool entries_take(struct batch *b, unsigned nr, const hipFileIOParams_t *iocbp,
                         struct submission *sub, unsigned *first_p, unsigned *last_p)
{
    unsigned first = NO_SLOT, last = NO_SLOT;
    bool taken = true;
    for (unsigned i = 0; i < nr; i++) {
        unsigned slot = b->free_head;
        struct entry *e = &b->entries[slot];
        unsigned next_free = e->next;
        if (!entry_prepare(e, &iocbp[i], i)) {
            e->next = next_free;
            taken = false;
            break;
        }
        b->free_head = next_free;
        e->state = SLOT_PENDING;
        e->sub = sub;
        e->next = NO_SLOT;
        if (last != NO_SLOT)
            b->entries[last].next = slot;
        else
            first = slot;
        last = slot;
    }
    *first_p = first;
    *last_p = last;
    return taken;
}

/*
 * Called with b->lock held: put the slots chained from @p first back on the free list, with their
 * references dropped.
 */
static void entries_give_back(struct batch *b, unsigned first)
{
    while (first != NO_SLOT) {
        struct entry *e = &b->entries[first];
        unsigned next = e->next;
        entry_drop_refs(e);
        e->state = SLOT_FREE;
        e->sub = NULL;
        e->next = b->free_head;
        b->free_head = first;
        first = next;
    }
}

/*
 * Called with b->lock held: queue the @p nr slots chained from @p first to @p last behind the
 * pending ones, their executor tasks already submitted.
 */
static void pending_append(struct batch *b, unsigned nr, unsigned first, unsigned last)
{
    /* Workers wait for b->lock, so they see the whole submission at once. */
    b->tasks += nr;
    b->in_flight += nr;
    if (b->pending_tail != NO_SLOT)
        b->entries[b->pending_tail].next = first;
    else
        b->pending_head = first;
    b->pending_tail = last;
}

static hipFileError_t batch_submit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                   hipFileIOParams_t *iocbp, unsigned flags)
{
    (void)flags; /* reserved; AMD ignores it too */
    uint64_t start_ns = hf_stats_now_ns();
    if (nr > 0 && iocbp == NULL) {
        hf_error("hipFileBatchIOSubmit: iocbp is NULL");
        return hf_status(hipFileInvalidValue);
    }
    struct batch *b = batch_enter(batch_idp, "hipFileBatchIOSubmit");
    if (b == NULL)
        return hf_status(hipFileInvalidValue);
    hipFileOpError_t err = hipFileSuccess;
    if (nr == 0)
        goto unlock;
    unsigned room = b->max_nr - b->in_flight - b->events_len;
    if (nr > room) {
        hf_error("hipFileBatchIOSubmit: %u entries but room for %u of %u", nr, room, b->max_nr);
        err = hipFileBatchFull;
        goto unlock;
    }
    struct submission *sub = malloc(sizeof(*sub));
    if (sub == NULL) {
        hf_error("hipFileBatchIOSubmit: out of memory");
        err = hipFileInternalError;
        goto unlock;
    }
    *sub = (struct submission){.entries = nr, .left = nr, .start_ns = start_ns};

    /* All or nothing: every entry is checked (and its slot filled) before any is queued. */
    unsigned first = NO_SLOT, last = NO_SLOT;
    if (!entries_take(b, nr, iocbp, sub, &first, &last)) {
        err = hipFileInvalidValue;
        goto unprepare;
    }
    int rc = hf_executor_submit(nr, entry_task, b);
    if (rc < 0) {
        hf_error("hipFileBatchIOSubmit: cannot queue %u entries on the I/O threads: %s", nr,
                 strerror(-rc));
        err = hipFileInternalError;
        goto unprepare;
    }
    pending_append(b, nr, first, last);
    goto unlock;

unprepare:
    entries_give_back(b, first);
    free(sub);
unlock:
    pthread_mutex_unlock(&b->lock);
    return hf_status(err);
}

static bool timeout_valid(const struct timespec *t)
{
    return t == NULL || (t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < 1000000000L);
}

/* The monotonic time @p timeout from now; false when it is too far away to represent. */
static bool deadline_after(const struct timespec *timeout, struct timespec *deadline_p)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (timeout->tv_sec > INT32_MAX)
        return false; /* 68 years: as good as forever */
    deadline_p->tv_sec = now.tv_sec + timeout->tv_sec;
    deadline_p->tv_nsec = now.tv_nsec + timeout->tv_nsec;
    if (deadline_p->tv_nsec >= 1000000000L) {
        deadline_p->tv_sec++;
        deadline_p->tv_nsec -= 1000000000L;
    }
    return true;
}

static hipFileError_t batch_getstatus(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned *nr,
                                      hipFileIOEvents_t *iocbp, struct timespec *timeout)
{
    if (iocbp == NULL || nr == NULL || *nr == 0 || min_nr > *nr || !timeout_valid(timeout)) {
        hf_error("hipFileBatchIOGetStatus: %s", iocbp == NULL || nr == NULL ? "iocbp or nr is NULL"
                                                : *nr == 0                  ? "*nr is 0"
                                                : min_nr > *nr ? "min_nr is larger than *nr"
                                                               : "timeout is malformed");
        return hf_status(hipFileInvalidValue);
    }
    bool poll = timeout != NULL && timeout->tv_sec == 0 && timeout->tv_nsec == 0;
    struct timespec deadline;
    bool forever = timeout == NULL || !deadline_after(timeout, &deadline);
    struct batch *b = batch_enter(batch_idp, "hipFileBatchIOGetStatus");
    if (b == NULL)
        return hf_status(hipFileInvalidValue);
    b->sleepers++;
    for (;;) {
        /* Capped at what is outstanding, so a wait for more than was submitted still ends. */
        unsigned outstanding = b->in_flight + b->events_len;
        unsigned want = min_nr < outstanding ? min_nr : outstanding;
        if (b->events_len >= want || poll)
            break;
        if (forever)
            pthread_cond_wait(&b->changed, &b->lock);
        else if (pthread_cond_timedwait(&b->changed, &b->lock, &deadline) == ETIMEDOUT)
            break;
    }
    unsigned n = b->events_len < *nr ? b->events_len : *nr;
    for (unsigned i = 0; i < n; i++)
        iocbp[i] = b->events[(b->events_head + i) % b->max_nr];
    b->events_head = (b->events_head + n) % b->max_nr;
    b->events_len -= n;
    if (--b->sleepers == 0)
        pthread_cond_broadcast(&b->changed); /* Destroy may be waiting for us to leave */
    pthread_mutex_unlock(&b->lock);
    *nr = n;
    return hf_status(hipFileSuccess);
}

/*
 * Called with b->lock held: report every entry that has not started as canceled, and take back
 * their executor tasks (tasks already claimed find the queue empty and end).
 */
static void batch_cancel_pending_locked(struct batch *b)
{
    unsigned canceled = 0;
    while (b->pending_head != NO_SLOT) {
        unsigned slot = b->pending_head;
        struct entry *e = &b->entries[slot];
        b->pending_head = e->next;
        entry_drop_refs(e);
        entry_finish_locked(b, slot, hipFileCanceled, 0);
        canceled++;
    }
    b->pending_tail = NO_SLOT;
    b->tasks -= hf_executor_withdraw(entry_task, b);
    if (canceled > 0)
        hf_debug("batch %p: %u entries canceled before they started", (void *)b, canceled);
}

static hipFileError_t batch_cancel(hipFileBatchHandle_t batch_idp)
{
    struct batch *b = batch_enter(batch_idp, "hipFileBatchIOCancel");
    if (b == NULL)
        return hf_status(hipFileInvalidValue);
    batch_cancel_pending_locked(b);
    b->sleepers++;
    while (b->running > 0)
        pthread_cond_wait(&b->changed, &b->lock);
    if (--b->sleepers == 0)
        pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
    return hf_status(hipFileSuccess);
}

/*
 * Free a batch already taken off batch_list (so no new call can find it): cancel what has not
 * started, then wait for running entries, for tasks claimed by workers, and for threads sleeping
 * in GetStatus or Cancel, which wake once nothing is in flight and leave with what finished.
 */
static void batch_retire(struct batch *b)
{
    pthread_mutex_lock(&b->lock);
    batch_cancel_pending_locked(b);
    while (b->running > 0 || b->tasks > 0 || b->sleepers > 0)
        pthread_cond_wait(&b->changed, &b->lock);
    pthread_mutex_unlock(&b->lock);
    batch_free(b);
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

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp)
{
    pthread_mutex_lock(&batch_list_lock);
    struct batch **pp = &batch_list;
    while (*pp != NULL && (void *)*pp != batch_idp)
        pp = &(*pp)->next;
    struct batch *b = *pp;
    if (b != NULL)
        *pp = b->next;
    pthread_mutex_unlock(&batch_list_lock);
    hf_stats_batch(HF_STATS_BATCH_DESTROY, b != NULL);
    if (b == NULL) {
        hf_warn("hipFileBatchIODestroy: unknown batch handle %p ignored", batch_idp);
        return;
    }
    batch_retire(b);
}

void hf_batch_drop_all(void)
{
    pthread_mutex_lock(&batch_list_lock);
    struct batch *b = batch_list;
    batch_list = NULL;
    pthread_mutex_unlock(&batch_list_lock);
    while (b != NULL) {
        struct batch *next = b->next;
        batch_retire(b);
        b = next;
    }
}
