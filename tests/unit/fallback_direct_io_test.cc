// The read rule between the page cache and O_DIRECT, observed through the system-call table:
// which descriptor got which call and how many bytes each moved. The files live in the test's
// scratch directory; a filesystem that refuses O_DIRECT skips these tests.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/align.h"
#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

class FallbackDirectIo : public FallbackPlugin
{
  protected:
    // A pattern file with an O_DIRECT twin; skips the test where the filesystem has none.
    File OpenDirectFile(const std::string &name, uint64_t size, uint32_t seed)
    {
        File f = OpenPatternFile(name, size, seed);
        if (!AddDirectTwin(f))
            direct_refused_ = true;
        return f;
    }
    // A file the program opened with O_DIRECT, as the flags its registration passes say.
    File OpenODirectFile(const std::string &name)
    {
        File f = OpenDirectFile(name, 0, 0);
        f.status_flags |= O_DIRECT;
        return f;
    }
    // Write @p size pattern bytes of @p seed from device memory at offset 0, and read them back.
    void WriteFromTheDevice(const File &f, size_t size, uint32_t seed)
    {
        Buffer b(size, kDevice);
        hf_test_pattern_fill(b.data(), size, 0, seed);
        ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size));
        EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data(), size, 0, seed), -1);
    }
    // Read 8 MiB + 5 bytes of a new file with an O_DIRECT twin, none of it cached, over four
    // lanes into device memory; the bytes must be the file's. Nothing is read where the
    // filesystem refuses O_DIRECT (SKIP_WITHOUT_O_DIRECT follows).
    void ReadColdFile(const std::string &name, uint32_t seed)
    {
        fake_->width = 4;
        fake_->cache_answer = CacheAnswer::kNothingCached;
        const size_t size = 8 * kMiB + 5;
        File f = OpenDirectFile(name, 9 * kMiB, seed);
        if (direct_refused_)
            return;
        Buffer b(size, kDevice);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, seed), -1);
    }
    // The plugin as configured, four lanes, the page cache answering @p answer, and a new file
    // of @p size pattern bytes of @p seed with an O_DIRECT twin.
    File InitWithLanesAndFile(const std::string &name, size_t size, uint32_t seed,
                              CacheAnswer answer)
    {
        Init();
        fake_->width = 4;
        fake_->cache_answer = answer;
        return OpenDirectFile(name, size, seed);
    }
    // Read @p size bytes of @p f from offset 0 into new memory of @p kind; they must be the file's
    // (pattern @p seed).
    void ExpectReadBack(const File &f, size_t size, uint32_t seed, const MemKind &kind = kDevice)
    {
        Buffer b(size, kind);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, seed), -1);
    }
    bool direct_refused_ = false;
};

#define SKIP_WITHOUT_O_DIRECT()                                                                    \
    do {                                                                                           \
        if (direct_refused_)                                                                       \
            GTEST_SKIP() << "the scratch filesystem refuses O_DIRECT";                             \
    } while (0)

TEST_F(FallbackDirectIo, CachedRangesAreServedFromThePageCache)
{
    InitSplitting(16, 4, 64);
    const size_t size = 512 * kKiB;
    File f = OpenDirectFile("cached", size, 60);
    SKIP_WITHOUT_O_DIRECT();
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(size, kind);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 60), -1) << kind.name;
    }
    EXPECT_EQ(fake_->preads_direct, 0) << "a freshly written file is in the page cache";
    EXPECT_EQ(fake_->bytes_probed, 2 * size);
    EXPECT_GT(fake_->preadv2_calls, 0);
}

TEST_F(FallbackDirectIo, UncachedAlignedRangesGoThroughODirect)
{
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = 512 * kKiB;
    File f = OpenDirectFile("uncached", size, 61);
    SKIP_WITHOUT_O_DIRECT();
    for (const MemKind &kind : {kDevice, kHostPinned, kDeviceCoherent}) {
        Buffer b(size, kind);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 61), -1) << kind.name;
    }
    EXPECT_EQ(fake_->bytes_direct, 3 * size);
    EXPECT_EQ(fake_->bytes_buffered, 0u);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
}

// The kernel's count of cached bytes (cachestat) picks the path of each staged read: one the
// page cache mostly lacks, which O_DIRECT may serve, runs in lanes of blocking reads; the rest
// run as the pipeline.
TEST_F(FallbackDirectIo, MostlyUncachedStagedReadsRunInLanes)
{
    Init();
    ReadColdFile("cold-lanes", 66);
    SKIP_WITHOUT_O_DIRECT();
    EXPECT_EQ(fake_->cached_bytes_calls, 4)
        << "one question for the request, one per window (two chunks and the 5-byte tail)";
    EXPECT_EQ(fake_->preadv2_calls, 0) << "no window the kernel counts nothing in is probed";
    EXPECT_GT(fake_->copy_tasks.size(), 1u) << "each lane queues its own copies";
    EXPECT_GT(fake_->bytes_direct, 0u);
}

// A window of a read from the storage is probed only where the kernel counts cached bytes in it:
// a probe that misses still starts readahead, which would read part of every cold window into the
// page cache beside its O_DIRECT read. The cached part of a partly cached file still comes from the
// page cache.
TEST_F(FallbackDirectIo, AReadFromTheStorageProbesOnlyWindowsWithCachedBytes)
{
    const size_t size = 16 * kMiB;
    File f =
        InitWithLanesAndFile("cold-but-the-first-mebibyte", size, 71, CacheAnswer::kFirstMebibyte);
    SKIP_WITHOUT_O_DIRECT();
    ExpectReadBack(f, size, 71);
    EXPECT_EQ(fake_->bytes_probed, kMiB) << "the first window, from the page cache";
    EXPECT_EQ(fake_->preadv2_calls, 2) << "its first page, then the rest";
    EXPECT_EQ(fake_->bytes_direct, size - kMiB);
    EXPECT_EQ(fake_->bytes_buffered, 0u);
}

// The page cache's bytes reach staging by the CPUs' own copies: such staged work takes at most one
// lane more than the CPUs the process may use, where more would only wait for a turn. Reads from
// the storage wait on the device, and keep every lane to fill its queue.
TEST_F(FallbackDirectIo, PageCacheWorkTakesLanesByTheCpusAndTheStorageKeepsThemAll)
{
    const size_t size = 32 * kMiB;
    File f = InitWithLanesAndFile("cpu-lanes", size, 72, CacheAnswer::kKernel);
    SKIP_WITHOUT_O_DIRECT();
    fake_->width = 8;
    fake_->cpu_budget = 1;
    ExpectReadBack(f, size, 72); // cached: the pipeline
    EXPECT_EQ(fake_->parallel_tasks, 2) << "one more than the one CPU";
    Buffer w(size, kDevice);
    hf_test_pattern_fill(w.data(), size, 0, 73);
    ASSERT_EQ(Write(f, w, 0, size, 0), static_cast<ssize_t>(size)); // into the page cache
    EXPECT_EQ(fake_->parallel_tasks, 2 + 2);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    ExpectReadBack(f, size, 73); // from the storage, in 1 MiB windows
    EXPECT_EQ(fake_->parallel_tasks, 2 + 2 + 8) << "every lane the executor has";
    EXPECT_GT(fake_->bytes_direct, 0u);
    // A core that does not say how many CPUs bounds nothing.
    fake_->cpu_budget = 0;
    fake_->cache_answer = CacheAnswer::kKernel;
    ExpectReadBack(f, size, 73);
    EXPECT_EQ(fake_->parallel_tasks, 2 + 2 + 8 + 8);
}

// The storage completes reads one after another: lanes read it in windows of at most a mebibyte
// once the read gives every lane a chunk, so copies start while later reads still run, rather than
// whole chunks that all land at the end; in 2 MiB windows once it gives every lane four chunks.
// A chunk smaller than that is the window itself; a read smaller than a chunk per lane keeps
// whole chunks (smaller windows would only add lanes).
TEST_F(FallbackDirectIo, LanesReadTheStorageInWindowsOfAMebibyteOrTwoWhenLong)
{
    struct Case {
        int64_t chunk_kib;
        size_t size;
        size_t window;
        unsigned lanes;
    };
    // 16 MiB in four lanes: a chunk each, so storage windows; in eight lanes: four chunks, so
    // whole ones. In seventeen lanes, 64 MiB (sixteen chunks) takes storage windows though one
    // lane has no chunk, 60 MiB whole chunks. 512 KiB chunks: smaller than a storage window.
    // 64 MiB in four lanes gives each four chunks: 2 MiB windows; 60 MiB, three and a half: 1 MiB.
    // 3 MiB chunks: the long window is the largest page multiple that divides the chunk.
    for (const Case &c : {Case{4096, 16 * kMiB, kMiB, 4}, Case{512, 16 * kMiB, 512 * kKiB, 4},
                          Case{4096, 8 * kMiB, 4 * kMiB, 4}, Case{4096, 16 * kMiB, 4 * kMiB, 8},
                          Case{4096, 64 * kMiB, kMiB, 17}, Case{4096, 60 * kMiB, 4 * kMiB, 17},
                          Case{4096, 64 * kMiB, 2 * kMiB, 4}, Case{4096, 60 * kMiB, kMiB, 4},
                          Case{3072, 48 * kMiB, 1536 * kKiB, 4}}) {
        SCOPED_TRACE(std::to_string(c.chunk_kib) + " KiB chunks, " + std::to_string(c.size) +
                     " bytes, " + std::to_string(c.lanes) + " lanes");
        Fini();
        SetConfig("chunk_size_kb", c.chunk_kib);
        Init();
        fake_->width = c.lanes;
        fake_->cache_answer = CacheAnswer::kNothingCached;
        fake_->bytes_direct = 0;
        File f = OpenDirectFile("cold-windows-" + std::to_string(c.chunk_kib) + "-" +
                                    std::to_string(c.size),
                                c.size + kMiB, 69);
        SKIP_WITHOUT_O_DIRECT();
        {
            std::lock_guard<std::mutex> lock(fake_->mu);
            fake_->pread_sizes.clear();
        }
        Buffer b(c.size, kDevice);
        ASSERT_EQ(Read(f, b, 0, c.size, 0), static_cast<ssize_t>(c.size));
        EXPECT_EQ(hf_test_pattern_check(b.data(), c.size, 0, 69), -1);
        std::lock_guard<std::mutex> lock(fake_->mu);
        EXPECT_EQ(fake_->pread_sizes, std::vector<size_t>(c.size / c.window, c.window));
        EXPECT_EQ(fake_->bytes_direct, c.size);
    }
}

// A read from the storage no longer than a chunk runs on the calling thread alone, in 2 MiB windows
// that each go to the device as soon as they land, while the next is read: one 4 MiB window could
// only be copied once all of it had been read.
TEST_F(FallbackDirectIo, AReadFromTheStorageOfAChunkIsReadAloneInWindowsCopiedAsTheyLand)
{
    for (size_t offset : {size_t{0}, 3 * kMiB + 8 * kKiB}) {
        SCOPED_TRACE("offset " + std::to_string(offset));
        Fini();
        Init();
        fake_->width = 4;
        fake_->cache_answer = CacheAnswer::kNothingCached;
        const size_t size = 4 * kMiB;
        File f = OpenDirectFile("cold-one-lane-" + std::to_string(offset), 12 * kMiB, 74);
        SKIP_WITHOUT_O_DIRECT();
        fake_->bytes_direct = 0;
        {
            std::lock_guard<std::mutex> lock(fake_->mu);
            fake_->pread_sizes.clear();
            fake_->copy_sizes.clear();
        }
        Buffer b(size, kDevice);
        ASSERT_EQ(Read(f, b, 0, size, static_cast<int64_t>(offset)), static_cast<ssize_t>(size));
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, offset, 74), -1);
        EXPECT_EQ(fake_->parallel_runs, 0) << "no lane but the caller's";
        std::lock_guard<std::mutex> lock(fake_->mu);
        /* From a 2 MiB grid line: two windows; from 3 MiB + 8 KiB: up to 4 MiB, 2 MiB, the rest. */
        std::vector<size_t> windows =
            offset == 0 ? std::vector<size_t>{2 * kMiB, 2 * kMiB}
                        : std::vector<size_t>{kMiB - 8 * kKiB, 2 * kMiB, kMiB + 8 * kKiB};
        EXPECT_EQ(fake_->pread_sizes, windows);
        EXPECT_EQ(fake_->copy_sizes, windows) << "a copy per window, none gathered";
        EXPECT_EQ(fake_->bytes_direct, size);
    }
}

// With mapped_reads on, the count the mapped path asked for also picks the storage path: a cold
// read asks once for the request, not twice, and once per window.
TEST_F(FallbackDirectIo, WithMappedReadsOnAColdReadAsksThePageCacheOnce)
{
    host_.gpu = FakeGpuThatLocksPages();
    SetConfigBool("mapped_reads", true);
    SetConfig("mapped_min_kb", 4096);
    Init();
    ReadColdFile("cold-mapped-on", 70);
    SKIP_WITHOUT_O_DIRECT();
    EXPECT_EQ(fake_->lock_calls, 0);
    EXPECT_EQ(fake_->cached_bytes_calls, 4) << "the request, then each of its three windows";
    EXPECT_GT(fake_->bytes_direct, 0u) << "the storage path served it";
}

TEST_F(FallbackDirectIo, StagedReadsTheCacheHoldsOrThatNobodyCanTellAboutRunAsThePipeline)
{
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB + 5;
    File f = OpenDirectFile("warm-pipeline", 9 * kMiB, 67);
    SKIP_WITHOUT_O_DIRECT();
    for (CacheAnswer answer : {CacheAnswer::kHalfCached, CacheAnswer::kUnsupported}) {
        fake_->cache_answer = answer;
        {
            std::lock_guard<std::mutex> lock(fake_->mu);
            fake_->copy_threads.clear();
        }
        Buffer b(size, kDevice);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 67), -1);
        EXPECT_EQ(fake_->copy_threads.size(), 1u) << "one thread queues the pipeline's copies";
    }
    EXPECT_EQ(fake_->cached_bytes_calls, 2);
}

TEST_F(FallbackDirectIo, UncachedStagedReadsWithoutODirectRunAsThePipeline)
{
    Init();
    fake_->width = 4;
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = 8 * kMiB + 5;
    File f = OpenPatternFile("cold-buffered", 9 * kMiB, 68);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 68), -1);
    EXPECT_EQ(fake_->cached_bytes_calls, 0) << "without O_DIRECT there is no storage path";
    EXPECT_EQ(fake_->copy_threads.size(), 1u);
}

TEST_F(FallbackDirectIo, UnalignedHeadAndTailAreReadBuffered)
{
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t file_size = kMiB;
    File f = OpenDirectFile("head-tail", file_size, 62);
    SKIP_WITHOUT_O_DIRECT();
    const size_t start = 1000;
    const size_t size = 300000;
    const size_t head = 4096 - start;
    const size_t tail = (start + size) % 4096;
    for (const MemKind &kind : {kDevice, kPageable}) {
        fake_->bytes_direct = 0;
        fake_->bytes_buffered = 0;
        // Host memory lines up with the file (same offset within a page), so it can go direct.
        Buffer b(start + size, kind);
        ASSERT_EQ(Read(f, b, start, size, start), static_cast<ssize_t>(size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data() + start, size, start, 62), -1) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(start, start + size)) << kind.name;
        EXPECT_EQ(fake_->bytes_buffered, head + tail) << kind.name;
        EXPECT_EQ(fake_->bytes_direct, size - head - tail) << kind.name;
    }
}

TEST_F(FallbackDirectIo, StraightReadsLookUpTheFileSizeOnlyWhenGoingDirect)
{
    InitSplitting(16, 4, 64);
    const size_t size = 256 * kKiB + 10;
    File f = OpenDirectFile("size-lookup", size, 76);
    SKIP_WITHOUT_O_DIRECT();
    Buffer b(size, kPageable);
    ASSERT_EQ(Read(f, b, 0, 4096, 0), 4096);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->fstat_calls, 0) << "cached reads never go direct";
    fake_->cache_answer = CacheAnswer::kNothingCached;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 76), -1);
    EXPECT_GE(fake_->fstat_calls, 1);
    EXPECT_LE(fake_->fstat_calls, 4) << "at most once per piece";
    EXPECT_EQ(fake_->bytes_direct, 256 * kKiB);
    EXPECT_EQ(fake_->bytes_buffered, 10u);
    Buffer staged(size, kDevice);
    int before = fake_->fstat_calls;
    ASSERT_EQ(Read(f, staged, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->fstat_calls, before) << "staged reads copy only what was returned";
}

TEST_F(FallbackDirectIo, HostMemoryOutOfStepWithTheFileIsReadBuffered)
{
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = 256 * kKiB;
    File f = OpenDirectFile("out-of-step", size, 63);
    SKIP_WITHOUT_O_DIRECT();
    Buffer b(size + 1, kPageable);
    ASSERT_EQ(Read(f, b, 1, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data() + 1, size, 0, 63), -1);
    EXPECT_EQ(fake_->preads_direct, 0);
    EXPECT_EQ(fake_->bytes_buffered, size);
}

// Lanes reading from the storage leave their last copies to the caller, which waits for them all
// once the lanes are done: a copy that fails there still ends the result where the copy starts,
// and the pool, whose slot went with the failed stream, still serves. A lane that claims windows
// back to back gathers them into one copy, so the copy holding the bad window may start up to a
// chunk (three windows) before it, as scheduling decides.
TEST_F(FallbackDirectIo, ALastCopyThatFailsAfterItsLaneLeftEndsTheResultAtItsWindow)
{
    const size_t size = 16 * kMiB;
    File f = InitWithLanesAndFile("cold-last-copy-fails", size, 72, CacheAnswer::kNothingCached);
    SKIP_WITHOUT_O_DIRECT();
    for (size_t bad_window : {size_t{15}, size_t{12}}) {
        SCOPED_TRACE("the copy of window " + std::to_string(bad_window) + " fails when waited for");
        Buffer b(size, kDevice);
        fake_->sync_fail_at = reinterpret_cast<uintptr_t>(b.data() + bad_window * kMiB + 5);
        fake_->sync_failed_copy = 0;
        int gpu_error = 0;
        ssize_t n = Read(f, b, 0, size, 0, &gpu_error);
        fake_->sync_fail_at = 0;
        uintptr_t failed = fake_->sync_failed_copy;
        ASSERT_NE(failed, 0u) << "the copy holding the bad window was waited for";
        auto copy_start = static_cast<ssize_t>(failed - reinterpret_cast<uintptr_t>(b.data()));
        EXPECT_EQ(copy_start % static_cast<ssize_t>(kMiB), 0) << "1 MiB windows";
        EXPECT_GT(copy_start, static_cast<ssize_t>((bad_window - 4) * kMiB));
        ASSERT_EQ(n, copy_start) << "the result ends where the failed copy starts";
        EXPECT_EQ(hf_test_pattern_check(b.data(), static_cast<size_t>(n), 0, 72), -1);
        EXPECT_TRUE(LogHas(HF_LOG_ERROR, "fakeFailure"));
    }
    ExpectReadBack(f, size, 72);
}

// Lanes that park keep their slots until their caller ends the request: several cold reads at
// once (a batch's entries on the core's threads) once each parked what the pool had, while their
// other lanes waited in the pool for ever. A request now takes its slots before its lanes start.
TEST_F(FallbackDirectIo, ColdReadsAtOnceFromASmallPoolAllFinish)
{
    SetConfig("staging_slots_per_device", 4);
    const size_t size = 16 * kMiB;
    File f = InitWithLanesAndFile("cold-at-once", size, 75, CacheAnswer::kNothingCached);
    SKIP_WITHOUT_O_DIRECT();
    std::vector<std::unique_ptr<Buffer>> buffers;
    for (int i = 0; i < 4; i++)
        buffers.push_back(std::make_unique<Buffer>(size, kDevice));
    for (int round = 0; round < 3; round++) {
        std::vector<ssize_t> moved(buffers.size(), -1);
        std::vector<std::thread> callers;
        for (size_t i = 0; i < buffers.size(); i++)
            callers.emplace_back([&, i] { moved[i] = Read(f, *buffers[i], 0, size, 0); });
        for (std::thread &t : callers)
            t.join();
        for (size_t i = 0; i < buffers.size(); i++) {
            ASSERT_EQ(moved[i], static_cast<ssize_t>(size)) << "caller " << i;
            EXPECT_EQ(hf_test_pattern_check(buffers[i]->data(), size, 0, 75), -1) << "caller " << i;
        }
    }
    EXPECT_LE(fake_->pinned_live_max, 4 * 2) << "the pool's bound held";
}

TEST_F(FallbackDirectIo, PartlyCachedRangesReadTheRestDirect)
{
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kFirstHalfOfBlocks;
    const size_t size = 512 * kKiB;
    File f = OpenDirectFile("half-cached", size, 64);
    SKIP_WITHOUT_O_DIRECT();
    ExpectReadBack(f, size, 64);
    EXPECT_EQ(fake_->bytes_probed, size / 2) << "half of every 16 KiB window was cached";
    EXPECT_EQ(fake_->bytes_direct, size / 2);
    EXPECT_EQ(fake_->bytes_buffered, 0u);
}

// A RWF_NOWAIT read that misses starts readahead of what it asked for: asking for a whole cold
// window would read it from the disk twice, once into the cache and once O_DIRECT. (Larger reads
// ask the kernel's count first, below.)
TEST_F(FallbackDirectIo, AColdWindowIsProbedOnePageOnly)
{
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = 64 * kKiB; // inline_max_kb: probed without asking the kernel
    File f = OpenDirectFile("probe-page", size, 66);
    SKIP_WITHOUT_O_DIRECT();
    ExpectReadBack(f, size, 66, kHostPinned);
    ASSERT_FALSE(fake_->preadv2_sizes.empty());
    for (size_t asked : fake_->preadv2_sizes)
        EXPECT_EQ(asked, 4 * kKiB);
    EXPECT_EQ(fake_->bytes_direct, size);
    EXPECT_EQ(fake_->cached_bytes_calls, 0);
}

// Reads into memory the CPU addresses (no staging) ask the kernel's count as staged ones do: one
// the kernel counts mostly uncached probes only windows it counts cached bytes in, so a cold
// window starts no readahead beside its O_DIRECT read. A read it cannot count probes them all.
TEST_F(FallbackDirectIo, AStraightReadFromTheStorageProbesOnlyWindowsWithCachedBytes)
{
    const size_t size = 16 * kMiB;
    File f = InitWithLanesAndFile("straight-cold-but-the-first-mebibyte", size, 74,
                                  CacheAnswer::kFirstMebibyte);
    SKIP_WITHOUT_O_DIRECT();
    ExpectReadBack(f, size, 74, kHostPinned);
    EXPECT_GE(fake_->cached_bytes_calls, 2) << "the request, then its windows";
    EXPECT_EQ(fake_->bytes_probed, kMiB) << "the first window, from the page cache";
    EXPECT_EQ(fake_->preadv2_calls, 2) << "its first page, then the rest";
    EXPECT_EQ(fake_->bytes_direct, size - kMiB);
    EXPECT_EQ(fake_->bytes_buffered, 0u);

    fake_->cache_answer = CacheAnswer::kUnsupported;
    fake_->preadv2_calls = 0;
    fake_->bytes_direct = 0;
    ExpectReadBack(f, size, 74, kHostPinned);
    EXPECT_GE(fake_->preadv2_calls, 4) << "every window of every lane asks the page cache";
    EXPECT_EQ(fake_->bytes_direct, size);
}

TEST_F(FallbackDirectIo, ACacheThatCannotBeAskedIsTakenAsCold)
{
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kUnsupported;
    const size_t size = 256 * kKiB;
    File f = OpenDirectFile("nowait-unsupported", size, 65);
    SKIP_WITHOUT_O_DIRECT();
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 65), -1);
    EXPECT_EQ(fake_->bytes_direct, size);
}

// preadv2 came with ABI minor 1; the fallback needs minor 5, so a table without it is refused.
TEST_F(FallbackDirectIo, ASystemCallTableWithoutPreadv2IsRefused)
{
    static hf_sys_ops old_sys = FakeSysTable();
    old_sys.preadv2 = nullptr;
    old_sys.struct_size = offsetof(hf_sys_ops, preadv2);
    host_.sys = &old_sys;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_EQ(backend, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackDirectIo, NeverReadsEverythingBufferedWithoutAsking)
{
    SetConfigText("direct_io", "never");
    InitSplitting(16, 4, 64);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = 256 * kKiB;
    File f = OpenDirectFile("never", size, 67);
    SKIP_WITHOUT_O_DIRECT();
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 67), -1);
    EXPECT_EQ(fake_->preadv2_calls, 0);
    EXPECT_EQ(fake_->preads_direct, 0);
}

TEST_F(FallbackDirectIo, AlwaysReadsAlignedRangesDirectEvenWhenCached)
{
    SetConfigText("direct_io", "always");
    InitSplitting(16, 4, 64);
    const size_t size = 256 * kKiB + 100;
    File f = OpenDirectFile("always", size, 68);
    SKIP_WITHOUT_O_DIRECT();
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 68), -1);
    EXPECT_EQ(fake_->preadv2_calls, 0);
    EXPECT_EQ(fake_->bytes_direct, 256 * kKiB);
    EXPECT_EQ(fake_->bytes_buffered, 100u) << "the unaligned tail";
}

TEST_F(FallbackDirectIo, DirectReadsEndShortAtEndOfFile)
{
    InitSerial(16, 2);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t file_size = 10000 + 3;
    File f = OpenDirectFile("direct-eof", file_size, 69);
    SKIP_WITHOUT_O_DIRECT();
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(64 * kKiB, kind);
        ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), static_cast<ssize_t>(file_size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), file_size, 0, 69), -1) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(0, file_size)) << kind.name;
        EXPECT_EQ(Read(f, b, 0, 8192, 16384), 0) << kind.name << ": past the end";
    }
    EXPECT_GT(fake_->bytes_direct, 0u);
}

TEST_F(FallbackDirectIo, ARefusedDirectReadIsRetriedBuffered)
{
    InitSerial(16, 2);
    fake_->cache_answer = CacheAnswer::kNothingCached;
    fake_->direct_einval = 1;
    const size_t size = 128 * kKiB;
    File f = OpenDirectFile("direct-einval", size, 70);
    SKIP_WITHOUT_O_DIRECT();
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 70), -1);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "reading buffered"));
    EXPECT_EQ(fake_->preads_direct, 1) << "the rest of the request stays buffered";
    EXPECT_EQ(fake_->bytes_buffered, size);
}

TEST_F(FallbackDirectIo, AnErrorFromADirectReadInTheMiddlePieceEndsTheResultThere)
{
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = kMiB;
    File f = OpenDirectFile("direct-eio", 2 * kMiB, 71);
    SKIP_WITHOUT_O_DIRECT();
    const int64_t fault_at = 600 * 1024;
    fake_->pread_faults.fault_offset = fault_at;
    fake_->pread_faults.fault_errno = EIO;
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), fault_at);
    EXPECT_EQ(hf_test_pattern_check(b.data(), static_cast<size_t>(fault_at), 0, 71), -1);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "O_DIRECT pread"));
}

TEST_F(FallbackDirectIo, WritesToAFileOpenedWithoutODirectNeverUseTheDirectDescriptor)
{
    InitSplitting(16, 4, 64);
    const size_t size = 512 * kKiB + 5;
    File f = OpenDirectFile("direct-write", 0, 0);
    SKIP_WITHOUT_O_DIRECT();
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(size, kind);
        hf_test_pattern_fill(b.data(), size, 0, 72);
        ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
    }
    EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data(), size, 0, 72), -1);
    // pwrites_direct is checked at teardown.
}

// A program that opened its file with O_DIRECT asked for writes that leave the page cache alone:
// whole granules go through the O_DIRECT descriptor (through a bounce buffer where the program's
// address does not sit on the granule as the file offset does), the unaligned head and tail
// through the buffered one, from staged and from host memory, split or not.
TEST_F(FallbackDirectIo, WritesToAFileOpenedWithODirectGoDirectForWholeGranules)
{
    direct_writes_expected_ = true;
    InitSplitting(16, 4, 64);
    const size_t size = 512 * kKiB + 5;
    File f = OpenODirectFile("odirect-write");
    SKIP_WITHOUT_O_DIRECT();
    struct Case {
        MemKind kind;
        int64_t file_offset;
        uint64_t direct; // bytes that go direct
    };
    const Case cases[] = {
        {kDevice, 0, 512 * kKiB},
        {kDevice, 100, 512 * kKiB - 4096},
        {kHostPinned, 2 * kMiB, 512 * kKiB},
        {kPageable, 3 * kMiB + 100, 512 * kKiB - 4096}, // bounced: its address is not aligned
                                                        // as its file offset is
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(std::string(c.kind.name) + " at " + std::to_string(c.file_offset));
        fake_->bytes_written_direct = 0;
        Buffer b(size, c.kind);
        hf_test_pattern_fill(b.data(), size, 0, 75);
        ASSERT_EQ(Write(f, b, 0, size, c.file_offset), static_cast<ssize_t>(size));
        EXPECT_EQ(fake_->bytes_written_direct, c.direct);
        std::vector<uint8_t> back = ReadWholeFile(f.fd);
        ASSERT_GE(back.size(), c.file_offset + size);
        EXPECT_EQ(hf_test_pattern_check(back.data() + c.file_offset, size, 0, 75), -1);
    }
}

// Direct writes that give every lane a chunk go in storage windows, as reads from the storage do.
TEST_F(FallbackDirectIo, DirectWritesOfAChunkPerLaneGoInWindowsOfAMebibyte)
{
    direct_writes_expected_ = true;
    Init();
    fake_->width = 4;
    const size_t size = 16 * kMiB;
    File f = OpenODirectFile("odirect-write-windows");
    SKIP_WITHOUT_O_DIRECT();
    WriteFromTheDevice(f, size, 78);
    EXPECT_EQ(fake_->bytes_written_direct, size);
    std::lock_guard<std::mutex> lock(fake_->mu);
    EXPECT_EQ(fake_->pwrite_sizes, std::vector<size_t>(size / kMiB, kMiB));
}

TEST_F(FallbackDirectIo, ADirectWriteTheFilesystemRefusesIsWrittenBuffered)
{
    direct_writes_expected_ = true;
    InitSplitting(16, 4, 64);
    File f = OpenODirectFile("odirect-write-refused");
    SKIP_WITHOUT_O_DIRECT();
    fake_->direct_write_einval = 1000;
    WriteFromTheDevice(f, 256 * kKiB, 76);
    EXPECT_EQ(fake_->bytes_written_direct, 0u);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "O_DIRECT write of"));
}

TEST_F(FallbackDirectIo, DirectIoNeverKeepsWritesToAFileOpenedWithODirectBuffered)
{
    SetConfigText("direct_io", "never");
    InitSplitting(16, 4, 64);
    File f = OpenODirectFile("odirect-write-never");
    SKIP_WITHOUT_O_DIRECT();
    WriteFromTheDevice(f, 256 * kKiB, 77);
    // pwrites_direct is checked at teardown.
}

TEST_F(FallbackDirectIo, AFileWithoutDirectDescriptorIsNeverAskedAboutTheCache)
{
    InitSplitting(16, 4, 64);
    const size_t size = 256 * kKiB;
    File f = OpenPatternFile("no-direct-twin", size, 73);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->preadv2_calls, 0) << "buffered either way: nothing to decide";
}

TEST_F(FallbackDirectIo, ChunksThatAreNotAMultipleOfTheDirectGranuleReadBuffered)
{
    SetConfig("chunk_size_kb", 12);
    SetConfig("inline_max_kb", 1024 * 1024);
    Init();
    fake_->cache_answer = CacheAnswer::kNothingCached;
    const size_t size = 64 * kKiB;
    File f = OpenDirectFile("odd-chunk", size, 74);
    SKIP_WITHOUT_O_DIRECT();
    hf_file_info file;
    Buffer b(size, kDevice);
    hf_buf_info buf = b.Info();
    hf_io_request req = Request(HF_IO_READ, f, &file, &buf, 0, size, 0, nullptr);
    file.dio_offset_align = 8192; // 12 KiB chunks would cut 8 KiB granules
    file.dio_mem_align = 8192;
    ASSERT_EQ(ops_->transfer(backend_, &req), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 74), -1);
    EXPECT_EQ(fake_->preads_direct, 0);
}

class FallbackDirectRandom : public FallbackDirectIo,
                             public ::testing::WithParamInterface<CacheAnswer>
{
};

TEST_P(FallbackDirectRandom, RandomReadsAreExactWhateverTheCacheSays)
{
    InitSplitting(12, 3, 24);
    fake_->cache_answer = GetParam();
    const uint64_t file_size = 2 * kMiB + 4321;
    File f = OpenDirectFile("direct-random", file_size, 75);
    SKIP_WITHOUT_O_DIRECT();
    std::mt19937_64 rng(99);
    for (int i = 0; i < 50; i++) {
        fake_->width = 1 + static_cast<unsigned>(rng() % 6);
        size_t size = 1 + rng() % (kMiB);
        uint64_t file_offset = rng() % (file_size + 8192);
        if (rng() % 2 == 0)
            file_offset = hfp_align_down(file_offset, 4096);
        const MemKind &kind = rng() % 2 == 0 ? kDevice : kPageable;
        size_t buf_offset = kind.bounces ? rng() % 5000 : file_offset % 4096;
        Buffer b(buf_offset + size, kind);
        size_t expected =
            file_offset >= file_size ? 0 : std::min<uint64_t>(size, file_size - file_offset);
        SCOPED_TRACE(testing::Message()
                     << "iteration " << i << ": " << size << " bytes at " << file_offset << " into "
                     << kind.name << " + " << buf_offset);
        ASSERT_EQ(
            Read(f, b, static_cast<int64_t>(buf_offset), size, static_cast<int64_t>(file_offset)),
            static_cast<ssize_t>(expected));
        ASSERT_EQ(hf_test_pattern_check(b.data() + buf_offset, expected, file_offset, 75), -1);
        ASSERT_TRUE(b.UntouchedOutside(buf_offset, buf_offset + expected));
    }
    if (GetParam() != CacheAnswer::kKernel) {
        EXPECT_GT(fake_->bytes_direct, 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(CacheAnswers, FallbackDirectRandom,
                         ::testing::Values(CacheAnswer::kKernel, CacheAnswer::kNothingCached,
                                           CacheAnswer::kUnsupported, CacheAnswer::kHalfCached,
                                           CacheAnswer::kFirstHalfOfBlocks,
                                           CacheAnswer::kFirstMebibyte),
                         [](const ::testing::TestParamInfo<CacheAnswer> &info) {
                             switch (info.param) {
                             case CacheAnswer::kKernel:
                                 return std::string("Kernel");
                             case CacheAnswer::kNothingCached:
                                 return std::string("NothingCached");
                             case CacheAnswer::kUnsupported:
                                 return std::string("Unsupported");
                             case CacheAnswer::kFirstHalfOfBlocks:
                                 return std::string("FirstHalfOfBlocks");
                             case CacheAnswer::kFirstMebibyte:
                                 return std::string("FirstMebibyte");
                             case CacheAnswer::kHalfCached:
                                 break;
                             }
                             return std::string("HalfCached");
                         });

} // namespace
