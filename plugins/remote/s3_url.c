/* s3:// URL parsing, bucket name rules, SigV4 URI encoding, and request URLs for AWS or an
 * S3-compatible endpoint. */
#include "s3_url.h"
#include "s3_error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_lower_or_digit(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool looks_like_ipv4(const char *s)
{
    unsigned a, b, c, d;
    char tail;
    return sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int s3_check_bucket(const char *bucket, char *err, size_t err_size)
{
    size_t n = strlen(bucket);
    if (n < 3 || n > 63)
        return s3_fail(-EINVAL, err, err_size, "bucket name '%s' must be 3 to 63 characters long",
                       bucket);
    for (size_t i = 0; i < n; i++) {
        char c = bucket[i];
        if (!is_lower_or_digit(c) && c != '.' && c != '-')
            return s3_fail(-EINVAL, err, err_size,
                           "bucket name '%s' may hold only lowercase letters, digits, '.' and "
                           "'-' (found '%c')",
                           bucket, c);
    }
    if (!is_lower_or_digit(bucket[0]) || !is_lower_or_digit(bucket[n - 1]))
        return s3_fail(-EINVAL, err, err_size,
                       "bucket name '%s' must begin and end with a letter or digit", bucket);
    if (strstr(bucket, ".."))
        return s3_fail(-EINVAL, err, err_size, "bucket name '%s' must not hold two adjacent dots",
                       bucket);
    if (looks_like_ipv4(bucket))
        return s3_fail(-EINVAL, err, err_size, "bucket name '%s' must not be an IP address",
                       bucket);
    if (strncmp(bucket, "xn--", 4) == 0 || strncmp(bucket, "sthree-", 7) == 0 ||
        has_suffix(bucket, "-s3alias") || has_suffix(bucket, "--ol-s3"))
        return s3_fail(-EINVAL, err, err_size,
                       "bucket name '%s' uses a prefix or suffix S3 reserves", bucket);
    return 0;
}

int s3_parse_url(const char *url, struct s3_location *out, char *err, size_t err_size)
{
    static const char scheme[] = "s3://";
    memset(out, 0, sizeof(*out));
    if (!url || strncmp(url, scheme, sizeof(scheme) - 1) != 0)
        return s3_fail(-EINVAL, err, err_size, "'%s' is not an S3 URL (expected s3://bucket/key)",
                       url ? url : "(null)");
    const char *bucket = url + sizeof(scheme) - 1;
    const char *slash = strchr(bucket, '/');
    size_t bucket_len = slash ? (size_t)(slash - bucket) : strlen(bucket);
    if (bucket_len == 0)
        return s3_fail(-EINVAL, err, err_size, "'%s' names no bucket (expected s3://bucket/key)",
                       url);
    if (bucket_len >= sizeof(out->bucket))
        return s3_fail(-EINVAL, err, err_size,
                       "bucket name is longer than 63 characters in '%.80s...'", url);
    memcpy(out->bucket, bucket, bucket_len);
    int rc = s3_check_bucket(out->bucket, err, err_size);
    if (rc < 0)
        return rc;
    if (!slash || slash[1] == '\0')
        return s3_fail(-EINVAL, err, err_size, "'%s' names a bucket but no object key", url);
    size_t key_len = strlen(slash + 1);
    if (key_len > S3_KEY_MAX)
        return s3_fail(-EINVAL, err, err_size,
                       "object key is %zu bytes, S3 allows %d, in 's3://%s/%.40s...'", key_len,
                       S3_KEY_MAX, out->bucket, slash + 1);
    memcpy(out->key, slash + 1, key_len + 1);
    return 0;
}

static bool is_unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

int s3_uri_encode(const char *in, size_t in_len, int keep_slash, char *out, size_t out_size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < in_len; i++) {
        unsigned char c = (unsigned char)in[i];
        bool plain = is_unreserved(c) || (keep_slash && c == '/');
        size_t need = plain ? 1 : 3;
        if (o + need >= out_size)
            return -ENOSPC;
        if (plain) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    if (o >= out_size)
        return -ENOSPC;
    out[o] = '\0';
    return (int)o;
}

/* Appends the query's names and values encoded; '&' and '=' stay separators, empty items drop. */
static int append_query(const char *query, char *out, size_t out_size)
{
    size_t o = strlen(out);
    bool first = true;
    for (const char *p = query; *p;) {
        size_t item = strcspn(p, "&");
        size_t name = strcspn(p, "=&");
        if (item > 0) {
            if (!first) {
                if (o + 1 >= out_size)
                    return -ENOSPC;
                out[o++] = '&';
            }
            first = false;
            int n = s3_uri_encode(p, name, 0, out + o, out_size - o);
            if (n < 0)
                return n;
            o += (size_t)n;
            if (name < item) {
                if (o + 1 >= out_size)
                    return -ENOSPC;
                out[o++] = '=';
                n = s3_uri_encode(p + name + 1, item - name - 1, 0, out + o, out_size - o);
                if (n < 0)
                    return n;
                o += (size_t)n;
            }
            out[o] = '\0';
        }
        p += item;
        if (*p == '&')
            p++;
    }
    return 0;
}

/* Splits "http[s]://authority[/]" into scheme and authority; anything after the authority but a
 * lone '/' is refused, since keys would otherwise land under an unexpected prefix. */
static int split_endpoint(const char *endpoint, const char **scheme, char *authority,
                          size_t authority_size)
{
    const char *rest;
    if (strncmp(endpoint, "https://", 8) == 0) {
        *scheme = "https";
        rest = endpoint + 8;
    } else if (strncmp(endpoint, "http://", 7) == 0) {
        *scheme = "http";
        rest = endpoint + 7;
    } else {
        return -EINVAL;
    }
    size_t n = strcspn(rest, "/?#");
    if (n == 0 || n >= authority_size)
        return -EINVAL;
    if (rest[n] != '\0' && strcmp(rest + n, "/") != 0)
        return -EINVAL;
    memcpy(authority, rest, n);
    authority[n] = '\0';
    /* The Host header carries no default port, as HTTP clients send it. */
    size_t len = strlen(authority);
    const char *port = strcmp(*scheme, "https") == 0 ? ":443" : ":80";
    size_t plen = strlen(port);
    if (len > plen && strcmp(authority + len - plen, port) == 0)
        authority[len - plen] = '\0';
    return 0;
}

int s3_request_url(const struct s3_settings *st, const struct s3_location *loc, const char *query,
                   char *url, size_t url_size, char *host, size_t host_size)
{
    const char *scheme = "https";
    char authority[512];
    if (st->endpoint[0]) {
        if (split_endpoint(st->endpoint, &scheme, authority, sizeof(authority)) < 0)
            return -EINVAL;
    } else {
        int n = snprintf(authority, sizeof(authority), "s3.%s.amazonaws.com", st->region);
        if (n < 0 || (size_t)n >= sizeof(authority))
            return -EINVAL;
    }
    if (!loc->bucket[0])
        return -EINVAL;
    bool virtual_hosted = !st->path_style && !strchr(loc->bucket, '.');
    int n;
    if (virtual_hosted)
        n = snprintf(host, host_size, "%s.%s", loc->bucket, authority);
    else
        n = snprintf(host, host_size, "%s", authority);
    if (n < 0 || (size_t)n >= host_size)
        return -ENOSPC;
    if (virtual_hosted)
        n = snprintf(url, url_size, "%s://%s/", scheme, host);
    else
        n = snprintf(url, url_size, "%s://%s/%s/", scheme, host, loc->bucket);
    if (n < 0 || (size_t)n >= url_size)
        return -ENOSPC;
    int k = s3_uri_encode(loc->key, strlen(loc->key), 1, url + n, url_size - (size_t)n);
    if (k < 0)
        return k;
    if (query && query[0]) {
        size_t len = strlen(url);
        if (len + 1 >= url_size)
            return -ENOSPC;
        url[len] = '?';
        url[len + 1] = '\0';
        return append_query(query, url, url_size);
    }
    return 0;
}
