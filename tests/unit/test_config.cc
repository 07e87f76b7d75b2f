// The configuration as users meet it: the file (defaults, syntax and value errors with file and
// line, unknown keys), the environment and its precedence, AMD hipFile's own variables, plugin
// lists and plugin groups, and reads that stay safe while settings change.
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "config_fixture.h"
#include "hf_harness.h"

extern "C" {
#include "config/config.h"
#include "base/install_paths.h"
#include "base/log.h"
#include "config/settings.h"
}

namespace
{

std::string ReadFile(const std::string &path)
{
    char *text = hf_test_read_all(path.c_str(), nullptr);
    std::string out = text != nullptr ? text : "";
    free(text);
    return out;
}

int CountLines(const std::string &text)
{
    int lines = 0;
    for (char c : text)
        lines += c == '\n';
    return lines;
}

class ConfigTest : public ConfigFixture
{
};

void ExpectAllDefaults()
{
    for (const hf_setting &s : hf_settings) {
        enum hf_setting_id id = hf_setting_id_of(&s);
        if (id == HF_SETTING_PLUGINS_DIRECTORY && hf_install_plugin_dir() != nullptr) {
            // The plugins beside the library (here: the build tree's), wherever it is installed.
            EXPECT_STREQ(hf_install_plugin_dir(), hf_setting_string(id));
        } else if (hf_setting_type(&s) == HF_TYPE_STRING) {
            EXPECT_STREQ(s.decl.default_string, hf_setting_string(id)) << s.decl.key;
        } else if (hf_setting_type(&s) != HF_TYPE_LIST && hf_setting_type(&s) != HF_TYPE_MAP) {
            EXPECT_EQ(s.decl.default_int, hf_setting_int(id)) << s.decl.key;
        }
    }
}

TEST_F(ConfigTest, MissingHipfileConfigFileGivesDefaultsWithAWarningNamingIt)
{
    ASSERT_EQ(0, hf_config_load());
    ExpectAllDefaults();
    EXPECT_EQ(nullptr, hf_config_path());
    EXPECT_EQ(1, CountLines(Log())) << Log();
    EXPECT_TRUE(LogHas("hipfile[core] warn: HIPFILE_CONFIG names " + config_path_ +
                       ", which does not exist; using built-in defaults (unset HIPFILE_CONFIG to "
                       "read the default file, or correct the path)"))
        << Log();
    EXPECT_EQ(HF_COMPAT_ALLOW, hf_config_compat_mode());
    EXPECT_STREQ("auto", SettingString("gpu.runtime"));
    EXPECT_TRUE(hf_config_plugin_enabled("anything"));
}

// The load sets the level: what it says about the file follows that level, not the one before.
TEST_F(ConfigTest, LinesOfALoadFollowTheLevelTheLoadSets)
{
    hf_log_set_level(HF_LOG_ERROR);
    ASSERT_EQ(0, LoadText("log = { level = \"warn\"; };\nproperties = { no_such_key = 1; };\n"));
    EXPECT_TRUE(LogHas("unknown key properties.no_such_key ignored")) << Log();
    EXPECT_EQ(HF_LOG_WARN, hf_log_level());
}

// Messages say which source to fix: every value knows where it came from.
TEST_F(ConfigTest, EachValueKnowsWhereItCameFrom)
{
    setenv("HIPFILE_PLUGIN_DIR", "/opt/hipfile-plugins", 1);
    setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
    ASSERT_EQ(0,
              LoadText("gpu = {\n  runtime = \"host\";\n};\nplugins = { enable = [\"a\"]; };\n"));
    const char *where = nullptr;
    char text[1024];
    EXPECT_EQ(HF_ORIGIN_FILE, hf_setting_origin(HF_SETTING_GPU_RUNTIME, &where));
    EXPECT_EQ(config_path_ + ":2", where);
    EXPECT_EQ("gpu.runtime at " + config_path_ + ":2",
              std::string(hf_setting_origin_text(HF_SETTING_GPU_RUNTIME, text, sizeof(text))));
    EXPECT_EQ(HF_ORIGIN_FILE, hf_setting_origin(HF_SETTING_PLUGINS_ENABLE, &where));
    EXPECT_EQ(config_path_ + ":4", where);
    EXPECT_EQ(HF_ORIGIN_ENV, hf_setting_origin(HF_SETTING_PLUGINS_DIRECTORY, &where));
    EXPECT_STREQ("HIPFILE_PLUGIN_DIR", where);
    EXPECT_STREQ("HIPFILE_PLUGIN_DIR",
                 hf_setting_origin_text(HF_SETTING_PLUGINS_DIRECTORY, text, sizeof(text)));
    // AMD's boolean views set the one mode; its origin is the variable that set it.
    EXPECT_EQ(HF_ORIGIN_ENV, hf_setting_origin(HF_SETTING_COMPAT_MODE, &where));
    EXPECT_STREQ("HIPFILE_ALLOW_COMPAT_MODE", where);
    EXPECT_EQ(HF_ORIGIN_ENV, hf_setting_origin(HF_SETTING_FORCE_COMPAT_MODE, &where));
    EXPECT_EQ(HF_ORIGIN_DEFAULT, hf_setting_origin(HF_SETTING_LOG_LEVEL, &where));
    EXPECT_EQ(nullptr, where);
    EXPECT_STREQ("the built-in default",
                 hf_setting_origin_text(HF_SETTING_LOG_LEVEL, text, sizeof(text)));
    // A value set through the API stays the API's across a reload.
    ASSERT_EQ(0, hf_setting_set_int(HF_SETTING_MAX_IO_THREADS, 4));
    EXPECT_EQ(HF_ORIGIN_API, hf_setting_origin(HF_SETTING_MAX_IO_THREADS, nullptr));
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(HF_ORIGIN_API, hf_setting_origin(HF_SETTING_MAX_IO_THREADS, nullptr));
    EXPECT_STREQ("the parameter API",
                 hf_setting_origin_text(HF_SETTING_MAX_IO_THREADS, text, sizeof(text)));
    EXPECT_EQ(nullptr, hf_config_failure());
}

TEST_F(ConfigTest, FailedFileLoadBlamesTheFile)
{
    EXPECT_EQ(-EINVAL, LoadText("gpu = { runtime = 42; };\n"));
    ASSERT_NE(nullptr, hf_config_failure());
    EXPECT_EQ("the config file " + config_path_, hf_config_failure());
}

TEST_F(ConfigTest, HeldLinesAreJudgedByTheMoreVerboseOfTheTwoLevels)
{
    hf_log_set_level(HF_LOG_WARN);
    hf_log_hold();
    hf_info("held info line");
    hf_debug("held debug line");
    hf_log_set_level(HF_LOG_INFO);
    EXPECT_FALSE(LogHas("held info line")) << "held until released";
    hf_log_release();
    EXPECT_TRUE(LogHas("hipfile[core] info: held info line")) << Log();
    EXPECT_FALSE(LogHas("held debug line")) << Log();
    hf_log_set_level(HF_LOG_WARN);
}

TEST_F(ConfigTest, DefaultsMatchCuFileWhereCuFileHasTheKey)
{
    EXPECT_EQ(16384, SettingInt("properties.max_direct_io_size_kb"));
    EXPECT_EQ(131072, SettingInt("properties.max_device_cache_size_kb"));
    // cuFile's default is 1024; ours is the fallback's measured chunk (docs/decisions.rst).
    EXPECT_EQ(4096, SettingInt("properties.per_buffer_cache_size_kb"));
    EXPECT_EQ(33554432, SettingInt("properties.max_device_pinned_mem_size_kb"));
    EXPECT_EQ(4, SettingInt("properties.poll_mode_max_size_kb"));
    EXPECT_FALSE(SettingBool("properties.use_poll_mode"));
    EXPECT_FALSE(SettingBool("properties.allow_system_memory"));
    EXPECT_TRUE(SettingBool("properties.allow_compat_mode"));
    EXPECT_FALSE(SettingBool("properties.force_compat_mode"));
    // cuFile's default is 4; ours is 16, chosen by measurement (docs/decisions.rst).
    EXPECT_EQ(16, SettingInt("execution.max_io_threads"));
    EXPECT_TRUE(SettingBool("execution.parallel_io"));
    EXPECT_STREQ("warn", SettingString("log.level"));
}

TEST_F(ConfigTest, FileValuesReplaceDefaults)
{
    ASSERT_EQ(0, LoadText("properties = {\n"
                          "  max_direct_io_size_kb = 4096;\n"
                          "  compat_mode = \"off\";\n"
                          "  use_poll_mode = true;\n"
                          "};\n"
                          "gpu = { runtime = \"/opt/rocm/lib/libamdhip64.so\"; };\n"
                          "fs = { misc = { api_check_aggressive = true; }; };\n"));
    EXPECT_STREQ(config_path_.c_str(), hf_config_path());
    EXPECT_EQ(4096, hf_setting_int(HF_SETTING_MAX_DIRECT_IO_SIZE_KB));
    EXPECT_EQ(HF_COMPAT_OFF, hf_config_compat_mode());
    EXPECT_STREQ("off", SettingString("properties.compat_mode"));
    EXPECT_FALSE(hf_setting_bool(HF_SETTING_ALLOW_COMPAT_MODE));
    EXPECT_TRUE(hf_setting_bool(HF_SETTING_USE_POLL_MODE));
    EXPECT_STREQ("/opt/rocm/lib/libamdhip64.so", SettingString("gpu.runtime"));
    EXPECT_TRUE(SettingBool("fs.misc.api_check_aggressive"));
    EXPECT_EQ("", Log());
}

TEST_F(ConfigTest, MalformedFileIsOneErrorNamingFileAndLine)
{
    EXPECT_EQ(-EINVAL, LoadText("log = {\n"
                                "  level = \"info\";\n"
                                "  file = ;\n"
                                "};\n"));
    std::string log = Log();
    EXPECT_NE(std::string::npos, log.find(config_path_ + ":3: ")) << log;
    EXPECT_NE(std::string::npos, log.find("syntax error")) << log;
    EXPECT_EQ(1, CountLines(log)) << log;
    EXPECT_STREQ(config_path_.c_str(), hf_config_path());
}

TEST_F(ConfigTest, FailedLoadKeepsPreviousSettings)
{
    ASSERT_EQ(0, LoadText("execution = { max_io_threads = 16; };\n"));
    EXPECT_EQ(-EINVAL, LoadText("execution = { max_io_threads = 16 \n max_io_threads = 2; };\n"));
    EXPECT_EQ(16, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
    EXPECT_EQ(-EINVAL, LoadText("execution = { max_io_threads = 0; };\n"));
    EXPECT_EQ(16, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
}

TEST_F(ConfigTest, DuplicateKeyIsASyntaxError)
{
    EXPECT_EQ(-EINVAL, LoadText("profile = {\n  nvtx = true;\n  nvtx = false;\n};\n"));
    EXPECT_NE(std::string::npos, Log().find(config_path_ + ":3: duplicate setting name"));
}

struct BadValue {
    const char *name;
    const char *text;
    const char *message; // expected after "<file>:<line>: "
    int line;
};

class ConfigBadValueTest : public ConfigTest, public ::testing::WithParamInterface<BadValue>
{
};

TEST_P(ConfigBadValueTest, IsRejectedWithFileLineKeyAndAllowedValues)
{
    const BadValue &bad = GetParam();
    EXPECT_EQ(-EINVAL, LoadText(bad.text));
    std::string log = Log();
    std::string expected = config_path_ + ":" + std::to_string(bad.line) + ": " + bad.message;
    EXPECT_NE(std::string::npos, log.find(expected)) << "log: " << log << "\nwanted: " << expected;
    EXPECT_EQ(1, CountLines(log)) << log;
    ExpectAllDefaults();
}

const BadValue kBadValues[] = {
    {"StringForInteger", "properties = {\n  max_direct_io_size_kb = \"16M\";\n};\n",
     "properties.max_direct_io_size_kb is a string; expected an integer from 4 to 2097148 (KiB)",
     2},
    {"FloatForInteger", "execution = { max_io_threads = 2.5; };\n",
     "execution.max_io_threads is a floating-point number; expected an integer from 1 to 1024", 1},
    {"IntegerForBoolean", "properties = {\n\n  use_poll_mode = 1;\n};\n",
     "properties.use_poll_mode is an integer; expected true or false", 3},
    {"IntegerForString", "gpu = { runtime = 3; };\n",
     "gpu.runtime is an integer; expected \"auto\", \"hip\", \"cuda\", \"host\" or the path of a "
     "HIP runtime library",
     1},
    {"BooleanForEnum", "properties = { compat_mode = true; };\n",
     "properties.compat_mode is a boolean; expected one of \"off\", \"allow\", \"force\"", 1},
    {"BooleanForCompatView", "properties = { allow_compat_mode = \"yes\"; };\n",
     "properties.allow_compat_mode is a string; expected true or false", 1},
    {"IntegersInEnableList", "plugins = {\n  enable = [1, 2];\n};\n",
     "plugins.enable is an array; expected a list of plugin names, e.g. [\"fallback\"]", 2},
    {"StringForEnableList", "plugins = { enable = \"fallback\"; };\n",
     "plugins.enable is a string; expected a list of plugin names", 1},
    {"StringPriority", "plugins = {\n  priority = {\n    fallback = \"high\";\n  };\n};\n",
     "plugins.priority.fallback must be an integer from -2147483648 to 2147483647 (got a string)",
     3},
    {"ScalarForPriorityMap", "plugins = { priority = 3; };\n",
     "plugins.priority is an integer; expected a group of plugin-name = integer entries", 1},
    {"CoreGroupNotAGroup", "\nlog = 5;\n", "log is an integer; expected a group: log = { ... };",
     2},
    {"BelowRange", "properties = { max_direct_io_size_kb = 2; };\n",
     "properties.max_direct_io_size_kb = 2 is out of range; expected an integer from 4 to 2097148 "
     "(KiB)",
     1},
    {"AboveRange", "profile = { stats = 4; };\n",
     "profile.stats = 4 is out of range; expected an integer from 0 to 3", 1},
    {"Int64AboveRange", "properties = { max_device_pinned_mem_size_kb = 4294967296L; };\n",
     "properties.max_device_pinned_mem_size_kb = 4294967296 is out of range; expected an integer "
     "from 1024 to 2147483647 (KiB)",
     1},
    {"UnknownEnumName", "properties = { compat_mode = \"sometimes\"; };\n",
     "properties.compat_mode = \"sometimes\" is out of range; expected one of \"off\", \"allow\", "
     "\"force\"",
     1},
    {"UnknownLogLevel", "log = { level = \"loud\"; };\n",
     "log.level = \"loud\" is out of range; expected one of \"error\", \"warn\", \"info\", "
     "\"debug\"",
     1},
    {"MisspelledRuntime", "gpu = { runtime = \"cdua\"; };\n",
     "gpu.runtime = \"cdua\" is out of range; expected \"auto\", \"hip\", \"cuda\", \"host\"", 1},
    {"EmptyPluginDirectory", "plugins = { directory = \"\"; };\n",
     "plugins.directory = \"\" is out of range; expected a non-empty string", 1},
};

INSTANTIATE_TEST_SUITE_P(Config, ConfigBadValueTest, ::testing::ValuesIn(kBadValues),
                         [](const ::testing::TestParamInfo<BadValue> &info) {
                             return std::string(info.param.name);
                         });

TEST_F(ConfigTest, UnknownKeyInKnownGroupWarnsWithFileLineAndIsIgnored)
{
    ASSERT_EQ(0, LoadText("properties = {\n"
                          "  max_direct_io_size = 4096;\n"
                          "  use_poll_mode = true;\n"
                          "};\n"
                          "fs = { misc = { typo = 1; }; generic = { x = 1; }; };\n"));
    std::string log = Log();
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":2: unknown key properties.max_direct_io_size ignored; "
                                      "did you mean properties.max_direct_io_size_kb?"))
        << log;
    EXPECT_NE(std::string::npos, log.find(config_path_ + ":5: unknown key fs.misc.typo ignored"))
        << log;
    EXPECT_NE(std::string::npos, log.find(config_path_ + ":5: unknown key fs.generic ignored"))
        << log;
    EXPECT_EQ(3, CountLines(log)) << log;
    EXPECT_TRUE(hf_setting_bool(HF_SETTING_USE_POLL_MODE));
    EXPECT_EQ(16384, hf_setting_int(HF_SETTING_MAX_DIRECT_IO_SIZE_KB));
}

TEST_F(ConfigTest, TopLevelScalarWarnsAndIsIgnored)
{
    ASSERT_EQ(0, LoadText("use_poll_mode = true;\n"));
    EXPECT_NE(std::string::npos,
              Log().find(config_path_ + ":1: unknown top-level key use_poll_mode ignored"));
    EXPECT_FALSE(hf_setting_bool(HF_SETTING_USE_POLL_MODE));
}

TEST_F(ConfigTest, PluginGroupsAreKeptAsParsedForLookups)
{
    ASSERT_EQ(0, LoadText("fallback = {\n"
                          "  bounce_buffers = 8;\n"
                          "  pinned = true;\n"
                          "  engine = \"threads\";\n"
                          "  big = 8589934592L;\n"
                          "  nested = { depth = 3; };\n"
                          "};\n"
                          "nvme-passthru = { writes = false; };\n"));
    EXPECT_EQ("", Log()) << "plugin keys are the plugin's business, not warnings";
    int64_t i = 0;
    bool b = false;
    const char *s = nullptr;
    EXPECT_EQ(0, hf_config_plugin_int("fallback", "bounce_buffers", &i));
    EXPECT_EQ(8, i);
    EXPECT_EQ(0, hf_config_plugin_int("fallback", "big", &i));
    EXPECT_EQ(8589934592LL, i);
    EXPECT_EQ(0, hf_config_plugin_int("fallback", "nested.depth", &i));
    EXPECT_EQ(3, i);
    EXPECT_EQ(0, hf_config_plugin_bool("fallback", "pinned", &b));
    EXPECT_TRUE(b);
    EXPECT_EQ(0, hf_config_plugin_string("fallback", "engine", &s));
    EXPECT_STREQ("threads", s);
    EXPECT_EQ(0, hf_config_plugin_bool("nvme-passthru", "writes", &b));
    EXPECT_FALSE(b);
}

TEST_F(ConfigTest, PluginLookupOfUnsetKeyIsENOENTAndLeavesOutputAlone)
{
    ASSERT_EQ(0, LoadText("fallback = { bounce_buffers = 8; };\n"));
    int64_t i = 42;
    bool b = true;
    const char *s = "untouched";
    EXPECT_EQ(-ENOENT, hf_config_plugin_int("fallback", "missing", &i));
    EXPECT_EQ(-ENOENT, hf_config_plugin_int("fastpath", "bounce_buffers", &i));
    EXPECT_EQ(-ENOENT, hf_config_plugin_bool("nvme-passthru", "writes", &b));
    EXPECT_EQ(-ENOENT, hf_config_plugin_string("fallback", "engine", &s));
    EXPECT_EQ(42, i);
    EXPECT_TRUE(b);
    EXPECT_STREQ("untouched", s);
}

TEST_F(ConfigTest, PluginLookupWithWrongTypeIsEINVALNamingFileAndLine)
{
    ASSERT_EQ(0, LoadText("fallback = {\n  engine = \"threads\";\n  depth = 4;\n};\n"));
    int64_t i = 42;
    bool b = false;
    const char *s = nullptr;
    EXPECT_EQ(-EINVAL, hf_config_plugin_int("fallback", "engine", &i));
    EXPECT_EQ(42, i);
    EXPECT_EQ(-EINVAL, hf_config_plugin_bool("fallback", "depth", &b));
    EXPECT_EQ(-EINVAL, hf_config_plugin_string("fallback", "depth", &s));
    EXPECT_EQ(nullptr, s);
    std::string log = Log();
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":2: fallback.engine is a string; expected an integer"))
        << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":3: fallback.depth is an integer; expected true or false"))
        << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":3: fallback.depth is an integer; expected a string"))
        << log;
}

TEST_F(ConfigTest, PluginEnableListAndPriorities)
{
    ASSERT_EQ(0, LoadText("plugins = {\n"
                          "  enable = [\"fallback\", \"nvme-passthru\"];\n"
                          "  priority = { fallback = 10; nvme-passthru = -5; };\n"
                          "};\n"));
    EXPECT_TRUE(hf_config_plugin_enabled("fallback"));
    EXPECT_TRUE(hf_config_plugin_enabled("nvme-passthru"));
    EXPECT_FALSE(hf_config_plugin_enabled("fastpath"));
    int priority = 0;
    EXPECT_EQ(0, hf_config_plugin_priority("fallback", &priority));
    EXPECT_EQ(10, priority);
    EXPECT_EQ(0, hf_config_plugin_priority("nvme-passthru", &priority));
    EXPECT_EQ(-5, priority);
    priority = 7;
    EXPECT_EQ(-ENOENT, hf_config_plugin_priority("fastpath", &priority));
    EXPECT_EQ(7, priority);
}

TEST_F(ConfigTest, EmptyOrAbsentEnableListEnablesEveryPlugin)
{
    ASSERT_EQ(0, LoadText("plugins = { enable = (); };\n"));
    EXPECT_TRUE(hf_config_plugin_enabled("fallback"));
    ASSERT_EQ(0, LoadText("plugins = { directory = \"/srv/plugins\"; };\n"));
    EXPECT_TRUE(hf_config_plugin_enabled("fastpath"));
    EXPECT_STREQ("/srv/plugins", SettingString("plugins.directory"));
}

TEST_F(ConfigTest, EnvironmentOverridesTheFile)
{
    setenv("HIPFILE_GPU_RUNTIME", "host", 1);
    setenv("HIPFILE_PLUGIN_DIR", "/env/plugins", 1);
    setenv("HIPFILE_LOG_LEVEL", "debug", 1);
    setenv("HIPFILE_PLUGINS", "fastpath, fallback", 1);
    ASSERT_EQ(0,
              LoadText("gpu = { runtime = \"hip\"; };\n"
                       "log = { level = \"error\"; };\n"
                       "plugins = { directory = \"/file/plugins\"; enable = [\"nvme-passthru\"]; "
                       "};\n"));
    EXPECT_STREQ("host", SettingString("gpu.runtime"));
    EXPECT_STREQ("/env/plugins", SettingString("plugins.directory"));
    EXPECT_STREQ("debug", SettingString("log.level"));
    EXPECT_EQ(HF_LOG_DEBUG, hf_log_level());
    EXPECT_TRUE(hf_config_plugin_enabled("fastpath"));
    EXPECT_TRUE(hf_config_plugin_enabled("fallback"));
    EXPECT_FALSE(hf_config_plugin_enabled("nvme-passthru"));
}

TEST_F(ConfigTest, EnvironmentWorksWithoutAFile)
{
    setenv("HIPFILE_GPU_RUNTIME", "cuda", 1);
    setenv("HIPFILE_LOG_LEVEL", "2", 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_STREQ("cuda", SettingString("gpu.runtime"));
    EXPECT_EQ(HF_LOG_INFO, hf_log_level());
}

TEST_F(ConfigTest, EmptyEnvironmentVariableCountsAsUnset)
{
    setenv("HIPFILE_GPU_RUNTIME", "", 1);
    ASSERT_EQ(0, LoadText("gpu = { runtime = \"hip\"; };\n"));
    EXPECT_STREQ("hip", SettingString("gpu.runtime"));
}

TEST_F(ConfigTest, DefaultConfigPathIsUsedWithoutHIPFILE_CONFIG)
{
    unsetenv("HIPFILE_CONFIG");
    int rc = hf_config_load();
    // The default files may or may not exist on this machine; a file read is one of them.
    const char *const *search = hf_config_search_path();
    ASSERT_NE(nullptr, search[0]);
    if (hf_config_path() != nullptr) {
        bool listed = false;
        for (const char *const *path = search; *path != nullptr; path++)
            listed = listed || strcmp(*path, hf_config_path()) == 0;
        EXPECT_TRUE(listed) << hf_config_path();
    } else {
        EXPECT_EQ(0, rc);
    }
}

TEST_F(ConfigTest, DefaultSearchPathIsTheBuildTreesFileThenEtc)
{
    const char *const *search = hf_config_search_path();
    // This program has the core linked in and runs from the build tree: the build's own file is
    // the installation's own, so programs run from the build tree need no HIPFILE_CONFIG.
    EXPECT_STREQ(HF_TEST_BUILD_CONFIG, search[0]);
    EXPECT_STREQ("/etc/hipfile.conf", search[1]);
    EXPECT_EQ(nullptr, search[2]);
    if (hf_install_libdir() == nullptr)
        GTEST_SKIP()
            << "the build tree has no library directory where the installed layout has one";
    EXPECT_EQ(std::string(hf_install_libdir()) + "/hipfile/plugins", hf_install_plugin_dir());
}

struct BadEnv {
    const char *name;
    const char *variable;
    const char *value;
};

class ConfigBadEnvTest : public ConfigTest, public ::testing::WithParamInterface<BadEnv>
{
};

TEST_P(ConfigBadEnvTest, IsRejectedWithOneLineNamingTheVariable)
{
    const BadEnv &bad = GetParam();
    setenv(bad.variable, bad.value, 1);
    EXPECT_EQ(-EINVAL, LoadText(""));
    std::string log = Log();
    EXPECT_NE(std::string::npos,
              log.find(std::string("environment ") + bad.variable + "=\"" + bad.value + "\""))
        << log;
    EXPECT_EQ(1, CountLines(log)) << log;
    // The failure is the variable's, not the (empty, valid) file's.
    ASSERT_NE(nullptr, hf_config_failure());
    EXPECT_EQ(std::string("the environment variable ") + bad.variable, hf_config_failure());
    ExpectAllDefaults();
}

const BadEnv kBadEnvs[] = {
    {"LogLevel", "HIPFILE_LOG_LEVEL", "loud"},
    {"Runtime", "HIPFILE_GPU_RUNTIME", "rocm"},
    {"AllowCompat", "HIPFILE_ALLOW_COMPAT_MODE", "maybe"},
    {"ForceCompat", "HIPFILE_FORCE_COMPAT_MODE", "2"},
    {"StatsNotANumber", "HIPFILE_STATS_LEVEL", "one"},
    {"StatsTrailingJunk", "HIPFILE_STATS_LEVEL", "1x"},
    {"StatsOutOfRange", "HIPFILE_STATS_LEVEL", "9"},
    {"StatsNegative", "HIPFILE_STATS_LEVEL", "-1"},
    {"PluginsOnlyCommas", "HIPFILE_PLUGINS", " , ,"},
};

INSTANTIATE_TEST_SUITE_P(Config, ConfigBadEnvTest, ::testing::ValuesIn(kBadEnvs),
                         [](const ::testing::TestParamInfo<BadEnv> &info) {
                             return std::string(info.param.name);
                         });

TEST_F(ConfigTest, AmdAllowCompatModeFalseTurnsCompatOff)
{
    setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(HF_COMPAT_OFF, hf_config_compat_mode());
    EXPECT_FALSE(hf_setting_bool(HF_SETTING_ALLOW_COMPAT_MODE));
}

TEST_F(ConfigTest, AmdAllowCompatModeTrueReenablesWhatTheFileTurnedOff)
{
    setenv("HIPFILE_ALLOW_COMPAT_MODE", "TRUE", 1);
    ASSERT_EQ(0, LoadText("properties = { compat_mode = \"off\"; };\n"));
    EXPECT_EQ(HF_COMPAT_ALLOW, hf_config_compat_mode());
}

TEST_F(ConfigTest, AmdForceCompatModeForcesCompat)
{
    setenv("HIPFILE_FORCE_COMPAT_MODE", "true", 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(HF_COMPAT_FORCE, hf_config_compat_mode());
    EXPECT_TRUE(hf_setting_bool(HF_SETTING_FORCE_COMPAT_MODE));
    EXPECT_TRUE(hf_setting_bool(HF_SETTING_ALLOW_COMPAT_MODE));
}

TEST_F(ConfigTest, AmdForceWithAllowFalseForcesAndWarns)
{
    setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
    setenv("HIPFILE_FORCE_COMPAT_MODE", "true", 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(HF_COMPAT_FORCE, hf_config_compat_mode());
    EXPECT_NE(std::string::npos, Log().find("HIPFILE_FORCE_COMPAT_MODE=true overrides"));
}

TEST_F(ConfigTest, AmdForceCompatModeFalseUndoesForceFromTheFile)
{
    setenv("HIPFILE_FORCE_COMPAT_MODE", "false", 1);
    ASSERT_EQ(0, LoadText("properties = { compat_mode = \"force\"; };\n"));
    EXPECT_EQ(HF_COMPAT_ALLOW, hf_config_compat_mode());
}

TEST_F(ConfigTest, AmdStatsLevelSetsProfileStats)
{
    setenv("HIPFILE_STATS_LEVEL", "0", 1);
    ASSERT_EQ(0, LoadText("profile = { stats = 3; };\n"));
    EXPECT_EQ(0, SettingInt("profile.stats"));
}

TEST_F(ConfigTest, AmdUnsupportedFileSystemsReachesTheFastpathGroup)
{
    bool allowed = true;
    ASSERT_EQ(0, LoadText("fastpath = { engine = \"ais\"; };\n"));
    ASSERT_EQ(0, hf_config_declare_plugin_settings("fastpath", kFastpathDecls, 1));
    EXPECT_EQ(0, hf_config_plugin_bool("fastpath", "unsupported_file_systems", &allowed));
    EXPECT_FALSE(allowed);
    setenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", "true", 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(0, hf_config_plugin_bool("fastpath", "unsupported_file_systems", &allowed));
    EXPECT_TRUE(allowed);
    // A plugin that declares its keys reads only those; engine is reported, not answered.
    const char *engine = nullptr;
    EXPECT_EQ(-ENOENT, hf_config_plugin_string("fastpath", "engine", &engine));
    EXPECT_NE(std::string::npos, Log().find("unknown key fastpath.engine ignored")) << Log();
    int64_t wrong = 0;
    EXPECT_EQ(-EINVAL, hf_config_plugin_int("fastpath", "unsupported_file_systems", &wrong));
}

TEST_F(ConfigTest, CuFileCompatSpellingsInTheFileDriveCompatMode)
{
    ASSERT_EQ(0, LoadText("properties = { allow_compat_mode = false; };\n"));
    EXPECT_EQ(HF_COMPAT_OFF, hf_config_compat_mode());
    ASSERT_EQ(0, LoadText("properties = { force_compat_mode = true; };\n"));
    EXPECT_EQ(HF_COMPAT_FORCE, hf_config_compat_mode());
    ASSERT_EQ(0,
              LoadText("properties = { compat_mode = \"force\"; force_compat_mode = false; };\n"));
    EXPECT_EQ(HF_COMPAT_ALLOW, hf_config_compat_mode());
}

TEST_F(ConfigTest, ParameterValuesOutliveReloadsUntilReset)
{
    ASSERT_EQ(0, hf_setting_set_int(HF_SETTING_MAX_IO_THREADS, 12));
    ASSERT_EQ(0, hf_setting_set_bool(HF_SETTING_FORCE_COMPAT_MODE, true));
    setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
    ASSERT_EQ(0, LoadText("execution = { max_io_threads = 3; };\n"));
    EXPECT_EQ(12, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
    EXPECT_EQ(HF_COMPAT_FORCE, hf_config_compat_mode());
    hf_config_reset();
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(3, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
    EXPECT_EQ(HF_COMPAT_OFF, hf_config_compat_mode());
}

TEST_F(ConfigTest, SettersRejectWrongTypeAndRange)
{
    EXPECT_EQ(-EINVAL, hf_setting_set_int(HF_SETTING_USE_POLL_MODE, 1));
    EXPECT_EQ(-EINVAL, hf_setting_set_bool(HF_SETTING_MAX_IO_THREADS, true));
    EXPECT_EQ(-EINVAL, hf_setting_set_string(HF_SETTING_MAX_IO_THREADS, "4"));
    EXPECT_EQ(-ERANGE, hf_setting_set_int(HF_SETTING_MAX_IO_THREADS, 0));
    EXPECT_EQ(-EINVAL, hf_setting_set_string(HF_SETTING_GPU_RUNTIME, "cdua"));
    EXPECT_EQ(-EINVAL, hf_setting_set_string(HF_SETTING_GPU_RUNTIME, nullptr));
    EXPECT_EQ(-EINVAL, hf_setting_set_int(HF_SETTING_COUNT, 1));
    EXPECT_NE(std::string::npos,
              Log().find("execution.max_io_threads = 0 is out of range; expected an integer from 1 "
                         "to 1024"));
    ExpectAllDefaults();
}

TEST_F(ConfigTest, LogFileFromTheConfigReceivesLogLines)
{
    std::string target = Path("target.log");
    ASSERT_EQ(0, LoadText("log = { file = \"" + target + "\"; };\n"));
    hf_warn("line after the switch");
    EXPECT_TRUE(hf_test_file_contains(target.c_str(), "line after the switch"));
    EXPECT_FALSE(hf_test_file_contains(log_path_.c_str(), "line after the switch"));
}

TEST_F(ConfigTest, LogDirFromTheConfigGetsAPerProcessFile)
{
    std::string dir = Path("logdir");
    ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
    ASSERT_EQ(0, LoadText("log = { dir = \"" + dir + "\"; };\n"));
    hf_warn("line in the directory");
    std::string file = dir + "/hipfile_" + std::to_string(getpid()) + ".log";
    EXPECT_TRUE(hf_test_file_contains(file.c_str(), "line in the directory"));
}

TEST_F(ConfigTest, UnopenableLogFileWarnsAndKeepsTheOldSink)
{
    ASSERT_EQ(0, LoadText("log = { file = \"/nonexistent-dir/x/hipfile.log\"; };\n"));
    hf_warn("still here");
    std::string log = Log();
    EXPECT_NE(std::string::npos, log.find("cannot open log file /nonexistent-dir/x/hipfile.log"));
    EXPECT_NE(std::string::npos, log.find("still here"));
}

// The log's open would wait for a reader of the FIFO; a device or /proc/self/mem would take the
// lines somewhere they do not belong (the second writes into this process's memory).
TEST_F(ConfigTest, LogFileThatIsAFifoIsRefusedWithoutBlocking)
{
    std::string fifo = Path("log.fifo");
    ASSERT_EQ(0, mkfifo(fifo.c_str(), 0644));
    alarm(20);
    ASSERT_EQ(0, LoadText("log = { file = \"" + fifo + "\"; };\n"));
    alarm(0);
    hf_warn("still here");
    std::string log = Log();
    EXPECT_NE(std::string::npos, log.find("log file " + fifo +
                                          " is a FIFO (named pipe), not a regular file; logging "
                                          "continues where it went before"))
        << log;
    EXPECT_NE(std::string::npos, log.find("still here"));
}

TEST_F(ConfigTest, LogFileThatIsADeviceOrAProcFileIsRefused)
{
    const std::pair<const char *, const char *> cases[] = {
        {"/dev/zero", "a character device, not a regular file"},
        {"/proc/self/mem", "a file of procfs (/proc), a kernel interface, not a regular file"},
    };
    for (const auto &[path, what] : cases) {
        ASSERT_EQ(0, LoadText(std::string("log = { file = \"") + path + "\"; };\n"));
        hf_warn("after %s", path);
        std::string log = Log();
        EXPECT_NE(std::string::npos, log.find(std::string("log file ") + path + " is " + what))
            << log;
        EXPECT_NE(std::string::npos, log.find(std::string("after ") + path)) << log;
    }
}

TEST_F(ConfigTest, IncludePathsAreRelativeToTheConfigFile)
{
    std::string part = Path("part.conf");
    ASSERT_EQ(0, hf_test_write_text(part.c_str(), "execution = { max_io_threads = 9; };\n"));
    std::string name = part.substr(part.rfind('/') + 1);
    ASSERT_EQ(0, LoadText("@include \"" + name + "\"\n"));
    EXPECT_EQ(9, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
}

TEST_F(ConfigTest, ErrorInAnIncludedFileNamesThatFile)
{
    std::string part = Path("bad-part.conf");
    ASSERT_EQ(0, hf_test_write_text(part.c_str(), "\nexecution = { max_io_threads = -1; };\n"));
    std::string name = part.substr(part.rfind('/') + 1);
    ASSERT_EQ(-EINVAL, LoadText("@include \"" + name + "\"\n"));
    EXPECT_NE(std::string::npos, Log().find(part + ":2: execution.max_io_threads = -1")) << Log();
}

TEST_F(ConfigTest, SyntaxErrorInAnIncludedFileNamesThatFile)
{
    std::string part = Path("broken-part.conf");
    ASSERT_EQ(0, hf_test_write_text(part.c_str(), "\n\nexecution = { max_io_threads = ; };\n"));
    std::string name = part.substr(part.rfind('/') + 1);
    ASSERT_EQ(-EINVAL, LoadText("\n@include \"" + name + "\"\n"));
    EXPECT_NE(std::string::npos, Log().find(part + ":3: syntax error")) << Log();
}

TEST_F(ConfigTest, DirectoryAsConfigFileIsRejected)
{
    setenv("HIPFILE_CONFIG", hf_test_tmpdir(), 1);
    EXPECT_EQ(-EINVAL, hf_config_load());
    EXPECT_NE(std::string::npos, Log().find("is a directory, not a regular file")) << Log();
}

// Opening a FIFO waits for a writer: the watchdog (SIGALRM ends the process) makes a load that
// opens one fail the test instead of hanging it.
TEST_F(ConfigTest, FifoAsConfigFileIsRefusedWithoutBlocking)
{
    ASSERT_EQ(0, mkfifo(config_path_.c_str(), 0644));
    alarm(20);
    EXPECT_EQ(-EINVAL, hf_config_load());
    alarm(0);
    EXPECT_NE(std::string::npos, Log().find("config file " + config_path_ +
                                            " is a FIFO (named pipe), not a regular file"))
        << Log();
}

// /dev/null is no "empty config": every file that is not a regular file is refused alike.
TEST_F(ConfigTest, DeviceAsConfigFileIsRefused)
{
    setenv("HIPFILE_CONFIG", "/dev/null", 1);
    EXPECT_EQ(-EINVAL, hf_config_load());
    EXPECT_NE(std::string::npos,
              Log().find("config file /dev/null is a character device, not a regular file"))
        << Log();
}

TEST_F(ConfigTest, ProcFileAsConfigFileIsRefused)
{
    setenv("HIPFILE_CONFIG", "/proc/self/status", 1);
    EXPECT_EQ(-EINVAL, hf_config_load());
    EXPECT_NE(std::string::npos, Log().find("config file /proc/self/status is a file of procfs "
                                            "(/proc), a kernel interface, not a regular file"))
        << Log();
}

TEST_F(ConfigTest, UnreadableConfigFileIsAnError)
{
    if (geteuid() == 0)
        GTEST_SKIP() << "root reads any file";
    ASSERT_EQ(0, hf_test_write_text(config_path_.c_str(), "log = {};\n"));
    ASSERT_EQ(0, chmod(config_path_.c_str(), 0));
    EXPECT_EQ(-EACCES, hf_config_load());
    EXPECT_NE(std::string::npos, Log().find("cannot open config file " + config_path_));
}

TEST_F(ConfigTest, EnsureLoadedLoadsOnlyOnce)
{
    ASSERT_EQ(0, LoadText("execution = { max_io_threads = 5; };\n"));
    hf_config_reset();
    EXPECT_EQ(0, hf_config_ensure_loaded());
    EXPECT_EQ(5, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
    ASSERT_EQ(0, hf_test_write_text(config_path_.c_str(), "execution = { max_io_threads = 6; };"));
    EXPECT_EQ(0, hf_config_ensure_loaded());
    EXPECT_EQ(5, hf_setting_int(HF_SETTING_MAX_IO_THREADS));
}

TEST_F(ConfigTest, ShippedConfigLoadsCleanlyWithBuiltInDefaults)
{
    std::string shipped = std::string(HF_TEST_BUILD_DIR) + "/hipfile.conf";
    setenv("HIPFILE_CONFIG", shipped.c_str(), 1);
    hf_log_set_level(HF_LOG_DEBUG);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ("", Log()) << "every key of the shipped file is known and valid";
    for (const hf_setting &s : hf_settings) {
        enum hf_setting_id id = hf_setting_id_of(&s);
        if (id == HF_SETTING_PLUGINS_DIRECTORY) {
            EXPECT_STREQ(HF_TEST_PLUGIN_DIR, hf_setting_string(id));
        } else if (hf_setting_type(&s) == HF_TYPE_STRING) {
            EXPECT_STREQ(s.decl.default_string, hf_setting_string(id)) << s.decl.key;
        } else if (hf_setting_type(&s) != HF_TYPE_LIST && hf_setting_type(&s) != HF_TYPE_MAP) {
            EXPECT_EQ(s.decl.default_int, hf_setting_int(id)) << s.decl.key;
        }
    }
    EXPECT_TRUE(hf_config_plugin_enabled("fallback"));
}

TEST_F(ConfigTest, EveryKeyIsInTheShippedConfig)
{
    std::string text = ReadFile(std::string(HF_TEST_BUILD_DIR) + "/hipfile.conf");
    for (const hf_setting &s : hf_settings) {
        std::string key = s.decl.key;
        std::string leaf = key.substr(key.rfind('.') + 1);
        EXPECT_NE(std::string::npos, text.find(leaf + " = ")) << s.decl.key;
    }
}

TEST_F(ConfigTest, ReadsStaySaneWhileSettingsChange)
{
    ASSERT_EQ(0, LoadText("gpu = { runtime = \"hip\"; };\nfallback = { depth = 1; };\n"));
    std::atomic<bool> stop{false};
    std::atomic<long> bad{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; t++) {
        readers.emplace_back([&] {
            while (!stop.load()) {
                const char *runtime = SettingString("gpu.runtime");
                if (runtime == nullptr ||
                    (strcmp(runtime, "hip") != 0 && strcmp(runtime, "host") != 0))
                    bad++;
                int64_t threads = hf_setting_int(HF_SETTING_MAX_IO_THREADS);
                if (threads != 4 && threads != 8 && threads != 16) // 16: the default
                    bad++;
                int64_t depth = 0;
                if (hf_config_plugin_int("fallback", "depth", &depth) != 0 || depth != 1)
                    bad++;
            }
        });
    }
    for (int i = 0; i < 200; i++) {
        ASSERT_EQ(0, hf_setting_set_string(HF_SETTING_GPU_RUNTIME, i % 2 ? "host" : "hip"));
        ASSERT_EQ(0, hf_setting_set_int(HF_SETTING_MAX_IO_THREADS, i % 2 ? 8 : 4));
        ASSERT_EQ(0, hf_config_load());
    }
    stop = true;
    for (std::thread &t : readers)
        t.join();
    EXPECT_EQ(0, bad.load());
}

} // namespace
