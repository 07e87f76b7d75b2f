// Where settings may come from: the environment only in ordinary processes (set-user-ID and
// set-group-ID ones ignore it, saying so), paths never relative to the current directory, values
// that are not booleans reported, and the core settings backends read through their host API.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include <hipfile.h>

#include "config_fixture.h"

extern "C" {
#include "config/config.h"
#include "config/settings.h"
}

namespace
{

class EnvTest : public ConfigFixture
{
  protected:
    void TearDown() override
    {
        hf_env_assume_secure(false);
        ConfigFixture::TearDown();
    }
};

TEST_F(EnvTest, AmdVariablesOverrideTheFile)
{
    setenv("HIPFILE_STATS_LEVEL", "3", 1);
    setenv("HIPFILE_FORCE_COMPAT_MODE", "true", 1);
    setenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", "yes", 1);
    ASSERT_EQ(0, LoadText("profile = { stats = 0; };\nfastpath = { unsupported_file_systems = "
                          "false; };\n"));
    ASSERT_EQ(0, hf_config_declare_plugin_settings("fastpath", kFastpathDecls, 1));
    EXPECT_EQ(3, hf_setting_int(HF_SETTING_PROFILE_STATS));
    EXPECT_EQ(HF_COMPAT_FORCE, hf_config_compat_mode());
    bool unsupported = false;
    EXPECT_EQ(0, hf_config_plugin_bool("fastpath", "unsupported_file_systems", &unsupported));
    EXPECT_TRUE(unsupported);
}

TEST_F(EnvTest, ValueThatIsNotABooleanIsReportedNotIgnored)
{
    setenv("HIPFILE_ALLOW_COMPAT_MODE", "maybe", 1);
    EXPECT_EQ(-EINVAL, hf_config_load());
    EXPECT_TRUE(LogHas("environment HIPFILE_ALLOW_COMPAT_MODE=\"maybe\" is not valid for "
                       "properties.allow_compat_mode; expected true or false"));
    EXPECT_EQ(HF_COMPAT_ALLOW, hf_config_compat_mode()) << "a failed load changes nothing";
}

TEST_F(EnvTest, SetUserIdProcessIgnoresTheEnvironmentAndSaysSo)
{
    setenv("HIPFILE_STATS_LEVEL", "3", 1);
    setenv("HIPFILE_PLUGIN_DIR", "/somewhere/else", 1);
    hf_env_assume_secure(true);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(1, hf_setting_int(HF_SETTING_PROFILE_STATS));
    EXPECT_STRNE("/somewhere/else", hf_setting_string(HF_SETTING_PLUGINS_DIRECTORY));
    EXPECT_TRUE(LogHas("ignoring HIPFILE_STATS_LEVEL: set-user-ID and set-group-ID programs"));
    EXPECT_TRUE(LogHas("ignoring HIPFILE_PLUGIN_DIR"));
    EXPECT_TRUE(LogHas("ignoring HIPFILE_CONFIG")) << "the config path is not taken either";
}

TEST_F(EnvTest, RelativeConfigPathIsRefused)
{
    setenv("HIPFILE_CONFIG", "hipfile.conf", 1);
    EXPECT_EQ(-EINVAL, hf_config_load());
    EXPECT_TRUE(LogHas("HIPFILE_CONFIG=\"hipfile.conf\" is a relative path"));
}

TEST_F(EnvTest, RelativePathsInTheFileAreTakenFromItsDirectory)
{
    ASSERT_EQ(0, LoadText("plugins = { directory = \"plugins\"; };\n"
                          "gpu = { runtime = \"lib/libhip-x.so\"; };\n"
                          "log = { dir = \"logs/..\"; };\n"));
    std::string dir = config_path_.substr(0, config_path_.rfind('/'));
    EXPECT_EQ(dir + "/plugins", hf_setting_string(HF_SETTING_PLUGINS_DIRECTORY));
    EXPECT_EQ(dir + "/lib/libhip-x.so", hf_setting_string(HF_SETTING_GPU_RUNTIME));
    EXPECT_EQ(dir + "/logs/..", hf_setting_string(HF_SETTING_LOG_DIR));
}

TEST_F(EnvTest, RuntimeNamesAndSonamesAreNotPaths)
{
    ASSERT_EQ(0, LoadText("gpu = { runtime = \"libamdhip64.so.6\"; };\n"));
    EXPECT_STREQ("libamdhip64.so.6", hf_setting_string(HF_SETTING_GPU_RUNTIME));
    ASSERT_EQ(0, LoadText("gpu = { runtime = \"cuda\"; };\n"));
    EXPECT_STREQ("cuda", hf_setting_string(HF_SETTING_GPU_RUNTIME));
}

TEST_F(EnvTest, RelativePathsFromTheEnvironmentAreRefused)
{
    setenv("HIPFILE_PLUGIN_DIR", "build/plugins", 1);
    EXPECT_EQ(-EINVAL, hf_config_load());
    EXPECT_TRUE(LogHas("environment HIPFILE_PLUGIN_DIR=\"build/plugins\" is a relative path"));
}

TEST_F(EnvTest, RelativeLogPathThroughTheParameterApiIsInvalid)
{
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterString(hipFileParamEnvLogfilePath, "hipfile.log").err);
    EXPECT_EQ(hipFileInvalidValue, hipFileSetParameterString(hipFileParamLogDir, "logs").err);
    EXPECT_TRUE(LogHas("log.file = \"hipfile.log\" is a relative path"));
    EXPECT_STREQ("", hf_setting_string(HF_SETTING_LOG_FILE));
}

TEST_F(EnvTest, StatsReportPathComesFromTheEnvironment)
{
    std::string report = Path("report");
    setenv("HIPFILE_STATS_REPORT", report.c_str(), 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(report, hf_setting_string(HF_SETTING_PROFILE_STATS_REPORT));
}

// Backends read the core's live limits through the same calls as their own group.
TEST_F(EnvTest, BackendsReadCoreSettingsByTheirDottedKey)
{
    ASSERT_EQ(0, LoadText("fallback = { chunk_size_kb = 64; };\n"));
    ASSERT_EQ(hipFileSuccess, hipFileDriverSetMaxCacheSize(4096).err);
    int64_t value = 0;
    ASSERT_EQ(0, hf_config_plugin_int("fallback", "properties.max_device_cache_size_kb", &value));
    EXPECT_EQ(4096, value);
    ASSERT_EQ(0, hf_config_plugin_int("fallback", "chunk_size_kb", &value));
    EXPECT_EQ(64, value);
    bool on = true;
    ASSERT_EQ(hipFileSuccess, hipFileSetParameterBool(hipFileParamExecutionParallelIO, false).err);
    ASSERT_EQ(0, hf_config_plugin_bool("fallback", "execution.parallel_io", &on));
    EXPECT_FALSE(on);
    EXPECT_EQ(-ENOENT, hf_config_plugin_int("fallback", "properties.no_such_key", &value));
    EXPECT_EQ(-EINVAL, hf_config_plugin_int("fallback", "execution.parallel_io", &value));
}

TEST_F(EnvTest, MultiplesAreEnforcedOnEveryPath)
{
    EXPECT_EQ(hipFileInvalidValue,
              hipFileSetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 4097).err);
    EXPECT_TRUE(LogHas("properties.per_buffer_cache_size_kb = 4097 is out of range; expected a "
                       "multiple of 4 from 4 to 1048576 (KiB)"));
    EXPECT_EQ(-EINVAL, LoadText("execution = { min_io_threshold_size_kb = 6; };\n"));
    EXPECT_EQ(1024, hf_setting_int(HF_SETTING_MIN_IO_THRESHOLD_SIZE_KB));
}

} // namespace
