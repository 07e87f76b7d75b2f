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
