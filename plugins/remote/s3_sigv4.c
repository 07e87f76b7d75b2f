/* SigV4 for S3: canonical request (method, URI, query, headers, signed header list, payload
 * hash), string to sign, the derived signing key, and the headers that carry the result. */
#include "s3_sigv4.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "s3_url.h"

#define SHA256_LEN 32

static void to_hex(const unsigned char *bytes, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[bytes[i] >> 4];
        hex[2 * i + 1] = digits[bytes[i] & 15];
    }
    hex[2 * n] = '\0';
}

void s3_sha256_hex(const void *data, size_t size, char hex[65])
{
    unsigned char md[SHA256_LEN];
    unsigned int len = 0;
    if (!EVP_Digest(data, size, md, &len, EVP_sha256(), NULL) || len != SHA256_LEN) {
        /* Only an OpenSSL without SHA-256 gets here; an empty hash can never match a real one. */
        hex[0] = '\0';
        return;
    }
    to_hex(md, SHA256_LEN, hex);
}

static int hmac(const void *key, size_t key_len, const char *msg, unsigned char out[SHA256_LEN])
{
    unsigned int len = 0;
    if (!HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)msg, strlen(msg), out,
              &len) ||
        len != SHA256_LEN)
        return -EIO;
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Writes in[0..n) percent-decoded then SigV4-encoded, so a URL encoded by anyone (lowercase hex,
 * unneeded escapes) yields the one canonical form S3 computes. */
static int write_canonical(FILE *f, const char *in, size_t n, int keep_slash)
{
    char *raw = malloc(n + 1);
    char *enc = malloc(3 * n + 1);
    int rc = -ENOMEM;
    if (!raw || !enc)
        goto out;
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '%' && i + 2 < n && hex_value(in[i + 1]) >= 0 && hex_value(in[i + 2]) >= 0) {
            raw[r++] = (char)(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2]));
            i += 2;
        } else {
            raw[r++] = in[i];
        }
    }
    rc = s3_uri_encode(raw, r, keep_slash, enc, 3 * n + 1);
    if (rc >= 0) {
        fputs(enc, f);
        rc = 0;
    }
out:
    free(raw);
    free(enc);
    return rc;
}

struct query_param {
    char *name;  /* canonical (encoded) */
    char *value; /* canonical (encoded), "" when absent */
};

static int compare_params(const void *a, const void *b)
{
    const struct query_param *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

static char *canonical_piece(const char *in, size_t n)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    int rc = write_canonical(f, in, n, 0);
    if (fclose(f) != 0 || rc < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Names and values encoded, sorted by name then value, "name=" for a name without a value. */
static int write_canonical_query(FILE *f, const char *query)
{
    size_t count = 0;
    for (const char *p = query; *p; p++)
        count += *p == '&';
    struct query_param *params = calloc(count + 1, sizeof(*params));
    if (!params)
        return -ENOMEM;
    size_t used = 0;
    int rc = 0;
    for (const char *p = query; *p;) {
        size_t item = strcspn(p, "&");
        size_t name = strcspn(p, "=&");
        if (item > 0) {
            params[used].name = canonical_piece(p, name);
            params[used].value = name < item ? canonical_piece(p + name + 1, item - name - 1)
                                             : canonical_piece("", 0);
            used++;
            if (!params[used - 1].name || !params[used - 1].value) {
                rc = -ENOMEM;
                goto out;
            }
        }
        p += item;
        if (*p == '&')
            p++;
    }
    qsort(params, used, sizeof(*params), compare_params);
    for (size_t i = 0; i < used; i++)
        fprintf(f, "%s%s=%s", i ? "&" : "", params[i].name, params[i].value);
out:
    for (size_t i = 0; i < used; i++) {
        free(params[i].name);
        free(params[i].value);
    }
    free(params);
    return rc;
}

struct header {
    char name[64]; /* lowercase */
    const char *value;
    size_t value_len;
    size_t order; /* position given, so repeated names keep their order when sorted */
};

static int compare_headers(const void *a, const void *b)
{
    const struct header *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Value with leading and trailing blanks removed and inner runs of spaces collapsed to one. */
static void write_trimmed(FILE *f, const char *v, size_t n)
{
    while (n > 0 && isspace((unsigned char)*v)) {
        v++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == ' ' && i > 0 && v[i - 1] == ' ')
            continue;
        fputc(v[i], f);
    }
}

static bool added_by_signer(const char *name)
{
    return strcmp(name, "host") == 0 || strcmp(name, "x-amz-date") == 0 ||
           strcmp(name, "x-amz-content-sha256") == 0 || strcmp(name, "x-amz-security-token") == 0 ||
           strcmp(name, "authorization") == 0;
}

static int add_header(struct header *h, size_t *count, const char *name, size_t name_len,
                      const char *value)
{
    if (*count >= S3_SIGN_MAX_HEADERS + 4)
        return -E2BIG;
    if (name_len == 0 || name_len >= sizeof(h->name))
        return -EINVAL;
    struct header *e = &h[*count];
    for (size_t i = 0; i < name_len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c == ':' || c >= 127)
            return -EINVAL;
        e->name[i] = (char)tolower(c);
    }
    e->name[name_len] = '\0';
    /* A CR or LF in a value would end the header line and start another one unsigned. */
    if (strpbrk(value, "\r\n"))
        return -EINVAL;
    e->value = value;
    e->value_len = strlen(value);
    e->order = *count;
    (*count)++;
    return 0;
}

/* Printable ASCII only: these end up in header lines and the credential scope. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

static bool valid_payload_hash(const char *h)
{
    if (strcmp(h, S3_UNSIGNED_PAYLOAD) == 0)
        return true;
    if (strlen(h) != 64)
        return false;
    for (int i = 0; i < 64; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return false;
    return true;
}

/* Splits "scheme://authority/path?query" into the Host value (no default port), the path and the
 * query (both pointing into url). */
static int split_url(const char *url, char *host, size_t host_size, const char **path,
                     size_t *path_len, const char **query)
{
    const char *default_port;
    const char *rest;
    if (strncmp(url, "https://", 8) == 0) {
        rest = url + 8;
        default_port = ":443";
    } else if (strncmp(url, "http://", 7) == 0) {
        rest = url + 7;
        default_port = ":80";
    } else {
        return -EINVAL;
    }
    size_t n = strcspn(rest, "/?#");
    if (n == 0 || n >= host_size || rest[n] == '#')
        return -EINVAL;
    memcpy(host, rest, n);
    host[n] = '\0';
    size_t plen = strlen(default_port);
    if (n > plen && strcmp(host + n - plen, default_port) == 0)
        host[n - plen] = '\0';
    *path = rest + n;
    *path_len = strcspn(*path, "?#");
    const char *q = *path + *path_len;
    if (*q == '#')
        return -EINVAL;
    *query = *q == '?' ? q + 1 : "";
    if (strchr(*query, '#'))
        return -EINVAL;
    return 0;
}

/* The canonical request and the signed header list, each as a malloc'd string. */
static int canonical_request(const struct s3_sign_input *in, const char *host, const char *amz_date,
                             const char *token, const char *path, size_t path_len,
                             const char *query, char **creq_p, char **signed_p)
{
    struct header headers[S3_SIGN_MAX_HEADERS + 4];
    size_t count = 0;
    int rc = 0;
    for (size_t i = 0; in->headers && in->headers[i]; i++) {
        if (i >= S3_SIGN_MAX_HEADERS)
            return -E2BIG;
        const char *line = in->headers[i];
        const char *colon = strchr(line, ':');
        if (!colon)
            return -EINVAL;
        rc = add_header(headers, &count, line, (size_t)(colon - line), colon + 1);
        if (rc < 0)
            return rc;
        if (added_by_signer(headers[count - 1].name))
            return -EINVAL;
    }
    if ((rc = add_header(headers, &count, "host", 4, host)) < 0 ||
        (rc = add_header(headers, &count, "x-amz-date", 10, amz_date)) < 0 ||
        (rc = add_header(headers, &count, "x-amz-content-sha256", 20, in->payload_sha256)) < 0)
        return rc;
    if (token[0] && (rc = add_header(headers, &count, "x-amz-security-token", 20, token)) < 0)
        return rc;
    qsort(headers, count, sizeof(headers[0]), compare_headers);

    char *creq = NULL, *signed_list = NULL;
    size_t creq_size = 0, signed_size = 0;
    FILE *f = open_memstream(&creq, &creq_size);
    FILE *s = open_memstream(&signed_list, &signed_size);
    if (!f || !s) {
        rc = -ENOMEM;
        goto fail;
    }
    fprintf(f, "%s\n", in->method);
    if (path_len == 0)
        fputc('/', f);
    else if ((rc = write_canonical(f, path, path_len, 1)) < 0)
        goto fail;
    fputc('\n', f);
    if ((rc = write_canonical_query(f, query)) < 0)
        goto fail;
    fputc('\n', f);
    for (size_t i = 0; i < count; i++) {
        bool repeat = i > 0 && strcmp(headers[i].name, headers[i - 1].name) == 0;
        bool continues = i + 1 < count && strcmp(headers[i].name, headers[i + 1].name) == 0;
        if (!repeat) {
            fprintf(f, "%s:", headers[i].name);
            fprintf(s, "%s%s", i ? ";" : "", headers[i].name);
        }
        write_trimmed(f, headers[i].value, headers[i].value_len);
        fputc(continues ? ',' : '\n', f);
    }
    fprintf(f, "\n");
    if (fclose(s) != 0) {
        s = NULL;
        rc = -ENOMEM;
        goto fail;
    }
    s = NULL;
    fprintf(f, "%s\n%s", signed_list, in->payload_sha256);
    if (fclose(f) != 0) {
        f = NULL;
        rc = -ENOMEM;
        goto fail;
    }
    *creq_p = creq;
    *signed_p = signed_list;
    return 0;
fail:
    if (f)
        fclose(f);
    if (s)
        fclose(s);
    free(creq);
    free(signed_list);
    return rc;
}

static int signing_key(const char *secret, const char *date, const char *region,
                       const char *service, unsigned char key[SHA256_LEN])
{
    char first[sizeof(((struct s3_credentials *)0)->secret_access_key) + 4];
    snprintf(first, sizeof(first), "AWS4%s", secret);
    unsigned char k_date[SHA256_LEN], k_region[SHA256_LEN], k_service[SHA256_LEN];
    int rc = hmac(first, strlen(first), date, k_date);
    if (rc == 0)
        rc = hmac(k_date, SHA256_LEN, region, k_region);
    if (rc == 0)
        rc = hmac(k_region, SHA256_LEN, service, k_service);
    if (rc == 0)
        rc = hmac(k_service, SHA256_LEN, "aws4_request", key);
    return rc;
}

/* A request's canonical form and what signing it needs besides. */
struct canonical {
    char *creq;        /* canonical request */
    char *signed_list; /* "host;x-amz-content-sha256;..." */
    char amz_date[17]; /* 20130524T000000Z */
    char date[9];      /* 20130524 */
};

/* Checks the input, splits the URL and builds the canonical request; what s3_sign and
 * s3_sign_canonical_request share. On success the caller frees c->creq and c->signed_list. */
static int canonicalize(const struct s3_sign_input *in, const struct s3_credentials *cred,
                        struct canonical *c)
{
    memset(c, 0, sizeof(*c));
    if (!in || !cred || !in->method || !in->url || !in->payload_sha256 || !in->region ||
        !in->service || !in->method[0] || !in->region[0] || !in->service[0] ||
        !cred->access_key_id[0] || !cred->secret_access_key[0] ||
        !valid_payload_hash(in->payload_sha256) || !printable(in->method) ||
        !printable(in->region) || !printable(in->service) || !printable(cred->access_key_id) ||
        !printable(cred->session_token) || strlen(in->region) + strlen(in->service) > 200)
        return -EINVAL;
    char host[512];
    const char *path, *query;
    size_t path_len;
    int rc = split_url(in->url, host, sizeof(host), &path, &path_len, &query);
    if (rc < 0)
        return rc;
    struct tm tm;
    if (!gmtime_r(&in->now, &tm))
        return -EINVAL;
    strftime(c->amz_date, sizeof(c->amz_date), "%Y%m%dT%H%M%SZ", &tm);
    strftime(c->date, sizeof(c->date), "%Y%m%d", &tm);
    return canonical_request(in, host, c->amz_date, cred->session_token, path, path_len, query,
                             &c->creq, &c->signed_list);
}

int s3_sign_canonical_request(const struct s3_sign_input *in, const struct s3_credentials *cred,
                              char **creq_p)
{
    struct canonical c;
    int rc = canonicalize(in, cred, &c);
    free(c.signed_list);
    *creq_p = c.creq;
    return rc;
}

int s3_sign(const struct s3_sign_input *in, const struct s3_credentials *cred,
            struct s3_signed_headers *out)
{
    memset(out, 0, sizeof(*out));
    struct canonical c;
    int rc = canonicalize(in, cred, &c);
    if (rc < 0)
        return rc;
    char *creq = c.creq, *signed_list = c.signed_list;
    const char *amz_date = c.amz_date, *date = c.date;
    char creq_hash[65];
    s3_sha256_hex(creq, strlen(creq), creq_hash);
    free(creq);

    char scope[256];
    snprintf(scope, sizeof(scope), "%s/%s/%s/aws4_request", date, in->region, in->service);
    char to_sign[512];
    snprintf(to_sign, sizeof(to_sign), "AWS4-HMAC-SHA256\n%s\n%s\n%s", amz_date, scope, creq_hash);

    unsigned char key[SHA256_LEN], sig[SHA256_LEN];
    char sig_hex[65];
    rc = signing_key(cred->secret_access_key, date, in->region, in->service, key);
    if (rc == 0)
        rc = hmac(key, SHA256_LEN, to_sign, sig);
    if (rc < 0) {
        free(signed_list);
        return rc;
    }
    to_hex(sig, SHA256_LEN, sig_hex);

    snprintf(out->lines[out->count++], sizeof(out->lines[0]), "x-amz-date: %s", amz_date);
    snprintf(out->lines[out->count++], sizeof(out->lines[0]), "x-amz-content-sha256: %s",
             in->payload_sha256);
    if (cred->session_token[0])
        snprintf(out->lines[out->count++], sizeof(out->lines[0]), "x-amz-security-token: %s",
                 cred->session_token);
    int n = snprintf(out->lines[out->count++], sizeof(out->lines[0]),
                     "Authorization: AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, "
                     "Signature=%s",
                     cred->access_key_id, scope, signed_list, sig_hex);
    free(signed_list);
    if (n < 0 || (size_t)n >= sizeof(out->lines[0])) {
        memset(out, 0, sizeof(*out));
        return -E2BIG;
    }
    return 0;
}
