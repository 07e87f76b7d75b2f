/*
 * The fallback backend: POSIX pread/pwrite on the file's buffered descriptor, straight into host
 * memory, or through pinned bounce buffers and synchronous GPU copies for device memory. It serves
 * whatever the other backends cannot, on every machine, so exact results come before speed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bounce_pool.h"
#include "hipfile/backend.h"

/* A low score: any direct path that accepts a request should win it. */
#define FALLBACK_SCORE 10

/*
 * 4 MiB chunks keep per-chunk system call and copy launch costs small next to the transfer itself;
 * eight of them (32 MiB pinned) let eight threads move device memory without waiting on each other.
 * Sizes are whole 4 KiB pages so chunk boundaries stay page- and block-aligned for O_DIRECT.
 */
#define BOUNCE_SIZE_KIB_DEFAULT 4096
#define BOUNCE_SIZE_KIB_MIN 4
#define BOUNCE_SIZE_KIB_MAX (1024 * 1024)
#define BOUNCE_SIZE_KIB_MULTIPLE 4
#define BOUNCE_BUFFERS_DEFAULT 8
#define BOUNCE_BUFFERS_MIN 1
#define BOUNCE_BUFFERS_MAX 1024

struct fallback {
    const struct hf_host_api *host;
    struct hf_bounce_pool *pool;
    size_t bounce_size;
};

#define fallback_log(fb, level, ...) (fb)->host->log((fb)->host, (level), __VA_ARGS__)

static const char *errno_text(int err)
{
    const char *text = strerrordesc_np(err);
    return text != NULL ? text : "unknown error";
}

/* Whether the members this backend calls exist in the table the core handed over. */
static bool host_is_complete(const struct hf_host_api *host)
{
    if (host->struct_size < offsetof(struct hf_host_api, sys) + sizeof(host->sys) ||
        host->config_int == NULL || host->gpu == NULL || host->sys == NULL)
        return false;
    const struct hf_gpu_ops *gpu = host->gpu;
    if (gpu->struct_size < offsetof(struct hf_gpu_ops, error_string) + sizeof(gpu->error_string) ||
        gpu->get_device == NULL || gpu->set_device == NULL || gpu->host_alloc_pinned == NULL ||
        gpu->host_free_pinned == NULL || gpu->memcpy_sync == NULL || gpu->error_string == NULL)
        return false;
    const struct hf_sys_ops *sys = host->sys;
    return sys->struct_size >= offsetof(struct hf_sys_ops, pwrite) + sizeof(sys->pwrite) &&
           sys->pread != NULL && sys->pwrite != NULL;
}

/*
 * An integer knob from this backend's config group. A bad value is logged and replaced by the
 * default rather than failing init: losing the one backend that works everywhere over a typo
 * would turn a tuning mistake into an outage.
 */
static int64_t config_knob(const struct hf_host_api *host, const char *key, int64_t default_value,
                           int64_t min, int64_t max, int64_t multiple)
{
    int64_t value;
    int rc = host->config_int(host, key, &value);
    if (rc == -ENOENT)
        return default_value;
    if (rc < 0) {
        host->log(host, HF_LOG_WARN, "%s is not an integer; using the default %lld", key,
                  (long long)default_value);
        return default_value;
    }
    if (value < min || value > max) {
        host->log(host, HF_LOG_WARN, "%s = %lld is outside [%lld, %lld]; using the default %lld",
                  key, (long long)value, (long long)min, (long long)max, (long long)default_value);
        return default_value;
    }
    if (value % multiple != 0) {
        host->log(host, HF_LOG_WARN, "%s = %lld is not a multiple of %lld; using the default %lld",
                  key, (long long)value, (long long)multiple, (long long)default_value);
        return default_value;
    }
    return value;
}

static int fallback_init(const struct hf_host_api *host, void **backend_p)
{
    if (host == NULL || host->log == NULL)
        return -EINVAL;
    if (!host_is_complete(host)) {
        host->log(host, HF_LOG_ERROR,
                  "the core's host table lacks config, GPU copy or system call entries");
        return -EINVAL;
    }
    struct fallback *fb = calloc(1, sizeof(*fb));
    if (fb == NULL) {
        host->log(host, HF_LOG_ERROR, "out of memory for the backend state");
        return -ENOMEM;
    }
    fb->host = host;
    int64_t size_kib =
        config_knob(host, "bounce_buffer_size_kb", BOUNCE_SIZE_KIB_DEFAULT, BOUNCE_SIZE_KIB_MIN,
                    BOUNCE_SIZE_KIB_MAX, BOUNCE_SIZE_KIB_MULTIPLE);
    int64_t buffers = config_knob(host, "bounce_buffers", BOUNCE_BUFFERS_DEFAULT,
                                  BOUNCE_BUFFERS_MIN, BOUNCE_BUFFERS_MAX, 1);
    fb->bounce_size = (size_t)size_kib * 1024;
    int rc = hf_bounce_pool_create(host, fb->bounce_size, (unsigned)buffers, &fb->pool);
    if (rc < 0)
        goto free_backend;
    host->log(host, HF_LOG_INFO,
              "up to %lld pinned bounce buffers of %lld KiB, pinned on first use",
              (long long)buffers, (long long)size_kib);
    *backend_p = fb;
    return 0;

free_backend:
    free(fb);
    return rc;
}

/* POSIX I/O works wherever the core runs. */
static int fallback_probe(void *backend)
{
    (void)backend;
    return 0;
}

/*
 * Device memory always goes through the GPU copy, even where the CPU could address it, so that
 * the runtime sees (and orders) every access to its memory; other memory the CPU cannot address
 * has no other way in.
 */
static bool buffer_needs_bounce(const struct hf_buf_info *buf)
{
    return buf->mem_type == HF_MEM_DEVICE || !buf->host_accessible;
}

static bool mem_type_is_servable(int mem_type)
{
    return mem_type == HF_MEM_UNKNOWN || mem_type == HF_MEM_DEVICE ||
           mem_type == HF_MEM_HOST_PINNED || mem_type == HF_MEM_MANAGED;
}

static int fallback_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    (void)backend;
    int score = FALLBACK_SCORE;
    const char *reason;
    if (req->file == NULL || req->file->fd < 0) {
        score = -1;
        reason = "the file has no buffered descriptor";
    } else if (req->buf == NULL || !mem_type_is_servable(req->buf->mem_type)) {
        score = -1;
        reason = "array or unknown kinds of memory cannot be read or written by address";
    } else if (buffer_needs_bounce(req->buf)) {
        reason = "POSIX I/O through pinned bounce buffers and GPU copies";
    } else {
        reason = "POSIX I/O straight into host memory";
    }
    if (reason_p != NULL)
        *reason_p = reason;
    return score;
}

/*
 * The core validates requests before they get here; these checks keep a core bug or a direct
 * caller from turning into memory corruption.
 */
static int request_check(struct fallback *fb, const struct hf_io_request *req)
{
    const char *what = NULL;
    if (req->file == NULL || req->file->fd < 0 || req->buf == NULL)
        what = "no file descriptor or no buffer";
    else if (!mem_type_is_servable(req->buf->mem_type))
        what = "memory that cannot be addressed";
    else if (req->file_offset < 0 || req->buf_offset < 0)
        what = "a negative offset";
    else if (req->size > (size_t)SSIZE_MAX ||
             (uint64_t)req->file_offset > (uint64_t)INT64_MAX - req->size)
        what = "a size that overflows the file offset";
    else if ((uint64_t)req->buf_offset > req->buf->length ||
             req->size > req->buf->length - (uint64_t)req->buf_offset)
        what = "a range past the end of the buffer";
    else if (req->buf->base == NULL && req->size > 0)
        what = "a NULL buffer";
    if (what == NULL)
        return 0;
    fallback_log(fb, HF_LOG_ERROR, "rejecting a %s of %zu bytes: %s",
                 req->op == HF_IO_WRITE ? "write" : "read", req->size, what);
    return -EINVAL;
}

/* The descriptor's access mode must allow the direction: one clear -EBADF beats a failed call. */
static int access_check(struct fallback *fb, const struct hf_io_request *req)
{
    int mode = req->file->status_flags & O_ACCMODE;
    if (req->op == HF_IO_READ && mode == O_WRONLY) {
        fallback_log(fb, HF_LOG_ERROR, "cannot read: the file was opened write-only");
        return -EBADF;
    }
    if (req->op == HF_IO_WRITE && mode == O_RDONLY) {
        fallback_log(fb, HF_LOG_ERROR, "cannot write: the file was opened read-only");
        return -EBADF;
    }
    /* Linux pwrite(2) appends under O_APPEND whatever the offset: the data would land elsewhere. */
    if (req->op == HF_IO_WRITE && (req->file->status_flags & O_APPEND) != 0) {
        fallback_log(fb, HF_LOG_ERROR,
                     "cannot write at an offset: the file was opened with O_APPEND");
        return -EINVAL;
    }
    return 0;
}

/*
 * Make the buffer's device current for the copies, remembering the caller's device in
 * *previous_p (-1 when nothing changed) so device_restore can put it back: the calling thread
 * belongs to the application, whose own HIP calls rely on its current device.
 */
static int device_select(struct fallback *fb, const struct hf_io_request *req, int *previous_p)
{
    const struct hf_gpu_ops *gpu = fb->host->gpu;
    int device = req->buf->device;
    int previous = -1;
    int err = 0;
    if (device >= 0) {
        err = gpu->get_device(&previous);
        if (err == 0 && previous == device)
            previous = -1;
        else if (err == 0)
            err = gpu->set_device(device);
    }
    if (err != 0) {
        fallback_log(fb, HF_LOG_ERROR, "cannot make GPU %d current: %s (%d)", device,
                     gpu->error_string(err), err);
        if (req->gpu_error_p != NULL)
            *req->gpu_error_p = err;
        return -HF_EGPU;
    }
    *previous_p = previous;
    return 0;
}

static void device_restore(struct fallback *fb, int previous)
{
    if (previous < 0)
        return;
    int err = fb->host->gpu->set_device(previous);
    if (err != 0)
        fallback_log(fb, HF_LOG_WARN, "cannot make GPU %d current again: %s (%d)", previous,
                     fb->host->gpu->error_string(err), err);
}

/*
 * The result of a GPU runtime failure (already logged) after @p done bytes had moved: the POSIX
 * short count when some had, else -HF_EGPU with the runtime's code.
 */
static ssize_t gpu_failure_result(const struct hf_io_request *req, int err, size_t done)
{
    if (done > 0)
        return (ssize_t)done;
    if (req->gpu_error_p != NULL)
        *req->gpu_error_p = err;
    return -HF_EGPU;
}

static void gpu_copy_log(struct fallback *fb, int err, size_t done)
{
    fallback_log(fb, HF_LOG_ERROR, "GPU copy of a bounce buffer failed after %zu bytes: %s (%d)",
                 done, fb->host->gpu->error_string(err), err);
}

/*
 * Read up to @p size bytes at @p offset, going on after short reads and EINTR. Stops early only
 * at end of file or on an error. Returns the bytes read, or -errno when an error came before any.
 */
static ssize_t pread_full(struct fallback *fb, int fd, char *dst, size_t size, int64_t offset)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done;
        ssize_t n = fb->host->sys->pread(fd, dst + done, want, (off_t)(offset + (int64_t)done));
        if (n == 0)
            break;
        if (n > 0 && (size_t)n <= want) {
            done += (size_t)n;
            continue;
        }
        int err = n > 0 || errno == 0 ? EIO : errno;
        if (err == EINTR)
            continue;
        fallback_log(fb, HF_LOG_ERROR, "pread of %zu bytes at %lld failed after %zu: %s", want,
                     (long long)(offset + (int64_t)done), done, errno_text(err));
        return done > 0 ? (ssize_t)done : -err;
    }
    return (ssize_t)done;
}

/* Host memory the CPU can address: the kernel copies straight into it. */
static ssize_t host_read(struct fallback *fb, const struct hf_io_request *req)
{
    char *dst = (char *)req->buf->base + req->buf_offset;
    return pread_full(fb, req->file->fd, dst, req->size, req->file_offset);
}

/*
 * Device memory: each chunk is read into a bounce buffer taken from the pool, copied to the
 * device, and the buffer given back, so concurrent requests share a bounded set of buffers.
 */
static ssize_t bounce_read(struct fallback *fb, const struct hf_io_request *req)
{
    char *dst = (char *)req->buf->base + req->buf_offset;
    int previous_device;
    int rc = device_select(fb, req, &previous_device);
    if (rc < 0)
        return rc;
    ssize_t result = 0;
    size_t done = 0;
    while (done < req->size) {
        size_t chunk = req->size - done;
        if (chunk > fb->bounce_size)
            chunk = fb->bounce_size;
        void *bounce;
        int gpu_error = 0;
        rc = hf_bounce_pool_take(fb->pool, &bounce, &gpu_error);
        if (rc < 0) {
            result = gpu_failure_result(req, gpu_error, done);
            goto restore_device;
        }
        ssize_t got =
            pread_full(fb, req->file->fd, bounce, chunk, req->file_offset + (int64_t)done);
        if (got > 0) {
            int err = fb->host->gpu->memcpy_sync(dst + done, bounce, (size_t)got);
            if (err != 0) {
                hf_bounce_pool_give(fb->pool, bounce);
                gpu_copy_log(fb, err, done);
                result = gpu_failure_result(req, err, done);
                goto restore_device;
            }
        }
        hf_bounce_pool_give(fb->pool, bounce);
        if (got < 0) {
            result = done > 0 ? (ssize_t)done : got;
            goto restore_device;
        }
        done += (size_t)got;
        if ((size_t)got < chunk)
            break;
    }
    result = (ssize_t)done;

restore_device:
    device_restore(fb, previous_device);
    return result;
}

static ssize_t fallback_read(void *backend, const struct hf_io_request *req)
{
    struct fallback *fb = backend;
    int rc = request_check(fb, req);
    if (rc == 0)
        rc = access_check(fb, req);
    if (rc < 0)
        return rc;
    if (req->size == 0)
        return 0;
    return buffer_needs_bounce(req->buf) ? bounce_read(fb, req) : host_read(fb, req);
}

/*
 * Write @p size bytes at @p offset, going on after partial writes and EINTR. Returns the bytes
 * written (short only on an error after some), or -errno when an error came before any.
 */
static ssize_t pwrite_full(struct fallback *fb, int fd, const char *src, size_t size,
                           int64_t offset)
{
    size_t done = 0;
    while (done < size) {
        size_t want = size - done;
        ssize_t n = fb->host->sys->pwrite(fd, src + done, want, (off_t)(offset + (int64_t)done));
        if (n > 0 && (size_t)n <= want) {
            done += (size_t)n;
            continue;
        }
        /* A write that makes no progress would loop forever; report it as the I/O error it is. */
        int err = n >= 0 || errno == 0 ? EIO : errno;
        if (err == EINTR)
            continue;
        fallback_log(fb, HF_LOG_ERROR, "pwrite of %zu bytes at %lld failed after %zu: %s", want,
                     (long long)(offset + (int64_t)done), done, errno_text(err));
        return done > 0 ? (ssize_t)done : -err;
    }
    return (ssize_t)done;
}

static ssize_t host_write(struct fallback *fb, const struct hf_io_request *req)
{
    const char *src = (const char *)req->buf->base + req->buf_offset;
    return pwrite_full(fb, req->file->fd, src, req->size, req->file_offset);
}

/*
 * The mirror of bounce_read: copy a chunk from the device into a bounce buffer, write it out.
 * No fdatasync per chunk: durability follows the file's own open flags (O_SYNC, O_DSYNC), as it
 * does for pwrite(2), and callers wanting more call fsync themselves.
 */
static ssize_t bounce_write(struct fallback *fb, const struct hf_io_request *req)
{
    const char *src = (const char *)req->buf->base + req->buf_offset;
    int previous_device;
    int rc = device_select(fb, req, &previous_device);
    if (rc < 0)
        return rc;
    ssize_t result = 0;
    size_t done = 0;
    while (done < req->size) {
        size_t chunk = req->size - done;
        if (chunk > fb->bounce_size)
            chunk = fb->bounce_size;
        void *bounce;
        int gpu_error = 0;
        rc = hf_bounce_pool_take(fb->pool, &bounce, &gpu_error);
        if (rc < 0) {
            result = gpu_failure_result(req, gpu_error, done);
            goto restore_device;
        }
        int err = fb->host->gpu->memcpy_sync(bounce, src + done, chunk);
        if (err != 0) {
            hf_bounce_pool_give(fb->pool, bounce);
            gpu_copy_log(fb, err, done);
            result = gpu_failure_result(req, err, done);
            goto restore_device;
        }
        ssize_t put =
            pwrite_full(fb, req->file->fd, bounce, chunk, req->file_offset + (int64_t)done);
        hf_bounce_pool_give(fb->pool, bounce);
        if (put < 0) {
            result = done > 0 ? (ssize_t)done : put;
            goto restore_device;
        }
        done += (size_t)put;
        if ((size_t)put < chunk)
            break;
    }
    result = (ssize_t)done;

restore_device:
    device_restore(fb, previous_device);
    return result;
}

static ssize_t fallback_write(void *backend, const struct hf_io_request *req)
{
    struct fallback *fb = backend;
    int rc = request_check(fb, req);
    if (rc == 0)
        rc = access_check(fb, req);
    if (rc < 0)
        return rc;
    if (req->size == 0)
        return 0;
    return buffer_needs_bounce(req->buf) ? bounce_write(fb, req) : host_write(fb, req);
}

/* The core calls fini only when no request is in flight, so every bounce buffer is back. */
static void fallback_fini(void *backend)
{
    struct fallback *fb = backend;
    if (fb == NULL)
        return;
    hf_bounce_pool_destroy(fb->pool);
    free(fb);
}

static const struct hf_backend_ops fallback_ops = {
    .magic = HF_BACKEND_MAGIC,
    .abi_major = HF_BACKEND_ABI_MAJOR,
    .abi_minor = HF_BACKEND_ABI_MINOR,
    .struct_size = sizeof(struct hf_backend_ops),
    .name = "fallback",
    .caps = HF_CAP_READ | HF_CAP_WRITE | HF_CAP_DEVICE_MEM | HF_CAP_HOST_MEM | HF_CAP_COMPAT,
    .init = fallback_init,
    .fini = fallback_fini,
    .probe = fallback_probe,
    .score = fallback_score,
    .read = fallback_read,
    .write = fallback_write,
};

HF_BACKEND_EXPORT int hf_backend_entry_v1(const struct hf_host_api *host, uint32_t *minor_inout,
                                          const struct hf_backend_ops **ops_p)
{
    (void)host;
    if (minor_inout == NULL || ops_p == NULL)
        return -EINVAL;
    if (*minor_inout > HF_BACKEND_ABI_MINOR)
        *minor_inout = HF_BACKEND_ABI_MINOR;
    *ops_p = &fallback_ops;
    return 0;
}
