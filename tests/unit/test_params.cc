// hipFileGet/SetParameter* and hipFileDriverSet* as programs use them: every parameter round-trips,
// bad parameters, pointers, lengths and values are refused with hipFileInvalidValue (or
// hipFileDriverUnsupportedLimit for the driver setters) and change nothing, sizes are in KiB, and
// values set before the driver opens survive the configuration load that the open performs.
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <hipfile.h>

#include "config_fixture.h"
#include "hf_harness.h"

extern "C" {
#include "config/config.h"
#include "base/log.h"
#include "config/settings.h"
}

namespace
{

constexpr int kSizeTParams = 12;
constexpr int kBoolParams = 12;
constexpr int kStringParams = 3;

class ParamsTest : public ConfigFixture
{
};

TEST_F(ParamsTest, SizeTDefaultsAreTheDocumentedOnes)
{
    const std::pair<hipFileSizeTConfigParameter_t, size_t> expected[] = {
        {hipFileParamProfileStats, 1},
        {hipFileParamExecutionMaxIOQueueDepth, 128},
        {hipFileParamExecutionMaxIOThreads, 16},
        {hipFileParamExecutionMinIOThresholdSizeKB, 1024},
        {hipFileParamExecutionMaxRequestParallelism, 64},
        {hipFileParamPropertiesMaxDirectIOSizeKB, 16384},
        {hipFileParamPropertiesMaxDeviceCacheSizeKB, 131072},
        {hipFileParamPropertiesPerBufferCacheSizeKB, 4096},
        {hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 33554432},
        {hipFileParamPropertiesIOBatchsize, 128},
        {hipFileParamPollthresholdSizeKB, 4},
        {hipFileParamPropertiesBatchIOTimeoutMs, 5},
    };
    for (const auto &[param, value] : expected) {
        size_t got = 0;
        ASSERT_EQ(hipFileSuccess, hipFileGetParameterSizeT(param, &got).err) << param;
        EXPECT_EQ(value, got) << param;
    }
}

TEST_F(ParamsTest, BoolDefaultsAreTheDocumentedOnes)
{
    for (int p = 0; p < kBoolParams; p++) {
        auto param = static_cast<hipFileBoolConfigParameter_t>(p);
        bool got = true;
        ASSERT_EQ(hipFileSuccess, hipFileGetParameterBool(param, &got).err) << p;
        bool expected = param == hipFileParamPropertiesAllowCompatMode ||
                        param == hipFileParamExecutionParallelIO;
        EXPECT_EQ(expected, got) << p;
    }
}

TEST_F(ParamsTest, EverySizeTParameterRoundTrips)
{
    for (int p = 0; p < kSizeTParams; p++) {
        auto param = static_cast<hipFileSizeTConfigParameter_t>(p);
        const hf_setting *row = hf_setting_by_param(HF_PARAM_SIZE_T, p);
        ASSERT_NE(nullptr, row) << p;
        int64_t granule = row->decl.multiple > 1 ? row->decl.multiple : 1;
        for (int64_t v : {row->decl.min, row->decl.max, (row->decl.min + row->decl.max) / 2 / granule * granule}) {
            ASSERT_EQ(hipFileSuccess, hipFileSetParameterSizeT(param, (size_t)v).err) << row->decl.key;
            size_t got = 0;
            ASSERT_EQ(hipFileSuccess, hipFileGetParameterSizeT(param, &got).err);
            EXPECT_EQ((size_t)v, got) << row->decl.key;
            EXPECT_EQ(v, hf_setting_int(hf_setting_id_of(row))) << row->decl.key;
        }
    }
}

TEST_F(ParamsTest, EveryBoolParameterRoundTrips)
{
    for (int p = 0; p < kBoolParams; p++) {
        auto param = static_cast<hipFileBoolConfigParameter_t>(p);
        for (bool v : {true, false, true}) {
            ASSERT_EQ(hipFileSuccess, hipFileSetParameterBool(param, v).err) << p;
            bool got = !v;
            ASSERT_EQ(hipFileSuccess, hipFileGetParameterBool(param, &got).err) << p;
            EXPECT_EQ(v, got) << p;
        }
    }
}

TEST_F(ParamsTest, EveryStringParameterRoundTrips)
{
    std::string file = Path("api.log");
    std::string dir = hf_test_tmpdir();
    const std::pair<hipFileStringConfigParameter_t, std::string> values[] = {
        {hipFileParamLoggingLevel, "debug"}, {hipFileParamLoggingLevel, "error"},
        {hipFileParamLogDir, dir},           {hipFileParamEnvLogfilePath, file},
        {hipFileParamEnvLogfilePath, ""},
    };
    for (const auto &[param, value] : values) {
        ASSERT_EQ(hipFileSuccess, hipFileSetParameterString(param, value.c_str()).err) << value;
        char buf[4096];
        ASSERT_EQ(hipFileSuccess, hipFileGetParameterString(param, buf, sizeof(buf)).err);
        EXPECT_EQ(value, buf);
    }
    // Re-establish the test's own log file after pointing the log elsewhere.
    ASSERT_EQ(0, hf_log_set_file(log_path_.c_str()));
}

TEST_F(ParamsTest, LoggingLevelIsAppliedAndReadBackByName)
{
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterString(hipFileParamLoggingLevel, "INFO").err);
    EXPECT_EQ(HF_LOG_INFO, hf_log_level());
    char buf[16];
    ASSERT_EQ(hipFileSuccess, hipFileGetParameterString(hipFileParamLoggingLevel, buf, 16).err);
    EXPECT_STREQ("info", buf);
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterString(hipFileParamLoggingLevel, "3").err);
    EXPECT_EQ(HF_LOG_DEBUG, hf_log_level());
}

TEST_F(ParamsTest, LogfilePathParameterRedirectsTheLog)
{
    std::string file = Path("redirected.log");
    ASSERT_EQ(hipFileSuccess,
              hipFileSetParameterString(hipFileParamEnvLogfilePath, file.c_str()).err);
    hf_warn("after redirect");
    EXPECT_TRUE(hf_test_file_contains(file.c_str(), "after redirect"));
    EXPECT_FALSE(LogHas("after redirect"));
}

TEST_F(ParamsTest, UnopenableLogfilePathIsRejectedAndNotStored)
{
    hipFileError_t status =
        hipFileSetParameterString(hipFileParamEnvLogfilePath, "/nonexistent-dir/x/y.log");
    EXPECT_EQ(hipFileInvalidValue, status.err);
    EXPECT_EQ(hipSuccess, status.hip_drv_err);
    char buf[256];
    ASSERT_EQ(hipFileSuccess, hipFileGetParameterString(hipFileParamEnvLogfilePath, buf, 256).err);
    EXPECT_STREQ("", buf);
    EXPECT_TRUE(LogHas("log.file = \"/nonexistent-dir/x/y.log\": cannot open the log file"));
}

// A FIFO's write-only open would wait for a reader; the watchdog (SIGALRM ends the process)
// fails a regression instead of hanging it.
TEST_F(ParamsTest, LogfilePathThatIsAFifoIsRejectedPromptly)
{
    std::string fifo = Path("log.fifo");
    ASSERT_EQ(0, mkfifo(fifo.c_str(), 0644));
    alarm(20);
    hipFileError_t status = hipFileSetParameterString(hipFileParamEnvLogfilePath, fifo.c_str());
    alarm(0);
    EXPECT_EQ(hipFileInvalidValue, status.err);
    char buf[256];
    ASSERT_EQ(hipFileSuccess, hipFileGetParameterString(hipFileParamEnvLogfilePath, buf, 256).err);
    EXPECT_STREQ("", buf);
    EXPECT_TRUE(LogHas("log.file = \"" + fifo +
                       "\": the log file is a FIFO (named pipe), not a regular file"))
        << Log();
}

TEST_F(ParamsTest, UnknownParameterIsInvalidValue)
{
    size_t size = 7;
    bool flag = true;
    char text[32] = "x";
    for (int p : {-1, kSizeTParams, INT_MAX}) {
        auto param = static_cast<hipFileSizeTConfigParameter_t>(p);
        EXPECT_EQ(hipFileInvalidValue, hipFileGetParameterSizeT(param, &size).err) << p;
        EXPECT_EQ(hipFileInvalidValue, hipFileSetParameterSizeT(param, 1).err) << p;
    }
    for (int p : {-1, kBoolParams}) {
        auto param = static_cast<hipFileBoolConfigParameter_t>(p);
        EXPECT_EQ(hipFileInvalidValue, hipFileGetParameterBool(param, &flag).err) << p;
        EXPECT_EQ(hipFileInvalidValue, hipFileSetParameterBool(param, false).err) << p;
    }
    for (int p : {-1, kStringParams}) {
        auto param = static_cast<hipFileStringConfigParameter_t>(p);
        EXPECT_EQ(hipFileInvalidValue, hipFileGetParameterString(param, text, 32).err) << p;
        EXPECT_EQ(hipFileInvalidValue, hipFileSetParameterString(param, "info").err) << p;
    }
    EXPECT_EQ(7u, size);
    EXPECT_TRUE(flag);
    EXPECT_STREQ("x", text);
    EXPECT_TRUE(LogHas("hipFileGetParameterSizeT: unknown parameter 12"));
    EXPECT_TRUE(LogHas("hipFileSetParameterString: unknown parameter -1"));
}

TEST_F(ParamsTest, NullPointersAreInvalidValue)
{
    EXPECT_EQ(hipFileInvalidValue,
              hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, nullptr).err);
    EXPECT_EQ(hipFileInvalidValue,
              hipFileGetParameterBool(hipFileParamPropertiesUsePollMode, nullptr).err);
    EXPECT_EQ(hipFileInvalidValue,
              hipFileGetParameterString(hipFileParamLoggingLevel, nullptr, 64).err);
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterString(hipFileParamLoggingLevel, nullptr).err);
    EXPECT_TRUE(LogHas("hipFileGetParameterString: desc_str is NULL"));
}

TEST_F(ParamsTest, LengthMustHoldTheStringAndItsNul)
{
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterString(hipFileParamLoggingLevel, "warn").err);
    char buf[8];
    memset(buf, 'z', sizeof(buf));
    for (int len : {-1, 0, 1, 4}) {
        EXPECT_EQ(hipFileInvalidValue,
                  hipFileGetParameterString(hipFileParamLoggingLevel, buf, len).err)
            << len;
        EXPECT_EQ('z', buf[0]) << "nothing is written on failure";
    }
    EXPECT_TRUE(LogHas("log.level needs 5 bytes including the NUL; len is 4"));
    ASSERT_EQ(hipFileSuccess, hipFileGetParameterString(hipFileParamLoggingLevel, buf, 5).err);
    EXPECT_STREQ("warn", buf);
}

TEST_F(ParamsTest, OutOfRangeValuesAreInvalidAndChangeNothing)
{
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, 1).err);
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, SIZE_MAX).err);
    EXPECT_EQ(hipFileInvalidValue, hipFileSetParameterSizeT(hipFileParamProfileStats, 4).err);
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 0).err);
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterString(hipFileParamLoggingLevel, "chatty").err);
    size_t size = 0;
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, &size).err);
    EXPECT_EQ(16384u, size);
    EXPECT_TRUE(LogHas("properties.max_direct_io_size_kb = 1 is out of range; expected an "
                       "integer from 4 to 2097148 (KiB)"));
    EXPECT_TRUE(LogHas("log.level = \"chatty\" is not valid"));
}

TEST_F(ParamsTest, CompatParametersAreTwoViewsOfOneMode)
{
    bool allow = false, force = true;
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterBool(hipFileParamForceCompatMode, true).err);
    EXPECT_EQ(HF_COMPAT_FORCE, hf_config_compat_mode());
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterBool(hipFileParamPropertiesAllowCompatMode, &allow).err);
    EXPECT_TRUE(allow) << "forcing the compat path implies allowing it";
    ASSERT_EQ(hipFileSuccess,
              hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, false).err);
    EXPECT_EQ(HF_COMPAT_OFF, hf_config_compat_mode());
    ASSERT_EQ(hipFileSuccess, hipFileGetParameterBool(hipFileParamForceCompatMode, &force).err);
    EXPECT_FALSE(force);
}

TEST_F(ParamsTest, DriverSettersStoreKiBValues)
{
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxDirectIOSize(1024).err);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxCacheSize(262144).err);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxPinnedMemSize(65536).err);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetPollMode(true, 64).err);
    size_t size = 0;
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, &size).err);
    EXPECT_EQ(1024u, size);
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamPropertiesMaxDeviceCacheSizeKB, &size).err);
    EXPECT_EQ(262144u, size);
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, &size).err);
    EXPECT_EQ(65536u, size);
    ASSERT_EQ(hipFileSuccess, hipFileGetParameterSizeT(hipFileParamPollthresholdSizeKB, &size).err);
    EXPECT_EQ(64u, size);
    bool poll = false;
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterBool(hipFileParamPropertiesUsePollMode, &poll).err);
    EXPECT_TRUE(poll);
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetPollMode(false, 0).err);
    EXPECT_FALSE(hf_setting_bool(HF_SETTING_USE_POLL_MODE));
    EXPECT_EQ(0, hf_setting_int(HF_SETTING_POLL_MODE_MAX_SIZE_KB));
}

TEST_F(ParamsTest, DriverSettersRejectLimitsOutsideTheTable)
{
    EXPECT_EQ(hipFileDriverUnsupportedLimit, hipFileDriverSetMaxDirectIOSize(0).err);
    EXPECT_EQ(hipFileDriverUnsupportedLimit, hipFileDriverSetMaxDirectIOSize(4u << 20).err);
    EXPECT_EQ(hipFileDriverUnsupportedLimit, hipFileDriverSetMaxCacheSize(1).err);
    EXPECT_EQ(hipFileDriverUnsupportedLimit, hipFileDriverSetMaxCacheSize(SIZE_MAX).err);
    EXPECT_EQ(hipFileDriverUnsupportedLimit, hipFileDriverSetMaxPinnedMemSize(0).err);
    EXPECT_EQ(hipFileDriverUnsupportedLimit, hipFileDriverSetPollMode(true, SIZE_MAX).err);
    EXPECT_FALSE(hf_setting_bool(HF_SETTING_USE_POLL_MODE)) << "a rejected call changes nothing";
    EXPECT_EQ(16384, hf_setting_int(HF_SETTING_MAX_DIRECT_IO_SIZE_KB));
    EXPECT_EQ(131072, hf_setting_int(HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB));
    EXPECT_EQ(33554432, hf_setting_int(HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB));
    EXPECT_TRUE(LogHas("properties.max_direct_io_size_kb = 0 is out of range"));
}

TEST_F(ParamsTest, ParametersReadTheConfigFileBeforeTheDriverOpens)
{
    ASSERT_EQ(0, hf_test_write_text(config_path_.c_str(),
                                    "properties = { max_direct_io_size_kb = 2048; };\n"));
    size_t size = 0;
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, &size).err);
    EXPECT_EQ(2048u, size);
}

TEST_F(ParamsTest, ValuesSetBeforeTheDriverOpensSurviveTheConfigLoad)
{
    ASSERT_EQ(0, hf_test_write_text(config_path_.c_str(),
                                    "execution = { max_io_threads = 2; parallel_io = true; };\n"));
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 16).err);
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterBool(hipFileParamExecutionParallelIO, false).err);
    ASSERT_EQ(0, hf_config_load()); // what hipFileDriverOpen does first
    size_t threads = 0;
    bool parallel = true;
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads).err);
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterBool(hipFileParamExecutionParallelIO, &parallel).err);
    EXPECT_EQ(16u, threads);
    EXPECT_FALSE(parallel);
}

TEST_F(ParamsTest, ParametersWorkWhenTheConfigFileIsBroken)
{
    ASSERT_EQ(0, hf_test_write_text(config_path_.c_str(), "execution = {\n"));
    size_t threads = 0;
    ASSERT_EQ(hipFileSuccess,
              hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads).err);
    EXPECT_EQ(16u, threads);
    EXPECT_TRUE(LogHas(config_path_ + ":"));
}

} // namespace
