// The fallback plugin driven through its ABI alone: the built module is dlopen'ed and handed a fake
// host whose GPU copies are memcpy and whose system calls inject faults, and every byte a request
// moves is checked against the harness's patterns. The shared bounce pool and alignment helpers
// are tested directly at the end.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/align.h"
#include "common/bounce_pool.h"
#include "hf_harness.h"
#include "hipfile/backend.h"

namespace
{

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;
constexpr size_t kDefaultBounceSize = 4 * kMiB;
constexpr int kFakeOutOfMemory = 2;
constexpr int kFakeCopyFailure = 77;
constexpr int kFakeNoDevice = 101;
constexpr uint8_t kUntouched = 0xA5;

// ---------------------------------------------------------------------------------------------
// The fake host: state shared with the plugin's threads, reset for every test.

struct SysFaults {
    std::atomic<int> calls{0};
    std::atomic<int> eintr_every{0}; // every n-th call fails with EINTR first
    std::atomic<int> eintr_seen{0};
    std::atomic<int> fail_from{-1}; // calls from this index on fail with fail_errno
    std::atomic<int> fail_errno{0};
    std::atomic<int> zero_from{-1};     // calls from this index on move nothing and return 0
    std::atomic<bool> overstate{false}; // claim one byte more than asked for
    std::atomic<size_t> max_bytes{0};   // cap on the bytes one call moves (short I/O)
};

struct FakeState {
    std::mutex mu;
    std::vector<std::pair<int, std::string>> log_lines;
    std::map<std::string, std::pair<int, int64_t>> config; // key -> (config_int result, value)
    std::vector<std::pair<uintptr_t, size_t>> pinned;
    std::vector<std::pair<uintptr_t, size_t>> device_ranges;

    std::atomic<int> alloc_calls{0};
    std::atomic<int> alloc_fail_from{-1};
    std::atomic<int> pinned_live{0};
    std::atomic<int> pinned_live_max{0};
    std::atomic<size_t> pinned_size{0};
    std::atomic<int> bad_frees{0};

    std::atomic<int> memcpy_calls{0};
    std::atomic<int> memcpy_fail_from{-1};
    std::atomic<int> copies_without_pinned{0};
    std::atomic<int> copy_device{-1};

    std::atomic<int> set_device_calls{0};
    std::atomic<int> set_device_fail_from{-1};

    std::atomic<int> syscalls_on_device_memory{0};
    SysFaults pread_faults;
    SysFaults pwrite_faults;
};

FakeState *g_fake;
thread_local int t_current_device = 0;

bool RangeInside(const std::vector<std::pair<uintptr_t, size_t>> &ranges, const void *p, size_t n)
{
    auto lo = reinterpret_cast<uintptr_t>(p);
    for (const auto &r : ranges) {
        if (lo >= r.first && lo + n <= r.first + r.second)
            return true;
    }
    return false;
}

bool RangeOverlaps(const std::vector<std::pair<uintptr_t, size_t>> &ranges, const void *p, size_t n)
{
    auto lo = reinterpret_cast<uintptr_t>(p);
    for (const auto &r : ranges) {
        if (lo < r.first + r.second && r.first < lo + n)
            return true;
    }
    return false;
}

void FakeLog(const hf_host_api *, int level, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> lock(g_fake->mu);
    g_fake->log_lines.emplace_back(level, line);
}

int FakeConfigInt(const hf_host_api *, const char *key, int64_t *value_p)
{
    auto it = g_fake->config.find(key);
    if (it == g_fake->config.end())
        return -ENOENT;
    if (it->second.first != 0)
        return it->second.first;
    *value_p = it->second.second;
    return 0;
}

int FakeConfigBool(const hf_host_api *, const char *, bool *)
{
    return -ENOENT;
}

int FakeConfigString(const hf_host_api *, const char *, const char **)
{
    return -ENOENT;
}

int FakePointerInfo(const void *, hf_gpu_pointer_info *)
{
    return 1;
}

int FakeDeviceCount(int *count_p)
{
    *count_p = 2;
    return 0;
}

int FakeGetDevice(int *device_p)
{
    *device_p = t_current_device;
    return 0;
}

int FakeSetDevice(int device)
{
    int call = g_fake->set_device_calls++;
    int fail_from = g_fake->set_device_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeNoDevice;
    t_current_device = device;
    return 0;
}

int FakeHostAllocPinned(void **ptr_p, size_t size)
{
    int call = g_fake->alloc_calls++;
    int fail_from = g_fake->alloc_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeOutOfMemory;
    void *p = aligned_alloc(4096, hf_align_up(size, 4096));
    if (p == nullptr)
        return kFakeOutOfMemory;
    std::lock_guard<std::mutex> lock(g_fake->mu);
    g_fake->pinned.emplace_back(reinterpret_cast<uintptr_t>(p), size);
    g_fake->pinned_size = size;
    int live = ++g_fake->pinned_live;
    if (live > g_fake->pinned_live_max)
        g_fake->pinned_live_max = live;
    *ptr_p = p;
    return 0;
}

int FakeHostFreePinned(void *ptr)
{
    std::lock_guard<std::mutex> lock(g_fake->mu);
    auto it = std::find_if(g_fake->pinned.begin(), g_fake->pinned.end(), [ptr](const auto &r) {
        return r.first == reinterpret_cast<uintptr_t>(ptr);
    });
    if (it == g_fake->pinned.end()) {
        g_fake->bad_frees++;
        return 1;
    }
    g_fake->pinned.erase(it);
    g_fake->pinned_live--;
    free(ptr);
    return 0;
}

int FakeMemcpySync(void *dst, const void *src, size_t size)
{
    int call = g_fake->memcpy_calls++;
    int fail_from = g_fake->memcpy_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeCopyFailure;
    {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        if (!RangeInside(g_fake->pinned, dst, size) && !RangeInside(g_fake->pinned, src, size))
            g_fake->copies_without_pinned++;
    }
    g_fake->copy_device = t_current_device;
    memcpy(dst, src, size);
    return 0;
}

int FakeMemcpyAsync(void *dst, const void *src, size_t size, void *)
{
    return FakeMemcpySync(dst, src, size);
}

int FakeStreamCreate(void **stream_p)
{
    *stream_p = nullptr;
    return 0;
}

int FakeStreamOp(void *)
{
    return 0;
}

const char *FakeErrorString(int err)
{
    return err == 0 ? "fakeSuccess" : "fakeFailure";
}

bool TouchesDevice(const void *buf, size_t count)
{
    std::lock_guard<std::mutex> lock(g_fake->mu);
    return RangeOverlaps(g_fake->device_ranges, buf, count);
}

// Applies the fault plan; returns true with *result_p set when the call is answered by a fault.
bool InjectFault(SysFaults &f, size_t *count_inout, ssize_t *result_p)
{
    int call = f.calls++;
    int every = f.eintr_every;
    if (every > 0 && call % every == 0) {
        f.eintr_seen++;
        errno = EINTR;
        *result_p = -1;
        return true;
    }
    int fail_from = f.fail_from;
    if (fail_from >= 0 && call >= fail_from) {
        errno = f.fail_errno;
        *result_p = -1;
        return true;
    }
    int zero_from = f.zero_from;
    if (zero_from >= 0 && call >= zero_from) {
        *result_p = 0;
        return true;
    }
    if (f.overstate) {
        *result_p = static_cast<ssize_t>(*count_inout) + 1;
        return true;
    }
    size_t cap = f.max_bytes;
    if (cap != 0 && *count_inout > cap)
        *count_inout = cap;
    return false;
}

ssize_t FakePread(int fd, void *buf, size_t count, off_t offset)
{
    if (TouchesDevice(buf, count))
        g_fake->syscalls_on_device_memory++;
    ssize_t result;
    if (InjectFault(g_fake->pread_faults, &count, &result))
        return result;
    return pread(fd, buf, count, offset);
}

ssize_t FakePwrite(int fd, const void *buf, size_t count, off_t offset)
{
    if (TouchesDevice(buf, count))
        g_fake->syscalls_on_device_memory++;
    ssize_t result;
    if (InjectFault(g_fake->pwrite_faults, &count, &result))
        return result;
    return pwrite(fd, buf, count, offset);
}

int FakeIoctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}

hf_gpu_ops MakeGpu()
{
    hf_gpu_ops gpu{};
    gpu.struct_size = sizeof(gpu);
    gpu.name = "fake";
    gpu.pointer_info = FakePointerInfo;
    gpu.device_count = FakeDeviceCount;
    gpu.get_device = FakeGetDevice;
    gpu.set_device = FakeSetDevice;
    gpu.host_alloc_pinned = FakeHostAllocPinned;
    gpu.host_free_pinned = FakeHostFreePinned;
    gpu.memcpy_sync = FakeMemcpySync;
    gpu.memcpy_async = FakeMemcpyAsync;
    gpu.stream_create = FakeStreamCreate;
    gpu.stream_destroy = FakeStreamOp;
    gpu.stream_synchronize = FakeStreamOp;
    gpu.error_string = FakeErrorString;
    return gpu;
}

hf_sys_ops MakeSys()
{
    hf_sys_ops sys{};
    sys.struct_size = sizeof(sys);
    sys.pread = FakePread;
    sys.pwrite = FakePwrite;
    sys.fstat = fstat;
    sys.fdatasync = fdatasync;
    sys.ioctl = FakeIoctl;
    return sys;
}

const hf_gpu_ops kFakeGpu = MakeGpu();
const hf_sys_ops kFakeSys = MakeSys();

hf_host_api MakeHost()
{
    hf_host_api host{};
    host.struct_size = sizeof(host);
    host.abi_minor = HF_BACKEND_ABI_MINOR;
    host.log = FakeLog;
    host.config_int = FakeConfigInt;
    host.config_bool = FakeConfigBool;
    host.config_string = FakeConfigString;
    host.gpu = &kFakeGpu;
    host.sys = &kFakeSys;
    return host;
}

bool LogHas(int level, const std::string &needle)
{
    std::lock_guard<std::mutex> lock(g_fake->mu);
    for (const auto &line : g_fake->log_lines) {
        if (line.first == level && line.second.find(needle) != std::string::npos)
            return true;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// Memory and files.

struct MemKind {
    const char *name;
    int mem_type;
    int device;
    bool host_accessible;
    bool bounces; // whether the fallback must go through the GPU copy
};

const MemKind kDevice = {"Device", HF_MEM_DEVICE, 0, false, true};
const MemKind kHostPinned = {"HostPinned", HF_MEM_HOST_PINNED, -1, true, false};
const MemKind kPageable = {"Pageable", HF_MEM_UNKNOWN, -1, true, false};
const MemKind kManaged = {"Managed", HF_MEM_MANAGED, 0, true, false};

// A buffer with guard bytes on both sides of its extent, all bytes starting as kUntouched. Device
// buffers are plain host memory the fake system calls refuse to see touched.
class Buffer
{
  public:
    static constexpr size_t kGuard = 64;

    Buffer(size_t length, const MemKind &kind)
        : bytes_(length + 2 * kGuard, kUntouched), length_(length), kind_(kind)
    {
        if (kind_.bounces) {
            std::lock_guard<std::mutex> lock(g_fake->mu);
            g_fake->device_ranges.emplace_back(reinterpret_cast<uintptr_t>(data()), length_);
        }
    }
    ~Buffer()
    {
        if (kind_.bounces) {
            std::lock_guard<std::mutex> lock(g_fake->mu);
            auto &r = g_fake->device_ranges;
            r.erase(std::remove(r.begin(), r.end(),
                                std::make_pair(reinterpret_cast<uintptr_t>(data()), length_)),
                    r.end());
        }
    }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;

    uint8_t *data()
    {
        return bytes_.data() + kGuard;
    }
    size_t length() const
    {
        return length_;
    }
    hf_buf_info Info()
    {
        hf_buf_info info{};
        info.struct_size = sizeof(info);
        info.mem_type = kind_.mem_type;
        info.base = data();
        info.length = length_;
        info.device = kind_.device;
        info.host_accessible = kind_.host_accessible;
        return info;
    }
    // Whether every byte outside [from, to) of the extent, and every guard byte, is untouched.
    bool UntouchedOutside(size_t from, size_t to) const
    {
        for (size_t i = 0; i < bytes_.size(); i++) {
            size_t extent_index = i - kGuard;
            bool inside = i >= kGuard && extent_index >= from && extent_index < to;
            if (!inside && bytes_[i] != kUntouched)
                return false;
        }
        return true;
    }

  private:
    std::vector<uint8_t> bytes_;
    size_t length_;
    MemKind kind_;
};

struct File {
    int fd = -1;
    int status_flags = 0;
    std::string path;
};

// Whole-file contents through the real system call, for checking writes.
std::vector<uint8_t> ReadWholeFile(int fd)
{
    struct stat st;
    EXPECT_EQ(fstat(fd, &st), 0);
    std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
        if (n <= 0)
            break;
        done += static_cast<size_t>(n);
    }
    EXPECT_EQ(done, bytes.size());
    return bytes;
}

// ---------------------------------------------------------------------------------------------
// The plugin, loaded once per process as the core would: plugins are never unloaded.

struct LoadedPlugin {
    void *handle = nullptr;
    hf_backend_entry_fn entry = nullptr;
    std::string error;
};

const LoadedPlugin &Plugin()
{
    static LoadedPlugin plugin = [] {
        LoadedPlugin p;
        const char *path = HF_TEST_PLUGIN_DIR "/libhipfile-fallback.so";
        p.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (p.handle == nullptr) {
            p.error = dlerror();
            return p;
        }
        p.entry = reinterpret_cast<hf_backend_entry_fn>(dlsym(p.handle, HF_BACKEND_ENTRY_SYMBOL));
        if (p.entry == nullptr)
            p.error = std::string("no entry symbol in ") + path;
        return p;
    }();
    return plugin;
}

class FallbackPlugin : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        fake_ = std::make_unique<FakeState>();
        g_fake = fake_.get();
        t_current_device = 0;
        host_ = MakeHost();
        const LoadedPlugin &plugin = Plugin();
        ASSERT_NE(plugin.entry, nullptr) << plugin.error;
        uint32_t minor = HF_BACKEND_ABI_MINOR;
        ASSERT_EQ(plugin.entry(&host_, &minor, &ops_), 0);
        ASSERT_NE(ops_, nullptr);
    }

    void TearDown() override
    {
        Fini();
        for (const File &f : files_)
            close(f.fd);
        EXPECT_EQ(fake_->pinned_live, 0) << "pinned bounce buffers outlived fini";
        EXPECT_EQ(fake_->bad_frees, 0);
        g_fake = nullptr;
    }

    void SetConfig(const char *key, int64_t value)
    {
        fake_->config[key] = {0, value};
    }

    void Init()
    {
        ASSERT_EQ(ops_->init(&host_, &backend_), 0);
        ASSERT_NE(backend_, nullptr);
    }

    // Small bounce buffers so that ordinary test files span many chunks and outgrow the pool.
    void InitSmallPool(int64_t size_kib = 12, int64_t buffers = 2)
    {
        SetConfig("bounce_buffer_size_kb", size_kib);
        SetConfig("bounce_buffers", buffers);
        Init();
    }

    void Fini()
    {
        if (backend_ != nullptr)
            ops_->fini(backend_);
        backend_ = nullptr;
    }

    File OpenPatternFile(const std::string &name, uint64_t size, uint32_t seed, int flags = O_RDWR)
    {
        File f;
        char *path = hf_test_path(name.c_str());
        f.path = path;
        free(path);
        EXPECT_EQ(hf_test_pattern_file(f.path.c_str(), size, seed), 0);
        f.fd = open(f.path.c_str(), flags | O_CLOEXEC);
        EXPECT_GE(f.fd, 0) << f.path << ": " << strerror(errno);
        f.status_flags = fcntl(f.fd, F_GETFL);
        files_.push_back(f);
        return f;
    }

    hf_io_request Request(int op, const File &f, hf_file_info *file, hf_buf_info *buf,
                          int64_t buf_offset, size_t size, int64_t file_offset, int *gpu_error_p)
    {
        *file = hf_file_info{};
        file->struct_size = sizeof(*file);
        file->fd = f.fd;
        file->direct_fd = -1;
        file->kind = HF_FILE_REGULAR;
        file->mode = S_IFREG | 0644;
        file->status_flags = f.status_flags;
        snprintf(file->fs_name, sizeof(file->fs_name), "unknown");
        hf_io_request req{};
        req.struct_size = sizeof(req);
        req.op = op;
        req.file = file;
        req.buf = buf;
        req.size = size;
        req.file_offset = file_offset;
        req.buf_offset = buf_offset;
        req.gpu_error_p = gpu_error_p;
        return req;
    }

    ssize_t Io(int op, const File &f, Buffer &b, int64_t buf_offset, size_t size,
               int64_t file_offset, int *gpu_error_p = nullptr)
    {
        hf_file_info file;
        hf_buf_info buf = b.Info();
        hf_io_request req = Request(op, f, &file, &buf, buf_offset, size, file_offset, gpu_error_p);
        return op == HF_IO_READ ? ops_->read(backend_, &req) : ops_->write(backend_, &req);
    }

    ssize_t Read(const File &f, Buffer &b, int64_t buf_offset, size_t size, int64_t file_offset,
                 int *gpu_error_p = nullptr)
    {
        return Io(HF_IO_READ, f, b, buf_offset, size, file_offset, gpu_error_p);
    }

    ssize_t Write(const File &f, Buffer &b, int64_t buf_offset, size_t size, int64_t file_offset,
                  int *gpu_error_p = nullptr)
    {
        return Io(HF_IO_WRITE, f, b, buf_offset, size, file_offset, gpu_error_p);
    }

    int Score(const File &f, hf_buf_info buf, const char **reason_p)
    {
        hf_file_info file;
        hf_io_request req = Request(HF_IO_READ, f, &file, &buf, 0, 1, 0, nullptr);
        return ops_->score(backend_, &req, reason_p);
    }

    std::unique_ptr<FakeState> fake_;
    hf_host_api host_{};
    const hf_backend_ops *ops_ = nullptr;
    void *backend_ = nullptr;
    std::vector<File> files_;
};

// ---------------------------------------------------------------------------------------------
// The ABI surface.

TEST_F(FallbackPlugin, OpsTableDescribesTheFallback)
{
    EXPECT_EQ(ops_->magic, HF_BACKEND_MAGIC);
    EXPECT_EQ(ops_->abi_major, HF_BACKEND_ABI_MAJOR);
    EXPECT_EQ(ops_->abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(ops_->struct_size, sizeof(hf_backend_ops));
    EXPECT_STREQ(ops_->name, "fallback");
    EXPECT_EQ(ops_->caps,
              HF_CAP_READ | HF_CAP_WRITE | HF_CAP_DEVICE_MEM | HF_CAP_HOST_MEM | HF_CAP_COMPAT);
    EXPECT_NE(ops_->init, nullptr);
    EXPECT_NE(ops_->fini, nullptr);
    EXPECT_NE(ops_->probe, nullptr);
    EXPECT_NE(ops_->score, nullptr);
    EXPECT_NE(ops_->read, nullptr);
    EXPECT_NE(ops_->write, nullptr);
}

TEST_F(FallbackPlugin, EntryLowersANewerCoreMinorToItsOwn)
{
    const hf_backend_ops *ops = nullptr;
    uint32_t minor = HF_BACKEND_ABI_MINOR + 5;
    ASSERT_EQ(Plugin().entry(&host_, &minor, &ops), 0);
    EXPECT_EQ(minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(ops, ops_);
}

TEST_F(FallbackPlugin, EntryRejectsNullArguments)
{
    const hf_backend_ops *ops = nullptr;
    uint32_t minor = HF_BACKEND_ABI_MINOR;
    EXPECT_EQ(Plugin().entry(&host_, nullptr, &ops), -EINVAL);
    EXPECT_EQ(Plugin().entry(&host_, &minor, nullptr), -EINVAL);
}

TEST_F(FallbackPlugin, OnlyTheEntrySymbolIsExported)
{
    void *handle = Plugin().handle;
    EXPECT_NE(dlsym(handle, HF_BACKEND_ENTRY_SYMBOL), nullptr);
    for (const char *name : {"fallback_read", "fallback_write", "fallback_ops",
                             "hf_bounce_pool_take", "hf_bounce_pool_create", "pread_full"})
        EXPECT_EQ(dlsym(handle, name), nullptr) << name << " is exported";
}

TEST_F(FallbackPlugin, ProbeSaysUsableEverywhere)
{
    Init();
    EXPECT_EQ(ops_->probe(backend_), 0);
}

TEST_F(FallbackPlugin, InitRejectsAHostWithoutGpuTable)
{
    host_.gpu = nullptr;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_EQ(backend, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, InitRejectsAHostWithoutSystemCalls)
{
    host_.sys = nullptr;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, InitRejectsAnOlderSmallerHostTable)
{
    host_.struct_size = offsetof(hf_host_api, gpu);
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

// ---------------------------------------------------------------------------------------------
// Scoring.

TEST_F(FallbackPlugin, ScoresLowButPositiveForEveryAddressableMemoryKind)
{
    Init();
    File f = OpenPatternFile("score", 4096, 1);
    for (const MemKind &kind : {kDevice, kHostPinned, kPageable, kManaged}) {
        Buffer b(4096, kind);
        const char *reason = nullptr;
        int score = Score(f, b.Info(), &reason);
        EXPECT_GT(score, 0) << kind.name;
        EXPECT_LT(score, 100) << kind.name << ": a direct path should outscore the fallback";
        ASSERT_NE(reason, nullptr);
        EXPECT_EQ(std::string(reason).find("bounce") != std::string::npos, kind.bounces)
            << kind.name << ": " << reason;
    }
}

TEST_F(FallbackPlugin, ScoreRefusesArrayMemoryWithAReason)
{
    Init();
    File f = OpenPatternFile("score-array", 4096, 1);
    Buffer b(4096, kDevice);
    hf_buf_info info = b.Info();
    info.mem_type = HF_MEM_ARRAY;
    const char *reason = nullptr;
    EXPECT_LT(Score(f, info, &reason), 0);
    ASSERT_NE(reason, nullptr);
    EXPECT_NE(std::string(reason).find("array"), std::string::npos) << reason;
}

TEST_F(FallbackPlugin, ScoreRefusesAFileWithoutDescriptor)
{
    Init();
    File f;
    f.fd = -1;
    Buffer b(4096, kHostPinned);
    const char *reason = nullptr;
    EXPECT_LT(Score(f, b.Info(), &reason), 0);
    ASSERT_NE(reason, nullptr);
    EXPECT_NE(std::string(reason).find("descriptor"), std::string::npos) << reason;
}

TEST_F(FallbackPlugin, ScoreAcceptsANullReasonPointer)
{
    Init();
    File f = OpenPatternFile("score-null", 4096, 1);
    Buffer b(4096, kDevice);
    EXPECT_GT(Score(f, b.Info(), nullptr), 0);
}

// ---------------------------------------------------------------------------------------------
// Reads and writes at random sizes, offsets and alignments, for every kind of memory.

class FallbackRandomIo : public FallbackPlugin, public ::testing::WithParamInterface<MemKind>
{
};

// Sizes from nothing to a few MiB, biased towards the awkward small and unaligned ones.
size_t RandomSize(std::mt19937_64 &rng, size_t max)
{
    switch (rng() % 5) {
    case 0:
        return rng() % 4;
    case 1:
        return rng() % 600;
    case 2:
        return 4096 * (1 + rng() % 8) + (rng() % 2 ? 0 : rng() % 7);
    case 3:
        return rng() % (128 * kKiB);
    default:
        return rng() % max;
    }
}

TEST_P(FallbackRandomIo, RandomReadsReturnExactlyTheFileBytes)
{
    const MemKind &kind = GetParam();
    InitSmallPool();
    const uint64_t file_size = 3 * kMiB + 123;
    const uint32_t seed = 11;
    File f = OpenPatternFile(std::string("random-read-") + kind.name, file_size, seed);
    std::mt19937_64 rng(20261202);
    for (int i = 0; i < 40; i++) {
        size_t size = RandomSize(rng, file_size + 8 * kKiB);
        uint64_t file_offset = rng() % (file_size + 8 * kKiB);
        if (rng() % 4 == 0)
            file_offset = hf_align_down(file_offset, 4096);
        size_t buf_offset = rng() % 3 == 0 ? 0 : rng() % 8192;
        Buffer b(buf_offset + size + rng() % 100, kind);
        size_t expected =
            file_offset >= file_size ? 0 : std::min<uint64_t>(size, file_size - file_offset);
        SCOPED_TRACE(testing::Message() << "iteration " << i << ": " << size << " bytes at "
                                        << file_offset << " into offset " << buf_offset);

        ssize_t n =
            Read(f, b, static_cast<int64_t>(buf_offset), size, static_cast<int64_t>(file_offset));

        ASSERT_EQ(n, static_cast<ssize_t>(expected));
        ASSERT_EQ(hf_test_pattern_check(b.data() + buf_offset, expected, file_offset, seed), -1);
        ASSERT_TRUE(b.UntouchedOutside(buf_offset, buf_offset + expected));
    }
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    if (kind.bounces) {
        EXPECT_GT(fake_->memcpy_calls, 0);
        EXPECT_EQ(fake_->copies_without_pinned, 0);
        EXPECT_LE(fake_->pinned_live_max, 2);
    } else {
        EXPECT_EQ(fake_->memcpy_calls, 0);
        EXPECT_EQ(fake_->alloc_calls, 0);
    }
}

TEST_P(FallbackRandomIo, RandomWritesReadBackExactly)
{
    const MemKind &kind = GetParam();
    InitSmallPool();
    const uint64_t initial_size = kMiB + 77;
    File f = OpenPatternFile(std::string("random-write-") + kind.name, initial_size, 5);
    std::vector<uint8_t> expected_file(initial_size);
    hf_test_pattern_fill(expected_file.data(), initial_size, 0, 5);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 30; i++) {
        size_t size = RandomSize(rng, 1536 * kKiB);
        // Up to 64 KiB past the end: the gap reads back as zeros.
        uint64_t file_offset = rng() % (expected_file.size() + 64 * kKiB);
        size_t buf_offset = rng() % 3 == 0 ? 0 : rng() % 8192;
        uint32_t seed = 100 + static_cast<uint32_t>(i);
        Buffer b(buf_offset + size + rng() % 100, kind);
        hf_test_pattern_fill(b.data() + buf_offset, size, file_offset, seed);
        SCOPED_TRACE(testing::Message() << "iteration " << i << ": " << size << " bytes at "
                                        << file_offset << " from offset " << buf_offset);

        ssize_t n =
            Write(f, b, static_cast<int64_t>(buf_offset), size, static_cast<int64_t>(file_offset));

        ASSERT_EQ(n, static_cast<ssize_t>(size));
        if (size > 0 && file_offset + size > expected_file.size())
            expected_file.resize(file_offset + size, 0);
        hf_test_pattern_fill(expected_file.data() + file_offset, size, file_offset, seed);
    }
    EXPECT_TRUE(ReadWholeFile(f.fd) == expected_file);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    EXPECT_EQ(fake_->memcpy_calls > 0, kind.bounces);
}

INSTANTIATE_TEST_SUITE_P(MemoryKinds, FallbackRandomIo,
                         ::testing::Values(kDevice, kHostPinned, kPageable, kManaged),
                         [](const ::testing::TestParamInfo<MemKind> &info) {
                             return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------------------------
// End of file and holes.

TEST_F(FallbackPlugin, ReadPastEofReturnsZero)
{
    InitSmallPool(4);
    File f = OpenPatternFile("past-eof", 10000, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Read(f, b, 0, 4096, 10000), 0) << kind.name;
        EXPECT_EQ(Read(f, b, 0, 4096, int64_t{1} << 40), 0) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(0, 0)) << kind.name;
    }
}

TEST_F(FallbackPlugin, ReadStraddlingEofIsShort)
{
    InitSmallPool(4);
    File f = OpenPatternFile("straddle-eof", 10000, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Read(f, b, 100, 8000, 5000), 5000) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data() + 100, 5000, 5000, 3), -1) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(100, 5100)) << kind.name;
    }
}

TEST_F(FallbackPlugin, ReadEndingExactlyAtEofIsWhole)
{
    InitSmallPool(4);
    File f = OpenPatternFile("exact-eof", 3 * 4096, 3);
    Buffer b(3 * 4096, kDevice);
    EXPECT_EQ(Read(f, b, 0, 3 * 4096, 0), 3 * 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 3 * 4096, 0, 3), -1);
}

TEST_F(FallbackPlugin, ZeroSizeRequestsMoveNothing)
{
    Init();
    File f = OpenPatternFile("zero-size", 4096, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(4096, kind);
        EXPECT_EQ(Read(f, b, 0, 0, 0), 0);
        EXPECT_EQ(Write(f, b, 0, 0, 0), 0);
        EXPECT_EQ(Read(f, b, 4096, 0, 0), 0) << "an empty range at the buffer's end";
    }
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_EQ(fake_->pwrite_faults.calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
}

TEST_F(FallbackPlugin, HolesReadAsZeros)
{
    InitSmallPool(4);
    File f = OpenPatternFile("holes", 0, 0);
    const size_t file_size = kMiB;
    ASSERT_EQ(ftruncate(f.fd, static_cast<off_t>(file_size)), 0);
    std::vector<uint8_t> island(1000);
    hf_test_pattern_fill(island.data(), island.size(), 300000, 9);
    ASSERT_EQ(pwrite(f.fd, island.data(), island.size(), 300000), 1000);
    std::vector<uint8_t> expected(file_size, 0);
    std::copy(island.begin(), island.end(), expected.begin() + 300000);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer whole(file_size, kind);
        ASSERT_EQ(Read(f, whole, 0, file_size, 0), static_cast<ssize_t>(file_size)) << kind.name;
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), whole.data())) << kind.name;

        Buffer in_hole(64 * kKiB, kind);
        ASSERT_EQ(Read(f, in_hole, 0, 64 * kKiB, 512 * kKiB), 64 * 1024) << kind.name;
        EXPECT_TRUE(std::all_of(in_hole.data(), in_hole.data() + 64 * kKiB, [](uint8_t byte) {
            return byte == 0;
        })) << kind.name;
    }
}

TEST_F(FallbackPlugin, WritePastEofLeavesAHoleOfZeros)
{
    InitSmallPool(4);
    File f = OpenPatternFile("write-hole", 4096, 4);
    Buffer b(8192, kDevice);
    hf_test_pattern_fill(b.data(), 8192, 0, 6);
    ASSERT_EQ(Write(f, b, 0, 8192, 100000), 8192);
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    ASSERT_EQ(contents.size(), 108192u);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), 4096, 0, 4), -1);
    EXPECT_TRUE(std::all_of(contents.begin() + 4096, contents.begin() + 100000,
                            [](uint8_t byte) { return byte == 0; }));
    EXPECT_EQ(hf_test_pattern_check(contents.data() + 100000, 8192, 0, 6), -1);
}

// ---------------------------------------------------------------------------------------------
// Which path serves which memory.

TEST_F(FallbackPlugin, HostMemoryIsReadWithoutAGpuCopy)
{
    InitSmallPool(4);
    File f = OpenPatternFile("host-path", 256 * kKiB, 2);
    for (const MemKind &kind : {kHostPinned, kPageable, kManaged}) {
        Buffer b(256 * kKiB, kind);
        ASSERT_EQ(Read(f, b, 0, 256 * kKiB, 0), 256 * 1024) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), 256 * kKiB, 0, 2), -1) << kind.name;
        ASSERT_EQ(Write(f, b, 0, 256 * kKiB, 0), 256 * 1024) << kind.name;
    }
    EXPECT_EQ(fake_->memcpy_calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_EQ(fake_->set_device_calls, 0);
}

TEST_F(FallbackPlugin, DeviceMemoryIsReadThroughPinnedBounceBuffersOneChunkAtATime)
{
    InitSmallPool(4, 2);
    const size_t size = kMiB + 5;
    File f = OpenPatternFile("device-path", size, 2);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, static_cast<int>((size + 4095) / 4096));
    EXPECT_EQ(fake_->copies_without_pinned, 0);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    EXPECT_EQ(fake_->alloc_calls, 1) << "one thread reuses one bounce buffer";
    EXPECT_EQ(fake_->pinned_size, 4 * kKiB);
}

TEST_F(FallbackPlugin, DeviceMemoryTheCpuCanAddressStillGoesThroughTheGpu)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-coherent", 64 * kKiB, 2);
    MemKind coherent = kDevice;
    coherent.host_accessible = true;
    Buffer b(64 * kKiB, coherent);
    ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, 16);
}

TEST_F(FallbackPlugin, HostMemoryTheCpuCannotAddressGoesThroughTheGpu)
{
    InitSmallPool(4);
    File f = OpenPatternFile("host-inaccessible", 64 * kKiB, 2);
    MemKind inaccessible = kHostPinned;
    inaccessible.host_accessible = false;
    inaccessible.bounces = true;
    Buffer b(64 * kKiB, inaccessible);
    ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, 16);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
}

TEST_F(FallbackPlugin, CopiesRunOnTheBuffersDeviceAndTheCallersDeviceIsRestored)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-select", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    t_current_device = 0;
    ASSERT_EQ(Read(f, b, 0, 16 * kKiB, 0), 16 * 1024);
    EXPECT_EQ(fake_->copy_device, 1);
    EXPECT_EQ(t_current_device, 0);
    EXPECT_EQ(fake_->set_device_calls, 2);
    ASSERT_EQ(Write(f, b, 0, 16 * kKiB, 0), 16 * 1024);
    EXPECT_EQ(fake_->copy_device, 1);
    EXPECT_EQ(t_current_device, 0);
}

TEST_F(FallbackPlugin, TheCurrentDeviceIsLeftAloneWhenItIsTheBuffers)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-current", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    t_current_device = 1;
    ASSERT_EQ(Read(f, b, 0, 16 * kKiB, 0), 16 * 1024);
    EXPECT_EQ(fake_->set_device_calls, 0);
    EXPECT_EQ(t_current_device, 1);
}

TEST_F(FallbackPlugin, SetDeviceFailureReturnsEgpuWithTheRuntimeCode)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-fail", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    fake_->set_device_fail_from = 0;
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 16 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeNoDevice);
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "GPU 1"));
}

TEST_F(FallbackPlugin, FailingToRestoreTheCallersDeviceOnlyWarns)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-restore-fail", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    fake_->set_device_fail_from = 1;
    ASSERT_EQ(Read(f, b, 0, 16 * kKiB, 0), 16 * 1024) << "the data did move";
    EXPECT_EQ(hf_test_pattern_check(b.data(), 16 * kKiB, 0, 2), -1);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "GPU 0"));
}

// ---------------------------------------------------------------------------------------------
// System call faults.

TEST_F(FallbackPlugin, EintrIsRetried)
{
    InitSmallPool(4);
    File f = OpenPatternFile("eintr", 64 * kKiB, 8);
    fake_->pread_faults.eintr_every = 2;
    fake_->pwrite_faults.eintr_every = 2;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(64 * kKiB, kind);
        ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 8), -1) << kind.name;
        ASSERT_EQ(Write(f, b, 0, 64 * kKiB, 0), 64 * 1024) << kind.name;
    }
    EXPECT_GT(fake_->pread_faults.eintr_seen, 0);
    EXPECT_GT(fake_->pwrite_faults.eintr_seen, 0);
    EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data(), 64 * kKiB, 0, 8), -1);
}

TEST_F(FallbackPlugin, EioBeforeAnyByteReturnsEio)
{
    InitSmallPool(4);
    File f = OpenPatternFile("eio-first", 64 * kKiB, 8);
    fake_->pread_faults.fail_from = 0;
    fake_->pread_faults.fail_errno = EIO;
    fake_->pwrite_faults.fail_from = 0;
    fake_->pwrite_faults.fail_errno = EIO;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(64 * kKiB, kind);
        EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0), -EIO) << kind.name;
        EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), -EIO) << kind.name;
    }
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "pread"));
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "pwrite"));
}

TEST_F(FallbackPlugin, ErrnoOtherThanEioIsPassedOn)
{
    InitSmallPool(4);
    File f = OpenPatternFile("enospc", 64 * kKiB, 8);
    fake_->pwrite_faults.fail_from = 0;
    fake_->pwrite_faults.fail_errno = ENOSPC;
    Buffer b(64 * kKiB, kDevice);
    EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), -ENOSPC);
}

TEST_F(FallbackPlugin, ReadErrorAfterSomeBytesReturnsTheShortCount)
{
    InitSmallPool(12);
    File f = OpenPatternFile("eio-later-read", 64 * kKiB, 8);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        fake_->pread_faults.calls = 0;
        fake_->pread_faults.max_bytes = 5000;
        fake_->pread_faults.fail_from = 1;
        fake_->pread_faults.fail_errno = EIO;
        Buffer b(64 * kKiB, kind);
        EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0), 5000) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), 5000, 0, 8), -1) << kind.name;
    }
}

TEST_F(FallbackPlugin, ReadErrorInALaterChunkReturnsTheChunksBefore)
{
    InitSmallPool(4);
    File f = OpenPatternFile("eio-later-chunk", 64 * kKiB, 8);
    fake_->pread_faults.fail_from = 3;
    fake_->pread_faults.fail_errno = EIO;
    Buffer b(64 * kKiB, kDevice);
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0), 3 * 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 3 * 4096, 0, 8), -1);
}

TEST_F(FallbackPlugin, WriteErrorAfterSomeBytesReturnsTheShortCount)
{
    InitSmallPool(12);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        File f = OpenPatternFile(std::string("eio-later-write-") + kind.name, 64 * kKiB, 8);
        fake_->pwrite_faults.calls = 0;
        fake_->pwrite_faults.max_bytes = 5000;
        fake_->pwrite_faults.fail_from = 1;
        fake_->pwrite_faults.fail_errno = EIO;
        Buffer b(64 * kKiB, kind);
        hf_test_pattern_fill(b.data(), 64 * kKiB, 0, 9);
        EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), 5000) << kind.name;
        std::vector<uint8_t> contents = ReadWholeFile(f.fd);
        EXPECT_EQ(hf_test_pattern_check(contents.data(), 5000, 0, 9), -1) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(contents.data() + 5000, 64 * kKiB - 5000, 5000, 8), -1)
            << kind.name;
    }
}

TEST_F(FallbackPlugin, ShortPreadsAreContinued)
{
    InitSmallPool(12);
    const size_t size = 100000;
    File f = OpenPatternFile("short-pread", size, 8);
    fake_->pread_faults.max_bytes = 777;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        fake_->pread_faults.calls = 0;
        Buffer b(size, kind);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 8), -1) << kind.name;
        EXPECT_GE(fake_->pread_faults.calls, static_cast<int>(size / 777)) << kind.name;
    }
}

TEST_F(FallbackPlugin, ShortPwritesAreContinued)
{
    InitSmallPool(12);
    const size_t size = 100000;
    fake_->pwrite_faults.max_bytes = 777;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        File f = OpenPatternFile(std::string("short-pwrite-") + kind.name, 0, 0);
        fake_->pwrite_faults.calls = 0;
        Buffer b(size, kind);
        hf_test_pattern_fill(b.data(), size, 0, 12);
        ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
        std::vector<uint8_t> contents = ReadWholeFile(f.fd);
        ASSERT_EQ(contents.size(), size);
        EXPECT_EQ(hf_test_pattern_check(contents.data(), size, 0, 12), -1) << kind.name;
        EXPECT_GE(fake_->pwrite_faults.calls, static_cast<int>(size / 777)) << kind.name;
    }
}

TEST_F(FallbackPlugin, PwriteThatMakesNoProgressReturnsEio)
{
    InitSmallPool(4);
    File f = OpenPatternFile("pwrite-zero", 8192, 8);
    fake_->pwrite_faults.zero_from = 0;
    Buffer b(8192, kHostPinned);
    EXPECT_EQ(Write(f, b, 0, 8192, 0), -EIO);
    fake_->pwrite_faults.calls = 0;
    fake_->pwrite_faults.zero_from = 1;
    fake_->pwrite_faults.max_bytes = 100;
    EXPECT_EQ(Write(f, b, 0, 8192, 0), 100);
}

TEST_F(FallbackPlugin, SystemCallClaimingMoreThanAskedIsAnIoError)
{
    InitSmallPool(4);
    File f = OpenPatternFile("overstate", 8192, 8);
    fake_->pread_faults.overstate = true;
    fake_->pwrite_faults.overstate = true;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Read(f, b, 0, 8192, 0), -EIO) << kind.name;
        EXPECT_EQ(Write(f, b, 0, 8192, 0), -EIO) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(0, 0)) << kind.name;
    }
}

// ---------------------------------------------------------------------------------------------
// Access modes and bad requests.

TEST_F(FallbackPlugin, WriteToReadOnlyFileReturnsEbadf)
{
    Init();
    File f = OpenPatternFile("read-only", 8192, 8, O_RDONLY);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Write(f, b, 0, 8192, 0), -EBADF) << kind.name;
    }
    EXPECT_EQ(fake_->pwrite_faults.calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "read-only"));
}

TEST_F(FallbackPlugin, ReadFromWriteOnlyFileReturnsEbadf)
{
    Init();
    File f = OpenPatternFile("write-only", 8192, 8, O_WRONLY);
    Buffer b(8192, kDevice);
    EXPECT_EQ(Read(f, b, 0, 8192, 0), -EBADF);
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "write-only"));
}

TEST_F(FallbackPlugin, WriteToAppendModeFileIsRejected)
{
    Init();
    File f = OpenPatternFile("append", 8192, 8, O_RDWR | O_APPEND);
    Buffer b(4096, kHostPinned);
    EXPECT_EQ(Write(f, b, 0, 4096, 0), -EINVAL);
    EXPECT_EQ(fake_->pwrite_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "O_APPEND"));
    EXPECT_EQ(Read(f, b, 0, 4096, 0), 4096) << "reads from an append-mode file are fine";
}

TEST_F(FallbackPlugin, NegativeOffsetsAreRejected)
{
    Init();
    File f = OpenPatternFile("negative", 8192, 8);
    Buffer b(8192, kDevice);
    EXPECT_EQ(Read(f, b, 0, 4096, -1), -EINVAL);
    EXPECT_EQ(Read(f, b, -1, 4096, 0), -EINVAL);
    EXPECT_EQ(Write(f, b, 0, 4096, -4096), -EINVAL);
    EXPECT_EQ(fake_->pread_faults.calls + fake_->pwrite_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "negative offset"));
}

TEST_F(FallbackPlugin, RangesPastTheBufferAreRejected)
{
    Init();
    File f = OpenPatternFile("past-buffer", 8192, 8);
    Buffer b(4096, kHostPinned);
    EXPECT_EQ(Read(f, b, 0, 4097, 0), -EINVAL);
    EXPECT_EQ(Read(f, b, 4000, 97, 0), -EINVAL);
    EXPECT_EQ(Write(f, b, 4097, 0, 0), -EINVAL);
    EXPECT_EQ(Read(f, b, 0, SIZE_MAX, 0), -EINVAL);
    EXPECT_EQ(Read(f, b, 0, 4096, INT64_MAX - 100), -EINVAL) << "the file offset would overflow";
    EXPECT_EQ(fake_->pread_faults.calls + fake_->pwrite_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "past the end of the buffer"));
}

TEST_F(FallbackPlugin, ArrayMemoryIsRejected)
{
    Init();
    File f = OpenPatternFile("array", 8192, 8);
    Buffer b(4096, kDevice);
    hf_file_info file;
    hf_buf_info buf = b.Info();
    buf.mem_type = HF_MEM_ARRAY;
    hf_io_request req = Request(HF_IO_READ, f, &file, &buf, 0, 4096, 0, nullptr);
    EXPECT_EQ(ops_->read(backend_, &req), -EINVAL);
    req.op = HF_IO_WRITE;
    EXPECT_EQ(ops_->write(backend_, &req), -EINVAL);
    EXPECT_EQ(fake_->pread_faults.calls + fake_->pwrite_faults.calls, 0);
}

// ---------------------------------------------------------------------------------------------
// GPU runtime failures.

TEST_F(FallbackPlugin, GpuCopyFailureReturnsEgpuWithTheRuntimeCode)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-fail", 64 * kKiB, 8);
    fake_->memcpy_fail_from = 0;
    Buffer b(64 * kKiB, kDevice);
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeCopyFailure);
    gpu_error = 0;
    EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeCopyFailure);
    EXPECT_EQ(fake_->pwrite_faults.calls, 0) << "nothing reaches the file when the copy fails";
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "fakeFailure"));
}

TEST_F(FallbackPlugin, GpuCopyFailureAfterSomeChunksReturnsTheShortCount)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-fail-later", 64 * kKiB, 8);
    fake_->memcpy_fail_from = 2;
    Buffer b(64 * kKiB, kDevice);
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0, &gpu_error), 2 * 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 2 * 4096, 0, 8), -1);
    EXPECT_EQ(gpu_error, 0) << "a short count carries no error code";

    fake_->memcpy_calls = 0;
    hf_test_pattern_fill(b.data(), 64 * kKiB, 0, 10);
    EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), 2 * 4096);
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), 2 * 4096, 0, 10), -1);
    EXPECT_EQ(hf_test_pattern_check(contents.data() + 8192, 64 * kKiB - 8192, 8192, 8), -1);
}

TEST_F(FallbackPlugin, GpuCopyFailureWithoutAnErrorPointerStillFails)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-fail-null", 8192, 8);
    fake_->memcpy_fail_from = 0;
    Buffer b(8192, kDevice);
    EXPECT_EQ(Read(f, b, 0, 8192, 0, nullptr), -HF_EGPU);
}

TEST_F(FallbackPlugin, PinningFailureReturnsEgpuWithTheRuntimeCode)
{
    InitSmallPool(4);
    File f = OpenPatternFile("pin-fail", 8192, 8);
    fake_->alloc_fail_from = 0;
    Buffer b(8192, kDevice);
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 8192, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeOutOfMemory);
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "cannot pin"));

    fake_->alloc_fail_from = -1;
    EXPECT_EQ(Read(f, b, 0, 8192, 0), 8192) << "a later request pins again";
}

// ---------------------------------------------------------------------------------------------
// Many threads at once.

TEST_F(FallbackPlugin, ConcurrentRequestsStayCorrectAndTheBoundedPoolIsShared)
{
    InitSmallPool(4, 2);
    const size_t region = 192 * kKiB + 13;
    const int threads = 8;
    File shared = OpenPatternFile("concurrent-read", 2 * kMiB, 21);
    File out = OpenPatternFile("concurrent-write", threads * region, 22);
    std::atomic<int> failures{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; t++) {
        workers.emplace_back([&, t] {
            std::mt19937_64 rng(static_cast<uint64_t>(t));
            const MemKind &kind = t % 2 == 0 ? kDevice : kHostPinned;
            for (int i = 0; i < 6; i++) {
                size_t size = 1 + rng() % (300 * kKiB);
                uint64_t offset = rng() % (2 * kMiB - size);
                Buffer b(size + 7, kind);
                if (Read(shared, b, 7, size, static_cast<int64_t>(offset)) !=
                        static_cast<ssize_t>(size) ||
                    hf_test_pattern_check(b.data() + 7, size, offset, 21) != -1)
                    failures++;
            }
            Buffer w(region, kind);
            uint64_t at = static_cast<uint64_t>(t) * region;
            hf_test_pattern_fill(w.data(), region, at, 30);
            if (Write(out, w, 0, region, static_cast<int64_t>(at)) != static_cast<ssize_t>(region))
                failures++;
        });
    }
    for (std::thread &w : workers)
        w.join();
    EXPECT_EQ(failures, 0);
    std::vector<uint8_t> contents = ReadWholeFile(out.fd);
    ASSERT_EQ(contents.size(), threads * region);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), contents.size(), 0, 30), -1);
    EXPECT_LE(fake_->pinned_live_max, 2);
    EXPECT_LE(fake_->alloc_calls, 2);
    EXPECT_EQ(fake_->copies_without_pinned, 0);
}

// ---------------------------------------------------------------------------------------------
// Configuration.

TEST_F(FallbackPlugin, DefaultBounceBuffersAreFourMib)
{
    Init();
    File f = OpenPatternFile("defaults", 8192, 8);
    Buffer b(8192, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->pinned_size, kDefaultBounceSize);
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "8 pinned bounce buffers of 4096 KiB"));
}

TEST_F(FallbackPlugin, ConfiguredBounceBufferSizeIsUsed)
{
    SetConfig("bounce_buffer_size_kb", 12);
    Init();
    File f = OpenPatternFile("configured-size", 8192, 8);
    Buffer b(8192, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->pinned_size, 12 * kKiB);
}

TEST_F(FallbackPlugin, ConfiguredBufferCountBoundsThePool)
{
    InitSmallPool(4, 1);
    File f = OpenPatternFile("configured-count", 256 * kKiB, 8);
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; t++) {
        workers.emplace_back([&] {
            Buffer b(256 * kKiB, kDevice);
            if (Read(f, b, 0, 256 * kKiB, 0) != 256 * 1024)
                failures++;
        });
    }
    for (std::thread &w : workers)
        w.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(fake_->alloc_calls, 1);
}

class FallbackBadBounceSize : public FallbackPlugin,
                              public ::testing::WithParamInterface<std::pair<int, int64_t>>
{
};

TEST_P(FallbackBadBounceSize, IsLoggedAndReplacedByTheDefault)
{
    fake_->config["bounce_buffer_size_kb"] = GetParam();
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "bounce_buffer_size_kb"));
    File f = OpenPatternFile("bad-size", 8192, 8);
    Buffer b(8192, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->pinned_size, kDefaultBounceSize);
}

INSTANTIATE_TEST_SUITE_P(
    Values, FallbackBadBounceSize,
    ::testing::Values(std::make_pair(0, int64_t{0}), std::make_pair(0, int64_t{-4}),
                      std::make_pair(0, int64_t{6}), std::make_pair(0, int64_t{1024 * 1024 + 4}),
                      std::make_pair(0, int64_t{1} << 40), std::make_pair(-EINVAL, int64_t{0})));

class FallbackBadBounceCount : public FallbackPlugin,
                               public ::testing::WithParamInterface<std::pair<int, int64_t>>
{
};

TEST_P(FallbackBadBounceCount, IsLoggedAndReplacedByTheDefault)
{
    fake_->config["bounce_buffers"] = GetParam();
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "bounce_buffers"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "8 pinned bounce buffers"));
}

INSTANTIATE_TEST_SUITE_P(Values, FallbackBadBounceCount,
                         ::testing::Values(std::make_pair(0, int64_t{0}),
                                           std::make_pair(0, int64_t{-1}),
                                           std::make_pair(0, int64_t{1025}),
                                           std::make_pair(-EINVAL, int64_t{0})));

// ---------------------------------------------------------------------------------------------
// The shared bounce pool, linked directly.

class BouncePool : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        fake_ = std::make_unique<FakeState>();
        g_fake = fake_.get();
        host_ = MakeHost();
    }
    void TearDown() override
    {
        hf_bounce_pool_destroy(pool_);
        EXPECT_EQ(fake_->pinned_live, 0);
        g_fake = nullptr;
    }
    void Create(size_t size, unsigned count)
    {
        ASSERT_EQ(hf_bounce_pool_create(&host_, size, count, &pool_), 0);
    }

    std::unique_ptr<FakeState> fake_;
    hf_host_api host_{};
    hf_bounce_pool *pool_ = nullptr;
};

TEST_F(BouncePool, CreatingPinsNothing)
{
    Create(4096, 4);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_EQ(hf_bounce_pool_buffer_size(pool_), 4096u);
}

TEST_F(BouncePool, RejectsZeroSizeOrCount)
{
    hf_bounce_pool *pool = nullptr;
    EXPECT_EQ(hf_bounce_pool_create(&host_, 0, 4, &pool), -EINVAL);
    EXPECT_EQ(hf_bounce_pool_create(&host_, 4096, 0, &pool), -EINVAL);
    EXPECT_EQ(pool, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "not a pool"));
}

TEST_F(BouncePool, GivenBackBuffersAreReused)
{
    Create(4096, 4);
    void *first = nullptr;
    void *second = nullptr;
    int gpu_error = 0;
    ASSERT_EQ(hf_bounce_pool_take(pool_, &first, &gpu_error), 0);
    hf_bounce_pool_give(pool_, first);
    ASSERT_EQ(hf_bounce_pool_take(pool_, &second, &gpu_error), 0);
    EXPECT_EQ(first, second);
    EXPECT_EQ(fake_->alloc_calls, 1);
    hf_bounce_pool_give(pool_, second);
}

TEST_F(BouncePool, TakeWaitsWhileEveryBufferIsOut)
{
    Create(4096, 1);
    void *held = nullptr;
    int gpu_error = 0;
    ASSERT_EQ(hf_bounce_pool_take(pool_, &held, &gpu_error), 0);
    std::atomic<bool> got{false};
    void *taken = nullptr;
    std::thread waiter([&] {
        int err = 0;
        EXPECT_EQ(hf_bounce_pool_take(pool_, &taken, &err), 0);
        got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(got) << "a second buffer was handed out beyond the bound";
    hf_bounce_pool_give(pool_, held);
    waiter.join();
    EXPECT_TRUE(got);
    EXPECT_EQ(taken, held);
    EXPECT_EQ(fake_->alloc_calls, 1);
    hf_bounce_pool_give(pool_, taken);
}

TEST_F(BouncePool, FirstPinningFailureReturnsEgpuWithTheRuntimeCode)
{
    Create(4096, 2);
    fake_->alloc_fail_from = 0;
    void *buffer = nullptr;
    int gpu_error = 0;
    EXPECT_EQ(hf_bounce_pool_take(pool_, &buffer, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeOutOfMemory);
    EXPECT_EQ(buffer, nullptr);
}

TEST_F(BouncePool, MakesDoWithFewerBuffersWhenPinningRunsOut)
{
    Create(4096, 4);
    fake_->alloc_fail_from = 1;
    void *held = nullptr;
    int gpu_error = 0;
    ASSERT_EQ(hf_bounce_pool_take(pool_, &held, &gpu_error), 0);
    void *taken = nullptr;
    std::thread waiter([&] {
        int err = 0;
        EXPECT_EQ(hf_bounce_pool_take(pool_, &taken, &err), 0);
    });
    // Give back only once the waiter has failed to pin its own buffer.
    for (int i = 0; i < 5000 && fake_->alloc_calls < 2; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    hf_bounce_pool_give(pool_, held);
    waiter.join();
    EXPECT_EQ(taken, held);
    EXPECT_EQ(fake_->alloc_calls, 2);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "making do with 1"));
    hf_bounce_pool_give(pool_, taken);
    void *again = nullptr;
    ASSERT_EQ(hf_bounce_pool_take(pool_, &again, &gpu_error), 0);
    EXPECT_EQ(again, taken);
    EXPECT_EQ(fake_->alloc_calls, 2) << "the lowered bound holds: no new pinning attempt";
    hf_bounce_pool_give(pool_, again);
}

TEST_F(BouncePool, GivingBackAnUntakenBufferIsIgnored)
{
    Create(4096, 2);
    char stray[16];
    hf_bounce_pool_give(pool_, stray);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "not taken"));
}

TEST_F(BouncePool, DestroyFreesEveryBuffer)
{
    Create(4096, 3);
    void *buffers[3];
    int gpu_error = 0;
    for (void *&b : buffers)
        ASSERT_EQ(hf_bounce_pool_take(pool_, &b, &gpu_error), 0);
    for (void *b : buffers)
        hf_bounce_pool_give(pool_, b);
    EXPECT_EQ(fake_->pinned_live, 3);
    hf_bounce_pool_destroy(pool_);
    pool_ = nullptr;
    EXPECT_EQ(fake_->pinned_live, 0);
}

TEST_F(BouncePool, DestroyWithABufferStillTakenLeavesItAllocated)
{
    Create(4096, 2);
    void *taken = nullptr;
    int gpu_error = 0;
    ASSERT_EQ(hf_bounce_pool_take(pool_, &taken, &gpu_error), 0);
    hf_bounce_pool_destroy(pool_);
    pool_ = nullptr;
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "still taken"));
    EXPECT_EQ(fake_->pinned_live, 1) << "memory a caller still uses must not be freed";
    EXPECT_EQ(FakeHostFreePinned(taken), 0);
}

TEST(PluginAlign, RoundsToPowerOfTwoGranules)
{
    EXPECT_TRUE(hf_align_is_pow2(4096));
    EXPECT_FALSE(hf_align_is_pow2(0));
    EXPECT_FALSE(hf_align_is_pow2(12288));
    EXPECT_EQ(hf_align_down(12345, 4096), 12288u);
    EXPECT_EQ(hf_align_up(12345, 4096), 16384u);
    EXPECT_EQ(hf_align_up(8192, 4096), 8192u);
    EXPECT_EQ(hf_align_down(8192, 4096), 8192u);
    EXPECT_TRUE(hf_align_is_aligned(1u << 20, 512));
    EXPECT_FALSE(hf_align_is_aligned(1000, 512));
    alignas(64) char bytes[128];
    EXPECT_TRUE(hf_align_ptr_is_aligned(bytes, 64));
    EXPECT_FALSE(hf_align_ptr_is_aligned(bytes + 1, 2));
}

} // namespace
