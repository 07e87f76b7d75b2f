// Failed S3 responses: which -errno each status and S3 error code maps to, which are worth
// retrying, where the request id comes from, and the log line naming URL, status and request id.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "s3_status.h"

namespace
{

s3_failure Failure(long status, const char *code)
{
    s3_failure f{};
    f.status = status;
    snprintf(f.code, sizeof(f.code), "%s", code);
    return f;
}

} // namespace

TEST(S3Status, ErrnoByStatusAndCode)
{
    struct Case {
        long status;
        const char *code;
        int err;
        bool retry;
    } cases[] = {
        {403, "AccessDenied", -EACCES, false},
        {403, "SignatureDoesNotMatch", -EACCES, false},
        {403, "InvalidAccessKeyId", -EACCES, false},
        {401, "", -EACCES, false},
        {400, "ExpiredToken", -EACCES, false},
        {404, "NoSuchKey", -ENOENT, false},
        {404, "NoSuchBucket", -ENOENT, false},
        {404, "NoSuchUpload", -ENOENT, false},
        {405, "MethodNotAllowed", -EOPNOTSUPP, false},
        {501, "NotImplemented", -EOPNOTSUPP, false},
        {409, "BucketNotEmpty", -EBUSY, false},
        {409, "OperationAborted", -EBUSY, true},
        {412, "PreconditionFailed", -ESTALE, false},
        {416, "InvalidRange", -ERANGE, false},
        {400, "EntityTooSmall", -EINVAL, false},
        {400, "InvalidPart", -EINVAL, false},
        {400, "EntityTooLarge", -EFBIG, false},
        {400, "KeyTooLongError", -ENAMETOOLONG, false},
        {400, "RequestTimeout", -ETIMEDOUT, true},
        {400, "BadDigest", -EIO, true},
        {400, "XAmzContentSHA256Mismatch", -EIO, true},
        {400, "IncompleteBody", -EIO, true},
        {418, "", -EINVAL, false},
        {429, "", -EAGAIN, true},
        {503, "SlowDown", -EAGAIN, true},
        {503, "", -EAGAIN, true},
        {500, "InternalError", -EIO, true},
        {502, "", -EIO, true},
        {504, "", -EIO, true},
        {0, "", -EIO, true},
    };
    for (const Case &c : cases) {
        s3_failure f = Failure(c.status, c.code);
        EXPECT_EQ(s3_failure_errno(&f), c.err) << c.status << " " << c.code;
        EXPECT_EQ(s3_failure_retryable(&f), c.retry) << c.status << " " << c.code;
    }
}

TEST(S3Status, ReadTakesBodyFieldsAndFallsBackToHeaderRequestId)
{
    const std::string body = "<Error><Code>NoSuchKey</Code><Message>The specified key does not "
                             "exist.</Message><RequestId>BODYID</RequestId></Error>";
    s3_failure f;
    s3_failure_read(404, body.data(), body.size(), "HEADERID", &f);
    EXPECT_EQ(f.status, 404);
    EXPECT_STREQ(f.code, "NoSuchKey");
    EXPECT_STREQ(f.message, "The specified key does not exist.");
    EXPECT_STREQ(f.request_id, "BODYID");

    const std::string no_id = "<Error><Code>AccessDenied</Code></Error>";
    s3_failure_read(403, no_id.data(), no_id.size(), "HEADERID", &f);
    EXPECT_STREQ(f.code, "AccessDenied");
    EXPECT_STREQ(f.request_id, "HEADERID");

    const std::string html = "<html><body>Bad Gateway</body></html>";
    s3_failure_read(502, html.data(), html.size(), nullptr, &f);
    EXPECT_STREQ(f.code, "");
    EXPECT_STREQ(f.request_id, "");
    s3_failure_read(500, nullptr, 0, nullptr, &f);
    EXPECT_EQ(f.status, 500);
}

TEST(S3Status, DescribeNamesUrlStatusCodeAndRequestId)
{
    const std::string body = "<Error><Code>SignatureDoesNotMatch</Code><Message>The request "
                             "signature does not match</Message><RequestId>4442587FB7D0A2F9"
                             "</RequestId></Error>";
    s3_failure f;
    s3_failure_read(403, body.data(), body.size(), nullptr, &f);
    char line[512];
    s3_failure_describe(&f, "GET", "http://127.0.0.1:9000/b/k", line, sizeof(line));
    EXPECT_STREQ(line, "GET http://127.0.0.1:9000/b/k: HTTP 403 SignatureDoesNotMatch (The "
                       "request signature does not match), request id 4442587FB7D0A2F9");

    s3_failure bare = Failure(502, "");
    s3_failure_describe(&bare, "PUT", "https://b.s3.us-east-1.amazonaws.com/k", line, sizeof(line));
    EXPECT_STREQ(line, "PUT https://b.s3.us-east-1.amazonaws.com/k: HTTP 502 (no S3 error body), "
                       "request id none");

    s3_failure none = Failure(0, "");
    EXPECT_GT(s3_failure_describe(&none, "HEAD", "http://h/b/k", line, 16), 16);
    EXPECT_EQ(strlen(line), 15u);
}
