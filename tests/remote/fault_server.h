/*
 * The fixture of the suites that run against servers/fault_server.py: each test starts the server
 * on a free loopback port with its own document root, writes one pattern object "obj" there and
 * stops the server at the end.
 */
#ifndef HF_TEST_REMOTE_FAULT_SERVER_H
#define HF_TEST_REMOTE_FAULT_SERVER_H

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
    /*
     * An 11 MiB write of s3://bkt/obj.bin through @p endpoint in 5 MiB parts, to a server started
     * with --fail-part: it fails with EIO.
     */
    void WriteFailsAt(const std::string &endpoint)
    {
        setenv("AWS_ACCESS_KEY_ID", "test", 1);
        setenv("AWS_SECRET_ACCESS_KEY", "test", 1);
        ASSERT_EQ(mkdir((root_ + "/bkt").c_str(), 0755), 0);
        const std::string options = "endpoint=" + endpoint +
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
    }
    static constexpr uint64_t kSize = 256 * 1024 + 7;
    std::string dir_;
    pid_t server_ = -1;
};

#endif
