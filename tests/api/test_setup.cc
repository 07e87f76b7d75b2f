/*
 * What the first hipFileDriverOpen does with its environment: config file, GPU runtime and plugin
 * directory, good and bad. Setup happens once per process, so each scenario runs in a child.
 */
#include "api_test.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include <sys/stat.h>

namespace
{

/* Run @p body in a child with stderr sent to @p log_path; the child exits 0 when it passed. */
template <typename Body> void InChild(const std::string &log_path, Body body)
{
    EXPECT_EXIT(
        {
            FILE *log = freopen(log_path.c_str(), "w", stderr);
            if (log == nullptr)
                _exit(90);
            setvbuf(stderr, nullptr, _IONBF, 0);
            _exit(body() ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

std::string PluginConfig(const std::string &extra)
{
    return std::string("plugins = { directory = \"") + HF_TEST_PLUGIN_DIR + "\"; };\n" + extra;
}

} // namespace

class SetupTest : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        /* Forked without exec, so the child sees the paths this process made. The parent starts no
         * GPU runtime, so there are no threads to lose. */
        GTEST_FLAG_SET(death_test_style, "fast");
        conf = ScratchPath("conf");
        log = ScratchPath("log");
    }
    bool LogHas(const char *text)
    {
        return hf_test_file_contains(log.c_str(), text) != 0;
    }
    std::string conf;
    std::string log;
};

TEST_F(SetupTest, MalformedConfigFailsOpenAndNamesFileAndLine)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), "log = {\n  level = \"warn\"\n  file = ;\n};\n"), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        hipFileError_t e = hipFileDriverOpen();
        return e.err == hipFileDriverSetupError && hipFileUseCount() == 0;
    });
    EXPECT_TRUE(LogHas(conf.c_str()));
    EXPECT_TRUE(LogHas(":3")) << "the log names the line";
}

TEST_F(SetupTest, ImplicitOpenReportsTheSetupError)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), "gpu = { runtime = 42; };\n"), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        void *dev = nullptr;
        if (hipMalloc(&dev, 4096) != hipSuccess)
            return false;
        return hipFileBufRegister(dev, 4096, 0).err == hipFileDriverSetupError &&
               hipFileUseCount() == 0;
    });
    EXPECT_TRUE(LogHas("runtime"));
}

TEST_F(SetupTest, MissingConfigFileMeansDefaults)
{
    InChild(log, [&] {
        std::string missing = conf + ".absent";
        setenv("HIPFILE_CONFIG", missing.c_str(), 1);
        setenv("HIPFILE_PLUGIN_DIR", HF_TEST_PLUGIN_DIR, 1);
        return hipFileDriverOpen().err == hipFileSuccess && hipFileUseCount() == 1;
    });
}

TEST_F(SetupTest, UnknownRuntimeFailsOpen)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), PluginConfig("").c_str()), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        setenv("HIPFILE_GPU_RUNTIME", "/nonexistent/libnothing.so", 1);
        hipFileError_t e = hipFileDriverOpen();
        return e.err != hipFileSuccess && hipFileUseCount() == 0;
    });
    EXPECT_TRUE(LogHas("libnothing.so"));
}

TEST_F(SetupTest, PluginDirectoryWithoutPluginsOpensButCannotServe)
{
    char *empty = hf_test_path("SetupTest.empty-plugins");
    ASSERT_EQ(mkdir(empty, 0755), 0);
    std::string text = std::string("plugins = { directory = \"") + empty + "\"; };\n";
    free(empty);
    ASSERT_EQ(hf_test_write_text(conf.c_str(), text.c_str()), 0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 8192, 5), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        if (hipFileDriverOpen().err != hipFileSuccess)
            return false;
        int fd = open(data.c_str(), O_RDONLY);
        hipFileHandle_t fh = Register(fd);
        void *dev = nullptr;
        if (fh == nullptr || hipMalloc(&dev, 8192) != hipSuccess)
            return false;
        return hipFileRead(fh, dev, 8192, 0, 0) == -static_cast<ssize_t>(hipFileInternalError);
    });
    EXPECT_TRUE(LogHas("holds no manifests"));
    EXPECT_TRUE(LogHas("no backend can serve"));
}

TEST_F(SetupTest, CompatModeOffLeavesNoPathForTheFallback)
{
    ASSERT_EQ(hf_test_write_text(
                  conf.c_str(), PluginConfig("properties = { compat_mode = \"off\"; };\n").c_str()),
              0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 8192, 5), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        int fd = open(data.c_str(), O_RDONLY);
        hipFileHandle_t fh = Register(fd);
        void *dev = nullptr;
        if (fh == nullptr || hipMalloc(&dev, 8192) != hipSuccess)
            return false;
        return hipFileRead(fh, dev, 8192, 0, 0) == -static_cast<ssize_t>(hipFileInternalError);
    });
}

TEST_F(SetupTest, HostMemoryIsServedWhenAllowed)
{
    ASSERT_EQ(
        hf_test_write_text(conf.c_str(),
                           PluginConfig("properties = { allow_system_memory = true; };\n").c_str()),
        0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 1 << 20, 6), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        int fd = open(data.c_str(), O_RDWR);
        hipFileHandle_t fh = Register(fd);
        std::vector<uint8_t> pageable(1 << 20);
        void *pinned = nullptr;
        if (fh == nullptr || hipHostMalloc(&pinned, 1 << 20, 0) != hipSuccess)
            return false;
        if (hipFileBufRegister(pinned, 1 << 20, 0).err != hipFileSuccess)
            return false;
        bool ok = hipFileRead(fh, pageable.data(), 1 << 20, 0, 0) == (1 << 20) &&
                  hf_test_pattern_check(pageable.data(), 1 << 20, 0, 6) == -1 &&
                  hipFileRead(fh, pinned, 4096, 100, 0) == 4096 &&
                  hf_test_pattern_check(pinned, 4096, 100, 6) == -1;
        hf_test_pattern_fill(pageable.data(), 4096, 0, 9);
        ok = ok && hipFileWrite(fh, pageable.data(), 4096, 0, 0) == 4096;
        std::vector<uint8_t> back(4096);
        ok = ok && pread(fd, back.data(), 4096, 0) == 4096 &&
             hf_test_pattern_check(back.data(), 4096, 0, 9) == -1;
        return ok;
    });
}
