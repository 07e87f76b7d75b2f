/* S3 object locations: parsing "s3://bucket/key" URLs and building the HTTP(S) URL and Host header
 * a request for an object goes to, virtual-hosted or path-style, on AWS or an endpoint override. */
#ifndef HF_REMOTE_S3_URL_H
#define HF_REMOTE_S3_URL_H

#include <stddef.h>

#include "s3_credentials.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest object key S3 accepts, in bytes. */
#define S3_KEY_MAX 1024

/** Bucket and key of one object, as named by an s3:// URL; the key is kept byte for byte. */
struct s3_location {
    char bucket[256]; /**< bucket name, checked against S3's general-purpose bucket rules */
    char key[2048];   /**< object key, 1 to S3_KEY_MAX bytes, not URI-encoded */
};

/**
 * Parse "s3://bucket/key". The key is everything after the first '/' following the bucket, taken
 * literally (no percent-decoding, '/' allowed, as the AWS CLI reads s3:// URLs). Returns 0, or
 * -EINVAL with a message in err saying what was wrong (scheme, bucket rule, empty or long key).
 */
int s3_parse_url(const char *url, struct s3_location *out, char *err, size_t err_size);

/**
 * Check a bucket name against S3's general-purpose bucket naming rules (3-63 characters of
 * lowercase letters, digits, '.' and '-', starting and ending with a letter or digit, no "..",
 * not an IPv4 address, no reserved prefix or suffix). 0, or -EINVAL with a message in err.
 */
int s3_check_bucket(const char *bucket, char *err, size_t err_size);

/**
 * URI-encode bytes the way SigV4 wants: unreserved characters (A-Z a-z 0-9 - _ . ~) kept, every
 * other byte as %XX with uppercase hex; '/' is kept when keep_slash is nonzero (paths), encoded
 * otherwise (query names and values). Writes a NUL-terminated string; returns its length, or
 * -ENOSPC when it does not fit in out_size.
 */
int s3_uri_encode(const char *in, size_t in_len, int keep_slash, char *out, size_t out_size);

/**
 * The URL to send a request for loc to, and the Host header value, for the settings st:
 * with no endpoint, https://BUCKET.s3.REGION.amazonaws.com/KEY (virtual-hosted) or
 * https://s3.REGION.amazonaws.com/BUCKET/KEY (path-style); with an endpoint, the same on the
 * endpoint's scheme, host and port. Virtual-hosted addressing is used only when st->path_style is
 * false and the bucket has no '.' (a dotted bucket would not match the TLS certificate of
 * *.s3.REGION.amazonaws.com). The key is encoded per path segment with '/' kept. query may be NULL
 * or "name[=value][&...]" with unencoded names and values, which are encoded here (e.g. "uploads",
 * "partNumber=3&uploadId=ID"). host gets the URL's authority without a default port. 0, -EINVAL for
 * a bad endpoint or empty bucket, -ENOSPC when url or host is too small.
 */
int s3_request_url(const struct s3_settings *st, const struct s3_location *loc, const char *query,
                   char *url, size_t url_size, char *host, size_t host_size);

#ifdef __cplusplus
}
#endif

#endif
