// The plugin loader against fixture plugins: what loads, what is skipped, and the one log line
// that says why, for every step a plugin can fail (manifest, library path, handshake, init, probe).
#include <cctype>
#include <cstddef>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "plugin_fixture.h"

extern "C" {
#include "base/cpu_budget.h"
#include "base/memory_budget.h"
#include "host/backend_call.h"
#include "config/config.h"
#include "host/host_api.h"
#include "host/loader.h"
#include "host/manifest.h"
#include "services/gpu_runtime.h"
}

using hf_fixture::LogCapture;
using hf_fixture::Manifest;
using hf_fixture::PluginDir;

namespace
{

class Loader : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        hf_loader_reset();
    }
    void TearDown() override
    {
        hf_loader_reset();
        log_.reset();
    }

    /** Load config for dir_ (plus @p plugins_extra and @p groups), then the plugins. */
    int load(const std::string &plugins_extra = "", const std::string &groups = "")
    {
        EXPECT_EQ(hf_fixture::load_config(hf_fixture::config_for(dir_, plugins_extra, groups)), 0);
        log_ = std::make_unique<LogCapture>();
        return hf_loader_load_all();
    }

    std::vector<std::string> loaded_names() const
    {
        std::vector<std::string> names;
        for (unsigned i = 0; i < hf_backend_count(); i++)
            names.push_back(hf_backend_at(i)->name);
        return names;
    }

    /** Whether the library copy at @p path is mapped into the process. */
    static bool is_mapped(const std::string &path)
    {
        void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
        if (handle == nullptr)
            return false;
        dlclose(handle);
        return true;
    }

    /** The plugin directory with symbolic links resolved, as library paths are logged. */
    std::string real_dir() const
    {
        char real[PATH_MAX];
        return realpath(dir_.path().c_str(), real) != nullptr ? real : dir_.path();
    }

    /** The one line about plugin @p name being skipped; fails unless there is exactly one. */
    std::string skip_line(const std::string &name)
    {
        auto lines = log_->lines_with({"plugin " + name + " (", "skipped"});
        EXPECT_EQ(lines.size(), 1u) << log_->text();
        return lines.empty() ? std::string() : lines[0];
    }

    PluginDir dir_;
    std::unique_ptr<LogCapture> log_;
};

using Names = std::vector<std::string>;

TEST_F(Loader, GoodPluginLoadsWithManifestFacts)
{
    dir_.add_library("fixture-good");
    dir_.add_manifest_file("complete.xml", "fixture-good.xml");
    ASSERT_EQ(load(), 0);
    ASSERT_EQ(loaded_names(), Names{"fixture-good"});
    const hf_backend *b = hf_backend_at(0);
    EXPECT_EQ(b->index, 0u);
    EXPECT_STREQ(b->version, "2.5.1-rc1");
    EXPECT_STREQ(b->description, "Fixture backend with every field set");
    EXPECT_EQ(b->manifest_priority, -7);
    EXPECT_EQ(b->priority, -7);
    EXPECT_EQ(b->abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(b->mem_types, (1u << HF_MEM_DEVICE) | (1u << HF_MEM_HOST_PINNED));
    EXPECT_EQ(b->file_kinds, 1u << HF_FILE_BLOCK);
    ASSERT_EQ(b->retry_errno_count, 2u);
    EXPECT_EQ(b->retry_errnos[0], EAGAIN);
    EXPECT_EQ(b->retry_errnos[1], EINVAL);
    EXPECT_EQ(std::string(b->manifest_path), dir_.file("fixture-good.xml"));
    char real[PATH_MAX];
    ASSERT_NE(realpath(dir_.file("libhipfile-fixture-good.so").c_str(), real), nullptr);
    EXPECT_STREQ(b->library_path, real);
    EXPECT_EQ(log_->lines_with({"info:", "plugin fixture-good 2.5.1-rc1 loaded from"}).size(), 1u)
        << log_->text();
}

TEST_F(Loader, HostApiTagsLogLinesAndForwardsTheBackendsConfigGroup)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load("", "fixture-good: { answer = 42; verbose = true; greeting = \"hello\"; };"), 0);
    ASSERT_EQ(hf_backend_count(), 1u);
    EXPECT_EQ(log_->count("hipfile[fixture-good] info: init: answer=42 (rc 0) verbose=1 (rc 0) "
                          "greeting=hello"),
              1u)
        << log_->text();
}

TEST_F(Loader, UnsetConfigKeysAreENOENTToTheBackend)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load(), 0);
    std::string expected = "init: answer=0 (rc " + std::to_string(-ENOENT) + ") verbose=0 (rc " +
                           std::to_string(-ENOENT) + ") greeting=unset";
    EXPECT_EQ(log_->count(expected), 1u) << log_->text();
}

TEST_F(Loader, HostApiCarriesSizeMinorAndSystemCalls)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load(), 0);
    const hf_backend *b = hf_backend_find("fixture-good");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->host.struct_size, sizeof(struct hf_host_api));
    EXPECT_EQ(b->host.abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(b->host.core_private, b);
    ASSERT_NE(b->host.sys, nullptr);
    EXPECT_NE(b->host.sys->pread, nullptr);
    EXPECT_NE(b->host.log, nullptr);
}

// One fixture plugin per rule of the ABI; each is skipped with one line, the good one loads.
struct BrokenPlugin {
    const char *fixture;
    const char *level;  // "warn:" or "info:"
    const char *reason; // what the line must say
    bool init_ran;      // fini must have been called after a failed probe
};

void PrintTo(const BrokenPlugin &p, std::ostream *os)
{
    *os << p.fixture;
}

class LoaderBrokenPlugin : public Loader, public ::testing::WithParamInterface<BrokenPlugin>
{
};

TEST_P(LoaderBrokenPlugin, IsSkippedWithOneLineAndOthersStillLoad)
{
    const BrokenPlugin &p = GetParam();
    dir_.add("fixture-good");
    dir_.add(p.fixture);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), Names{"fixture-good"});
    std::string line = skip_line(p.fixture);
    EXPECT_NE(line.find(p.level), std::string::npos) << line;
    EXPECT_NE(line.find(p.reason), std::string::npos) << line;
    EXPECT_TRUE(line.find(dir_.path()) != std::string::npos ||
                line.find(real_dir()) != std::string::npos)
        << "names no file: " << line;
    EXPECT_EQ(log_->count("hipfile[" + std::string(p.fixture) + "] info: fini"),
              p.init_ran ? 1u : 0u)
        << log_->text();
}

INSTANTIATE_TEST_SUITE_P(
    EveryRule, LoaderBrokenPlugin,
    ::testing::Values(
        BrokenPlugin{"fixture-bad-magic", "warn:", "bad magic 0x12345678", false},
        BrokenPlugin{"fixture-abi2", "warn:", "ops table is for ABI major 2", false},
        BrokenPlugin{"fixture-no-entry", "warn:", "does not export hf_backend_entry_v1", false},
        BrokenPlugin{"fixture-misnamed", "warn:",
                     "calls itself 'fixture-other' but its manifest says 'fixture-misnamed'",
                     false},
        BrokenPlugin{"fixture-entry-fails", "warn:", "entry point failed: EINVAL", false},
        BrokenPlugin{"fixture-init-fails", "warn:", "init failed: EIO", false},
        BrokenPlugin{"fixture-no-device", "info:", "not usable on this machine", true},
        BrokenPlugin{"fixture-probe-fails", "warn:", "probe failed: EIO", true},
        BrokenPlugin{"fixture-small", "warn:", "needs at least", false},
        BrokenPlugin{"fixture-null-score", "warn:", "mandatory member score is NULL", false},
        BrokenPlugin{"fixture-null-read", "warn:", "mandatory member read or transfer", false},
        // A table built for minor 6 ends before transfer: the core never looks there, so the
        // plugin lacks read as it always did.
        BrokenPlugin{"fixture-transfer-minor6",
                     "warn:", "mandatory member read (caps include HF_CAP_READ) is NULL", false},
        BrokenPlugin{"fixture-no-caps", "warn:", "neither HF_CAP_READ nor HF_CAP_WRITE", false}),
    [](const ::testing::TestParamInfo<BrokenPlugin> &info) {
        std::string name = info.param.fixture;
        std::string out;
        bool upper = true;
        for (char c : name) {
            if (c == '-') {
                upper = true;
                continue;
            }
            out += upper ? (char)toupper(c) : c;
            upper = false;
        }
        return out;
    });

// Through the one door, as a request would: a read and a write of 4 KiB of a scratch file, with
// host memory, on the loaded backend named @p name. Returns what each call gave.
static void transfer_both_ways(const char *name, ssize_t *read_p, ssize_t *write_p,
                               std::string *read_back)
{
    struct hf_backend *b = hf_backend_find(name);
    ASSERT_NE(b, nullptr) << name;
    char path[] = "/tmp/hf-transfer-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    unlink(path);
    std::string out(4096, 'w'), in(4096, '\0');
    struct hf_file_info file = {};
    file.struct_size = sizeof(file);
    file.fd = fd;
    file.direct_fd = -1;
    struct hf_buf_info buf = {};
    buf.struct_size = sizeof(buf);
    buf.mem_type = HF_MEM_HOST_PINNED;
    buf.device = -1;
    buf.host_accessible = true;
    struct hf_io_request req = {};
    req.struct_size = sizeof(req);
    req.file = &file;
    req.buf = &buf;
    req.size = 4096;
    req.op = HF_IO_WRITE;
    buf.base = out.data();
    buf.length = out.size();
    *write_p = hf_call_transfer(b, &req);
    req.op = HF_IO_READ;
    buf.base = in.data();
    buf.length = in.size();
    *read_p = hf_call_transfer(b, &req);
    *read_back = in;
    close(fd);
}

TEST_F(Loader, TransferAloneServesBothDirections)
{
    dir_.add("fixture-transfer");
    ASSERT_EQ(load(), 0);
    ASSERT_EQ(loaded_names(), Names{"fixture-transfer"}) << log_->text();
    ssize_t r = 0, w = 0;
    std::string back;
    transfer_both_ways("fixture-transfer", &r, &w, &back);
    EXPECT_EQ(w, 4096);
    EXPECT_EQ(r, 4096);
    EXPECT_EQ(back, std::string(4096, 'w'));
    EXPECT_EQ(log_->count("hipfile[fixture-transfer] info: transfer write"), 1u) << log_->text();
    EXPECT_EQ(log_->count("hipfile[fixture-transfer] info: transfer read"), 1u) << log_->text();
}

TEST_F(Loader, TransferWinsOverReadAndWrite)
{
    dir_.add("fixture-transfer-and-read");
    ASSERT_EQ(load(), 0);
    ssize_t r = 0, w = 0;
    std::string back;
    transfer_both_ways("fixture-transfer-and-read", &r, &w, &back);
    // The fixture's read fails with EIO: a read that reached it would not be 4096.
    EXPECT_EQ(r, 4096);
    EXPECT_EQ(w, 4096);
    EXPECT_EQ(log_->count("hipfile[fixture-transfer-and-read] info: transfer read"), 1u)
        << log_->text();
    EXPECT_EQ(log_->count("hipfile[fixture-transfer-and-read] info: transfer write"), 1u)
        << log_->text();
}

TEST_F(Loader, PluginWhoseInitRanIsNeverUnmapped)
{
    dir_.add("fixture-probe-fails");
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_TRUE(is_mapped(dir_.file("libhipfile-fixture-probe-fails.so")));
}

TEST_F(Loader, PluginRejectedBeforeInitIsUnmapped)
{
    dir_.add("fixture-bad-magic");
    ASSERT_EQ(load(), 0);
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-bad-magic.so")));
}

// Manifests that never get as far as the library.
struct BrokenManifest {
    const char *file;
    const char *reason;
};

void PrintTo(const BrokenManifest &m, std::ostream *os)
{
    *os << m.file;
}

class LoaderBrokenManifest : public Loader, public ::testing::WithParamInterface<BrokenManifest>
{
};

TEST_P(LoaderBrokenManifest, IsSkippedWithOneWarningNamingTheFile)
{
    const BrokenManifest &m = GetParam();
    dir_.add("scripted-a");
    dir_.add_library("fixture-good");
    dir_.add_manifest_file(m.file);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), Names{"scripted-a"});
    auto lines = log_->lines_with({dir_.file(m.file), "skipped"});
    ASSERT_EQ(lines.size(), 1u) << log_->text();
    EXPECT_NE(lines[0].find("warn:"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find(m.reason), std::string::npos) << lines[0];
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
}

INSTANTIATE_TEST_SUITE_P(
    EveryProblem, LoaderBrokenManifest,
    ::testing::Values(
        BrokenManifest{"malformed.xml", "malformed XML: line"},
        BrokenManifest{"bad-name.xml",
                       "does not match the manifest schema: line 4: Element 'name'"},
        BrokenManifest{"no-requirements.xml", "Expected is ( requirements )"},
        BrokenManifest{"unknown-errno.xml", "'EWHATEVER' is not an element of the set"},
        BrokenManifest{"priority-out-of-range.xml", "greater than the maximum value allowed"},
        BrokenManifest{"unknown-memory.xml", "'array' is not an element of the set"},
        BrokenManifest{"doctype.xml", "DOCTYPE"},
        BrokenManifest{"escape-dotdot.xml", "has a '..' component"},
        BrokenManifest{"escape-absolute.xml", "is an absolute path"},
        BrokenManifest{"missing-library.xml", "No such file or directory"}),
    [](const ::testing::TestParamInfo<BrokenManifest> &info) {
        std::string out;
        for (const char *c = info.param.file; *c != '.'; c++)
            out += isalnum((unsigned char)*c) ? *c : '_';
        return out;
    });

TEST_F(Loader, SymlinkToLibraryOutsideTheDirectoryIsRejected)
{
    ASSERT_EQ(symlink(hf_fixture::built_library("fixture-good").c_str(),
                      dir_.file("link-outside.so").c_str()),
              0);
    dir_.add_manifest_file("escape-symlink.xml");
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_NE(skip_line("fixture-good").find("outside the plugin directory"), std::string::npos);
}

TEST_F(Loader, LibraryInASubdirectoryLoads)
{
    ASSERT_EQ(mkdir(dir_.file("lib").c_str(), 0755), 0);
    dir_.add_library("fixture-good", "lib/libhipfile-fixture-good.so");
    Manifest m;
    m.name = "fixture-good";
    m.library = "lib/libhipfile-fixture-good.so";
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), Names{"fixture-good"});
}

TEST_F(Loader, SymlinkInsideTheDirectoryIsAccepted)
{
    dir_.add_library("fixture-good", "real.so");
    ASSERT_EQ(symlink("real.so", dir_.file("libhipfile-fixture-good.so").c_str()), 0);
    Manifest m;
    m.name = "fixture-good";
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), Names{"fixture-good"});
}

TEST_F(Loader, DuplicateNameWarnsNamingBothFilesAndFirstWins)
{
    dir_.add_library("fixture-good");
    Manifest first;
    first.name = "fixture-good";
    first.priority = 1;
    Manifest second = first;
    second.priority = 2;
    dir_.add_manifest(first, "a-first.xml");
    dir_.add_manifest(second, "b-second.xml");
    ASSERT_EQ(load(), 0);
    ASSERT_EQ(loaded_names(), Names{"fixture-good"});
    EXPECT_EQ(hf_backend_at(0)->manifest_priority, 1);
    auto lines = log_->lines_with({"warn:", dir_.file("a-first.xml"), dir_.file("b-second.xml")});
    EXPECT_EQ(lines.size(), 1u) << log_->text();
}

TEST_F(Loader, ManifestsAreReadInByteOrderOfTheirFileNames)
{
    // Byte order puts upper case first whatever the locale says.
    for (const char *name : {"scripted-a", "scripted-b", "scripted-c"})
        dir_.add_library(name);
    Manifest a, b, c;
    a.name = "scripted-a";
    b.name = "scripted-b";
    c.name = "scripted-c";
    dir_.add_manifest(a, "b.xml");
    dir_.add_manifest(b, "a.xml");
    dir_.add_manifest(c, "Z.xml");
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), (Names{"scripted-c", "scripted-b", "scripted-a"}));
}

TEST_F(Loader, HiddenAndNonXmlFilesAreIgnored)
{
    dir_.add("fixture-good");
    hf_fixture::write_text(dir_.file(".hidden.xml"), "not xml at all");
    hf_fixture::write_text(dir_.file("README"), "not a manifest");
    hf_fixture::write_text(dir_.file("fixture-good.xml.bak"), "<backend/>");
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), Names{"fixture-good"});
    EXPECT_EQ(log_->count("warn:"), 0u) << log_->text();
}

TEST_F(Loader, OversizedManifestIsRejected)
{
    dir_.add_library("fixture-good");
    Manifest m;
    m.name = "fixture-good";
    std::string xml = m.xml();
    xml.insert(xml.find("<backend>"), "<!--" + std::string(HF_MANIFEST_MAX_BYTES, 'x') + "-->\n");
    hf_fixture::write_text(dir_.file("fixture-good.xml"), xml);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(log_->lines_with({"warn:", "fixture-good.xml", "larger than"}).size(), 1u)
        << log_->text();
}

// A FIFO's open waits for its other end: a watchdog makes a loader that opens one fail the test
// (SIGALRM ends the process) instead of hanging it.
TEST_F(Loader, ManifestThatIsAFifoIsSkippedWithoutBlocking)
{
    dir_.add("fixture-good");
    ASSERT_EQ(mkfifo(dir_.file("fixture-fifo.xml").c_str(), 0644), 0);
    alarm(20);
    ASSERT_EQ(load(), 0);
    alarm(0);
    EXPECT_EQ(loaded_names(), Names{"fixture-good"});
    EXPECT_EQ(log_->lines_with({"warn:", "fixture-fifo.xml",
                                "a FIFO (named pipe), not a regular file", "skipped"})
                  .size(),
              1u)
        << log_->text();
}

TEST_F(Loader, LibraryThatIsAFifoIsNeverOpened)
{
    ASSERT_EQ(mkfifo(dir_.file("libhipfile-fixture-good.so").c_str(), 0644), 0);
    Manifest m;
    m.name = "fixture-good";
    dir_.add_manifest(m);
    alarm(20);
    ASSERT_EQ(load(), 0);
    alarm(0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_NE(skip_line("fixture-good").find("a FIFO (named pipe), not a regular file"),
              std::string::npos)
        << log_->text();
}

TEST_F(Loader, DisabledPluginIsNeverOpened)
{
    dir_.add("fixture-good");
    dir_.add("scripted-a");
    ASSERT_EQ(load("enable = [\"scripted-a\"];"), 0);
    EXPECT_EQ(loaded_names(), Names{"scripted-a"});
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
    EXPECT_EQ(log_->lines_with({"info:", "plugin fixture-good (", "plugins.enable"}).size(), 1u)
        << log_->text();
}

TEST_F(Loader, ManifestForAnotherAbiMajorIsNeverOpened)
{
    dir_.add_library("fixture-good");
    Manifest m;
    m.name = "fixture-good";
    m.abi_major = 2;
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_NE(skip_line("fixture-good").find("built for ABI major 2"), std::string::npos);
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
}

TEST_F(Loader, ManifestNeedingANewerMinorIsNeverOpened)
{
    dir_.add_library("fixture-good");
    Manifest m;
    m.name = "fixture-good";
    m.abi_minor = HF_BACKEND_ABI_MINOR + 1;
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    std::string needs = "needs plugin ABI 1." + std::to_string(HF_BACKEND_ABI_MINOR + 1) +
                        "; this hipfile provides 1." + std::to_string(HF_BACKEND_ABI_MINOR) +
                        ": upgrade hipfile; skipped";
    EXPECT_NE(skip_line("fixture-good").find(needs), std::string::npos) << log_->text();
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
}

TEST_F(Loader, ManifestNeedingANewerMinorIsRefusedBeforeItsLibraryIsLookedFor)
{
    Manifest m;
    m.name = "fixture-good"; // no library in the directory
    m.abi_minor = HF_BACKEND_ABI_MINOR + 1;
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_NE(skip_line("fixture-good").find("upgrade hipfile"), std::string::npos) << log_->text();
}

TEST_F(Loader, ManifestStatingTheLibrarysOwnMinorLoads)
{
    dir_.add_library("fixture-good");
    Manifest m;
    m.name = "fixture-good";
    m.abi_minor = HF_BACKEND_ABI_MINOR; // what the fixture reports
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(loaded_names(), Names{"fixture-good"}) << log_->text();
}

TEST_F(Loader, LibraryReportingAnOlderMinorThanItsManifestIsRefused)
{
    dir_.add_library("older-abi"); // reports minor 2
    Manifest m;
    m.name = "older-abi";
    m.abi_minor = 3;
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_NE(skip_line("older-abi")
                  .find("manifest says 1.3, library reports 1.2: the manifest or "
                        "the library is out of date; skipped"),
              std::string::npos)
        << log_->text();
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-older-abi.so")));
}

TEST_F(Loader, OpsNewerThanTheNegotiatedMinorAreNeverUsed)
{
    dir_.add_library("older-abi"); // minor 2, yet sets submit_many (3) and stream_prepare (4)
    Manifest m;
    m.name = "older-abi";
    m.abi_minor = 2;
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    hf_backend *b = hf_backend_find("older-abi");
    ASSERT_NE(b, nullptr) << log_->text();
    EXPECT_EQ(b->abi_minor, 2u);
    EXPECT_NE(b->complete.submit_many, b->ops->submit_many);
    EXPECT_NE(b->complete.stream_prepare, b->ops->stream_prepare);
    EXPECT_EQ(hf_call_stream_prepare(b, 0), 0) << "the core's default, not the plugin's";
    hf_backends_stream_prepare(0);
    EXPECT_EQ(log_->count("could not get ready"), 0u) << log_->text();
}

TEST(LoaderAbi, LibraryReportingLessThanItsManifestIsRefusedNamingBoth)
{
    hf_manifest m{};
    m.abi_major = 1;
    m.abi_minor = 5;
    char why[256] = "";
    EXPECT_EQ(hf_loader_library_abi_refusal(&m, 4, why, sizeof(why)), -ENOTSUP);
    EXPECT_STREQ(why, "manifest says 1.5, library reports 1.4: the manifest or the library is out "
                      "of date");
    EXPECT_EQ(hf_loader_library_abi_refusal(&m, 5, why, sizeof(why)), 0);
    m.abi_minor = 1;
    EXPECT_EQ(hf_loader_library_abi_refusal(&m, 4, why, sizeof(why)), 0)
        << "a manifest states the least minor the plugin needs";
}

TEST(LoaderAbi, ManifestMinorIsTheLeastTheCoreMustProvide)
{
    hf_manifest m{};
    m.abi_major = 1;
    char why[256] = "";
    m.abi_minor = HF_BACKEND_ABI_MINOR;
    EXPECT_EQ(hf_loader_manifest_abi_refusal(&m, why, sizeof(why)), 0);
    m.abi_minor = 0;
    EXPECT_EQ(hf_loader_manifest_abi_refusal(&m, why, sizeof(why)), 0);
    m.abi_minor = HF_BACKEND_ABI_MINOR + 1;
    EXPECT_EQ(hf_loader_manifest_abi_refusal(&m, why, sizeof(why)), -ENOTSUP);
}

TEST_F(Loader, OptionalOpsThePluginLacksAreFilledWithTheCoresDefaults)
{
    dir_.add("fixture-good"); // no registration hooks, no submit_many, no stream_prepare
    dir_.add("scripted-a");   // registration hooks and stream_prepare of its own
    ASSERT_EQ(load(), 0);
    hf_backend *good = hf_backend_find("fixture-good");
    hf_backend *scripted = hf_backend_find("scripted-a");
    ASSERT_NE(good, nullptr);
    ASSERT_NE(scripted, nullptr);
    for (const hf_backend *b : {good, scripted}) {
        EXPECT_NE(b->complete.file_register, nullptr) << b->name;
        EXPECT_NE(b->complete.file_deregister, nullptr) << b->name;
        EXPECT_NE(b->complete.buf_register, nullptr) << b->name;
        EXPECT_NE(b->complete.buf_deregister, nullptr) << b->name;
        EXPECT_NE(b->complete.submit_many, nullptr) << b->name;
        EXPECT_NE(b->complete.stream_prepare, nullptr) << b->name;
        EXPECT_EQ(b->complete.caps, b->ops->caps) << b->name;
    }
    EXPECT_EQ(scripted->complete.file_register, scripted->ops->file_register);
    EXPECT_EQ(scripted->complete.stream_prepare, scripted->ops->stream_prepare);

    // Registration with a backend that has no hook: accepted, with no context.
    hf_file_info file{};
    file.struct_size = sizeof(file);
    void *ctx = &file;
    EXPECT_EQ(hf_call_file_register(good, &file, &ctx), 0);
    EXPECT_EQ(ctx, nullptr);
    hf_call_file_deregister(good, nullptr);
    hf_buf_info buf{};
    buf.struct_size = sizeof(buf);
    ctx = &buf;
    EXPECT_EQ(hf_call_buf_register(good, &buf, &ctx), 0);
    EXPECT_EQ(ctx, nullptr);
    hf_call_buf_deregister(good, nullptr);
    // Nothing to prepare: no line, no call, for any GPU the bookkeeping tracks.
    hf_backends_stream_prepare(3);
    EXPECT_EQ(log_->count("fixture-good is ready for stream-ordered I/O"), 0u) << log_->text();
    EXPECT_EQ(hf_call_stream_prepare(good, 3), 0);
}

TEST_F(Loader, DefaultSubmitManyServesEachRequestThroughTheBackendsOwnOps)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load(), 0);
    const hf_backend *b = hf_backend_find("fixture-good");
    ASSERT_NE(b, nullptr);
    std::string path = dir_.file("data.bin");
    hf_fixture::write_text(path, "abcdefgh");
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    hf_file_info file{};
    file.struct_size = sizeof(file);
    file.fd = fd;
    file.direct_fd = -1;
    file.kind = HF_FILE_REGULAR;
    char memory[8] = {};
    hf_buf_info buf{};
    buf.struct_size = sizeof(buf);
    buf.base = memory;
    buf.length = sizeof(memory);
    buf.device = -1;
    buf.host_accessible = true;
    hf_io_request first{}, second{};
    for (hf_io_request *r : {&first, &second}) {
        r->struct_size = sizeof(*r);
        r->op = HF_IO_READ;
        r->file = &file;
        r->buf = &buf;
        r->size = 4;
    }
    second.file_offset = 4;
    second.buf_offset = 4;
    const hf_io_request *reqs[] = {&first, &second};
    ssize_t results[2] = {-1, -1};
    hf_call_submit_many(b, reqs, 2, results);
    close(fd);
    EXPECT_EQ(results[0], 4);
    EXPECT_EQ(results[1], 4);
    EXPECT_EQ(std::string(memory, sizeof(memory)), "abcdefgh");
}

TEST_F(Loader, HostTableIsCompleteAtTheCoresMinor)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load(), 0);
    const hf_backend *b = hf_backend_find("fixture-good");
    ASSERT_NE(b, nullptr);
    const hf_host_api &host = b->host;
    EXPECT_EQ(host.abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_NE(host.log, nullptr);
    EXPECT_NE(host.config_int, nullptr);
    EXPECT_NE(host.config_bool, nullptr);
    EXPECT_NE(host.config_string, nullptr);
    EXPECT_NE(host.sys, nullptr);
    EXPECT_NE(host.parallel_run, nullptr);
    EXPECT_NE(host.parallel_width, nullptr);
    EXPECT_NE(host.core_limits, nullptr);
}

TEST_F(Loader, CoreLimitsAreTheCoresCurrentSettings)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load("", "execution: { parallel_io = false; max_request_parallelism = 3; "
                       "min_io_threshold_size_kb = 2048; };\n"
                       "properties: { force_odirect_mode = true; per_buffer_cache_size_kb = 512; "
                       "max_device_cache_size_kb = 4096; max_device_pinned_mem_size_kb = 8192; };"),
              0);
    const hf_backend *b = hf_backend_find("fixture-good");
    ASSERT_NE(b, nullptr);
    hf_core_limits limits;
    memset(&limits, 0xa5, sizeof(limits));
    b->host.core_limits(&b->host, &limits);
    EXPECT_EQ(limits.struct_size, sizeof(hf_core_limits));
    EXPECT_FALSE(limits.parallel_io);
    EXPECT_TRUE(limits.force_odirect_mode);
    EXPECT_EQ(limits.max_request_parallelism, 3u);
    EXPECT_EQ(limits.min_io_threshold_size_kb, 2048u);
    EXPECT_EQ(limits.per_buffer_cache_size_kb, 512u);
    EXPECT_EQ(limits.max_device_cache_size_kb, 4096u);
    EXPECT_EQ(limits.max_device_pinned_mem_size_kb, 8192u);
    // The values are read on each call: a config loaded later is what the next call reports.
    ASSERT_EQ(hf_fixture::load_config(
                  hf_fixture::config_for(dir_, "", "execution: { max_request_parallelism = 5; };")),
              0);
    b->host.core_limits(&b->host, &limits);
    EXPECT_EQ(limits.max_request_parallelism, 5u);
    EXPECT_TRUE(limits.parallel_io);
}

// What fixture-good's core_limits fills into a struct of @p struct_size bytes, 0xa5 before.
hf_core_limits GoodLimits(uint32_t struct_size = sizeof(hf_core_limits))
{
    hf_core_limits limits;
    memset(&limits, 0xa5, sizeof(limits));
    limits.struct_size = struct_size;
    const hf_backend *b = hf_backend_find("fixture-good");
    EXPECT_NE(b, nullptr);
    if (b != nullptr)
        b->host.core_limits(&b->host, &limits);
    return limits;
}

TEST_F(Loader, CoreLimitsHoldPinnedMemoryToAnEighthOfWhatTheProcessMayUse)
{
    // The largest setting there is: the process's memory bounds it on any machine of under 16 TiB.
    dir_.add("fixture-good");
    ASSERT_EQ(load("", "properties: { max_device_pinned_mem_size_kb = 2147483647; };"), 0);
    hf_core_limits limits = GoodLimits();
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    uint64_t gpus =
        rt != nullptr && rt->device_count > 0 ? static_cast<uint64_t>(rt->device_count) : 1;
    uint64_t share_kb = hf_memory_budget() / 8 / gpus / 1024;
    ASSERT_LT(share_kb, 2147483647u);
    EXPECT_EQ(limits.max_device_pinned_mem_size_kb, share_kb);
    // The cache limit, staging memory the user sized, is the user's alone.
    EXPECT_EQ(limits.max_device_cache_size_kb, 131072u);
}

TEST_F(Loader, CoreLimitsSayTheCpusTheProcessMayUseAndFillOnlyWhatTheBackendKnows)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load("", "execution: { max_request_parallelism = 3; };"), 0);
    hf_core_limits limits = GoodLimits();
    EXPECT_EQ(limits.struct_size, sizeof(limits));
    EXPECT_EQ(limits.cpu_budget, hf_cpu_budget());
    EXPECT_GE(limits.cpu_budget, 1u);
    // A backend built before minor 11 passes the struct without cpu_budget: bytes past it stay.
    limits = GoodLimits(offsetof(hf_core_limits, cpu_budget));
    EXPECT_EQ(limits.struct_size, offsetof(hf_core_limits, cpu_budget));
    EXPECT_EQ(limits.max_request_parallelism, 3u);
    EXPECT_EQ(limits.cpu_budget, 0xa5a5a5a5u) << "written past the backend's struct";
    // One that never set struct_size (cores before minor 11 did not read it) still gets minor 5's.
    limits = GoodLimits(0);
    EXPECT_EQ(limits.struct_size, offsetof(hf_core_limits, cpu_budget));
    EXPECT_EQ(limits.max_request_parallelism, 3u);
    EXPECT_EQ(limits.cpu_budget, 0xa5a5a5a5u);
}

TEST_F(Loader, EmptyDirectoryLoadsNothingAndSucceeds)
{
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(log_->lines_with({"warn:", dir_.path(), "no manifests"}).size(), 1u) << log_->text();
}

TEST_F(Loader, DirectoryWithoutUsablePluginsSaysSo)
{
    dir_.add("fixture-init-fails");
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(log_->lines_with({"warn:", "its manifest gave no usable backend, so every read and "
                                         "write will fail with hipFileIONotSupported"})
                  .size(),
              1u)
        << log_->text();
}

TEST_F(Loader, MissingDirectoryIsAnError)
{
    ASSERT_EQ(
        hf_fixture::load_config("plugins: { directory = \"" + dir_.path() + "/nowhere\"; };\n"), 0);
    log_ = std::make_unique<LogCapture>();
    EXPECT_EQ(hf_loader_load_all(), -ENOENT);
    EXPECT_EQ(hf_backend_count(), 0u);
    auto lines = log_->lines_with({"error:", dir_.path() + "/nowhere"});
    ASSERT_EQ(lines.size(), 1u) << log_->text();
    std::string where = std::string(hf_config_path()) + ":1";
    EXPECT_NE(lines[0].find("plugin directory " + dir_.path() +
                            "/nowhere (from plugins.directory at " + where +
                            "): No such file or directory; set plugins.directory at " + where +
                            " to the directory that holds the plugin manifests (*.xml)"),
              std::string::npos)
        << lines[0];
}

TEST_F(Loader, MissingDirectoryFromTheEnvironmentNamesTheVariable)
{
    ASSERT_EQ(hf_fixture::load_config(""), 0);
    setenv("HIPFILE_PLUGIN_DIR", (dir_.path() + "/nowhere").c_str(), 1);
    int rc = hf_config_load();
    unsetenv("HIPFILE_PLUGIN_DIR");
    ASSERT_EQ(rc, 0);
    log_ = std::make_unique<LogCapture>();
    EXPECT_EQ(hf_loader_load_all(), -ENOENT);
    EXPECT_EQ(log_->count("error: plugin directory " + dir_.path() +
                          "/nowhere (from HIPFILE_PLUGIN_DIR): No such file or directory; set "
                          "HIPFILE_PLUGIN_DIR to the directory that holds the plugin manifests "
                          "(*.xml)"),
              1u)
        << log_->text();
}

TEST_F(Loader, LibraryThatIsNotASharedObjectIsNamedOnce)
{
    hf_fixture::write_text(dir_.file("libhipfile-fixture-good.so"),
                           std::string(4096, 'x') + "not an ELF file");
    ASSERT_EQ(chmod(dir_.file("libhipfile-fixture-good.so").c_str(), 0644), 0);
    Manifest m;
    m.name = "fixture-good";
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    std::string line = skip_line("fixture-good");
    std::string library = real_dir() + "/libhipfile-fixture-good.so";
    size_t first = line.find(library);
    ASSERT_NE(first, std::string::npos) << line;
    EXPECT_EQ(line.find(library, first + 1), std::string::npos) << "the path twice: " << line;
    EXPECT_NE(line.find("cannot open " + library + ": invalid ELF header; skipped"),
              std::string::npos)
        << line;
}

// ---- what the configuration names that no plugin has: one warning each, with file and line ----

/** "<config file>:<line>", the file load() wrote. */
std::string ConfigLine(int line)
{
    return std::string(hf_config_path()) + ":" + std::to_string(line);
}

// config_for puts the plugins group on lines 1-4, so the groups given to load() start at line 5.
TEST_F(Loader, KeyThePluginNeverReadIsWarnedWithTheKeyItLookedFor)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load("", "fixture-good: {\n  anwser = 42;\n  verbose = true;\n};"), 0);
    EXPECT_EQ(log_->count("warn: " + ConfigLine(6) +
                          ": unknown key fixture-good.anwser ignored: plugin fixture-good does not "
                          "read it; did you mean fixture-good.answer?"),
              1u)
        << log_->text();
    EXPECT_EQ(log_->count("unknown key"), 1u) << "verbose was read: " << log_->text();
}

TEST_F(Loader, KeysOfAPluginThatNeverInitialisedAreNotJudged)
{
    dir_.add("fixture-good");
    dir_.add("fixture-init-fails");
    ASSERT_EQ(load("enable = [\"fixture-init-fails\"];",
                   "fixture-good: { anything = 1; };\nfixture-init-fails: { whatever = 2; };"),
              0);
    EXPECT_EQ(log_->count("unknown key"), 0u) << log_->text();
    EXPECT_EQ(log_->count("unknown group"), 0u) << log_->text();
}

TEST_F(Loader, GroupNoPluginHasIsWarnedWithTheClosestName)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load("",
                   "fixtrue-good: { answer = 1; };\npropertys: { allow_system_memory = true; };\n"
                   "fastpath: { unsupported_file_systems = true; };"),
              0);
    EXPECT_EQ(log_->count("warn: " + ConfigLine(5) +
                          ": unknown group fixtrue-good ignored: it is not a core group (log, gpu, "
                          "plugins, properties, execution, profile, fs) and no plugin in " +
                          dir_.path() +
                          " has that name (there: fixture-good); did you mean "
                          "fixture-good?"),
              1u)
        << log_->text();
    EXPECT_EQ(log_->lines_with({"warn: " + ConfigLine(6), "unknown group propertys ignored",
                                "did you mean properties?"})
                  .size(),
              1u)
        << log_->text();
    // The core's table has no plugin key (fastpath declares its own), so a fastpath group is
    // judged like any other: no manifest here has that name.
    EXPECT_EQ(log_->lines_with({"warn: " + ConfigLine(7), "unknown group fastpath ignored"}).size(),
              1u)
        << log_->text();
}

TEST_F(Loader, EnableNameWithoutAManifestIsWarnedAndTwoRunTogetherSayWhy)
{
    dir_.add("fixture-good");
    dir_.add("scripted-a");
    ASSERT_EQ(load("enable = [\"fixture-good\" \"scripted-a\", \"fixture-god\"];"), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    std::string head = "warn: " + ConfigLine(3) + ": plugins.enable names ";
    std::string there = "\", but no manifest in " + dir_.path() +
                        " has that name (there: fixture-good, scripted-a)";
    EXPECT_EQ(log_->count(head + "\"fixture-goodscripted-a" + there +
                          "; is a comma missing between \"fixture-good\" and \"scripted-a\"?"),
              1u)
        << log_->text();
    EXPECT_EQ(log_->count(head + "\"fixture-god" + there + "; did you mean \"fixture-good\"?"), 1u)
        << log_->text();
    EXPECT_EQ(log_->count("warn: plugin directory " + dir_.path() +
                          ": none of its 2 manifests gave a usable backend, so every read and "
                          "write will fail with hipFileIONotSupported; hipfile-check (or "
                          "HIPFILE_LOG_LEVEL=info) shows why each plugin was skipped and what to "
                          "do"),
              1u)
        << log_->text();
}

TEST_F(Loader, EnableNameFromTheEnvironmentNamesTheVariable)
{
    dir_.add("fixture-good");
    ASSERT_EQ(hf_fixture::load_config(hf_fixture::config_for(dir_)), 0);
    setenv("HIPFILE_PLUGINS", "fixture-goo", 1);
    int rc = hf_config_load();
    unsetenv("HIPFILE_PLUGINS");
    ASSERT_EQ(rc, 0);
    log_ = std::make_unique<LogCapture>();
    ASSERT_EQ(hf_loader_load_all(), 0);
    EXPECT_EQ(log_->count("warn: HIPFILE_PLUGINS names \"fixture-goo\", but no manifest in " +
                          dir_.path() +
                          " has that name (there: fixture-good); did you mean \"fixture-good\"?"),
              1u)
        << log_->text();
}

// ---- trust: nobody but this user or root may change what the loader runs ----

TEST_F(Loader, GroupWritableDirectoryIsRefusedSayingWhy)
{
    dir_.add("fixture-good");
    ASSERT_EQ(chmod(dir_.path().c_str(), 0775), 0);
    EXPECT_EQ(load(), -EPERM);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(
        log_->lines_with({"error:", real_dir(), "writable by its group", "chmod go-w"}).size(), 1u)
        << log_->text();
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
}

TEST_F(Loader, WorldWritableParentWithoutStickyBitIsRefused)
{
    std::string parent = dir_.file("open");
    std::string inner = parent + "/plugins";
    ASSERT_EQ(mkdir(parent.c_str(), 0755), 0);
    ASSERT_EQ(chmod(parent.c_str(), 0777), 0);
    ASSERT_EQ(mkdir(inner.c_str(), 0755), 0);
    ASSERT_EQ(hf_fixture::load_config("plugins: { directory = \"" + inner + "\"; };\n"), 0);
    log_ = std::make_unique<LogCapture>();
    EXPECT_EQ(hf_loader_load_all(), -EPERM);
    EXPECT_EQ(log_->lines_with({"error:", "writable by other users without the sticky bit"}).size(),
              1u)
        << log_->text();
    // With the sticky bit (as /tmp has) others cannot rename it away.
    hf_loader_reset();
    ASSERT_EQ(chmod(parent.c_str(), 01777), 0);
    EXPECT_EQ(hf_loader_load_all(), 0);
}

TEST_F(Loader, RelativeDirectoryIsNeverTakenFromTheCurrentDirectory)
{
    // A "plugins" directory with a usable plugin in the current directory...
    std::string cwd_plugins = dir_.file("plugins");
    ASSERT_EQ(mkdir(cwd_plugins.c_str(), 0755), 0);
    hf_fixture::copy_file(hf_fixture::built_library("fixture-good"),
                          cwd_plugins + "/libhipfile-fixture-good.so");
    Manifest m;
    m.name = "fixture-good";
    hf_fixture::write_text(cwd_plugins + "/fixture-good.xml", m.xml());
    char old_cwd[PATH_MAX];
    ASSERT_NE(getcwd(old_cwd, sizeof(old_cwd)), nullptr);
    ASSERT_EQ(chdir(dir_.path().c_str()), 0);
    // ...is not what a relative plugins.directory names: that resolves against the config file.
    int rc = hf_fixture::load_config("plugins: { directory = \"plugins\"; };\n");
    log_ = std::make_unique<LogCapture>();
    int loaded = hf_loader_load_all();
    ASSERT_EQ(chdir(old_cwd), 0);
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(loaded, -ENOENT);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_FALSE(is_mapped(cwd_plugins + "/libhipfile-fixture-good.so"));
}

TEST_F(Loader, WritableManifestIsSkippedSayingWhy)
{
    dir_.add("fixture-good");
    ASSERT_EQ(chmod(dir_.file("fixture-good.xml").c_str(), 0646), 0);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(log_->lines_with({"fixture-good.xml", "writable by other users", "skipped"}).size(),
              1u)
        << log_->text();
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
}

TEST_F(Loader, WritableLibraryIsNeverOpened)
{
    dir_.add("fixture-good");
    ASSERT_EQ(chmod(dir_.file("libhipfile-fixture-good.so").c_str(), 0664), 0);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(
        log_->lines_with({"plugin fixture-good", "writable by its group", "not opened"}).size(), 1u)
        << log_->text();
    EXPECT_FALSE(is_mapped(dir_.file("libhipfile-fixture-good.so")));
}

TEST_F(Loader, LibraryOwnedBySomeoneElseIsNeverOpened)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "giving a file to another user needs root";
    dir_.add("fixture-good");
    ASSERT_EQ(chown(dir_.file("libhipfile-fixture-good.so").c_str(), 4321, 4321), 0);
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(log_->lines_with({"plugin fixture-good", "owned by uid 4321", "not opened"}).size(),
              1u)
        << log_->text();
}

TEST_F(Loader, ConfiguredPriorityOverridesTheManifest)
{
    dir_.add("fixture-good", 5);
    dir_.add("scripted-a", 5);
    ASSERT_EQ(load("priority = { fixture-good = 50; };"), 0);
    const hf_backend *good = hf_backend_find("fixture-good");
    const hf_backend *other = hf_backend_find("scripted-a");
    ASSERT_NE(good, nullptr);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(good->priority, 50);
    EXPECT_EQ(good->manifest_priority, 5);
    EXPECT_EQ(other->priority, 5);
}

TEST_F(Loader, LoadRunsOnceUntilReset)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load(), 0);
    ASSERT_EQ(hf_loader_load_all(), 0);
    EXPECT_EQ(hf_backend_count(), 1u);
    EXPECT_EQ(log_->count("loaded from"), 1u);
    hf_loader_reset();
    EXPECT_EQ(hf_backend_count(), 0u);
    ASSERT_EQ(hf_loader_load_all(), 0);
    EXPECT_EQ(hf_backend_count(), 1u);
}

TEST_F(Loader, ResetFinishesEveryBackend)
{
    dir_.add("fixture-good");
    dir_.add("scripted-a");
    ASSERT_EQ(load(), 0);
    ASSERT_EQ(hf_backend_count(), 2u);
    hf_loader_reset();
    EXPECT_EQ(hf_backend_count(), 0u);
    EXPECT_EQ(hf_backend_find("fixture-good"), nullptr);
    EXPECT_EQ(log_->count("hipfile[fixture-good] info: fini"), 1u);
    EXPECT_EQ(log_->count("hipfile[scripted-a] info: fini"), 1u);
}

TEST_F(Loader, LookupsRejectWhatIsNotLoaded)
{
    dir_.add("fixture-good");
    ASSERT_EQ(load(), 0);
    EXPECT_EQ(hf_backend_at(1), nullptr);
    EXPECT_EQ(hf_backend_find("fixture-other"), nullptr);
    EXPECT_EQ(hf_backend_find(nullptr), nullptr);
    EXPECT_EQ(hf_backend_find("fixture-good"), hf_backend_at(0));
}

TEST_F(Loader, RetryableErrnosAreTheFixedPairPlusTheManifestList)
{
    dir_.add_library("fixture-good");
    Manifest m;
    m.name = "fixture-good";
    m.retry = {"EAGAIN", "ETIMEDOUT"};
    dir_.add_manifest(m);
    ASSERT_EQ(load(), 0);
    const hf_backend *b = hf_backend_find("fixture-good");
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(hf_backend_retryable(b, ENODEV));
    EXPECT_TRUE(hf_backend_retryable(b, EREMOTEIO));
    EXPECT_TRUE(hf_backend_retryable(b, EAGAIN));
    EXPECT_TRUE(hf_backend_retryable(b, ETIMEDOUT));
    EXPECT_FALSE(hf_backend_retryable(b, EIO));
    EXPECT_FALSE(hf_backend_retryable(b, EINVAL));
    EXPECT_TRUE(hf_backend_retryable(nullptr, ENODEV));
    EXPECT_FALSE(hf_backend_retryable(nullptr, EAGAIN));
}

TEST_F(Loader, DirectBackendIsReportedOnlyWhenOneDeclaresIt)
{
    dir_.add("scripted-a");
    ASSERT_EQ(load(), 0);
    EXPECT_FALSE(hf_loader_has_direct_backend());
    hf_loader_reset();
    int caps = HF_CAP_READ | HF_CAP_WRITE | HF_CAP_DEVICE_MEM | HF_CAP_DIRECT;
    ASSERT_EQ(load("", "scripted-a: { caps = " + std::to_string(caps) + "; };"), 0);
    EXPECT_TRUE(hf_loader_has_direct_backend());
}

TEST_F(Loader, StreamPrepareRunsOncePerDeviceAndAFailureIsNotRetried)
{
    dir_.add("scripted-a");
    dir_.add("fixture-good"); // built without stream_prepare: skipped
    ASSERT_EQ(load("", "scripted-a: { prepare_errno = " + std::to_string(EIO) + "; };"), 0);
    hf_backends_stream_prepare(-1);
    EXPECT_EQ(log_->count("hipfile[scripted-a] info: stream_prepare"), 0u) << "no GPU, nothing";
    hf_backends_stream_prepare(2);
    hf_backends_stream_prepare(2);
    EXPECT_EQ(log_->count("hipfile[scripted-a] info: stream_prepare 2"), 1u);
    EXPECT_EQ(log_->count("could not get ready for stream-ordered I/O on GPU 2"), 1u)
        << "a failure is warned once, not on every submission";
    hf_backends_stream_prepare(0);
    EXPECT_EQ(log_->count("hipfile[scripted-a] info: stream_prepare 0"), 1u);
}

TEST(Manifest, ErrnoNamesRoundTrip)
{
    for (const char *name : {"ENODEV", "EREMOTEIO", "EAGAIN", "EIO", "EXDEV", "EOPNOTSUPP"}) {
        int err = hf_manifest_errno_parse(name);
        ASSERT_GT(err, 0) << name;
        EXPECT_STREQ(hf_manifest_errno_name(err), name);
    }
    EXPECT_EQ(hf_manifest_errno_parse("ENOTSUP"), ENOTSUP);
    EXPECT_EQ(hf_manifest_errno_parse("EWHATEVER"), -1);
    EXPECT_EQ(hf_manifest_errno_parse(nullptr), -1);
    EXPECT_EQ(hf_manifest_errno_name(0), nullptr);
}

TEST(Manifest, MemoryAndFileKindNamesMatchTheSchema)
{
    EXPECT_STREQ(hf_manifest_mem_name(HF_MEM_DEVICE), "device");
    EXPECT_STREQ(hf_manifest_mem_name(HF_MEM_HOST_PINNED), "host-pinned");
    EXPECT_STREQ(hf_manifest_mem_name(HF_MEM_UNKNOWN), "host");
    EXPECT_STREQ(hf_manifest_mem_name(HF_MEM_MANAGED), "managed");
    EXPECT_STREQ(hf_manifest_mem_name(99), "unknown");
    EXPECT_STREQ(hf_manifest_file_kind_name(HF_FILE_REGULAR), "regular");
    EXPECT_STREQ(hf_manifest_file_kind_name(HF_FILE_BLOCK), "block");
    EXPECT_STREQ(hf_manifest_file_kind_name(0), "unknown");
}

TEST(Manifest, ReadLeavesOutputUntouchedOnFailure)
{
    struct hf_manifest m;
    memset(&m, 0x5a, sizeof(m));
    char why[HF_MANIFEST_WHY_SIZE] = "";
    EXPECT_EQ(
        hf_manifest_read(hf_fixture::source_manifest("bad-name.xml").c_str(), &m, why, sizeof(why)),
        -EINVAL);
    EXPECT_EQ((unsigned char)m.name[0], 0x5a);
    EXPECT_NE(std::string(why).find("Fixture_Good"), std::string::npos) << why;
}

TEST(Manifest, MissingFileIsENOENT)
{
    struct hf_manifest m;
    char why[HF_MANIFEST_WHY_SIZE] = "";
    std::string path = std::string(hf_test_tmpdir()) + "/no-such-manifest.xml";
    EXPECT_EQ(hf_manifest_read(path.c_str(), &m, why, sizeof(why)), -ENOENT);
    EXPECT_NE(std::string(why).find("cannot open"), std::string::npos) << why;
}

TEST(Manifest, InTreeBackendManifestsAreValid)
{
    // The manifests shipped with the project must pass the schema compiled into the core.
    for (const char *name : {"fallback", "fastpath", "nvme-passthru"}) {
        std::string path =
            std::string(HF_TEST_SOURCE_DIR) + "/../plugins/" + name + "/" + name + ".xml";
        if (access(path.c_str(), R_OK) != 0)
            continue;
        struct hf_manifest m;
        char why[HF_MANIFEST_WHY_SIZE] = "";
        EXPECT_EQ(hf_manifest_read(path.c_str(), &m, why, sizeof(why)), 0) << path << ": " << why;
    }
}

} // namespace
