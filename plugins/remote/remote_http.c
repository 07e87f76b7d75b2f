/*
 * One HTTP exchange of the remote backend: the options every request sets, the response headers
 * it checks (ETag, Content-Range, the request id a server gives for its logs), what a status or a
 * transfer error means (retry, or which errno), and opening an object with a HEAD.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "remote_internal.h"
#include "s3_sigv4.h"
#include "s3_status.h"

static void header_copy(char *dst, size_t dst_size, const char *value, size_t len)
{
    while (len > 0 && (value[len - 1] == '\r' || value[len - 1] == '\n' || value[len - 1] == ' '))
        len--;
    while (len > 0 && *value == ' ') {
        value++;
        len--;
    }
    if (len >= dst_size)
        len = dst_size - 1;
    memcpy(dst, value, len);
    dst[len] = '\0';
}

static bool header_is(const char *line, size_t len, const char *name, const char **value_p)
{
    size_t n = strlen(name);
    if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
        return false;
    *value_p = line + n + 1;
    return true;
}

/*
 * Headers arrive one line at a time; a new status line (redirect, 100) starts a fresh answer.
 * Returning less than the line's length stops the transfer (CURLE_WRITE_ERROR), which is how a
 * header above the limit ends the exchange.
 */
static size_t header_line(char *line, size_t size, size_t nitems, void *userdata)
{
    struct remote_answer *ans = userdata;
    size_t len = size * nitems;
    const char *value;
    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        ans->etag[0] = ans->content_range[0] = ans->request_id[0] = '\0';
        ans->content_length = -1;
        ans->header_bytes = 0;
        ans->headers_done = false;
    }
    ans->header_bytes += len;
    if (ans->header_bytes > (size_t)REMOTE_HEADER_MAX_KIB * 1024) {
        ans->header_too_large = true;
        return 0;
    }
    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        /* The status line: nothing more to read from it. */
    } else if ((len == 2 && line[0] == '\r' && line[1] == '\n') || (len == 1 && line[0] == '\n')) {
        ans->headers_done = true;
    } else if (header_is(line, len, "etag", &value)) {
        header_copy(ans->etag, sizeof(ans->etag), value, len - (size_t)(value - line));
    } else if (header_is(line, len, "content-range", &value)) {
        header_copy(ans->content_range, sizeof(ans->content_range), value,
                    len - (size_t)(value - line));
    } else if (header_is(line, len, "x-amz-request-id", &value) ||
               (ans->request_id[0] == '\0' && header_is(line, len, "x-request-id", &value))) {
        header_copy(ans->request_id, sizeof(ans->request_id), value, len - (size_t)(value - line));
    } else if (header_is(line, len, "content-length", &value)) {
        ans->content_length = strtoll(value, NULL, 10);
    }
    return len;
}

/* SigV4 over the request as sent: method, URL, the body's hash; Range and If-Match stay unsigned.
 */
static int s3_sign_request(const struct hf_host_api *host, const struct remote_object *obj,
                           const char *method, const char *url, const char *payload_sha256,
                           struct curl_slist **headers_p)
{
    char empty_sha256[65];
    s3_sha256_hex("", 0, empty_sha256);
    struct s3_sign_input in = {
        .method = method,
        .url = url,
        .headers = NULL,
        .payload_sha256 = payload_sha256 != NULL ? payload_sha256 : empty_sha256,
        .region = obj->s3_set.region,
        .service = "s3",
        .now = time(NULL),
    };
    struct s3_signed_headers signed_headers;
    int rc = s3_sign(&in, &obj->cred, &signed_headers);
    if (rc != 0) {
        host->log(host, HF_LOG_ERROR, "%s %s: cannot sign the request: %s", method, url,
                  strerror(-rc));
        return rc;
    }
    for (unsigned i = 0; i < signed_headers.count; i++) {
        struct curl_slist *grown = curl_slist_append(*headers_p, signed_headers.lines[i]);
        if (grown == NULL)
            return -ENOMEM;
        *headers_p = grown;
    }
    return 0;
}

static int http_prepare(const struct hf_host_api *host, CURL *easy, const struct remote_object *obj,
                        const char *method, const char *url, const char *payload_sha256,
                        bool if_match, struct remote_answer *ans, struct curl_slist **headers_p);

int remote_http_prepare(const struct hf_host_api *host, CURL *easy, const struct remote_object *obj,
                        const char *method, struct remote_answer *ans,
                        struct curl_slist **headers_p)
{
    return http_prepare(host, easy, obj, method, obj->url, NULL, true, ans, headers_p);
}

int remote_http_prepare_to(const struct hf_host_api *host, CURL *easy,
                           const struct remote_object *obj, const char *method, const char *url,
                           const char *payload_sha256, struct remote_answer *ans,
                           struct curl_slist **headers_p)
{
    return http_prepare(host, easy, obj, method, url != NULL ? url : obj->url, payload_sha256,
                        false, ans, headers_p);
}

static int http_prepare(const struct hf_host_api *host, CURL *easy, const struct remote_object *obj,
                        const char *method, const char *url, const char *payload_sha256,
                        bool if_match, struct remote_answer *ans, struct curl_slist **headers_p)
{
    memset(ans, 0, sizeof(*ans));
    ans->content_length = -1;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    /* Signals would hit the application's threads; timeouts are checked by curl itself. */
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, obj->set.connect_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, obj->set.stall_timeout_s);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, obj->set.request_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, obj->set.tls_verify ? 1L : 0L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, obj->set.tls_verify ? 2L : 0L);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, header_line);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, ans);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    *headers_p = NULL;
    /* Pin the object: a server that honours If-Match answers 412 once the object changed. */
    if (if_match && obj->etag[0] != '\0') {
        char line[300];
        snprintf(line, sizeof(line), "If-Match: %s", obj->etag);
        *headers_p = curl_slist_append(NULL, line);
        if (*headers_p == NULL)
            return -ENOMEM;
    }
    if (obj->s3) {
        int rc = s3_sign_request(host, obj, method, url, payload_sha256, headers_p);
        if (rc != 0)
            return rc;
    }
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, *headers_p);
    return 0;
}

void remote_http_keep_error_body(struct remote_answer *ans, const char *data, size_t n)
{
    size_t room = sizeof(ans->error_body) - 1 - ans->error_body_len;
    if (n > room)
        n = room;
    memcpy(ans->error_body + ans->error_body_len, data, n);
    ans->error_body_len += n;
    ans->error_body[ans->error_body_len] = '\0';
}

/*
 * A header line above libcurl's own limit (CURL_MAX_HTTP_HEADER, 100 KiB) never reaches
 * header_line: libcurl before 8.6 fails the transfer with CURLE_OUT_OF_MEMORY, later ones with
 * CURLE_TOO_LARGE. Either while the header is still arriving is that limit, not memory, and the
 * line was above ours too.
 */
static bool header_too_large(const struct remote_answer *ans)
{
    if (ans->header_too_large)
        return true;
    if (ans->headers_done)
        return false;
#if LIBCURL_VERSION_NUM >= 0x080600
    if (ans->curl_rc == CURLE_TOO_LARGE)
        return true;
#endif
    return ans->curl_rc == CURLE_OUT_OF_MEMORY;
}

bool remote_http_retryable(const struct remote_answer *ans)
{
    /* The same server sends the same header again. */
    if (header_too_large(ans))
        return false;
    switch (ans->curl_rc) {
    case CURLE_OK:
        /* Throttling (429, S3's 503 SlowDown) and server-side failures pass; 501 never will. */
        return ans->status == 429 || (ans->status >= 500 && ans->status != 501);
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
        return true;
    default:
        return false;
    }
}

int remote_http_errno(const struct remote_answer *ans, long want_status)
{
    if (header_too_large(ans))
        return -EMSGSIZE;
    switch (ans->curl_rc) {
    case CURLE_OK:
        break;
    case CURLE_OPERATION_TIMEDOUT:
        return -ETIMEDOUT;
    case CURLE_COULDNT_CONNECT:
        return -ECONNREFUSED;
    case CURLE_COULDNT_RESOLVE_HOST:
        return -EHOSTUNREACH;
    case CURLE_OUT_OF_MEMORY:
        return -ENOMEM;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_WRITE_ERROR:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        return -EPROTO;
    default:
        return -EIO;
    }
    if (ans->status == want_status)
        return 0;
    switch (ans->status) {
    case 401:
    case 403:
        return -EACCES;
    case 404:
    case 410:
        return -ENOENT;
    /* The object is no longer the one opened (If-Match failed, or it shrank under the range). */
    case 412:
    case 416:
        return -ESTALE;
    default:
        return -EIO;
    }
}

void remote_http_describe(const struct remote_answer *ans, char *text, size_t text_size)
{
    if (header_too_large(ans)) {
        snprintf(text, text_size, "the response header exceeds the %d KiB limit",
                 REMOTE_HEADER_MAX_KIB);
        return;
    }
    if (ans->curl_rc != CURLE_OK) {
        snprintf(text, text_size, "%s (HTTP %ld)", curl_easy_strerror(ans->curl_rc), ans->status);
        return;
    }
    /* S3 and its kin explain a failure in an <Error> body: its code says more than the status. */
    struct s3_failure f;
    s3_failure_read(ans->status, ans->error_body, ans->error_body_len,
                    ans->request_id[0] != '\0' ? ans->request_id : NULL, &f);
    int len = f.code[0] != '\0' ? snprintf(text, text_size, "HTTP %ld %s", ans->status, f.code)
                                : snprintf(text, text_size, "HTTP %ld", ans->status);
    /* S3's message goes last and alone is cut to fit: the status and the code always show. */
    if (f.code[0] != '\0' && f.message[0] != '\0' && len > 0 && (size_t)len < text_size)
        snprintf(text + len, text_size - (size_t)len, " (%s)", f.message);
}

unsigned remote_backoff_ms(const struct remote_settings *s, unsigned attempt)
{
    unsigned shift = attempt > 16 ? 15 : attempt - 1;
    uint64_t ms = (uint64_t)s->backoff_base_ms << shift;
    /* Up to a quarter more, so clients failed by one event do not retry in lockstep. */
    if (ms > 0)
        ms += (uint64_t)rand() % (ms / 4 + 1);
    return ms > 60000 ? 60000 : (unsigned)ms;
}

void remote_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

const char *remote_request_id(const struct remote_answer *ans)
{
    return ans->request_id[0] != '\0' ? ans->request_id : "none";
}

/* Most body bytes the one-byte GET below takes: its byte, or an error's text. More (a server that
 * ignores Range and sends the whole object) ends the transfer, its headers already in. */
#define PROBE_BODY_MAX (64 * 1024)

static size_t probe_receive(char *data, size_t size, size_t nmemb, void *userdata)
{
    (void)data;
    size_t *got = userdata;
    *got += size * nmemb;
    return *got <= PROBE_BODY_MAX ? size * nmemb : 0;
}

/*
 * One exchange that learns about the object (obj->etag is still empty: no If-Match): a HEAD, or
 * with @p range a GET of those bytes whose body goes to probe_receive. The answer is in *ans.
 */
static int ask_once(const struct hf_host_api *host, struct remote_session *session,
                    struct remote_object *obj, const char *range, struct remote_answer *ans)
{
    CURL *easy = remote_session_easy(session, 0);
    if (easy == NULL)
        return -ENOMEM;
    struct curl_slist *headers = NULL;
    int rc = remote_http_prepare(host, easy, obj, range == NULL ? "HEAD" : "GET", ans, &headers);
    if (rc != 0) {
        curl_slist_free_all(headers);
        return rc;
    }
    size_t got = 0;
    if (range == NULL) {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else {
        curl_easy_setopt(easy, CURLOPT_RANGE, range);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, probe_receive);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &got);
    }
    ans->curl_rc = remote_session_perform(session, easy);
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &ans->status);
    curl_slist_free_all(headers);
    return 0;
}

/* Learn the object's size and ETag. */
static int head_once(const struct hf_host_api *host, struct remote_session *session,
                     struct remote_object *obj, struct remote_answer *ans)
{
    int rc = ask_once(host, session, obj, NULL, ans);
    return rc != 0 ? rc : remote_http_errno(ans, 200);
}

/*
 * The size and ETag of an object whose server refuses HEAD: a presigned URL signs its method, so
 * S3 answers 403 to a HEAD of a URL presigned for GET, and some servers answer 405. A GET of the
 * first byte gives both: the total after the slash of "Content-Range: bytes 0-0/SIZE" (206), or
 * of the 416 an empty object gets, or the whole length of a 200 from a server ignoring Range.
 */
static int probe_once(const struct hf_host_api *host, struct remote_session *session,
                      struct remote_object *obj, struct remote_answer *ans, uint64_t *size_p)
{
    int rc = ask_once(host, session, obj, "0-0", ans);
    if (rc != 0)
        return rc;
    uint64_t first, last, total;
    if (ans->status == 206 && ans->curl_rc == CURLE_OK &&
        sscanf(ans->content_range, "bytes %" SCNu64 "-%" SCNu64 "/%" SCNu64, &first, &last,
               &total) == 3) {
        *size_p = total;
        return 0;
    }
    if (ans->status == 416 && sscanf(ans->content_range, "bytes */%" SCNu64, &total) == 1) {
        *size_p = total;
        return 0;
    }
    if (ans->status == 200 && ans->content_length >= 0) {
        *size_p = (uint64_t)ans->content_length;
        return 0;
    }
    rc = remote_http_errno(ans, 206);
    return rc != 0 ? rc : -EPROTO;
}

/* Whether a failed HEAD of @p obj may be a server refusing the method, to be asked by GET. */
static bool head_refused(const struct remote_object *obj, const struct remote_answer *ans)
{
    return !obj->s3 && ans->curl_rc == CURLE_OK && (ans->status == 403 || ans->status == 405);
}

int remote_http_head(struct remote *rb, struct remote_object *obj)
{
    const struct hf_host_api *host = rb->host;
    struct remote_session *session = remote_pool_take(rb->pool);
    if (session == NULL)
        return -ENOMEM;
    struct remote_answer ans;
    char why[160];
    int rc;
    for (unsigned attempt = 0;; attempt++) {
        rc = head_once(host, session, obj, &ans);
        if (rc == 0 || !remote_http_retryable(&ans) || attempt >= obj->set.retries)
            break;
        unsigned wait_ms = remote_backoff_ms(&obj->set, attempt + 1);
        remote_http_describe(&ans, why, sizeof(why));
        host->log(host, HF_LOG_WARN, "HEAD %s: %s (request id %s); retry %u of %u in %u ms",
                  obj->url, why, remote_request_id(&ans), attempt + 1, obj->set.retries, wait_ms);
        remote_sleep_ms(wait_ms);
    }
    if (rc != 0 && head_refused(obj, &ans)) {
        uint64_t size = 0;
        remote_http_describe(&ans, why, sizeof(why));
        host->log(host, HF_LOG_DEBUG, "HEAD %s: %s; asking for its first byte instead", obj->url,
                  why);
        rc = probe_once(host, session, obj, &ans, &size);
        remote_pool_give(rb->pool, session);
        if (rc != 0) {
            remote_http_describe(&ans, why, sizeof(why));
            host->log(host, HF_LOG_ERROR,
                      "%s refuses HEAD, and a GET of its first byte failed too: %s (request id "
                      "%s): %s",
                      obj->url, why, remote_request_id(&ans), strerror(-rc));
            return rc;
        }
        obj->size = size;
        memcpy(obj->etag, ans.etag, sizeof(obj->etag));
        host->log(host, HF_LOG_DEBUG, "opened %s by a one-byte GET: %" PRIu64 " bytes, ETag %s",
                  obj->url, obj->size, obj->etag[0] != '\0' ? obj->etag : "(none)");
        return 0;
    }
    remote_pool_give(rb->pool, session);
    if (rc != 0) {
        remote_http_describe(&ans, why, sizeof(why));
        host->log(host, HF_LOG_ERROR, "HEAD %s: %s (request id %s): %s", obj->url, why,
                  remote_request_id(&ans), strerror(-rc));
        return rc;
    }
    if (ans.content_length < 0) {
        host->log(host, HF_LOG_ERROR,
                  "HEAD %s: the server gives no Content-Length (request id %s), so the object's "
                  "size is unknown",
                  obj->url, remote_request_id(&ans));
        return -EPROTO;
    }
    obj->size = (uint64_t)ans.content_length;
    memcpy(obj->etag, ans.etag, sizeof(obj->etag));
    host->log(host, HF_LOG_DEBUG, "opened %s: %" PRIu64 " bytes, ETag %s", obj->url, obj->size,
              obj->etag[0] != '\0' ? obj->etag : "(none)");
    return 0;
}
