// SigV4 signing: the S3 documentation's published examples (GET with Range, PUT with extra
// headers, GET with a subresource, GET with query parameters), and how URIs, queries and headers
// are canonicalised.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "s3_sigv4.h"
#include "s3_url.h"

namespace
{

// The S3 documentation's example key pair and time (20130524T000000Z).
constexpr time_t kExampleTime = 1369353600;
const char *const kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

s3_credentials ExampleCredentials()
{
    s3_credentials c{};
    snprintf(c.access_key_id, sizeof(c.access_key_id), "AKIAIOSFODNN7EXAMPLE");
    snprintf(c.secret_access_key, sizeof(c.secret_access_key),
             "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    return c;
}

s3_sign_input Input(const char *method, const char *url, const char *const *headers,
                    const char *payload)
{
    s3_sign_input in{};
    in.method = method;
    in.url = url;
    in.headers = headers;
    in.payload_sha256 = payload;
    in.region = "us-east-1";
    in.service = "s3";
    in.now = kExampleTime;
    return in;
}

std::string Authorization(const s3_signed_headers &h)
{
    for (unsigned i = 0; i < h.count; i++)
        if (strncmp(h.lines[i], "Authorization: ", 15) == 0)
            return h.lines[i] + 15;
    return "";
}

std::string Canonical(const s3_sign_input &in, const s3_credentials &cred)
{
    char *creq = nullptr;
    EXPECT_EQ(s3_sign_canonical_request(&in, &cred, &creq), 0);
    std::string s = creq ? creq : "";
    free(creq);
    return s;
}

std::string ExpectedAuthorization(const char *signed_headers, const char *signature)
{
    return std::string("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                       "aws4_request, SignedHeaders=") +
           signed_headers + ", Signature=" + signature;
}

} // namespace

TEST(S3Sigv4, Sha256OfEmptyAndKnownText)
{
    char hex[65];
    s3_sha256_hex("", 0, hex);
    EXPECT_STREQ(hex, kEmptySha256);
    s3_sha256_hex("Welcome to Amazon S3.", 21, hex);
    EXPECT_STREQ(hex, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
}

TEST(S3Sigv4, PublishedGetObjectWithRange)
{
    const char *headers[] = {"Range: bytes=0-9", nullptr};
    s3_sign_input in =
        Input("GET", "https://examplebucket.s3.amazonaws.com/test.txt", headers, kEmptySha256);
    s3_credentials cred = ExampleCredentials();
    EXPECT_EQ(Canonical(in, cred), "GET\n/test.txt\n\n"
                                   "host:examplebucket.s3.amazonaws.com\n"
                                   "range:bytes=0-9\n"
                                   "x-amz-content-sha256:" +
                                       std::string(kEmptySha256) +
                                       "\n"
                                       "x-amz-date:20130524T000000Z\n\n"
                                       "host;range;x-amz-content-sha256;x-amz-date\n" +
                                       kEmptySha256);
    s3_signed_headers out;
    ASSERT_EQ(s3_sign(&in, &cred, &out), 0);
    ASSERT_EQ(out.count, 3u);
    EXPECT_STREQ(out.lines[0], "x-amz-date: 20130524T000000Z");
    EXPECT_EQ(std::string(out.lines[1]), std::string("x-amz-content-sha256: ") + kEmptySha256);
    EXPECT_EQ(
        Authorization(out),
        ExpectedAuthorization("host;range;x-amz-content-sha256;x-amz-date",
                              "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
}

// The S3 documentation's PUT Object example, with the key's '$' as given in url.
std::string SignPutExample(const char *url)
{
    char payload[65];
    s3_sha256_hex("Welcome to Amazon S3.", 21, payload);
    const char *headers[] = {"Date: Fri, 24 May 2013 00:00:00 GMT",
                             "x-amz-storage-class: REDUCED_REDUNDANCY", nullptr};
    s3_sign_input in = Input("PUT", url, headers, payload);
    s3_credentials cred = ExampleCredentials();
    s3_signed_headers out;
    EXPECT_EQ(s3_sign(&in, &cred, &out), 0);
    return Authorization(out);
}

TEST(S3Sigv4, PublishedPutObjectWithDateAndStorageClass)
{
    EXPECT_EQ(
        SignPutExample("https://examplebucket.s3.amazonaws.com/test%24file.text"),
        ExpectedAuthorization("date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
                              "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"));
}

TEST(S3Sigv4, UnencodedDollarInPathSignsAsEncoded)
{
    EXPECT_EQ(SignPutExample("https://examplebucket.s3.amazonaws.com/test$file.text"),
              SignPutExample("https://examplebucket.s3.amazonaws.com/test%24file.text"));
}

TEST(S3Sigv4, PublishedGetBucketLifecycle)
{
    s3_sign_input in =
        Input("GET", "https://examplebucket.s3.amazonaws.com/?lifecycle", nullptr, kEmptySha256);
    s3_credentials cred = ExampleCredentials();
    EXPECT_NE(Canonical(in, cred).find("GET\n/\nlifecycle=\n"), std::string::npos);
    s3_signed_headers out;
    ASSERT_EQ(s3_sign(&in, &cred, &out), 0);
    EXPECT_EQ(
        Authorization(out),
        ExpectedAuthorization("host;x-amz-content-sha256;x-amz-date",
                              "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"));
}

TEST(S3Sigv4, PublishedListObjectsWithQueryParameters)
{
    s3_sign_input in = Input("GET", "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
                             nullptr, kEmptySha256);
    s3_credentials cred = ExampleCredentials();
    s3_signed_headers out;
    ASSERT_EQ(s3_sign(&in, &cred, &out), 0);
    EXPECT_EQ(
        Authorization(out),
        ExpectedAuthorization("host;x-amz-content-sha256;x-amz-date",
                              "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
}

TEST(S3Sigv4, SessionTokenIsSentAndSigned)
{
    s3_sign_input in =
        Input("GET", "https://examplebucket.s3.amazonaws.com/test.txt", nullptr, kEmptySha256);
    s3_credentials plain = ExampleCredentials();
    s3_credentials temp = ExampleCredentials();
    snprintf(temp.session_token, sizeof(temp.session_token), "FQoGZXIvYXdzEXAMPLE//token==");
    s3_signed_headers a, b;
    ASSERT_EQ(s3_sign(&in, &plain, &a), 0);
    ASSERT_EQ(s3_sign(&in, &temp, &b), 0);
    ASSERT_EQ(b.count, 4u);
    EXPECT_STREQ(b.lines[2], "x-amz-security-token: FQoGZXIvYXdzEXAMPLE//token==");
    EXPECT_NE(Authorization(b).find(
                  "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"),
              std::string::npos);
    EXPECT_NE(Authorization(a).substr(Authorization(a).find("Signature=")),
              Authorization(b).substr(Authorization(b).find("Signature=")));
    EXPECT_NE(Canonical(in, temp).find("x-amz-security-token:FQoGZXIvYXdzEXAMPLE//token==\n"),
              std::string::npos);
}

TEST(S3Sigv4, WrongSecretGivesAnotherSignature)
{
    s3_sign_input in =
        Input("GET", "https://examplebucket.s3.amazonaws.com/test.txt", nullptr, kEmptySha256);
    s3_credentials good = ExampleCredentials(), bad = ExampleCredentials();
    bad.secret_access_key[0] = 'X';
    s3_signed_headers a, b;
    ASSERT_EQ(s3_sign(&in, &good, &a), 0);
    ASSERT_EQ(s3_sign(&in, &bad, &b), 0);
    EXPECT_NE(Authorization(a), Authorization(b));
}

TEST(S3Sigv4, KeysWithSpacesUnicodePlusTildePercentAreEncodedOnce)
{
    s3_settings st{};
    snprintf(st.region, sizeof(st.region), "us-east-1");
    s3_location loc{};
    snprintf(loc.bucket, sizeof(loc.bucket), "examplebucket");
    snprintf(loc.key, sizeof(loc.key), "dir one/caf\xC3\xA9+x~y%%z.bin");
    char url[4096], host[512];
    ASSERT_EQ(s3_request_url(&st, &loc, nullptr, url, sizeof(url), host, sizeof(host)), 0);
    EXPECT_STREQ(url, "https://examplebucket.s3.us-east-1.amazonaws.com/"
                      "dir%20one/caf%C3%A9%2Bx~y%25z.bin");
    s3_sign_input in = Input("GET", url, nullptr, S3_UNSIGNED_PAYLOAD);
    s3_credentials cred = ExampleCredentials();
    std::string creq = Canonical(in, cred);
    EXPECT_EQ(creq.substr(0, creq.find('\n', 4) + 1), "GET\n/dir%20one/caf%C3%A9%2Bx~y%25z.bin\n");
    EXPECT_EQ(creq.substr(creq.rfind('\n') + 1), "UNSIGNED-PAYLOAD");
}

TEST(S3Sigv4, LowercaseAndNeedlessEscapesAreNormalised)
{
    s3_credentials cred = ExampleCredentials();
    s3_sign_input a = Input("GET", "https://b.example.com/a%2fb%7Ec%c3%a9", nullptr, kEmptySha256);
    s3_sign_input b = Input("GET", "https://b.example.com/a%2Fb~c%C3%A9", nullptr, kEmptySha256);
    EXPECT_EQ(Canonical(a, cred), Canonical(b, cred));
    // S3 reads %2F in a path as the '/' it stands for, so it signs as one.
    EXPECT_EQ(Canonical(a, cred).substr(0, 18), "GET\n/a/b~c%C3%A9\n\n");
}

TEST(S3Sigv4, QueryIsSortedAndEncoded)
{
    s3_credentials cred = ExampleCredentials();
    s3_sign_input in = Input("GET", "https://b.example.com/k?uploadId=z%2By&b=2&a=1&a=0&flag",
                             nullptr, kEmptySha256);
    std::string creq = Canonical(in, cred);
    EXPECT_NE(creq.find("\n/k\na=0&a=1&b=2&flag=&uploadId=z%2By\n"), std::string::npos) << creq;
}

TEST(S3Sigv4, RequestUrlEncodesQueryNamesAndValues)
{
    s3_settings st{};
    snprintf(st.region, sizeof(st.region), "us-east-1");
    snprintf(st.endpoint, sizeof(st.endpoint), "http://127.0.0.1:9000");
    st.path_style = true;
    s3_location loc{};
    snprintf(loc.bucket, sizeof(loc.bucket), "bucket");
    snprintf(loc.key, sizeof(loc.key), "k");
    char url[512], host[128];
    ASSERT_EQ(s3_request_url(&st, &loc, "partNumber=3&uploadId=a/b+c d", url, sizeof(url), host,
                             sizeof(host)),
              0);
    EXPECT_STREQ(url, "http://127.0.0.1:9000/bucket/k?partNumber=3&uploadId=a%2Fb%2Bc%20d");
    s3_credentials cred = ExampleCredentials();
    s3_sign_input in = Input("PUT", url, nullptr, S3_UNSIGNED_PAYLOAD);
    EXPECT_NE(Canonical(in, cred).find("\npartNumber=3&uploadId=a%2Fb%2Bc%20d\n"),
              std::string::npos);
    EXPECT_NE(Canonical(in, cred).find("\nhost:127.0.0.1:9000\n"), std::string::npos);
}

TEST(S3Sigv4, HeadersAreLowercasedTrimmedAndCombined)
{
    const char *headers[] = {"My-Header2:   \"a   b\"  c  ", "X-Amz-Meta-Tag: two",
                             "x-amz-meta-tag:  one ", nullptr};
    s3_sign_input in = Input("HEAD", "https://b.example.com/k", headers, kEmptySha256);
    s3_credentials cred = ExampleCredentials();
    std::string creq = Canonical(in, cred);
    EXPECT_NE(creq.find("\nhost:b.example.com\nmy-header2:\"a b\" c\n"), std::string::npos) << creq;
    EXPECT_NE(creq.find("\nx-amz-meta-tag:two,one\n"), std::string::npos) << creq;
    EXPECT_NE(creq.find("\nhost;my-header2;x-amz-content-sha256;x-amz-date;x-amz-meta-tag\n"),
              std::string::npos)
        << creq;
}

TEST(S3Sigv4, DefaultPortIsLeftOutOfHost)
{
    s3_credentials cred = ExampleCredentials();
    s3_sign_input https = Input("GET", "https://b.example.com:443/k", nullptr, kEmptySha256);
    s3_sign_input http = Input("GET", "http://b.example.com:80/k", nullptr, kEmptySha256);
    s3_sign_input other = Input("GET", "http://b.example.com:8080/k", nullptr, kEmptySha256);
    EXPECT_NE(Canonical(https, cred).find("\nhost:b.example.com\n"), std::string::npos);
    EXPECT_NE(Canonical(http, cred).find("\nhost:b.example.com\n"), std::string::npos);
    EXPECT_NE(Canonical(other, cred).find("\nhost:b.example.com:8080\n"), std::string::npos);
}

TEST(S3Sigv4, BadInputIsRefused)
{
    s3_credentials cred = ExampleCredentials();
    s3_signed_headers out;
    const char *host_header[] = {"Host: evil.example.com", nullptr};
    const char *auth_header[] = {"authorization: x", nullptr};
    const char *no_colon[] = {"Range bytes=0-9", nullptr};
    const char *bad_name[] = {"Ra nge: bytes=0-9", nullptr};

    s3_sign_input in = Input("GET", "https://b.example.com/k", host_header, kEmptySha256);
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    in.headers = auth_header;
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    in.headers = no_colon;
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    in.headers = bad_name;
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);

    in = Input("GET", "b.example.com/k", nullptr, kEmptySha256);
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    in = Input("GET", "https:///k", nullptr, kEmptySha256);
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    in = Input("GET", "https://b.example.com/k", nullptr, "E3B0C442");
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    in = Input("GET", "https://b.example.com/k", nullptr, kEmptySha256);
    in.region = "";
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    EXPECT_EQ(out.count, 0u);

    const char *injected[] = {"Range: bytes=0-9\r\nX-Evil: 1", nullptr};
    in = Input("GET", "https://b.example.com/k", injected, kEmptySha256);
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    std::string long_region(250, 'r');
    in = Input("GET", "https://b.example.com/k", nullptr, kEmptySha256);
    in.region = long_region.c_str();
    EXPECT_EQ(s3_sign(&in, &cred, &out), -EINVAL);
    s3_credentials bad_token = ExampleCredentials();
    snprintf(bad_token.session_token, sizeof(bad_token.session_token), "tok\nX-Evil: 1");
    in = Input("GET", "https://b.example.com/k", nullptr, kEmptySha256);
    EXPECT_EQ(s3_sign(&in, &bad_token, &out), -EINVAL);

    s3_credentials none{};
    in = Input("GET", "https://b.example.com/k", nullptr, kEmptySha256);
    EXPECT_EQ(s3_sign(&in, &none, &out), -EINVAL);
}

TEST(S3Sigv4, TooManyHeadersIsE2big)
{
    static char names[S3_SIGN_MAX_HEADERS + 1][32];
    const char *headers[S3_SIGN_MAX_HEADERS + 2] = {};
    for (int i = 0; i <= S3_SIGN_MAX_HEADERS; i++) {
        snprintf(names[i], sizeof(names[i]), "x-test-%d: v", i);
        headers[i] = names[i];
    }
    s3_credentials cred = ExampleCredentials();
    s3_sign_input in = Input("GET", "https://b.example.com/k", headers, kEmptySha256);
    s3_signed_headers out;
    EXPECT_EQ(s3_sign(&in, &cred, &out), -E2BIG);
    headers[S3_SIGN_MAX_HEADERS] = nullptr;
    EXPECT_EQ(s3_sign(&in, &cred, &out), 0);
}
