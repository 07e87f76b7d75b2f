// The plugin kit: the entry point HFP_BACKEND_ENTRY makes refuses a core below the backend's
// minimum minor or with a short table and hands the ops over otherwise; the typed readers answer
// a declared key's default when it is unset; hfp_core_limits prefers the host's core_limits.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "hipfile/plugin_kit.h"
#include "common/plugin_settings.h"
#include "plugin_kit_subject.h"

namespace
{

// What the test host answers: per key, the result and the value.
std::map<std::string, std::pair<int, int64_t>> g_ints;
std::map<std::string, std::pair<int, bool>> g_bools;
std::map<std::string, std::pair<int, std::string>> g_texts;
std::vector<std::string> g_log;
int g_core_limits_calls = 0;

void TestLog(const hf_host_api *, int, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    g_log.push_back(line);
}

template <typename Map, typename Value> int Answer(const Map &map, const char *key, Value *value_p)
{
    auto it = map.find(key);
    if (it == map.end())
        return -ENOENT;
    if (it->second.first != 0)
        return it->second.first;
    *value_p = it->second.second;
    return 0;
}

int TestConfigInt(const hf_host_api *, const char *key, int64_t *value_p)
{
    return Answer(g_ints, key, value_p);
}

int TestConfigBool(const hf_host_api *, const char *key, bool *value_p)
{
    return Answer(g_bools, key, value_p);
}

int TestConfigString(const hf_host_api *, const char *key, const char **value_p)
{
    auto it = g_texts.find(key);
    if (it == g_texts.end())
        return -ENOENT;
    if (it->second.first != 0)
        return it->second.first;
    *value_p = it->second.second.c_str();
    return 0;
}

void TestCoreLimits(const hf_host_api *, hf_core_limits *limits_p)
{
    g_core_limits_calls++;
    limits_p->parallel_io = false;
    limits_p->max_request_parallelism = 7;
    limits_p->max_device_cache_size_kb = 2048;
}

bool HasLine(const std::string &needle)
{
    for (const std::string &line : g_log) {
        if (line.find(needle) != std::string::npos)
            return true;
    }
    return false;
}

class PluginKit : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        g_ints.clear();
        g_bools.clear();
        g_texts.clear();
        g_log.clear();
        g_core_limits_calls = 0;
        gpu_.struct_size = sizeof(gpu_);
        sys_.struct_size = sizeof(sys_);
        host_.struct_size = sizeof(host_);
        host_.abi_minor = HF_BACKEND_ABI_MINOR;
        host_.log = TestLog;
        host_.config_int = TestConfigInt;
        host_.config_bool = TestConfigBool;
        host_.config_string = TestConfigString;
        host_.gpu = &gpu_;
        host_.sys = &sys_;
        host_.core_limits = TestCoreLimits;
    }

    int Entry(uint32_t core_minor)
    {
        minor_ = core_minor;
        ops_ = nullptr;
        return hf_backend_entry_v1(&host_, &minor_, &ops_);
    }

    const hf_setting_decl *Decl(int index)
    {
        return &kit_subject_decls[index];
    }

    hf_gpu_ops gpu_{};
    hf_sys_ops sys_{};
    hf_host_api host_{};
    uint32_t minor_ = 0;
    const hf_backend_ops *ops_ = nullptr;
};

// ---- the entry point ----

TEST_F(PluginKit, EntryAcceptsACompleteHostAndLowersANewerMinorToItsOwn)
{
    ASSERT_EQ(Entry(HF_BACKEND_ABI_MINOR + 3), 0);
    EXPECT_EQ(minor_, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(ops_, &kit_subject_ops);
    EXPECT_TRUE(g_log.empty());
}

TEST_F(PluginKit, EntryAcceptsTheMinimumMinorWithATableOfThatMinor)
{
    host_.abi_minor = KIT_SUBJECT_MIN_MINOR;
    host_.struct_size = offsetof(hf_host_api, core_limits);
    ASSERT_EQ(Entry(KIT_SUBJECT_MIN_MINOR), 0);
    EXPECT_EQ(minor_, static_cast<uint32_t>(KIT_SUBJECT_MIN_MINOR));
}

TEST_F(PluginKit, EntryRefusesACoreBelowTheMinimumMinor)
{
    host_.abi_minor = KIT_SUBJECT_MIN_MINOR - 1;
    EXPECT_EQ(Entry(KIT_SUBJECT_MIN_MINOR - 1), -EINVAL);
    EXPECT_EQ(ops_, nullptr);
    EXPECT_TRUE(HasLine("is needed")) << (g_log.empty() ? "" : g_log[0]);
}

TEST_F(PluginKit, EntryRefusesAHostTableWhoseMinorIsBelowTheNegotiatedOne)
{
    host_.abi_minor = KIT_SUBJECT_MIN_MINOR;
    EXPECT_EQ(Entry(HF_BACKEND_ABI_MINOR), -EINVAL);
    EXPECT_EQ(ops_, nullptr);
    EXPECT_TRUE(HasLine("host table"));
}

TEST_F(PluginKit, EntryRefusesAShortHostTable)
{
    host_.struct_size = offsetof(hf_host_api, core_limits);
    EXPECT_EQ(Entry(HF_BACKEND_ABI_MINOR), -EINVAL);
    EXPECT_EQ(ops_, nullptr);
    EXPECT_TRUE(HasLine("host table"));
}

TEST_F(PluginKit, EntryRefusesShortOrMissingGpuAndSystemCallTables)
{
    gpu_.struct_size = offsetof(hf_gpu_ops, host_register);
    EXPECT_EQ(Entry(HF_BACKEND_ABI_MINOR), -EINVAL);
    gpu_.struct_size = sizeof(gpu_);
    sys_.struct_size = offsetof(hf_sys_ops, preadv2);
    EXPECT_EQ(Entry(HF_BACKEND_ABI_MINOR), -EINVAL);
    sys_.struct_size = sizeof(sys_);
    host_.gpu = nullptr;
    EXPECT_EQ(Entry(HF_BACKEND_ABI_MINOR), -EINVAL);
    host_.gpu = &gpu_;
    host_.sys = nullptr;
    EXPECT_EQ(Entry(HF_BACKEND_ABI_MINOR), -EINVAL);
    EXPECT_EQ(ops_, nullptr);
}

TEST_F(PluginKit, EntryRejectsNullArguments)
{
    uint32_t minor = HF_BACKEND_ABI_MINOR;
    const hf_backend_ops *ops = nullptr;
    EXPECT_EQ(hf_backend_entry_v1(&host_, nullptr, &ops), -EINVAL);
    EXPECT_EQ(hf_backend_entry_v1(&host_, &minor, nullptr), -EINVAL);
    EXPECT_EQ(hf_backend_entry_v1(nullptr, &minor, &ops), -EINVAL);
}

TEST_F(PluginKit, OpsHeaderAndSettingsComeFromTheKit)
{
    EXPECT_EQ(kit_subject_ops.magic, HF_BACKEND_MAGIC);
    EXPECT_EQ(kit_subject_ops.abi_major, HF_BACKEND_ABI_MAJOR);
    EXPECT_EQ(kit_subject_ops.abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(kit_subject_ops.struct_size, sizeof(hf_backend_ops));
    EXPECT_STREQ(kit_subject_ops.name, "kit-subject");
    EXPECT_EQ(kit_subject_ops.settings, kit_subject_decls);
    EXPECT_EQ(kit_subject_ops.setting_count, static_cast<unsigned>(KIT_SUBJECT_SETTING_COUNT));
    const hf_setting_decl *depth = Decl(KIT_SUBJECT_DEPTH);
    EXPECT_EQ(depth->type, HF_DECL_INT);
    EXPECT_EQ(depth->default_int, 32);
    EXPECT_EQ(depth->min, 1);
    EXPECT_EQ(depth->max, 1024);
    EXPECT_EQ(depth->multiple, 2);
    EXPECT_STREQ(depth->unit, "commands");
    EXPECT_EQ(Decl(KIT_SUBJECT_FAST)->type, HF_DECL_BOOL);
    EXPECT_EQ(Decl(KIT_SUBJECT_FAST)->default_int, 1);
    EXPECT_STREQ(Decl(KIT_SUBJECT_FAST)->env, "KIT_SUBJECT_FAST");
    EXPECT_EQ(Decl(KIT_SUBJECT_COLOUR)->type, HF_DECL_STRING);
    EXPECT_STREQ(Decl(KIT_SUBJECT_COLOUR)->default_string, "green");
}

TEST_F(PluginKit, StateNewChecksTheHostAndGivesZeroedState)
{
    void *state = nullptr;
    ASSERT_EQ(hfp_state_new(&host_, HF_BACKEND_ABI_MINOR, 64, &state), 0);
    ASSERT_NE(state, nullptr);
    const unsigned char *bytes = static_cast<const unsigned char *>(state);
    for (size_t i = 0; i < 64; i++)
        EXPECT_EQ(bytes[i], 0) << i;
    free(state);
    host_.struct_size = offsetof(hf_host_api, core_limits);
    state = nullptr;
    EXPECT_EQ(hfp_state_new(&host_, HF_BACKEND_ABI_MINOR, 64, &state), -EINVAL);
    EXPECT_EQ(state, nullptr);
    EXPECT_TRUE(HasLine("host table"));
}

// ---- declared settings ----

TEST_F(PluginKit, TypedReadersAnswerTheDeclaredDefaultWhenTheKeyIsUnset)
{
    int64_t depth = 0;
    bool fast = false;
    const char *colour = nullptr;
    EXPECT_EQ(hfp_config_int(&host_, Decl(KIT_SUBJECT_DEPTH), &depth), 0);
    EXPECT_EQ(hfp_config_bool(&host_, Decl(KIT_SUBJECT_FAST), &fast), 0);
    EXPECT_EQ(hfp_config_string(&host_, Decl(KIT_SUBJECT_COLOUR), &colour), 0);
    EXPECT_EQ(depth, 32);
    EXPECT_TRUE(fast);
    EXPECT_STREQ(colour, "green");
}

TEST_F(PluginKit, TypedReadersAnswerTheValueWhenTheKeyIsSet)
{
    g_ints["depth"] = {0, 8};
    g_bools["fast"] = {0, false};
    g_texts["colour"] = {0, "red"};
    int64_t depth = 0;
    bool fast = true;
    const char *colour = nullptr;
    EXPECT_EQ(hfp_config_int(&host_, Decl(KIT_SUBJECT_DEPTH), &depth), 0);
    EXPECT_EQ(hfp_config_bool(&host_, Decl(KIT_SUBJECT_FAST), &fast), 0);
    EXPECT_EQ(hfp_config_string(&host_, Decl(KIT_SUBJECT_COLOUR), &colour), 0);
    EXPECT_EQ(depth, 8);
    EXPECT_FALSE(fast);
    EXPECT_STREQ(colour, "red");
}

TEST_F(PluginKit, TypedReadersPassOtherErrorsOn)
{
    g_ints["depth"] = {-EINVAL, 0};
    int64_t depth = 0;
    EXPECT_EQ(hfp_config_int(&host_, Decl(KIT_SUBJECT_DEPTH), &depth), -EINVAL);
}

TEST_F(PluginKit, CheckedReadersFallBackToTheDeclaredDefaultOnABadValue)
{
    g_ints["depth"] = {0, 4096};
    EXPECT_EQ(hfp_setting_int(&host_, Decl(KIT_SUBJECT_DEPTH)), 32);
    EXPECT_TRUE(HasLine("depth = 4096 is outside [1, 1024]"));
    g_ints["depth"] = {0, 7};
    EXPECT_EQ(hfp_setting_int(&host_, Decl(KIT_SUBJECT_DEPTH)), 32);
    EXPECT_TRUE(HasLine("not a multiple of 2"));
    g_ints["depth"] = {0, 64};
    EXPECT_EQ(hfp_setting_int(&host_, Decl(KIT_SUBJECT_DEPTH)), 64);
    g_bools["fast"] = {-EINVAL, false};
    EXPECT_TRUE(hfp_setting_bool(&host_, Decl(KIT_SUBJECT_FAST)));
    g_texts["colour"] = {0, "blue"};
    EXPECT_EQ(hfp_setting_choice(&host_, Decl(KIT_SUBJECT_COLOUR)), 1);
    EXPECT_TRUE(HasLine("colour must be \"red\" or \"green\"; using the default \"green\""));
    g_texts["colour"] = {0, "red"};
    EXPECT_EQ(hfp_setting_choice(&host_, Decl(KIT_SUBJECT_COLOUR)), 0);
}

// ---- core limits ----

TEST_F(PluginKit, CoreLimitsComeFromTheHostWhenItFillsThem)
{
    g_bools["execution.parallel_io"] = {0, true};
    hf_core_limits lim{};
    hfp_core_limits(&host_, &lim);
    EXPECT_EQ(g_core_limits_calls, 1);
    EXPECT_FALSE(lim.parallel_io) << "the host's answer, not the dotted key's";
    EXPECT_EQ(lim.max_request_parallelism, 7u);
    EXPECT_EQ(lim.max_device_cache_size_kb, 2048u);
    EXPECT_EQ(lim.max_device_pinned_mem_size_kb, UINT64_MAX);
    EXPECT_EQ(lim.cpu_budget, 0u) << "a core that does not say leaves the CPUs unknown";
}

} // namespace
