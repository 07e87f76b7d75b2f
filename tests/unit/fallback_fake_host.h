// The fake host the fallback plugin is tested through: the built module is dlopen'ed and handed a
// host table whose GPU is plain memory with deferred stream copies, whose executor runs tasks on
// real threads, and whose system calls inject faults by call count or by file offset and record
// which descriptor got which call. Shared by the fallback_* test files.
#ifndef HF_TEST_FALLBACK_FAKE_HOST_H
#define HF_TEST_FALLBACK_FAKE_HOST_H

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hf_harness.h"
#include "hipfile/backend.h"

namespace fallback_test
{

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;
constexpr size_t kDefaultChunkSize = 4 * kMiB;
constexpr int kFakeOutOfMemory = 2;
constexpr int kFakeCopyFailure = 77;
constexpr int kFakeSyncFailure = 78;
constexpr int kFakeStreamFailure = 79;
constexpr int kFakeNoDevice = 101;
constexpr int kFakeLockRefused = 102;
constexpr uint8_t kUntouched = 0xA5;

// Faults for one system call. Counter-based faults (call index) suit serial requests; offset-based
// faults model a bad spot in the file and stay deterministic however many threads run pieces.
struct SysFaults {
    std::atomic<int> calls{0};
    std::atomic<int> eintr_every{0}; // every n-th call fails with EINTR first
    std::atomic<int> eintr_seen{0};
    std::atomic<int> fail_from{-1}; // calls from this index on fail with fail_errno
    std::atomic<int> fail_errno{0};
    std::atomic<int> zero_from{-1};     // calls from this index on move nothing and return 0
    std::atomic<bool> overstate{false}; // claim one byte more than asked for
    std::atomic<size_t> max_bytes{0};   // cap on the bytes one call moves (short I/O)

    // A call whose range holds fault_offset moves only the bytes before it; a call starting there
    // fails with fault_errno (0: succeeds, which makes the fault a mere short transfer). The
    // failure fires fault_times times (-1: for ever), then the spot heals.
    std::atomic<int64_t> fault_offset{-1};
    std::atomic<int> fault_errno{0};
    std::atomic<int> fault_times{-1};
    std::atomic<int> fault_fired{0};
};

// How preadv2(RWF_NOWAIT) answers: as the kernel does, or as if nothing were cached, or as if the
// kernel could not tell, or with only the first half of what is asked, or as if the first half of
// every 16 KiB block of the file were cached (a property of the file, however it is asked), or as
// if the file's first mebibyte were cached and nothing after it (cachestat counts alike).
enum class CacheAnswer {
    kKernel,
    kNothingCached,
    kUnsupported,
    kHalfCached,
    kFirstHalfOfBlocks,
    kFirstMebibyte
};

struct FakeStream;

struct FakeState {
    std::mutex mu;
    std::vector<std::pair<int, std::string>> log_lines;
    std::map<std::string, std::pair<int, int64_t>> config;           // key -> (result, value)
    std::map<std::string, std::pair<int, bool>> config_bools;        // key -> (result, value)
    std::map<std::string, std::pair<int, std::string>> config_texts; // key -> (result, value)
    std::atomic<int> core_limits_calls{0};                           // core_limits answered
    std::atomic<int> core_keys_by_name{
        0}; // config_int/config_bool asked for execution.* or properties.*
    std::vector<std::pair<uintptr_t, size_t>> pinned;
    struct DeviceRange {
        uintptr_t base;
        size_t size;
        int device;
    };
    std::vector<DeviceRange> device_ranges;

    std::atomic<int> alloc_calls{0};
    std::atomic<int> alloc_calls_on_device[2]{};
    std::atomic<int> alloc_fail_from{-1};
    std::atomic<int> pinned_live{0};
    std::atomic<int> pinned_live_max{0};
    std::atomic<size_t> pinned_size{0};
    std::atomic<int> bad_frees{0};

    std::atomic<int> memcpy_calls{0}; // async copies queued
    std::atomic<int> memcpy_fail_from{-1};
    std::atomic<int> memcpy_sync_calls{0};
    std::atomic<int> copies_without_pinned{0};
    std::atomic<int> copies_on_wrong_device{0};
    std::atomic<int> copy_device{-1};
    std::vector<size_t> copy_sizes; // bytes of each queued copy, in queue order; guarded by mu
    std::set<std::thread::id> copy_threads; // threads that queued copies; guarded by mu
    std::set<unsigned> copy_tasks; // parallel_run task indices that queued copies; guarded by mu
    std::vector<size_t> preadv2_sizes; // bytes each preadv2 asked for, in call order; guarded by mu
    std::vector<size_t> pread_sizes;   // bytes each pread asked for, in call order; guarded by mu
    std::vector<size_t> pwrite_sizes;  // bytes each pwrite asked for, in call order; guarded by mu

    // Copies whose device-side range holds this address fail when queued (copy_fail_at) or when
    // their stream is waited for (sync_fail_at): a bad spot in device memory, deterministic
    // however the pieces of a request are spread over threads.
    std::atomic<uintptr_t> copy_fail_at{0};
    std::atomic<uintptr_t> sync_fail_at{0};
    // Where the device side of the copy that failed at sync_fail_at starts: a copy may carry
    // several windows that one lane read back to back, so the failure ends a result there.
    std::atomic<uintptr_t> sync_failed_copy{0};

    std::atomic<int> streams_created{0};
    std::atomic<int> streams_live{0};
    std::atomic<int> stream_create_fail_from{-1};
    std::atomic<int> sync_calls{0};
    std::atomic<int> sync_fail_from{-1};

    std::atomic<int> set_device_calls{0};
    std::atomic<int> set_device_fail_from{-1};
    std::atomic<bool> set_device_failed{false}; // a set_device call failed
    // parallel_run's caller starts its own task only once a set_device call failed (up to two
    // seconds), so a worker is the first to run a task.
    std::atomic<bool> caller_waits_for_device_failure{false};
    std::atomic<int> device_count{2};

    std::atomic<unsigned> width{4};      // parallel_width: workers + caller
    std::atomic<uint32_t> cpu_budget{0}; // core_limits' CPUs the process may use; 0: unknown
    std::atomic<int> parallel_runs{0};
    std::atomic<int> parallel_tasks{0};
    std::atomic<int> parallel_run_result{0}; // nonzero: parallel_run fails with it, running nothing
    std::atomic<int> max_tasks_at_once{0};
    std::atomic<int> tasks_running{0};

    // pread waits (up to two seconds) until a second task of parallel_run is running, once, so
    // tests of concurrency do not depend on how the scheduler happens to run the threads.
    std::atomic<bool> pread_waits_for_company{false};
    std::atomic<bool> company_seen{false};
    // pread waits (up to two seconds, once) until host_alloc_pinned has been called this often.
    std::atomic<int> pread_waits_for_allocs{0};
    // The first pread to see this nonzero waits (up to five seconds) until this many other preads
    // have returned, as a thread the scheduler parks would; parked_pread_released says whether
    // they did.
    std::atomic<int> first_pread_waits_for_others{0};
    std::atomic<bool> parked_pread_released{false};
    std::atomic<int> preads_done{0};

    std::atomic<int> syscalls_on_device_memory{0};
    SysFaults pread_faults;
    SysFaults pwrite_faults;
    std::atomic<CacheAnswer> cache_answer{CacheAnswer::kKernel};
    std::atomic<int> direct_fd{-1}; // the descriptor calls are counted against as O_DIRECT
    std::atomic<int> preadv2_calls{0};
    std::atomic<int> cached_bytes_calls{0}; // page-cache questions (cachestat), by cache_answer
    std::atomic<int> fstat_calls{0};
    std::atomic<int> preads_direct{0};
    std::atomic<int> preads_buffered{0};
    std::atomic<int> pwrites_direct{0};
    std::atomic<int> direct_einval{0}; // O_DIRECT preads that fail with EINVAL before working
    std::atomic<int> direct_write_einval{
        0}; // O_DIRECT pwrites that fail with EINVAL before working
    std::atomic<uint64_t> bytes_written_direct{0};
    std::atomic<int> direct_misaligned{0}; // O_DIRECT preads a kernel would refuse
    // Read-only page locks (host_register_read_only, offered by FakeGpuThatLocksPages): a lock
    // takes the pages' bytes as they are then, and copies from them read those, as a copy
    // engine reads locked pages whatever happens to the file afterwards. A lock fails as the
    // kernel's would for pages past the end of the file, and from call lock_fail_from on.
    std::atomic<int> lock_calls{0};
    std::atomic<int> lock_fail_from{-1};
    std::atomic<int> locks_live{0};
    std::atomic<int> unlock_calls{0};
    std::atomic<int> bad_unlocks{0}; // unknown addresses, or pages a queued copy still reads
    std::atomic<int> copies_from_locked_pages{0};
    std::function<void(int call)> before_lock; // runs before each lock, outside mu
    std::atomic<uint64_t> bytes_direct{0};
    std::atomic<uint64_t> bytes_buffered{0};
    std::atomic<uint64_t> bytes_probed{0};
};

extern FakeState *g_fake;

// The calling thread's current device in the fake runtime (threads start on device 0).
int CurrentDevice();
void SetCurrentDevice(int device);

hf_host_api MakeHost();
// The fake GPU table with host_register_read_only and host_unregister: hand it to the plugin
// (host_.gpu) before Init for the page-cache path.
const hf_gpu_ops *FakeGpuThatLocksPages();
// The fake system-call table, for tests that hand the plugin a variant of it.
hf_sys_ops FakeSysTable();
bool LogHas(int level, const std::string &needle);
int FakeHostFreePinned(void *ptr);

struct MemKind {
    const char *name;
    int mem_type;
    int device;
    bool host_accessible;
    bool bounces; // whether the fallback must go through the GPU copy
};

extern const MemKind kDevice;
extern const MemKind kDeviceCoherent; // device memory the CPU can address (host emulation, APUs)
extern const MemKind kHostPinned;
extern const MemKind kPageable;
extern const MemKind kManaged;

// A buffer with guard bytes on both sides of its extent, all bytes starting as kUntouched. Device
// buffers are plain host memory the fake system calls refuse to see touched. The extent starts
// 4 KiB aligned, so O_DIRECT can reach it.
class Buffer
{
  public:
    static constexpr size_t kGuard = 4096;

    Buffer(size_t length, const MemKind &kind);
    ~Buffer();
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;

    uint8_t *data()
    {
        return bytes_ + kGuard;
    }
    size_t length() const
    {
        return length_;
    }
    hf_buf_info Info();
    // Whether every byte outside [from, to) of the extent, and every guard byte, is untouched.
    bool UntouchedOutside(size_t from, size_t to) const;

  private:
    uint8_t *bytes_;
    size_t total_;
    size_t length_;
    MemKind kind_;
};

struct File {
    int fd = -1;
    int direct_fd = -1;
    int status_flags = 0;
    std::string path;
};

// Whole-file contents through the real system call, for checking writes.
std::vector<uint8_t> ReadWholeFile(int fd);

struct LoadedPlugin {
    void *handle = nullptr;
    hf_backend_entry_fn entry = nullptr;
    std::string error;
};

// The plugin, loaded once per process as the core would: plugins are never unloaded.
const LoadedPlugin &Plugin();

class FallbackPlugin : public ::testing::Test
{
  protected:
    void SetUp() override;
    void TearDown() override;

    // Set by tests of files the program opened with O_DIRECT, whose writes may go direct.
    bool direct_writes_expected_ = false;

    void SetConfig(const char *key, int64_t value)
    {
        fake_->config[key] = {0, value};
    }
    void SetConfigBool(const char *key, bool value)
    {
        fake_->config_bools[key] = {0, value};
    }
    void SetConfigText(const char *key, const std::string &value)
    {
        fake_->config_texts[key] = {0, value};
    }

    void Init();
    // Small chunks so that ordinary test files span many chunks and outgrow the pool.
    void InitSmallPool(int64_t chunk_kib = 12, int64_t slots = 2);
    // Small chunks, and every request served whole on the calling thread, in order.
    void InitSerial(int64_t chunk_kib = 12, int64_t slots = 2);
    // Small chunks and small pieces, so requests of a few hundred KiB split across the workers.
    void InitSplitting(int64_t chunk_kib = 16, int64_t slots = 4, int64_t split_kib = 32);
    void Fini();

    File OpenPatternFile(const std::string &name, uint64_t size, uint32_t seed, int flags = O_RDWR);
    // The same file, with an O_DIRECT twin the requests name as direct_fd; false when the
    // filesystem refuses O_DIRECT.
    bool AddDirectTwin(File &f);

    hf_io_request Request(int op, const File &f, hf_file_info *file, hf_buf_info *buf,
                          int64_t buf_offset, size_t size, int64_t file_offset, int *gpu_error_p);
    ssize_t Io(int op, const File &f, Buffer &b, int64_t buf_offset, size_t size,
               int64_t file_offset, int *gpu_error_p = nullptr);
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
    int Score(const File &f, hf_buf_info buf, const char **reason_p);

    std::unique_ptr<FakeState> fake_;
    hf_host_api host_{};
    const hf_backend_ops *ops_ = nullptr;
    void *backend_ = nullptr;
    std::vector<File> files_;
};

} // namespace fallback_test

#endif
