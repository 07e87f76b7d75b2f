/*
 * Shared fixture of the config and parameter suites: each test starts from built-in defaults with
 * none of hipfile's variables set, its own config path (absent unless the test writes it) and its
 * log captured in a file; everything is restored afterwards.
 */
#ifndef HF_TEST_CONFIG_FIXTURE_H
#define HF_TEST_CONFIG_FIXTURE_H

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "hf_harness.h"

extern "C" {
#include <hipfile/backend.h>

#include "config/config.h"
#include "base/log.h"

// A core setting's value by the dotted key a user writes, read through its row of the table as
// the core reads it.
inline const hf_setting *SettingRow(const char *key)
{
    const hf_setting *row = hf_setting_find(key);
    EXPECT_NE(row, nullptr) << key << " is not a row of the settings table";
    return row;
}
inline int64_t SettingInt(const char *key)
{
    const hf_setting *row = SettingRow(key);
    return row != nullptr ? hf_setting_int(hf_setting_id_of(row)) : 0;
}
inline bool SettingBool(const char *key)
{
    const hf_setting *row = SettingRow(key);
    return row != nullptr && hf_setting_bool(hf_setting_id_of(row));
}
inline const char *SettingString(const char *key)
{
    const hf_setting *row = SettingRow(key);
    return row != nullptr ? hf_setting_string(hf_setting_id_of(row)) : nullptr;
}
#include "config/settings.h"
}

// A plugin's declaration of one key of its group, as tests write their tables (every member
// not given is zero).
inline hf_setting_decl DeclInt(const char *key, const char *unit, int64_t def, int64_t min,
                               int64_t max, int64_t multiple, const char *env, const char *help)
{
    hf_setting_decl d{};
    d.key = key;
    d.type = HF_DECL_INT;
    d.unit = unit;
    d.default_int = def;
    d.min = min;
    d.max = max;
    d.multiple = multiple;
    d.env = env;
    d.help = help;
    return d;
}

inline hf_setting_decl DeclBool(const char *key, bool def, const char *env, const char *help)
{
    hf_setting_decl d{};
    d.key = key;
    d.type = HF_DECL_BOOL;
    d.default_int = def;
    d.env = env;
    d.help = help;
    return d;
}

inline hf_setting_decl DeclString(const char *key, const char *def, const char *const *names,
                                  const char *env, const char *help)
{
    hf_setting_decl d{};
    d.key = key;
    d.type = HF_DECL_STRING;
    d.default_string = def;
    d.names = names;
    d.env = env;
    d.help = help;
    return d;
}

// The key the fastpath plugin declares for itself (it left the core's table for the plugin's
// own), for tests of what the core does with a declared key. Kept here rather than read from the
// plugin so these tests need no plugin.
inline const hf_setting_decl kFastpathDecls[] = {
    DeclBool("unsupported_file_systems", false, "HIPFILE_UNSUPPORTED_FILE_SYSTEMS",
             "let fastpath serve file systems besides ext4 (data=ordered) and xfs"),
};

// Every test starts from built-in defaults with none of our variables set (ctest sets
// HIPFILE_CONFIG and HIPFILE_GPU_RUNTIME for the whole suite) and captures the log in a file.
class ConfigFixture : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        SaveAndUnset("HIPFILE_CONFIG");
        for (const hf_setting &s : hf_settings) {
            if (s.decl.env != nullptr)
                SaveAndUnset(s.decl.env);
        }
        for (const hf_setting_decl &d : kFastpathDecls)
            SaveAndUnset(d.env);
        hf_config_reset();
        log_path_ = Path("log");
        ASSERT_EQ(0, hf_log_set_file(log_path_.c_str()));
        // Point at a file that does not exist unless the test writes one.
        config_path_ = Path("hipfile.conf");
        setenv("HIPFILE_CONFIG", config_path_.c_str(), 1);
    }

    void TearDown() override
    {
        hf_log_set_file(nullptr);
        for (auto &[name, value] : saved_env_) {
            if (value.first)
                setenv(name.c_str(), value.second.c_str(), 1);
            else
                unsetenv(name.c_str());
        }
        hf_config_reset();
    }

    void SaveAndUnset(const char *name)
    {
        const char *value = getenv(name);
        saved_env_.emplace_back(name, std::make_pair(value != nullptr, value ? value : ""));
        unsetenv(name);
    }

    // A fresh path in the scratch directory, unique per test.
    std::string Path(const std::string &name)
    {
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string unique = std::string(info->test_suite_name()) + "." + info->name() + "." + name;
        for (char &c : unique) {
            if (c == '/')
                c = '_';
        }
        char *path = hf_test_path(unique.c_str());
        std::string out = path;
        free(path);
        unlink(out.c_str());
        return out;
    }

    int LoadText(const std::string &text)
    {
        EXPECT_EQ(0, hf_test_write_text(config_path_.c_str(), text.c_str()));
        return hf_config_load();
    }

    std::string Log()
    {
        char *text = hf_test_read_all(log_path_.c_str(), nullptr);
        std::string out = text != nullptr ? text : "";
        free(text);
        return out;
    }

    bool LogHas(const std::string &needle)
    {
        return hf_test_file_contains(log_path_.c_str(), needle.c_str()) != 0;
    }

    std::string log_path_;
    std::string config_path_;
    std::vector<std::pair<std::string, std::pair<bool, std::string>>> saved_env_;
};

#endif
