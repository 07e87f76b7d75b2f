/*
 * No remote failure shows a URL's secrets: every error path of an open, a read and a write is
 * driven with a marker as the URL's password and as its X-Amz-Signature and X-Amz-Credential,
 * with the log at its most verbose (HIPFILE_LOG_LEVEL=debug), and the marker must not appear in
 * what was logged while the redacted URL must. A response header above the backend's limit is
 * reported as that limit, not as memory running out.
 */
#include "fault_server.h"

namespace
{

const char kMarker[] = "S3CR3TMARK";

class RemoteSecrets : public RemoteFaults
{
  protected:
    void SetUp() override
    {
        RemoteFaults::SetUp();
        ::testing::internal::CaptureStderr();
        capturing_ = true;
    }
    void TearDown() override
    {
        RemoteFaults::TearDown();
        Logged();
    }
    /* The object's URL with the marker as password and in the signing parameters. */
    std::string SecretUrl(const std::string &name, const std::string &query = "") const
    {
        std::string url =
            Url(name, std::string("X-Amz-Credential=AKIA") + kMarker +
                          "&X-Amz-Signature=" + kMarker + (query.empty() ? "" : "&" + query));
        return url.insert(strlen("http://"), std::string("user:") + kMarker + "@");
    }
    /* What was logged since the test began; checked for the marker once. */
    const std::string &Logged()
    {
        if (capturing_) {
            capturing_ = false;
            log_ = ::testing::internal::GetCapturedStderr();
            EXPECT_EQ(log_.find(kMarker), std::string::npos) << log_;
        }
        return log_;
    }
    /* The redacted form of SecretUrl(name) was logged, so the lines checked did name the URL. */
    void ExpectRedactedUrlLogged(const std::string &name)
    {
        std::string shown = base_ + "/" + name + "?X-Amz-Credential=***&X-Amz-Signature=***";
        shown.insert(strlen("http://"), "***@");
        EXPECT_NE(Logged().find(shown), std::string::npos) << Logged();
    }
    void OpenFails(const std::string &url, const char *options, hipFileOpError_t want)
    {
        hipFileHandle_t fh = nullptr;
        EXPECT_EQ(Open(url, options, &fh).err, want) << hipFileGetOpErrorString(want);
    }

  private:
    bool capturing_ = false;
    std::string log_;
};

const char *const kOneRetry = "retries=1;backoff_base_ms=1;piece_size_kb=64;connections=2";

TEST_F(RemoteSecrets, SuccessfulOpenAndRead)
{
    hipFileHandle_t fh = OpenOk(SecretUrl("obj"), kOneRetry);
    ReadAndCheck(fh, 0, kSize, kSize, 31);
    ExpectRedactedUrlLogged("obj");
}

/* An open that fails: the object, the faults asked of the server, the status it must give. */
struct OpenFailure {
    const char *name;
    const char *object;
    const char *query;
    hipFileOpError_t want;
};

class RemoteSecretsOpen : public RemoteSecrets, public ::testing::WithParamInterface<OpenFailure>
{
};

TEST_P(RemoteSecretsOpen, Fails)
{
    const OpenFailure &f = GetParam();
    OpenFails(SecretUrl(f.object, f.query), kOneRetry, f.want);
    ExpectRedactedUrlLogged(f.object);
}

INSTANTIATE_TEST_SUITE_P(
    Paths, RemoteSecretsOpen,
    ::testing::Values(OpenFailure{"HeadServerError", "obj", "fail_head=500", hipFileDriverError},
                      OpenFailure{"HeadDenied", "obj", "fail_head=403&fail=403&times=9",
                                  hipFilePermissionDenied},
                      OpenFailure{"MissingObject", "nothing", "", hipFileInvalidValue},
                      OpenFailure{"UnknownLength", "obj", "no_length=1", hipFileDriverError},
                      OpenFailure{"Redirect", "obj", "redirect=1", hipFileDriverError}),
    [](const ::testing::TestParamInfo<OpenFailure> &info) { return std::string(info.param.name); });

TEST_F(RemoteSecrets, ConnectionRefused)
{
    kill(server_, SIGTERM);
    waitpid(server_, nullptr, 0);
    server_ = -1;
    OpenFails(SecretUrl("obj"), kOneRetry, hipFileDriverError);
    ExpectRedactedUrlLogged("obj");
}

/* A read that fails after the open succeeded: the faults, the open options, the errno. */
struct ReadFailure {
    const char *name;
    const char *query;
    const char *options;
    int err;
};

class RemoteSecretsRead : public RemoteSecrets, public ::testing::WithParamInterface<ReadFailure>
{
};

TEST_P(RemoteSecretsRead, Fails)
{
    const ReadFailure &f = GetParam();
    hipFileHandle_t fh = OpenOk(SecretUrl("obj", f.query), f.options);
    ReadFails(fh, kSize, f.err);
    ExpectRedactedUrlLogged("obj");
}

INSTANTIATE_TEST_SUITE_P(
    Paths, RemoteSecretsRead,
    ::testing::Values(
        ReadFailure{"GetServerError", "fail=500&times=1000", kOneRetry, EIO},
        ReadFailure{"GetTimeout", "slow_ms=3000", "retries=0;request_timeout_ms=300", ETIMEDOUT},
        ReadFailure{"ShortBody", "truncate=1", kOneRetry, EIO},
        ReadFailure{"ChangedObject", "etag_changes=1", kOneRetry, ESTALE},
        ReadFailure{"HugeHeader", "big_header=1048576&on_get=1", kOneRetry, EMSGSIZE}),
    [](const ::testing::TestParamInfo<ReadFailure> &info) { return std::string(info.param.name); });

TEST_F(RemoteSecrets, NotAnHttpUrl)
{
    OpenFails(std::string("ftp://user:") + kMarker + "@host/obj?sig=" + kMarker, nullptr,
              hipFileInvalidValue);
    EXPECT_NE(Logged().find("ftp://***@host/obj?sig=***"), std::string::npos) << Logged();
}

TEST_F(RemoteSecrets, TooLongUrlIsCutAfterItIsRedacted)
{
    /* The message shows the first 200 bytes: all of them password. */
    std::string password(300, 'P');
    OpenFails("http://user:" + password + "@host/" + std::string(9000, 'a'), nullptr,
              hipFileInvalidValue);
    EXPECT_EQ(Logged().find("PPPPPPPPPP"), std::string::npos) << Logged();
    EXPECT_NE(Logged().find("http://***@host/aaa"), std::string::npos) << Logged();
}

TEST_F(RemoteSecrets, BadS3Endpoint)
{
    std::string options = std::string("endpoint=http://user:") + kMarker + "@127.0.0.1:9/path";
    setenv("AWS_ACCESS_KEY_ID", "test", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "test", 1);
    OpenFails("s3://bkt/obj", options.c_str(), hipFileInvalidValue);
    EXPECT_NE(Logged().find("http://***@127.0.0.1:9/path"), std::string::npos) << Logged();
}

/* Item of its own: the limit on a response header, named as such. */
TEST_F(RemoteSecrets, HugeHeaderOnOpenNamesTheLimit)
{
    OpenFails(SecretUrl("obj", "big_header=1048576"), kOneRetry, hipFileDriverError);
    EXPECT_NE(Logged().find("the response header exceeds the 64 KiB limit"), std::string::npos)
        << Logged();
    EXPECT_EQ(Logged().find("Out of memory"), std::string::npos) << Logged();
    ExpectRedactedUrlLogged("obj");
}

TEST_F(RemoteSecrets, ManyHeaderLinesOnOpenNameTheLimit)
{
    OpenFails(SecretUrl("obj", "many_headers=100"), kOneRetry, hipFileDriverError);
    EXPECT_NE(Logged().find("the response header exceeds the 64 KiB limit"), std::string::npos)
        << Logged();
}

TEST_F(RemoteSecrets, HugeHeaderOnReadNamesTheLimit)
{
    hipFileHandle_t fh = OpenOk(SecretUrl("obj", "big_header=1048576&on_get=1"), kOneRetry);
    ReadFails(fh, kSize, EMSGSIZE);
    EXPECT_NE(Logged().find("the response header exceeds the 64 KiB limit"), std::string::npos)
        << Logged();
    EXPECT_EQ(Logged().find("Out of memory"), std::string::npos) << Logged();
    /* Not retried: the same server sends the same header again. */
    EXPECT_EQ(Logged().find("retry 1 of 1"), std::string::npos) << Logged();
    ExpectRedactedUrlLogged("obj");
}

TEST_F(RemoteSecrets, HeaderUnderTheLimitIsRead)
{
    hipFileHandle_t fh = OpenOk(SecretUrl("obj", "big_header=30000"), kOneRetry);
    ReadAndCheck(fh, 0, kSize, kSize, 31);
}

/* A store whose second part of every multipart upload fails, at an endpoint with a password. */
class RemoteSecretsWrite : public RemoteSecrets
{
  protected:
    std::vector<std::string> ServerArgs() const override
    {
        return {"--fail-part", "2"};
    }
};

TEST_F(RemoteSecretsWrite, FailedUpload)
{
    std::string endpoint = base_;
    endpoint.insert(strlen("http://"), std::string("user:") + kMarker + "@");
    WriteFailsAt(endpoint);
    std::string shown = base_ + "/bkt/obj.bin?partNumber=2";
    shown.insert(strlen("http://"), "***@");
    EXPECT_NE(Logged().find(shown), std::string::npos) << Logged();
}

} // namespace
