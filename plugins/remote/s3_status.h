/* What a failed S3 response means: the -errno it maps to, whether sending it again may succeed,
 * and the one log line that names the URL, the HTTP status, S3's error code and the request id. */
#ifndef HF_REMOTE_S3_STATUS_H
#define HF_REMOTE_S3_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A failed response, as far as it can be read. */
struct s3_failure {
    long status;          /**< HTTP status; 0 when no response came */
    char code[64];        /**< S3 error code (e.g. "NoSuchKey"), "" when the body had none */
    char message[256];    /**< S3's message, "" when none; truncated when longer */
    char request_id[128]; /**< the body's RequestId, else the x-amz-request-id header, else "" */
};

/**
 * Read a failed response: status, the <Error> body (any body that is not one leaves code and
 * message empty) and the x-amz-request-id header value (NULL when absent), used when the body
 * names no RequestId.
 */
void s3_failure_read(long status, const char *body, size_t size, const char *request_id_header,
                     struct s3_failure *out);

/**
 * The -errno a failure maps to: 401 and 403 -EACCES (also 400 ExpiredToken, InvalidToken);
 * 404 -ENOENT; 405 and 501 -EOPNOTSUPP; 409 -EBUSY; 412 -ESTALE (the object changed);
 * 416 -ERANGE (range past the end); 400 RequestTimeout -ETIMEDOUT; 400 EntityTooLarge -EFBIG;
 * 400 KeyTooLongError -ENAMETOOLONG; other 4xx -EINVAL; 429, 503 and SlowDown -EAGAIN;
 * other 5xx, BadDigest, XAmzContentSHA256Mismatch, IncompleteBody and no response -EIO.
 */
int s3_failure_errno(const struct s3_failure *f);

/**
 * Whether the same request may succeed if sent again after a pause: no response, 429, 500,
 * 502, 503, 504, and the codes RequestTimeout, SlowDown, InternalError, OperationAborted,
 * IncompleteBody and XAmzContentSHA256Mismatch / BadDigest (a body damaged on the way).
 */
bool s3_failure_retryable(const struct s3_failure *f);

/**
 * The log line for a failure, e.g. "GET http://127.0.0.1:9000/b/k: HTTP 403 SignatureDoesNotMatch
 * (The request signature ...), request id 4442587FB7D0A2F9". Returns the length snprintf
 * would write (the line is truncated to out_size).
 */
int s3_failure_describe(const struct s3_failure *f, const char *method, const char *url, char *out,
                        size_t out_size);

#ifdef __cplusplus
}
#endif

#endif
