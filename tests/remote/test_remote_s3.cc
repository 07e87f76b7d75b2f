/*
 * s3:// objects through hipFileRemoteOpen against s3rver (started by the ctest fixture s3rver,
 * which also checks every SigV4 signature): writes as one PUT and as multipart uploads, read
 * back byte for byte at odd sizes and offsets, the whole-object write rule, and the errors of a
 * missing bucket or object and of wrong credentials.
 */
#include "remote_test.h"

#include <cstdlib>
#include <fstream>

namespace
{

std::string FirstLine(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

class RemoteS3 : public RemoteTest
{
  protected:
    void SetUp() override
    {
        RemoteTest::SetUp();
        const char *dir = getenv("HIPFILE_TEST_S3RVER_DIR");
        endpoint_ = dir != nullptr ? FirstLine(std::string(dir) + "/endpoint") : "";
        bucket_ = dir != nullptr ? FirstLine(std::string(dir) + "/bucket") : "";
        if (endpoint_.empty() || bucket_.empty())
            GTEST_SKIP() << "no s3rver running (the remote.s3rver.start fixture skipped: its "
                            "output says how to install s3rver)";
        /* s3rver's built-in account; the launcher refuses any other signature. */
        setenv("AWS_ACCESS_KEY_ID", "S3RVER", 1);
        setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
        unsetenv("AWS_SESSION_TOKEN");
        unsetenv("AWS_PROFILE");
        options_ = "endpoint=" + endpoint_ + ";region=us-east-1";
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        key_ = std::string("remote/") + info->name() + ".bin";
    }
    std::string S3Url(const std::string &key) const
    {
        return "s3://" + bucket_ + "/" + key;
    }
    std::string Options(const std::string &extra = "") const
    {
        return extra.empty() ? options_ : options_ + ";" + extra;
    }
    /* Write @p size pattern bytes from device memory as the whole object; the write's result. */
    ssize_t WriteObject(const std::string &key, size_t size, uint32_t seed,
                        const std::string &extra = "")
    {
        hipFileHandle_t fh = nullptr;
        hipFileError_t e = Open(S3Url(key), Options(extra).c_str(), &fh, HIPFILE_REMOTE_WRITE);
        EXPECT_EQ(e.err, hipFileSuccess);
        if (e.err != hipFileSuccess)
            return -1;
        std::vector<uint8_t> host(size);
        hf_test_pattern_fill(host.data(), size, 0, seed);
        void *dev = DeviceBuffer(size);
        EXPECT_EQ(hipMemcpy(dev, host.data(), size, hipMemcpyHostToDevice), hipSuccess);
        return hipFileWrite(fh, dev, size, 0, 0);
    }
    /* The object read back whole and at odd ranges, byte for byte. */
    void CheckObject(const std::string &key, uint64_t size, uint32_t seed)
    {
        hipFileHandle_t fh =
            OpenOk(S3Url(key), Options("piece_size_kb=1024;connections=4").c_str());
        ReadAndCheck(fh, 0, size, size, seed);
        ReadAndCheck(fh, 1, 3, 3, seed);
        ReadAndCheck(fh, size / 3 + 1, size / 2 + 7, size / 2 + 7, seed);
        ReadAndCheck(fh, size - 5, 100, 5, seed);
    }
    hipFileHandle_t OpenForWriting()
    {
        hipFileHandle_t fh = nullptr;
        EXPECT_EQ(Open(S3Url(key_), options_.c_str(), &fh, HIPFILE_REMOTE_WRITE).err,
                  hipFileSuccess);
        return fh;
    }
    std::string endpoint_, bucket_, options_, key_;
};

TEST_F(RemoteS3, SmallObjectIsOnePutAndReadsBackByteExact)
{
    const size_t size = 1024 * 1024 + 13;
    ASSERT_EQ(WriteObject(key_, size, 41), (ssize_t)size);
    CheckObject(key_, size, 41);
}

TEST_F(RemoteS3, SizeOfAReadHandleNotOfAWriteHandle)
{
    ASSERT_EQ(WriteObject(key_, 70001, 43), 70001);
    hipFileHandle_t fh = OpenOk(S3Url(key_), options_.c_str());
    uint64_t size = 0;
    ASSERT_EQ(hipFileRemoteGetSize(fh, &size).err, hipFileSuccess);
    EXPECT_EQ(size, 70001u);
    hipFileHandle_t out = OpenForWriting();
    EXPECT_EQ(hipFileRemoteGetSize(out, &size).err, hipFileInvalidValue);
}

TEST_F(RemoteS3, LargeObjectIsAMultipartUploadAndReadsBackByteExact)
{
    const size_t size = 11 * 1024 * 1024 + 3; /* three parts of 5 MiB, the last short */
    ASSERT_EQ(WriteObject(key_, size, 42, "multipart_threshold_kb=5120;part_size_kb=5120"),
              (ssize_t)size);
    CheckObject(key_, size, 42);
}

TEST_F(RemoteS3, StagedMultipartUploadFromDeviceMemoryIsByteExact)
{
    const size_t size = 10 * 1024 * 1024 + 1;
    ASSERT_EQ(WriteObject(key_, size, 43,
                          "multipart_threshold_kb=5120;part_size_kb=5120;"
                          "bounce_host_accessible=true"),
              (ssize_t)size);
    hipFileHandle_t fh = OpenOk(S3Url(key_), Options("bounce_host_accessible=true").c_str());
    ReadAndCheck(fh, 7, size - 7, size - 7, 43);
}

TEST_F(RemoteS3, ReplacedObjectReadsTheNewVersion)
{
    ASSERT_EQ(WriteObject(key_, 5000, 44), 5000);
    ASSERT_EQ(WriteObject(key_, 7001, 45), 7001);
    CheckObject(key_, 7001, 45);
}

TEST_F(RemoteS3, WriteAtAnOffsetIsRefused)
{
    hipFileHandle_t fh = OpenForWriting();
    ASSERT_NE(fh, nullptr);
    void *dev = DeviceBuffer(4096);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 4096, 0), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(RemoteS3, SecondWriteOnOneHandleIsRefused)
{
    hipFileHandle_t fh = OpenForWriting();
    ASSERT_NE(fh, nullptr);
    void *dev = DeviceBuffer(4096);
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 0, 0), 4096);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(RemoteS3, ReadOnAWriteHandleIsRefused)
{
    hipFileHandle_t fh = OpenForWriting();
    ASSERT_NE(fh, nullptr);
    ReadFails(fh, 4096, EBADF);
}

TEST_F(RemoteS3, MissingObjectFailsOpen)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(S3Url("remote/no-such-object"), options_.c_str(), &fh).err, hipFileInvalidValue);
}

TEST_F(RemoteS3, MissingBucketFailsOpenForWriting)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open("s3://no-such-bucket-here/x", options_.c_str(), &fh, HIPFILE_REMOTE_WRITE).err,
              hipFileInvalidValue);
    EXPECT_EQ(Open("s3://no-such-bucket-here/x", options_.c_str(), &fh).err, hipFileInvalidValue);
}

TEST_F(RemoteS3, WrongCredentialsArePermissionDeniedAndWriteNothing)
{
    setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret", 1);
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(S3Url(key_), options_.c_str(), &fh, HIPFILE_REMOTE_WRITE).err,
              hipFilePermissionDenied);
    EXPECT_EQ(Open(S3Url(key_), options_.c_str(), &fh).err, hipFilePermissionDenied);
    setenv("AWS_SECRET_ACCESS_KEY", "S3RVER", 1);
    EXPECT_EQ(Open(S3Url(key_), options_.c_str(), &fh).err, hipFileInvalidValue);
}

TEST_F(RemoteS3, UnknownOptionIsRefused)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(S3Url(key_), Options("no_such_key=1").c_str(), &fh).err, hipFileInvalidValue);
}

TEST_F(RemoteS3, BadS3UrlIsRefused)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open("s3://Bad_Bucket/x", options_.c_str(), &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open("s3://bucket-only", options_.c_str(), &fh).err, hipFileInvalidValue);
}

} // namespace
