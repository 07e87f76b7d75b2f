/* The driver reference count rules of AMD's library (API.md section 8.1). */
#include "api_test.h"

#include <atomic>
#include <cerrno>
#include <thread>
#include <vector>

class DriverTest : public ApiTest
{
};

TEST_F(DriverTest, UseCountStartsAtZeroAndOpenIncrements)
{
    EXPECT_EQ(hipFileUseCount(), 0);
    EXPECT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 1);
    EXPECT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 2);
    EXPECT_EQ(hipFileDriverClose().err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 1);
}

TEST_F(DriverTest, CloseAtZeroReturnsNotInitialized)
{
    hipFileError_t e = hipFileDriverClose();
    EXPECT_EQ(e.err, hipFileDriverNotInitialized);
    EXPECT_EQ(e.hip_drv_err, hipSuccess);
    EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(DriverTest, HandleRegisterOpensImplicitlyOnlyOnce)
{
    std::string path = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 4096, 1), 0);
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = Register(fd);
    EXPECT_EQ(hipFileUseCount(), 1);
    /* A later explicit open stacks on the implicit one. */
    EXPECT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 2);
    EXPECT_EQ(hipFileDriverClose().err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 1);
    hipFileHandleDeregister(fh);
    close(fd);
}

TEST_F(DriverTest, BufRegisterOpensImplicitly)
{
    void *dev = nullptr;
    ASSERT_EQ(hipMalloc(&dev, 1 << 16), hipSuccess);
    EXPECT_EQ(hipFileBufRegister(dev, 1 << 16, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 1);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
    (void)hipFree(dev);
}

TEST_F(DriverTest, BatchSetUpLeavesTheDriverClosedAsAMDDoes)
{
    hipFileBatchHandle_t batch{};
    ASSERT_EQ(hipFileBatchIOSetUp(&batch, 4).err, hipFileSuccess);
    EXPECT_EQ(hipFileUseCount(), 0);
    /* The handles a batch names open the driver when they are registered; the batch works then. */
    std::string path = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 4096, 1), 0);
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = Register(fd);
    EXPECT_EQ(hipFileUseCount(), 1);
    void *dev = nullptr;
    ASSERT_EQ(hipMalloc(&dev, 4096), hipSuccess);
    hipFileIOParams_t io{};
    io.mode = hipFileBatch;
    io.opcode = hipFileBatchRead;
    io.fh = fh;
    io.u.batch.devPtr_base = dev;
    io.u.batch.size = 4096;
    ASSERT_EQ(hipFileBatchIOSubmit(batch, 1, &io, 0).err, hipFileSuccess);
    hipFileIOEvents_t ev{};
    unsigned nr = 1;
    ASSERT_EQ(hipFileBatchIOGetStatus(batch, 1, &nr, &ev, nullptr).err, hipFileSuccess);
    EXPECT_EQ(nr, 1u);
    EXPECT_EQ(static_cast<ssize_t>(ev.ret), 4096);
    hipFileBatchIODestroy(batch);
    hipFileHandleDeregister(fh);
    (void)hipFree(dev);
    close(fd);
}

TEST_F(DriverTest, ConcurrentFirstRegistrationsLeaveCountAtOne)
{
    void *dev = nullptr;
    const int threads = 8;
    ASSERT_EQ(hipMalloc(&dev, threads * 4096), hipSuccess);
    std::atomic<int> ok{0};
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; i++) {
        pool.emplace_back([&, i] {
            if (hipFileBufRegister(static_cast<char *>(dev) + i * 4096, 4096, 0).err ==
                hipFileSuccess)
                ok++;
        });
    }
    for (auto &t : pool)
        t.join();
    EXPECT_EQ(ok.load(), threads);
    EXPECT_EQ(hipFileUseCount(), 1);
    (void)hipFree(dev);
}

TEST_F(DriverTest, LastCloseDropsRegistrations)
{
    std::string path = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 8192, 2), 0);
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    void *dev = nullptr;
    ASSERT_EQ(hipMalloc(&dev, 8192), hipSuccess);
    hipFileHandle_t fh = Register(fd);
    ASSERT_EQ(hipFileBufRegister(dev, 8192, 0).err, hipFileSuccess);
    ASSERT_EQ(hipFileDriverClose().err, hipFileSuccess);
    ASSERT_EQ(hipFileUseCount(), 0);

    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    /* The old handle and buffer registration are gone; the caller's fd is still open. */
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 0, 0), -static_cast<ssize_t>(hipFileHandleNotRegistered));
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileMemoryNotRegistered);
    EXPECT_EQ(fcntl(fd, F_GETFD), 0);
    hipFileHandle_t again = Register(fd);
    EXPECT_NE(again, nullptr);
    hipFileHandleDeregister(again);
    close(fd);
    (void)hipFree(dev);
}

TEST_F(DriverTest, CallsAtZeroFollowTheSeedRules)
{
    char host[16] = {0};
    EXPECT_EQ(hipFileBufDeregister(host).err, hipFileDriverClosing);
    hipFileHandleDeregister(reinterpret_cast<hipFileHandle_t>(0x1234));
    EXPECT_EQ(hipFileUseCount(), 0);
    errno = 0;
    EXPECT_EQ(hipFileRead(reinterpret_cast<hipFileHandle_t>(0x1234), host, 16, 0, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    errno = 0;
    EXPECT_EQ(hipFileWrite(reinterpret_cast<hipFileHandle_t>(0x1234), host, 16, 0, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(hipFileUseCount(), 0);
}

TEST_F(DriverTest, AsyncAtZeroOpensAndReportsInvalidValue)
{
    size_t size = 16;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 0;
    char host[16] = {0};
    hipFileError_t e = hipFileReadAsync(reinterpret_cast<hipFileHandle_t>(0x1234), host, &size,
                                        &file_offset, &buffer_offset, &bytes, nullptr);
    EXPECT_EQ(e.err, hipFileInvalidValue);
    EXPECT_EQ(hipFileUseCount(), 1);
}

TEST_F(DriverTest, CountFreeCallsWorkWithDriverClosed)
{
    unsigned major = 99, minor = 99, patch = 99;
    EXPECT_EQ(hipFileGetVersion(&major, &minor, &patch).err, hipFileSuccess);
    EXPECT_EQ(major, (unsigned)HIPFILE_VERSION_MAJOR);
    EXPECT_EQ(minor, (unsigned)HIPFILE_VERSION_MINOR);
    EXPECT_EQ(patch, (unsigned)HIPFILE_VERSION_PATCH);
    hipStream_t stream = nullptr;
    ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
    EXPECT_EQ(hipFileStreamRegister(stream, HIPFILE_STREAM_FIXED_BUF_OFFSET).err, hipFileSuccess);
    EXPECT_EQ(hipFileStreamRegister(stream, 0).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileStreamDeregister(stream).err, hipFileSuccess);
    EXPECT_EQ(hipFileStreamDeregister(stream).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileStreamRegister(stream, 0x10).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileUseCount(), 0);
    (void)hipStreamDestroy(stream);
}
