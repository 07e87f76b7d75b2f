/*
 * cuFileRemoteOpen, the cuFile layer's URL extension: an http:// object from the nginx of the
 * remote_nginx fixture read with cuFileRead into device memory, and its errors in cuFile's codes.
 */
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cufile.h"
#include "cufile_remote.h"
#include "hf_harness.h"
#include "remote_test.h"

namespace
{

class CuFileRemote : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!NginxFixture(&root_, &base_))
            GTEST_SKIP() << "no nginx fixture (nginx not installed: Debian nginx-light)";
    }
    std::string root_, base_;
};

TEST_F(CuFileRemote, RemoteHandleReadsWithCuFileRead)
{
    const size_t size = 777777;
    ASSERT_EQ(hf_test_pattern_file((root_ + "/cufile.bin").c_str(), size, 51), 0);
    CUfileHandle_t fh = nullptr;
    CUfileError_t e = cuFileRemoteOpen((base_ + "/cufile.bin").c_str(), "piece_size_kb=64",
                                       CU_FILE_REMOTE_READ, &fh);
    ASSERT_EQ(e.err, CU_FILE_SUCCESS);
    void *dev = nullptr;
    ASSERT_EQ(hipMalloc(&dev, size), hipSuccess);
    EXPECT_EQ(cuFileRead(fh, dev, size, 0, 0), (ssize_t)size);
    std::vector<uint8_t> host(size);
    ASSERT_EQ(hipMemcpy(host.data(), dev, size, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(host.data(), size, 0, 51), -1);
    cuFileHandleDeregister(fh);
    (void)hipFree(dev);
    cuFileDriverClose();
}

TEST_F(CuFileRemote, ErrorsAreCuFileCodes)
{
    CUfileHandle_t fh = nullptr;
    EXPECT_EQ(cuFileRemoteOpen((base_ + "/no-such").c_str(), nullptr, CU_FILE_REMOTE_READ, &fh).err,
              CU_FILE_INVALID_VALUE);
    EXPECT_EQ(cuFileRemoteOpen(nullptr, nullptr, CU_FILE_REMOTE_READ, &fh).err,
              CU_FILE_INVALID_VALUE);
    ASSERT_EQ(hf_test_pattern_file((root_ + "/cufile-ro.bin").c_str(), 10, 52), 0);
    EXPECT_EQ(
        cuFileRemoteOpen((base_ + "/cufile-ro.bin").c_str(), nullptr, CU_FILE_REMOTE_WRITE, &fh)
            .err,
        CU_FILE_PERMISSION_DENIED);
    cuFileDriverClose();
}

} // namespace
