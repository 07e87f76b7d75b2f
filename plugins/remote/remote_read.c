/*
 * Parallel ranged reads. A read is cut into pieces of the object's piece size; up to
 * `connections` lanes each run one ranged GET at a time in a session's multi handle, so every
 * connection stays busy on the calling thread without threads of our own. Host-addressable memory
 * receives the bytes directly; device memory receives them in a lane's pinned staging buffers,
 * each copied to the GPU as soon as its piece is complete and verified, while the lane's next
 * piece lands in the other buffer. A piece counts only when its status, Content-Range, length
 * and ETag are exactly those asked for; retryable failures are tried again after a backoff.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/device_switch.h"
#include "remote_internal.h"

struct read_job;

/* One connection's worth of a read: the piece it is fetching and where the bytes go. */
struct lane {
    struct read_job *job;
    CURL *easy;
    struct curl_slist *headers;
    struct remote_answer ans;
    struct hfp_staging_slot *slot; /* NULL when the bytes land in the caller's memory */
    int buffer_index;              /* staging buffer the current piece lands in */
    bool active;                   /* in the multi handle */
    bool overflow;                 /* the server sent more than the range */
    uint64_t offset;               /* object offset of the current piece */
    size_t length;
    size_t received;
    char *dest;
    unsigned attempt;
    uint64_t retry_at_ns; /* 0: no retry pending */
};

struct read_job {
    struct remote *rb;
    const struct remote_object *obj;
    const struct hf_io_request *req;
    struct remote_session *session;
    char *dst;       /* caller's memory for object offset `start` */
    uint64_t start;  /* object offset of the read */
    size_t total;    /* bytes the read returns */
    size_t piece;    /* bytes per piece */
    size_t next_off; /* read-relative offset of the next piece nobody fetches yet */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t lane_receive(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct lane *lane = userdata;
    size_t n = size * nmemb;
    long status = 0;
    curl_easy_getinfo(lane->easy, CURLINFO_RESPONSE_CODE, &status);
    /* A failed answer's body is the server's explanation, not object bytes. */
    if (status != 200 && status != 206) {
        remote_http_keep_error_body(&lane->ans, data, n);
        return n;
    }
    if (n > lane->length - lane->received) {
        lane->overflow = true;
        return 0; /* curl stops the transfer with CURLE_WRITE_ERROR */
    }
    memcpy(lane->dest + lane->received, data, n);
    lane->received += n;
    return n;
}

static struct hfp_staging_pool *staging_pool_for(struct remote *rb, int device)
{
    if (device < 0 || device >= (int)(sizeof(rb->staging) / sizeof(rb->staging[0])))
        return NULL;
    pthread_mutex_lock(&rb->staging_lock);
    struct hfp_staging_pool *pool = rb->staging[device];
    if (pool == NULL) {
        struct remote_settings set;
        remote_settings_read(rb->host, &set);
        if (hfp_staging_pool_create(rb->host, set.piece_size, set.connections, device, &pool) == 0)
            rb->staging[device] = pool;
    }
    pthread_mutex_unlock(&rb->staging_lock);
    return pool;
}

void remote_staging_prepare(struct remote *rb)
{
    const struct hf_gpu_ops *gpu = rb->host->gpu;
    int device = -1, integrated = 0;
    if (gpu->get_device(&device) != 0 || device < 0 ||
        device >= (int)(sizeof(rb->staging) / sizeof(rb->staging[0])))
        return;
    /* Memory of an integrated GPU (and of the host runtime) is read without staging. */
    if (gpu->device_attribute(device, HF_GPU_ATTR_INTEGRATED, &integrated) == 0 && integrated)
        return;
    struct hfp_staging_pool *pool = staging_pool_for(rb, device);
    pthread_mutex_lock(&rb->staging_lock);
    bool first = pool != NULL && !rb->staging_filled[device];
    if (first)
        rb->staging_filled[device] = true;
    pthread_mutex_unlock(&rb->staging_lock);
    int gpu_error = 0;
    /* A pool that could not be filled still makes slots on demand; the failure is logged. */
    if (first)
        (void)hfp_staging_pool_fill(pool, &gpu_error);
}

/* Start (or restart) the GET of the lane's current piece. */
static int lane_launch(struct lane *lane)
{
    struct read_job *job = lane->job;
    curl_easy_reset(lane->easy);
    curl_slist_free_all(lane->headers);
    lane->headers = NULL;
    int rc =
        remote_http_prepare(job->rb->host, lane->easy, job->obj, "GET", &lane->ans, &lane->headers);
    if (rc != 0)
        return rc;
    char range[64];
    snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, lane->offset,
             lane->offset + lane->length - 1);
    curl_easy_setopt(lane->easy, CURLOPT_RANGE, range);
    curl_easy_setopt(lane->easy, CURLOPT_WRITEFUNCTION, lane_receive);
    curl_easy_setopt(lane->easy, CURLOPT_WRITEDATA, lane);
    curl_easy_setopt(lane->easy, CURLOPT_PRIVATE, lane);
    lane->received = 0;
    lane->overflow = false;
    lane->retry_at_ns = 0;
    if (curl_multi_add_handle(job->session->multi, lane->easy) != CURLM_OK)
        return -ENOMEM;
    lane->active = true;
    return 0;
}

/* Give the lane the next piece, waiting until its staging buffer's last copy is done. */
static int lane_next_piece(struct lane *lane)
{
    struct read_job *job = lane->job;
    if (job->next_off >= job->total)
        return 0;
    size_t rel = job->next_off;
    size_t len = job->total - rel < job->piece ? job->total - rel : job->piece;
    job->next_off += len;
    lane->offset = job->start + rel;
    lane->length = len;
    lane->attempt = 0;
    if (lane->slot != NULL) {
        const struct hf_gpu_ops *gpu = job->rb->host->gpu;
        int err = gpu->stream_synchronize(lane->slot->stream[lane->buffer_index]);
        if (err != 0) {
            *job->req->gpu_error_p = err;
            return -HF_EGPU;
        }
        lane->dest = lane->slot->buffer[lane->buffer_index];
    } else {
        lane->dest = job->dst + rel;
    }
    return lane_launch(lane);
}

/*
 * The piece's answer is exactly what was asked: 0, or -errno with the reason in *why_p and in
 * *retry_p whether another attempt may succeed (a short body is a broken connection).
 */
static int piece_check(const struct lane *lane, const char **why_p, bool *retry_p)
{
    *retry_p = false;
    const struct remote_object *obj = lane->job->obj;
    const struct remote_answer *ans = &lane->ans;
    bool whole = lane->offset == 0 && lane->length == obj->size;
    if (ans->status == 200 && !whole) {
        *why_p = "the server ignored the Range header";
        return -EIO;
    }
    if (ans->status == 206) {
        uint64_t first = 0, last = 0, size = 0;
        if (sscanf(ans->content_range, "bytes %" SCNu64 "-%" SCNu64 "/%" SCNu64, &first, &last,
                   &size) != 3 ||
            first != lane->offset || last != lane->offset + lane->length - 1) {
            *why_p = "Content-Range is not the range asked for";
            return -EIO;
        }
        if (size != obj->size) {
            *why_p = "the object's size changed since it was opened";
            return -ESTALE;
        }
    }
    if (obj->etag[0] != '\0' && ans->etag[0] != '\0' && strcmp(obj->etag, ans->etag) != 0) {
        *why_p = "the object's ETag changed since it was opened";
        return -ESTALE;
    }
    if (lane->received != lane->length) {
        *why_p = "the body is shorter than the range";
        *retry_p = true;
        return -EIO;
    }
    return 0;
}

static void piece_log_failure(const struct lane *lane, int level, const char *what, int rc,
                              const char *tail)
{
    const struct hf_host_api *host = lane->job->rb->host;
    const struct remote_object *obj = lane->job->obj;
    char status[160];
    remote_http_describe(&lane->ans, status, sizeof(status));
    /* Both ETags: a store that rewrote the object and one that answers inconsistently differ. */
    char etags[2 * sizeof(obj->etag) + 16] = "";
    if (rc == -ESTALE && lane->ans.etag[0] != '\0' && strcmp(obj->etag, lane->ans.etag) != 0)
        snprintf(etags, sizeof(etags), ": %s, now %s", obj->etag, lane->ans.etag);
    host->log(host, level, "GET %s bytes %" PRIu64 "-%" PRIu64 ": %s%s%s%s (request id %s): %s%s",
              obj->url, lane->offset, lane->offset + lane->length - 1, status,
              what != NULL ? ", " : "", what != NULL ? what : "", etags,
              remote_request_id(&lane->ans), strerror(-rc), tail);
}

/* A transfer of @p lane ended with @p result: verify, copy, retry or fail. */
static int lane_finished(struct lane *lane, CURLcode result)
{
    struct read_job *job = lane->job;
    curl_multi_remove_handle(job->session->multi, lane->easy);
    lane->active = false;
    lane->ans.curl_rc = result;
    curl_easy_getinfo(lane->easy, CURLINFO_RESPONSE_CODE, &lane->ans.status);

    const char *why = NULL;
    bool retry_ok;
    int rc;
    if (lane->overflow) {
        why = "the server sent more than the range";
        rc = -EIO;
        retry_ok = false;
    } else {
        long want = lane->offset == 0 && lane->length == job->obj->size && lane->ans.status == 200
                        ? 200
                        : 206;
        rc = remote_http_errno(&lane->ans, want);
        retry_ok = remote_http_retryable(&lane->ans);
        if (rc == 0)
            rc = piece_check(lane, &why, &retry_ok);
    }
    if (rc != 0) {
        if (retry_ok && lane->attempt < job->obj->set.retries) {
            lane->attempt++;
            unsigned wait_ms = remote_backoff_ms(&job->obj->set, lane->attempt);
            char tail[80];
            snprintf(tail, sizeof(tail), "; retry %u of %u in %u ms", lane->attempt,
                     job->obj->set.retries, wait_ms);
            piece_log_failure(lane, HF_LOG_WARN, why, rc, tail);
            lane->retry_at_ns = now_ns() + (uint64_t)wait_ms * 1000000u + 1;
            return 0;
        }
        char tail[64] = "";
        if (lane->attempt > 0)
            snprintf(tail, sizeof(tail), " after %u attempts", lane->attempt + 1);
        piece_log_failure(lane, HF_LOG_ERROR, why, rc, tail);
        return rc;
    }
    if (lane->slot != NULL) {
        const struct hf_gpu_ops *gpu = job->rb->host->gpu;
        int b = lane->buffer_index;
        int err = gpu->memcpy_async(job->dst + (lane->offset - job->start), lane->slot->buffer[b],
                                    lane->length, lane->slot->stream[b]);
        if (err != 0) {
            job->rb->host->log(job->rb->host, HF_LOG_ERROR,
                               "copy of %zu bytes of %s to the GPU failed: %s", lane->length,
                               job->obj->url, gpu->error_string(err));
            *job->req->gpu_error_p = err;
            return -HF_EGPU;
        }
        lane->buffer_index ^= 1;
    }
    return lane_next_piece(lane);
}

/* Wait for curl's sockets, but no longer than until the earliest pending retry. */
static int lanes_wait(struct read_job *job, struct lane *lanes, unsigned n)
{
    uint64_t now = now_ns();
    int timeout_ms = 100;
    for (unsigned i = 0; i < n; i++) {
        if (lanes[i].retry_at_ns == 0)
            continue;
        if (lanes[i].retry_at_ns <= now) {
            int rc = lane_launch(&lanes[i]);
            if (rc != 0)
                return rc;
            continue;
        }
        uint64_t wait = (lanes[i].retry_at_ns - now) / 1000000u + 1;
        if (wait < (uint64_t)timeout_ms)
            timeout_ms = (int)wait;
    }
    if (curl_multi_poll(job->session->multi, NULL, 0, timeout_ms, NULL) != CURLM_OK)
        return -EIO;
    return 0;
}

static bool lanes_busy(const struct lane *lanes, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (lanes[i].active || lanes[i].retry_at_ns != 0)
            return true;
    }
    return false;
}

static int job_run(struct read_job *job, struct lane *lanes, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        int rc = lane_next_piece(&lanes[i]);
        if (rc != 0)
            return rc;
    }
    while (lanes_busy(lanes, n)) {
        int running = 0;
        if (curl_multi_perform(job->session->multi, &running) != CURLM_OK)
            return -EIO;
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(job->session->multi, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct lane *lane = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&lane);
            int rc = lane_finished(lane, msg->data.result);
            if (rc != 0)
                return rc;
        }
        if (lanes_busy(lanes, n)) {
            int rc = lanes_wait(job, lanes, n);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* Take staging slots for up to @p want lanes (at least one); returns how many lanes got one. */
static unsigned lanes_take_slots(struct hfp_staging_pool *pool, struct lane *lanes, unsigned want,
                                 int *gpu_err_p, int *rc_p)
{
    *rc_p = hfp_staging_pool_take(pool, &lanes[0].slot, gpu_err_p);
    if (*rc_p != 0)
        return 0;
    unsigned n = 1;
    while (n < want && hfp_staging_pool_try_take(pool, &lanes[n].slot, gpu_err_p) == 0)
        n++;
    return n;
}

static void lanes_release(struct read_job *job, struct hfp_staging_pool *pool, struct lane *lanes,
                          unsigned n)
{
    const struct hf_gpu_ops *gpu = job->rb->host->gpu;
    for (unsigned i = 0; i < n; i++) {
        if (lanes[i].active)
            curl_multi_remove_handle(job->session->multi, lanes[i].easy);
        curl_slist_free_all(lanes[i].headers);
        if (lanes[i].slot == NULL)
            continue;
        bool failed = false;
        for (int b = 0; b < HF_STAGING_SLOT_BUFFERS; b++)
            failed = gpu->stream_synchronize(lanes[i].slot->stream[b]) != 0 || failed;
        if (failed)
            hfp_staging_pool_discard(pool, lanes[i].slot);
        else
            hfp_staging_pool_give(pool, lanes[i].slot);
    }
}

/* The copies queued last must have landed before the read returns. */
static int lanes_drain(struct read_job *job, struct lane *lanes, unsigned n)
{
    const struct hf_gpu_ops *gpu = job->rb->host->gpu;
    for (unsigned i = 0; i < n; i++) {
        if (lanes[i].slot == NULL)
            continue;
        for (int b = 0; b < HF_STAGING_SLOT_BUFFERS; b++) {
            int err = gpu->stream_synchronize(lanes[i].slot->stream[b]);
            if (err != 0) {
                *job->req->gpu_error_p = err;
                return -HF_EGPU;
            }
        }
    }
    return 0;
}

ssize_t remote_read(struct remote *rb, const struct hf_io_request *req)
{
    const struct remote_object *obj = req->file_ctx;
    const struct hf_buf_info *buf = req->buf;
    uint64_t start = (uint64_t)req->file_offset;
    if (start >= obj->size)
        return 0;
    size_t total = obj->size - start < req->size ? (size_t)(obj->size - start) : req->size;

    struct read_job job = {
        .rb = rb,
        .obj = obj,
        .req = req,
        .dst = (char *)buf->base + req->buf_offset,
        .start = start,
        .total = total,
        .piece = obj->set.piece_size,
    };
    bool staged = !buf->host_accessible ||
                  (buf->mem_type == HF_MEM_DEVICE && obj->set.bounce_host_accessible);
    struct hfp_staging_pool *pool = NULL;
    int previous = -1;
    if (staged) {
        int rc = hfp_device_enter(rb->host, buf->device, &previous, req->gpu_error_p);
        if (rc != 0)
            return rc;
        pool = staging_pool_for(rb, buf->device);
        if (pool == NULL) {
            rb->host->log(rb->host, HF_LOG_ERROR, "no staging memory for GPU %d", buf->device);
            hfp_device_restore(rb->host, previous);
            return -ENOMEM;
        }
        size_t staging = hfp_staging_pool_buffer_size(pool);
        if (job.piece > staging)
            job.piece = staging;
    }
    uint64_t pieces = (total + job.piece - 1) / job.piece;
    unsigned want = obj->set.connections < pieces ? obj->set.connections : (unsigned)pieces;
    struct lane *lanes = calloc(want, sizeof(*lanes));
    job.session = remote_pool_take(rb->pool);
    int rc = lanes == NULL || job.session == NULL ? -ENOMEM : 0;
    unsigned n = want;
    if (rc == 0 && staged)
        n = lanes_take_slots(pool, lanes, want, req->gpu_error_p, &rc);
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        lanes[i].job = &job;
        lanes[i].easy = remote_session_easy(job.session, i);
        if (lanes[i].easy == NULL)
            rc = -ENOMEM;
    }
    if (rc == 0)
        rc = job_run(&job, lanes, n);
    if (rc == 0)
        rc = lanes_drain(&job, lanes, n);
    if (lanes != NULL)
        lanes_release(&job, pool, lanes, n);
    if (job.session != NULL)
        remote_pool_give(rb->pool, job.session);
    free(lanes);
    if (staged)
        hfp_device_restore(rb->host, previous);
    return rc != 0 ? rc : (ssize_t)total;
}
