/* hipFileBufRegister/Deregister: every rule and error of API.md section 8.3. */
#include "api_test.h"

#include <algorithm>
#include <cstdlib>

class BufferRegisterTest : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        ASSERT_EQ(hipMalloc(&dev, size), hipSuccess);
    }
    void TearDown() override
    {
        ApiTest::TearDown();
        (void)hipFree(dev);
    }
    void *dev = nullptr;
    const size_t size = 1 << 20;
};

TEST_F(BufferRegisterTest, RegisterAndDeregister)
{
    EXPECT_EQ(hipFileBufRegister(dev, size, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
}

TEST_F(BufferRegisterTest, FlagsAreAccepted)
{
    EXPECT_EQ(
        hipFileBufRegister(dev, size, HIPFILE_RDMA_REGISTER | HIPFILE_RDMA_RELAXED_ORDERING).err,
        hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
}

TEST_F(BufferRegisterTest, NullAndZeroLengthAreInvalidValue)
{
    EXPECT_EQ(hipFileBufRegister(nullptr, size, 0).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileBufRegister(dev, 0, 0).err, hipFileInvalidValue);
}

TEST_F(BufferRegisterTest, PageableHostMemoryIsInvalidValue)
{
    void *host = calloc(1, 4096);
    EXPECT_EQ(hipFileBufRegister(host, 4096, 0).err, hipFileInvalidValue);
    free(host);
}

TEST_F(BufferRegisterTest, PinnedAndManagedMemoryAreTheWrongType)
{
    void *pinned = nullptr;
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    EXPECT_EQ(hipFileBufRegister(pinned, 4096, 0).err, hipFileHipMemoryTypeInvalid);
    (void)hipHostFree(pinned);
    void *managed = nullptr;
    ASSERT_EQ(hipMallocManaged(&managed, 4096, hipMemAttachGlobal), hipSuccess);
    EXPECT_EQ(hipFileBufRegister(managed, 4096, 0).err, hipFileHipMemoryTypeInvalid);
    (void)hipFree(managed);
}

TEST_F(BufferRegisterTest, RangePastTheAllocationIsPointerRangeError)
{
    EXPECT_EQ(hipFileBufRegister(dev, size + 1, 0).err, hipFileHipPointerRangeError);
    EXPECT_EQ(hipFileBufRegister(static_cast<char *>(dev) + 4096, size, 0).err,
              hipFileHipPointerRangeError);
    /* AMD's answer for a length no allocation can have, too. */
    EXPECT_EQ(hipFileBufRegister(dev, SIZE_MAX, 0).err, hipFileHipPointerRangeError);
}

TEST_F(BufferRegisterTest, SameBaseTwiceIsAlreadyRegistered)
{
    ASSERT_EQ(hipFileBufRegister(dev, 4096, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufRegister(dev, 8192, 0).err, hipFileMemoryAlreadyRegistered);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
}

TEST_F(BufferRegisterTest, OverlappingRangesAreAlreadyRegistered)
{
    char *base = static_cast<char *>(dev);
    ASSERT_EQ(hipFileBufRegister(base + 8192, 8192, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufRegister(base + 4096, 8192, 0).err, hipFileMemoryAlreadyRegistered);
    EXPECT_EQ(hipFileBufRegister(base + 12288, 4096, 0).err, hipFileMemoryAlreadyRegistered);
    /* Adjacent ranges do not overlap. */
    EXPECT_EQ(hipFileBufRegister(base, 8192, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufRegister(base + 16384, 4096, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(base).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(base + 8192).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(base + 16384).err, hipFileSuccess);
}

TEST_F(BufferRegisterTest, DeregisterNeedsTheExactBase)
{
    ASSERT_EQ(hipFileBufRegister(dev, 8192, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(static_cast<char *>(dev) + 1).err, hipFileMemoryNotRegistered);
    EXPECT_EQ(hipFileBufDeregister(nullptr).err, hipFileMemoryNotRegistered);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileMemoryNotRegistered);
}

TEST_F(BufferRegisterTest, ManyBuffersRegisterAndDeregisterInAnyOrder)
{
    char *base = static_cast<char *>(dev);
    for (int i = 0; i < 64; i++)
        ASSERT_EQ(hipFileBufRegister(base + (63 - i) * 4096, 4096, 0).err, hipFileSuccess);
    for (int i = 0; i < 64; i += 2)
        ASSERT_EQ(hipFileBufDeregister(base + i * 4096).err, hipFileSuccess);
    for (int i = 1; i < 64; i += 2)
        ASSERT_EQ(hipFileBufDeregister(base + i * 4096).err, hipFileSuccess);
}
