/*
 * The extent rules: which FIEMAP extents a read or write may use on the device, which read as
 * zeros, which send the request elsewhere; the walk from file offsets to device bytes; and the
 * inode flags that take a file out of the backend's hands.
 */
#include <gtest/gtest.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include <cerrno>
#include <string>
#include <vector>

#include "nvme_passthru_internal.h"

namespace
{

enum nvme_extent_use Classify(uint32_t flags, int op)
{
    const char *reason = nullptr;
    enum nvme_extent_use use = nvme_extent_classify(flags, op, &reason);
    EXPECT_NE(reason, nullptr);
    return use;
}

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * 1024;

/*
 * [0, 64K) written at 1 MiB; [64K, 128K) a hole; [128K, 192K) unwritten at 2 MiB; [192K, 256K)
 * shared at 3 MiB; end of file at 250000 (inside the last extent).
 */
class ExtentMap : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        extents = {
            {0, 1 * MiB, 64 * KiB, 0},
            {128 * KiB, 2 * MiB, 64 * KiB, FIEMAP_EXTENT_UNWRITTEN},
            {192 * KiB, 3 * MiB, 64 * KiB, FIEMAP_EXTENT_SHARED | FIEMAP_EXTENT_LAST},
        };
        Rebuild();
    }
    void Rebuild()
    {
        map.refs = 1;
        map.extents = extents.data();
        map.count = extents.size();
        map.mapped_end = 250000;
    }
    int Segment(uint64_t pos, uint64_t end, int op, uint64_t dev_start = 0, uint32_t lba = 512)
    {
        reason = nullptr;
        return nvme_segment_at(&map, pos, end, op, dev_start, lba, &seg, &reason);
    }
    std::vector<struct nvme_extent> extents;
    struct nvme_map map = {};
    struct nvme_segment seg = {};
    const char *reason = nullptr;
};

} // namespace

TEST(NvmeExtent, WrittenMergedAndLastExtentsAreReadAndWrittenOnTheDevice)
{
    for (uint32_t flags : {0u, (uint32_t)FIEMAP_EXTENT_LAST, (uint32_t)FIEMAP_EXTENT_MERGED}) {
        EXPECT_EQ(Classify(flags, HF_IO_READ), NVME_EXTENT_DEVICE) << flags;
        EXPECT_EQ(Classify(flags, HF_IO_WRITE), NVME_EXTENT_DEVICE) << flags;
    }
}

TEST(NvmeExtent, UnwrittenExtentsReadAsZerosAndRefuseWrites)
{
    EXPECT_EQ(Classify(FIEMAP_EXTENT_UNWRITTEN, HF_IO_READ), NVME_EXTENT_ZERO);
    EXPECT_EQ(Classify(FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_LAST, HF_IO_READ), NVME_EXTENT_ZERO);
    EXPECT_EQ(Classify(FIEMAP_EXTENT_UNWRITTEN, HF_IO_WRITE), NVME_EXTENT_REFUSE);
}

TEST(NvmeExtent, SharedExtentsAreReadButNeverWritten)
{
    EXPECT_EQ(Classify(FIEMAP_EXTENT_SHARED, HF_IO_READ), NVME_EXTENT_DEVICE);
    EXPECT_EQ(Classify(FIEMAP_EXTENT_SHARED, HF_IO_WRITE), NVME_EXTENT_REFUSE);
}

TEST(NvmeExtent, UnsafeExtentsAreRefusedBothWays)
{
    const uint32_t unsafe[] = {
        FIEMAP_EXTENT_UNKNOWN,
        FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN,
        FIEMAP_EXTENT_ENCODED,
        FIEMAP_EXTENT_DATA_ENCRYPTED | FIEMAP_EXTENT_ENCODED,
        FIEMAP_EXTENT_NOT_ALIGNED,
        FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED,
        FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_NOT_ALIGNED,
        FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_DELALLOC,
        0x00010000u, /* a flag from a future kernel */
    };
    for (uint32_t flags : unsafe) {
        EXPECT_EQ(Classify(flags, HF_IO_READ), NVME_EXTENT_REFUSE) << std::hex << flags;
        EXPECT_EQ(Classify(flags, HF_IO_WRITE), NVME_EXTENT_REFUSE) << std::hex << flags;
    }
}

TEST_F(ExtentMap, WrittenExtentMapsToDeviceBytesPlusPartitionStart)
{
    ASSERT_EQ(Segment(4096, 256 * KiB, HF_IO_READ, 2048 * 512), 0);
    EXPECT_FALSE(seg.zero);
    EXPECT_EQ(seg.file_offset, 4096u);
    EXPECT_EQ(seg.length, 60 * KiB);
    EXPECT_EQ(seg.dev_offset, 2048u * 512u + 1 * MiB + 4096u);
}

TEST_F(ExtentMap, SegmentsStopAtTheRequestEnd)
{
    ASSERT_EQ(Segment(0, 8192, HF_IO_READ), 0);
    EXPECT_EQ(seg.length, 8192u);
}

TEST_F(ExtentMap, HolesAndUnwrittenExtentsReadAsZeros)
{
    ASSERT_EQ(Segment(64 * KiB, 256 * KiB, HF_IO_READ), 0);
    EXPECT_TRUE(seg.zero);
    EXPECT_EQ(seg.length, 64 * KiB);
    ASSERT_EQ(Segment(130 * KiB, 256 * KiB, HF_IO_READ), 0);
    EXPECT_TRUE(seg.zero);
    EXPECT_EQ(seg.length, 62 * KiB);
}

TEST_F(ExtentMap, LastExtentIsReadInWholeBlocksPastEndOfFile)
{
    ASSERT_EQ(Segment(192 * KiB, 256 * KiB, HF_IO_READ), 0);
    EXPECT_FALSE(seg.zero);
    EXPECT_EQ(seg.length, 64 * KiB);
    EXPECT_EQ(seg.dev_offset, 3 * MiB);
}

TEST_F(ExtentMap, NothingIsMappedAtOrPastEndOfFile)
{
    EXPECT_EQ(Segment(250000, 256 * KiB, HF_IO_READ), -ERANGE);
    EXPECT_EQ(Segment(300000, 400000, HF_IO_READ), -ERANGE);
    EXPECT_EQ(Segment(4096, 4096, HF_IO_READ), -ERANGE);
}

TEST_F(ExtentMap, HoleAfterTheLastExtentRunsToTheRequestEnd)
{
    extents.pop_back();
    Rebuild();
    ASSERT_EQ(Segment(200 * KiB, 240 * KiB, HF_IO_READ), 0);
    EXPECT_TRUE(seg.zero);
    EXPECT_EQ(seg.length, 40 * KiB);
}

TEST_F(ExtentMap, WritesRefuseHolesUnwrittenAndSharedExtents)
{
    EXPECT_EQ(Segment(0, 64 * KiB, HF_IO_WRITE), 0);
    EXPECT_EQ(Segment(64 * KiB, 128 * KiB, HF_IO_WRITE), -ENODEV);
    EXPECT_NE(std::string(reason).find("hole"), std::string::npos);
    EXPECT_EQ(Segment(128 * KiB, 192 * KiB, HF_IO_WRITE), -ENODEV);
    EXPECT_NE(std::string(reason).find("unwritten"), std::string::npos);
    EXPECT_EQ(Segment(192 * KiB, 200 * KiB, HF_IO_WRITE), -ENODEV);
    EXPECT_NE(std::string(reason).find("shared"), std::string::npos);
}

TEST_F(ExtentMap, DelayedAllocationSendsTheReadElsewhere)
{
    extents[0].flags = FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN;
    EXPECT_EQ(Segment(0, 4096, HF_IO_READ), -ENODEV);
    EXPECT_NE(std::string(reason).find("delayed allocation"), std::string::npos);
}

TEST_F(ExtentMap, ExtentsOffTheLogicalBlockGridAreRefused)
{
    /* A partition starting at sector 63 is fine for 512-byte blocks, not for 4 KiB ones. */
    EXPECT_EQ(Segment(0, 4096, HF_IO_READ, 63 * 512, 512), 0);
    EXPECT_EQ(Segment(0, 4096, HF_IO_READ, 63 * 512, 4096), -ENODEV);
    EXPECT_NE(std::string(reason).find("logical block"), std::string::npos);
    extents[0].physical = 1 * MiB + 512;
    EXPECT_EQ(Segment(0, 4096, HF_IO_READ, 0, 4096), -ENODEV);
    extents[0].physical = 1 * MiB;
    extents[0].length = 64 * KiB - 1024;
    EXPECT_EQ(Segment(0, 4096, HF_IO_READ, 0, 4096), -ENODEV);
}

TEST(NvmeInodeFlags, FlagsThatMoveDataAwayFromItsExtentsAreRefused)
{
    EXPECT_EQ(nvme_inode_refusal(0, 0), nullptr);
    EXPECT_EQ(nvme_inode_refusal(FS_NOATIME_FL | FS_EXTENT_FL, 0), nullptr);
    EXPECT_NE(nvme_inode_refusal(FS_JOURNAL_DATA_FL, 0), nullptr);
    EXPECT_NE(nvme_inode_refusal(FS_ENCRYPT_FL, 0), nullptr);
    EXPECT_NE(nvme_inode_refusal(FS_VERITY_FL, 0), nullptr);
    EXPECT_NE(nvme_inode_refusal(0x10000000u, 0), nullptr); /* ext4 inline data */
    EXPECT_NE(nvme_inode_refusal(FS_DAX_FL, 0), nullptr);
    EXPECT_NE(nvme_inode_refusal(0, FS_XFLAG_REALTIME), nullptr);
    EXPECT_NE(nvme_inode_refusal(0, FS_XFLAG_DAX), nullptr);
}
