/*
 * The mapping cache on this machine's own filesystem: data written and not synced is on the
 * device, with a final mapping, by the time the backend reads the map (the dirty page-cache
 * rule); a file that changes gets a new map; holes and preallocated ranges show as such. Skipped,
 * with the reason, where the scratch directory's filesystem has no FIEMAP (tmpfs).
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fiemap.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hf_harness.h"
#include "nvme_passthru_internal.h"

namespace
{

int SysIoctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}

class MapCache : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        static int counter;
        char *path = hf_test_path(("map" + std::to_string(counter++)).c_str());
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        free(path);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(nvme_map_cache_init(&cache), 0);
        struct nvme_map *probe = nullptr;
        int rc = nvme_map_fetch(fd, SysIoctl, 0, &probe);
        nvme_map_put(probe);
        if (rc == -EOPNOTSUPP)
            GTEST_SKIP() << "the scratch directory's filesystem has no FIEMAP";
        ASSERT_EQ(rc, 0);
    }
    void TearDown() override
    {
        nvme_map_cache_destroy(&cache);
        if (fd >= 0)
            close(fd);
    }
    void Write(size_t size, off_t off)
    {
        std::vector<char> buf(size, 'x');
        ASSERT_EQ(pwrite(fd, buf.data(), size, off), (ssize_t)size);
    }
    struct nvme_map *Get(uint64_t off, uint64_t size, bool fresh = false)
    {
        struct nvme_map *map = nullptr;
        EXPECT_EQ(nvme_map_get(&cache, fd, SysIoctl, off, size, fresh, &map, &stamp), 0);
        return map;
    }
    int fd = -1;
    struct nvme_map_cache cache = {};
    struct nvme_file_stamp stamp = {};
};

bool HasFlags(const struct nvme_map *map, uint32_t flags)
{
    for (size_t i = 0; i < map->count; i++)
        if (map->extents[i].flags & flags)
            return true;
    return false;
}

} // namespace

TEST_F(MapCache, UnsyncedWritesAreOnTheDeviceBeforeTheMapIsRead)
{
    Write(1 << 20, 0);
    struct nvme_map *map = Get(0, 1 << 20);
    ASSERT_NE(map, nullptr);
    ASSERT_GT(map->count, 0u);
    EXPECT_FALSE(HasFlags(map, FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN));
    EXPECT_EQ(map->mapped_end, 1u << 20);
    uint64_t covered = 0;
    for (size_t i = 0; i < map->count; i++)
        covered += map->extents[i].length;
    EXPECT_GE(covered, 1u << 20);
    nvme_map_put(map);
}

TEST_F(MapCache, AnUnchangedFileReusesItsMapAndAChangedOneGetsANewOne)
{
    Write(64 << 10, 0);
    ASSERT_EQ(fdatasync(fd), 0);
    /* Sleeping only ever lengthens the gap: the change leaves the timestamp granule. */
    usleep(120 * 1000);
    struct nvme_map *first = Get(0, 4096);
    struct nvme_map *second = Get(0, 4096);
    EXPECT_EQ(first, second);
    Write(64 << 10, 1 << 20);
    struct nvme_map *third = Get(0, 4096);
    EXPECT_NE(third, first);
    EXPECT_EQ(third->mapped_end, (1u << 20) + (64u << 10));
    nvme_map_put(first);
    nvme_map_put(second);
    nvme_map_put(third);
}

/* Timestamps move in coarse steps: a map taken right after a change might outlive a second one. */
TEST(MapStamp, AFileChangedWithinTheTimestampGranuleCountsAsRecent)
{
    struct nvme_file_stamp stamp = {};
    stamp.mtime_ns = 1000000000000LL;
    stamp.ctime_ns = stamp.mtime_ns + 5;
    EXPECT_TRUE(nvme_stamp_is_recent(&stamp, stamp.ctime_ns));
    EXPECT_TRUE(nvme_stamp_is_recent(&stamp, stamp.ctime_ns + 10 * 1000 * 1000));
    EXPECT_FALSE(nvme_stamp_is_recent(&stamp, stamp.ctime_ns + 1000 * 1000 * 1000));
    /* A clock behind the file's times (set back, or another machine's) is not trusted. */
    EXPECT_TRUE(nvme_stamp_is_recent(&stamp, stamp.mtime_ns - 1000 * 1000 * 1000));
}

TEST_F(MapCache, HolesAndPreallocatedRangesShowAsSuch)
{
    Write(4096, 0);
    ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
    if (fallocate(fd, 0, 512 << 10, 64 << 10) != 0)
        GTEST_SKIP() << "fallocate: " << strerror(errno);
    struct nvme_map *map = Get(0, 1 << 20);
    ASSERT_NE(map, nullptr);
    struct nvme_segment seg;
    const char *reason = nullptr;
    ASSERT_EQ(nvme_segment_at(map, 8192, 1 << 20, HF_IO_READ, 0, 512, &seg, &reason), 0);
    EXPECT_TRUE(seg.zero);
    ASSERT_EQ(nvme_segment_at(map, 512 << 10, 1 << 20, HF_IO_READ, 0, 512, &seg, &reason), 0);
    EXPECT_TRUE(seg.zero);
    EXPECT_EQ(nvme_segment_at(map, 512 << 10, 1 << 20, HF_IO_WRITE, 0, 512, &seg, &reason),
              -ENODEV);
    ASSERT_EQ(nvme_segment_at(map, 0, 4096, HF_IO_READ, 0, 512, &seg, &reason), 0);
    EXPECT_FALSE(seg.zero);
    nvme_map_put(map);
}

TEST_F(MapCache, DroppingTheCacheForcesANewMap)
{
    Write(64 << 10, 0);
    ASSERT_EQ(fdatasync(fd), 0);
    usleep(120 * 1000);
    struct nvme_map *first = Get(0, 4096);
    nvme_map_cache_drop(&cache);
    struct nvme_map *second = Get(0, 4096);
    EXPECT_NE(first, second);
    nvme_map_put(first);
    nvme_map_put(second);
}
