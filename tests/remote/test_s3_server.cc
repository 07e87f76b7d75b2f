// Signed requests against a live S3-compatible server (s3rver behind a front that checks SigV4
// signatures and payload hashes, started by the ctest fixture remote.s3rver.start): PUT, GET with
// Range, HEAD, multipart upload, keys that need encoding, and the errors a wrong secret, a body
// that does not match its hash, an unknown key id, a missing object and a stale clock give, with
// their S3 error bodies read by s3_xml_error.
#include <gtest/gtest.h>

#include <curl/curl.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "hf_harness.h"
#include "s3_client.h"
#include "s3_sigv4.h"
#include "s3_status.h"
#include "s3_xml.h"

namespace
{

std::string ReadFirstLine(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string Pattern(size_t size, uint32_t seed)
{
    std::string s(size, '\0');
    hf_test_pattern_fill(&s[0], size, 0, seed);
    return s;
}

struct S3Error {
    std::string code, message, request_id;
    int rc;
};

S3Error ParseError(const std::string &body)
{
    char code[128], message[512], request_id[128];
    S3Error e;
    e.rc = s3_xml_error(body.data(), body.size(), code, sizeof(code), message, sizeof(message),
                        request_id, sizeof(request_id));
    e.code = code;
    e.message = message;
    e.request_id = request_id;
    return e;
}

class S3Server : public ::testing::Test
{
  protected:
    static void SetUpTestSuite()
    {
        curl_global_init(CURL_GLOBAL_DEFAULT);
    }

    static void TearDownTestSuite()
    {
        curl_global_cleanup();
    }

    void SetUp() override
    {
        const char *dir = getenv("HIPFILE_TEST_S3RVER_DIR");
        std::string endpoint = dir ? ReadFirstLine(std::string(dir) + "/endpoint") : "";
        bucket_ = dir ? ReadFirstLine(std::string(dir) + "/bucket") : "";
        if (endpoint.empty() || bucket_.empty())
            GTEST_SKIP() << "no s3rver running (the remote.s3rver.start fixture skipped: its "
                            "output says how to install s3rver)";
        snprintf(st_.region, sizeof(st_.region), "us-east-1");
        snprintf(st_.endpoint, sizeof(st_.endpoint), "%s", endpoint.c_str());
        st_.path_style = true;
        // s3rver's built-in account.
        snprintf(cred_.access_key_id, sizeof(cred_.access_key_id), "S3RVER");
        snprintf(cred_.secret_access_key, sizeof(cred_.secret_access_key), "S3RVER");
        // Keys differ per test, so the tests may run in any order or in parallel.
        key_ = std::string("t/") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    }

    S3Response Send(const S3Request &req)
    {
        return S3Send(st_, bucket_.c_str(), cred_, req);
    }

    S3Response Put(const std::string &key, const std::string &body)
    {
        S3Request req;
        req.method = "PUT";
        req.key = key;
        req.body = body;
        return Send(req);
    }

    S3Response Get(const std::string &key, const char *range = nullptr)
    {
        S3Request req;
        req.key = key;
        if (range)
            req.headers.push_back(std::string("Range: ") + range);
        return Send(req);
    }

    s3_settings st_{};
    s3_credentials cred_{};
    std::string bucket_, key_;
};

} // namespace

TEST_F(S3Server, PutThenGetWholeAndRange)
{
    std::string data = Pattern(1 << 20, 1);
    S3Response put = Put(key_, data);
    ASSERT_EQ(put.status, 200) << put.error << put.body;
    EXPECT_FALSE(put.Header("etag").empty());

    S3Response whole = Get(key_);
    ASSERT_EQ(whole.status, 200) << whole.body;
    EXPECT_TRUE(whole.body == data);

    S3Response part = Get(key_, "bytes=1000-1999");
    ASSERT_EQ(part.status, 206) << part.body;
    EXPECT_EQ(part.Header("content-range"), "bytes 1000-1999/1048576");
    EXPECT_TRUE(part.body == data.substr(1000, 1000));

    S3Response tail = Get(key_, "bytes=1048000-");
    ASSERT_EQ(tail.status, 206);
    EXPECT_TRUE(tail.body == data.substr(1048000));
}

TEST_F(S3Server, HeadGivesLengthWithoutBody)
{
    ASSERT_EQ(Put(key_, Pattern(12345, 2)).status, 200);
    S3Request req;
    req.method = "HEAD";
    req.key = key_;
    S3Response head = Send(req);
    ASSERT_EQ(head.status, 200);
    EXPECT_EQ(head.Header("content-length"), "12345");
    EXPECT_TRUE(head.body.empty());
}

TEST_F(S3Server, UnsignedPayloadIsAccepted)
{
    S3Request req;
    req.method = "PUT";
    req.key = key_;
    req.body = "unsigned body";
    req.sign_payload = false;
    ASSERT_EQ(Send(req).status, 200);
    EXPECT_EQ(Get(key_).body, "unsigned body");
}

TEST_F(S3Server, BodyNotMatchingItsSignedHashIsRefused)
{
    ASSERT_EQ(Put(key_, "original").status, 200);
    char other[65];
    s3_sha256_hex("something else", 14, other);
    S3Request req;
    req.method = "PUT";
    req.key = key_;
    req.body = "tampered";
    req.claimed_sha256 = other;
    S3Response r = Send(req);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(ParseError(r.body).code, "XAmzContentSHA256Mismatch") << r.body;
    s3_failure f;
    s3_failure_read(r.status, r.body.data(), r.body.size(), nullptr, &f);
    EXPECT_EQ(s3_failure_errno(&f), -EIO);
    EXPECT_TRUE(s3_failure_retryable(&f));
    EXPECT_EQ(Get(key_).body, "original");
}

TEST_F(S3Server, KeysThatNeedEncodingRoundTrip)
{
    const char *const keys[] = {"dir one/caf\xC3\xA9+x~y%z.bin", "a(b)*c!'d/e=f&g",
                                "sp  ace/./../x"};
    for (const char *k : keys) {
        std::string key = key_ + "/" + k;
        S3Response put = Put(key, key);
        ASSERT_EQ(put.status, 200) << k << ": " << put.body;
        S3Response get = Get(key);
        ASSERT_EQ(get.status, 200) << k << ": " << get.body;
        EXPECT_EQ(get.body, key);
    }
}

TEST_F(S3Server, SessionTokenIsSignedAndAccepted)
{
    snprintf(cred_.session_token, sizeof(cred_.session_token), "token/with+chars==");
    ASSERT_EQ(Put(key_, "with token").status, 200);
    EXPECT_EQ(Get(key_).body, "with token");
}

TEST_F(S3Server, MultipartUpload)
{
    S3Request init;
    init.method = "POST";
    init.key = key_;
    init.query = "uploads";
    S3Response started = Send(init);
    ASSERT_EQ(started.status, 200) << started.body;
    char upload_id[512];
    ASSERT_EQ(
        s3_xml_upload_id(started.body.data(), started.body.size(), upload_id, sizeof(upload_id)), 0)
        << started.body;

    const std::string parts[] = {Pattern(5 << 20, 3), Pattern((1 << 20) + 7, 4)};
    std::string etags[2];
    for (int i = 0; i < 2; i++) {
        S3Request part;
        part.method = "PUT";
        part.key = key_;
        part.query = "partNumber=" + std::to_string(i + 1) + "&uploadId=" + upload_id;
        part.body = parts[i];
        S3Response r = Send(part);
        ASSERT_EQ(r.status, 200) << r.body;
        etags[i] = r.Header("etag");
        ASSERT_FALSE(etags[i].empty());
    }

    const char *etag_ptrs[] = {etags[0].c_str(), etags[1].c_str()};
    size_t size = 0;
    char *body = s3_xml_complete_body(etag_ptrs, 2, &size);
    ASSERT_NE(body, nullptr);
    S3Request complete;
    complete.method = "POST";
    complete.key = key_;
    complete.query = std::string("uploadId=") + upload_id;
    complete.body.assign(body, size);
    free(body);
    S3Response done = Send(complete);
    ASSERT_EQ(done.status, 200) << done.body;
    EXPECT_NE(done.body.find("CompleteMultipartUploadResult"), std::string::npos) << done.body;

    S3Response whole = Get(key_);
    ASSERT_EQ(whole.status, 200);
    EXPECT_EQ(whole.body.size(), parts[0].size() + parts[1].size());
    EXPECT_TRUE(whole.body == parts[0] + parts[1]);
    S3Response across = Get(key_, "bytes=5242870-5242889");
    ASSERT_EQ(across.status, 206);
    EXPECT_TRUE(across.body == (parts[0] + parts[1]).substr(5242870, 20));
}

TEST_F(S3Server, WrongSecretIs403SignatureDoesNotMatch)
{
    ASSERT_EQ(Put(key_, "secret data").status, 200);
    snprintf(cred_.secret_access_key, sizeof(cred_.secret_access_key), "not-the-secret");
    S3Response r = Get(key_);
    EXPECT_EQ(r.status, 403);
    S3Error e = ParseError(r.body);
    ASSERT_EQ(e.rc, 0) << r.body;
    EXPECT_EQ(e.code, "SignatureDoesNotMatch");
    EXPECT_FALSE(e.message.empty());
    EXPECT_FALSE(e.request_id.empty());
    EXPECT_EQ(r.Header("x-amz-request-id"), e.request_id);
    EXPECT_EQ(r.body.find("secret data"), std::string::npos);

    s3_failure f;
    s3_failure_read(r.status, r.body.data(), r.body.size(), r.Header("x-amz-request-id").c_str(),
                    &f);
    EXPECT_EQ(s3_failure_errno(&f), -EACCES);
    EXPECT_FALSE(s3_failure_retryable(&f));
    char line[1024];
    s3_failure_describe(&f, "GET", r.url.c_str(), line, sizeof(line));
    EXPECT_NE(
        std::string(line).find("/" + bucket_ + "/" + key_ + ": HTTP 403 SignatureDoesNotMatch"),
        std::string::npos)
        << line;
    EXPECT_NE(std::string(line).find("request id " + e.request_id), std::string::npos) << line;

    // A PUT with the wrong secret must not store anything.
    EXPECT_EQ(Put(key_, "overwritten").status, 403);
    snprintf(cred_.secret_access_key, sizeof(cred_.secret_access_key), "S3RVER");
    EXPECT_EQ(Get(key_).body, "secret data");
}

// libcurl's own SigV4 signer, a third implementation: the server's check must accept its
// signatures and refuse them under a wrong secret, or it would be checking ours against itself.
TEST_F(S3Server, CheckAgreesWithLibcurlSigner)
{
    ASSERT_EQ(Put(key_, "signed by hipfile").status, 200);
    std::string url = std::string(st_.endpoint) + "/" + bucket_ + "/" + key_;
    for (const char *secret : {"S3RVER", "wrong"}) {
        CURL *curl = curl_easy_init();
        ASSERT_NE(curl, nullptr);
        std::string body;
        std::string userpwd = std::string("S3RVER:") + secret;
        curl_slist *headers = curl_slist_append(nullptr, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
        curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
        curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, "aws:amz:us-east-1:s3");
        curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd.c_str());
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(
            curl, CURLOPT_WRITEFUNCTION, +[](char *data, size_t size, size_t n, void *user) {
                static_cast<std::string *>(user)->append(data, size * n);
                return size * n;
            });
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
        ASSERT_EQ(curl_easy_perform(curl), CURLE_OK);
        long status = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(curl);
        if (std::string(secret) == "S3RVER") {
            EXPECT_EQ(status, 200) << body;
            EXPECT_EQ(body, "signed by hipfile");
        } else {
            EXPECT_EQ(status, 403);
            EXPECT_EQ(ParseError(body).code, "SignatureDoesNotMatch") << body;
        }
    }
}

TEST_F(S3Server, UnknownAccessKeyIs403InvalidAccessKeyId)
{
    snprintf(cred_.access_key_id, sizeof(cred_.access_key_id), "AKIDNOTKNOWN");
    S3Response r = Get(key_);
    EXPECT_EQ(r.status, 403);
    S3Error e = ParseError(r.body);
    ASSERT_EQ(e.rc, 0) << r.body;
    EXPECT_EQ(e.code, "InvalidAccessKeyId");
}

TEST_F(S3Server, StaleClockIs403RequestTimeTooSkewed)
{
    S3Request req;
    req.key = key_;
    req.now = time(nullptr) - 3600;
    S3Response r = Send(req);
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(ParseError(r.body).code, "RequestTimeTooSkewed");
}

TEST_F(S3Server, MissingObjectIs404NoSuchKey)
{
    S3Response r = Get(key_ + "/absent");
    EXPECT_EQ(r.status, 404);
    S3Error e = ParseError(r.body);
    ASSERT_EQ(e.rc, 0) << r.body;
    EXPECT_EQ(e.code, "NoSuchKey");
    s3_failure f;
    s3_failure_read(r.status, r.body.data(), r.body.size(), nullptr, &f);
    EXPECT_EQ(s3_failure_errno(&f), -ENOENT);
}

TEST_F(S3Server, RangePastTheEndIs416)
{
    ASSERT_EQ(Put(key_, "short").status, 200);
    S3Response r = Get(key_, "bytes=100-200");
    EXPECT_EQ(r.status, 416);
    EXPECT_EQ(ParseError(r.body).code, "InvalidRange");
}
