// Cached reads straight from the page cache's pages (plugins/fallback/fallback_mapped.c): which
// requests take that path, that the bytes are the file's, and what happens when the runtime will
// not lock the pages, when a copy fails, and when the file is cut short during the read.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

class FallbackMapped : public FallbackPlugin
{
  protected:
    // The plugin with a runtime that locks read-only pages and the path asked for (unless a test
    // set mapped_reads itself), from 4 MiB on, in 2 MiB blocks unless asked.
    void InitLocking(int64_t block_kib = 2048)
    {
        host_.gpu = FakeGpuThatLocksPages();
        if (fake_->config_bools.count("mapped_reads") == 0)
            SetConfigBool("mapped_reads", true);
        SetConfig("mapped_min_kb", 4096);
        SetConfig("mapped_block_kb", block_kib);
        Init();
        fake_->width = 4;
    }
    // A new pattern file of @p size bytes and @p seed, read whole into memory of @p kind; the
    // bytes must be the file's.
    void ReadNewFile(const std::string &name, size_t size, uint32_t seed,
                     const MemKind &kind = kDevice)
    {
        File f = OpenPatternFile(name, size, seed);
        Buffer b(size, kind);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, seed), -1);
    }
};

TEST_F(FallbackMapped, CachedReadGoesFromTheLockedPagesWithoutAFileRead)
{
    InitLocking();
    const size_t size = 20 * kMiB + 777;
    const int64_t start = 4096 + 123;
    File f = OpenPatternFile("mapped-whole", 24 * kMiB, 80);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, start), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, static_cast<uint64_t>(start), 80), -1);
    EXPECT_TRUE(b.UntouchedOutside(0, size));
    EXPECT_EQ(fake_->lock_calls, 11) << "2 MiB blocks from the page holding byte 0";
    EXPECT_EQ(fake_->unlock_calls, 11);
    EXPECT_EQ(fake_->copies_from_locked_pages, 11);
    EXPECT_EQ(fake_->bytes_buffered, 0u) << "no byte went through a read into staging";
    EXPECT_EQ(fake_->copies_without_pinned, 0);
    EXPECT_EQ(fake_->copies_on_wrong_device, 0);
    EXPECT_GE(fake_->copy_tasks.size(), 2u) << "lanes lock and copy blocks side by side";
}

TEST_F(FallbackMapped, BlocksAreAQuarterOfTheRequestWhenNotSet)
{
    InitLocking(0);
    ReadNewFile("mapped-auto", 64 * kMiB, 81);
    EXPECT_EQ(fake_->lock_calls, 4) << "four blocks of 16 MiB";
}

TEST_F(FallbackMapped, SmallReadsAndReadsPastTheEndGoThroughStaging)
{
    InitLocking();
    File f = OpenPatternFile("mapped-small", 10 * kMiB, 82);
    Buffer small(2 * kMiB, kDevice);
    ASSERT_EQ(Read(f, small, 0, 2 * kMiB, 0), static_cast<ssize_t>(2 * kMiB));
    EXPECT_EQ(hf_test_pattern_check(small.data(), 2 * kMiB, 0, 82), -1);
    EXPECT_EQ(fake_->lock_calls, 0) << "below mapped_min_kb";

    Buffer tail(8 * kMiB, kDevice);
    ASSERT_EQ(Read(f, tail, 0, 8 * kMiB, 4 * kMiB), static_cast<ssize_t>(6 * kMiB));
    EXPECT_EQ(hf_test_pattern_check(tail.data(), 6 * kMiB, 4 * kMiB, 82), -1);
    EXPECT_TRUE(tail.UntouchedOutside(0, 6 * kMiB));
    EXPECT_EQ(fake_->lock_calls, 0) << "a range past the end of the file is never mapped";
}

TEST_F(FallbackMapped, RangesThePageCacheLacksGoThroughStaging)
{
    InitLocking();
    File f = OpenPatternFile("mapped-uncached", 8 * kMiB, 83);
    Buffer b(8 * kMiB, kDevice);
    fake_->cache_answer = CacheAnswer::kHalfCached;
    ASSERT_EQ(Read(f, b, 0, 8 * kMiB, 0), static_cast<ssize_t>(8 * kMiB));
    EXPECT_EQ(fake_->lock_calls, 0) << "cachestat counts half the range";
    fake_->cache_answer = CacheAnswer::kNothingCached;
    ASSERT_EQ(Read(f, b, 0, 8 * kMiB, 0), static_cast<ssize_t>(8 * kMiB));
    EXPECT_EQ(fake_->lock_calls, 0) << "cachestat counts nothing cached";
    EXPECT_EQ(hf_test_pattern_check(b.data(), 8 * kMiB, 0, 83), -1);
    fake_->cache_answer = CacheAnswer::kKernel;
    ASSERT_EQ(Read(f, b, 0, 8 * kMiB, 0), static_cast<ssize_t>(8 * kMiB));
    EXPECT_EQ(fake_->lock_calls, 4) << "without cachestat, the first and last byte are asked";
}

TEST_F(FallbackMapped, OffUnlessAskedFor)
{
    host_.gpu = FakeGpuThatLocksPages();
    Init();
    ReadNewFile("mapped-default", 128 * kMiB, 90);
    EXPECT_EQ(fake_->lock_calls, 0);
}

TEST_F(FallbackMapped, TheSettingTurnsItOff)
{
    SetConfigBool("mapped_reads", false);
    InitLocking();
    ReadNewFile("mapped-off", 8 * kMiB, 84);
    EXPECT_EQ(fake_->lock_calls, 0);
}

TEST_F(FallbackMapped, HostMemoryIsReadStraightAsBefore)
{
    InitLocking();
    ReadNewFile("mapped-host", 8 * kMiB, 85, kHostPinned);
    EXPECT_EQ(fake_->lock_calls, 0) << "one CPU copy already: nothing to save";
}

TEST_F(FallbackMapped, ARuntimeThatRefusesThePagesIsNotAskedAgain)
{
    InitLocking();
    fake_->lock_fail_from = 0;
    File f = OpenPatternFile("mapped-refused", 8 * kMiB, 86);
    Buffer b(8 * kMiB, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8 * kMiB, 0), static_cast<ssize_t>(8 * kMiB));
    EXPECT_EQ(hf_test_pattern_check(b.data(), 8 * kMiB, 0, 86), -1);
    int asked = fake_->lock_calls;
    EXPECT_GE(asked, 1);
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "will not lock the page cache's pages"));
    memset(b.data(), 0, 8 * kMiB);
    ASSERT_EQ(Read(f, b, 0, 8 * kMiB, 0), static_cast<ssize_t>(8 * kMiB));
    EXPECT_EQ(hf_test_pattern_check(b.data(), 8 * kMiB, 0, 86), -1);
    EXPECT_EQ(fake_->lock_calls, asked) << "the second read goes through staging at once";
}

TEST_F(FallbackMapped, ALockRefusedMidwayLeavesTheRestToStaging)
{
    InitLocking();
    const size_t size = 16 * kMiB;
    File f = OpenPatternFile("mapped-midway", size, 87);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->bytes_buffered, 0u);
    // One lane, so the fourth lock is the fourth block's.
    fake_->width = 1;
    fake_->lock_fail_from = fake_->lock_calls + 3;
    memset(b.data(), 0, size);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 87), -1);
    EXPECT_EQ(fake_->bytes_buffered, size - 6 * kMiB)
        << "three blocks came from their pages, the rest through staging";
    EXPECT_FALSE(LogHas(HF_LOG_INFO, "will not lock")) << "it locked pages before: not for ever";
    fake_->lock_fail_from = -1;
    int before = fake_->lock_calls;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->lock_calls, before + 8);
}

TEST_F(FallbackMapped, ACopyThatFailsEndsTheRequestWithTheBytesBeforeIt)
{
    InitLocking();
    const size_t size = 16 * kMiB;
    File f = OpenPatternFile("mapped-copy-fails", size, 88);
    Buffer b(size, kDevice);
    fake_->copy_fail_at = reinterpret_cast<uintptr_t>(b.data()) + 5 * kMiB;
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, size, 0, &gpu_error), static_cast<ssize_t>(4 * kMiB))
        << "blocks 0 and 1 arrived; block 2 failed";
    EXPECT_EQ(hf_test_pattern_check(b.data(), 4 * kMiB, 0, 88), -1);
    EXPECT_EQ(fake_->bytes_buffered, 0u) << "a GPU failure is not retried through staging";

    fake_->copy_fail_at = reinterpret_cast<uintptr_t>(b.data());
    EXPECT_EQ(Read(f, b, 0, size, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeCopyFailure);
    fake_->copy_fail_at = 0;
    fake_->sync_fail_at = reinterpret_cast<uintptr_t>(b.data()) + kMiB;
    gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, size, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeSyncFailure);
    fake_->sync_fail_at = 0;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size)) << "fresh streams serve on";
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 88), -1);
}

TEST_F(FallbackMapped, AFileCutShortDuringTheReadEndsItAtTheNewEnd)
{
    InitLocking();
    const size_t size = 20 * kMiB;
    File f = OpenPatternFile("mapped-truncated", 24 * kMiB, 89);
    Buffer b(size, kDevice);
    const int fd = f.fd;
    fake_->before_lock = [fd](int call) {
        if (call == 0) {
            ASSERT_EQ(ftruncate(fd, 9 * kMiB), 0);
        }
    };
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(9 * kMiB));
    EXPECT_EQ(hf_test_pattern_check(b.data(), 9 * kMiB, 0, 89), -1);
    EXPECT_TRUE(b.UntouchedOutside(0, 9 * kMiB));
    EXPECT_FALSE(LogHas(HF_LOG_INFO, "will not lock")) << "a shorter file is no refusal";
    fake_->before_lock = nullptr;
}

} // namespace
