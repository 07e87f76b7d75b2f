/*
 * Remote reads against a server that fails on command (servers/fault_server.py, started by each
 * test on a free loopback port): 5xx answers and throttling are retried with backoff up to the
 * retry setting, then fail; a slow server fails at the timeout; truncated or mislabelled bodies,
 * a server killed mid-transfer and a changed object are errors, never a successful read.
 */
#include "remote_test.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace
{

class RemoteFaults : public RemoteTest
{
  protected:
    void SetUp() override
    {
        RemoteTest::SetUp();
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        char *dir = hf_test_path((std::string("remote-faults.") + info->name()).c_str());
        dir_ = dir;
        free(dir);
        root_ = dir_ + "/root";
        ASSERT_EQ(system(("rm -rf '" + dir_ + "' && mkdir -p '" + root_ + "'").c_str()), 0);
        std::string script = std::string(HF_TEST_SOURCE_DIR) + "/remote/servers/fault_server.py";
        std::string port_file = dir_ + "/port";
        std::vector<std::string> args = {"python3", script,        "--root",
                                         root_,     "--port-file", port_file};
        for (const std::string &extra : ServerArgs())
            args.push_back(extra);
        std::vector<char *> argv;
        for (std::string &arg : args)
            argv.push_back(&arg[0]);
        argv.push_back(nullptr);
        ASSERT_EQ(posix_spawnp(&server_, "python3", nullptr, nullptr, argv.data(), environ), 0)
            << "python3 not found";
        int port = 0;
        for (int i = 0; i < 100 && port == 0; i++) {
            std::ifstream in(port_file);
            if (!(in >> port))
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ASSERT_NE(port, 0) << "the fault server did not start";
        base_ = "http://127.0.0.1:" + std::to_string(port);
        PutObject("obj", kSize, 31);
    }
    void TearDown() override
    {
        RemoteTest::TearDown();
        if (server_ > 0) {
            kill(server_, SIGTERM);
            waitpid(server_, nullptr, 0);
        }
    }
    /* Arguments the server gets besides its root and port file. */
    virtual std::vector<std::string> ServerArgs() const
    {
        return {};
    }
    static constexpr uint64_t kSize = 256 * 1024 + 7;
    std::string dir_;
    pid_t server_ = -1;
};

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

TEST_F(RemoteFaults, ChangedETagIsAnError)
{
    hipFileHandle_t fh = OpenOk(Url("obj", "etag_changes=1"), kFast);
    ReadFails(fh, kSize, ESTALE);
}

TEST_F(RemoteFaults, UnknownLengthFailsOpen)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(Url("obj", "no_length=1"), nullptr, &fh).err, hipFileDriverError);
}

TEST_F(RemoteFaults, DeniedOpenIsPermissionDenied)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(Url("obj", "fail_head=403"), nullptr, &fh).err, hipFilePermissionDenied);
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
    setenv("AWS_ACCESS_KEY_ID", "test", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "test", 1);
    ASSERT_EQ(mkdir((root_ + "/bkt").c_str(), 0755), 0);
    const std::string options = "endpoint=" + base_ +
                                ";region=us-east-1;multipart_threshold_kb=5120;"
                                "part_size_kb=5120;retries=1;backoff_base_ms=1";
    hipFileHandle_t fh = nullptr;
    ASSERT_EQ(Open("s3://bkt/obj.bin", options.c_str(), &fh, HIPFILE_REMOTE_WRITE).err,
              hipFileSuccess);
    const size_t size = 11 * 1024 * 1024;
    void *dev = DeviceBuffer(size);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, size, 0, 0), -1);
    EXPECT_EQ(errno, EIO);
    struct stat st;
    EXPECT_NE(stat((root_ + "/bkt/obj.bin").c_str(), &st), 0) << "a failed upload left an object";
    EXPECT_EQ(stat((root_ + "/aborted-up1").c_str(), &st), 0) << "the upload was not aborted";
}

} // namespace
