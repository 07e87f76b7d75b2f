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
#include "config.h"
#include "log.h"
#include "settings.h"
}

// Every test starts from built-in defaults with none of our variables set (ctest sets
// HIPFILE_CONFIG and HIPFILE_GPU_RUNTIME for the whole suite) and captures the log in a file.
class ConfigFixture : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        SaveAndUnset("HIPFILE_CONFIG");
        for (const hf_setting &s : hf_settings) {
            if (s.env != nullptr)
                SaveAndUnset(s.env);
        }
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
