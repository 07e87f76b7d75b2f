// Keys a plugin declares for its group (hf_config_declare_plugin_settings): the file's values are
// checked against the declarations with the core table's words, the declared variable overrides
// the file, unset keys read as their default, every value keeps where it came from, and keys of
// the group that no declaration names are reported with the nearest declared one.
#include <cerrno>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include <hipfile.h>

#include "config_fixture.h"

extern "C" {
#include <hipfile/backend.h>

#include "config/config.h"
#include "introspect/introspect.h"
#include "config/settings.h"
}

namespace
{

const char *const kEngines[] = {"threads", "uring", nullptr};

// A plugin "demo" as a test declares it: one key of each kind, a granule, a subgroup.
const hf_setting_decl kDemoDecls[] = {
    DeclInt("depth", "requests", 4, 1, 64, 0, "HIPFILE_TEST_DEMO_DEPTH", "requests in flight"),
    DeclInt("chunk_kb", "KiB", 64, 4, 1024, 4, nullptr, "size of one chunk"),
    DeclBool("pinned", true, nullptr, "pin the bounce buffers"),
    DeclString("engine", "threads", kEngines, "HIPFILE_TEST_DEMO_ENGINE", "how requests are run"),
    DeclString("label", nullptr, nullptr, nullptr, "a name for the log"),
    DeclInt("cache.size", nullptr, 2, 0, 8, 0, nullptr, "cache entries"),
};
const unsigned kDemoCount = sizeof(kDemoDecls) / sizeof(kDemoDecls[0]);

class DeclaredTest : public ConfigFixture
{
  protected:
    void SetUp() override
    {
        ConfigFixture::SetUp();
        SaveAndUnset("HIPFILE_TEST_DEMO_DEPTH");
        SaveAndUnset("HIPFILE_TEST_DEMO_ENGINE");
    }

    int Declare()
    {
        return hf_config_declare_plugin_settings("demo", kDemoDecls, kDemoCount);
    }

    // The listing entry of declared key @p key.
    hf_config_declared_setting Entry(const std::string &key)
    {
        hf_config_declared_setting out{};
        for (unsigned i = 0; hf_config_declared_at("demo", i, &out) == 0; i++) {
            if (key == out.decl->key)
                return out;
        }
        ADD_FAILURE() << "no declared key " << key;
        return hf_config_declared_setting{};
    }
};

TEST_F(DeclaredTest, UnsetKeysReadAsTheirDefaultsNotENOENT)
{
    ASSERT_EQ(0, hf_config_load());
    ASSERT_EQ(0, Declare());
    int64_t i = 0;
    bool b = false;
    const char *s = "untouched";
    EXPECT_EQ(0, hf_config_plugin_int("demo", "depth", &i));
    EXPECT_EQ(4, i);
    EXPECT_EQ(0, hf_config_plugin_int("demo", "cache.size", &i));
    EXPECT_EQ(2, i);
    EXPECT_EQ(0, hf_config_plugin_bool("demo", "pinned", &b));
    EXPECT_TRUE(b);
    EXPECT_EQ(0, hf_config_plugin_string("demo", "engine", &s));
    EXPECT_STREQ("threads", s);
    EXPECT_EQ(0, hf_config_plugin_string("demo", "label", &s));
    EXPECT_EQ(nullptr, s) << "a string declared without a default reads as NULL";
    hf_config_declared_setting depth = Entry("depth");
    EXPECT_EQ(HF_ORIGIN_DEFAULT, depth.origin);
    EXPECT_EQ(nullptr, depth.where);
    EXPECT_EQ(std::string::npos, Log().find("demo")) << Log();
}

TEST_F(DeclaredTest, FileValuesAreReadAndTheirLineRecorded)
{
    ASSERT_EQ(0, LoadText("demo = {\n  depth = 8;\n  engine = \"URING\";\n  cache = { size = 5; "
                          "};\n  label = \"\";\n};\n"));
    ASSERT_EQ(0, Declare());
    int64_t i = 0;
    const char *s = nullptr;
    EXPECT_EQ(0, hf_config_plugin_int("demo", "depth", &i));
    EXPECT_EQ(8, i);
    EXPECT_EQ(0, hf_config_plugin_int("demo", "cache.size", &i));
    EXPECT_EQ(5, i);
    EXPECT_EQ(0, hf_config_plugin_string("demo", "engine", &s));
    EXPECT_STREQ("uring", s) << "a declared name is answered in the declaration's spelling";
    EXPECT_EQ(0, hf_config_plugin_string("demo", "label", &s));
    EXPECT_STREQ("", s);
    hf_config_declared_setting depth = Entry("depth");
    EXPECT_EQ(HF_ORIGIN_FILE, depth.origin);
    EXPECT_EQ(config_path_ + ":2", depth.where ? depth.where : "");
    EXPECT_EQ(8, depth.num);
    EXPECT_EQ(HF_ORIGIN_DEFAULT, Entry("pinned").origin);
    EXPECT_EQ("", Log());
}

TEST_F(DeclaredTest, UnknownKeyIsWarnedWithFileLineAndTheNearestDeclaredKey)
{
    ASSERT_EQ(0, LoadText("demo = {\n  depth = 8;\n  dpeth = 9;\n  zzz = 1;\n};\n"));
    ASSERT_EQ(0, Declare());
    std::string log = Log();
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":3: unknown key demo.dpeth ignored: plugin demo declares no "
                                      "such key; did you mean demo.depth?"))
        << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":4: unknown key demo.zzz ignored: plugin demo declares no "
                                      "such key (it declares: depth, chunk_kb, pinned, engine, "
                                      "label, cache.size)"))
        << log;
    int64_t i = 0;
    EXPECT_EQ(-ENOENT, hf_config_plugin_int("demo", "dpeth", &i))
        << "a key the plugin did not declare is not answered, even when the file has it";
}

TEST_F(DeclaredTest, WrongTypeInTheFileNamesFileLineAndWhatIsAccepted)
{
    ASSERT_EQ(0, LoadText("demo = {\n  depth = \"deep\";\n};\n"));
    EXPECT_EQ(-EINVAL, Declare());
    EXPECT_NE(std::string::npos,
              Log().find(config_path_ +
                         ":2: demo.depth is a string; expected an integer from 1 to 64 (requests)"))
        << Log();
    hf_config_declared_setting entry{};
    EXPECT_EQ(-ESRCH, hf_config_declared_at("demo", 0, &entry)) << "a refused table is not kept";
}

TEST_F(DeclaredTest, OutOfRangeValuesNameFileLineAndTheRange)
{
    ASSERT_EQ(0, LoadText("demo = {\n  depth = 100;\n  chunk_kb = 6;\n  engine = \"fibers\";\n  "
                          "pinned = 1;\n};\n"));
    EXPECT_EQ(-EINVAL, Declare());
    std::string log = Log();
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":2: demo.depth = 100 is out of range; expected an integer "
                                      "from 1 to 64 (requests)"))
        << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":3: demo.chunk_kb = 6 is out of range; expected a multiple "
                                      "of 4 from 4 to 1024 (KiB)"))
        << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":4: demo.engine = \"fibers\" is out of range; expected one "
                                      "of \"threads\", \"uring\""))
        << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":5: demo.pinned is an integer; expected true or false"))
        << log;
}

TEST_F(DeclaredTest, TheDeclaredVariableOverridesTheFile)
{
    setenv("HIPFILE_TEST_DEMO_DEPTH", "16", 1);
    setenv("HIPFILE_TEST_DEMO_ENGINE", "uring", 1);
    ASSERT_EQ(0, LoadText("demo = {\n  depth = 8;\n};\n"));
    ASSERT_EQ(0, Declare());
    int64_t i = 0;
    const char *s = nullptr;
    EXPECT_EQ(0, hf_config_plugin_int("demo", "depth", &i));
    EXPECT_EQ(16, i);
    EXPECT_EQ(0, hf_config_plugin_string("demo", "engine", &s));
    EXPECT_STREQ("uring", s);
    hf_config_declared_setting depth = Entry("depth");
    EXPECT_EQ(HF_ORIGIN_ENV, depth.origin);
    EXPECT_STREQ("HIPFILE_TEST_DEMO_DEPTH", depth.where);
}

TEST_F(DeclaredTest, BadVariableValueNamesTheVariable)
{
    setenv("HIPFILE_TEST_DEMO_DEPTH", "lots", 1);
    ASSERT_EQ(0, hf_config_load());
    EXPECT_EQ(-EINVAL, Declare());
    EXPECT_NE(
        std::string::npos,
        Log().find("environment HIPFILE_TEST_DEMO_DEPTH=\"lots\" is not valid for demo.depth; "
                   "expected an integer from 1 to 64 (requests)"))
        << Log();
}

TEST_F(DeclaredTest, BadValueOfFastpathsVariableNamesIt)
{
    setenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", "yes please", 1);
    ASSERT_EQ(0, hf_config_load()) << "without the plugin's declaration the core has no such key";
    EXPECT_EQ(-EINVAL, hf_config_declare_plugin_settings("fastpath", kFastpathDecls, 1));
    EXPECT_NE(std::string::npos,
              Log().find("environment HIPFILE_UNSUPPORTED_FILE_SYSTEMS=\"yes please\" is not valid "
                         "for fastpath.unsupported_file_systems; expected true or false"))
        << Log();
}

TEST_F(DeclaredTest, AReloadChecksTheNewFileAndAFailureChangesNothing)
{
    ASSERT_EQ(0, LoadText("demo = { depth = 8; };\n"));
    ASSERT_EQ(0, Declare());
    EXPECT_EQ(-EINVAL, LoadText("demo = {\n  depth = 0;\n};\n"));
    EXPECT_NE(std::string::npos, Log().find(config_path_ + ":2: demo.depth = 0 is out of range"));
    ASSERT_NE(nullptr, hf_config_failure());
    EXPECT_EQ("the config file " + config_path_, hf_config_failure());
    int64_t i = 0;
    EXPECT_EQ(0, hf_config_plugin_int("demo", "depth", &i));
    EXPECT_EQ(8, i);
    ASSERT_EQ(0, LoadText("demo = { depth = 12; };\n"));
    EXPECT_EQ(0, hf_config_plugin_int("demo", "depth", &i));
    EXPECT_EQ(12, i);
}

TEST_F(DeclaredTest, ReadingADeclaredKeyWithTheWrongFunctionIsEINVAL)
{
    ASSERT_EQ(0, Declare());
    int64_t i = 0;
    bool b = false;
    EXPECT_EQ(-EINVAL, hf_config_plugin_int("demo", "pinned", &i));
    EXPECT_EQ(-EINVAL, hf_config_plugin_bool("demo", "engine", &b));
    EXPECT_NE(std::string::npos,
              Log().find("demo.pinned is declared as true or false; it cannot be read as an "
                         "integer"));
}

TEST_F(DeclaredTest, ListingGivesEveryKeyInTheTablesOrder)
{
    ASSERT_EQ(0, Declare());
    hf_config_declared_setting entry{};
    unsigned n = 0;
    while (hf_config_declared_at("demo", n, &entry) == 0) {
        EXPECT_EQ(&kDemoDecls[n], entry.decl);
        EXPECT_EQ("demo." + std::string(kDemoDecls[n].key), entry.row->decl.key);
        n++;
    }
    EXPECT_EQ(kDemoCount, n);
    EXPECT_EQ(-ENOENT, hf_config_declared_at("demo", n, &entry));
    EXPECT_EQ(-ESRCH, hf_config_declared_at("fallback", 0, &entry));
}

TEST_F(DeclaredTest, TheToolsListingShowsValueSourceAndHelp)
{
    setenv("HIPFILE_TEST_DEMO_ENGINE", "uring", 1);
    ASSERT_EQ(0, LoadText("demo = {\n  depth = 8;\n};\n"));
    ASSERT_EQ(0, Declare());
    hf_introspect_plugin_key key{};
    ASSERT_EQ(0, hf_introspect_plugin_key_at("demo", 0, &key));
    EXPECT_STREQ("demo.depth", key.key);
    EXPECT_STREQ("integer", key.type);
    EXPECT_STREQ("8", key.value);
    EXPECT_STREQ("requests", key.unit);
    EXPECT_EQ(HF_INTROSPECT_ORIGIN_FILE, key.origin);
    EXPECT_EQ(config_path_ + ":2", key.where ? key.where : "");
    EXPECT_STREQ("an integer from 1 to 64 (requests)", key.accepts);
    EXPECT_STREQ("requests in flight", key.help);
    ASSERT_EQ(0, hf_introspect_plugin_key_at("demo", 2, &key));
    EXPECT_STREQ("boolean", key.type);
    EXPECT_STREQ("true", key.value);
    EXPECT_EQ(HF_INTROSPECT_ORIGIN_DEFAULT, key.origin);
    ASSERT_EQ(0, hf_introspect_plugin_key_at("demo", 3, &key));
    EXPECT_STREQ("\"uring\"", key.value);
    EXPECT_EQ(HF_INTROSPECT_ORIGIN_ENV, key.origin);
    EXPECT_STREQ("HIPFILE_TEST_DEMO_ENGINE", key.where);
    EXPECT_STREQ("one of \"threads\", \"uring\"", key.accepts);
    ASSERT_EQ(0, hf_introspect_plugin_key_at("demo", 4, &key));
    EXPECT_STREQ("(none)", key.value) << "a string declared without a default";
    EXPECT_EQ(-ENOENT, hf_introspect_plugin_key_at("demo", kDemoCount, &key));
    EXPECT_EQ(-ESRCH, hf_introspect_plugin_key_at("fallback", 0, &key))
        << "a plugin without a table is listed as declaring none";
}

TEST_F(DeclaredTest, PluginsWithATableAreNotReportedForKeysNeverRead)
{
    ASSERT_EQ(0, LoadText("demo = {\n  depth = 8;\n};\nolder = {\n  knob = 1;\n};\n"));
    ASSERT_EQ(0, Declare());
    const hf_config_plugin plugins[] = {{"demo", true}, {"older", true}};
    hf_config_warn_unused(plugins, 2, "/plugins");
    std::string log = Log();
    EXPECT_EQ(std::string::npos, log.find("demo.depth")) << log;
    EXPECT_NE(std::string::npos,
              log.find(config_path_ + ":5: unknown key older.knob ignored: plugin older does not "
                                      "read it"))
        << log;
}

TEST_F(DeclaredTest, ResetForgetsTheDeclarations)
{
    ASSERT_EQ(0, Declare());
    hf_config_reset();
    int64_t i = 0;
    EXPECT_EQ(-ENOENT, hf_config_plugin_int("demo", "depth", &i));
    hf_config_declared_setting entry{};
    EXPECT_EQ(-ESRCH, hf_config_declared_at("demo", 0, &entry));
}

TEST_F(DeclaredTest, ABadTableIsRefused)
{
    hf_setting_decl bad[] = {DeclBool("x", false, nullptr, nullptr)};
    bad[0].type = 42;
    EXPECT_EQ(-EINVAL, hf_config_declare_plugin_settings("demo", bad, 1));
    EXPECT_NE(std::string::npos, Log().find("plugin demo declares demo.x with unknown type 42"));
    EXPECT_EQ(-EINVAL, hf_config_declare_plugin_settings("demo", nullptr, 1));
    EXPECT_EQ(-EINVAL, hf_config_declare_plugin_settings(nullptr, kDemoDecls, 1));
}

} // namespace
