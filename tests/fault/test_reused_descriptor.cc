// A program that closes a registered descriptor without deregistering and gets the number back
// for another file: every entry point that takes the old handle must serve the file it was
// registered for, never the new one; the number's new file registers; deregistration during I/O
// releases the file when the I/O ends. And a write that fails past the end of a file leaves it no
// longer than the count it reports.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "fault_test.h"
#include "hf_harness.h"
extern "C" {
#include "base/sys.h"
}

namespace fault_test
{
namespace
{

constexpr uint32_t kSeedA = 41, kSeedB = 42, kSeedBuffer = 43;

class ReusedDescriptorTest : public FaultTest
{
  protected:
    void SetUp() override
    {
        FaultTest::SetUp();
        path_a_ = ScratchPath("a");
        path_b_ = ScratchPath("b");
        ASSERT_EQ(hf_test_pattern_file(path_a_.c_str(), kFileSize, kSeedA), 0);
        ASSERT_EQ(hf_test_pattern_file(path_b_.c_str(), kFileSize, kSeedB), 0);
        ASSERT_EQ(hipMalloc(&device_, kFileSize), hipSuccess);
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    }
    void TearDown() override
    {
        EXPECT_EQ(hipFree(device_), hipSuccess);
        FaultTest::TearDown();
    }
    // Register A with @p flags, close it without deregistering, and open B on the same number.
    hipFileHandle_t StaleHandle(int flags)
    {
        int fd_a = -1;
        hipFileHandle_t fh = OpenRegistered(path_a_, flags, &fd_a);
        EXPECT_EQ(close(fd_a), 0);
        int fd_b = open(path_b_.c_str(), flags | O_CLOEXEC);
        EXPECT_GE(fd_b, 0);
        if (fd_b != fd_a) {
            EXPECT_EQ(dup2(fd_b, fd_a), fd_a);
            close(fd_b);
        }
        number_ = fd_a;
        return fh;
    }
    static hipFileError_t TryRegister(int fd, hipFileHandle_t *fh_p)
    {
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        return hipFileHandleRegister(fh_p, &descr);
    }
    int64_t DeviceMismatch(uint32_t seed)
    {
        std::vector<uint8_t> host(kFileSize);
        EXPECT_EQ(hipMemcpy(host.data(), device_, kFileSize, hipMemcpyDeviceToHost), hipSuccess);
        return hf_test_pattern_check(host.data(), kFileSize, 0, seed);
    }
    static int64_t FileMismatch(const std::string &path, uint32_t seed)
    {
        std::vector<uint8_t> host(kFileSize);
        int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        EXPECT_EQ(pread(fd, host.data(), kFileSize, 0), (ssize_t)kFileSize);
        close(fd);
        return hf_test_pattern_check(host.data(), kFileSize, 0, seed);
    }
    // Flags a descriptor may be opened with, the filesystem permitting.
    std::vector<int> FlagSets()
    {
        std::vector<int> sets = {O_RDWR, O_RDWR | O_APPEND};
        int probe = open(path_a_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
        if (probe >= 0) {
            sets.push_back(O_RDWR | O_DIRECT);
            close(probe);
        }
        return sets;
    }
    ssize_t ReadAsync(hipFileHandle_t fh)
    {
        hipStream_t stream = nullptr;
        EXPECT_EQ(hipStreamCreate(&stream), hipSuccess);
        size_t size = kFileSize;
        hoff_t file_offset = 0, buffer_offset = 0;
        ssize_t bytes = 0;
        EXPECT_EQ(
            hipFileReadAsync(fh, device_, &size, &file_offset, &buffer_offset, &bytes, stream).err,
            hipFileSuccess);
        EXPECT_EQ(hipStreamSynchronize(stream), hipSuccess);
        EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
        return bytes;
    }
    ssize_t Batch(hipFileHandle_t fh, hipFileOpcode_t opcode)
    {
        hipFileBatchHandle_t batch = nullptr;
        EXPECT_EQ(hipFileBatchIOSetUp(&batch, 1).err, hipFileSuccess);
        hipFileIOParams_t p = {};
        p.mode = hipFileBatch;
        p.opcode = opcode;
        p.fh = fh;
        p.u.batch.devPtr_base = device_;
        p.u.batch.size = kFileSize;
        EXPECT_EQ(hipFileBatchIOSubmit(batch, 1, &p, 0).err, hipFileSuccess);
        hipFileIOEvents_t ev = {};
        unsigned nr = 1;
        EXPECT_EQ(hipFileBatchIOGetStatus(batch, 1, &nr, &ev, nullptr).err, hipFileSuccess);
        hipFileBatchIODestroy(batch);
        return ev.status == hipFileComplete ? (ssize_t)ev.ret : -1;
    }

    std::string path_a_, path_b_;
    void *device_ = nullptr;
    int number_ = -1;
};

TEST_F(ReusedDescriptorTest, EveryReadThroughAStaleHandleServesItsOwnFile)
{
    for (int flags : FlagSets()) {
        for (int entry = 0; entry < 3; entry++) {
            hipFileHandle_t fh = StaleHandle(flags);
            ASSERT_EQ(hipMemset(device_, 0, kFileSize), hipSuccess);
            ssize_t got = entry == 0   ? hipFileRead(fh, device_, kFileSize, 0, 0)
                          : entry == 1 ? ReadAsync(fh)
                                       : Batch(fh, hipFileBatchRead);
            EXPECT_EQ(got, (ssize_t)kFileSize)
                << "flags 0" << std::oct << flags << " entry " << entry;
            EXPECT_EQ(DeviceMismatch(kSeedA), -1)
                << "read, async read, batch read [" << entry << "], flags 0" << std::oct << flags
                << ": bytes of another file";
            hipFileHandleDeregister(fh);
            close(number_);
        }
    }
}

TEST_F(ReusedDescriptorTest, EveryWriteThroughAStaleHandleChangesOnlyItsOwnFile)
{
    std::vector<uint8_t> host(kFileSize);
    hf_test_pattern_fill(host.data(), kFileSize, 0, kSeedBuffer);
    for (int flags : FlagSets()) {
        for (int entry = 0; entry < 2; entry++) {
            ASSERT_EQ(hf_test_pattern_file(path_a_.c_str(), kFileSize, kSeedA), 0);
            ASSERT_EQ(hipMemcpy(device_, host.data(), kFileSize, hipMemcpyHostToDevice),
                      hipSuccess);
            hipFileHandle_t fh = StaleHandle(flags);
            ssize_t put = entry == 0 ? hipFileWrite(fh, device_, kFileSize, 0, 0)
                                     : Batch(fh, hipFileBatchWrite);
            EXPECT_EQ(put, (ssize_t)kFileSize);
            EXPECT_EQ(FileMismatch(path_b_, kSeedB), -1) << "the other file was written";
            EXPECT_EQ(FileMismatch(path_a_, kSeedBuffer), -1) << "its own file was not";
            hipFileHandleDeregister(fh);
            close(number_);
        }
    }
}

TEST_F(ReusedDescriptorTest, TheReusedNumberRegistersItsNewFileButTheSameFileTwiceIsRefused)
{
    hipFileHandle_t stale = StaleHandle(O_RDWR);
    hipFileHandle_t fresh = nullptr;
    ASSERT_EQ(TryRegister(number_, &fresh).err, hipFileSuccess) << "a stale registration blocks";
    EXPECT_NE(fresh, stale);
    ExpectCleanRead(fresh, device_, kSeedB);
    ExpectCleanRead(stale, device_, kSeedA);
    hipFileHandle_t again = nullptr;
    EXPECT_EQ(TryRegister(number_, &again).err, hipFileHandleAlreadyRegistered);
    // The number back on A, still registered through the stale handle, is the same file again.
    hipFileHandleDeregister(fresh);
    close(number_);
    int fd = open(path_a_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_EQ(fd, number_);
    EXPECT_EQ(TryRegister(fd, &again).err, hipFileHandleAlreadyRegistered);
    hipFileHandleDeregister(stale);
    ASSERT_EQ(TryRegister(fd, &again).err, hipFileSuccess);
    hipFileHandleDeregister(again);
    close(fd);
}

// Reads that wait at a gate inside the system call, so a test can act while one is in flight.
std::mutex gate_lock;
std::condition_variable gate_changed;
bool gate_open = true;
int gate_waiting = 0;

void GateWait()
{
    std::unique_lock<std::mutex> lock(gate_lock);
    gate_waiting++;
    gate_changed.notify_all();
    gate_changed.wait(lock, [] { return gate_open; });
    gate_waiting--;
}

ssize_t GatedPread(int fd, void *buf, size_t count, off_t offset)
{
    GateWait();
    return hf_sys_default()->pread(fd, buf, count, offset);
}

ssize_t GatedPreadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
    GateWait();
    return hf_sys_default()->preadv2(fd, iov, iovcnt, offset, flags);
}

TEST_F(ReusedDescriptorTest, DeregisterDuringIoReleasesTheFileWhenTheIoEnds)
{
    int fd = -1;
    hipFileHandle_t fh = OpenRegistered(path_a_, O_RDWR, &fd);
    struct hf_sys_ops gated = *hf_sys_default();
    gated.pread = GatedPread;
    gated.preadv2 = GatedPreadv2;
    {
        std::lock_guard<std::mutex> lock(gate_lock);
        gate_open = false;
    }
    hf_sys_override(&gated);
    ASSERT_EQ(hipMemset(device_, 0, kFileSize), hipSuccess);
    std::atomic<ssize_t> got{0};
    std::thread reader([&] { got = hipFileRead(fh, device_, kFileSize, 0, 0); });
    {
        std::unique_lock<std::mutex> lock(gate_lock);
        gate_changed.wait(lock, [] { return gate_waiting > 0; });
    }
    // The read is inside the backend. Deregistration returns now and the handle is refused ...
    hipFileHandleDeregister(fh);
    EXPECT_EQ(hipFileRead(fh, device_, 4096, 0, 0),
              -static_cast<ssize_t>(hipFileHandleNotRegistered));
    // ... and the number, closed and reused for another file, registers that file.
    ASSERT_EQ(close(fd), 0);
    int fd_b = open(path_b_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_EQ(fd_b, fd);
    hipFileHandle_t fh_b = nullptr;
    EXPECT_EQ(TryRegister(fd_b, &fh_b).err, hipFileSuccess) << "deregistration left a trap";
    {
        std::lock_guard<std::mutex> lock(gate_lock);
        gate_open = true;
        gate_changed.notify_all();
    }
    reader.join();
    hf_sys_override(nullptr);
    EXPECT_EQ(got.load(), (ssize_t)kFileSize) << "the read in flight finished on its file";
    EXPECT_EQ(DeviceMismatch(kSeedA), -1);
    ExpectCleanRead(fh_b, device_, kSeedB);
    hipFileHandleDeregister(fh_b);
    close(fd_b);
}

// A write at the end of a file whose n-th pwrite fails with ENOSPC (once, or every call from
// there on, as on a full disk): the file may grow by what the call reports, never more.
TEST_F(ReusedDescriptorTest, AFailedWritePastTheEndLeavesTheFileNoLongerThanReported)
{
    constexpr size_t kOldSize = 64 * 1024;
    std::vector<uint8_t> host(kFileSize);
    hf_test_pattern_fill(host.data(), kFileSize, 0, kSeedBuffer);
    ASSERT_EQ(hipMemcpy(device_, host.data(), kFileSize, hipMemcpyHostToDevice), hipSuccess);
    int cut_back = 0;
    for (int times : {1, -1}) {
        SysFaults sys;
        for (int n = 0; n < kMaxSweep; n++) {
            ASSERT_EQ(hf_test_pattern_file(path_a_.c_str(), kOldSize, kSeedA), 0);
            int fd = -1;
            hipFileHandle_t fh = OpenRegistered(path_a_, O_RDWR, &fd);
            sys.DisarmAll();
            sys.Arm(kPwrite, n, times, ENOSPC);
            ssize_t put = hipFileWrite(fh, device_, kFileSize, kOldSize, 0);
            bool fired = sys.Failed(kPwrite) > 0;
            sys.DisarmAll();
            struct stat st;
            ASSERT_EQ(fstat(fd, &st), 0);
            size_t reported = put > 0 ? (size_t)put : 0;
            EXPECT_EQ((size_t)st.st_size, kOldSize + reported)
                << "pwrite failing " << times << "x from call " << n << ": returned " << put;
            std::vector<uint8_t> back(reported);
            EXPECT_EQ(pread(fd, back.data(), reported, kOldSize), (ssize_t)reported);
            EXPECT_EQ(hf_test_pattern_check(back.data(), reported, 0, kSeedBuffer), -1);
            if (fired && put < (ssize_t)kFileSize)
                cut_back++;
            hipFileHandleDeregister(fh);
            close(fd);
            if (!fired)
                break;
        }
    }
    EXPECT_GT(cut_back, 1) << "no failed write was swept";
}

} // namespace
} // namespace fault_test
