/*
 * hipFileRedactUrls: userinfo and signing or credential parameters of every URL in a text are
 * replaced, everything else is kept byte for byte, and a small buffer gets a redacted prefix,
 * never a piece of a secret.
 */
#include <gtest/gtest.h>
#include <hipfile/remote.h>

#include <string>

namespace
{

const char kMarker[] = "S3CR3TMARK";

std::string Redact(const std::string &text, size_t size = 4096)
{
    std::string out(size, '\x7f');
    size_t len = hipFileRedactUrls(text.c_str(), size > 0 ? &out[0] : nullptr, size);
    if (size == 0)
        return std::to_string(len);
    size_t nul = out.find('\0');
    EXPECT_NE(nul, std::string::npos) << "not NUL-terminated";
    out.resize(nul);
    if (len < size) {
        EXPECT_EQ(len, out.size()) << text;
    }
    return out;
}

TEST(UrlRedact, TextWithoutSecretsIsUnchanged)
{
    const char *texts[] = {"",
                           "plain words",
                           "a:b@c is not a URL",
                           "ratio 3://4",
                           "key=S3CR3TMARK without a URL",
                           "://S3CR3TMARK@host",
                           "http://127.0.0.1:8080/bucket/key.bin",
                           "https://example.com/a/b?partNumber=3&uploadId=abc#frag",
                           "s3://bucket/dir/obj",
                           "http://[::1]:9000/x?versionId=7",
                           "http://host/",
                           "http://host:/path"};
    for (const char *t : texts)
        EXPECT_EQ(Redact(t), t);
}

TEST(UrlRedact, UserAndPasswordAreRedacted)
{
    EXPECT_EQ(Redact("http://user:S3CR3TMARK@host:81/obj"), "http://***@host:81/obj");
    EXPECT_EQ(Redact("https://S3CR3TMARK@github.example/repo"), "https://***@github.example/repo");
    EXPECT_EQ(Redact("http://u:p@ss:S3CR3TMARK@host/x"), "http://***@host/x");
    EXPECT_EQ(Redact("http://:S3CR3TMARK@[::1]:80/x"), "http://***@[::1]:80/x");
}

TEST(UrlRedact, PasswordWithUnescapedSlashIsRedactedWhole)
{
    EXPECT_EQ(Redact("http://user:S3CR/3TMARK@host/x"), "http://***@host/x");
}

TEST(UrlRedact, PasswordCutBeforeItsAtIsRedacted)
{
    /* What "%.20s" of "http://user:S3CR3TMARK@host/" leaves. */
    EXPECT_EQ(Redact("cannot open http://user:S3CR3T"), "cannot open http://user:***");
    EXPECT_EQ(Redact("http://user:S3CR3TMARK rest"), "http://user:*** rest");
}

TEST(UrlRedact, PresignedS3QueryIsRedacted)
{
    std::string url = "https://bkt.s3.us-east-1.amazonaws.com/obj?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                      "&X-Amz-Credential=AKIAS3CR3TMARK%2F20240101%2Fus-east-1%2Fs3%2Faws4_request"
                      "&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600"
                      "&X-Amz-Security-Token=S3CR3TMARKtok&X-Amz-SignedHeaders=host"
                      "&X-Amz-Signature=S3CR3TMARK0123";
    EXPECT_EQ(Redact(url), "https://bkt.s3.us-east-1.amazonaws.com/obj?X-Amz-Algorithm=AWS4-HMAC-"
                           "SHA256&X-Amz-Credential=***&X-Amz-Date=20240101T000000Z&X-Amz-"
                           "Expires=3600&X-Amz-Security-Token=***&X-Amz-SignedHeaders=host&X-Amz-"
                           "Signature=***");
}

TEST(UrlRedact, ParameterNamesMatchWithoutCase)
{
    const char *names[] = {"x-amz-signature",
                           "X-AMZ-SIGNATURE",
                           "x-Amz-CREDENTIAL",
                           "Signature",
                           "sig",
                           "SIG",
                           "X-Goog-Signature",
                           "X-Goog-Credential",
                           "AWSAccessKeyId",
                           "token",
                           "access_token",
                           "refresh_token",
                           "client_secret",
                           "password",
                           "key",
                           "api_key",
                           "X-Api-Key",
                           "x-amz-security-token"};
    for (const char *name : names) {
        std::string url = std::string("http://h/o?a=1&") + name + "=" + kMarker + "&b=2";
        EXPECT_EQ(Redact(url), std::string("http://h/o?a=1&") + name + "=***&b=2") << name;
    }
}

TEST(UrlRedact, OtherParametersAreKept)
{
    EXPECT_EQ(Redact("http://h/o?Expires=1700000000&se=2024&sp=r&signed=no"),
              "http://h/o?Expires=1700000000&se=2024&sp=r&signed=no");
}

TEST(UrlRedact, FragmentParametersAreRedacted)
{
    EXPECT_EQ(Redact("https://h/cb#access_token=S3CR3TMARK&state=1"),
              "https://h/cb#access_token=***&state=1");
}

TEST(UrlRedact, UrlInsideTextIsRedactedAndTheTextKept)
{
    EXPECT_EQ(Redact("HEAD http://user:S3CR3TMARK@127.0.0.1:5/obj: HTTP 500 (request id x)"),
              "HEAD http://***@127.0.0.1:5/obj: HTTP 500 (request id x)");
    EXPECT_EQ(Redact("\"http://h/o?sig=S3CR3TMARK\" is not"), "\"http://h/o?sig=***\" is not");
    EXPECT_EQ(Redact("<https://a:S3CR3TMARK@h/>"), "<https://***@h/>");
    EXPECT_EQ(Redact("GET http://h/o?sig=S3CR3TMARK: HTTP 500"),
              "GET http://h/o?sig=***: HTTP 500");
    EXPECT_EQ(Redact("(see http://h/o?token=S3CR3TMARK)."), "(see http://h/o?token=***).");
}

TEST(UrlRedact, EveryUrlOfTheTextIsRedacted)
{
    EXPECT_EQ(
        Redact("from http://a:S3CR3TMARK@h1/x to https://h2/y?Signature=S3CR3TMARK and "
               "s3://b/k?X-Amz-Signature=S3CR3TMARK"),
        "from http://***@h1/x to https://h2/y?Signature=*** and s3://b/k?X-Amz-Signature=***");
}

TEST(UrlRedact, NestedUrlIsRedacted)
{
    EXPECT_EQ(Redact("http://proxy/fetch?next=http://u:S3CR3TMARK@h/o&sig2=1"),
              "http://proxy/fetch?next=http://***@h/o&sig2=1");
    EXPECT_EQ(Redact("http://proxy/http://u:S3CR3TMARK@h/o"), "http://proxy/http://***@h/o");
    std::string deep = "http://h/?n=";
    for (int i = 0; i < 50; i++)
        deep += "http://h/?n=";
    deep += "http://u:S3CR3TMARK@h/";
    EXPECT_EQ(Redact(deep).find(kMarker), std::string::npos);
}

TEST(UrlRedact, SmallBufferGetsARedactedPrefix)
{
    std::string text = "x http://user:S3CR3TMARK@host/o?X-Amz-Signature=S3CR3TMARK";
    std::string whole = Redact(text);
    for (size_t size = 1; size <= whole.size() + 1; size++) {
        std::string cut = Redact(text, size);
        EXPECT_EQ(cut, whole.substr(0, size - 1)) << size;
        EXPECT_EQ(cut.find("S3CR"), std::string::npos) << size;
    }
    EXPECT_EQ(Redact(text, 0), std::to_string(whole.size()));
    EXPECT_EQ(hipFileRedactUrls(text.c_str(), nullptr, 0), whole.size());
}

TEST(UrlRedact, NullTextIsEmpty)
{
    char out[8] = "zzz";
    EXPECT_EQ(hipFileRedactUrls(nullptr, out, sizeof(out)), 0u);
    EXPECT_STREQ(out, "");
}

} // namespace
