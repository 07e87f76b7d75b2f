// The selector over scripted fixture backends: who is a candidate, in which order they serve, and
// when a request moves on to the next one. Each scripted backend reads its behaviour from its own
// config group on every call and logs every read and write under its own tag.
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "plugin_fixture.h"

extern "C" {
#include "host/backend_call.h"
#include "host/loader.h"
#include "host/selector.h"
}

using hf_fixture::LogCapture;
using hf_fixture::Manifest;
using hf_fixture::PluginDir;

namespace
{

constexpr size_t kFileSize = 64 * 1024;
constexpr uint32_t kSeed = 7;
constexpr int kCompat =
    HF_CAP_READ | HF_CAP_WRITE | HF_CAP_HOST_MEM | HF_CAP_DEVICE_MEM | HF_CAP_COMPAT;

Manifest backend(const std::string &name, int priority = 0)
{
    Manifest m;
    m.name = name;
    m.priority = priority;
    return m;
}

std::string group(const std::string &name, const std::string &body)
{
    return name + ": { " + body + " };\n";
}

using Names = std::vector<std::string>;

class Selector : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        hf_loader_reset();
        data_path_ = dir_.file("data.bin");
        ASSERT_EQ(hf_test_pattern_file(data_path_.c_str(), kFileSize, kSeed), 0);
        fd_ = open(data_path_.c_str(), O_RDWR | O_CLOEXEC);
        ASSERT_GE(fd_, 0);
        file_ = hf_file_info{};
        file_.struct_size = sizeof(file_);
        file_.fd = fd_;
        file_.direct_fd = -1;
        file_.kind = HF_FILE_REGULAR;
        buffer_.assign(kFileSize, 0);
        buf_ = hf_buf_info{};
        buf_.struct_size = sizeof(buf_);
        buf_.mem_type = HF_MEM_UNKNOWN;
        buf_.base = buffer_.data();
        buf_.length = buffer_.size();
        buf_.device = -1;
        buf_.host_accessible = true;
    }

    void TearDown() override
    {
        hf_loader_reset();
        if (fd_ >= 0)
            close(fd_);
        log_.reset();
    }

    /** Install @p manifests with their libraries, load @p groups as config, load the plugins. */
    void load(const std::vector<Manifest> &manifests, const std::string &groups = "",
              const std::string &plugins_extra = "")
    {
        for (const auto &m : manifests) {
            dir_.add_library(m.name);
            dir_.add_manifest(m);
        }
        ASSERT_EQ(hf_fixture::load_config(hf_fixture::config_for(dir_, plugins_extra, groups)), 0);
        log_ = std::make_unique<LogCapture>();
        ASSERT_EQ(hf_loader_load_all(), 0);
        ASSERT_EQ(hf_backend_count(), manifests.size()) << log_->text();
    }

    /** New behaviour for the loaded backends: they read their group on every call. */
    void reconfigure(const std::string &groups, const std::string &plugins_extra = "")
    {
        ASSERT_EQ(hf_fixture::load_config(hf_fixture::config_for(dir_, plugins_extra, groups)), 0);
        log_->reattach();
    }

    hf_io_request request(int op, size_t size = 4096, int64_t file_offset = 0)
    {
        hf_io_request req{};
        req.struct_size = sizeof(req);
        req.op = op;
        req.file = &file_;
        req.buf = &buf_;
        req.size = size;
        req.file_offset = file_offset;
        req.gpu_error_p = &gpu_error_;
        return req;
    }

    ssize_t submit(hf_io_request &req, const bool *declined = nullptr)
    {
        return hf_selector_submit(&req, nullptr, nullptr, declined, nullptr);
    }

    /** Candidates for @p req in serving order. */
    Names ranking(const hf_io_request &req, const bool *declined = nullptr)
    {
        hf_candidate out[HF_MAX_BACKENDS];
        size_t n = hf_selector_rank(&req, nullptr, nullptr, declined, out, HF_MAX_BACKENDS);
        Names names;
        for (size_t i = 0; i < n && out[i].score >= 0; i++)
            names.push_back(out[i].backend->name);
        return names;
    }

    /** The verdict for backend @p name. */
    hf_candidate verdict(const hf_io_request &req, const std::string &name,
                         const bool *declined = nullptr)
    {
        hf_candidate out[HF_MAX_BACKENDS];
        size_t n = hf_selector_rank(&req, nullptr, nullptr, declined, out, HF_MAX_BACKENDS);
        for (size_t i = 0; i < n; i++) {
            if (name == out[i].backend->name)
                return out[i];
        }
        ADD_FAILURE() << name << " not ranked";
        return hf_candidate{};
    }

    /** How many times backend @p name was asked to move data. */
    size_t calls(const std::string &name, const char *op = "read")
    {
        return log_->count("hipfile[" + name + "] info: " + op + " ");
    }

    unsigned index_of(const std::string &name)
    {
        const hf_backend *b = hf_backend_find(name.c_str());
        EXPECT_NE(b, nullptr) << name;
        return b != nullptr ? b->index : 0;
    }

    PluginDir dir_;
    std::string data_path_;
    int fd_ = -1;
    hf_file_info file_{};
    std::vector<unsigned char> buffer_;
    hf_buf_info buf_{};
    int gpu_error_ = 0;
    std::unique_ptr<LogCapture> log_;
};

// ---- ordering ----

TEST_F(Selector, HighestScoreServes)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 5;") + group("scripted-b", "score = 20;"));
    auto req = request(HF_IO_READ, 4096, 8192);
    EXPECT_EQ(ranking(req), (Names{"scripted-b", "scripted-a"}));
    ASSERT_EQ(submit(req), 4096);
    EXPECT_EQ(calls("scripted-b"), 1u);
    EXPECT_EQ(calls("scripted-a"), 0u);
    EXPECT_EQ(hf_test_pattern_check(buffer_.data(), 4096, 8192, kSeed), -1);
}

TEST_F(Selector, EqualScoresGoToTheConfiguredPriority)
{
    load({backend("scripted-a", 9), backend("scripted-b", 1)}, "",
         "priority = { scripted-a = 1; scripted-b = 10; };");
    EXPECT_EQ(ranking(request(HF_IO_READ)), (Names{"scripted-b", "scripted-a"}));
}

TEST_F(Selector, EqualEffectivePrioritiesGoToTheManifestPriority)
{
    load({backend("scripted-a", 1), backend("scripted-b", 7)}, "",
         "priority = { scripted-a = 3; scripted-b = 3; };");
    EXPECT_EQ(ranking(request(HF_IO_READ)), (Names{"scripted-b", "scripted-a"}));
}

TEST_F(Selector, FullTieGoesToTheName)
{
    load({backend("scripted-c"), backend("scripted-a"), backend("scripted-b")});
    EXPECT_EQ(ranking(request(HF_IO_READ)), (Names{"scripted-a", "scripted-b", "scripted-c"}));
}

TEST_F(Selector, ScoreOutranksPriority)
{
    load({backend("scripted-a", 1000), backend("scripted-b", -1000)},
         group("scripted-a", "score = 1;") + group("scripted-b", "score = 2;"));
    EXPECT_EQ(ranking(request(HF_IO_READ)), (Names{"scripted-b", "scripted-a"}));
}

TEST_F(Selector, ScoresAreAskedPerRequest)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 5;") + group("scripted-b", "score = 1;"));
    EXPECT_EQ(ranking(request(HF_IO_READ))[0], "scripted-a");
    reconfigure(group("scripted-a", "score = 5;") + group("scripted-b", "score = 6;"));
    EXPECT_EQ(ranking(request(HF_IO_READ))[0], "scripted-b");
}

TEST_F(Selector, NegativeScoreRefusesWithTheBackendsReason)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 50; reason = \"a fine fit\";") +
             group("scripted-b", "score = -1; reason = \"not my kind of file\";"));
    auto req = request(HF_IO_READ);
    EXPECT_EQ(ranking(req), Names{"scripted-a"});
    hf_candidate refused = verdict(req, "scripted-b");
    EXPECT_LT(refused.score, 0);
    EXPECT_STREQ(refused.reason, "not my kind of file");
    hf_candidate chosen = verdict(req, "scripted-a");
    EXPECT_EQ(chosen.score, 50);
    EXPECT_STREQ(chosen.reason, "a fine fit");
}

TEST_F(Selector, RankPutsRefusedBackendsAfterCandidatesAndHonoursMax)
{
    load({backend("scripted-a"), backend("scripted-b"), backend("scripted-c")},
         group("scripted-a", "score = -5;") + group("scripted-b", "score = 1;") +
             group("scripted-c", "score = 2;"));
    auto req = request(HF_IO_READ);
    hf_candidate out[HF_MAX_BACKENDS];
    ASSERT_EQ(hf_selector_rank(&req, nullptr, nullptr, nullptr, out, HF_MAX_BACKENDS), 3u);
    EXPECT_STREQ(out[0].backend->name, "scripted-c");
    EXPECT_STREQ(out[1].backend->name, "scripted-b");
    EXPECT_STREQ(out[2].backend->name, "scripted-a");
    EXPECT_LT(out[2].score, 0);
    ASSERT_EQ(hf_selector_rank(&req, nullptr, nullptr, nullptr, out, 1), 1u);
    EXPECT_STREQ(out[0].backend->name, "scripted-c");
}

TEST_F(Selector, OneDebugLinePerCandidate)
{
    load({backend("scripted-a"), backend("scripted-b"), backend("scripted-c")},
         group("scripted-b", "score = -1; reason = \"no\";"));
    auto req = request(HF_IO_READ);
    ASSERT_EQ(submit(req), 4096);
    EXPECT_EQ(log_->lines_with({"debug:", "select read", "scripted-a", "offers"}).size(), 1u);
    EXPECT_EQ(log_->lines_with({"debug:", "select read", "scripted-b", "refuses", "(no)"}).size(),
              1u);
    EXPECT_EQ(log_->lines_with({"debug:", "select read", "scripted-c", "offers"}).size(), 1u);
}

// ---- filtering ----

TEST_F(Selector, DeclinedBackendIsNotAsked)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 50;") + group("scripted-b", "score = 1;"));
    bool declined[HF_MAX_BACKENDS] = {};
    declined[index_of("scripted-a")] = true;
    auto req = request(HF_IO_READ);
    EXPECT_EQ(ranking(req, declined), Names{"scripted-b"});
    EXPECT_STREQ(verdict(req, "scripted-a", declined).reason,
                 "declined the file or buffer at registration");
    ASSERT_EQ(submit(req, declined), 4096);
    EXPECT_EQ(calls("scripted-a"), 0u);
    EXPECT_EQ(calls("scripted-b"), 1u);
}

TEST_F(Selector, BackendWithoutTheCapabilityForTheOpIsNotAsked)
{
    int read_only = HF_CAP_READ | HF_CAP_HOST_MEM;
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 50; caps = " + std::to_string(read_only) + ";") +
             group("scripted-b", "score = 1;"));
    auto write = request(HF_IO_WRITE);
    EXPECT_EQ(ranking(write), Names{"scripted-b"});
    EXPECT_STREQ(verdict(write, "scripted-a").reason, "does not serve writes");
    EXPECT_EQ(ranking(request(HF_IO_READ))[0], "scripted-a");
}

TEST_F(Selector, ManifestMemoryRequirementFilters)
{
    Manifest device_only = backend("scripted-a");
    device_only.memory = {"device"};
    load({device_only, backend("scripted-b")},
         group("scripted-a", "score = 50;") + group("scripted-b", "score = 1;"));
    auto req = request(HF_IO_READ);
    EXPECT_EQ(ranking(req), Names{"scripted-b"});
    EXPECT_STREQ(verdict(req, "scripted-a").reason,
                 "manifest does not accept pageable host memory");
    buf_.mem_type = HF_MEM_DEVICE;
    EXPECT_EQ(ranking(req), (Names{"scripted-a", "scripted-b"}));
    buf_.mem_type = HF_MEM_HOST_PINNED;
    EXPECT_STREQ(verdict(req, "scripted-a").reason, "manifest does not accept pinned host memory");
    buf_.mem_type = HF_MEM_MANAGED;
    EXPECT_STREQ(verdict(req, "scripted-a").reason, "manifest does not accept managed memory");
}

TEST_F(Selector, ArrayMemoryHasNoCandidate)
{
    load({backend("scripted-a")});
    buf_.mem_type = HF_MEM_ARRAY;
    auto req = request(HF_IO_READ);
    EXPECT_TRUE(ranking(req).empty());
    EXPECT_EQ(submit(req), -HF_ENOBACKEND);
    EXPECT_EQ(calls("scripted-a"), 0u);
}

TEST_F(Selector, ManifestFileKindRequirementFilters)
{
    Manifest regular_only = backend("scripted-a");
    regular_only.files = {"regular"};
    load({regular_only, backend("scripted-b")},
         group("scripted-a", "score = 50;") + group("scripted-b", "score = 1;"));
    auto req = request(HF_IO_READ);
    EXPECT_EQ(ranking(req)[0], "scripted-a");
    file_.kind = HF_FILE_BLOCK;
    EXPECT_EQ(ranking(req), Names{"scripted-b"});
    EXPECT_STREQ(verdict(req, "scripted-a").reason, "manifest does not accept block devices");
    // The refusal names the kind, and comes before a decline: such a backend was never offered
    // the file, so "declined at registration" would mislead.
    file_.kind = HF_FILE_USERSPACE_FS;
    bool declined[HF_MAX_BACKENDS] = {};
    declined[index_of("scripted-a")] = true;
    EXPECT_STREQ(verdict(req, "scripted-a", declined).reason,
                 "manifest does not accept userspace-fs files");
}

TEST_F(Selector, CompatForceKeepsOnlyCompatBackends)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 50;") +
             group("scripted-b", "score = 1; caps = " + std::to_string(kCompat) + ";") +
             "properties: { compat_mode = \"force\"; };");
    auto req = request(HF_IO_READ);
    EXPECT_EQ(ranking(req), Names{"scripted-b"});
    EXPECT_STREQ(verdict(req, "scripted-a").reason,
                 "compat mode is force and this is not a compat backend");
}

TEST_F(Selector, CompatOffDropsCompatBackends)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 1;") +
             group("scripted-b", "score = 50; caps = " + std::to_string(kCompat) + ";") +
             "properties: { compat_mode = \"off\"; };");
    auto req = request(HF_IO_READ);
    EXPECT_EQ(ranking(req), Names{"scripted-a"});
    EXPECT_STREQ(verdict(req, "scripted-b").reason,
                 "compat mode is off and this is a compat backend");
}

TEST_F(Selector, CompatAllowKeepsEveryBackend)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 1;") +
             group("scripted-b", "score = 50; caps = " + std::to_string(kCompat) + ";") +
             "properties: { compat_mode = \"allow\"; };");
    EXPECT_EQ(ranking(request(HF_IO_READ)), (Names{"scripted-b", "scripted-a"}));
}

// ---- no candidate ----

TEST_F(Selector, NoCandidateIsENOBACKENDWithOneErrorLine)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = -1;") + group("scripted-b", "score = -2;"));
    auto req = request(HF_IO_READ);
    EXPECT_EQ(submit(req), -HF_ENOBACKEND);
    EXPECT_EQ(calls("scripted-a") + calls("scripted-b"), 0u);
    EXPECT_EQ(log_->lines_with({"error:", "no backend can serve a read of 4096 bytes"}).size(), 1u)
        << log_->text();
    EXPECT_EQ(log_->lines_with({"error:", "): all 2 loaded refused; hipfile-check --explain FILE "
                                          "shows each one's reason"})
                  .size(),
              1u)
        << log_->text();
}

TEST_F(Selector, NoBackendLoadedIsENOBACKENDAndSaysWhereToLook)
{
    load({});
    auto req = request(HF_IO_WRITE);
    EXPECT_EQ(submit(req), -HF_ENOBACKEND);
    EXPECT_EQ(
        log_->count("error: no backend can serve a write of 4096 bytes: no backend is loaded; "
                    "run hipfile-check to see why each plugin was skipped and what to do"),
        1u)
        << log_->text();
}

TEST_F(Selector, RequestWithoutFileOrBufferIsEINVAL)
{
    load({backend("scripted-a")});
    auto req = request(HF_IO_READ);
    req.file = nullptr;
    EXPECT_EQ(submit(req), -EINVAL);
    req = request(HF_IO_READ);
    req.buf = nullptr;
    EXPECT_EQ(submit(req), -EINVAL);
    req = request(HF_IO_READ);
    req.op = 7;
    EXPECT_EQ(submit(req), -EINVAL);
    hf_candidate out[1];
    EXPECT_EQ(hf_selector_rank(nullptr, nullptr, nullptr, nullptr, out, 1), 0u);
    EXPECT_EQ(calls("scripted-a"), 0u);
}

// ---- fallback chain ----

class SelectorFallback : public Selector
{
  protected:
    void load_pair(const std::string &a_body, const std::string &extra = "",
                   const std::vector<std::string> &a_retry = {})
    {
        Manifest a = backend("scripted-a");
        a.retry = a_retry;
        load({a, backend("scripted-b")}, group("scripted-a", "score = 20; " + a_body) +
                                             group("scripted-b", "score = 10;") + extra);
    }
};

TEST_F(SelectorFallback, ENODEVWithNothingMovedGoesToTheNextCandidate)
{
    load_pair("read_errno = " + std::to_string(ENODEV) + ";");
    uint64_t before = hf_selector_fallback_count();
    auto req = request(HF_IO_READ, 8192, 4096);
    ASSERT_EQ(submit(req), 8192);
    EXPECT_EQ(hf_selector_fallback_count(), before + 1);
    EXPECT_EQ(calls("scripted-a"), 1u);
    EXPECT_EQ(calls("scripted-b"), 1u);
    EXPECT_EQ(hf_test_pattern_check(buffer_.data(), 8192, 4096, kSeed), -1);
    EXPECT_EQ(
        log_->lines_with({"debug:", "scripted-a", "ENODEV", "falling back to scripted-b"}).size(),
        1u)
        << log_->text();
}

TEST_F(SelectorFallback, EREMOTEIOGoesToTheNextCandidate)
{
    load_pair("write_errno = " + std::to_string(EREMOTEIO) + ";");
    uint64_t before = hf_selector_fallback_count();
    std::vector<unsigned char> data(4096);
    hf_test_pattern_fill(data.data(), data.size(), 0, 99);
    memcpy(buffer_.data(), data.data(), data.size());
    auto req = request(HF_IO_WRITE, 4096, 0);
    ASSERT_EQ(submit(req), 4096);
    EXPECT_EQ(hf_selector_fallback_count(), before + 1);
    EXPECT_EQ(calls("scripted-b", "write"), 1u);
    std::vector<unsigned char> back(4096);
    ASSERT_EQ(pread(fd_, back.data(), back.size(), 0), 4096);
    EXPECT_EQ(back, data);
}

TEST_F(SelectorFallback, ManifestRetryErrnoGoesToTheNextCandidate)
{
    load_pair("read_errno = " + std::to_string(EAGAIN) + ";", "", {"EAGAIN"});
    uint64_t before = hf_selector_fallback_count();
    auto req = request(HF_IO_READ);
    ASSERT_EQ(submit(req), 4096);
    EXPECT_EQ(hf_selector_fallback_count(), before + 1);
    EXPECT_EQ(calls("scripted-b"), 1u);
}

TEST_F(SelectorFallback, RetryErrnoOfAnotherManifestDoesNotCount)
{
    // EAGAIN is retryable for scripted-b's manifest only; scripted-a's error is final.
    Manifest a = backend("scripted-a");
    Manifest b = backend("scripted-b");
    b.retry = {"EAGAIN"};
    load({a, b}, group("scripted-a", "score = 20; read_errno = " + std::to_string(EAGAIN) + ";") +
                     group("scripted-b", "score = 10;"));
    auto req = request(HF_IO_READ);
    EXPECT_EQ(submit(req), -EAGAIN);
    EXPECT_EQ(calls("scripted-b"), 0u);
}

TEST_F(SelectorFallback, NonRetryableErrnoIsFinal)
{
    load_pair("read_errno = " + std::to_string(EIO) + ";");
    uint64_t before = hf_selector_fallback_count();
    auto req = request(HF_IO_READ);
    EXPECT_EQ(submit(req), -EIO);
    EXPECT_EQ(hf_selector_fallback_count(), before);
    EXPECT_EQ(calls("scripted-a"), 1u);
    EXPECT_EQ(calls("scripted-b"), 0u);
}

TEST_F(SelectorFallback, ShortCountIsFinal)
{
    // Bytes moved mean the request was served, if only in part: no second backend repeats it.
    load_pair("claim = 100;");
    uint64_t before = hf_selector_fallback_count();
    auto req = request(HF_IO_READ, 4096, 0);
    EXPECT_EQ(submit(req), 100);
    EXPECT_EQ(hf_selector_fallback_count(), before);
    EXPECT_EQ(calls("scripted-b"), 0u);
    EXPECT_EQ(hf_test_pattern_check(buffer_.data(), 100, 0, kSeed), -1);
}

TEST_F(SelectorFallback, CompatOffMeansNoFallback)
{
    load_pair("read_errno = " + std::to_string(ENODEV) + ";",
              "properties: { compat_mode = \"off\"; };");
    uint64_t before = hf_selector_fallback_count();
    auto req = request(HF_IO_READ);
    EXPECT_EQ(submit(req), -ENODEV);
    EXPECT_EQ(hf_selector_fallback_count(), before);
    EXPECT_EQ(calls("scripted-b"), 0u);
    EXPECT_EQ(log_->lines_with({"debug:", "scripted-a", "compat mode is off"}).size(), 1u);
}

TEST_F(SelectorFallback, ChainRunsToTheEndAndReturnsTheLastErrno)
{
    load({backend("scripted-a"), backend("scripted-b"), backend("scripted-c")},
         group("scripted-a", "score = 30; read_errno = " + std::to_string(ENODEV) + ";") +
             group("scripted-b", "score = 20; read_errno = " + std::to_string(ENODEV) + ";") +
             group("scripted-c", "score = 10; read_errno = " + std::to_string(EREMOTEIO) + ";"));
    uint64_t before = hf_selector_fallback_count();
    auto req = request(HF_IO_READ);
    EXPECT_EQ(submit(req), -EREMOTEIO);
    EXPECT_EQ(hf_selector_fallback_count(), before + 2);
    EXPECT_EQ(calls("scripted-a") + calls("scripted-b") + calls("scripted-c"), 3u);
    EXPECT_EQ(log_->lines_with({"debug:", "scripted-c", "no other candidate"}).size(), 1u);
}

TEST_F(SelectorFallback, RefusedBackendsAreNotPartOfTheChain)
{
    load({backend("scripted-a"), backend("scripted-b"), backend("scripted-c")},
         group("scripted-a", "score = 30; read_errno = " + std::to_string(ENODEV) + ";") +
             group("scripted-b", "score = -1;") + group("scripted-c", "score = 10;"));
    auto req = request(HF_IO_READ);
    ASSERT_EQ(submit(req), 4096);
    EXPECT_EQ(calls("scripted-b"), 0u);
    EXPECT_EQ(calls("scripted-c"), 1u);
}

TEST_F(SelectorFallback, BackendClaimingMoreThanAskedIsEIO)
{
    load_pair("claim = 999999;");
    auto req = request(HF_IO_READ, 4096);
    EXPECT_EQ(submit(req), -EIO);
    EXPECT_EQ(calls("scripted-b"), 0u);
    EXPECT_EQ(log_->lines_with({"error:", "scripted-a claims 999999 bytes"}).size(), 1u);
}

TEST_F(SelectorFallback, ChainGoesOnFromTheNextCandidateAfterAGroupedRetryableError)
{
    // What a batch does: one submit_many to the first choice (scripted-a has none of its own, so
    // the core's default serves the requests one by one), then the chain from the next candidate.
    load_pair("read_errno = " + std::to_string(ENODEV) + ";");
    auto first = request(HF_IO_READ, 4096, 0);
    auto second = request(HF_IO_READ, 4096, 4096);
    hf_chain chains[2];
    ASSERT_EQ(hf_selector_chain(&first, nullptr, nullptr, nullptr, &chains[0]), 2u);
    ASSERT_EQ(hf_selector_chain(&second, nullptr, nullptr, nullptr, &chains[1]), 2u);
    const hf_backend *a = chains[0].at[0].backend;
    ASSERT_STREQ(a->name, "scripted-a");
    const hf_io_request *reqs[] = {&first, &second};
    ssize_t rcs[2];
    hf_call_submit_many(a, reqs, 2, rcs);
    EXPECT_EQ(calls("scripted-a"), 2u);
    uint64_t before = hf_selector_fallback_count();
    hf_io_request *mine[] = {&first, &second};
    for (int i = 0; i < 2; i++) {
        ssize_t rc = rcs[i];
        ASSERT_TRUE(hf_selector_next(&chains[i], 0, mine[i], &rc)) << i;
        hf_backend *served = nullptr;
        EXPECT_EQ(hf_selector_serve(&chains[i], 1, mine[i], nullptr, nullptr, &served), 4096);
        ASSERT_NE(served, nullptr);
        EXPECT_STREQ(served->name, "scripted-b");
    }
    EXPECT_EQ(hf_selector_fallback_count(), before + 2);
    EXPECT_EQ(calls("scripted-a"), 2u) << "the backend that failed is not asked again";
    EXPECT_EQ(calls("scripted-b"), 2u);
}

TEST_F(SelectorFallback, NextStepTurnsAnOverCountIntoEIOAndEndsTheChain)
{
    load_pair("");
    auto req = request(HF_IO_READ, 4096);
    hf_chain chain;
    ASSERT_EQ(hf_selector_chain(&req, nullptr, nullptr, nullptr, &chain), 2u);
    ssize_t rc = 8192;
    EXPECT_FALSE(hf_selector_next(&chain, 0, &req, &rc));
    EXPECT_EQ(rc, -EIO);
    EXPECT_EQ(log_->lines_with({"error:", "scripted-a claims 8192 bytes"}).size(), 1u);
    rc = 100;
    EXPECT_FALSE(hf_selector_next(&chain, 0, &req, &rc)) << "a short count is final";
    EXPECT_EQ(rc, 100);
    rc = -EIO;
    EXPECT_FALSE(hf_selector_next(&chain, 0, &req, &rc)) << "EIO is not retryable";
    rc = -ENODEV;
    EXPECT_FALSE(hf_selector_next(&chain, 1, &req, &rc)) << "no candidate after the last";
}

// ---- contexts ----

TEST_F(Selector, EachBackendSeesItsOwnContextsAndTheRequestIsRestored)
{
    load({backend("scripted-a"), backend("scripted-b")},
         group("scripted-a", "score = 20; read_errno = " + std::to_string(ENODEV) + ";") +
             group("scripted-b", "score = 10;"));
    int marks[4];
    void *file_ctx[HF_MAX_BACKENDS] = {};
    void *buf_ctx[HF_MAX_BACKENDS] = {};
    file_ctx[index_of("scripted-a")] = &marks[0];
    buf_ctx[index_of("scripted-a")] = &marks[1];
    file_ctx[index_of("scripted-b")] = &marks[2];
    buf_ctx[index_of("scripted-b")] = &marks[3];
    auto req = request(HF_IO_READ);
    int caller_mark;
    req.file_ctx = &caller_mark;
    req.buf_ctx = &caller_mark;
    ASSERT_EQ(hf_selector_submit(&req, file_ctx, buf_ctx, nullptr, nullptr), 4096);
    char expect_a[128], expect_b[128];
    snprintf(expect_a, sizeof(expect_a), "(file_ctx %p, buf_ctx %p)", (void *)&marks[0],
             (void *)&marks[1]);
    snprintf(expect_b, sizeof(expect_b), "(file_ctx %p, buf_ctx %p)", (void *)&marks[2],
             (void *)&marks[3]);
    EXPECT_EQ(log_->lines_with({"hipfile[scripted-a] info: read", expect_a}).size(), 1u)
        << log_->text();
    EXPECT_EQ(log_->lines_with({"hipfile[scripted-b] info: read", expect_b}).size(), 1u)
        << log_->text();
    EXPECT_EQ(req.file_ctx, &caller_mark);
    EXPECT_EQ(req.buf_ctx, &caller_mark);
}

} // namespace
