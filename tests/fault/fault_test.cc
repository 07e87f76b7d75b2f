// The fault-injection fixture: config and runtime binding for the whole process, the replacement
// system-call tables, and the checks shared by the suites.
#include "fault_test.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hf_harness.h"

extern "C" {
#include "host/loader.h"
#include "base/sys.h"
}

namespace fault_test
{

namespace
{

const char *const kFaultRuntime = HF_TEST_FIXTURE_DIR "/libfault-hip.so";

// One config for the process: the fallback plugin, the fault runtime, small chunks, few workers.
class FaultEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        char *config = hf_test_path("fault.conf");
        // The fallback plugin alone: its documented failure results are what the sweeps check.
        std::string text = std::string("plugins = { directory = \"") + HF_TEST_PLUGIN_DIR +
                           "\"; enable = [\"fallback\"]; };\n"
                           // Slots made lazily, so the sweeps reach their creation in requests.
                           "execution = { max_io_threads = 4; min_io_threshold_size_kb = 64;\n"
                           "              stream_prepare_at_open = false; };\n"
                           "fallback = { chunk_size_kb = 64; split_threshold_kb = 64;\n"
                           "             inline_max_kb = 64; staging_slots_per_device = 2; };\n";
        ASSERT_EQ(hf_test_write_text(config, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", config, 1);
        setenv("HIPFILE_GPU_RUNTIME", kFaultRuntime, 1);
        free(config);
    }
};

[[maybe_unused]] const ::testing::Environment *const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new FaultEnvironment);

ssize_t FaultPread(int fd, void *buf, size_t count, off_t offset)
{
    if (SysFaults::Fire(kPread))
        return -1;
    return hf_sys_default()->pread(fd, buf, count, offset);
}

ssize_t FaultPwrite(int fd, const void *buf, size_t count, off_t offset)
{
    if (SysFaults::Fire(kPwrite))
        return -1;
    return hf_sys_default()->pwrite(fd, buf, count, offset);
}

int FaultFstat(int fd, struct stat *st)
{
    if (SysFaults::Fire(kFstat))
        return -1;
    return hf_sys_default()->fstat(fd, st);
}

int FaultFdatasync(int fd)
{
    if (SysFaults::Fire(kFdatasync))
        return -1;
    return hf_sys_default()->fdatasync(fd);
}

int FaultIoctl(int fd, unsigned long request, void *arg)
{
    if (SysFaults::Fire(kIoctl))
        return -1;
    return hf_sys_default()->ioctl(fd, request, arg);
}

ssize_t FaultPreadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
    if (SysFaults::Fire(kPreadv2))
        return -1;
    return hf_sys_default()->preadv2(fd, iov, iovcnt, offset, flags);
}

int64_t FaultCachedBytes(int fd, uint64_t offset, uint64_t len)
{
    if (SysFaults::Fire(kCachedBytes))
        return -1;
    return hf_sys_default()->cached_bytes(fd, offset, len);
}

int FaultCoreOpen(const char *path, int flags)
{
    if (SysFaults::Fire(kCoreOpen))
        return -1;
    return hf_core_sys_default()->open(path, flags);
}

int FaultCoreFstat(int fd, struct stat *st)
{
    if (SysFaults::Fire(kCoreFstat))
        return -1;
    return hf_core_sys_default()->fstat(fd, st);
}

int FaultCoreStatx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
    if (SysFaults::Fire(kCoreStatx))
        return -1;
    return hf_core_sys_default()->statx(dirfd, path, flags, mask, stx);
}

const struct hf_sys_ops kFaultSys = {
    .struct_size = sizeof(struct hf_sys_ops),
    .pread = FaultPread,
    .pwrite = FaultPwrite,
    .fstat = FaultFstat,
    .fdatasync = FaultFdatasync,
    .ioctl = FaultIoctl,
    .preadv2 = FaultPreadv2,
    .cached_bytes = FaultCachedBytes,
};

const struct hf_core_sys_ops kFaultCoreSys = {
    .open = FaultCoreOpen,
    .fstat = FaultCoreFstat,
    .statx = FaultCoreStatx,
};

} // namespace

const char *SysCallName(SysCall call)
{
    static const char *const names[kSysCallCount] = {
        "pread",   "pwrite",    "fstat", "fdatasync",  "ioctl",
        "preadv2", "cachestat", "open",  "core fstat", "statx",
    };
    return names[call];
}

SysFaults::Plan SysFaults::plans_[kSysCallCount];

SysFaults::SysFaults()
{
    DisarmAll();
    hf_sys_override(&kFaultSys);
    hf_core_sys_override(&kFaultCoreSys);
}

SysFaults::~SysFaults()
{
    hf_core_sys_override(nullptr);
    hf_sys_override(nullptr);
    DisarmAll();
}

void SysFaults::Arm(SysCall call, int skip, int times, int err)
{
    plans_[call].times = 0;
    plans_[call].skip = skip;
    plans_[call].err = err;
    plans_[call].times = times;
}

void SysFaults::DisarmAll()
{
    for (Plan &plan : plans_) {
        plan.times = 0;
        plan.skip = 0;
        plan.calls = 0;
        plan.failed = 0;
    }
}

long SysFaults::Calls(SysCall call) const
{
    return plans_[call].calls;
}

long SysFaults::Failed(SysCall call) const
{
    return plans_[call].failed;
}

bool SysFaults::Fire(SysCall call)
{
    Plan &plan = plans_[call];
    plan.calls++;
    if (plan.times.load() == 0)
        return false;
    int skip = plan.skip.load();
    while (skip > 0) {
        if (plan.skip.compare_exchange_weak(skip, skip - 1))
            return false;
    }
    int times = plan.times.load();
    while (times != 0) {
        if (times < 0 || plan.times.compare_exchange_weak(times, times - 1)) {
            plan.failed++;
            errno = plan.err.load();
            return true;
        }
    }
    return false;
}

const FaultHip &Hip()
{
    static FaultHip hip;
    if (hip.arm == nullptr) {
        void *lib = dlopen(kFaultRuntime, RTLD_NOW | RTLD_NOLOAD);
        EXPECT_NE(lib, nullptr) << "the core did not bind " << kFaultRuntime;
        if (lib == nullptr)
            return hip;
        *(void **)&hip.disarm_all = dlsym(lib, "fault_hip_disarm_all");
        *(void **)&hip.calls = dlsym(lib, "fault_hip_calls");
        *(void **)&hip.failed = dlsym(lib, "fault_hip_failed");
        *(void **)&hip.live_pinned = dlsym(lib, "fault_hip_live_pinned");
        *(void **)&hip.live_streams = dlsym(lib, "fault_hip_live_streams");
        *(void **)&hip.arm = dlsym(lib, "fault_hip_arm");
    }
    return hip;
}

int OpenDescriptors()
{
    DIR *dir = opendir("/proc/self/fd");
    if (dir == nullptr)
        return -1;
    int count = 0;
    while (readdir(dir) != nullptr)
        count++;
    closedir(dir);
    return count;
}

void FaultTest::SetUp()
{
    CloseDriverFully();
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    ASSERT_NE(Hip().arm, nullptr);
    Hip().disarm_all();
}

void FaultTest::TearDown()
{
    if (Hip().disarm_all != nullptr)
        Hip().disarm_all();
    CloseDriverFully();
}

void FaultTest::CloseDriverFully()
{
    while (hipFileUseCount() > 0)
        (void)hipFileDriverClose();
}

std::string FaultTest::ScratchPath(const char *suffix) const
{
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name() + "." + suffix;
    char *p = hf_test_path(name.c_str());
    std::string path(p);
    free(p);
    return path;
}

hipFileHandle_t FaultTest::OpenRegistered(const std::string &path, int flags, int *fd_p)
{
    int fd = open(path.c_str(), flags | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0) << path << ": " << strerror(errno);
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(hipFileHandleRegister(&fh, &descr).err, hipFileSuccess);
    *fd_p = fd;
    return fh;
}

void FaultTest::ExpectCleanRead(hipFileHandle_t fh, void *buffer, uint32_t seed)
{
    ASSERT_EQ(hipMemset(buffer, 0, kFileSize), hipSuccess);
    ASSERT_EQ(hipFileRead(fh, buffer, kFileSize, 0, 0), (ssize_t)kFileSize);
    std::vector<uint8_t> host(kFileSize);
    ASSERT_EQ(hipMemcpy(host.data(), buffer, kFileSize, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(host.data(), kFileSize, 0, seed), -1);
}

void FaultTest::ExpectRuntimeBalanced()
{
    CloseDriverFully();
    hf_loader_reset();
    EXPECT_EQ(Hip().live_pinned(), 0) << "pinned allocations left after the plugins' fini";
    EXPECT_EQ(Hip().live_streams(), 0) << "streams left after the plugins' fini";
    EXPECT_EQ(hf_loader_load_all(), 0);
}

SweepCounts FaultTest::Sweep(Op op, const FaultSite &site,
                             const std::function<bool(ssize_t, int)> &error_ok)
{
    SweepCounts counts;
    const uint32_t file_seed = 11, buffer_seed = 29;
    std::string path = ScratchPath("data");
    void *device = nullptr;
    EXPECT_EQ(hipMalloc(&device, kFileSize), hipSuccess);
    std::vector<uint8_t> host(kFileSize);
    // Fresh plugins: staging pools left by earlier tests would hide the first allocations.
    ExpectRuntimeBalanced();
    int fds_before = OpenDescriptors();
    for (int n = 0; n < kMaxSweep && !::testing::Test::HasFatalFailure(); n++) {
        EXPECT_EQ(hf_test_pattern_file(path.c_str(), kFileSize, file_seed), 0);
        EXPECT_EQ(hipFileDriverOpen().err, hipFileSuccess);
        int fd = -1;
        hipFileHandle_t fh = OpenRegistered(path, O_RDWR, &fd);
        if (op == Op::kWrite) {
            hf_test_pattern_fill(host.data(), kFileSize, 0, buffer_seed);
            EXPECT_EQ(hipMemcpy(device, host.data(), kFileSize, hipMemcpyHostToDevice), hipSuccess);
        } else {
            EXPECT_EQ(hipMemset(device, 0, kFileSize), hipSuccess);
        }

        site.arm(n);
        ssize_t result = op == Op::kRead ? hipFileRead(fh, device, kFileSize, 0, 0)
                                         : hipFileWrite(fh, device, kFileSize, 0, 0);
        int err = errno;
        long fired = site.fired();
        site.disarm();

        // What the request claims to have moved must be there.
        size_t moved = result > 0 ? (size_t)result : 0;
        if (op == Op::kRead) {
            EXPECT_EQ(hipMemcpy(host.data(), device, kFileSize, hipMemcpyDeviceToHost), hipSuccess);
            EXPECT_EQ(hf_test_pattern_check(host.data(), moved, 0, file_seed), -1)
                << site.name << " at call " << n;
        } else {
            EXPECT_EQ(pread(fd, host.data(), kFileSize, 0), (ssize_t)kFileSize);
            EXPECT_EQ(hf_test_pattern_check(host.data(), moved, 0, buffer_seed), -1)
                << site.name << " at call " << n;
        }
        if (fired == 0) {
            EXPECT_EQ(result, (ssize_t)kFileSize) << site.name << ": unfaulted request at " << n;
        } else {
            counts.injected++;
            if (result == (ssize_t)kFileSize)
                counts.completed++;
            else if (result >= 0)
                counts.short_count++;
            else if (error_ok(result, err))
                counts.errors++;
            else
                ADD_FAILURE() << site.name << " failing at call " << n << ": result " << result
                              << ", errno " << err << " (" << strerror(err) << ")";
        }

        // The library still serves the same file and buffer.
        if (op == Op::kRead) {
            ExpectCleanRead(fh, device, file_seed);
        } else {
            EXPECT_EQ(hipFileWrite(fh, device, kFileSize, 0, 0), (ssize_t)kFileSize);
            EXPECT_EQ(pread(fd, host.data(), kFileSize, 0), (ssize_t)kFileSize);
            EXPECT_EQ(hf_test_pattern_check(host.data(), kFileSize, 0, buffer_seed), -1);
        }
        hipFileHandleDeregister(fh);
        close(fd);
        ExpectRuntimeBalanced();
        if (fired == 0)
            break;
    }
    EXPECT_EQ(OpenDescriptors(), fds_before) << "descriptors left open by " << site.name;
    EXPECT_EQ(hipFree(device), hipSuccess);
    printf("[fault] %s %s: %d faults injected, %d survived (%d completed, %d short, %d errors)\n",
           site.name.c_str(), op == Op::kRead ? "read" : "write", counts.injected,
           counts.completed + counts.short_count + counts.errors, counts.completed,
           counts.short_count, counts.errors);
    return counts;
}

} // namespace fault_test
