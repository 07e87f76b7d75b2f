/*
 * Shared fixture for the public-API suites: every test starts and ends with the driver closed, so
 * each runs the same whether ctest gives it a process of its own or gtest runs the whole suite.
 */
#ifndef HF_TEST_API_TEST_H
#define HF_TEST_API_TEST_H

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <fcntl.h>
#include <string>
#include <vector>
#include <unistd.h>

#include "hf_harness.h"

class ApiTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        CloseDriverFully();
    }
    void TearDown() override
    {
        CloseDriverFully();
    }
    static void CloseDriverFully()
    {
        while (hipFileUseCount() > 0)
            (void)hipFileDriverClose();
    }
    /* A scratch file path unique to this test. */
    static std::string ScratchPath(const char *suffix)
    {
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(info->test_suite_name()) + "." + info->name() + "." + suffix;
        char *p = hf_test_path(name.c_str());
        std::string path(p);
        free(p);
        return path;
    }
    /* Fill device bytes [offset, offset+size) of @p dev with the pattern at @p pattern_offset. */
    static void FillDevice(void *dev, size_t offset, size_t size, uint64_t pattern_offset,
                           uint32_t seed)
    {
        std::vector<char> host(size);
        hf_test_pattern_fill(host.data(), size, pattern_offset, seed);
        ASSERT_EQ(
            hipMemcpy(static_cast<char *>(dev) + offset, host.data(), size, hipMemcpyHostToDevice),
            hipSuccess);
    }
    /* -1 when device bytes [offset, offset+size) of @p dev hold the pattern at @p pattern_offset,
     * else the index of the first byte that differs. */
    static int64_t CheckDevice(const void *dev, size_t offset, size_t size, uint64_t pattern_offset,
                               uint32_t seed)
    {
        std::vector<char> host(size);
        EXPECT_EQ(hipMemcpy(host.data(), static_cast<const char *>(dev) + offset, size,
                            hipMemcpyDeviceToHost),
                  hipSuccess);
        return hf_test_pattern_check(host.data(), size, pattern_offset, seed);
    }
    static hipFileHandle_t Register(int fd)
    {
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        hipFileHandle_t fh = nullptr;
        hipFileError_t e = hipFileHandleRegister(&fh, &descr);
        EXPECT_EQ(e.err, hipFileSuccess);
        return fh;
    }
};

#endif
