/*
 * Remote reads against a server that fails on command (servers/fault_server.py, started by each
 * test on a free loopback port): 5xx answers and throttling are retried with backoff up to the
 * retry setting, then fail; a slow server fails at the timeout; truncated or mislabelled bodies,
 * a server killed mid-transfer and a changed object are errors, never a successful read.
 */
#include "fault_server.h"

namespace
{

/* Four pieces on two connections, retries without a long wait. */
const char *const kFast = "piece_size_kb=64;connections=2;backoff_base_ms=1";

TEST_F(RemoteFaults, ServerErrorsAreRetriedUntilSuccess)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "fail=500&times=3"),
                                "piece_size_kb=64;connections=2;backoff_base_ms=1;retries=3");
    ReadAndCheck(fh, 0, kSize, kSize, 31);
}

TEST_F(RemoteFaults, ThrottlingIsRetriedUntilSuccess)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "fail=503&times=2"),
                                "piece_size_kb=64;connections=2;backoff_base_ms=1;retries=2");
    ReadAndCheck(fh, 0, kSize, kSize, 31);
}

TEST_F(RemoteFaults, PersistentServerErrorFailsAfterTheRetries)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "fail=503&times=1000"),
                                "piece_size_kb=64;connections=2;backoff_base_ms=1;retries=2");
    ReadFails(fh, kSize, EIO);
}

TEST_F(RemoteFaults, NoRetriesMeansTheFirstErrorFails)
{
    hipFileHandle_t fh =
        OpenOk(Url("obj", "fail=500&times=1"), "piece_size_kb=1024;connections=1;retries=0");
    ReadFails(fh, kSize, EIO);
}

TEST_F(RemoteFaults, SlowServerFailsAtTheTimeout)
{
    hipFileHandle_t fh =
        OpenOk(Url("obj", "slow_ms=4000"), "piece_size_kb=1024;retries=0;request_timeout_ms=300");
    auto start = std::chrono::steady_clock::now();
    ReadFails(fh, kSize, ETIMEDOUT);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_F(RemoteFaults, TruncatedBodyIsNeverSuccess)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "truncate=1"), kFast);
    ReadFails(fh, kSize, EIO);
}

TEST_F(RemoteFaults, ServerKilledMidTransferFails)
{
    hipFileHandle_t fh =
        OpenOk(Url("obj", "kill=1"), "piece_size_kb=1024;retries=1;backoff_base_ms=1");
    void *dev = DeviceBuffer(kSize);
    errno = 0;
    EXPECT_EQ(hipFileRead(fh, dev, kSize, 0, 0), -1);
    /* The retry finds nothing listening any more. */
    EXPECT_EQ(errno, ECONNREFUSED) << strerror(errno);
    EXPECT_EQ(waitpid(server_, nullptr, 0), server_);
    server_ = -1;
}

TEST_F(RemoteFaults, StagedRetriesLandByteExact)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "fail=500&times=2"),
                                "piece_size_kb=64;connections=2;backoff_base_ms=1;retries=2;"
                                "bounce_host_accessible=true");
    ReadAndCheck(fh, 0, kSize, kSize, 31);
}

TEST_F(RemoteFaults, StagedTruncatedBodyIsNeverSuccess)
{
    hipFileHandle_t fh =
        OpenOk(Url("obj", "truncate=1"), "piece_size_kb=64;connections=2;backoff_base_ms=1;"
                                         "bounce_host_accessible=true");
    ReadFails(fh, kSize, EIO);
}

TEST_F(RemoteFaults, IgnoredRangeIsAnError)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "ignore_range=1"), kFast);
    ReadFails(fh, 1000, EIO);
}

TEST_F(RemoteFaults, WrongContentRangeIsAnError)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "wrong_range=1"), kFast);
    ReadFails(fh, kSize, EIO);
}

TEST_F(RemoteFaults, ChangedETagIsAnErrorNamingBothETags)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "etag_changes=1"), kFast);
    ::testing::internal::CaptureStderr();
    ReadFails(fh, kSize, ESTALE);
    std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(log.find("the object's ETag changed since it was opened: \""), std::string::npos)
        << log;
    EXPECT_NE(log.find(", now \"changed-"), std::string::npos) << log;
}

TEST_F(RemoteFaults, UnknownLengthFailsOpen)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(Url("obj", "no_length=1"), nullptr, &fh).err, hipFileDriverError);
}

TEST_F(RemoteFaults, DeniedOpenIsPermissionDenied)
{
    hipFileHandle_t fh = nullptr;
    /* Denied for HEAD and for the one-byte GET that a refused HEAD is followed by. */
    EXPECT_EQ(Open(Url("obj", "fail_head=403&fail=403&times=9"), nullptr, &fh).err,
              hipFilePermissionDenied);
}

/*
 * A URL presigned for GET: S3 refuses HEAD with 403 (the signature covers the method), and some
 * servers answer 405. The open asks for the first byte instead, and reads are exact.
 */
TEST_F(RemoteFaults, ServerRefusingHeadIsOpenedByAOneByteGet)
{
    for (const char *query : {"fail_head=403", "fail_head=405", "fail_head=403&ignore_range=1"}) {
        hipFileHandle_t fh = OpenOk(Url("obj", query), nullptr);
        uint64_t size = 0;
        ASSERT_EQ(hipFileRemoteGetSize(fh, &size).err, hipFileSuccess) << query;
        EXPECT_EQ(size, kSize) << query;
        if (strstr(query, "ignore_range") == nullptr) {
            ReadAndCheck(fh, 0, kSize, kSize, 31);
            ReadAndCheck(fh, kSize - 7, 100, 7, 31);
        }
    }
    /* An empty object answers the one-byte GET with 416, its size after the slash. */
    PutObject("empty", 0, 1);
    hipFileHandle_t fh = OpenOk(Url("empty", "fail_head=403"), nullptr);
    uint64_t size = 7;
    ASSERT_EQ(hipFileRemoteGetSize(fh, &size).err, hipFileSuccess);
    EXPECT_EQ(size, 0u);
}

TEST_F(RemoteFaults, MissingObjectFailsOpen)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(Url("nothing"), nullptr, &fh).err, hipFileInvalidValue);
}

TEST_F(RemoteFaults, FailingOpenIsRetriedThenFails)
{
    hipFileHandle_t fh = nullptr;
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(Open(Url("obj", "fail_head=503"), "retries=2;backoff_base_ms=50", &fh).err,
              hipFileDriverError);
    /* Two waits of at least 50 and 100 ms. */
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
}

/* A store whose second part of every multipart upload fails: the upload must be aborted. */
class RemoteFaultsMultipart : public RemoteFaults
{
  protected:
    std::vector<std::string> ServerArgs() const override
    {
        return {"--fail-part", "2"};
    }
};

TEST_F(RemoteFaultsMultipart, FailedPartAbortsTheUploadAndLeavesNoObject)
{
    WriteFailsAt(base_);
    struct stat st;
    EXPECT_NE(stat((root_ + "/bkt/obj.bin").c_str(), &st), 0) << "a failed upload left an object";
    EXPECT_EQ(stat((root_ + "/aborted-up1").c_str(), &st), 0) << "the upload was not aborted";
}

} // namespace
