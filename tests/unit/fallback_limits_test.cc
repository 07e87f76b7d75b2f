// The core settings the fallback follows while it runs: the staging memory limits
// (properties.max_device_cache_size_kb, max_device_pinned_mem_size_kb) bound and shrink the
// staging pools, per_buffer_cache_size_kb sizes the chunks, execution.* shapes how requests are
// split, and properties.force_odirect_mode sends aligned reads through O_DIRECT. The fake host's
// core_limits answers with the values tests set under those dotted names.
#include <gtest/gtest.h>

#include <thread>

#include "common/staging_pool.h"
#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

// ---- the pool's moving bound ----------------------------------------------------------------

class StagingPoolBound : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        fake_ = std::make_unique<FakeState>();
        g_fake = fake_.get();
        SetCurrentDevice(0);
        host_ = MakeHost();
        ASSERT_EQ(hfp_staging_pool_create(&host_, 8192, 8, 0, &pool_), 0);
        hfp_staging_pool_set_bound(pool_, Bound, &bound_);
    }
    void TearDown() override
    {
        hfp_staging_pool_destroy(pool_);
        EXPECT_EQ(fake_->pinned_live, 0);
        EXPECT_EQ(fake_->streams_live, 0);
        g_fake = nullptr;
    }
    static unsigned Bound(void *ctx)
    {
        return static_cast<std::atomic<unsigned> *>(ctx)->load();
    }
    hfp_staging_slot *Take()
    {
        hfp_staging_slot *slot = nullptr;
        int gpu_error = 0;
        EXPECT_EQ(hfp_staging_pool_take(pool_, &slot, &gpu_error), 0);
        return slot;
    }

    std::unique_ptr<FakeState> fake_;
    hf_host_api host_{};
    hfp_staging_pool *pool_ = nullptr;
    std::atomic<unsigned> bound_{8};
};

TEST_F(StagingPoolBound, ATakerAtTheBoundWaitsForASlotInsteadOfCreatingOne)
{
    bound_ = 2;
    hfp_staging_slot *a = Take();
    hfp_staging_slot *b = Take();
    hfp_staging_slot *c = nullptr;
    std::thread taker([&] { c = Take(); });
    hfp_staging_pool_give(pool_, a);
    taker.join();
    EXPECT_EQ(c, a) << "the waiting taker got the slot given back";
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 2u);
    hfp_staging_pool_give(pool_, b);
    hfp_staging_pool_give(pool_, c);
}

TEST_F(StagingPoolBound, ARaisedBoundLetsThePoolGrow)
{
    bound_ = 1;
    hfp_staging_slot *a = Take();
    bound_ = 3;
    hfp_staging_slot *b = Take();
    hfp_staging_slot *c = Take();
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 3u);
    for (hfp_staging_slot *s : {a, b, c})
        hfp_staging_pool_give(pool_, s);
}

TEST_F(StagingPoolBound, ALoweredBoundFreesSlotsAsTheyComeBack)
{
    hfp_staging_slot *slots[4];
    for (auto &s : slots)
        s = Take();
    EXPECT_EQ(fake_->pinned_live, 8);
    bound_ = 1;
    for (auto &s : slots)
        hfp_staging_pool_give(pool_, s);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 1u);
    EXPECT_EQ(fake_->pinned_live, 2) << "one slot of two pinned buffers is left";
    EXPECT_EQ(fake_->streams_live, 2);
}

TEST_F(StagingPoolBound, FreeSlotsAboveALoweredBoundGoAtTheNextTake)
{
    hfp_staging_slot *slots[4];
    for (auto &s : slots)
        s = Take();
    for (auto &s : slots)
        hfp_staging_pool_give(pool_, s);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 4u);
    bound_ = 2;
    hfp_staging_slot *s = Take();
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 2u);
    EXPECT_EQ(fake_->pinned_live, 4);
    hfp_staging_pool_give(pool_, s);
}

TEST_F(StagingPoolBound, ABoundOfZeroStillLeavesOneSlot)
{
    bound_ = 0;
    hfp_staging_slot *s = Take();
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 1u);
    hfp_staging_pool_give(pool_, s);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 1u);
}

TEST_F(StagingPoolBound, TheBoundNeverRaisesTheCreatedMaximum)
{
    bound_ = 100;
    hfp_staging_slot *slots[8];
    for (auto &s : slots)
        s = Take();
    hfp_staging_slot *extra = nullptr;
    std::thread taker([&] { extra = Take(); });
    hfp_staging_pool_give(pool_, slots[0]);
    taker.join();
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 8u);
    slots[0] = extra;
    for (auto &s : slots)
        hfp_staging_pool_give(pool_, s);
}

// ---- the fallback following the core's settings -----------------------------------------------

class FallbackLimits : public FallbackPlugin
{
  protected:
    // 16 KiB chunks (32 KiB of pinned memory per slot), up to 4 slots, 32 KiB pieces.
    void InitFourSlots()
    {
        InitSplitting(16, 4, 32);
    }
};

TEST_F(FallbackLimits, CacheSizeLimitBoundsTheStagingSlots)
{
    SetConfig("properties.max_device_cache_size_kb", 32);
    InitFourSlots();
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("cache-limit", size, 70);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 70), -1);
    EXPECT_EQ(fake_->pinned_live_max, 2) << "32 KiB of staging memory is one slot";
    // Writes run in lanes of a slot each: one slot makes one lane, on the calling thread.
    ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_runs, 1) << "only the read's readers ran in parallel";
    EXPECT_EQ(fake_->pinned_live_max, 2);
}

TEST_F(FallbackLimits, PinnedMemoryLimitBoundsTheStagingSlots)
{
    SetConfig("properties.max_device_pinned_mem_size_kb", 64);
    InitFourSlots();
    fake_->pread_waits_for_company = true;
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("pinned-limit", size, 71);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 71), -1);
    EXPECT_LE(fake_->pinned_live_max, 4) << "64 KiB of pinned memory is two slots";
}

TEST_F(FallbackLimits, LoweringTheCacheLimitWhileRunningShrinksThePool)
{
    SetConfigBool("pipeline_reads", false); // one slot per lane: the lanes' pool use
    InitFourSlots();
    fake_->pread_waits_for_allocs = 4; // the first read waits until a second slot exists
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("shrink", size, 72);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    ASSERT_GE(fake_->pinned_live, 4) << "two pieces held a slot of their own at once";
    SetConfig("properties.max_device_cache_size_kb", 32); // as hipFileDriverSetMaxCacheSize does
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 72), -1);
    EXPECT_EQ(fake_->pinned_live, 2) << "the pool gave back all but one slot";
}

TEST_F(FallbackLimits, PerBufferCacheSizeIsTheChunkUnlessTheFallbackSetsOne)
{
    SetConfig("properties.per_buffer_cache_size_kb", 8);
    SetConfig("inline_max_kb", 1024 * 1024);
    Init();
    const size_t size = 100 * kKiB;
    File f = OpenPatternFile("per-buffer", size, 73);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->pinned_size, 8 * kKiB);
    EXPECT_EQ(fake_->memcpy_calls, static_cast<int>((size + 8 * kKiB - 1) / (8 * kKiB)));
}

TEST_F(FallbackLimits, ParallelIoOffServesEveryRequestWhole)
{
    InitFourSlots();
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("no-parallel", size, 74);
    Buffer b(size, kPageable);
    SetConfigBool("execution.parallel_io", false);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_runs, 0);
    SetConfigBool("execution.parallel_io", true);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_runs, 1);
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 74), -1);
}

TEST_F(FallbackLimits, MaxRequestParallelismCapsThePieces)
{
    InitFourSlots(); // the fake executor is 4 wide
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("max-pieces", size, 75);
    Buffer b(size, kPageable);
    SetConfig("execution.max_request_parallelism", 2);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_tasks, 2);
    SetConfig("execution.max_request_parallelism", 3);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_tasks, 2 + 3);
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 75), -1);
}

TEST_F(FallbackLimits, MinIoThresholdSizesThePiecesUnlessTheFallbackSetsIt)
{
    SetConfig("inline_max_kb", 32);
    SetConfig("chunk_size_kb", 16);
    Init();
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("min-threshold", size, 76);
    Buffer b(size, kPageable);
    SetConfig("execution.min_io_threshold_size_kb", 256);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_tasks, 2) << "512 KiB in pieces of at least 256 KiB";
    SetConfig("execution.min_io_threshold_size_kb", 128);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_tasks, 2 + 4);
}

TEST_F(FallbackLimits, ForceODirectModeReadsAlignedRangesWithoutAskingTheCache)
{
    InitSplitting(16, 4, 64);
    const size_t size = 256 * kKiB;
    File f = OpenPatternFile("force-odirect", size, 77);
    if (!AddDirectTwin(f))
        GTEST_SKIP() << "the scratch filesystem refuses O_DIRECT";
    SetConfigBool("properties.force_odirect_mode", true);
    Buffer b(size, kHostPinned);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 77), -1);
    EXPECT_EQ(fake_->preadv2_calls, 0) << "the page cache is not asked";
    EXPECT_EQ(fake_->bytes_direct, size) << "cached or not, the aligned file went direct";
}

TEST_F(FallbackLimits, RequestsReadTheCoreLimitsAsOneTypedSnapshot)
{
    InitFourSlots();
    fake_->core_keys_by_name = 0;
    const size_t size = 512 * kKiB;
    File f = OpenPatternFile("typed-limits", size, 78);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 78), -1);
    EXPECT_GT(fake_->core_limits_calls, 0);
    EXPECT_EQ(fake_->core_keys_by_name, 0) << "no execution.* or properties.* look-up by name";
}

} // namespace
