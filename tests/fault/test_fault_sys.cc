// Faults injected through the system-call tables (the plugin's struct hf_sys_ops and the core's
// struct hf_core_sys_ops), at every call position of a request, on the read and write paths of
// the fallback plugin and on file registration in the core.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "fault_test.h"
#include "hf_harness.h"

#include "fault_file_facts.h"

namespace fault_test
{
namespace
{

class SysFaultTest : public FaultTest
{
  protected:
    FaultSite Site(SysCall call, int err, SysCall also_fail = kSysCallCount, int also_err = 0)
    {
        return FaultSite{
            SysCallName(call),
            [this, call, err, also_fail, also_err](int n) {
                sys_.DisarmAll();
                // The page cache probe answers "not cached", so every byte takes the blocking
                // read whose failures are swept.
                if (also_fail != kSysCallCount)
                    sys_.Arm(also_fail, 0, -1, also_err);
                sys_.Arm(call, n, 1, err);
            },
            [this, call] { return sys_.Failed(call); },
            [this] { sys_.DisarmAll(); },
        };
    }
    static std::function<bool(ssize_t, int)> SystemError(int expected)
    {
        return [expected](ssize_t result, int err) { return result == -1 && err == expected; };
    }
    SysFaults sys_;
};

TEST_F(SysFaultTest, EveryFailingPreadGivesItsErrnoOrTheBytesBeforeIt)
{
    SweepCounts counts = Sweep(Op::kRead, Site(kPread, EIO, kPreadv2, EAGAIN), SystemError(EIO));
    EXPECT_GT(counts.injected, 1);
    EXPECT_EQ(counts.completed, 0) << "an EIO from pread cannot be recovered from";
}

TEST_F(SysFaultTest, EveryFailingPwriteGivesItsErrnoOrTheBytesBeforeIt)
{
    SweepCounts counts = Sweep(Op::kWrite, Site(kPwrite, ENOSPC), SystemError(ENOSPC));
    EXPECT_GT(counts.injected, 1);
    EXPECT_EQ(counts.completed, 0) << "an ENOSPC from pwrite cannot be recovered from";
}

TEST_F(SysFaultTest, InterruptedPreadIsRetriedAtEveryPosition)
{
    SweepCounts counts = Sweep(Op::kRead, Site(kPread, EINTR, kPreadv2, EAGAIN), SystemError(0));
    EXPECT_GT(counts.injected, 1);
    EXPECT_EQ(counts.completed, counts.injected);
}

TEST_F(SysFaultTest, InterruptedPwriteIsRetriedAtEveryPosition)
{
    SweepCounts counts = Sweep(Op::kWrite, Site(kPwrite, EINTR), SystemError(0));
    EXPECT_GT(counts.injected, 1);
    EXPECT_EQ(counts.completed, counts.injected);
}

TEST_F(SysFaultTest, FailingCacheProbeFallsBackToBlockingReads)
{
    SweepCounts counts = Sweep(Op::kRead, Site(kPreadv2, EIO), SystemError(0));
    EXPECT_GT(counts.injected, 0);
    EXPECT_EQ(counts.completed, counts.injected);
}

// The page-cache question that picks the path of an uncached staged read: when the kernel
// cannot answer, the read takes the path it took before the question existed.
TEST_F(SysFaultTest, FailingCacheQuestionNeverFailsARead)
{
    SweepCounts counts = Sweep(Op::kRead, Site(kCachedBytes, ENOSYS), SystemError(0));
    EXPECT_GT(counts.injected, 0) << "the sweep's reads never asked the page cache";
    EXPECT_EQ(counts.completed, counts.injected);
}

// fstat only bounds direct reads into memory the caller sees; staged reads may not call it at
// all, but where they do, its failure must not fail the request.
TEST_F(SysFaultTest, FailingFstatNeverFailsARead)
{
    SweepCounts counts = Sweep(Op::kRead, Site(kFstat, EIO, kPreadv2, EAGAIN), SystemError(0));
    EXPECT_EQ(counts.completed, counts.injected);
}

// The design keeps durability with the file's own open flags: no fdatasync per chunk, and no
// ioctl on the POSIX path. A change that adds either shows up here.
TEST_F(SysFaultTest, ReadsAndWritesCallNeitherFdatasyncNorIoctl)
{
    sys_.Arm(kFdatasync, 0, -1, EIO);
    sys_.Arm(kIoctl, 0, -1, ENOTTY);
    Sweep(Op::kWrite, Site(kPwrite, EINTR), SystemError(0));
    EXPECT_EQ(sys_.Calls(kFdatasync), 0);
    EXPECT_EQ(sys_.Calls(kIoctl), 0);
}

// ---- registration: the core's own open, fstat and statx ----

class RegisterFaultTest : public SysFaultTest
{
  protected:
    void SetUp() override
    {
        SysFaultTest::SetUp();
        path_ = ScratchPath("data");
        ASSERT_EQ(hf_test_pattern_file(path_.c_str(), kFileSize, 5), 0);
        ASSERT_EQ(hipMalloc(&device_, kFileSize), hipSuccess);
    }
    void TearDown() override
    {
        EXPECT_EQ(hipFree(device_), hipSuccess);
        SysFaultTest::TearDown();
    }
    hipFileError_t TryRegister(int fd, hipFileHandle_t *fh_p)
    {
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        return hipFileHandleRegister(fh_p, &descr);
    }
    // Register @p flags' descriptor with the core call failing at position n, for every n a
    // registration reaches; each refusal must be @p expected and leave no descriptor behind.
    int SweepRegistration(SysCall call, int err, int flags, hipFileOpError_t expected)
    {
        int injected = 0;
        int fd = open(path_.c_str(), flags | O_CLOEXEC);
        EXPECT_GE(fd, 0);
        for (int n = 0; n < kMaxSweep; n++) {
            int before = OpenDescriptors();
            sys_.DisarmAll();
            sys_.Arm(call, n, 1, err);
            hipFileHandle_t fh = nullptr;
            hipFileError_t e = TryRegister(fd, &fh);
            bool fired = sys_.Failed(call) > 0;
            sys_.DisarmAll();
            if (e.err == hipFileSuccess) {
                ExpectCleanRead(fh, device_, 5);
                hipFileHandleDeregister(fh);
            } else {
                EXPECT_TRUE(fired) << "refused without a fault: " << e.err;
                EXPECT_EQ(e.err, expected) << SysCallName(call) << " failing at call " << n;
            }
            EXPECT_EQ(OpenDescriptors(), before) << SysCallName(call) << " at call " << n;
            // Registration after the fault works.
            EXPECT_EQ(TryRegister(fd, &fh).err, hipFileSuccess);
            ExpectCleanRead(fh, device_, 5);
            hipFileHandleDeregister(fh);
            if (!fired)
                break;
            injected++;
        }
        close(fd);
        printf("[fault] %s (register, flags 0%o): %d faults injected, %d survived\n",
               SysCallName(call), flags, injected, injected);
        return injected;
    }
    std::string path_;
    void *device_ = nullptr;
};

TEST_F(RegisterFaultTest, TwinOpenOutOfDescriptorsIsGetNewFdFailed)
{
    EXPECT_EQ(SweepRegistration(kCoreOpen, EMFILE, O_RDWR | O_APPEND, hipFileGetNewFDFailed), 2);
    EXPECT_EQ(SweepRegistration(kCoreOpen, ENFILE, O_RDWR, hipFileGetNewFDFailed), 2);
}

TEST_F(RegisterFaultTest, TwinOpenRefusedIsPermissionDenied)
{
    EXPECT_EQ(
        SweepRegistration(kCoreOpen, EACCES, O_RDWR | O_DIRECT | O_APPEND, hipFilePermissionDenied),
        2);
}

TEST_F(RegisterFaultTest, TwinOpenWithoutDirectIoRegistersWithoutDirectPath)
{
    /* The buffered twin opens first, the O_DIRECT twin second. */
    sys_.Arm(kCoreOpen, 1, 1, EINVAL);
    int fd = open(path_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = nullptr;
    ASSERT_EQ(TryRegister(fd, &fh).err, hipFileSuccess);
    EXPECT_EQ(sys_.Failed(kCoreOpen), 1);
    struct fault_file_facts facts;
    ASSERT_EQ(fault_file_facts(fh, &facts), 0);
    EXPECT_EQ(facts.direct_fd, -1);
    ExpectCleanRead(fh, device_, 5);
    hipFileHandleDeregister(fh);
    close(fd);
}

TEST_F(RegisterFaultTest, FailingFstatIsInvalidValue)
{
    EXPECT_EQ(SweepRegistration(kCoreFstat, EIO, O_RDWR, hipFileInvalidValue), 1);
}

TEST_F(RegisterFaultTest, FailingStatxKeepsPageAlignment)
{
    EXPECT_EQ(SweepRegistration(kCoreStatx, ENOSYS, O_RDWR, hipFileInternalError), 1);
    sys_.Arm(kCoreStatx, 0, -1, EIO);
    int fd = open(path_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = nullptr;
    ASSERT_EQ(TryRegister(fd, &fh).err, hipFileSuccess);
    struct fault_file_facts facts;
    ASSERT_EQ(fault_file_facts(fh, &facts), 0);
    EXPECT_EQ(facts.dio_mem_align, 4096u);
    EXPECT_EQ(facts.dio_offset_align, 4096u);
    hipFileHandleDeregister(fh);
    close(fd);
}

} // namespace
} // namespace fault_test
