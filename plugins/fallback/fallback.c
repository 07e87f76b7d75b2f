/*
 * The fallback backend's face to the core: entry point, ops table, init and teardown, scoring and
 * the checks every request passes before fallback_split.c serves it. Files come with a descriptor
 * or, for user-space filesystems, with read and write callbacks (fallback_userspace_fs.c). It
 * serves whatever the other backends cannot, on every machine, so exact results come first and
 * speed right after.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hipfile/plugin_kit.h"
#include "common/request_check.h"
#include "fallback_internal.h"

/* A low score: any direct path that accepts a request should win it. */
#define FALLBACK_SCORE 10

static int fallback_init(const struct hf_host_api *host, void **backend_p)
{
    void *state;
    int rc = hfp_state_new(host, FALLBACK_ABI_MINOR, sizeof(struct fallback), &state);
    if (rc != 0)
        return rc;
    struct fallback *fb = state;
    fb->host = host;
    atomic_init(&fb->bounce_taken, 0);
    fallback_settings_read(host, &fb->set);
    /* A core before minor 10 has no read-only locking: its cached reads go through staging. */
    fb->can_map = fb->set.mapped_reads && hfp_host_offers(host, 10) &&
                  host->gpu->host_register_read_only != NULL && host->gpu->host_unregister != NULL;
    atomic_init(&fb->map_refused, false);
    atomic_init(&fb->map_worked, false);
    rc = fallback_pools_setup(fb);
    if (rc < 0) {
        host->log(host, HF_LOG_ERROR, "out of memory for the staging pools");
        free(fb);
        return rc;
    }
    *backend_p = fb;
    return 0;
}

/* The core calls fini only when no request is in flight, so every staging slot is back. */
static void fallback_fini(void *backend)
{
    struct fallback *fb = backend;
    if (fb == NULL)
        return;
    fallback_pools_teardown(fb);
    fallback_bounce_free(fb);
    free(fb);
}

/* POSIX I/O works wherever the core runs. */
static int fallback_probe(void *backend)
{
    (void)backend;
    return 0;
}

/* The kinds of memory the manifest lists: the ones the CPU or a GPU copy can reach by address. */
static bool mem_type_is_servable(int mem_type)
{
    return mem_type == HF_MEM_UNKNOWN || mem_type == HF_MEM_DEVICE ||
           mem_type == HF_MEM_HOST_PINNED || mem_type == HF_MEM_MANAGED;
}

/* A file served through its descriptor, or through a user-space filesystem's callbacks. */
static bool file_is_servable(const struct hf_file_info *file)
{
    if (file == NULL)
        return false;
    if (file->kind == HF_FILE_USERSPACE_FS)
        return file->fs_read != NULL;
    return file->fd >= 0;
}

/* The selector offers only the memory and files the manifest lists; score judges the rest. */
static int fallback_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    int score = FALLBACK_SCORE;
    const char *reason;
    bool callbacks = req->file != NULL && req->file->kind == HF_FILE_USERSPACE_FS;
    if (!file_is_servable(req->file)) {
        score = -1;
        reason = callbacks ? "the user-space filesystem file has no read callback"
                           : "the file has no buffered descriptor";
    } else if (fallback_memory_is_staged(backend, req->buf)) {
        reason = callbacks ? "user-space filesystem callbacks through pinned staging buffers "
                             "and GPU copies"
                           : "POSIX I/O through pinned staging buffers and GPU copies";
    } else {
        reason = callbacks ? "user-space filesystem callbacks straight into host-addressable memory"
                           : "POSIX I/O straight into host-addressable memory";
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
    const char *own = NULL;
    if (!file_is_servable(req->file) || req->buf == NULL)
        own = "no file descriptor (or read callback) or no buffer";
    else if (!mem_type_is_servable(req->buf->mem_type))
        own = "memory that cannot be addressed";
    return hfp_request_check(fb->host, req, own);
}

/* Reads and writes share one entry: req->op picks the direction all the way down. */
static ssize_t fallback_transfer(void *backend, const struct hf_io_request *req)
{
    struct fallback *fb = backend;
    int rc = request_check(fb, req);
    if (rc < 0)
        return rc;
    if (req->size == 0)
        return 0;
    return fallback_serve(fb, req);
}

/* Requests that fail their checks get their error; the rest are served together. */
static void fallback_submit_many(void *backend, const struct hf_io_request *const *reqs, unsigned n,
                                 ssize_t *results)
{
    struct fallback *fb = backend;
    const struct hf_io_request *ready[FALLBACK_MANY_MAX];
    unsigned where[FALLBACK_MANY_MAX];
    ssize_t served[FALLBACK_MANY_MAX];
    for (unsigned base = 0; base < n; base += FALLBACK_MANY_MAX) {
        unsigned count = n - base < FALLBACK_MANY_MAX ? n - base : FALLBACK_MANY_MAX;
        unsigned k = 0;
        for (unsigned i = base; i < base + count; i++) {
            int rc = -EINVAL;
            if (reqs[i] == NULL)
                fallback_log(fb, HF_LOG_ERROR, "rejecting batch request %u: it is NULL", i);
            else
                rc = request_check(fb, reqs[i]);
            results[i] = rc;
            if (rc == 0 && reqs[i]->size > 0) {
                where[k] = i;
                ready[k++] = reqs[i];
            }
        }
        fallback_serve_many(fb, ready, k, served);
        for (unsigned m = 0; m < k; m++)
            results[where[m]] = served[m];
    }
}

/* Stream-ordered requests must find the device's staging slots made (backend.h says why). */
static int fallback_stream_prepare(void *backend, int device)
{
    struct fallback *fb = backend;
    struct hfp_staging_pool *pool = NULL;
    int rc = fallback_pool_get(fb, device, &pool);
    if (rc != 0)
        return rc;
    int gpu_error = 0;
    rc = hfp_staging_pool_fill(pool, &gpu_error);
    return rc == -HF_EGPU ? -EIO : rc;
}

static const struct hf_backend_ops fallback_ops = {
    HFP_OPS_HEADER("fallback"),
    .caps = HF_CAP_READ | HF_CAP_WRITE | HF_CAP_COMPAT,
    .init = fallback_init,
    .fini = fallback_fini,
    .probe = fallback_probe,
    .score = fallback_score,
    .transfer = fallback_transfer,
    .submit_many = fallback_submit_many,
    .stream_prepare = fallback_stream_prepare,
    HFP_OPS_SETTINGS(fallback_setting_decls),
};

HFP_BACKEND_ENTRY(fallback_ops, FALLBACK_ABI_MINOR)
