// hipFileDriverGetProperties reports the effective settings in KiB, the feature and control bits
// programs test, and a 0.0 driver version while no direct (no bounce buffer) backend is loaded.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hipfile.h>

#include "hf_harness.h"

extern "C" {
#include "config/config.h"
#include "host/loader.h"
#include "config/settings.h"
}

namespace
{

class PropertiesTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const char *value = getenv("HIPFILE_CONFIG");
        saved_config_ = value != nullptr ? value : "";
        had_config_ = value != nullptr;
        // Only the built-in defaults: a missing file.
        char *path = hf_test_path("no-such-hipfile.conf");
        setenv("HIPFILE_CONFIG", path, 1);
        free(path);
        hf_config_reset();
    }

    void TearDown() override
    {
        if (had_config_)
            setenv("HIPFILE_CONFIG", saved_config_.c_str(), 1);
        else
            unsetenv("HIPFILE_CONFIG");
        hf_config_reset();
    }

    std::string saved_config_;
    bool had_config_ = false;
};

TEST_F(PropertiesTest, NullPropsIsInvalidValue)
{
    hipFileError_t status = hipFileDriverGetProperties(nullptr);
    EXPECT_EQ(hipFileInvalidValue, status.err);
    EXPECT_EQ(hipSuccess, status.hip_drv_err);
}

TEST_F(PropertiesTest, DefaultsAreReportedInKiB)
{
    hipFileDriverProps_t props;
    ASSERT_EQ(hipFileSuccess, hipFileDriverGetProperties(&props).err);
    EXPECT_EQ(4u, props.nvfs.poll_thresh_size);
    EXPECT_EQ(16384u, props.nvfs.max_direct_io_size);
    EXPECT_EQ(0u, props.nvfs.driver_status_flags);
    EXPECT_EQ(1u << hipFileAllowCompatMode, props.nvfs.driver_control_flags);
    EXPECT_EQ((1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported) |
                  (1u << hipFileParallelIOSupported),
              props.feature_flags);
    EXPECT_EQ(131072u, props.max_device_cache_size);
    EXPECT_EQ(4096u, props.per_buffer_cache_size);
    EXPECT_EQ(33554432u, props.max_device_pinned_mem_size);
    EXPECT_EQ(128u, props.max_batch_io_count);
    EXPECT_EQ(5u, props.max_batch_io_timeout_msecs);
}

TEST_F(PropertiesTest, NoDirectBackendMeansDriverVersionZero)
{
    if (hf_loader_has_direct_backend())
        GTEST_SKIP() << "a direct backend is loaded in this process";
    hipFileDriverProps_t props;
    ASSERT_EQ(hipFileSuccess, hipFileDriverGetProperties(&props).err);
    EXPECT_EQ(0u, props.nvfs.major_version);
    EXPECT_EQ(0u, props.nvfs.minor_version);
}

TEST_F(PropertiesTest, DriverSettersShowUpInProperties)
{
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetPollMode(true, 32).err);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxDirectIOSize(2048).err);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxCacheSize(4096).err);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxPinnedMemSize(8192).err);
    hipFileDriverProps_t props;
    ASSERT_EQ(hipFileSuccess, hipFileDriverGetProperties(&props).err);
    EXPECT_EQ(32u, props.nvfs.poll_thresh_size);
    EXPECT_EQ(2048u, props.nvfs.max_direct_io_size);
    EXPECT_EQ(4096u, props.max_device_cache_size);
    EXPECT_EQ(8192u, props.max_device_pinned_mem_size);
    EXPECT_TRUE(props.nvfs.driver_control_flags & (1u << hipFileUsePollMode));
}

TEST_F(PropertiesTest, CompatOffClearsTheAllowCompatBit)
{
    ASSERT_EQ(hipFileSuccess,
              hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, false).err);
    hipFileDriverProps_t props;
    ASSERT_EQ(hipFileSuccess, hipFileDriverGetProperties(&props).err);
    EXPECT_FALSE(props.nvfs.driver_control_flags & (1u << hipFileAllowCompatMode));
}

TEST_F(PropertiesTest, ParallelIOBitFollowsExecutionParallelIO)
{
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterBool(hipFileParamExecutionParallelIO, false).err);
    hipFileDriverProps_t props;
    ASSERT_EQ(hipFileSuccess, hipFileDriverGetProperties(&props).err);
    EXPECT_FALSE(props.feature_flags & (1u << hipFileParallelIOSupported));
    EXPECT_TRUE(props.feature_flags & (1u << hipFileBatchIOSupported));
    EXPECT_TRUE(props.feature_flags & (1u << hipFileStreamsSupported));
}

} // namespace
