/*
 * hipFileReadAsync/WriteAsync: stream-ordered I/O. Submission queues a host function that hands the
 * operation to the executor (or hands it over itself when the stream is idle and waits on no other
 * stream), then a stream wait on a pinned 32-bit word that the executor writes once the data has
 * moved; owns the pool of operation records and those words.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/driver.h"
#include "api/io.h"
#include "api/registry.h"
#include "api/stream.h"
#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "host/backends.h"
#include "services/executor.h"
#include "services/gpu.h"

/* Values every HIP release shares (hip_runtime_api.h). */
#define HIP_STREAM_WAIT_VALUE_GTE 0x0u
#define HIP_HOST_MALLOC_PORTABLE 0x1u
#define HIP_HOST_MALLOC_MAPPED 0x2u
#define HIP_HOST_MALLOC_COHERENT 0x40000000u

/*
 * Completion words are portable (any device's stream may wait on them), mapped (the GPU reads them
 * over the bus) and coherent (on AMD, fine-grained: a GPU polling the word sees the CPU's store
 * without a cache flush). The CUDA provider maps every hipHostMalloc with PORTABLE | DEVICEMAP.
 */
#define FLAG_ALLOC_FLAGS                                                                           \
    (HIP_HOST_MALLOC_PORTABLE | HIP_HOST_MALLOC_MAPPED | HIP_HOST_MALLOC_COHERENT)
/* One cache line per word, so the CPU storing one word never disturbs a GPU polling another. */
#define FLAG_STRIDE 64
#define SLAB_OPS 256
/*
 * A record's word only ever grows (its last ticket), so a stream still waiting on an older ticket
 * stays released after the record is reused. CUDA compares cyclically ((int32_t)(*p - v) >= 0),
 * HIP plainly (*p >= v); both agree while tickets stay below 2^31, after which a record retires.
 */
#define TICKET_LIMIT 0x7fffffffu

struct async_op {
    struct async_op *next_free;
    uint32_t *flag;  /* pinned completion word; holds the last ticket completed */
    uint32_t ticket; /* what the stream waits for: the word reaching it */
    atomic_int refs; /* the executor side, plus the submitter or a waiting host function */
    int op;          /* enum hf_io_op */
    int stream_status;
    const char *what;
    hipFileHandle_t fh;
    void *buffer_base;
    size_t submit_size;
    /* NULL where the stream's HIPFILE_STREAM_FIXED_* flag took the value at submit. */
    const size_t *size_p;
    const hoff_t *file_offset_p;
    const hoff_t *buffer_offset_p;
    size_t size;
    hoff_t file_offset;
    hoff_t buffer_offset;
    ssize_t *bytes_p;
};

struct slab {
    struct slab *next;
    void *words; /* SLAB_OPS completion words, FLAG_STRIDE apart, pinned */
    struct async_op ops[SLAB_OPS];
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct async_op *pool_free;
/* Every slab, kept reachable: a stream may wait on a word at any time, so none is ever freed. */
static struct slab *pool_slabs;

/* Host functions waiting for completions when stream memory operations are not used. */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static atomic_int done_waiters;
/* Set once the runtime refuses a stream wait, so later operations do not try again. */
static atomic_bool memops_refused;

/* Called with pool_lock held. Returns 0, the runtime's error (positive), or -ENOMEM. */
static int pool_grow_locked(const struct hf_gpu_runtime *rt)
{
    struct slab *slab = calloc(1, sizeof(*slab));
    if (slab == NULL)
        return -ENOMEM;
    int err = rt->host_malloc(&slab->words, (size_t)SLAB_OPS * FLAG_STRIDE, FLAG_ALLOC_FLAGS);
    if (err != 0) {
        free(slab);
        return err;
    }
    memset(slab->words, 0, (size_t)SLAB_OPS * FLAG_STRIDE);
    for (unsigned i = 0; i < SLAB_OPS; i++) {
        struct async_op *op = &slab->ops[i];
        op->flag = (uint32_t *)((char *)slab->words + (size_t)i * FLAG_STRIDE);
        op->next_free = pool_free;
        pool_free = op;
    }
    slab->next = pool_slabs;
    pool_slabs = slab;
    hf_debug("async: %u more operation records (%zu bytes pinned)", SLAB_OPS,
             (size_t)SLAB_OPS * FLAG_STRIDE);
    return 0;
}

/* A record with a fresh ticket and two references; NULL (logged) when none can be made. */
static struct async_op *op_take(const char *what, int *hip_err_p)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    struct async_op *op = NULL;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        if (pool_free == NULL) {
            int err = pool_grow_locked(rt);
            if (err != 0) {
                if (err > 0) {
                    hf_error("%s: cannot pin memory for completion words: %s", what,
                             rt->get_error_string(err));
                    *hip_err_p = err;
                } else {
                    hf_error("%s: out of memory for operation records", what);
                }
                break;
            }
        }
        op = pool_free;
        pool_free = op->next_free;
        if (op->ticket < TICKET_LIMIT)
            break;
        op = NULL; /* retired: its word has counted as far as both comparisons agree */
    }
    pthread_mutex_unlock(&pool_lock);
    if (op != NULL) {
        op->ticket++;
        atomic_init(&op->refs, 2);
    }
    return op;
}

static void op_put(struct async_op *op)
{
    if (atomic_fetch_sub_explicit(&op->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_mutex_lock(&pool_lock);
    op->next_free = pool_free;
    pool_free = op;
    pthread_mutex_unlock(&pool_lock);
}

static bool op_done(const struct async_op *op)
{
    return (int32_t)(__atomic_load_n(op->flag, __ATOMIC_SEQ_CST) - op->ticket) >= 0;
}

/*
 * Store the result, then the ticket: the stream (or a waiting host function) moves on the moment
 * it sees the word, so everything the operation wrote must be visible first. Runs on an executor
 * worker, or on the runtime's callback thread when the operation fails before reaching one.
 */
static void op_finish(struct async_op *op, ssize_t result)
{
    /* Atomic, so a caller that polls the result instead of the stream may do so with a load. */
    __atomic_store_n(op->bytes_p, result, __ATOMIC_RELEASE);
    __atomic_store_n(op->flag, op->ticket, __ATOMIC_SEQ_CST);
    if (atomic_load(&done_waiters) > 0) {
        pthread_mutex_lock(&done_lock);
        pthread_cond_broadcast(&done_cond);
        pthread_mutex_unlock(&done_lock);
    }
    op_put(op);
}

/* The executor task: read what was deferred, move the data, report. */
static void op_run(void *arg, unsigned index)
{
    (void)index;
    struct async_op *op = arg;
    size_t size = op->size_p != NULL ? *(const volatile size_t *)op->size_p : op->size;
    hoff_t file_offset =
        op->file_offset_p != NULL ? *(const volatile hoff_t *)op->file_offset_p : op->file_offset;
    hoff_t buffer_offset = op->buffer_offset_p != NULL
                               ? *(const volatile hoff_t *)op->buffer_offset_p
                               : op->buffer_offset;
    ssize_t result;
    if (op->stream_status != 0) {
        hf_error("%s: the stream reported error %d before the operation; nothing moved", op->what,
                 op->stream_status);
        result = -(ssize_t)hipFileHipDriverError;
    } else if (size > op->submit_size) {
        hf_error("%s: size grew from %zu at submission to %zu", op->what, op->submit_size, size);
        result = -(ssize_t)hipFileInvalidValue;
    } else {
        result =
            hf_io_run(op->op, op->fh, op->buffer_base, size, file_offset, buffer_offset, op->what);
        /* errno belongs to this worker thread; the caller only sees *bytes_p (as batch events). */
        if (result == -1)
            result = -errno;
    }
    op_finish(op, result);
}

/* Host function at the operation's place in the stream: no I/O here, only the hand-over. */
static void op_start(void *arg)
{
    struct async_op *op = arg;
    int rc = hf_executor_submit(1, op_run, op);
    if (rc < 0) {
        hf_error("%s: cannot queue the operation on the I/O threads: %s", op->what, strerror(-rc));
        op_finish(op, -(ssize_t)hipFileInternalError);
    }
}

/* Host function that holds the stream until the operation is done (no stream wait available). */
static void op_wait(void *arg)
{
    struct async_op *op = arg;
    if (!op_done(op)) {
        atomic_fetch_add(&done_waiters, 1);
        pthread_mutex_lock(&done_lock);
        while (!op_done(op))
            pthread_cond_wait(&done_cond, &done_lock);
        pthread_mutex_unlock(&done_lock);
        atomic_fetch_sub(&done_waiters, 1);
    }
    op_put(op);
}

/* hipStreamAddCallback forms of the two host functions, for runtimes without hipLaunchHostFunc. */
static void op_start_callback(void *stream, int status, void *arg)
{
    (void)stream;
    ((struct async_op *)arg)->stream_status = status;
    op_start(arg);
}

static void op_wait_callback(void *stream, int status, void *arg)
{
    (void)stream;
    (void)status;
    op_wait(arg);
}

static int host_func_enqueue(const struct hf_gpu_runtime *rt, void *stream, struct async_op *op,
                             bool start)
{
    if (rt->launch_host_func != NULL)
        return rt->launch_host_func(stream, start ? op_start : op_wait, op);
    return rt->stream_add_callback(stream, start ? op_start_callback : op_wait_callback, op, 0);
}

static bool use_stream_wait(const struct hf_gpu_runtime *rt)
{
    return rt->stream_wait_value32 != NULL && !hf_setting_bool(HF_SETTING_STREAM_MEMOPS_BYPASS) &&
           !atomic_load_explicit(&memops_refused, memory_order_relaxed);
}

/*
 * Queue @p op on @p stream: the hand-over, then what holds the stream until the data has moved.
 * Returns 0 or the runtime's error when nothing was queued. Consumes the submitter's reference.
 */
static int op_enqueue(const struct hf_gpu_runtime *rt, void *stream, struct async_op *op)
{
    int err = 0;
    /*
     * A stream with nothing left to run would reach the operation at once: hand it over now
     * rather than through the runtime's host-function thread, whose wake-up each call otherwise
     * waits for (the usual case of a caller that waits for each call before the next).
     */
    if (hf_gpu_stream_ready(stream))
        op_start(op);
    else
        err = host_func_enqueue(rt, stream, op, true);
    if (err != 0) {
        hf_error("%s: cannot queue a host function on stream %p: %s", op->what, stream,
                 rt->get_error_string(err));
        atomic_store(&op->refs, 1);
        op_put(op);
        return err;
    }
    if (use_stream_wait(rt)) {
        err = rt->stream_wait_value32(stream, op->flag, op->ticket, HIP_STREAM_WAIT_VALUE_GTE,
                                      UINT32_MAX);
        if (err == 0) {
            op_put(op);
            return 0;
        }
        if (!atomic_exchange(&memops_refused, true))
            hf_warn("%s: the runtime refuses stream waits (%s); async I/O holds streams with host "
                    "functions from now on",
                    op->what, rt->get_error_string(err));
    }
    /* The waiting host function takes over the submitter's reference. */
    err = host_func_enqueue(rt, stream, op, false);
    if (err != 0) {
        /* The hand-over is queued and cannot be taken back: keep order by waiting here. */
        hf_warn("%s: cannot queue the wait on stream %p (%s); waiting for the operation in the "
                "caller",
                op->what, stream, rt->get_error_string(err));
        op_wait(op);
    }
    return 0;
}

/*
 * The device whose queue @p stream is, or -1 when the runtime cannot tell: the null and per-thread
 * streams belong to the current device, others need hipStreamGetDevice.
 */
static int stream_device(const struct hf_gpu_runtime *rt, void *stream)
{
    int device = -1;
    if (hf_gpu_stream_is_implicit(stream)) {
        if (rt->get_device(&device) != 0)
            return -1;
    } else if (rt->stream_get_device == NULL || rt->stream_get_device(stream, &device) != 0) {
        return -1;
    }
    return device;
}

/*
 * False (logged) when the buffer is device memory of a GPU other than the stream's.
 * *buffer_device_p gets the GPU whose memory (device or managed) the buffer is, or -1.
 */
static bool device_matches(const struct hf_gpu_runtime *rt, const void *buffer_base, void *stream,
                           const char *what, int *buffer_device_p)
{
    struct hf_gpu_pointer_info info;
    *buffer_device_p = -1;
    if (hf_gpu()->pointer_info(buffer_base, &info) != 0)
        return true;
    if (info.mem_type == HF_MEM_DEVICE || info.mem_type == HF_MEM_MANAGED)
        *buffer_device_p = info.device;
    int device = stream_device(rt, stream);
    if (device < 0 || info.mem_type != HF_MEM_DEVICE || info.device == device)
        return true;
    hf_error("%s: buffer %p is on GPU %d but stream %p is on GPU %d", what, buffer_base,
             info.device, stream, device);
    return false;
}

/*
 * Values the stream's HIPFILE_STREAM_FIXED_* flags fix are final at submission, so a wrong one is
 * refused by the call itself, as AMD's library does, rather than reported in the result word later.
 * Values read at execution are checked there (hf_io_run), as are these again.
 */
static bool fixed_values_valid(const void *buffer_base, unsigned fixed, size_t size,
                               hoff_t file_offset, hoff_t buffer_offset, const char *what)
{
    if ((fixed & HIPFILE_STREAM_FIXED_FILE_OFFSET) && file_offset < 0) {
        hf_error("%s: negative file offset %lld", what, (long long)file_offset);
        return false;
    }
    if ((fixed & HIPFILE_STREAM_FIXED_BUF_OFFSET) && buffer_offset < 0) {
        hf_error("%s: negative buffer offset %lld", what, (long long)buffer_offset);
        return false;
    }
    if (!(fixed & (HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_SIZE)))
        return true;
    struct hf_buffer *buffer = NULL;
    struct hf_buf_info view;
    int hip_err = 0;
    /* Memory the runtime cannot describe is refused at execution, with the runtime's error. */
    if (hf_buffer_resolve(buffer_base, &buffer, &view, &hip_err) != hipFileSuccess)
        return true;
    size_t length = buffer != NULL ? buffer->info.length : view.length;
    hf_buffer_release(buffer);
    uint64_t start = fixed & HIPFILE_STREAM_FIXED_BUF_OFFSET ? (uint64_t)buffer_offset : 0;
    if (start >= length) {
        hf_error("%s: buffer offset %llu is past the buffer's %zu bytes", what,
                 (unsigned long long)start, length);
        return false;
    }
    if ((fixed & HIPFILE_STREAM_FIXED_FILE_SIZE) && size > length - start) {
        hf_error("%s: %zu bytes at buffer offset %llu run past the buffer's %zu bytes", what, size,
                 (unsigned long long)start, length);
        return false;
    }
    return true;
}

/*
 * No way to run host work in stream order: wait for the stream, then run the I/O on the caller's
 * thread. Correct, but the caller blocks.
 */
static hipFileError_t run_in_caller(const struct hf_gpu_runtime *rt, struct async_op *op,
                                    void *stream)
{
    int err = rt->stream_synchronize(stream);
    if (err != 0) {
        hf_error("%s: waiting for stream %p failed: %s", op->what, stream,
                 rt->get_error_string(err));
        return hf_status_hip(err);
    }
    size_t size = op->size_p != NULL ? *op->size_p : op->size;
    if (size > op->submit_size) {
        hf_error("%s: size grew from %zu at submission to %zu", op->what, op->submit_size, size);
        *op->bytes_p = -(ssize_t)hipFileInvalidValue;
        return hf_status(hipFileSuccess);
    }
    ssize_t result =
        hf_io_run(op->op, op->fh, op->buffer_base, size,
                  op->file_offset_p != NULL ? *op->file_offset_p : op->file_offset,
                  op->buffer_offset_p != NULL ? *op->buffer_offset_p : op->buffer_offset, op->what);
    *op->bytes_p = hf_io_event_result(result);
    return hf_status(hipFileSuccess);
}

static hipFileError_t async_submit(int io_op, hipFileHandle_t fh, void *buffer_base, size_t *size_p,
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
    size_t submit_size = *size_p;
    if (submit_size == 0) {
        *bytes_p = 0;
        return hf_status(hipFileSuccess);
    }
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    int buffer_device = -1;
    if (!device_matches(rt, buffer_base, (void *)stream, what, &buffer_device))
        return hf_status(hipFileInvalidValue);
    unsigned fixed = hf_stream_flags(stream);
    if (!fixed_values_valid(buffer_base, fixed, submit_size, *file_offset_p, *buffer_offset_p,
                            what))
        return hf_status(hipFileInvalidValue);
    *bytes_p = 0;

    struct async_op local;
    struct async_op *op = &local;
    bool in_caller = rt->launch_host_func == NULL && rt->stream_add_callback == NULL;
    int hip_err = 0;
    if (!in_caller && (op = op_take(what, &hip_err)) == NULL)
        return hip_err != 0 ? hf_status_hip(hip_err) : hf_status(hipFileInternalError);
    op->op = io_op;
    op->stream_status = 0;
    op->what = what;
    op->fh = fh;
    op->buffer_base = buffer_base;
    op->submit_size = submit_size;
    op->bytes_p = bytes_p;
    op->size = submit_size;
    op->size_p = fixed & HIPFILE_STREAM_FIXED_FILE_SIZE ? NULL : size_p;
    op->file_offset = *file_offset_p;
    op->file_offset_p = fixed & HIPFILE_STREAM_FIXED_FILE_OFFSET ? NULL : file_offset_p;
    op->buffer_offset = *buffer_offset_p;
    op->buffer_offset_p = fixed & HIPFILE_STREAM_FIXED_BUF_OFFSET ? NULL : buffer_offset_p;
    if (in_caller)
        return run_in_caller(rt, op, (void *)stream);
    /*
     * Before the stream is held: backends make their staging streams and pinned buffers now, as
     * CUDA can block every thread that creates or frees them while a stream waits.
     */
    hf_backends_stream_prepare(buffer_device);
    return hf_status_hip(op_enqueue(rt, (void *)stream, op));
}

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                            hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                            ssize_t *bytes_read_p, hipStream_t stream)
{
    return async_submit(HF_IO_READ, fh, buffer_base, size_p, file_offset_p, buffer_offset_p,
                        bytes_read_p, stream, "hipFileReadAsync");
}

HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                             hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                             ssize_t *bytes_written_p, hipStream_t stream)
{
    return async_submit(HF_IO_WRITE, fh, buffer_base, size_p, file_offset_p, buffer_offset_p,
                        bytes_written_p, stream, "hipFileWriteAsync");
}
