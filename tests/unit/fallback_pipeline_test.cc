// Staged reads as one pipeline (plugins/fallback/fallback_pipeline.c): readers read pieces into a
// ring of staging buffers, one thread queues the copies block by block, and the ring is reused
// when the request is larger than it.
#include <algorithm>

#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

TEST_F(FallbackPlugin, PipelineReadersShareTheRequestAndOneThreadQueuesEveryCopy)
{
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB + 5;
    File f = OpenPatternFile("pipeline-one-copier", 9 * kMiB, 60);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 60), -1);
    EXPECT_TRUE(b.UntouchedOutside(0, size));
    EXPECT_EQ(fake_->parallel_tasks, 4) << "every worker reads";
    EXPECT_EQ(fake_->copy_threads.size(), 1u) << "the runtime sees one thread's copies";
    EXPECT_EQ(fake_->copies_without_pinned, 0);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
}

TEST_F(FallbackPlugin, PipelineCopiesWholeBlocksAndReadsPieces)
{
    SetConfig("pipeline_piece_kb", 64);
    SetConfig("pipeline_block_kb", 1024);
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB;
    File f = OpenPatternFile("pipeline-blocks", size, 61);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 61), -1);
    EXPECT_EQ(fake_->copy_sizes, std::vector<size_t>(8, kMiB)) << "one copy per 1 MiB block";
    EXPECT_EQ(fake_->pread_sizes, std::vector<size_t>(128, 64 * kKiB)) << "64 KiB pieces";
}

TEST_F(FallbackPlugin, PipelineReusesARingSmallerThanTheRequest)
{
    InitSplitting(16, 1, 64);
    fake_->width = 4;
    const size_t size = kMiB + 3000;
    const int64_t start = 1234;
    File f = OpenPatternFile("pipeline-ring", 2 * kMiB, 62);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, start), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, static_cast<uint64_t>(start), 62), -1);
    EXPECT_EQ(fake_->pinned_live_max, 2) << "one slot's two 16 KiB buffers carried 1 MiB";
    EXPECT_GE(fake_->sync_calls, static_cast<int>(size / (32 * kKiB)))
        << "each buffer waited for before its reuse";
}

TEST_F(FallbackPlugin, PipelineSmallReadIsOneReadOneCopyOneWait)
{
    Init();
    fake_->width = 4;
    File f = OpenPatternFile("pipeline-small", 64 * kKiB, 63);
    Buffer b(4096, kDevice);
    ASSERT_EQ(Read(f, b, 0, 4096, 8192), 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 4096, 8192, 63), -1);
    EXPECT_EQ(fake_->pread_sizes, std::vector<size_t>{4096});
    EXPECT_EQ(fake_->memcpy_calls, 1);
    EXPECT_EQ(fake_->sync_calls, 1);
    EXPECT_EQ(fake_->parallel_runs, 0) << "served on the calling thread";
}

TEST_F(FallbackPlugin, PipelineReaderParkedOnAPieceDelaysOnlyItsOwnBlock)
{
    InitSplitting(16, 4, 32);
    fake_->width = 4;
    const size_t size = 64 * 16 * kKiB;
    File f = OpenPatternFile("pipeline-parked", size, 64);
    Buffer b(size, kDevice);
    // The first piece's reader stalls until another piece has been read: the other readers and
    // the copier go on meanwhile.
    fake_->first_pread_waits_for_others = 1;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 64), -1);
    EXPECT_TRUE(fake_->parked_pread_released);
}

TEST_F(FallbackPlugin, PipelineWorkerThatCannotSelectTheGpuLeavesTheCopiesToAnother)
{
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    const size_t size = kMiB;
    File f = OpenPatternFile("pipeline-worker-device", size, 66);
    Buffer b(size, second_gpu);
    SetCurrentDevice(0);
    fake_->set_device_fail_from = 1;               // the caller's switch works, the workers' do not
    fake_->caller_waits_for_device_failure = true; // a worker takes the copier's role first
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 66), -1);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "cannot make GPU 1 current"));
    EXPECT_EQ(fake_->copy_threads.size(), 1u);
}

TEST_F(FallbackPlugin, PipelineOffTheLanesServeReads)
{
    SetConfigBool("pipeline_reads", false);
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB + 5;
    File f = OpenPatternFile("pipeline-off", 9 * kMiB, 65);
    Buffer b(size, kDevice);
    // Lanes claim windows as they start; the first read waits until another lane has read, so
    // two lanes run whatever the scheduling.
    fake_->first_pread_waits_for_others = 1;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 65), -1);
    EXPECT_EQ(fake_->parallel_tasks, 3) << "one lane per 4 MiB window";
    EXPECT_GT(fake_->copy_tasks.size(), 1u) << "each lane queues its own copies";
}

// Cached bytes reach staging through a bounce buffer of 256 KiB and non-temporal stores, so a
// 1 MiB piece is four preads; with fallback.streaming_stores off it is one, straight to staging.
TEST_F(FallbackPlugin, PipelineStreamsPageCacheBytesThroughQuarterMiBBounceBuffers)
{
    SetConfig("pipeline_piece_kb", 1024);
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB + 5;
    const int64_t start = 3 * 4096 + 17;
    File f = OpenPatternFile("pipeline-streamed", 9 * kMiB, 63);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, start), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, static_cast<uint64_t>(start), 63), -1);
    EXPECT_TRUE(b.UntouchedOutside(0, size));
    std::vector<size_t> sizes = fake_->pread_sizes;
    ASSERT_FALSE(sizes.empty());
    EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()), 256 * kKiB);
    EXPECT_GE(sizes.size(), size / (256 * kKiB));
}

TEST_F(FallbackPlugin, PipelineWithoutStreamingStoresReadsWholePiecesIntoStaging)
{
    SetConfig("pipeline_piece_kb", 1024);
    SetConfigBool("streaming_stores", false);
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB;
    File f = OpenPatternFile("pipeline-unstreamed", size, 64);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 64), -1);
    EXPECT_EQ(fake_->pread_sizes, std::vector<size_t>(8, kMiB)) << "one pread per 1 MiB piece";
}

// Pieces the pipeline chooses by itself are at most 128 KiB, however few readers share a large
// request (decision 43); a piece set in pipeline_piece_kb may be larger (the test above).
TEST_F(FallbackPlugin, PipelineChoosesPiecesOfAtMost128KiB)
{
    SetConfigBool("streaming_stores", false);
    Init();
    fake_->width = 2;
    const size_t size = 16 * kMiB;
    File f = OpenPatternFile("pipeline-auto-piece", size, 66);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 66), -1);
    EXPECT_EQ(fake_->pread_sizes, std::vector<size_t>(128, 128 * kKiB))
        << "16 MiB over two readers is 128 pieces of 128 KiB, not four of 4 MiB";
}

// A pread that ends short inside a bounce-sized step (end of file) ends the read there, exactly.
TEST_F(FallbackPlugin, PipelineStreamedReadStopsExactlyAtEndOfFile)
{
    Init();
    fake_->width = 4;
    const size_t file_size = 3 * kMiB + 4097;
    File f = OpenPatternFile("pipeline-streamed-eof", file_size, 65);
    Buffer b(4 * kMiB, kDevice);
    ASSERT_EQ(Read(f, b, 0, 4 * kMiB, 0), static_cast<ssize_t>(file_size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), file_size, 0, 65), -1);
}

} // namespace
