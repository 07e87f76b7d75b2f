// The fastpath plugin driven through its ABI alone, on the fallback tests' fake host (plain memory,
// fault-injecting system calls, a real executor in miniature). The GPU table adds what fastpath
// asks of it: device attributes set per test, and hipGetProcAddress answered by the fake AIS
// runtime (tests/fixtures/fake_ais), so the AIS engine runs exactly as it would on ROCm.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "fake_ais.h"
#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

// Attribute answers of the fake GPUs, by enum hf_gpu_attr; index 0 unused.
int g_attributes[5];
int g_attribute_error;
fake_ais_control *g_ais;
int (*g_ais_proc)(const char *, void **, int, uint64_t, int *);

int FakeDeviceAttribute(int device, int attr, int *value_p)
{
    if (device < 0 || device >= g_fake->device_count || attr < 1 || attr > 4)
        return 1;
    if (g_attribute_error != 0)
        return g_attribute_error;
    *value_p = g_attributes[attr];
    return 0;
}

int FakeGetProcAddress(const char *symbol, void **fn_p)
{
    int status = 0;
    return g_ais_proc(symbol, fn_p, 70051831, 0, &status);
}

// Every read-side system call the plugins make: which descriptor, where, how much, with which
// preadv2 flags, and what it returned. The fake table underneath moves the bytes and injects the
// faults.
struct SysCall {
    enum Kind { kPread, kPreadv2 } kind;
    int fd;
    int64_t offset;
    size_t size;
    int flags;
    ssize_t result;
};
std::mutex g_calls_mu;
std::vector<SysCall> g_calls;
hf_sys_ops g_fake_sys;
int g_fstat_errno;

// The file ranges [begin, end) the page cache holds, when a test models it (g_cache_modelled):
// an RWF_NOWAIT read then copies the leading part of its range that lies in them and answers
// EAGAIN when there is none, as the kernel does. Unmodelled, the kernel itself answers.
bool g_cache_modelled;
std::vector<std::pair<int64_t, int64_t>> g_cached;

size_t CachedLead(int64_t offset, size_t len)
{
    int64_t at = offset;
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto &range : g_cached)
            if (range.first <= at && at < range.second) {
                at = range.second;
                grew = true;
            }
    }
    return std::min(len, static_cast<size_t>(at - offset));
}

void Record(const SysCall &call)
{
    std::lock_guard<std::mutex> lock(g_calls_mu);
    g_calls.push_back(call);
}

ssize_t RecordingPread(int fd, void *buf, size_t count, off_t offset)
{
    ssize_t result = g_fake_sys.pread(fd, buf, count, offset);
    Record({SysCall::kPread, fd, offset, count, 0, result});
    return result;
}

ssize_t RecordingPreadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
    size_t size = iovcnt == 1 ? iov[0].iov_len : 0;
    ssize_t result;
    if (g_cache_modelled && (flags & RWF_NOWAIT) != 0 && iovcnt == 1) {
        // The model decides what is cached: its bytes are read whatever the kernel's page cache
        // holds, which a benchmark running beside the suite empties at any time.
        struct iovec lead = {iov[0].iov_base, CachedLead(offset, size)};
        result =
            lead.iov_len == 0 ? -1 : g_fake_sys.preadv2(fd, &lead, 1, offset, flags & ~RWF_NOWAIT);
        if (lead.iov_len == 0)
            errno = EAGAIN;
    } else {
        result = g_fake_sys.preadv2(fd, iov, iovcnt, offset, flags);
    }
    int saved = errno;
    Record({SysCall::kPreadv2, fd, offset, size, flags, result});
    errno = saved;
    return result;
}

int FailingFstat(int fd, struct stat *st)
{
    if (g_fstat_errno != 0) {
        errno = g_fstat_errno;
        return -1;
    }
    return g_fake_sys.fstat(fd, st);
}

// The bytes RWF_NOWAIT reads copied out of the page cache.
uint64_t CachedBytesCopied()
{
    std::lock_guard<std::mutex> lock(g_calls_mu);
    uint64_t total = 0;
    for (const SysCall &c : g_calls)
        if (c.kind == SysCall::kPreadv2 && c.result > 0)
            total += static_cast<uint64_t>(c.result);
    return total;
}

// The calls in file order.
std::vector<SysCall> Calls()
{
    std::lock_guard<std::mutex> lock(g_calls_mu);
    std::vector<SysCall> calls = g_calls;
    std::sort(calls.begin(), calls.end(),
              [](const SysCall &a, const SysCall &b) { return a.offset < b.offset; });
    return calls;
}

void *FakeAisLibrary()
{
    static void *handle = dlopen(HF_TEST_FIXTURE_DIR "/libfake-ais.so", RTLD_NOW | RTLD_LOCAL);
    return handle;
}

// The pattern seed of the tests' files.
constexpr uint32_t kSeed = 7;

class FastpathPlugin : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        fake_ = std::make_unique<FakeState>();
        g_fake = fake_.get();
        SetCurrentDevice(0);
        memset(g_attributes, 0, sizeof(g_attributes));
        g_attribute_error = 0;
        void *ais = FakeAisLibrary();
        ASSERT_NE(ais, nullptr) << dlerror();
        auto state = reinterpret_cast<fake_ais_state_fn>(dlsym(ais, "fake_ais_state"));
        g_ais_proc = reinterpret_cast<decltype(g_ais_proc)>(dlsym(ais, "hipGetProcAddress"));
        ASSERT_NE(state, nullptr);
        ASSERT_NE(g_ais_proc, nullptr);
        g_ais = state();
        *g_ais = fake_ais_control{};
        g_ais->fail_call = -1;
        g_ais->short_call = -1;
        g_ais->move_bytes = 1;
        g_ais->offer = 0; // tests of the AIS engine turn it on

        host_ = MakeHost();
        gpu_ = *host_.gpu;
        gpu_.device_attribute = FakeDeviceAttribute;
        gpu_.get_proc_address = FakeGetProcAddress;
        host_.gpu = &gpu_;
        g_fake_sys = FakeSysTable();
        g_calls.clear();
        g_fstat_errno = 0;
        g_cache_modelled = false;
        g_cached.clear();
        sys_ = g_fake_sys;
        sys_.pread = RecordingPread;
        sys_.preadv2 = RecordingPreadv2;
        sys_.fstat = FailingFstat;
        host_.sys = &sys_;

        void *plugin = dlopen(HF_TEST_PLUGIN_DIR "/libhipfile-fastpath.so", RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(plugin, nullptr) << dlerror();
        handle_ = plugin;
        auto entry = reinterpret_cast<hf_backend_entry_fn>(dlsym(plugin, HF_BACKEND_ENTRY_SYMBOL));
        ASSERT_NE(entry, nullptr);
        uint32_t minor = HF_BACKEND_ABI_MINOR;
        ASSERT_EQ(entry(&host_, &minor, &ops_), 0);
    }

    void TearDown() override
    {
        if (backend_ != nullptr)
            ops_->fini(backend_);
        for (const File &f : files_) {
            close(f.fd);
            if (f.direct_fd >= 0)
                close(f.direct_fd);
        }
        // Nothing of the bounce machinery is ever touched by a direct path.
        EXPECT_EQ(fake_->alloc_calls, 0) << "pinned bounce memory was allocated";
        EXPECT_EQ(fake_->memcpy_calls, 0) << "a GPU copy was queued";
        EXPECT_EQ(fake_->memcpy_sync_calls, 0) << "a GPU copy was made";
        EXPECT_EQ(fake_->streams_created, 0);
        EXPECT_EQ(fake_->direct_misaligned, 0) << "an O_DIRECT call the kernel would refuse";
        g_fake = nullptr;
    }

    // Device memory the CPU can address (the host runtime's, an APU's).
    void Coherent()
    {
        g_attributes[HF_GPU_ATTR_INTEGRATED] = 1;
    }
    // A PCIe GPU: none of the coherence attributes.
    void Discrete()
    {
        memset(g_attributes, 0, sizeof(g_attributes));
    }
    void Init()
    {
        ASSERT_EQ(ops_->init(&host_, &backend_), 0);
        ASSERT_EQ(ops_->probe(backend_), 0);
    }

    File Open(const std::string &name, uint64_t size, uint32_t seed, bool direct = true)
    {
        File f;
        char *path = hf_test_path(name.c_str());
        f.path = path;
        free(path);
        EXPECT_EQ(hf_test_pattern_file(f.path.c_str(), size, seed), 0);
        f.fd = open(f.path.c_str(), O_RDWR | O_CLOEXEC);
        f.status_flags = fcntl(f.fd, F_GETFL);
        if (direct) {
            f.direct_fd = open(f.path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
            fake_->direct_fd = f.direct_fd;
        }
        files_.push_back(f);
        return f;
    }

    hf_file_info FileInfo(const File &f, const char *fs = "ext4", const char *mode = "ordered")
    {
        hf_file_info file{};
        file.struct_size = sizeof(file);
        file.fd = f.fd;
        file.direct_fd = f.direct_fd;
        file.kind = HF_FILE_REGULAR;
        file.mode = S_IFREG | 0644;
        file.status_flags = f.status_flags;
        file.dio_mem_align = f.direct_fd >= 0 ? 4096 : 0;
        file.dio_offset_align = f.direct_fd >= 0 ? 4096 : 0;
        snprintf(file.fs_name, sizeof(file.fs_name), "%s", fs);
        snprintf(file.ext4_data_mode, sizeof(file.ext4_data_mode), "%s", mode);
        return file;
    }

    hf_io_request Request(int op, hf_file_info *file, hf_buf_info *buf, int64_t buf_offset,
                          size_t size, int64_t file_offset)
    {
        hf_io_request req{};
        req.struct_size = sizeof(req);
        req.op = op;
        req.file = file;
        req.buf = buf;
        req.size = size;
        req.file_offset = file_offset;
        req.buf_offset = buf_offset;
        req.gpu_error_p = &gpu_error_;
        return req;
    }

    int Score(const hf_io_request &req, std::string *reason = nullptr)
    {
        const char *why = nullptr;
        int score = ops_->score(backend_, &req, &why);
        EXPECT_NE(why, nullptr);
        if (reason != nullptr)
            *reason = why != nullptr ? why : "";
        return score;
    }

    // Score, then serve as the selector would: only when the score accepts.
    ssize_t Serve(hf_io_request &req)
    {
        if (Score(req) < 0)
            return -ENOTSUP;
        return ops_->transfer(backend_, &req);
    }

    // The first @p size bytes of file @p f read into coherent memory @p b from its start, served
    // whole and checked byte for byte.
    void ExpectReadFromStart(const File &f, Buffer &b, size_t size)
    {
        hf_file_info file = FileInfo(f);
        hf_buf_info buf = b.Info();
        hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, size, 0);
        ASSERT_EQ(Serve(req), (ssize_t)size);
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, kSeed), -1);
    }

    std::unique_ptr<FakeState> fake_;
    hf_host_api host_{};
    hf_gpu_ops gpu_{};
    hf_sys_ops sys_{};
    void *handle_ = nullptr;
    const hf_backend_ops *ops_ = nullptr;
    void *backend_ = nullptr;
    std::vector<File> files_;
    int gpu_error_ = 0;
};

// ---- The ABI surface --------------------------------------------------------------------------

TEST_F(FastpathPlugin, OpsTableDescribesADirectBackendForDeviceMemory)
{
    EXPECT_EQ(ops_->magic, HF_BACKEND_MAGIC);
    EXPECT_STREQ(ops_->name, "fastpath");
    EXPECT_EQ(ops_->abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(ops_->caps, HF_CAP_READ | HF_CAP_WRITE | HF_CAP_DIRECT);
    for (const char *name : {"fastpath_ops", "fastpath_ais_transfer", "fastpath_coherent_transfer",
                             "fastpath_settings_read"})
        EXPECT_EQ(dlsym(handle_, name), nullptr) << name << " is exported";
}

TEST_F(FastpathPlugin, DeclaresUnsupportedFileSystemsWithItsEnvironmentVariable)
{
    EXPECT_EQ(ops_->setting_count, 7u);
    const hf_setting_decl *found = nullptr;
    for (unsigned i = 0; i < ops_->setting_count; i++) {
        if (std::string(ops_->settings[i].key) == "unsupported_file_systems")
            found = &ops_->settings[i];
    }
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->type, HF_DECL_BOOL);
    EXPECT_EQ(found->default_int, 0);
    EXPECT_STREQ(found->env, "HIPFILE_UNSUPPORTED_FILE_SYSTEMS");
}

// ---- The coherent-memory engine ---------------------------------------------------------------

TEST_F(FastpathPlugin, UncachedAlignedReadIntoCoherentDeviceMemoryGoesODirectWithoutABounce)
{
    Coherent();
    Init();
    fake_->cache_answer = CacheAnswer::kNothingCached;
    File f = Open("fp-coherent-read", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 4096, 512 * 1024, 8192);
    std::string reason;
    EXPECT_EQ(Score(req, &reason), 50);
    EXPECT_NE(reason.find("coherent memory"), std::string::npos) << reason;
    ASSERT_EQ(ops_->transfer(backend_, &req), 512 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data() + 4096, 512 * 1024, 8192, kSeed), -1);
    EXPECT_TRUE(b.UntouchedOutside(4096, 4096 + 512 * 1024));
    EXPECT_EQ(fake_->bytes_direct, 512u * 1024) << "every byte came through O_DIRECT";
    EXPECT_EQ(fake_->preads_buffered, 0);
    // The page cache was asked first, through the buffered descriptor, without waiting, and for
    // one page only: a miss starts readahead of what it asked for, which O_DIRECT reads again.
    std::vector<SysCall> calls = Calls();
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].kind, SysCall::kPreadv2);
    EXPECT_EQ(calls[0].fd, f.fd);
    EXPECT_EQ(calls[0].flags, RWF_NOWAIT);
    EXPECT_EQ(calls[0].offset, 8192);
    EXPECT_EQ(calls[0].size, 4096u);
    EXPECT_EQ(calls[1].kind, SysCall::kPread);
    EXPECT_EQ(calls[1].fd, f.direct_fd);
    EXPECT_EQ(calls[1].size, 512u * 1024);
}

TEST_F(FastpathPlugin, CachedReadsAreCopiedFromThePageCacheThroughTheBufferedDescriptor)
{
    Coherent();
    Init();
    File f = Open("fp-cached", 1 << 20, kSeed); // freshly written: in the page cache
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 4096, 512 * 1024, 8192);
    ASSERT_EQ(Serve(req), 512 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data() + 4096, 512 * 1024, 8192, kSeed), -1);
    EXPECT_TRUE(b.UntouchedOutside(4096, 4096 + 512 * 1024));
    std::vector<SysCall> calls = Calls();
    ASSERT_EQ(calls.size(), 2u) << "the first page, then the rest, out of the page cache";
    for (const SysCall &c : calls) {
        EXPECT_EQ(c.kind, SysCall::kPreadv2);
        EXPECT_EQ(c.fd, f.fd) << "the cache is asked through the buffered descriptor";
        EXPECT_EQ(c.flags, RWF_NOWAIT) << "asking must never wait for the disk";
    }
    EXPECT_EQ(calls[1].offset, 8192 + 4096);
    EXPECT_EQ(calls[1].size, 512u * 1024 - 4096);
    EXPECT_EQ(fake_->bytes_probed, 512u * 1024);
    EXPECT_EQ(fake_->preads_direct, 0);
    EXPECT_EQ(fake_->fstat_calls, 0) << "cached reads never need the file size";
}

TEST_F(FastpathPlugin, PartlyCachedRangesCopyTheCachedPartAndReadTheRestDirect)
{
    Coherent();
    Init();
    g_cache_modelled = true;
    g_cached = {{0, 65536 + 256 * 1024}};
    File f = Open("fp-half", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 512 * 1024, 65536);
    ASSERT_EQ(Serve(req), 512 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 512 * 1024, 65536, kSeed), -1);
    std::vector<SysCall> calls = Calls();
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(calls[0].kind, SysCall::kPreadv2);
    EXPECT_EQ(calls[0].fd, f.fd);
    EXPECT_EQ(calls[1].kind, SysCall::kPreadv2);
    EXPECT_EQ(calls[1].fd, f.fd);
    EXPECT_EQ(calls[2].kind, SysCall::kPread);
    EXPECT_EQ(calls[2].fd, f.direct_fd) << "the uncached rest goes O_DIRECT";
    EXPECT_EQ(calls[2].offset, 65536 + 256 * 1024) << "from where the cached part ended";
    EXPECT_EQ(calls[2].size, 256u * 1024);
    EXPECT_EQ(CachedBytesCopied(), 256u * 1024);
    EXPECT_EQ(fake_->bytes_direct, 256u * 1024);
    EXPECT_EQ(fake_->bytes_buffered, 0u);
}

// A probe of a page the cache lacks fails but still starts readahead around it: each cold window
// would be read in part into the page cache beside its O_DIRECT read. A read the kernel counts
// mostly uncached asks that count per window and probes only a window with cached bytes; a small
// read, or one the kernel cannot count, probes every window as before.
TEST_F(FastpathPlugin, AColdReadProbesOnlyWindowsTheKernelCountsCachedBytesIn)
{
    Coherent();
    fake_->config["split_threshold_kb"] = {0, 1024};
    fake_->config["inline_max_kb"] = {0, 64};
    Init();
    fake_->cache_answer = CacheAnswer::kFirstMebibyte;
    const size_t size = 16 << 20;
    File f = Open("fp-cold-first-mebibyte", size, kSeed);
    Buffer b(size, kDeviceCoherent);
    ExpectReadFromStart(f, b, size);
    EXPECT_EQ(fake_->parallel_tasks, 4);
    EXPECT_EQ(fake_->cached_bytes_calls, 1 + 4) << "the request, then each piece's window";
    EXPECT_EQ(fake_->preadv2_calls, 2) << "the first window only: its first page, then the rest";
    EXPECT_EQ(fake_->bytes_probed, 1u << 20);
    EXPECT_EQ(fake_->bytes_direct, size - (1u << 20));
    EXPECT_EQ(fake_->bytes_buffered, 0u);

    // Mostly cached by the kernel's count: every window probes, without asking again.
    fake_->cache_answer = CacheAnswer::kHalfCached;
    fake_->cached_bytes_calls = 0;
    fake_->preadv2_calls = 0;
    ExpectReadFromStart(f, b, size);
    EXPECT_EQ(fake_->cached_bytes_calls, 1);
    EXPECT_GE(fake_->preadv2_calls, 4) << "each window asks the page cache itself";

    // No larger than inline_max_kb: probed at once, the kernel not asked.
    fake_->cache_answer = CacheAnswer::kNothingCached;
    fake_->cached_bytes_calls = 0;
    fake_->preadv2_calls = 0;
    ExpectReadFromStart(f, b, 64 * 1024);
    EXPECT_EQ(fake_->cached_bytes_calls, 0);
    EXPECT_EQ(fake_->preadv2_calls, 1) << "its first page, which missed";
}

TEST_F(FastpathPlugin, EachPieceOfASplitReadAsksThePageCacheForItself)
{
    Coherent();
    fake_->config["split_threshold_kb"] = {0, 64};
    fake_->config["inline_max_kb"] = {0, 64};
    Init();
    // The first half of each of the four 768 KiB pieces is cached.
    g_cache_modelled = true;
    for (int64_t piece = 0; piece < 4; piece++)
        g_cached.push_back({piece * 768 * 1024, piece * 768 * 1024 + 384 * 1024});
    const size_t size = 3 << 20;
    File f = Open("fp-split-half", size, kSeed);
    Buffer b(size, kDeviceCoherent);
    ExpectReadFromStart(f, b, size);
    EXPECT_EQ(fake_->parallel_tasks, 4);
    EXPECT_EQ(CachedBytesCopied(), size / 2) << "every piece found its own cached half";
    EXPECT_EQ(fake_->bytes_direct, size / 2);
    EXPECT_EQ(fake_->bytes_buffered, 0u);
}

TEST_F(FastpathPlugin, LongReadsAskThePageCacheAgainEvery4MiB)
{
    Coherent();
    fake_->config["inline_max_kb"] = {0, 16 * 1024};
    Init();
    // Inline: one piece, windows of 4, 4 and 2 MiB; the first 2, 2 and 1 MiB of them are cached.
    g_cache_modelled = true;
    g_cached = {{0, 2 << 20}, {4 << 20, 6 << 20}, {8 << 20, 9 << 20}};
    const size_t size = 10 << 20;
    File f = Open("fp-windows", size, kSeed);
    Buffer b(size, kDeviceCoherent);
    ExpectReadFromStart(f, b, size);
    EXPECT_EQ(fake_->parallel_runs, 0);
    std::vector<SysCall> calls = Calls();
    std::vector<int64_t> first_pages;
    for (const SysCall &c : calls)
        if (c.kind == SysCall::kPreadv2 && c.size == 4096)
            first_pages.push_back(c.offset);
    EXPECT_EQ(first_pages, (std::vector<int64_t>{0, 4 << 20, 8 << 20}));
    EXPECT_EQ(CachedBytesCopied(), size / 2);
    EXPECT_EQ(fake_->bytes_direct, size / 2);
}

TEST_F(FastpathPlugin, ACacheThatCannotBeAskedIsTakenAsColdAndAHostWithoutPreadv2IsRefused)
{
    Coherent();
    Init();
    fake_->cache_answer = CacheAnswer::kUnsupported;
    File f = Open("fp-nowait-unsupported", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 256 * 1024, 0);
    ASSERT_EQ(Serve(req), 256 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 256 * 1024, 0, kSeed), -1);
    EXPECT_EQ(fake_->bytes_direct, 256u * 1024);

    // A core older than preadv2 in the table (ABI minor 0 layout): fastpath needs minor 5.
    ops_->fini(backend_);
    backend_ = nullptr;
    sys_.struct_size = offsetof(hf_sys_ops, preadv2);
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_EQ(backend, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FastpathPlugin, AlignedWriteFromCoherentDeviceMemoryLandsInTheFile)
{
    Coherent();
    Init();
    File f = Open("fp-coherent-write", 1 << 20, kSeed);
    Buffer b(256 * 1024, kDeviceCoherent);
    hf_test_pattern_fill(b.data(), 256 * 1024, 65536, 99);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_WRITE, &file, &buf, 0, 256 * 1024, 65536);
    ASSERT_EQ(Serve(req), 256 * 1024);
    EXPECT_EQ(fake_->pwrites_direct, 1) << "writes go O_DIRECT, cached or not";
    EXPECT_EQ(fake_->preadv2_calls, 0);
    std::vector<uint8_t> back = ReadWholeFile(f.fd);
    EXPECT_EQ(hf_test_pattern_check(back.data() + 65536, 256 * 1024, 65536, 99), -1);
    EXPECT_EQ(hf_test_pattern_check(back.data(), 65536, 0, kSeed), -1);

    // What a cached read then returns is what was written: the kernel dropped the stale pages.
    Buffer r(256 * 1024, kDeviceCoherent);
    hf_buf_info rbuf = r.Info();
    req = Request(HF_IO_READ, &file, &rbuf, 0, 256 * 1024, 65536);
    ASSERT_EQ(Serve(req), 256 * 1024);
    EXPECT_EQ(hf_test_pattern_check(r.data(), 256 * 1024, 65536, 99), -1);
}

TEST_F(FastpathPlugin, UnalignedRequestsAreDeclinedNamingWhatIsUnaligned)
{
    Coherent();
    Init();
    File f = Open("fp-unaligned", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    std::string reason;
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 100);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("file offset"), std::string::npos) << reason;
    req = Request(HF_IO_READ, &file, &buf, 0, 4000, 0);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("size"), std::string::npos) << reason;
    req = Request(HF_IO_READ, &file, &buf, 8, 4096, 0);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("buffer address"), std::string::npos) << reason;
}

TEST_F(FastpathPlugin, LargeCoherentReadsSplitAcrossWorkersByteForByte)
{
    Coherent();
    fake_->config["split_threshold_kb"] = {0, 64};
    fake_->config["inline_max_kb"] = {0, 64};
    Init();
    const size_t size = 3 << 20;
    File f = Open("fp-split", size, kSeed);
    Buffer b(size, kDeviceCoherent);
    ExpectReadFromStart(f, b, size);
    EXPECT_EQ(fake_->parallel_runs, 1);
    EXPECT_EQ(fake_->parallel_tasks, 4) << "one piece per worker of the fake executor";
}

TEST_F(FastpathPlugin, ReadsStraddlingEndOfFileStopThereAndLeaveTheRestUntouched)
{
    Coherent();
    Init();
    const size_t file_size = 3 * 4096 + 1000;
    File f = Open("fp-eof", file_size, kSeed);
    hf_file_info file = FileInfo(f);
    for (CacheAnswer answer :
         {CacheAnswer::kKernel, CacheAnswer::kNothingCached, CacheAnswer::kUnsupported}) {
        SCOPED_TRACE(static_cast<int>(answer));
        fake_->cache_answer = answer;
        fake_->bytes_direct = 0;
        fake_->bytes_buffered = 0;
        fake_->bytes_probed = 0;
        Buffer b(8 * 4096, kDeviceCoherent);
        hf_buf_info buf = b.Info();
        hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 8 * 4096, 4096);
        ASSERT_EQ(Serve(req), (ssize_t)(file_size - 4096));
        EXPECT_EQ(hf_test_pattern_check(b.data(), file_size - 4096, 4096, kSeed), -1);
        EXPECT_TRUE(b.UntouchedOutside(0, file_size - 4096))
            << "bytes past end of file were stored";
        EXPECT_EQ(fake_->bytes_probed + fake_->bytes_direct + fake_->bytes_buffered,
                  file_size - 4096);
        if (answer == CacheAnswer::kKernel) {
            EXPECT_EQ(fake_->bytes_probed, file_size - 4096) << "all cached, up to end of file";
        }
        if (answer == CacheAnswer::kNothingCached || answer == CacheAnswer::kUnsupported) {
            EXPECT_EQ(fake_->bytes_direct, 2u * 4096) << "O_DIRECT up to the last whole block";
            EXPECT_EQ(fake_->bytes_buffered, 1000u) << "the part block after it buffered";
        }
        req = Request(HF_IO_READ, &file, &buf, 0, 4096, 16 * 4096);
        EXPECT_EQ(Serve(req), 0);
        req = Request(HF_IO_READ, &file, &buf, 0, 4096, 3 * 4096 + 4096);
        EXPECT_EQ(Serve(req), 0) << "the first block after end of file";
    }
}

TEST_F(FastpathPlugin, APartlyCachedReadAcrossEndOfFileMixesAllThreeWays)
{
    Coherent();
    Init();
    const size_t file_size = 3 * 4096 + 1000;
    File f = Open("fp-eof-mixed", file_size, kSeed);
    hf_file_info file = FileInfo(f);
    g_cache_modelled = true;
    g_cached = {{0, 2 * 4096}};
    Buffer b(8 * 4096, kDeviceCoherent);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 8 * 4096, 4096);
    ASSERT_EQ(Serve(req), (ssize_t)(file_size - 4096));
    EXPECT_EQ(hf_test_pattern_check(b.data(), file_size - 4096, 4096, kSeed), -1);
    EXPECT_TRUE(b.UntouchedOutside(0, file_size - 4096)) << "bytes past end of file were stored";
    EXPECT_EQ(CachedBytesCopied(), 4096u) << "the cached block";
    EXPECT_EQ(fake_->bytes_direct, 4096u) << "the uncached whole block";
    EXPECT_EQ(fake_->bytes_buffered, 1000u) << "the part block at end of file";
}

TEST_F(FastpathPlugin, WithoutTheFileSizeUncachedReadsGoBufferedStillStraight)
{
    Coherent();
    Init();
    fake_->cache_answer = CacheAnswer::kNothingCached;
    g_fstat_errno = EIO;
    const size_t file_size = 3 * 4096 + 1000;
    File f = Open("fp-nosize", file_size, kSeed);
    Buffer b(8 * 4096, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 8 * 4096, 0);
    ASSERT_EQ(Serve(req), (ssize_t)file_size);
    EXPECT_EQ(hf_test_pattern_check(b.data(), file_size, 0, kSeed), -1);
    EXPECT_TRUE(b.UntouchedOutside(0, file_size));
    EXPECT_EQ(fake_->preads_direct, 0) << "no size, no safe end for O_DIRECT";
    EXPECT_EQ(fake_->bytes_buffered, file_size);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "cannot look up the file size"));
}

// How the page cache answers in one run: as the fake host does (CacheAnswer), or from a model of
// random cached ranges (modelled), which both plugins see alike.
struct CacheCase {
    const char *name;
    CacheAnswer answer;
    bool modelled;
};

// The fallback, serving the same requests into its own buffer, is the reference.
class FastpathAgainstFallback : public FastpathPlugin,
                                public ::testing::WithParamInterface<CacheCase>
{
  protected:
    void TearDown() override
    {
        if (fallback_ != nullptr)
            fallback_ops_->fini(fallback_);
        FastpathPlugin::TearDown();
    }
    void InitFallback()
    {
        const LoadedPlugin &plugin = Plugin();
        ASSERT_NE(plugin.entry, nullptr) << plugin.error;
        uint32_t minor = HF_BACKEND_ABI_MINOR;
        ASSERT_EQ(plugin.entry(&host_, &minor, &fallback_ops_), 0);
        ASSERT_EQ(fallback_ops_->init(&host_, &fallback_), 0);
    }
    const hf_backend_ops *fallback_ops_ = nullptr;
    void *fallback_ = nullptr;
};

TEST_P(FastpathAgainstFallback, AlignedRandomReadsMatchTheFallbackByteForByte)
{
    Coherent();
    fake_->config["split_threshold_kb"] = {0, 64};
    fake_->config["inline_max_kb"] = {0, 64};
    Init();
    InitFallback();
    fake_->cache_answer = GetParam().answer;
    const uint64_t file_size = 2 * 1024 * 1024 + 4321;
    File f = Open("fp-vs-fallback", file_size, kSeed);
    hf_file_info file = FileInfo(f);
    std::mt19937_64 rng(17);
    g_cache_modelled = GetParam().modelled;
    for (int64_t at = 0; at < static_cast<int64_t>(file_size); at += 4096 * (1 + rng() % 64))
        if (rng() % 2 == 0)
            g_cached.push_back({at, at + static_cast<int64_t>(4096 * (1 + rng() % 64))});
    for (int i = 0; i < 40; i++) {
        fake_->width = 1 + static_cast<unsigned>(rng() % 6);
        size_t size = 4096 * (1 + rng() % 200);
        int64_t file_offset = static_cast<int64_t>(4096 * (rng() % ((file_size + 16384) / 4096)));
        SCOPED_TRACE(testing::Message()
                     << "iteration " << i << ": " << size << " bytes at " << file_offset);
        Buffer ours(size, kDeviceCoherent);
        Buffer theirs(size, kDeviceCoherent);
        hf_buf_info our_buf = ours.Info();
        hf_buf_info their_buf = theirs.Info();
        hf_io_request req = Request(HF_IO_READ, &file, &our_buf, 0, size, file_offset);
        ssize_t got = Serve(req);
        req.buf = &their_buf;
        ssize_t want = fallback_ops_->transfer(fallback_, &req);
        ASSERT_GE(want, 0);
        ASSERT_EQ(got, want);
        ASSERT_EQ(memcmp(ours.data(), theirs.data(), size), 0) << "every byte, written or not";
        ASSERT_TRUE(ours.UntouchedOutside(0, static_cast<size_t>(got)));
    }
    if (GetParam().modelled) {
        EXPECT_GT(CachedBytesCopied(), 0u) << "some ranges came out of the page cache";
        EXPECT_GT(fake_->bytes_direct, 0u) << "and some through O_DIRECT";
    }
}

std::string CacheCaseName(const ::testing::TestParamInfo<CacheCase> &info)
{
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(
    CacheAnswers, FastpathAgainstFallback,
    ::testing::Values(CacheCase{"AllCached", CacheAnswer::kKernel, false},
                      CacheCase{"NothingCached", CacheAnswer::kNothingCached, false},
                      CacheCase{"HalfOfEveryCall", CacheAnswer::kHalfCached, false},
                      CacheCase{"CannotTell", CacheAnswer::kUnsupported, false},
                      CacheCase{"RandomRanges", CacheAnswer::kKernel, true}),
    CacheCaseName);

TEST_F(FastpathPlugin, APcieGpuIsDeclinedNamingEveryEngine)
{
    Discrete();
    Init();
    File f = Open("fp-pcie", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    std::string reason;
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("no engine for GPU 0"), std::string::npos) << reason;
    EXPECT_NE(reason.find("hipAmdFileRead"), std::string::npos) << reason;
    EXPECT_NE(reason.find("fastpath.gds = false"), std::string::npos) << reason;
    EXPECT_NE(reason.find("CPU cannot address"), std::string::npos) << reason;
    // Serving anyway (a core that ignored the score) hands the request on, moving nothing.
    EXPECT_EQ(ops_->transfer(backend_, &req), -ENODEV);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
}

TEST_F(FastpathPlugin, CoherenceComesFromTheAttributesOnly)
{
    // Grace Hopper shape: host page tables over a link with native atomics.
    g_attributes[HF_GPU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES] = 1;
    g_attributes[HF_GPU_ATTR_HOST_NATIVE_ATOMICS] = 1;
    Init();
    File f = Open("fp-attrs", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    EXPECT_EQ(Score(req), 50);
    ops_->fini(backend_);
    backend_ = nullptr;

    // Page tables without a coherent link (HMM on PCIe) is not enough; nor is an unanswered query.
    g_attributes[HF_GPU_ATTR_HOST_NATIVE_ATOMICS] = 0;
    g_attributes[HF_GPU_ATTR_PAGEABLE_MEMORY_ACCESS] = 1;
    Init();
    EXPECT_LT(Score(req), 0);
    ops_->fini(backend_);
    backend_ = nullptr;
    Coherent();
    g_attribute_error = 801;
    Init();
    EXPECT_LT(Score(req), 0);
}

TEST_F(FastpathPlugin, EfaultFromODirectHandsOnAndSwitchesTheGpuOff)
{
    Coherent();
    Init();
    File f = Open("fp-efault", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 8192, 0);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    fake_->pread_faults.fail_from = 0;
    fake_->pread_faults.fail_errno = EFAULT;
    EXPECT_EQ(Serve(req), -EREMOTEIO) << "another backend may succeed";
    std::string reason;
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("could not pin"), std::string::npos) << reason;
}

TEST_F(FastpathPlugin, ODirectRefusedAfterACachedPartHandsTheWholeRequestOn)
{
    Coherent();
    Init();
    g_cache_modelled = true;
    g_cached = {{0, 32 * 1024}};
    File f = Open("fp-refused-late", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 64 * 1024, 0);
    fake_->direct_einval = 1;
    EXPECT_EQ(Serve(req), -EREMOTEIO) << "a short count would read as end of file";
    EXPECT_EQ(CachedBytesCopied(), 32u * 1024) << "the cached half was copied first";
    EXPECT_EQ(Score(req), 50) << "EINVAL declines one request, not the GPU";
    EXPECT_EQ(Serve(req), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * 1024, 0, kSeed), -1);
}

TEST_F(FastpathPlugin, IoErrorsFromODirectAreReportedAsTheyAre)
{
    Coherent();
    Init();
    File f = Open("fp-eio", 1 << 20, kSeed);
    Buffer b(1 << 20, kDeviceCoherent);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_WRITE, &file, &buf, 0, 8192, 0);
    fake_->pwrite_faults.fail_from = 0;
    fake_->pwrite_faults.fail_errno = ENOSPC;
    EXPECT_EQ(Serve(req), -ENOSPC);
    EXPECT_EQ(Score(req), 50) << "an I/O error says nothing about the engine";
}

TEST_F(FastpathPlugin, HostMemoryFilesWithoutODirectAndTheSwitchAreDeclined)
{
    Coherent();
    fake_->config_bools["coherent"] = {0, false};
    Init();
    File f = Open("fp-decline", 1 << 20, kSeed);
    File plain = Open("fp-decline-plain", 1 << 20, kSeed, false);
    Buffer dev(1 << 20, kDeviceCoherent);
    Buffer host(1 << 20, kHostPinned);
    hf_file_info file = FileInfo(f);
    hf_file_info plain_file = FileInfo(plain);
    hf_buf_info dev_buf = dev.Info();
    hf_buf_info host_buf = host.Info();
    std::string reason;
    hf_io_request req = Request(HF_IO_READ, &file, &host_buf, 0, 4096, 0);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("memory of no GPU"), std::string::npos) << reason;
    req = Request(HF_IO_READ, &plain_file, &dev_buf, 0, 4096, 0);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("no O_DIRECT descriptor"), std::string::npos) << reason;
    req = Request(HF_IO_READ, &file, &dev_buf, 0, 4096, 0);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("fastpath.coherent = false"), std::string::npos) << reason;
}

// ---- The AMD AIS engine, against the fake AIS runtime ------------------------------------------

class FastpathAis : public FastpathPlugin
{
  protected:
    void SetUp() override
    {
        FastpathPlugin::SetUp();
        g_ais->offer = 1;
    }
};

TEST_F(FastpathAis, ResolvedThroughHipGetProcAddressAndServesDeviceMemory)
{
    Init();
    File f = Open("ais-read", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 4096, 65536, 8192);
    std::string reason;
    EXPECT_EQ(Score(req, &reason), 100);
    EXPECT_NE(reason.find("AIS"), std::string::npos) << reason;
    ASSERT_EQ(ops_->transfer(backend_, &req), 65536);
    EXPECT_EQ(hf_test_pattern_check(b.data() + 4096, 65536, 8192, kSeed), -1);
    ASSERT_EQ(g_ais->calls, 1);
    EXPECT_EQ(g_ais->call[0].fd, f.direct_fd) << "AIS needs the O_DIRECT descriptor";
    EXPECT_EQ(g_ais->call[0].device_ptr, b.data() + 4096);
    EXPECT_EQ(g_ais->call[0].file_offset, 8192);
    EXPECT_EQ(g_ais->proc_version, 70051831) << "asked at the runtime's own version";
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0) << "the plugin itself never touched VRAM";

    hf_test_pattern_fill(b.data(), 8192, 0, 55);
    req = Request(HF_IO_WRITE, &file, &buf, 0, 8192, 0);
    ASSERT_EQ(ops_->transfer(backend_, &req), 8192);
    EXPECT_EQ(g_ais->call[1].write, 1);
    std::vector<uint8_t> back = ReadWholeFile(f.fd);
    EXPECT_EQ(hf_test_pattern_check(back.data(), 8192, 0, 55), -1);
}

TEST_F(FastpathAis, EligibilityFollowsTheKernelsRules)
{
    Init();
    File f = Open("ais-rules", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_buf_info buf = b.Info();
    std::string reason;
    struct Case {
        const char *fs;
        const char *mode;
        int kind;
        bool ok;
    } cases[] = {
        {"ext4", "ordered", HF_FILE_REGULAR, true},    {"xfs", "", HF_FILE_REGULAR, true},
        {"unknown", "", HF_FILE_BLOCK, true},          {"ext4", "journal", HF_FILE_REGULAR, false},
        {"ext4", "writeback", HF_FILE_REGULAR, false}, {"tmpfs", "", HF_FILE_REGULAR, false},
        {"btrfs", "", HF_FILE_REGULAR, false},
    };
    for (const Case &c : cases) {
        hf_file_info file = FileInfo(f, c.fs, c.mode);
        file.kind = c.kind;
        hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
        EXPECT_EQ(Score(req, &reason) == 100, c.ok) << c.fs << " " << c.mode << ": " << reason;
    }
    // O_DIRECT may allow 512-byte granules; amdkfd still wants whole pages.
    hf_file_info file = FileInfo(f);
    file.dio_offset_align = 512;
    file.dio_mem_align = 512;
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 512, 4096, 0);
    EXPECT_EQ(Score(req), 100) << "a 512-aligned address is fine";
    req = Request(HF_IO_READ, &file, &buf, 0, 4096, 512);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("file offset"), std::string::npos) << reason;
    req = Request(HF_IO_READ, &file, &buf, 0, 2048, 0);
    EXPECT_LT(Score(req, &reason), 0);
    req = Request(HF_IO_READ, &file, &buf, 100, 4096, 0);
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("buffer address"), std::string::npos) << reason;
}

// What the core records for a file on a FUSE mount (tests/fuse checks that on a real mount).
TEST_F(FastpathAis, FilesOnFuseMountsAreRefusedByName)
{
    Init();
    File f = Open("ais-fuse", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f, "fuse", "");
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 65536, 0);
    std::string reason;
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_EQ(reason, "AIS: the file system is not ext4, xfs or a block device "
                      "(fastpath.unsupported_file_systems allows others)");
    EXPECT_EQ(g_ais->calls, 0);
}

TEST_F(FastpathAis, UnsupportedFileSystemsSettingAdmitsOthers)
{
    fake_->config_bools["unsupported_file_systems"] = {0, true};
    Init();
    File f = Open("ais-anyfs", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f, "tmpfs", "");
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    EXPECT_EQ(Score(req), 100);
}

TEST_F(FastpathAis, RequestsAboveMaxRwCountAreSplitIntoConsecutiveCalls)
{
    Init();
    g_ais->move_bytes = 0; // the fake only claims the bytes: no 5 GiB of memory needed
    File f = Open("ais-split", 4096, kSeed);
    const size_t size = (size_t)5 << 30;
    hf_file_info file = FileInfo(f);
    hf_buf_info buf{};
    buf.struct_size = sizeof(buf);
    buf.mem_type = HF_MEM_DEVICE;
    buf.base = reinterpret_cast<void *>(uintptr_t{0x7f0000000000});
    buf.length = size + 4096;
    buf.device = 0;
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 4096, size, 1 << 20);
    ASSERT_EQ(Serve(req), (ssize_t)size);
    ASSERT_EQ(g_ais->calls, 3);
    const uint64_t max = 0x7ffff000;
    EXPECT_EQ(g_ais->call[0].size, max);
    EXPECT_EQ(g_ais->call[1].size, max);
    EXPECT_EQ(g_ais->call[2].size, size - 2 * max);
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(g_ais->call[i].file_offset, (int64_t)((1 << 20) + i * max));
        EXPECT_EQ(static_cast<char *>(g_ais->call[i].device_ptr),
                  static_cast<char *>(buf.base) + 4096 + i * max);
    }
}

TEST_F(FastpathAis, AShortCallEndsTheRequestWithTheBytesMoved)
{
    Init();
    g_ais->move_bytes = 0;
    g_ais->short_call = 1;
    g_ais->short_bytes = 4096;
    File f = Open("ais-short", 4096, kSeed);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf{};
    buf.struct_size = sizeof(buf);
    buf.mem_type = HF_MEM_DEVICE;
    buf.base = reinterpret_cast<void *>(uintptr_t{0x7f0000000000});
    buf.length = (size_t)3 << 30;
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, (size_t)3 << 30, 0);
    EXPECT_EQ(Serve(req), (ssize_t)0x7ffff000 + 4096);
    EXPECT_EQ(g_ais->calls, 2);
}

TEST_F(FastpathAis, EnodevHandsOnAndSwitchesAisOffForTheGpu)
{
    Init();
    File f = Open("ais-enodev", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    g_ais->fail_call = 0;
    g_ais->fail_status = -ENODEV;
    g_ais->fail_hip_error = 999;
    EXPECT_EQ(Serve(req), -ENODEV);
    std::string reason;
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("ENODEV"), std::string::npos) << reason;
    EXPECT_TRUE(b.UntouchedOutside(0, 0));
}

TEST_F(FastpathAis, EremoteioHandsOnButAisStaysOn)
{
    Init();
    File f = Open("ais-eremoteio", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    g_ais->fail_call = 0;
    g_ais->fail_status = EREMOTEIO; // positive status values are read as errno too
    EXPECT_EQ(Serve(req), -EREMOTEIO);
    EXPECT_EQ(Score(req), 100);
    EXPECT_EQ(Serve(req), 4096) << "the next request goes through AIS again";
}

TEST_F(FastpathAis, ErrorsMapToErrnoOrTheRuntimesCode)
{
    Init();
    File f = Open("ais-errors", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    g_ais->fail_call = 0;
    g_ais->fail_status = -EIO;
    EXPECT_EQ(Serve(req), -EIO);

    g_ais->calls = 0;
    g_ais->fail_status = 0;
    g_ais->fail_hip_error = 999; // hipErrorUnknown without a kernel status
    gpu_error_ = 0;
    EXPECT_EQ(Serve(req), -HF_EGPU);
    EXPECT_EQ(gpu_error_, 999);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "hipAmdFileRead"));

    // A failure after bytes moved returns those bytes; the error shows on the next call.
    g_ais->calls = 0;
    g_ais->move_bytes = 0;
    g_ais->fail_call = 1;
    g_ais->fail_status = -EIO;
    hf_buf_info big{};
    big.struct_size = sizeof(big);
    big.mem_type = HF_MEM_DEVICE;
    big.base = reinterpret_cast<void *>(uintptr_t{0x7f0000000000});
    big.length = (size_t)3 << 30;
    req = Request(HF_IO_READ, &file, &big, 0, (size_t)3 << 30, 0);
    EXPECT_EQ(Serve(req), (ssize_t)0x7ffff000);
}

TEST_F(FastpathAis, AisCallsRunWithTheBuffersGpuCurrent)
{
    Init();
    File f = Open("ais-device", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    buf.device = 1;
    SetCurrentDevice(0);
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    ASSERT_EQ(Serve(req), 4096);
    EXPECT_EQ(CurrentDevice(), 0) << "the caller's GPU is put back";
    EXPECT_EQ(fake_->set_device_calls, 2);
}

TEST_F(FastpathAis, ARuntimeWithoutTheFunctionsLeavesAisAbsent)
{
    g_ais->offer = 0;
    Init();
    File f = Open("ais-absent", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    std::string reason;
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("offers no hipAmdFileRead"), std::string::npos) << reason;
    EXPECT_EQ(g_ais->calls, 0);
}

// ---- NVIDIA GDS: off by default, and only with nvidia-fs ---------------------------------------

TEST_F(FastpathPlugin, GdsIsOffByDefaultAndNeedsNvidiaFs)
{
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "GDS: off (fastpath.gds = false)"));
    ops_->fini(backend_);
    backend_ = nullptr;
    struct stat st;
    if (stat("/sys/module/nvidia_fs", &st) == 0)
        GTEST_SKIP() << "nvidia-fs is loaded here";
    fake_->config_bools["gds"] = {0, true};
    Init();
    File f = Open("gds-off", 1 << 20, kSeed);
    Buffer b(1 << 20, kDevice);
    hf_file_info file = FileInfo(f);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, &file, &buf, 0, 4096, 0);
    std::string reason;
    EXPECT_LT(Score(req, &reason), 0);
    EXPECT_NE(reason.find("nvidia-fs kernel module is not loaded"), std::string::npos) << reason;
}

} // namespace
