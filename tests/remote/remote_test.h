/*
 * Shared fixture of the remote suites: objects written as pattern files into a server's document
 * root, handles opened with hipFileRemoteOpen, and reads into device memory checked byte for byte.
 * Each test starts and ends with the driver closed.
 */
#ifndef HF_TEST_REMOTE_TEST_H
#define HF_TEST_REMOTE_TEST_H

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile/remote.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "hf_harness.h"

/* The nginx of the ctest fixture remote_nginx (HF_TEST_NGINX_DIR): false when none runs. */
inline bool NginxFixture(std::string *root_p, std::string *base_p)
{
    const char *dir = getenv("HF_TEST_NGINX_DIR");
    std::ifstream port_file(std::string(dir != nullptr ? dir : "") + "/port");
    int port = 0;
    if (dir == nullptr || !(port_file >> port))
        return false;
    *root_p = std::string(dir) + "/www";
    *base_p = "http://127.0.0.1:" + std::to_string(port);
    return true;
}

class RemoteTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        CloseDriverFully();
    }
    void TearDown() override
    {
        for (hipFileHandle_t fh : handles_)
            hipFileHandleDeregister(fh);
        for (void *p : device_)
            (void)hipFree(p);
        CloseDriverFully();
    }
    static void CloseDriverFully()
    {
        while (hipFileUseCount() > 0)
            (void)hipFileDriverClose();
    }
    /* The server's document root and base URL ("http://127.0.0.1:PORT"); set by each suite. */
    std::string root_;
    std::string base_;

    void PutObject(const std::string &name, uint64_t size, uint32_t seed)
    {
        ASSERT_EQ(hf_test_pattern_file((root_ + "/" + name).c_str(), size, seed), 0);
    }
    std::string Url(const std::string &name, const std::string &query = "") const
    {
        return base_ + "/" + name + (query.empty() ? "" : "?" + query);
    }
    hipFileError_t Open(const std::string &url, const char *options, hipFileHandle_t *fh_p,
                        int flags = HIPFILE_REMOTE_READ)
    {
        hipFileError_t e = hipFileRemoteOpen(url.c_str(), options, flags, fh_p);
        if (e.err == hipFileSuccess)
            handles_.push_back(*fh_p);
        return e;
    }
    hipFileHandle_t OpenOk(const std::string &url, const char *options = nullptr)
    {
        hipFileHandle_t fh = nullptr;
        hipFileError_t e = Open(url, options, &fh);
        EXPECT_EQ(e.err, hipFileSuccess) << url;
        return fh;
    }
    void *DeviceBuffer(size_t size)
    {
        void *p = nullptr;
        EXPECT_EQ(hipMalloc(&p, size), hipSuccess);
        if (p != nullptr)
            device_.push_back(p);
        return p;
    }
    /* Bytes of @p dev (device memory) from @p offset, copied back to the host. */
    static std::vector<uint8_t> Fetch(const void *dev, size_t size, size_t offset = 0)
    {
        std::vector<uint8_t> host(size);
        EXPECT_EQ(hipMemcpy(host.data(), static_cast<const uint8_t *>(dev) + offset, size,
                            hipMemcpyDeviceToHost),
                  hipSuccess);
        return host;
    }
    /* hipFileRead of @p size at @p offset into fresh device memory, checked against the pattern. */
    void ReadAndCheck(hipFileHandle_t fh, uint64_t offset, size_t size, size_t expect,
                      uint32_t seed)
    {
        void *dev = DeviceBuffer(size + 1);
        ASSERT_NE(dev, nullptr);
        ssize_t got = hipFileRead(fh, dev, size, (hoff_t)offset, 0);
        ASSERT_EQ(got, (ssize_t)expect) << "read of " << size << " at " << offset;
        std::vector<uint8_t> host = Fetch(dev, expect);
        EXPECT_EQ(hf_test_pattern_check(host.data(), expect, offset, seed), -1)
            << "read of " << size << " at " << offset << " differs";
    }
    /* hipFileRead that must fail with errno @p err. */
    void ReadFails(hipFileHandle_t fh, size_t size, int err)
    {
        void *dev = DeviceBuffer(size);
        ASSERT_NE(dev, nullptr);
        errno = 0;
        EXPECT_EQ(hipFileRead(fh, dev, size, 0, 0), -1);
        EXPECT_EQ(errno, err) << strerror(errno);
    }

  private:
    std::vector<hipFileHandle_t> handles_;
    std::vector<void *> device_;
};

#endif
