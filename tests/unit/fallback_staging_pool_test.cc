// The shared staging-slot pool (plugins/common/staging_pool.h), linked directly and driven through
// the fake host's GPU table.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "common/staging_pool.h"
#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

class StagingPool : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        fake_ = std::make_unique<FakeState>();
        g_fake = fake_.get();
        SetCurrentDevice(0);
        host_ = MakeHost();
    }
    void TearDown() override
    {
        hfp_staging_pool_destroy(pool_);
        EXPECT_EQ(fake_->pinned_live, 0);
        EXPECT_EQ(fake_->streams_live, 0);
        g_fake = nullptr;
    }
    void Create(size_t size, unsigned count, int device = 0)
    {
        ASSERT_EQ(hfp_staging_pool_create(&host_, size, count, device, &pool_), 0);
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
};

TEST_F(StagingPool, CreatingAllocatesNothing)
{
    Create(8192, 4);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_EQ(fake_->streams_created, 0);
    EXPECT_EQ(hfp_staging_pool_buffer_size(pool_), 8192u);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 0u);
}

TEST_F(StagingPool, RejectsZeroSizeOrCount)
{
    hfp_staging_pool *pool = nullptr;
    EXPECT_EQ(hfp_staging_pool_create(&host_, 0, 4, 0, &pool), -EINVAL);
    EXPECT_EQ(hfp_staging_pool_create(&host_, 4096, 0, 0, &pool), -EINVAL);
    EXPECT_EQ(pool, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "not a pool"));
}

TEST_F(StagingPool, ASlotIsTwoPinnedBuffersAndTwoStreamsOnTheCurrentDevice)
{
    Create(8192, 4, 1);
    SetCurrentDevice(1);
    hfp_staging_slot *slot = Take();
    ASSERT_NE(slot, nullptr);
    EXPECT_EQ(fake_->alloc_calls, 2);
    EXPECT_EQ(fake_->alloc_calls_on_device[1], 2);
    EXPECT_EQ(fake_->streams_created, 2);
    EXPECT_NE(slot->buffer[0], slot->buffer[1]);
    EXPECT_NE(slot->stream[0], slot->stream[1]);
    EXPECT_EQ(fake_->pinned_size, 8192u);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 1u);
    hfp_staging_pool_give(pool_, slot);
}

TEST_F(StagingPool, GivenBackSlotsAreReused)
{
    Create(4096, 4);
    hfp_staging_slot *first = Take();
    hfp_staging_pool_give(pool_, first);
    hfp_staging_slot *second = Take();
    EXPECT_EQ(first, second);
    EXPECT_EQ(fake_->alloc_calls, 2);
    hfp_staging_pool_give(pool_, second);
}

TEST_F(StagingPool, TakeWaitsWhileEverySlotIsOut)
{
    Create(4096, 1);
    hfp_staging_slot *held = Take();
    std::atomic<bool> got{false};
    hfp_staging_slot *taken = nullptr;
    std::thread waiter([&] {
        taken = Take();
        got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(got) << "a second slot was handed out beyond the bound";
    hfp_staging_pool_give(pool_, held);
    waiter.join();
    EXPECT_EQ(taken, held);
    EXPECT_EQ(fake_->alloc_calls, 2);
    hfp_staging_pool_give(pool_, taken);
}

TEST_F(StagingPool, FirstPinningFailureReturnsEgpuWithTheRuntimeCode)
{
    Create(4096, 2);
    fake_->alloc_fail_from = 1; // the slot's second buffer
    hfp_staging_slot *slot = nullptr;
    int gpu_error = 0;
    EXPECT_EQ(hfp_staging_pool_take(pool_, &slot, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeOutOfMemory);
    EXPECT_EQ(slot, nullptr);
    EXPECT_EQ(fake_->pinned_live, 0) << "the first buffer of the half-made slot was freed";
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "cannot pin a staging buffer"));
}

TEST_F(StagingPool, StreamFailureReturnsEgpuAndLeavesNothingBehind)
{
    Create(4096, 2);
    fake_->stream_create_fail_from = 0;
    hfp_staging_slot *slot = nullptr;
    int gpu_error = 0;
    EXPECT_EQ(hfp_staging_pool_take(pool_, &slot, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeStreamFailure);
    EXPECT_EQ(fake_->pinned_live, 0);
    EXPECT_EQ(fake_->streams_live, 0);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 0u);
}

TEST_F(StagingPool, MakesDoWithFewerSlotsWhenPinningRunsOut)
{
    Create(4096, 4);
    hfp_staging_slot *held = Take();
    fake_->alloc_fail_from = 2;
    hfp_staging_slot *taken = nullptr;
    std::thread waiter([&] { taken = Take(); });
    for (int i = 0; i < 5000 && fake_->alloc_calls < 3; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    hfp_staging_pool_give(pool_, held);
    waiter.join();
    EXPECT_EQ(taken, held);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "making do with 1 slots"));
    hfp_staging_pool_give(pool_, taken);
    int allocs = fake_->alloc_calls;
    hfp_staging_pool_give(pool_, Take());
    EXPECT_EQ(fake_->alloc_calls, allocs) << "the lowered bound holds: no new pinning attempt";
}

TEST_F(StagingPool, ADiscardedSlotIsFreedAndReplacedOnDemand)
{
    Create(4096, 1);
    hfp_staging_slot *slot = Take();
    hfp_staging_pool_discard(pool_, slot);
    EXPECT_EQ(fake_->pinned_live, 0);
    EXPECT_EQ(fake_->streams_live, 0);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 0u);
    hfp_staging_slot *fresh = Take();
    ASSERT_NE(fresh, nullptr);
    EXPECT_EQ(fake_->alloc_calls, 4);
    hfp_staging_pool_give(pool_, fresh);
}

TEST_F(StagingPool, GivingBackAnUntakenSlotIsIgnored)
{
    Create(4096, 2);
    hfp_staging_slot stray{};
    hfp_staging_pool_give(pool_, &stray);
    hfp_staging_pool_give(pool_, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "not taken"));
}

TEST_F(StagingPool, DestroyFreesEverySlotOnItsDeviceAndRestoresTheCallers)
{
    Create(4096, 3, 1);
    SetCurrentDevice(1);
    hfp_staging_slot *slots[3];
    for (hfp_staging_slot *&s : slots)
        s = Take();
    for (hfp_staging_slot *s : slots)
        hfp_staging_pool_give(pool_, s);
    EXPECT_EQ(fake_->pinned_live, 6);
    EXPECT_EQ(fake_->streams_live, 6);
    SetCurrentDevice(0);
    int switches = fake_->set_device_calls;
    hfp_staging_pool_destroy(pool_);
    pool_ = nullptr;
    EXPECT_EQ(fake_->pinned_live, 0);
    EXPECT_EQ(fake_->streams_live, 0);
    EXPECT_EQ(fake_->set_device_calls, switches + 2) << "to GPU 1 and back";
    EXPECT_EQ(CurrentDevice(), 0);
}

TEST_F(StagingPool, DestroyWithASlotStillTakenLeavesItAllocated)
{
    Create(4096, 2);
    hfp_staging_slot *taken = Take();
    hfp_staging_pool_destroy(pool_);
    pool_ = nullptr;
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "still taken"));
    EXPECT_EQ(fake_->pinned_live, 2) << "memory a caller still uses must not be freed";
    for (int i = 0; i < HF_STAGING_SLOT_BUFFERS; i++) {
        EXPECT_EQ(host_.gpu->stream_destroy(taken->stream[i]), 0);
        EXPECT_EQ(FakeHostFreePinned(taken->buffer[i]), 0);
    }
    free(taken);
}

// ---- Filled for stream-ordered use: made up front on the pool's GPU, never freed or made after --

unsigned BoundFrom(void *ctx)
{
    return static_cast<std::atomic<unsigned> *>(ctx)->load();
}

TEST_F(StagingPool, FillMakesEverySlotTheBoundAllowsOnThePoolsDevice)
{
    Create(4096, 4, 1);
    std::atomic<unsigned> bound{3};
    hfp_staging_pool_set_bound(pool_, BoundFrom, &bound);
    int gpu_error = 0;
    ASSERT_EQ(hfp_staging_pool_fill(pool_, &gpu_error), 0);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 3u);
    EXPECT_EQ(fake_->alloc_calls_on_device[1], 6);
    EXPECT_EQ(fake_->streams_created, 6);
    EXPECT_EQ(CurrentDevice(), 0) << "the caller's GPU is put back";
    ASSERT_EQ(hfp_staging_pool_fill(pool_, &gpu_error), 0);
    EXPECT_EQ(fake_->streams_created, 6) << "a second fill makes nothing";
}

TEST_F(StagingPool, AFilledPoolNeitherFreesNorMakesSlotsWhenItsBoundMoves)
{
    Create(4096, 4);
    std::atomic<unsigned> bound{2};
    hfp_staging_pool_set_bound(pool_, BoundFrom, &bound);
    int gpu_error = 0;
    ASSERT_EQ(hfp_staging_pool_fill(pool_, &gpu_error), 0);
    hfp_staging_slot *a = Take();
    hfp_staging_slot *b = Take();
    bound = 1;
    hfp_staging_pool_give(pool_, a);
    EXPECT_EQ(fake_->streams_live, 4) << "a slot above a lowered bound is kept, not freed";
    std::atomic<bool> got{false};
    hfp_staging_slot *taken = nullptr;
    std::thread waiter([&] {
        taken = Take();
        got = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(got) << "only the lowered bound may be out at once";
    hfp_staging_pool_give(pool_, b);
    waiter.join();
    ASSERT_NE(taken, nullptr);
    hfp_staging_pool_give(pool_, taken);
    bound = 4;
    hfp_staging_slot *slots[2] = {Take(), Take()};
    EXPECT_EQ(fake_->streams_created, 4) << "a raised bound makes no slot";
    for (hfp_staging_slot *s : slots)
        hfp_staging_pool_give(pool_, s);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 2u);
}

TEST_F(StagingPool, AFilledPoolLeftWithoutSlotsStillMakesOne)
{
    Create(4096, 1);
    int gpu_error = 0;
    ASSERT_EQ(hfp_staging_pool_fill(pool_, &gpu_error), 0);
    hfp_staging_pool_discard(pool_, Take());
    hfp_staging_slot *fresh = Take();
    ASSERT_NE(fresh, nullptr);
    EXPECT_EQ(fake_->streams_created, 4);
    hfp_staging_pool_give(pool_, fresh);
}

TEST_F(StagingPool, FillKeepsWhatItMadeWhenPinningRunsOut)
{
    Create(4096, 4);
    fake_->alloc_fail_from = 4; // the third slot's first buffer
    int gpu_error = 0;
    ASSERT_EQ(hfp_staging_pool_fill(pool_, &gpu_error), 0);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 2u);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "keeping 2 slots"));
    EXPECT_EQ(fake_->pinned_live, 4);
}

TEST_F(StagingPool, FillThatCanMakeNothingReturnsEgpuWithTheRuntimeCode)
{
    Create(4096, 2);
    fake_->alloc_fail_from = 0;
    int gpu_error = 0;
    EXPECT_EQ(hfp_staging_pool_fill(pool_, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeOutOfMemory);
    EXPECT_EQ(hfp_staging_pool_slot_count(pool_), 0u);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "cannot pin a staging buffer"));
}

} // namespace
