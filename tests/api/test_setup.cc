/*
 * What the first hipFileDriverOpen does with its environment: config file, GPU runtime and plugin
 * directory, good and bad. Setup happens once per process, so each scenario runs in a child.
 */
#include "api_test.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
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
    bool LogHas(const std::string &text)
    {
        return hf_test_file_contains(log.c_str(), text.c_str()) != 0;
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
    EXPECT_TRUE(LogHas("driver setup failed: the config file " + conf +
                       " is not usable (see the line above)"));
}

/* A bad variable is the variable's fault, not the (valid) file's. */
TEST_F(SetupTest, BadEnvironmentValueFailsOpenNamingTheVariable)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), PluginConfig("").c_str()), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        setenv("HIPFILE_LOG_LEVEL", "loud", 1);
        return hipFileDriverOpen().err == hipFileDriverSetupError && hipFileUseCount() == 0;
    });
    EXPECT_TRUE(LogHas("error: environment HIPFILE_LOG_LEVEL=\"loud\" is not valid for log.level; "
                       "expected one of \"error\", \"warn\", \"info\", \"debug\""));
    EXPECT_TRUE(LogHas("error: driver setup failed: the environment variable HIPFILE_LOG_LEVEL is "
                       "not usable (see the line above)"));
    EXPECT_FALSE(LogHas("config file " + conf));
}

/* A misspelt HIPFILE_PLUGINS opens the driver, which says what is wrong, and reads say why. */
TEST_F(SetupTest, MisspeltPluginsVariableIsNamedAndReadsSayNoBackend)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), PluginConfig("").c_str()), 0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 8192, 5), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        setenv("HIPFILE_PLUGINS", "fallbak", 1);
        if (hipFileDriverOpen().err != hipFileSuccess)
            return false;
        int fd = open(data.c_str(), O_RDONLY);
        hipFileHandle_t fh = Register(fd);
        void *dev = nullptr;
        if (fh == nullptr || hipMalloc(&dev, 8192) != hipSuccess)
            return false;
        ssize_t n = hipFileRead(fh, dev, 8192, 0, 0);
        return n == -static_cast<ssize_t>(hipFileIONotSupported) &&
               strcmp(HIPFILE_ERRSTR(n), "GPU I/O not supported for this file") == 0;
    });
    EXPECT_TRUE(LogHas("warn: HIPFILE_PLUGINS names \"fallbak\", but no manifest in " +
                       std::string(HF_TEST_PLUGIN_DIR) + " has that name"));
    EXPECT_TRUE(LogHas("did you mean \"fallback\"?"));
    EXPECT_TRUE(LogHas("manifests gave a usable backend, so every read and write will fail with "
                       "hipFileIONotSupported"));
    EXPECT_TRUE(LogHas("error: no backend can serve a read of 8192 bytes: no backend is loaded; "
                       "run hipfile-check to see why each plugin was skipped and what to do"));
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

TEST_F(SetupTest, MissingConfigFileMeansDefaultsAndAWarningNamingIt)
{
    std::string missing = conf + ".absent";
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", missing.c_str(), 1);
        setenv("HIPFILE_PLUGIN_DIR", HF_TEST_PLUGIN_DIR, 1);
        return hipFileDriverOpen().err == hipFileSuccess && hipFileUseCount() == 1;
    });
    EXPECT_TRUE(LogHas("warn: HIPFILE_CONFIG names " + missing +
                       ", which does not exist; using built-in defaults (unset HIPFILE_CONFIG to "
                       "read the default file, or correct the path)"));
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
    EXPECT_TRUE(LogHas("error: driver setup failed: no usable GPU runtime (gpu.runtime = "
                       "\"/nonexistent/libnothing.so\", from HIPFILE_GPU_RUNTIME); set "
                       "HIPFILE_GPU_RUNTIME to auto, hip, cuda, host or the path of a HIP runtime "
                       "library, or unset it"));
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
        return hipFileRead(fh, dev, 8192, 0, 0) == -static_cast<ssize_t>(hipFileIONotSupported);
    });
    EXPECT_TRUE(LogHas("holds no manifests (*.xml), so no backend is loaded and every read and "
                       "write will fail with hipFileIONotSupported"));
    EXPECT_TRUE(LogHas("no backend can serve a read of 8192 bytes: no backend is loaded; run "
                       "hipfile-check"));
}

TEST_F(SetupTest, CompatModeOffLeavesNoPathForTheFallback)
{
    /* Only the fallback: a direct backend would serve where the compat path may not. */
    std::string text =
        std::string("plugins = { directory = \"") + HF_TEST_PLUGIN_DIR +
        "\"; enable = [\"fallback\"]; };\nproperties = { compat_mode = \"off\"; };\n";
    ASSERT_EQ(hf_test_write_text(conf.c_str(), text.c_str()), 0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 8192, 5), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        int fd = open(data.c_str(), O_RDONLY);
        hipFileHandle_t fh = Register(fd);
        void *dev = nullptr;
        if (fh == nullptr || hipMalloc(&dev, 8192) != hipSuccess)
            return false;
        return hipFileRead(fh, dev, 8192, 0, 0) == -static_cast<ssize_t>(hipFileIONotSupported);
    });
    EXPECT_TRUE(LogHas("error: no backend can serve a read of 8192 bytes (regular file, device "
                       "memory): the one loaded refused; hipfile-check --explain FILE shows its "
                       "reason"));
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

/* The report a process appends at exit names what it did and which backend served it. */
TEST_F(SetupTest, StatsReportAtExitListsTheRequestsAndTheServingBackend)
{
    std::string report = ScratchPath("report");
    unlink(report.c_str());
    std::string text = std::string("plugins = { directory = \"") + HF_TEST_PLUGIN_DIR +
                       "\"; enable = [\"fallback\"]; };\nprofile = { stats = 1; stats_report = \"" +
                       report + "\"; };\n";
    ASSERT_EQ(hf_test_write_text(conf.c_str(), text.c_str()), 0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 65536, 3), 0);
    EXPECT_EXIT(
        {
            setenv("HIPFILE_CONFIG", conf.c_str(), 1);
            int fd = open(data.c_str(), O_RDWR);
            hipFileHandle_t fh = Register(fd);
            void *dev = nullptr;
            bool ok = fh != nullptr && hipMalloc(&dev, 65536) == hipSuccess &&
                      hipFileRead(fh, dev, 4096, 0, 0) == 4096 &&
                      hipFileRead(fh, dev, 4096, 4096, 0) == 4096 &&
                      hipFileWrite(fh, dev, 4096, 0, 0) == 4096;
            exit(ok ? 0 : 1); /* exit, not _exit: the report is written on the way out */
        },
        ::testing::ExitedWithCode(0), "");
    std::string got;
    FILE *f = fopen(report.c_str(), "r");
    ASSERT_NE(f, nullptr) << "no report at " << report;
    char line[512];
    while (fgets(line, sizeof(line), f) != nullptr)
        got += line;
    fclose(f);
    EXPECT_NE(got.find("hipfile statistics"), std::string::npos) << got;
    EXPECT_NE(got.find("reads                  ok 2, failed 0"), std::string::npos) << got;
    EXPECT_NE(got.find("writes                 ok 1, failed 0"), std::string::npos) << got;
    EXPECT_NE(got.find("backend fallback served: reads 2, writes 1"), std::string::npos) << got;
    EXPECT_NE(got.find("GPU 0: reads 2 (direct 0, compat 2"), std::string::npos) << got;
}

/* Setup reads the thread count once; after it, only settings marked live may change. */
TEST_F(SetupTest, SettingsReadAtOpenAreRefusedAfterIt)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), PluginConfig("").c_str()), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        if (hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 3).err != hipFileSuccess)
            return false;
        if (hipFileDriverOpen().err != hipFileSuccess)
            return false;
        size_t threads = 0;
        bool refused =
            hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 5).err ==
                hipFileDriverAlreadyOpen &&
            hipFileSetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, 64).err ==
                hipFileDriverAlreadyOpen &&
            hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads).err ==
                hipFileSuccess &&
            threads == 3;
        bool live_ok =
            hipFileDriverSetMaxCacheSize(8192).err == hipFileSuccess &&
            hipFileSetParameterBool(hipFileParamExecutionParallelIO, false).err == hipFileSuccess;
        /* Read-once keys stay refused after the close too: the executor has started. */
        bool closed = hipFileDriverClose().err == hipFileSuccess &&
                      hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 5).err ==
                          hipFileDriverAlreadyOpen;
        return refused && live_ok && closed;
    });
    EXPECT_TRUE(LogHas("execution.max_io_threads is read when the driver first opens"));
}

/*
 * cuFile's rules, which AMD's tests describe for hipFile too (CantSetIfDriverOpen): the string
 * parameters and use_pci_p2pdma are refused with hipFileDriverAlreadyOpen while the driver is
 * open, before the value is even looked at, and may change again once it is closed.
 */
TEST_F(SetupTest, StringParametersAndPciP2pdmaAreRefusedWhileTheDriverIsOpen)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), PluginConfig("").c_str()), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        if (hipFileDriverOpen().err != hipFileSuccess)
            return false;
        bool p2pdma = true;
        bool refused =
            hipFileSetParameterBool(hipFileParamUsePcip2pdma, true).err ==
                hipFileDriverAlreadyOpen &&
            hipFileSetParameterString(hipFileParamLogDir, "/foo/bar").err ==
                hipFileDriverAlreadyOpen &&
            hipFileSetParameterString(hipFileParamLoggingLevel, "info").err ==
                hipFileDriverAlreadyOpen &&
            hipFileSetParameterString(hipFileParamEnvLogfilePath, "/tmp/x.log").err ==
                hipFileDriverAlreadyOpen &&
            hipFileGetParameterBool(hipFileParamUsePcip2pdma, &p2pdma).err == hipFileSuccess &&
            !p2pdma;
        bool reopened =
            hipFileDriverClose().err == hipFileSuccess &&
            hipFileSetParameterBool(hipFileParamUsePcip2pdma, true).err == hipFileSuccess &&
            hipFileSetParameterString(hipFileParamLoggingLevel, "warn").err == hipFileSuccess;
        return refused && reopened;
    });
    EXPECT_TRUE(LogHas("properties.use_pci_p2pdma cannot change while the driver is open"));
    EXPECT_TRUE(LogHas("log.dir cannot change while the driver is open"));
}

/* cuFile's last close resets what the parameter API set before the open (CloseClearsAppliedValue).
 */
TEST_F(SetupTest, ParametersSetBeforeOpenAreResetByTheLastClose)
{
    ASSERT_EQ(hf_test_write_text(conf.c_str(), PluginConfig("").c_str()), 0);
    std::string dir = ScratchPath("logdir");
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", conf.c_str(), 1);
        size_t threads_default = 0;
        if (hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads_default).err !=
                hipFileSuccess ||
            threads_default == 10)
            return false;
        bool set =
            hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 10).err == hipFileSuccess &&
            hipFileSetParameterBool(hipFileParamUsePcip2pdma, true).err == hipFileSuccess &&
            hipFileSetParameterString(hipFileParamLogDir, dir.c_str()).err == hipFileSuccess;
        size_t threads = 0;
        bool p2pdma = false;
        char got_dir[4096] = "";
        auto read_all = [&] {
            return hipFileGetParameterSizeT(hipFileParamExecutionMaxIOThreads, &threads).err ==
                       hipFileSuccess &&
                   hipFileGetParameterBool(hipFileParamUsePcip2pdma, &p2pdma).err ==
                       hipFileSuccess &&
                   hipFileGetParameterString(hipFileParamLogDir, got_dir, sizeof(got_dir)).err ==
                       hipFileSuccess;
        };
        /* Two opens: only the last close resets. */
        bool applied = hipFileDriverOpen().err == hipFileSuccess &&
                       hipFileDriverOpen().err == hipFileSuccess &&
                       hipFileDriverClose().err == hipFileSuccess && read_all() && threads == 10 &&
                       p2pdma && dir == got_dir;
        bool cleared = hipFileDriverClose().err == hipFileSuccess && read_all() &&
                       threads == threads_default && !p2pdma && got_dir[0] == '\0';
        return set && applied && cleared;
    });
}

/* A FIFO as the config file: the open would wait for a writer; the watchdog fails a regression. */
TEST_F(SetupTest, ConfigFileThatIsAFifoFailsOpenPromptly)
{
    std::string fifo = ScratchPath("conf.fifo");
    unlink(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    InChild(log, [&] {
        alarm(20);
        setenv("HIPFILE_CONFIG", fifo.c_str(), 1);
        return hipFileDriverOpen().err == hipFileDriverSetupError && hipFileUseCount() == 0;
    });
    EXPECT_TRUE(LogHas("config file " + fifo + " is a FIFO (named pipe), not a regular file"));
    EXPECT_TRUE(LogHas("driver setup failed: the config file " + fifo + " is not usable"));
}

/* A relative path in the file is taken from the file's directory, never the current one. */
TEST_F(SetupTest, RelativePluginDirectoryIsTakenFromTheConfigFilesDirectory)
{
    std::string dir = ScratchPath("confdir");
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    std::string link = dir + "/plugins";
    ASSERT_EQ(symlink(HF_TEST_PLUGIN_DIR, link.c_str()), 0);
    std::string file = dir + "/hipfile.conf";
    ASSERT_EQ(hf_test_write_text(file.c_str(), "plugins = { directory = \"plugins\"; };\n"), 0);
    std::string data = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(data.c_str(), 8192, 4), 0);
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", file.c_str(), 1);
        if (chdir("/") != 0)
            return false;
        int fd = open(data.c_str(), O_RDONLY);
        hipFileHandle_t fh = Register(fd);
        void *dev = nullptr;
        return fh != nullptr && hipMalloc(&dev, 8192) == hipSuccess &&
               hipFileRead(fh, dev, 8192, 0, 0) == 8192;
    });
}

TEST_F(SetupTest, RelativeConfigPathFailsOpenAndSaysWhy)
{
    InChild(log, [&] {
        setenv("HIPFILE_CONFIG", "hipfile.conf", 1);
        return hipFileDriverOpen().err == hipFileDriverSetupError;
    });
    EXPECT_TRUE(LogHas("HIPFILE_CONFIG=\"hipfile.conf\" is a relative path"));
}
