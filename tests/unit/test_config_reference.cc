// docs/configuration.rst carries the reference of every setting between two marker comments: one
// entry per key, grouped by its first dotted part, each giving its type, default, accepted values,
// environment variable, parameter and whether it is live. This test renders the same block from
// the settings table in core/config/settings.c and fails when the two differ, so the page and the
// code cannot drift. The keys the built plugins declare for their own groups follow the core's, one
// group per plugin. With HF_UPDATE_DOCS=1 in the environment it rewrites the block in the page
// instead.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <hipfile.h>

extern "C" {
#include <hipfile/backend.h>

#include "config/config.h"
#include "config/settings.h"
}

namespace
{

const char kBegin[] =
    ".. settings-table-begin (generated from core/config/settings.c; see below)\n";
const char kEnd[] = ".. settings-table-end\n";

// The parameter enums' names in declaration order, which is the interface (API.md 3.8).
const char *const kSizeTNames[] = {
    "hipFileParamProfileStats",
    "hipFileParamExecutionMaxIOQueueDepth",
    "hipFileParamExecutionMaxIOThreads",
    "hipFileParamExecutionMinIOThresholdSizeKB",
    "hipFileParamExecutionMaxRequestParallelism",
    "hipFileParamPropertiesMaxDirectIOSizeKB",
    "hipFileParamPropertiesMaxDeviceCacheSizeKB",
    "hipFileParamPropertiesPerBufferCacheSizeKB",
    "hipFileParamPropertiesMaxDevicePinnedMemSizeKB",
    "hipFileParamPropertiesIOBatchsize",
    "hipFileParamPollthresholdSizeKB",
    "hipFileParamPropertiesBatchIOTimeoutMs",
};
const char *const kBoolNames[] = {
    "hipFileParamPropertiesUsePollMode",
    "hipFileParamPropertiesAllowCompatMode",
    "hipFileParamForceCompatMode",
    "hipFileParamFsMiscApiCheckAggressive",
    "hipFileParamExecutionParallelIO",
    "hipFileParamProfileNvtx",
    "hipFileParamPropertiesAllowSystemMemory",
    "hipFileParamUsePcip2pdma",
    "hipFileParamPreferIOUring",
    "hipFileParamForceOdirectMode",
    "hipFileParamSkipTopologyDetection",
    "hipFileParamStreamMemopsBypass",
};
const char *const kStringNames[] = {
    "hipFileParamLoggingLevel",
    "hipFileParamEnvLogfilePath",
    "hipFileParamLogDir",
};

std::string TypeOf(const hf_setting &s)
{
    switch (hf_setting_type(&s)) {
    case HF_TYPE_INT:
        return hf_setting_unit(&s)[0] ? std::string("integer (") + hf_setting_unit(&s) + ")" : "integer";
    case HF_TYPE_BOOL:
        return s.view != HF_VIEW_NONE ? "boolean, a view of ``properties.compat_mode``" : "boolean";
    case HF_TYPE_STRING:
        return s.is_path ? "path" : "string";
    case HF_TYPE_ENUM:
        return "name";
    case HF_TYPE_LIST:
        return "list of names";
    case HF_TYPE_MAP:
        return "group of ``name = integer``";
    }
    return "?";
}

std::string DefaultOf(const hf_setting &s)
{
    switch (hf_setting_type(&s)) {
    case HF_TYPE_INT:
        return "``" + std::to_string(s.decl.default_int) + "``";
    case HF_TYPE_BOOL:
        return s.decl.default_int ? "``true``" : "``false``";
    case HF_TYPE_STRING:
        // The plugin directory is chosen when the library is built.
        if (hf_setting_id_of(&s) == HF_SETTING_PLUGINS_DIRECTORY)
            return "``<libdir>/hipfile/plugins``";
        return std::string("``\"") + s.decl.default_string + "\"``";
    case HF_TYPE_ENUM:
        return std::string("``\"") + s.decl.names[s.decl.default_int] + "\"``";
    case HF_TYPE_LIST:
        return "``[]`` (every plugin)";
    case HF_TYPE_MAP:
        return "``{}``";
    }
    return "?";
}

std::string ParamOf(const hf_setting &s)
{
    switch (s.param_kind) {
    case HF_PARAM_SIZE_T:
        return std::string("``") + kSizeTNames[s.param] + "`` (size_t)";
    case HF_PARAM_BOOL:
        return std::string("``") + kBoolNames[s.param] + "`` (bool)";
    case HF_PARAM_STRING:
        return std::string("``") + kStringNames[s.param] + "`` (string)";
    case HF_PARAM_NONE:
        break;
    }
    return "none";
}

// Plain text of the table (help lines, accepted values) in reStructuredText: a bare * would open
// emphasis.
std::string Escape(const std::string &text)
{
    std::string out;
    for (char c : text) {
        if (c == '*' || c == '\\' || c == '`')
            out += '\\';
        out += c;
    }
    return out;
}

// The group a key is listed under: its first dotted part (fs.misc.api_check_aggressive is in fs).
std::string GroupOf(const hf_setting &s)
{
    std::string key = s.decl.key;
    return key.substr(0, key.find('.'));
}

// The default a plugin's declaration gives, as the page writes defaults.
std::string DeclaredDefaultOf(const hf_setting_decl &d)
{
    switch (d.type) {
    case HF_DECL_INT:
        return "``" + std::to_string(d.default_int) + "``";
    case HF_DECL_BOOL:
        return d.default_int ? "``true``" : "``false``";
    default:
        return d.default_string != nullptr ? std::string("``\"") + d.default_string + "\"``"
                                           : "none";
    }
}

// One definition-list entry per key, with a label (setting-<key>) other pages link to, its help
// line, what it does instead when it is accepted only for compatibility, and a field list.
// Fields a key does not have (no environment variable, no parameter) are left out.
void RenderRow(std::ostringstream &out, std::string &group, const hf_setting &s,
               const std::string &default_text)
{
    if (GroupOf(s) != group) {
        group = GroupOf(s);
        std::string title = "``" + group + "``";
        out << "\n" << title << "\n" << std::string(title.size(), '~') << "\n";
    }
    char allowed[512];
    out << "\n.. _setting-" << s.decl.key << ":\n\n"
        << "``" << s.decl.key << "``\n"
        << "   " << Escape(s.decl.help) << "\n";
    if (s.no_effect != nullptr)
        out << "\n   *Accepted for compatibility:* " << Escape(s.no_effect) << "\n";
    out << "\n   :type: " << TypeOf(s) << "\n"
        << "   :default: " << default_text << "\n"
        << "   :accepts: " << Escape(hf_setting_describe(&s, allowed, sizeof(allowed))) << "\n";
    if (s.decl.env != nullptr)
        out << "   :environment: ``" << s.decl.env << "``\n";
    if (s.param_kind != HF_PARAM_NONE)
        out << "   :parameter: " << ParamOf(s) << "\n";
    out << "   :live: "
        << (s.decl.live          ? "yes"
            : s.closed_only ? "while the driver is closed"
                            : "no")
        << "\n";
}

// The plugins the build made (libhipfile-<name>.so in the build's plugin directory), by file name.
std::vector<std::string> BuiltPlugins()
{
    std::vector<std::string> files;
    DIR *dir = opendir(HF_TEST_PLUGIN_DIR);
    if (dir == nullptr)
        return files;
    for (dirent *entry = readdir(dir); entry != nullptr; entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name.rfind("libhipfile-", 0) == 0 && name.size() > 3 &&
            name.compare(name.size() - 3, 3, ".so") == 0)
            files.push_back(std::string(HF_TEST_PLUGIN_DIR) + "/" + name);
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    return files;
}

void QuietLog(const hf_host_api *, int, const char *, ...) {}

// The keys each built plugin declares, recorded through the core as the loader records them, so
// the page describes them with the core's own words. A plugin's entry point only hands back its
// ops table after checking the host table's sizes (it must not call the host before init), so a
// table of the core's ABI minor whose functions do nothing is enough; the plugin is never
// initialised. Loading the built
// libraries keeps the page tied to what was built, where parsing their sources would not. A plugin
// without a table (built before ABI minor 5, or declaring nothing) adds nothing.
void RenderPluginKeys(std::ostringstream &out, std::string &group)
{
    for (const std::string &file : BuiltPlugins()) {
        void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(nullptr, handle) << file << ": " << dlerror();
        hf_backend_entry_fn entry;
        *reinterpret_cast<void **>(&entry) = dlsym(handle, "hf_backend_entry_v1");
        ASSERT_NE(nullptr, entry) << file << " has no entry point";
        static hf_gpu_ops gpu{};
        gpu.struct_size = sizeof(gpu);
        static hf_sys_ops sys{};
        sys.struct_size = sizeof(sys);
        hf_host_api host{};
        host.struct_size = sizeof(host);
        host.abi_minor = HF_BACKEND_ABI_MINOR;
        host.log = QuietLog;
        host.gpu = &gpu;
        host.sys = &sys;
        uint32_t minor = HF_BACKEND_ABI_MINOR;
        const hf_backend_ops *ops = nullptr;
        ASSERT_EQ(0, entry(&host, &minor, &ops)) << file;
        bool has_table = minor >= 5 && ops->struct_size >= offsetof(hf_backend_ops, setting_count) +
                                                               sizeof(ops->setting_count);
        if (!has_table || ops->settings == nullptr || ops->setting_count == 0)
            continue; // the library stays loaded: the recorded table points into it
        ASSERT_EQ(0,
                  hf_config_declare_plugin_settings(ops->name, ops->settings, ops->setting_count))
            << ops->name;
        hf_config_declared_setting d{};
        for (unsigned i = 0; hf_config_declared_at(ops->name, i, &d) == 0; i++)
            RenderRow(out, group, *d.row, DeclaredDefaultOf(*d.decl));
    }
}

std::string Render()
{
    std::ostringstream out;
    out << kBegin;
    std::string group;
    for (const hf_setting &s : hf_settings)
        RenderRow(out, group, s, DefaultOf(s));
    RenderPluginKeys(out, group);
    out << "\n" << kEnd;
    return out.str();
}

TEST(ConfigReference, PageTableMatchesTheSettingsTable)
{
    static_assert(sizeof(kSizeTNames) / sizeof(kSizeTNames[0]) == 12, "12 size_t parameters");
    static_assert(sizeof(kBoolNames) / sizeof(kBoolNames[0]) == 12, "12 bool parameters");
    std::ifstream in(HF_TEST_CONFIG_PAGE);
    ASSERT_TRUE(in) << "cannot read " << HF_TEST_CONFIG_PAGE;
    std::stringstream buf;
    buf << in.rdbuf();
    std::string page = buf.str();
    size_t begin = page.find(kBegin);
    size_t end = page.find(kEnd);
    ASSERT_NE(begin, std::string::npos) << "no table start marker in " << HF_TEST_CONFIG_PAGE;
    ASSERT_NE(end, std::string::npos) << "no table end marker in " << HF_TEST_CONFIG_PAGE;
    std::string current = page.substr(begin, end + sizeof(kEnd) - 1 - begin);
    std::string expected = Render();
    const char *update = getenv("HF_UPDATE_DOCS");
    if (update != nullptr && std::string(update) == "1" && current != expected) {
        page.replace(begin, current.size(), expected);
        std::ofstream(HF_TEST_CONFIG_PAGE) << page;
        GTEST_SKIP() << "rewrote the table in " << HF_TEST_CONFIG_PAGE;
    }
    EXPECT_EQ(current, expected)
        << "docs/configuration.rst no longer matches core/config/settings.c; "
           "run this test with HF_UPDATE_DOCS=1 to regenerate the block";
}

// Every row the page shows must say whether it acts: a row without an effect says what it does
// instead, and no parameter-API row is left out of the page.
TEST(ConfigReference, EveryParameterHasARow)
{
    for (int p = 0; p < 12; p++) {
        EXPECT_NE(nullptr, hf_setting_by_param(HF_PARAM_SIZE_T, p)) << kSizeTNames[p];
        EXPECT_NE(nullptr, hf_setting_by_param(HF_PARAM_BOOL, p)) << kBoolNames[p];
    }
    for (int p = 0; p < 3; p++)
        EXPECT_NE(nullptr, hf_setting_by_param(HF_PARAM_STRING, p)) << kStringNames[p];
}

} // namespace
