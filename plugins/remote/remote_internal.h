/*
 * The remote backend's shared state and the pieces its files share: settings (remote_settings.c),
 * the pool of reusable HTTP connections (remote_pool.c), one HTTP exchange and what its answer
 * means (remote_http.c), and parallel ranged reads into GPU memory (remote_read.c).
 */
#ifndef HF_REMOTE_INTERNAL_H
#define HF_REMOTE_INTERNAL_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/staging_pool.h"
#include "hipfile/backend.h"
#include "s3_credentials.h"
#include "s3_url.h"

/** Keys of the remote config group, in the order of remote_setting_decls. */
enum remote_setting {
    REMOTE_SET_PIECE_SIZE,
    REMOTE_SET_CONNECTIONS,
    REMOTE_SET_RETRIES,
    REMOTE_SET_BACKOFF_BASE,
    REMOTE_SET_CONNECT_TIMEOUT,
    REMOTE_SET_STALL_TIMEOUT,
    REMOTE_SET_REQUEST_TIMEOUT,
    REMOTE_SET_TLS_VERIFY,
    REMOTE_SET_BOUNCE_HOST_ACCESSIBLE,
    REMOTE_SET_MULTIPART_THRESHOLD,
    REMOTE_SET_PART_SIZE,
    REMOTE_SETTING_COUNT,
};

/** The declarations of the remote config group's keys (remote_settings.c). */
extern const struct hf_setting_decl remote_setting_decls[REMOTE_SETTING_COUNT];

/** The settings one object uses: the config group's, overridden by its open options. */
struct remote_settings {
    uint64_t piece_size;          /**< bytes per ranged GET */
    unsigned connections;         /**< ranged GETs in flight for one read */
    unsigned retries;             /**< attempts after the first for a retryable failure */
    unsigned backoff_base_ms;     /**< wait before the first retry; doubles each time */
    long connect_timeout_ms;      /**< TCP/TLS connect limit */
    long stall_timeout_s;         /**< a transfer with no byte for this long fails */
    long request_timeout_ms;      /**< whole-request limit, 0 = none */
    bool tls_verify;              /**< verify the server's certificate and name */
    bool bounce_host_accessible;  /**< stage device memory even when the CPU can address it */
    uint64_t multipart_threshold; /**< larger writes are multipart uploads */
    uint64_t part_size;           /**< bytes per part of a multipart upload */
};

/** Fill @p s from the config group. */
void remote_settings_read(const struct hf_host_api *host, struct remote_settings *s);

/**
 * Apply @p options ("key=value;key=value", NULL or empty for none) over @p s; every value must be
 * valid for its key. Pairs whose key is not a remote setting go to @p rest (';'-separated, for the
 * S3 settings) when it is not NULL, and are refused otherwise. Returns 0 or -EINVAL (logged).
 */
int remote_settings_apply_options(const struct hf_host_api *host, const char *options,
                                  struct remote_settings *s, char *rest, size_t rest_size);

/**
 * A set of connections one request uses at a time: a curl multi handle, whose connection cache
 * keeps connections open between requests, and the easy handles run in it. Sessions are reused
 * rather than curl's shared connection cache, which libcurl does not support across threads.
 */
struct remote_session {
    CURLM *multi;                /**< runs the transfers; owns the connection cache */
    CURL **easy;                 /**< easy handles, made on demand */
    unsigned easy_count;         /**< entries of easy[] made so far */
    unsigned easy_cap;           /**< size of easy[] */
    struct remote_session *next; /**< the pool's free list */
};

/** The backend's reusable sessions. */
struct remote_pool;

/** Create an empty pool. Returns 0 or -ENOMEM. */
int remote_pool_create(struct remote_pool **pool_p);
/** Free every session; all must have been given back. */
void remote_pool_destroy(struct remote_pool *pool);
/** A free session, or a new one; NULL when out of memory. */
struct remote_session *remote_pool_take(struct remote_pool *pool);
/** Hand @p session back for the next request. */
void remote_pool_give(struct remote_pool *pool, struct remote_session *session);
/** Easy handle @p index of @p session (made on first use), reset to defaults; NULL on ENOMEM. */
CURL *remote_session_easy(struct remote_session *session, unsigned index);
/** Run @p easy alone in @p session until it finishes; curl's result. */
CURLcode remote_session_perform(struct remote_session *session, CURL *easy);

/** The backend's process-wide state. */
struct remote {
    const struct hf_host_api *host;
    struct remote_pool *pool;
    pthread_mutex_t staging_lock;         /**< guards staging[] */
    struct hfp_staging_pool *staging[64]; /**< per GPU, made on first staged read */
    bool staging_filled[64];              /**< staging[i] was filled at an open */
};

/** A registered object: what the open learnt, pinned for every later request. */
struct remote_object {
    char *url;                  /**< the URL requests go to (s3:// resolved to http(s)://) */
    bool s3;                    /**< requests are signed for S3 */
    struct s3_settings s3_set;  /**< region, endpoint, addressing (S3 only) */
    struct s3_credentials cred; /**< the signing keys (S3 only) */
    struct s3_location loc;     /**< bucket and key (S3 only) */
    bool writable;              /**< opened for writing: its size is what gets written */
    atomic_bool written;        /**< a write handle's one write has started */
    struct remote_settings set; /**< this object's settings */
    uint64_t size;              /**< Content-Length at open */
    char etag[256];             /**< ETag at open, "" when the server gives none */
};

/**
 * The most header bytes one answer may carry (every line of it, the status line included). Real
 * servers send a few KiB; a larger header is refused as what it is rather than as the "Out of
 * memory" libcurl reports for a header line above its own 100 KiB.
 */
#define REMOTE_HEADER_MAX_KIB 64

/** What one HTTP exchange gave: status, the headers we check, and the transfer's result. */
struct remote_answer {
    long status;             /**< HTTP status, 0 when none arrived */
    CURLcode curl_rc;        /**< curl's result */
    size_t header_bytes;     /**< bytes of the current answer's header so far */
    bool headers_done;       /**< the current answer's header ended (its empty line arrived) */
    bool header_too_large;   /**< the header passed REMOTE_HEADER_MAX_KIB: the exchange failed */
    char etag[256];          /**< ETag header, "" when absent */
    char content_range[128]; /**< Content-Range header, "" when absent */
    char request_id[128];    /**< x-amz-request-id or x-request-id, "" when absent */
    int64_t content_length;  /**< Content-Length header, -1 when absent */
    char error_body[2048];   /**< start of the body of a failed answer (S3's <Error>) */
    size_t error_body_len;   /**< bytes in error_body */
};

/**
 * Set the options every request of @p obj shares (URL, timeouts, TLS, header capture, If-Match,
 * the S3 signature for @p method with an empty body). The caller frees *headers_p after the
 * request. Returns 0 or -errno (a signature that cannot be made, logged).
 */
int remote_http_prepare(const struct hf_host_api *host, CURL *easy, const struct remote_object *obj,
                        const char *method, struct remote_answer *ans,
                        struct curl_slist **headers_p);

/**
 * remote_http_prepare for a request to @p url (obj->url when NULL) whose body has the SHA-256
 * @p payload_sha256 (lowercase hex; NULL for an empty body), without If-Match.
 */
int remote_http_prepare_to(const struct hf_host_api *host, CURL *easy,
                           const struct remote_object *obj, const char *method, const char *url,
                           const char *payload_sha256, struct remote_answer *ans,
                           struct curl_slist **headers_p);

/** Sleep @p ms milliseconds (a retry's backoff). */
void remote_sleep_ms(unsigned ms);

/** Keep up to sizeof(ans->error_body) bytes of a failed answer's body, for the log line. */
void remote_http_keep_error_body(struct remote_answer *ans, const char *data, size_t n);

/** Whether a failed exchange may succeed when tried again (5xx, throttling, broken connection). */
bool remote_http_retryable(const struct remote_answer *ans);

/**
 * The errno a finished exchange maps to for a request that expected @p want_status (0 when the
 * status was the one wanted, else -ENOENT, -EACCES, -ESTALE, -ETIMEDOUT, -ECONNREFUSED, -EIO...;
 * -EMSGSIZE for a header above REMOTE_HEADER_MAX_KIB).
 */
int remote_http_errno(const struct remote_answer *ans, long want_status);

/** Words for the failure in @p ans, for a log line ("HTTP 503", "timed out"). */
void remote_http_describe(const struct remote_answer *ans, char *text, size_t text_size);

/** The server's request id in @p ans, or "none", for log lines. */
const char *remote_request_id(const struct remote_answer *ans);

/** Milliseconds to wait before attempt @p attempt (1-based retry number). */
unsigned remote_backoff_ms(const struct remote_settings *s, unsigned attempt);

/** Open @p obj for reading: HEAD with retries; learns size and ETag. Returns 0 or -errno (logged).
 */
int remote_http_head(struct remote *rb, struct remote_object *obj);

/**
 * Get @p obj ready for its one write: the bucket must exist and take our credentials (HEAD on
 * the bucket). Returns 0 or -errno (logged).
 */
int remote_write_open(struct remote *rb, struct remote_object *obj);

/**
 * Write @p req to the object in req->file_ctx: the whole object at offset 0, as one PUT up to the
 * multipart threshold and as a multipart upload above it (aborted on failure). Bytes written or
 * -errno (logged).
 */
ssize_t remote_write(struct remote *rb, const struct hf_io_request *req);

/**
 * Make and fill the staging slots of the calling thread's GPU, unless its memory is read without
 * staging (an integrated GPU): called when an object is opened for reading, so that stream-ordered
 * reads, which run while the runtime holds an application stream, never create pinned memory or
 * streams (backend.h, stream_prepare, says why). Once per GPU; failures are only logged.
 */
void remote_staging_prepare(struct remote *rb);

/** Read @p req from the object in req->file_ctx. Bytes read (short only at its end) or -errno. */
ssize_t remote_read(struct remote *rb, const struct hf_io_request *req);

#endif
