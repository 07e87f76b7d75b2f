// The fake host behind the fallback tests (fallback_fake_host.h).
#include "fallback_fake_host.h"

#include <dlfcn.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/align.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace fallback_test
{

FakeState *g_fake;

namespace
{
thread_local int t_current_device = 0;
// The parallel_run task the calling thread is running, -1 outside one: which thread runs a task
// depends on scheduling, which task queued a copy does not.
thread_local int t_task_index = -1;
} // namespace

int CurrentDevice()
{
    return t_current_device;
}

void SetCurrentDevice(int device)
{
    t_current_device = device;
}

const MemKind kDevice = {"Device", HF_MEM_DEVICE, 0, false, true};
const MemKind kDeviceCoherent = {"DeviceCoherent", HF_MEM_DEVICE, 0, true, false};
const MemKind kHostPinned = {"HostPinned", HF_MEM_HOST_PINNED, -1, true, false};
const MemKind kPageable = {"Pageable", HF_MEM_UNKNOWN, -1, true, false};
const MemKind kManaged = {"Managed", HF_MEM_MANAGED, 0, true, false};

namespace
{

bool RangeInside(const std::vector<std::pair<uintptr_t, size_t>> &ranges, const void *p, size_t n)
{
    auto lo = reinterpret_cast<uintptr_t>(p);
    for (const auto &r : ranges) {
        if (lo >= r.first && lo + n <= r.first + r.second)
            return true;
    }
    return false;
}

// The device range holding [p, p + n), or nullptr.
const FakeState::DeviceRange *DeviceRangeOf(const void *p, size_t n)
{
    auto lo = reinterpret_cast<uintptr_t>(p);
    for (const auto &r : g_fake->device_ranges) {
        if (lo < r.base + r.size && r.base < lo + n)
            return &r;
    }
    return nullptr;
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

// Whether @p key names a core setting (execution.*, properties.*) rather than one of the group's.
bool IsCoreKey(const char *key)
{
    return strncmp(key, "execution.", 10) == 0 || strncmp(key, "properties.", 11) == 0;
}

int FakeConfigInt(const hf_host_api *, const char *key, int64_t *value_p)
{
    if (IsCoreKey(key))
        g_fake->core_keys_by_name++;
    auto it = g_fake->config.find(key);
    if (it == g_fake->config.end())
        return -ENOENT;
    if (it->second.first != 0)
        return it->second.first;
    *value_p = it->second.second;
    return 0;
}

int FakeConfigBool(const hf_host_api *, const char *key, bool *value_p)
{
    if (IsCoreKey(key))
        g_fake->core_keys_by_name++;
    auto it = g_fake->config_bools.find(key);
    if (it == g_fake->config_bools.end())
        return -ENOENT;
    if (it->second.first != 0)
        return it->second.first;
    *value_p = it->second.second;
    return 0;
}

// The core's limits as a core fills them: the values tests set under the dotted names, the
// core's defaults for the rest, and no cap on staging memory unless a test sets one.
void FakeCoreLimits(const hf_host_api *, hf_core_limits *limits_p)
{
    g_fake->core_limits_calls++;
    auto number = [](const char *key, uint64_t otherwise) {
        auto it = g_fake->config.find(key);
        return it == g_fake->config.end() || it->second.first != 0
                   ? otherwise
                   : static_cast<uint64_t>(it->second.second);
    };
    auto flag = [](const char *key, bool otherwise) {
        auto it = g_fake->config_bools.find(key);
        return it == g_fake->config_bools.end() || it->second.first != 0 ? otherwise
                                                                         : it->second.second;
    };
    limits_p->struct_size = sizeof(*limits_p);
    limits_p->parallel_io = flag("execution.parallel_io", true);
    limits_p->force_odirect_mode = flag("properties.force_odirect_mode", false);
    limits_p->max_request_parallelism =
        static_cast<uint32_t>(number("execution.max_request_parallelism", 0));
    limits_p->min_io_threshold_size_kb = number("execution.min_io_threshold_size_kb", 1024);
    limits_p->per_buffer_cache_size_kb = number("properties.per_buffer_cache_size_kb", 4096);
    limits_p->max_device_cache_size_kb = number("properties.max_device_cache_size_kb", UINT64_MAX);
    limits_p->max_device_pinned_mem_size_kb =
        number("properties.max_device_pinned_mem_size_kb", UINT64_MAX);
    limits_p->cpu_budget = g_fake->cpu_budget;
}

int FakeConfigString(const hf_host_api *, const char *key, const char **value_p)
{
    auto it = g_fake->config_texts.find(key);
    if (it == g_fake->config_texts.end())
        return -ENOENT;
    if (it->second.first != 0)
        return it->second.first;
    *value_p = it->second.second.c_str();
    return 0;
}

int FakePointerInfo(const void *, hf_gpu_pointer_info *)
{
    return 1;
}

int FakeDeviceCount(int *count_p)
{
    *count_p = g_fake->device_count;
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
    if (fail_from >= 0 && call >= fail_from) {
        g_fake->set_device_failed = true;
        return kFakeNoDevice;
    }
    t_current_device = device;
    return 0;
}

int FakeHostAllocPinned(void **ptr_p, size_t size)
{
    int call = g_fake->alloc_calls++;
    if (t_current_device >= 0 && t_current_device < 2)
        g_fake->alloc_calls_on_device[t_current_device]++;
    int fail_from = g_fake->alloc_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeOutOfMemory;
    void *p = aligned_alloc(4096, hfp_align_up(size, 4096));
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

int FakeMemcpySync(void *dst, const void *src, size_t size)
{
    g_fake->memcpy_sync_calls++;
    memcpy(dst, src, size);
    return 0;
}

} // namespace

// A stream runs nothing until it is synchronized (or destroyed), so a buffer reused before its
// copy was waited for, or a result returned before it, shows up as wrong bytes.
struct ReadOnlyLock {
    uintptr_t base;
    size_t size;
    std::vector<uint8_t> pages; // the bytes when locked
    int copies_queued = 0;      // under g_fake->mu
};

struct FakeCopy {
    void *dst;
    const void *src;
    size_t size;
    const void *device_side;
    ReadOnlyLock *lock; // the locked pages it reads, or nullptr
};

struct FakeStream {
    int device;
    std::mutex mu;
    std::vector<FakeCopy> pending;
};

namespace
{

std::vector<std::unique_ptr<ReadOnlyLock>> g_read_only_locks; // under g_fake->mu

ReadOnlyLock *LockHolding(const void *p, size_t n)
{
    auto lo = reinterpret_cast<uintptr_t>(p);
    for (auto &l : g_read_only_locks) {
        if (lo >= l->base && lo + n <= l->base + l->size)
            return l.get();
    }
    return nullptr;
}

void CopyDone(const FakeCopy &op)
{
    if (op.lock == nullptr)
        return;
    std::lock_guard<std::mutex> lock(g_fake->mu);
    op.lock->copies_queued--;
}

bool CopyTouches(const void *p, size_t size, uintptr_t address)
{
    auto lo = reinterpret_cast<uintptr_t>(p);
    return address != 0 && address >= lo && address < lo + size;
}

int FakeMemcpyAsync(void *dst, const void *src, size_t size, void *stream)
{
    auto *s = static_cast<FakeStream *>(stream);
    int call = g_fake->memcpy_calls++;
    int fail_from = g_fake->memcpy_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeCopyFailure;
    const void *device_side;
    {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        bool dst_pinned = RangeInside(g_fake->pinned, dst, size);
        bool src_pinned = RangeInside(g_fake->pinned, src, size);
        if (!dst_pinned && !src_pinned)
            g_fake->copies_without_pinned++;
        device_side = dst_pinned ? src : dst;
        g_fake->copy_sizes.push_back(size);
        g_fake->copy_threads.insert(std::this_thread::get_id());
        if (t_task_index >= 0)
            g_fake->copy_tasks.insert(static_cast<unsigned>(t_task_index));
        const FakeState::DeviceRange *range = DeviceRangeOf(device_side, size);
        if (s == nullptr || s->device != t_current_device ||
            (range != nullptr && range->device >= 0 && range->device != s->device))
            g_fake->copies_on_wrong_device++;
    }
    if (s == nullptr)
        return kFakeStreamFailure;
    g_fake->copy_device = s->device;
    if (CopyTouches(device_side, size, g_fake->copy_fail_at))
        return kFakeCopyFailure;
    ReadOnlyLock *locked;
    {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        locked = LockHolding(src, size);
        if (locked != nullptr) {
            locked->copies_queued++;
            g_fake->copies_from_locked_pages++;
            src = locked->pages.data() + (reinterpret_cast<uintptr_t>(src) - locked->base);
        }
    }
    std::lock_guard<std::mutex> lock(s->mu);
    s->pending.push_back({dst, src, size, device_side, locked});
    return 0;
}

int FakeStreamCreate(void **stream_p)
{
    int call = g_fake->streams_created++;
    int fail_from = g_fake->stream_create_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeStreamFailure;
    auto *s = new FakeStream;
    s->device = t_current_device;
    g_fake->streams_live++;
    *stream_p = s;
    return 0;
}

void RunPending(FakeStream *s)
{
    std::vector<FakeCopy> work;
    {
        std::lock_guard<std::mutex> lock(s->mu);
        work.swap(s->pending);
    }
    for (const FakeCopy &op : work) {
        memcpy(op.dst, op.src, op.size);
        CopyDone(op);
    }
}

// Like the real runtimes, destroying does not cancel: queued work still runs.
int FakeStreamDestroy(void *stream)
{
    auto *s = static_cast<FakeStream *>(stream);
    RunPending(s);
    delete s;
    g_fake->streams_live--;
    return 0;
}

// A failed wait drops what was queued: those bytes never arrived.
int FakeStreamSynchronize(void *stream)
{
    auto *s = static_cast<FakeStream *>(stream);
    int call = g_fake->sync_calls++;
    int fail_from = g_fake->sync_fail_from;
    bool fail = fail_from >= 0 && call >= fail_from;
    {
        std::lock_guard<std::mutex> lock(s->mu);
        for (const FakeCopy &op : s->pending) {
            if (CopyTouches(op.device_side, op.size, g_fake->sync_fail_at)) {
                g_fake->sync_failed_copy = reinterpret_cast<uintptr_t>(op.device_side);
                fail = true;
            }
        }
        if (fail) {
            for (const FakeCopy &op : s->pending)
                CopyDone(op);
            s->pending.clear();
            return kFakeSyncFailure;
        }
    }
    RunPending(s);
    return 0;
}

// The kernel's page lock fails for pages past the end of the file; MADV_POPULATE_READ does too
// (EFAULT) where touching them would raise SIGBUS.
int FakeHostRegisterReadOnly(void *ptr, size_t size)
{
    int call = g_fake->lock_calls++;
    if (g_fake->before_lock)
        g_fake->before_lock(call);
    int fail_from = g_fake->lock_fail_from;
    if (fail_from >= 0 && call >= fail_from)
        return kFakeLockRefused;
    if (!hfp_align_ptr_is_aligned(ptr, 4096) || size == 0) {
        ADD_FAILURE() << "read-only lock of " << size << " bytes at " << ptr;
        return kFakeLockRefused;
    }
    if (madvise(ptr, size, MADV_POPULATE_READ) != 0)
        return kFakeLockRefused;
    auto l = std::make_unique<ReadOnlyLock>();
    l->base = reinterpret_cast<uintptr_t>(ptr);
    l->size = size;
    l->pages.assign(static_cast<const uint8_t *>(ptr), static_cast<const uint8_t *>(ptr) + size);
    std::lock_guard<std::mutex> lock(g_fake->mu);
    if (LockHolding(ptr, 1) != nullptr) {
        ADD_FAILURE() << "pages locked twice at " << ptr;
        return kFakeLockRefused;
    }
    g_fake->pinned.emplace_back(l->base, size);
    g_read_only_locks.push_back(std::move(l));
    g_fake->locks_live++;
    return 0;
}

int FakeHostUnregister(void *ptr)
{
    g_fake->unlock_calls++;
    std::lock_guard<std::mutex> lock(g_fake->mu);
    auto base = reinterpret_cast<uintptr_t>(ptr);
    auto it = std::find_if(g_read_only_locks.begin(), g_read_only_locks.end(),
                           [base](const auto &l) { return l->base == base; });
    if (it == g_read_only_locks.end()) {
        g_fake->bad_unlocks++;
        return kFakeLockRefused;
    }
    if ((*it)->copies_queued != 0)
        g_fake->bad_unlocks++;
    auto &pinned = g_fake->pinned;
    pinned.erase(std::find(pinned.begin(), pinned.end(), std::make_pair(base, (*it)->size)));
    g_read_only_locks.erase(it);
    g_fake->locks_live--;
    return 0;
}

const char *FakeErrorString(int err)
{
    return err == 0 ? "fakeSuccess" : "fakeFailure";
}

bool TouchesDevice(const void *buf, size_t count)
{
    std::lock_guard<std::mutex> lock(g_fake->mu);
    const FakeState::DeviceRange *range = DeviceRangeOf(buf, count);
    return range != nullptr;
}

// Applies the call-count fault plan; returns true with *result_p set when the call is answered by
// a fault.
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

// Applies the file-offset fault; returns true with *result_p set when the call fails.
bool InjectOffsetFault(SysFaults &f, off_t offset, size_t *count_inout, ssize_t *result_p)
{
    int64_t at = f.fault_offset;
    if (at < 0 || *count_inout == 0)
        return false;
    if (at > offset && static_cast<uint64_t>(at) < static_cast<uint64_t>(offset) + *count_inout) {
        *count_inout = static_cast<size_t>(at - offset);
        return false;
    }
    if (at != offset || f.fault_errno == 0)
        return false;
    int times = f.fault_times;
    if (times >= 0 && f.fault_fired >= times)
        return false;
    f.fault_fired++;
    errno = f.fault_errno;
    *result_p = -1;
    return true;
}

bool IsDirect(int fd)
{
    return fd >= 0 && fd == g_fake->direct_fd;
}

void WaitForCompany()
{
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!g_fake->company_seen && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    g_fake->company_seen = true; // company or not, wait only once
}

void WaitForAllocs()
{
    int wanted = g_fake->pread_waits_for_allocs.exchange(0);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (g_fake->alloc_calls < wanted && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void WaitForOtherPreads()
{
    int wanted = g_fake->first_pread_waits_for_others.exchange(0);
    if (wanted == 0)
        return;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (g_fake->preads_done < wanted && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    g_fake->parked_pread_released = g_fake->preads_done >= wanted;
}

ssize_t FakePreadBody(int fd, void *buf, size_t count, off_t offset);

ssize_t FakePread(int fd, void *buf, size_t count, off_t offset)
{
    WaitForOtherPreads();
    {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        g_fake->pread_sizes.push_back(count);
    }
    ssize_t result = FakePreadBody(fd, buf, count, offset);
    g_fake->preads_done++;
    return result;
}

// An O_DIRECT call: counts one the kernel would refuse for its alignment, and fails with EINVAL
// while @p einval (the test's count of refusals to inject) lasts.
bool DirectCallRefused(const void *buf, size_t count, off_t offset, std::atomic<int> &einval)
{
    if (!hfp_align_is_aligned(static_cast<uint64_t>(offset), 4096) ||
        !hfp_align_is_aligned(count, 4096) || !hfp_align_ptr_is_aligned(buf, 4096))
        g_fake->direct_misaligned++;
    if (einval <= 0)
        return false;
    einval--;
    errno = EINVAL;
    return true;
}

ssize_t FakePreadBody(int fd, void *buf, size_t count, off_t offset)
{
    if (g_fake->pread_waits_for_company)
        WaitForCompany();
    if (g_fake->pread_waits_for_allocs > 0)
        WaitForAllocs();
    if (TouchesDevice(buf, count))
        g_fake->syscalls_on_device_memory++;
    bool direct = IsDirect(fd);
    if (direct) {
        g_fake->preads_direct++;
        if (DirectCallRefused(buf, count, offset, g_fake->direct_einval))
            return -1;
    } else {
        g_fake->preads_buffered++;
    }
    ssize_t result;
    if (InjectFault(g_fake->pread_faults, &count, &result) ||
        InjectOffsetFault(g_fake->pread_faults, offset, &count, &result))
        return result;
    result = pread(fd, buf, count, offset);
    if (result > 0)
        (direct ? g_fake->bytes_direct : g_fake->bytes_buffered) += static_cast<uint64_t>(result);
    return result;
}

ssize_t FakePreadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
    g_fake->preadv2_calls++;
    if (iovcnt == 1) {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        g_fake->preadv2_sizes.push_back(iov[0].iov_len);
    }
    if (iovcnt != 1) {
        ADD_FAILURE() << "the fallback probes one range at a time";
        errno = EINVAL;
        return -1;
    }
    if (TouchesDevice(iov[0].iov_base, iov[0].iov_len))
        g_fake->syscalls_on_device_memory++;
    if (IsDirect(fd))
        ADD_FAILURE() << "the page cache is asked through the O_DIRECT descriptor";
    struct iovec one = iov[0];
    if (flags & RWF_NOWAIT) {
        switch (g_fake->cache_answer.load()) {
        case CacheAnswer::kNothingCached:
            errno = EAGAIN;
            return -1;
        case CacheAnswer::kUnsupported:
            errno = EOPNOTSUPP;
            return -1;
        case CacheAnswer::kFirstHalfOfBlocks: {
            const size_t block = 16 * 1024, cached = block / 2;
            size_t into = static_cast<size_t>(offset) % block;
            if (into >= cached) {
                errno = EAGAIN;
                return -1;
            }
            one.iov_len = std::min(one.iov_len, cached - into);
            break;
        }
        case CacheAnswer::kFirstMebibyte: {
            const size_t cached = 1024 * 1024;
            if (static_cast<size_t>(offset) >= cached) {
                errno = EAGAIN;
                return -1;
            }
            one.iov_len = std::min(one.iov_len, cached - static_cast<size_t>(offset));
            break;
        }
        case CacheAnswer::kHalfCached:
            one.iov_len = hfp_align_down(one.iov_len / 2, 4096);
            if (one.iov_len == 0) {
                errno = EAGAIN;
                return -1;
            }
            break;
        case CacheAnswer::kKernel:
            break;
        }
    }
    /*
     * A modelled answer decides what is cached: its bytes are read whatever the kernel's page
     * cache holds, which a benchmark running beside the suite empties at any time.
     */
    int real_flags = flags;
    if (g_fake->cache_answer.load() != CacheAnswer::kKernel)
        real_flags &= ~RWF_NOWAIT;
    ssize_t result;
    if (InjectOffsetFault(g_fake->pread_faults, offset, &one.iov_len, &result))
        return result;
    result = preadv2(fd, &one, 1, offset, real_flags);
    if (result > 0)
        g_fake->bytes_probed += static_cast<uint64_t>(result);
    return result;
}

ssize_t FakePwrite(int fd, const void *buf, size_t count, off_t offset)
{
    {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        g_fake->pwrite_sizes.push_back(count);
    }
    if (TouchesDevice(buf, count))
        g_fake->syscalls_on_device_memory++;
    bool direct = IsDirect(fd);
    if (direct) {
        g_fake->pwrites_direct++;
        if (DirectCallRefused(buf, count, offset, g_fake->direct_write_einval))
            return -1;
    }
    ssize_t result;
    if (InjectFault(g_fake->pwrite_faults, &count, &result) ||
        InjectOffsetFault(g_fake->pwrite_faults, offset, &count, &result))
        return result;
    result = pwrite(fd, buf, count, offset);
    if (direct && result > 0)
        g_fake->bytes_written_direct += static_cast<uint64_t>(result);
    return result;
}

int FakeFstat(int fd, struct stat *st)
{
    g_fake->fstat_calls++;
    return fstat(fd, st);
}

int FakeIoctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}

// A real executor in miniature: up to width - 1 threads besides the caller claim indices in order.
int FakeParallelRun(const hf_host_api *, unsigned n, void (*task)(void *arg, unsigned index),
                    void *arg)
{
    g_fake->parallel_runs++;
    int refusal = g_fake->parallel_run_result;
    if (refusal != 0)
        return refusal;
    g_fake->parallel_tasks += static_cast<int>(n);
    if (n == 0)
        return 0;
    std::atomic<unsigned> next{0};
    auto enter = [] {
        int running = ++g_fake->tasks_running;
        if (running >= 2)
            g_fake->company_seen = true;
        int seen = g_fake->max_tasks_at_once;
        while (running > seen && !g_fake->max_tasks_at_once.compare_exchange_weak(seen, running))
            ;
    };
    auto work = [&] {
        for (unsigned i; (i = next++) < n;) {
            enter();
            t_task_index = static_cast<int>(i);
            task(arg, i);
            t_task_index = -1;
            g_fake->tasks_running--;
        }
    };
    // The caller takes the first piece before any helper starts, so tests know who runs it.
    unsigned first = next++;
    enter();
    unsigned width = std::max(1u, g_fake->width.load());
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < std::min(width, n); t++)
        helpers.emplace_back(work);
    if (g_fake->caller_waits_for_device_failure) {
        for (int i = 0; i < 2000 && !g_fake->set_device_failed; i++)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    t_task_index = static_cast<int>(first);
    task(arg, first);
    t_task_index = -1;
    g_fake->tasks_running--;
    work();
    for (std::thread &h : helpers)
        h.join();
    return 0;
}

unsigned FakeParallelWidth(const hf_host_api *)
{
    return g_fake->width;
}

// The kernel's count of cached bytes, by cache_answer; kKernel answers "cannot say" (ENOSYS), as
// a kernel before cachestat would, so that suites written before the question see no change.
int64_t FakeCachedBytes(int fd, uint64_t offset, uint64_t len)
{
    (void)fd;
    (void)offset;
    g_fake->cached_bytes_calls++;
    switch (g_fake->cache_answer.load()) {
    case CacheAnswer::kNothingCached:
        return 0;
    case CacheAnswer::kHalfCached:
    case CacheAnswer::kFirstHalfOfBlocks:
        return static_cast<int64_t>(len / 2);
    case CacheAnswer::kFirstMebibyte: {
        const uint64_t cached = 1024 * 1024;
        return offset >= cached ? 0 : static_cast<int64_t>(std::min(len, cached - offset));
    }
    case CacheAnswer::kUnsupported:
    case CacheAnswer::kKernel:
        break;
    }
    errno = ENOSYS;
    return -1;
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
    gpu.stream_destroy = FakeStreamDestroy;
    gpu.stream_synchronize = FakeStreamSynchronize;
    gpu.error_string = FakeErrorString;
    return gpu;
}

hf_sys_ops MakeSys()
{
    hf_sys_ops sys{};
    sys.struct_size = sizeof(sys);
    sys.pread = FakePread;
    sys.pwrite = FakePwrite;
    sys.fstat = FakeFstat;
    sys.fdatasync = fdatasync;
    sys.ioctl = FakeIoctl;
    sys.preadv2 = FakePreadv2;
    sys.cached_bytes = FakeCachedBytes;
    return sys;
}

const hf_gpu_ops kFakeGpu = MakeGpu();

hf_gpu_ops MakeGpuThatLocksPages()
{
    hf_gpu_ops gpu = MakeGpu();
    gpu.host_register_read_only = FakeHostRegisterReadOnly;
    gpu.host_unregister = FakeHostUnregister;
    return gpu;
}

const hf_gpu_ops kFakeGpuThatLocksPages = MakeGpuThatLocksPages();
const hf_sys_ops kFakeSys = MakeSys();

} // namespace

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

const hf_gpu_ops *FakeGpuThatLocksPages()
{
    return &kFakeGpuThatLocksPages;
}

hf_sys_ops FakeSysTable()
{
    return kFakeSys;
}

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
    host.parallel_run = FakeParallelRun;
    host.parallel_width = FakeParallelWidth;
    host.core_limits = FakeCoreLimits;
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

Buffer::Buffer(size_t length, const MemKind &kind)
    : total_(hfp_align_up(length + 2 * kGuard, 4096)), length_(length), kind_(kind)
{
    bytes_ = static_cast<uint8_t *>(aligned_alloc(4096, total_));
    memset(bytes_, kUntouched, total_);
    if (kind_.bounces) {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        g_fake->device_ranges.push_back(
            {reinterpret_cast<uintptr_t>(data()), length_, kind_.device});
    }
}

Buffer::~Buffer()
{
    if (kind_.bounces) {
        std::lock_guard<std::mutex> lock(g_fake->mu);
        auto &r = g_fake->device_ranges;
        auto base = reinterpret_cast<uintptr_t>(data());
        r.erase(std::remove_if(r.begin(), r.end(),
                               [&](const FakeState::DeviceRange &d) {
                                   return d.base == base && d.size == length_;
                               }),
                r.end());
    }
    free(bytes_);
}

hf_buf_info Buffer::Info()
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

bool Buffer::UntouchedOutside(size_t from, size_t to) const
{
    for (size_t i = 0; i < total_; i++) {
        size_t extent_index = i - kGuard;
        bool inside = i >= kGuard && extent_index >= from && extent_index < to;
        if (!inside && bytes_[i] != kUntouched)
            return false;
    }
    return true;
}

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

void FallbackPlugin::SetUp()
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

void FallbackPlugin::TearDown()
{
    Fini();
    for (const File &f : files_) {
        close(f.fd);
        if (f.direct_fd >= 0)
            close(f.direct_fd);
    }
    EXPECT_EQ(fake_->pinned_live, 0) << "pinned staging buffers outlived fini";
    EXPECT_EQ(fake_->streams_live, 0) << "staging streams outlived fini";
    EXPECT_EQ(fake_->locks_live, 0) << "page-cache pages stayed locked";
    EXPECT_EQ(fake_->bad_unlocks, 0) << "pages unlocked that were not locked, or under a copy";
    EXPECT_EQ(fake_->bad_frees, 0);
    EXPECT_EQ(fake_->memcpy_sync_calls, 0) << "the data path must not use the legacy stream";
    EXPECT_EQ(fake_->copies_on_wrong_device, 0);
    if (!direct_writes_expected_) {
        EXPECT_EQ(fake_->pwrites_direct, 0) << "writes go through the buffered descriptor";
    }
    EXPECT_EQ(fake_->direct_misaligned, 0) << "an O_DIRECT read or write the kernel would refuse";
    g_fake = nullptr;
}

void FallbackPlugin::Init()
{
    ASSERT_EQ(ops_->init(&host_, &backend_), 0);
    ASSERT_NE(backend_, nullptr);
}

void FallbackPlugin::InitSmallPool(int64_t chunk_kib, int64_t slots)
{
    SetConfig("chunk_size_kb", chunk_kib);
    SetConfig("staging_slots_per_device", slots);
    Init();
}

void FallbackPlugin::InitSerial(int64_t chunk_kib, int64_t slots)
{
    SetConfig("inline_max_kb", 1024 * 1024);
    InitSmallPool(chunk_kib, slots);
}

void FallbackPlugin::InitSplitting(int64_t chunk_kib, int64_t slots, int64_t split_kib)
{
    SetConfig("inline_max_kb", split_kib);
    SetConfig("split_threshold_kb", split_kib);
    InitSmallPool(chunk_kib, slots);
}

void FallbackPlugin::Fini()
{
    if (backend_ != nullptr)
        ops_->fini(backend_);
    backend_ = nullptr;
}

File FallbackPlugin::OpenPatternFile(const std::string &name, uint64_t size, uint32_t seed,
                                     int flags)
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

bool FallbackPlugin::AddDirectTwin(File &f)
{
    f.direct_fd = open(f.path.c_str(), (f.status_flags & O_ACCMODE) | O_DIRECT | O_CLOEXEC);
    if (f.direct_fd < 0)
        return false;
    fake_->direct_fd = f.direct_fd;
    for (File &kept : files_) {
        if (kept.fd == f.fd)
            kept.direct_fd = f.direct_fd;
    }
    return true;
}

hf_io_request FallbackPlugin::Request(int op, const File &f, hf_file_info *file, hf_buf_info *buf,
                                      int64_t buf_offset, size_t size, int64_t file_offset,
                                      int *gpu_error_p)
{
    *file = hf_file_info{};
    file->struct_size = sizeof(*file);
    file->fd = f.fd;
    file->direct_fd = f.direct_fd;
    if (f.direct_fd >= 0) {
        file->dio_mem_align = 4096;
        file->dio_offset_align = 4096;
    }
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

ssize_t FallbackPlugin::Io(int op, const File &f, Buffer &b, int64_t buf_offset, size_t size,
                           int64_t file_offset, int *gpu_error_p)
{
    hf_file_info file;
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(op, f, &file, &buf, buf_offset, size, file_offset, gpu_error_p);
    return ops_->transfer(backend_, &req);
}

int FallbackPlugin::Score(const File &f, hf_buf_info buf, const char **reason_p)
{
    hf_file_info file;
    hf_io_request req = Request(HF_IO_READ, f, &file, &buf, 0, 1, 0, nullptr);
    return ops_->score(backend_, &req, reason_p);
}

} // namespace fallback_test
