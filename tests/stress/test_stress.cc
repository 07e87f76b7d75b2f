// Many threads registering, reading, writing and deregistering the same and different files and
// buffers while another thread opens and closes the driver. Every byte written is read back from
// where it was written, each thread's regions end holding the last generation it wrote, and the
// library's counters of calls and registrations match what the threads did.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hf_harness.h"

// The core's registration counts (core/api/registry.h, which C++ cannot include).
extern "C" size_t hf_file_count(void);
extern "C" size_t hf_buffer_count(void);

namespace
{

constexpr int kThreads = 8;
constexpr int kSharedFiles = 3;
constexpr size_t kRegion = 64 * 1024; // each thread's slice of every shared file
constexpr size_t kSharedReadOnly = 256 * 1024;
constexpr uint32_t kReadOnlySeed = 7;

int OpsPerThread()
{
    const char *text = getenv("HIPFILE_STRESS_OPS");
    int ops = text != nullptr ? atoi(text) : 0;
    return ops > 0 ? ops : 1500;
}

uint32_t SeedOf(int thread, int file, uint32_t generation)
{
    return 1000003u * (uint32_t)thread + 7919u * (uint32_t)file + generation;
}

struct Totals {
    std::atomic<uint64_t> reads{0}, writes{0}, read_bytes{0}, write_bytes{0};
    std::atomic<uint64_t> file_registers{0}, file_deregisters{0};
    std::atomic<uint64_t> buffer_registers{0}, buffer_deregisters{0}, buffer_refusals{0};
    std::atomic<uint64_t> driver_cycles{0};
};

class StressTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        while (hipFileUseCount() > 0)
            (void)hipFileDriverClose();
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
        for (int f = 0; f < kSharedFiles; f++) {
            char name[64];
            snprintf(name, sizeof(name), "stress-shared-%d", f);
            char *p = hf_test_path(name);
            shared_paths_.push_back(p);
            free(p);
            ASSERT_EQ(hf_test_pattern_file(shared_paths_.back().c_str(), kRegion * kThreads, 0), 0);
        }
        char *p = hf_test_path("stress-read-only");
        read_only_path_ = p;
        free(p);
        ASSERT_EQ(hf_test_pattern_file(read_only_path_.c_str(), kSharedReadOnly, kReadOnlySeed), 0);
        ASSERT_EQ(hipMalloc(&shared_buffer_, kRegion), hipSuccess);
    }
    void TearDown() override
    {
        EXPECT_EQ(hipFree(shared_buffer_), hipSuccess);
        while (hipFileUseCount() > 0)
            (void)hipFileDriverClose();
    }
    static hipFileHandle_t Register(int fd, hipFileError_t *e_p)
    {
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        hipFileHandle_t fh = nullptr;
        *e_p = hipFileHandleRegister(&fh, &descr);
        return fh;
    }

    void Worker(int t, hipFileHandle_t read_only, int ops);
    void DriverCycler(int cycles);

    std::vector<std::string> shared_paths_;
    std::string read_only_path_;
    void *shared_buffer_ = nullptr;
    std::atomic<bool> shared_buffer_registered_{false};
    std::vector<std::vector<uint32_t>> last_generation_;
    Totals totals_;
};

void StressTest::Worker(int t, hipFileHandle_t read_only, int ops)
{
    std::mt19937 random(4242 + t);
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    void *buffer = nullptr;
    ASSERT_EQ(hipMalloc(&buffer, kSharedReadOnly), hipSuccess);
    std::vector<uint8_t> host(kSharedReadOnly);
    int fds[kSharedFiles];
    hipFileHandle_t handles[kSharedFiles] = {};
    for (int f = 0; f < kSharedFiles; f++) {
        fds[f] = open(shared_paths_[f].c_str(), O_RDWR | O_CLOEXEC);
        ASSERT_GE(fds[f], 0);
    }
    bool own_buffer_registered = false;
    uint32_t generation = 1;

    for (int i = 0; i < ops && !::testing::Test::HasFatalFailure(); i++) {
        int f = (int)(random() % kSharedFiles);
        switch (random() % 8) {
        case 0: // register or deregister this thread's descriptor of a shared file
            if (handles[f] == nullptr) {
                hipFileError_t e;
                handles[f] = Register(fds[f], &e);
                ASSERT_EQ(e.err, hipFileSuccess);
                totals_.file_registers++;
            } else {
                hipFileHandleDeregister(handles[f]);
                handles[f] = nullptr;
                totals_.file_deregisters++;
            }
            break;
        case 1: // register or deregister this thread's own buffer
            if (!own_buffer_registered) {
                ASSERT_EQ(hipFileBufRegister(buffer, kSharedReadOnly, 0).err, hipFileSuccess);
                totals_.buffer_registers++;
            } else {
                ASSERT_EQ(hipFileBufDeregister(buffer).err, hipFileSuccess);
                totals_.buffer_deregisters++;
            }
            own_buffer_registered = !own_buffer_registered;
            break;
        case 2: { // race the other threads for the one shared buffer
            hipFileError_t e = hipFileBufRegister(shared_buffer_, kRegion, 0);
            if (e.err == hipFileSuccess) {
                totals_.buffer_registers++;
                ASSERT_FALSE(shared_buffer_registered_.exchange(true));
                shared_buffer_registered_ = false;
                ASSERT_EQ(hipFileBufDeregister(shared_buffer_).err, hipFileSuccess);
                totals_.buffer_deregisters++;
            } else {
                ASSERT_EQ(e.err, hipFileMemoryAlreadyRegistered);
                totals_.buffer_refusals++;
            }
            break;
        }
        case 3:
        case 4: { // write a new generation into this thread's region, then read it back
            if (handles[f] == nullptr)
                break;
            size_t size = 4096 * (1 + random() % (kRegion / 4096));
            uint32_t seed = SeedOf(t, f, ++generation);
            hoff_t at = (hoff_t)(kRegion * t);
            // The whole region is rewritten, so it holds one generation; a prefix is read back.
            hf_test_pattern_fill(host.data(), kRegion, 0, seed);
            ASSERT_EQ(hipMemcpy(buffer, host.data(), kRegion, hipMemcpyHostToDevice), hipSuccess);
            ASSERT_EQ(hipFileWrite(handles[f], buffer, kRegion, at, 0), (ssize_t)kRegion);
            totals_.writes++;
            totals_.write_bytes += kRegion;
            last_generation_[t][f] = generation;
            ASSERT_EQ(hipMemset(buffer, 0, kRegion), hipSuccess);
            ASSERT_EQ(hipFileRead(handles[f], buffer, size, at, 0), (ssize_t)size);
            totals_.reads++;
            totals_.read_bytes += size;
            ASSERT_EQ(hipMemcpy(host.data(), buffer, size, hipMemcpyDeviceToHost), hipSuccess);
            ASSERT_EQ(hf_test_pattern_check(host.data(), size, 0, seed), -1)
                << "thread " << t << " file " << f << " generation " << generation;
            break;
        }
        default: { // read part of the shared read-only file through the shared handle
            size_t size = 4096 * (1 + random() % (kSharedReadOnly / 4096));
            hoff_t at = (hoff_t)(4096 * (random() % ((kSharedReadOnly - size) / 4096 + 1)));
            ASSERT_EQ(hipFileRead(read_only, buffer, size, at, 0), (ssize_t)size);
            totals_.reads++;
            totals_.read_bytes += size;
            ASSERT_EQ(hipMemcpy(host.data(), buffer, size, hipMemcpyDeviceToHost), hipSuccess);
            ASSERT_EQ(hf_test_pattern_check(host.data(), size, (uint64_t)at, kReadOnlySeed), -1)
                << "thread " << t << " at " << at;
            break;
        }
        }
    }
    for (int f = 0; f < kSharedFiles; f++) {
        if (handles[f] != nullptr) {
            hipFileHandleDeregister(handles[f]);
            totals_.file_deregisters++;
        }
        close(fds[f]);
    }
    if (own_buffer_registered) {
        EXPECT_EQ(hipFileBufDeregister(buffer).err, hipFileSuccess);
        totals_.buffer_deregisters++;
    }
    EXPECT_EQ(hipFree(buffer), hipSuccess);
    EXPECT_EQ(hipFileDriverClose().err, hipFileSuccess);
}

// Opens and closes the driver while the workers hold their own references.
void StressTest::DriverCycler(int cycles)
{
    for (int i = 0; i < cycles; i++) {
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
        ASSERT_GE(hipFileUseCount(), 2);
        ASSERT_EQ(hipFileDriverClose().err, hipFileSuccess);
        totals_.driver_cycles++;
    }
}

TEST_F(StressTest, ThreadsShareFilesAndBuffersWhileTheDriverCycles)
{
    const int ops = OpsPerThread();
    int fd = open(read_only_path_.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    hipFileError_t e;
    hipFileHandle_t read_only = Register(fd, &e);
    ASSERT_EQ(e.err, hipFileSuccess);
    last_generation_.assign(kThreads, std::vector<uint32_t>(kSharedFiles, 0));

    hipFileStatsLevel1_t before = {};
    ASSERT_EQ(hipFileGetStatsL1(&before).err, hipFileSuccess);
    int64_t count_before = hipFileUseCount();

    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++)
        threads.emplace_back([this, t, read_only, ops] { Worker(t, read_only, ops); });
    threads.emplace_back([this, ops] { DriverCycler(ops); });
    for (std::thread &thread : threads)
        thread.join();
    ASSERT_FALSE(HasFatalFailure());

    hipFileStatsLevel1_t after = {};
    ASSERT_EQ(hipFileGetStatsL1(&after).err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), count_before);
    EXPECT_EQ(after.read_ops.ok - before.read_ops.ok, totals_.reads.load());
    EXPECT_EQ(after.read_ops.err - before.read_ops.err, 0u);
    EXPECT_EQ(after.write_ops.ok - before.write_ops.ok, totals_.writes.load());
    EXPECT_EQ(after.write_ops.err - before.write_ops.err, 0u);
    EXPECT_EQ(after.read_bytes - before.read_bytes, totals_.read_bytes.load());
    EXPECT_EQ(after.write_bytes - before.write_bytes, totals_.write_bytes.load());
    EXPECT_EQ(after.hdl_register_ops.ok - before.hdl_register_ops.ok,
              totals_.file_registers.load());
    EXPECT_EQ(after.buf_register_ops.ok - before.buf_register_ops.ok,
              totals_.buffer_registers.load());
    EXPECT_EQ(after.buf_deregister_ops.ok - before.buf_deregister_ops.ok,
              totals_.buffer_deregisters.load());
    EXPECT_EQ(totals_.file_registers.load(), totals_.file_deregisters.load());
    EXPECT_EQ(totals_.buffer_registers.load(), totals_.buffer_deregisters.load());
    // Only the read-only file is left registered, and no buffer.
    EXPECT_EQ(hf_file_count(), 1u);
    EXPECT_EQ(hf_buffer_count(), 0u);
    hipFileHandleDeregister(read_only);
    EXPECT_EQ(hf_file_count(), 0u);
    close(fd);

    // Nothing lost or duplicated: each region holds the last generation its thread wrote.
    std::vector<uint8_t> host(kRegion);
    for (int f = 0; f < kSharedFiles; f++) {
        int check = open(shared_paths_[f].c_str(), O_RDONLY | O_CLOEXEC);
        ASSERT_GE(check, 0);
        for (int t = 0; t < kThreads; t++) {
            ASSERT_EQ(pread(check, host.data(), kRegion, (off_t)(kRegion * t)), (ssize_t)kRegion);
            uint32_t generation = last_generation_[t][f];
            uint32_t seed = generation == 0 ? 0 : SeedOf(t, f, generation);
            uint64_t offset = generation == 0 ? kRegion * t : 0;
            EXPECT_EQ(hf_test_pattern_check(host.data(), kRegion, offset, seed), -1)
                << "file " << f << " region of thread " << t;
        }
        close(check);
    }
    printf(
        "[stress] %d threads x %d operations + %llu driver open/close cycles: %llu reads "
        "(%llu bytes), %llu writes (%llu bytes), %llu/%llu file and %llu/%llu buffer "
        "registrations/deregistrations, %llu refused shared-buffer registrations; nothing lost\n",
        kThreads, ops, (unsigned long long)totals_.driver_cycles.load(),
        (unsigned long long)totals_.reads.load(), (unsigned long long)totals_.read_bytes.load(),
        (unsigned long long)totals_.writes.load(), (unsigned long long)totals_.write_bytes.load(),
        (unsigned long long)totals_.file_registers.load(),
        (unsigned long long)totals_.file_deregisters.load(),
        (unsigned long long)totals_.buffer_registers.load(),
        (unsigned long long)totals_.buffer_deregisters.load(),
        (unsigned long long)totals_.buffer_refusals.load());
}

} // namespace
