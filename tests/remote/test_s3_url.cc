// s3:// URL parsing and bucket rules, and the request URL and Host header for AWS (virtual-hosted
// and path-style) and for an endpoint override.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "s3_url.h"

namespace
{

s3_settings Settings(const char *region, const char *endpoint, bool path_style)
{
    s3_settings st{};
    snprintf(st.region, sizeof(st.region), "%s", region);
    snprintf(st.endpoint, sizeof(st.endpoint), "%s", endpoint);
    st.path_style = path_style;
    return st;
}

void ExpectParseError(const std::string &url, const char *message_part)
{
    s3_location loc;
    char err[256] = "";
    EXPECT_EQ(s3_parse_url(url.c_str(), &loc, err, sizeof(err)), -EINVAL) << url;
    EXPECT_NE(std::string(err).find(message_part), std::string::npos) << url << ": " << err;
}

void ExpectRequestUrl(const s3_settings &st, const s3_location &loc, const char *query,
                      const char *url, const char *host)
{
    char got_url[512], got_host[256];
    ASSERT_EQ(
        s3_request_url(&st, &loc, query, got_url, sizeof(got_url), got_host, sizeof(got_host)), 0);
    EXPECT_STREQ(got_url, url);
    EXPECT_STREQ(got_host, host);
}

} // namespace

TEST(S3Url, ParsesBucketAndKeyWithSlashes)
{
    s3_location loc;
    char err[256];
    ASSERT_EQ(s3_parse_url("s3://my-bucket.data/a/b//c d%20.bin", &loc, err, sizeof(err)), 0);
    EXPECT_STREQ(loc.bucket, "my-bucket.data");
    EXPECT_STREQ(loc.key, "a/b//c d%20.bin"); // taken literally, not percent-decoded
}

TEST(S3Url, KeyMayHoldAnyBytes)
{
    s3_location loc;
    char err[256];
    ASSERT_EQ(s3_parse_url("s3://bucket/\xC3\xA9\x01?#+", &loc, err, sizeof(err)), 0);
    EXPECT_STREQ(loc.key, "\xC3\xA9\x01?#+");
}

TEST(S3Url, MalformedUrlsSayWhatIsWrong)
{
    ExpectParseError("http://bucket/key", "not an S3 URL");
    ExpectParseError("s3:/bucket/key", "not an S3 URL");
    ExpectParseError("s3:///key", "names no bucket");
    ExpectParseError("s3://bucket", "no object key");
    ExpectParseError("s3://bucket/", "no object key");
    ExpectParseError("s3://ab/key", "3 to 63");
    ExpectParseError("s3://" + std::string(64, 'a') + "/key", "3 to 63");
    ExpectParseError("s3://" + std::string(300, 'a') + "/key", "longer than 63");
    ExpectParseError("s3://My-Bucket/key", "lowercase");
    ExpectParseError("s3://bucket_1/key", "lowercase");
    ExpectParseError("s3://-bucket/key", "begin and end");
    ExpectParseError("s3://bucket-/key", "begin and end");
    ExpectParseError("s3://my..bucket/key", "adjacent dots");
    ExpectParseError("s3://192.168.5.4/key", "IP address");
    ExpectParseError("s3://xn--bucket/key", "reserves");
    ExpectParseError("s3://bucket-s3alias/key", "reserves");
    ExpectParseError("s3://bucket/" + std::string(S3_KEY_MAX + 1, 'k'), "S3 allows 1024");
    s3_location loc;
    EXPECT_EQ(s3_parse_url(nullptr, &loc, nullptr, 0), -EINVAL);
}

TEST(S3Url, LongestKeyIsAccepted)
{
    s3_location loc;
    char err[256];
    std::string url = "s3://bucket/" + std::string(S3_KEY_MAX, 'k');
    ASSERT_EQ(s3_parse_url(url.c_str(), &loc, err, sizeof(err)), 0);
    EXPECT_EQ(std::string(loc.key).size(), (size_t)S3_KEY_MAX);
}

TEST(S3Url, AwsVirtualHostedByDefault)
{
    ExpectRequestUrl(Settings("eu-west-1", "", false), {"bucket", "dir/obj"}, nullptr,
                     "https://bucket.s3.eu-west-1.amazonaws.com/dir/obj",
                     "bucket.s3.eu-west-1.amazonaws.com");
}

TEST(S3Url, AwsPathStyleWhenAsked)
{
    ExpectRequestUrl(Settings("us-east-1", "", true), {"bucket", "obj"}, "uploads",
                     "https://s3.us-east-1.amazonaws.com/bucket/obj?uploads",
                     "s3.us-east-1.amazonaws.com");
}

TEST(S3Url, DottedBucketFallsBackToPathStyle)
{
    ExpectRequestUrl(Settings("us-east-1", "", false), {"my.bucket", "obj"}, nullptr,
                     "https://s3.us-east-1.amazonaws.com/my.bucket/obj",
                     "s3.us-east-1.amazonaws.com");
}

TEST(S3Url, EndpointOverrideKeepsSchemeAndPort)
{
    ExpectRequestUrl(Settings("us-east-1", "http://127.0.0.1:4568", true), {"bucket", "a b/c"},
                     "partNumber=1&uploadId=u1",
                     "http://127.0.0.1:4568/bucket/a%20b/c?partNumber=1&uploadId=u1",
                     "127.0.0.1:4568");
    ExpectRequestUrl(Settings("us-east-1", "https://storage.example.com:443", false),
                     {"bucket", "a b/c"}, nullptr, "https://bucket.storage.example.com/a%20b/c",
                     "bucket.storage.example.com");
}

TEST(S3Url, BadEndpointAndSmallBuffersAreRefused)
{
    s3_location loc{"bucket", "obj"};
    char url[512], host[256];
    s3_settings st = Settings("us-east-1", "ftp://host", true);
    EXPECT_EQ(s3_request_url(&st, &loc, nullptr, url, sizeof(url), host, sizeof(host)), -EINVAL);
    st = Settings("us-east-1", "http://host/prefix", true);
    EXPECT_EQ(s3_request_url(&st, &loc, nullptr, url, sizeof(url), host, sizeof(host)), -EINVAL);
    st = Settings("us-east-1", "http://host:9000", true);
    EXPECT_EQ(s3_request_url(&st, &loc, nullptr, url, 20, host, sizeof(host)), -ENOSPC);
    EXPECT_EQ(s3_request_url(&st, &loc, nullptr, url, sizeof(url), host, 4), -ENOSPC);
    s3_location empty{};
    EXPECT_EQ(s3_request_url(&st, &empty, nullptr, url, sizeof(url), host, sizeof(host)), -EINVAL);
}

TEST(S3Url, UriEncodeKeepsUnreservedAndSlashOnlyInPaths)
{
    char out[64];
    EXPECT_EQ(s3_uri_encode("a/b c~", 6, 1, out, sizeof(out)), 8);
    EXPECT_STREQ(out, "a/b%20c~");
    EXPECT_EQ(s3_uri_encode("a/b c~", 6, 0, out, sizeof(out)), 10);
    EXPECT_STREQ(out, "a%2Fb%20c~");
    EXPECT_EQ(s3_uri_encode("\xff", 1, 0, out, 3), -ENOSPC);
    EXPECT_EQ(s3_uri_encode("\xff", 1, 0, out, 4), 3);
    EXPECT_STREQ(out, "%FF");
}
