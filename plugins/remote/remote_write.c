/*
 * Writing S3 objects. A write handle writes its object once and whole: one hipFileWrite at offset
 * 0 of the object's full size, because S3 has no partial update and an object appears only when
 * its upload completes. Up to the multipart threshold that is one PUT; above it a multipart
 * upload whose parts go up in parallel on the core's workers and which is aborted on any failure,
 * so a failed write never leaves an object, or a part of one, behind. Every body is signed with
 * its SHA-256, so the store rejects a body damaged on the way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/device_switch.h"
#include "remote_internal.h"
#include "s3_sigv4.h"
#include "s3_xml.h"

/* A request body sent from memory. */
struct body_source {
    const char *data;
    size_t size;
    size_t sent;
};

/* What a response body is kept in: the S3 documents we read are small. */
struct body_sink {
    char data[16384];
    size_t len;
};

static size_t body_read(char *buffer, size_t size, size_t nitems, void *userdata)
{
    struct body_source *src = userdata;
    size_t n = size * nitems;
    if (n > src->size - src->sent)
        n = src->size - src->sent;
    memcpy(buffer, src->data + src->sent, n);
    src->sent += n;
    return n;
}

static size_t body_keep(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct body_sink *sink = userdata;
    size_t n = size * nmemb;
    size_t room = sizeof(sink->data) - 1 - sink->len;
    size_t kept = n < room ? n : room;
    memcpy(sink->data + sink->len, data, kept);
    sink->len += kept;
    sink->data[sink->len] = '\0';
    return n;
}

/* Set the method and body of one attempt. */
static void exchange_body(CURL *easy, const char *method, struct body_source *src)
{
    if (strcmp(method, "PUT") == 0) {
        curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(easy, CURLOPT_READFUNCTION, body_read);
        curl_easy_setopt(easy, CURLOPT_READDATA, src);
        curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)src->size);
    } else if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(easy, CURLOPT_POST, 1L);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, src->data);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)src->size);
    } else if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    }
}

/*
 * One signed S3 request with @p body, retried as reads are. @p query selects the sub-resource
 * ("uploads", "partNumber=3&uploadId=ID"; NULL for the object), @p key_override the key (NULL:
 * the object's; "" for the bucket). The answer's headers land in *ans, its body in *sink.
 * Returns 0 for @p want_status without an <Error> body, else -errno (logged).
 */
static int s3_exchange(struct remote *rb, const struct remote_object *obj, const char *method,
                       const char *query, const char *key_override, const void *body,
                       size_t body_size, long want_status, struct remote_answer *ans,
                       struct body_sink *sink)
{
    const struct hf_host_api *host = rb->host;
    struct s3_location loc = obj->loc;
    if (key_override != NULL)
        snprintf(loc.key, sizeof(loc.key), "%s", key_override);
    char url[4096], host_header[512];
    int rc = s3_request_url(&obj->s3_set, &loc, query, url, sizeof(url), host_header,
                            sizeof(host_header));
    if (rc != 0) {
        host->log(host, HF_LOG_ERROR, "%s: cannot build the request URL: %s", obj->url,
                  strerror(-rc));
        return rc;
    }
    char sha256[65];
    s3_sha256_hex(body != NULL ? body : "", body_size, sha256);
    struct remote_session *session = remote_pool_take(rb->pool);
    CURL *easy = session != NULL ? remote_session_easy(session, 0) : NULL;
    if (easy == NULL) {
        if (session != NULL)
            remote_pool_give(rb->pool, session);
        return -ENOMEM;
    }
    char why[400];
    for (unsigned attempt = 0;; attempt++) {
        struct curl_slist *headers = NULL;
        struct body_source src = {.data = body, .size = body_size};
        sink->len = 0;
        sink->data[0] = '\0';
        curl_easy_reset(easy);
        rc = remote_http_prepare_to(host, easy, obj, method, url, sha256, ans, &headers);
        /* No 100-continue round trip: the body is signed, the store checks it anyway. */
        struct curl_slist *grown = rc == 0 ? curl_slist_append(headers, "Expect:") : NULL;
        if (rc == 0 && grown == NULL)
            rc = -ENOMEM;
        if (rc != 0) {
            curl_slist_free_all(headers);
            break;
        }
        headers = grown;
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        exchange_body(easy, method, &src);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, body_keep);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, sink);
        ans->curl_rc = remote_session_perform(session, easy);
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &ans->status);
        curl_slist_free_all(headers);
        remote_http_keep_error_body(ans, sink->data, sink->len);
        rc = remote_http_errno(ans, want_status);
        /* CompleteMultipartUpload may answer 200 and then report a failure in the body. */
        bool error_body = rc == 0 && strstr(sink->data, "<Error>") != NULL;
        if (error_body)
            rc = -EIO;
        if (rc == 0)
            break;
        remote_http_describe(ans, why, sizeof(why));
        if ((remote_http_retryable(ans) || error_body) && attempt < obj->set.retries) {
            unsigned wait_ms = remote_backoff_ms(&obj->set, attempt + 1);
            host->log(host, HF_LOG_WARN, "%s %s: %s (request id %s); retry %u of %u in %u ms",
                      method, url, why, remote_request_id(ans), attempt + 1, obj->set.retries,
                      wait_ms);
            remote_sleep_ms(wait_ms);
            continue;
        }
        host->log(host, HF_LOG_ERROR, "%s %s: %s (request id %s): %s", method, url, why,
                  remote_request_id(ans), strerror(-rc));
        break;
    }
    remote_pool_give(rb->pool, session);
    return rc;
}

int remote_write_open(struct remote *rb, struct remote_object *obj)
{
    struct remote_answer ans;
    struct body_sink *sink = malloc(sizeof(*sink));
    if (sink == NULL)
        return -ENOMEM;
    /* HEAD on the bucket: a missing bucket or refused keys fail the open, not the write. */
    int rc = s3_exchange(rb, obj, "HEAD", NULL, "", NULL, 0, 200, &ans, sink);
    free(sink);
    return rc;
}

/* A multipart upload in flight: its id and what each part's upload gave. */
struct multipart {
    struct remote *rb;
    const struct remote_object *obj;
    const struct hf_io_request *req;
    const char *src;     /* the caller's memory, or NULL when it must be copied out */
    const char *dev_src; /* device memory to copy parts from when src is NULL */
    char upload_id[1024];
    size_t size;
    size_t part_size;
    char (*etags)[256];
    int *results;
};

/* Upload part @p index (1-based part index + 1 on the wire); results[index] gets 0 or -errno. */
static void part_upload(void *arg, unsigned index)
{
    struct multipart *mp = arg;
    size_t offset = (size_t)index * mp->part_size;
    size_t len = mp->size - offset < mp->part_size ? mp->size - offset : mp->part_size;
    const char *data = mp->src != NULL ? mp->src + offset : NULL;
    char *bounce = NULL;
    int rc = 0;
    if (data == NULL) {
        /* Memory the CPU cannot read: the part goes through a host copy. */
        const struct hf_gpu_ops *gpu = mp->rb->host->gpu;
        bounce = malloc(len);
        int err = bounce == NULL ? 0 : gpu->memcpy_sync(bounce, mp->dev_src + offset, len);
        if (bounce == NULL)
            rc = -ENOMEM;
        else if (err != 0) {
            *mp->req->gpu_error_p = err;
            rc = -HF_EGPU;
        }
        data = bounce;
    }
    struct body_sink *sink = rc == 0 ? malloc(sizeof(*sink)) : NULL;
    if (rc == 0 && sink == NULL)
        rc = -ENOMEM;
    if (rc == 0) {
        char query[1200];
        snprintf(query, sizeof(query), "partNumber=%u&uploadId=%s", index + 1, mp->upload_id);
        struct remote_answer ans;
        rc = s3_exchange(mp->rb, mp->obj, "PUT", query, NULL, data, len, 200, &ans, sink);
        if (rc == 0 && ans.etag[0] == '\0') {
            mp->rb->host->log(mp->rb->host, HF_LOG_ERROR,
                              "%s: part %u of upload %s came back without an ETag", mp->obj->url,
                              index + 1, mp->upload_id);
            rc = -EIO;
        }
        if (rc == 0)
            snprintf(mp->etags[index], sizeof(mp->etags[index]), "%s", ans.etag);
    }
    free(sink);
    free(bounce);
    mp->results[index] = rc;
}

static int multipart_complete(struct multipart *mp, unsigned parts, struct body_sink *sink)
{
    const char **etags = calloc(parts, sizeof(*etags));
    if (etags == NULL)
        return -ENOMEM;
    for (unsigned i = 0; i < parts; i++)
        etags[i] = mp->etags[i];
    size_t body_size = 0;
    char *body = s3_xml_complete_body(etags, parts, &body_size);
    free(etags);
    if (body == NULL)
        return -ENOMEM;
    char query[1100];
    snprintf(query, sizeof(query), "uploadId=%s", mp->upload_id);
    struct remote_answer ans;
    int rc = s3_exchange(mp->rb, mp->obj, "POST", query, NULL, body, body_size, 200, &ans, sink);
    free(body);
    return rc;
}

static int multipart_upload(struct multipart *mp, struct body_sink *sink)
{
    struct remote *rb = mp->rb;
    const struct hf_host_api *host = rb->host;
    struct remote_answer ans;
    int rc = s3_exchange(rb, mp->obj, "POST", "uploads", NULL, "", 0, 200, &ans, sink);
    if (rc != 0)
        return rc;
    rc = s3_xml_upload_id(sink->data, sink->len, mp->upload_id, sizeof(mp->upload_id));
    if (rc != 0) {
        host->log(host, HF_LOG_ERROR,
                  "%s: the store's answer to starting an upload has no "
                  "UploadId (request id %s)",
                  mp->obj->url, remote_request_id(&ans));
        return -EIO;
    }
    unsigned parts = (unsigned)((mp->size + mp->part_size - 1) / mp->part_size);
    mp->etags = calloc(parts, sizeof(*mp->etags));
    mp->results = calloc(parts, sizeof(*mp->results));
    rc = mp->etags == NULL || mp->results == NULL ? -ENOMEM : 0;
    if (rc == 0)
        rc = host->parallel_run(host, parts, part_upload, mp);
    for (unsigned i = 0; rc == 0 && i < parts; i++)
        rc = mp->results[i];
    if (rc == 0)
        rc = multipart_complete(mp, parts, sink);
    if (rc == 0)
        host->log(host, HF_LOG_DEBUG, "%s: %zu bytes written by multipart upload %s of %u parts",
                  mp->obj->url, mp->size, mp->upload_id, parts);
    if (rc != 0) {
        /* Abort, so the store drops the parts and no object appears. */
        char query[1100];
        snprintf(query, sizeof(query), "uploadId=%s", mp->upload_id);
        int abort_rc = s3_exchange(rb, mp->obj, "DELETE", query, NULL, NULL, 0, 204, &ans, sink);
        host->log(host, abort_rc == 0 ? HF_LOG_WARN : HF_LOG_ERROR, "%s: multipart upload %s %s",
                  mp->obj->url, mp->upload_id,
                  abort_rc == 0 ? "aborted after the failure above"
                                : "could not be aborted; the store keeps its parts until its "
                                  "lifecycle rules drop them");
    }
    free(mp->etags);
    free(mp->results);
    return rc;
}

static int single_put(struct remote *rb, const struct remote_object *obj,
                      const struct hf_io_request *req, const char *src, const char *dev_src,
                      struct body_sink *sink)
{
    char *bounce = NULL;
    if (src == NULL) {
        bounce = malloc(req->size);
        if (bounce == NULL)
            return -ENOMEM;
        int err = rb->host->gpu->memcpy_sync(bounce, dev_src, req->size);
        if (err != 0) {
            free(bounce);
            *req->gpu_error_p = err;
            return -HF_EGPU;
        }
        src = bounce;
    }
    struct remote_answer ans;
    int rc = s3_exchange(rb, obj, "PUT", NULL, NULL, src, req->size, 200, &ans, sink);
    free(bounce);
    if (rc == 0)
        rb->host->log(rb->host, HF_LOG_DEBUG, "%s: %zu bytes written by one PUT", obj->url,
                      req->size);
    return rc;
}

ssize_t remote_write(struct remote *rb, const struct hf_io_request *req)
{
    struct remote_object *obj = req->file_ctx;
    const struct hf_host_api *host = rb->host;
    if (req->file_offset != 0) {
        host->log(host, HF_LOG_ERROR,
                  "%s: remote objects are written whole, by one hipFileWrite at offset 0; "
                  "offset %" PRId64 " refused",
                  obj->url, req->file_offset);
        return -EINVAL;
    }
    if (atomic_exchange(&obj->written, true)) {
        host->log(host, HF_LOG_ERROR,
                  "%s: this handle has written its object already; open the URL again to "
                  "replace it",
                  obj->url);
        return -EINVAL;
    }
    const char *base = (const char *)req->buf->base + req->buf_offset;
    bool readable = req->buf->host_accessible &&
                    !(req->buf->mem_type == HF_MEM_DEVICE && obj->set.bounce_host_accessible);
    struct body_sink *sink = malloc(sizeof(*sink));
    if (sink == NULL)
        return -ENOMEM;
    int previous = -1;
    int rc = readable ? 0 : hfp_device_enter(host, req->buf->device, &previous, req->gpu_error_p);
    if (rc == 0 && req->size <= obj->set.multipart_threshold) {
        rc = single_put(rb, obj, req, readable ? base : NULL, base, sink);
    } else if (rc == 0) {
        struct multipart mp = {
            .rb = rb,
            .obj = obj,
            .req = req,
            .src = readable ? base : NULL,
            .dev_src = base,
            .size = req->size,
            .part_size = obj->set.part_size,
        };
        rc = multipart_upload(&mp, sink);
    }
    if (!readable)
        hfp_device_restore(host, previous);
    free(sink);
    return rc != 0 ? rc : (ssize_t)req->size;
}
