/* Failed S3 responses: errno mapping and retry advice by HTTP status and S3 error code (S3's
 * published error code list), and the log line every failure gets. */
#include "s3_status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "s3_xml.h"

void s3_failure_read(long status, const char *body, size_t size, const char *request_id_header,
                     struct s3_failure *out)
{
    memset(out, 0, sizeof(*out));
    out->status = status;
    if (body && size > 0)
        s3_xml_error(body, size, out->code, sizeof(out->code), out->message, sizeof(out->message),
                     out->request_id, sizeof(out->request_id));
    if (!out->request_id[0] && request_id_header)
        snprintf(out->request_id, sizeof(out->request_id), "%s", request_id_header);
}

static bool code_is(const struct s3_failure *f, const char *code)
{
    return strcmp(f->code, code) == 0;
}

/* Codes that say a body arrived damaged or incomplete: the next attempt sends it whole. */
static bool body_damaged(const struct s3_failure *f)
{
    return code_is(f, "BadDigest") || code_is(f, "XAmzContentSHA256Mismatch") ||
           code_is(f, "IncompleteBody");
}

int s3_failure_errno(const struct s3_failure *f)
{
    if (f->status == 0 || body_damaged(f))
        return -EIO;
    if (code_is(f, "SlowDown"))
        return -EAGAIN;
    if (code_is(f, "RequestTimeout"))
        return -ETIMEDOUT;
    if (code_is(f, "ExpiredToken") || code_is(f, "InvalidToken"))
        return -EACCES;
    if (code_is(f, "EntityTooLarge"))
        return -EFBIG;
    if (code_is(f, "KeyTooLongError"))
        return -ENAMETOOLONG;
    switch (f->status) {
    case 401:
    case 403:
        return -EACCES;
    case 404:
        return -ENOENT;
    case 405:
    case 501:
        return -EOPNOTSUPP;
    case 409:
        return -EBUSY;
    case 412:
        return -ESTALE;
    case 416:
        return -ERANGE;
    case 429:
    case 503:
        return -EAGAIN;
    default:
        return f->status >= 400 && f->status < 500 ? -EINVAL : -EIO;
    }
}

bool s3_failure_retryable(const struct s3_failure *f)
{
    if (f->status == 0 || body_damaged(f) || code_is(f, "RequestTimeout") ||
        code_is(f, "SlowDown") || code_is(f, "InternalError") || code_is(f, "OperationAborted"))
        return true;
    return f->status == 429 || f->status == 500 || f->status == 502 || f->status == 503 ||
           f->status == 504;
}

int s3_failure_describe(const struct s3_failure *f, const char *method, const char *url, char *out,
                        size_t out_size)
{
    char status[32];
    if (f->status)
        snprintf(status, sizeof(status), "HTTP %ld", f->status);
    else
        snprintf(status, sizeof(status), "no response");
    return snprintf(out, out_size, "%s %s: %s %s%s%s%s, request id %s", method ? method : "?",
                    url ? url : "?", status, f->code[0] ? f->code : "(no S3 error body)",
                    f->message[0] ? " (" : "", f->message, f->message[0] ? ")" : "",
                    f->request_id[0] ? f->request_id : "none");
}
