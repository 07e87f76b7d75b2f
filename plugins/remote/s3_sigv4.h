/* AWS Signature Version 4 for S3 requests signed in the Authorization header, with the payload
 * hash sent in x-amz-content-sha256 (hashed body or UNSIGNED-PAYLOAD). */
#ifndef HF_REMOTE_S3_SIGV4_H
#define HF_REMOTE_S3_SIGV4_H

#include <stddef.h>
#include <time.h>

#include "s3_credentials.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Payload hash value for a body that is not hashed (allowed by S3 over any transport). */
#define S3_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"

/** Most extra headers s3_sign accepts in s3_sign_input.headers. */
#define S3_SIGN_MAX_HEADERS 32

/** What a signature covers. */
struct s3_sign_input {
    const char *method; /**< "GET", "PUT", "POST", "HEAD", "DELETE" */
    /** Full URL as built by s3_request_url; host, path and query are taken from it. */
    const char *url;
    /** Extra headers to sign, "Name: value", NULL-terminated, may be NULL (e.g. "Range: ...").
     *  Host, x-amz-date, x-amz-content-sha256, x-amz-security-token and Authorization are added
     *  by s3_sign and refused here. */
    const char *const *headers;
    const char *payload_sha256; /**< lowercase hex SHA-256 of the body, or S3_UNSIGNED_PAYLOAD */
    const char *region;         /**< e.g. "us-east-1" */
    const char *service;        /**< "s3" */
    time_t now;                 /**< request time (UTC) */
};

/** Headers to add to the request, each "Name: value": x-amz-date, x-amz-content-sha256,
 *  x-amz-security-token (only with a session token) and Authorization, in that order. */
struct s3_signed_headers {
    char lines[4][4608]; /**< header lines, without CR LF */
    unsigned count;      /**< lines used, 3 or 4 */
};

/**
 * Sign a request. Returns 0; -EINVAL for a malformed URL or header, a refused header name, a
 * header value with CR or LF, a payload hash that is neither 64 lowercase hex digits nor
 * S3_UNSIGNED_PAYLOAD, missing credentials, or a key id, token, method, region or service with
 * control characters (or a region and service over 200 bytes together); -E2BIG for more than
 * S3_SIGN_MAX_HEADERS headers; -ENOMEM; -EIO when libcrypto fails.
 */
int s3_sign(const struct s3_sign_input *in, const struct s3_credentials *cred,
            struct s3_signed_headers *out);

/**
 * The canonical request s3_sign hashes for in and cred (the session token is one of its
 * headers), as a malloc'd string the caller frees in *creq_p; for debug logs next to the
 * CanonicalRequest that S3 returns with SignatureDoesNotMatch, and for tests. Returns as s3_sign.
 */
int s3_sign_canonical_request(const struct s3_sign_input *in, const struct s3_credentials *cred,
                              char **creq_p);

/** Lowercase hex SHA-256 of a buffer (for payload hashes). */
void s3_sha256_hex(const void *data, size_t size, char hex[65]);

#ifdef __cplusplus
}
#endif

#endif
