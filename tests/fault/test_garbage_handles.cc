// Handles and pointers that were never handed out, or were handed out and given back, are looked
// up rather than dereferenced: every public function taking one returns an error for any value.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <random>
#include <vector>

#include "fault_test.h"
#include "hf_harness.h"

namespace fault_test
{
namespace
{

class GarbageHandleTest : public FaultTest
{
  protected:
    // Values a corrupted or confused program could pass: small integers, pointers to memory the
    // program owns, unmapped addresses, all-ones, and pseudo-random words (fixed seed).
    std::vector<uintptr_t> GarbageValues()
    {
        std::vector<uintptr_t> values = {1,
                                         2,
                                         0x41,
                                         0xdeadbeef,
                                         UINTPTR_MAX,
                                         UINTPTR_MAX - 4095,
                                         0x1000,
                                         (uintptr_t)1 << 47,
                                         (uintptr_t)&stack_word_,
                                         (uintptr_t)this};
        std::mt19937_64 random(20240601);
        for (int i = 0; i < 200; i++)
            values.push_back((uintptr_t)random());
        return values;
    }
    int stack_word_ = 0;
};

TEST_F(GarbageHandleTest, FileHandlesAreRejected)
{
    void *device = nullptr;
    ASSERT_EQ(hipMalloc(&device, 4096), hipSuccess);
    size_t size = 4096;
    hoff_t offset = 0, buffer_offset = 0;
    ssize_t bytes = 0;
    for (uintptr_t value : GarbageValues()) {
        hipFileHandle_t fh = (hipFileHandle_t)value;
        EXPECT_EQ(hipFileRead(fh, device, 4096, 0, 0), -(ssize_t)hipFileHandleNotRegistered)
            << std::hex << value;
        EXPECT_EQ(hipFileWrite(fh, device, 4096, 0, 0), -(ssize_t)hipFileHandleNotRegistered)
            << std::hex << value;
        // Async operations report through *bytes once the stream reaches them (docs/async.rst).
        bytes = 0;
        hipFileError_t e =
            hipFileReadAsync(fh, device, &size, &offset, &buffer_offset, &bytes, nullptr);
        if (e.err == hipFileSuccess) {
            EXPECT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
            EXPECT_EQ(bytes, -(ssize_t)hipFileHandleNotRegistered) << std::hex << value;
        }
        hipFileHandleDeregister(fh);
    }
    EXPECT_EQ(hipFree(device), hipSuccess);
}

TEST_F(GarbageHandleTest, StaleFileHandleIsRejectedAfterItsSlotIsReused)
{
    std::string path = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 4096, 1), 0);
    void *device = nullptr;
    ASSERT_EQ(hipMalloc(&device, 4096), hipSuccess);
    int fd1 = -1, fd2 = -1;
    hipFileHandle_t old_fh = OpenRegistered(path, O_RDWR, &fd1);
    hipFileHandleDeregister(old_fh);
    hipFileHandle_t new_fh = OpenRegistered(path, O_RDWR, &fd2);
    EXPECT_NE(old_fh, new_fh);
    EXPECT_EQ(hipFileRead(old_fh, device, 4096, 0, 0), -(ssize_t)hipFileHandleNotRegistered);
    hipFileHandleDeregister(old_fh);
    EXPECT_EQ(hipFileRead(new_fh, device, 4096, 0, 0), 4096);
    hipFileHandleDeregister(new_fh);
    close(fd1);
    close(fd2);
    EXPECT_EQ(hipFree(device), hipSuccess);
}

TEST_F(GarbageHandleTest, BatchHandlesAreRejected)
{
    for (uintptr_t value : GarbageValues()) {
        hipFileBatchHandle_t batch = (hipFileBatchHandle_t)value;
        hipFileIOParams_t params = {};
        EXPECT_NE(hipFileBatchIOSubmit(batch, 1, &params, 0).err, hipFileSuccess)
            << std::hex << value;
        unsigned nr = 1;
        hipFileIOEvents_t event = {};
        EXPECT_NE(hipFileBatchIOGetStatus(batch, 0, &nr, &event, nullptr).err, hipFileSuccess)
            << std::hex << value;
        EXPECT_NE(hipFileBatchIOCancel(batch).err, hipFileSuccess) << std::hex << value;
        hipFileBatchIODestroy(batch);
    }
}

TEST_F(GarbageHandleTest, BufferPointersAreRejected)
{
    std::string path = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 4096, 1), 0);
    int fd = -1;
    hipFileHandle_t fh = OpenRegistered(path, O_RDWR, &fd);
    for (uintptr_t value : GarbageValues()) {
        void *ptr = (void *)value;
        ssize_t r = hipFileRead(fh, ptr, 4096, 0, 0);
        EXPECT_TRUE(r == -(ssize_t)hipFileInvalidValue ||
                    r == -(ssize_t)hipFileHipMemoryTypeInvalid)
            << std::hex << value << " gave " << std::dec << r;
        r = hipFileWrite(fh, ptr, 4096, 0, 0);
        EXPECT_TRUE(r == -(ssize_t)hipFileInvalidValue ||
                    r == -(ssize_t)hipFileHipMemoryTypeInvalid)
            << std::hex << value << " gave " << std::dec << r;
        EXPECT_NE(hipFileBufDeregister(ptr).err, hipFileSuccess) << std::hex << value;
    }
    hipFileHandleDeregister(fh);
    close(fd);
}

TEST_F(GarbageHandleTest, StreamsNeverRegisteredAreRejected)
{
    for (uintptr_t value : GarbageValues()) {
        EXPECT_NE(hipFileStreamDeregister((hipStream_t)value).err, hipFileSuccess)
            << std::hex << value;
    }
}

} // namespace
} // namespace fault_test
