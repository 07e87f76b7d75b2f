// Requests the fallback cuts into pieces run on the executor's workers: when it splits and when it
// stays on the calling thread, the one result rule (bytes in request order up to the first piece
// that ended short), faults in the middle piece, the per-device staging pools, and many callers.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/align.h"
#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

// ---------------------------------------------------------------------------------------------
// Inline or split.

TEST_F(FallbackPlugin, RequestsUpToInlineMaxRunOnTheCallingThread)
{
    Init();
    File f = OpenPatternFile("inline", 2 * kMiB, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        for (size_t size : {size_t{1}, 4 * kKiB, 64 * kKiB + 3, kMiB}) {
            Buffer b(size, kind);
            ASSERT_EQ(Read(f, b, 0, size, 100), static_cast<ssize_t>(size)) << kind.name;
            EXPECT_EQ(hf_test_pattern_check(b.data(), size, 100, 3), -1) << kind.name;
            ASSERT_EQ(Write(f, b, 0, size, 100), static_cast<ssize_t>(size)) << kind.name;
        }
    }
    EXPECT_EQ(fake_->parallel_runs, 0) << "no executor round trip for small requests";
}

TEST_F(FallbackPlugin, LargerRequestsAreSplitIntoOnePiecePerWorker)
{
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB + 5;
    File f = OpenPatternFile("split-width", size, 3);
    Buffer b(size, kHostPinned);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    EXPECT_EQ(fake_->parallel_runs, 1);
    EXPECT_EQ(fake_->parallel_tasks, 4);
}

TEST_F(FallbackPlugin, StagedRequestsRunOneLanePerWorkerUpToOnePerChunk)
{
    SetConfigBool("pipeline_reads", false); // staged reads in lanes, as writes always run
    Init();
    fake_->width = 4;
    const size_t size = 8 * kMiB + 5;
    File f = OpenPatternFile("lane-width", 32 * kMiB, 3);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    EXPECT_EQ(fake_->parallel_tasks, 3) << "three 4 MiB chunk windows, so three lanes";
    EXPECT_LE(fake_->alloc_calls, 3 * 2) << "at most one slot per lane";

    Buffer big(24 * kMiB, kDevice);
    ASSERT_EQ(Read(f, big, 0, big.length(), kMiB), static_cast<ssize_t>(big.length()));
    EXPECT_EQ(hf_test_pattern_check(big.data(), big.length(), kMiB, 3), -1);
    EXPECT_EQ(fake_->parallel_tasks, 3 + 4) << "seven windows, four workers";
}

TEST_F(FallbackPlugin, StagedWritesAreCutIntoWindowsForEveryLane)
{
    Init();
    fake_->width = 4;
    const size_t size = 4 * kMiB;
    File f = OpenPatternFile("write-windows", size, 5);
    Buffer b(size, kDevice);
    hf_test_pattern_fill(b.data(), size, 0, 6);
    ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(fake_->parallel_tasks, 4) << "one 4 MiB chunk, yet four writers";
    std::vector<size_t> sizes = fake_->pwrite_sizes;
    EXPECT_EQ(sizes, std::vector<size_t>(4, kMiB)) << "1 MiB windows, one pwrite each";
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), size, 0, 6), -1);
}

TEST_F(FallbackPlugin, TheTailOfAStagedRequestShrinksToTheLanesShareInTailWindows)
{
    SetConfigBool("pipeline_reads", false); // staged reads in lanes, as writes always run
    SetConfig("tail_window_kb", 1024);
    Init();
    fake_->width = 4;
    const size_t size = 32 * kMiB;
    File f = OpenPatternFile("tail-windows", size, 3);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    /* Each window is one pread (the fake host has no page cache to probe). */
    std::vector<size_t> sizes = fake_->pread_sizes;
    std::sort(sizes.begin(), sizes.end());
    /* 4 lanes: whole 4 MiB windows while 16 MiB or more are left; then 3, 3, 2, 1, 1, 1, 1 MiB. */
    ASSERT_FALSE(sizes.empty());
    EXPECT_EQ(sizes.front(), kMiB) << "the tail ends in tail windows";
    EXPECT_EQ(sizes.back(), 4 * kMiB);
    size_t total = 0;
    for (size_t s : sizes) {
        EXPECT_EQ(s % kMiB, 0u) << "every window is whole tail windows";
        total += s;
    }
    EXPECT_EQ(total, size);
    EXPECT_GT(sizes.size(), size / (4 * kMiB)) << "more windows than whole chunks";
}

TEST_F(FallbackPlugin, OneLaneAndAZeroTailWindowKeepWholeChunks)
{
    SetConfigBool("pipeline_reads", false); // staged reads in lanes, as writes always run
    SetConfig("tail_window_kb", 0);
    Init();
    fake_->width = 4;
    const size_t size = 32 * kMiB;
    File f = OpenPatternFile("tail-off", size, 3);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    EXPECT_EQ(fake_->pread_sizes.size(), size / (4 * kMiB));
}

TEST_F(FallbackPlugin, PiecesAreNeverSmallerThanTheSplitThreshold)
{
    SetConfig("split_threshold_kb", 1024);
    SetConfig("inline_max_kb", 64);
    Init();
    fake_->width = 16;
    const size_t size = 3 * kMiB + 100;
    File f = OpenPatternFile("split-threshold", size, 3);
    Buffer b(size, kHostPinned);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    EXPECT_EQ(fake_->parallel_tasks, 3) << "3 MiB makes three pieces of at least 1 MiB";

    Buffer small(2 * kMiB - 1, kHostPinned);
    ASSERT_EQ(Read(f, small, 0, small.length(), 0), static_cast<ssize_t>(small.length()));
    EXPECT_EQ(fake_->parallel_runs, 1) << "less than two pieces' worth runs on the caller";
}

TEST_F(FallbackPlugin, ZeroInlineMaxSplitsEveryRequestThatHoldsTwoPieces)
{
    SetConfig("inline_max_kb", 0);
    SetConfig("split_threshold_kb", 4);
    InitSmallPool(4, 4);
    File f = OpenPatternFile("split-all", 64 * kKiB, 3);
    Buffer b(8 * kKiB, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8 * kKiB, 0), 8 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 8 * kKiB, 0, 3), -1);
    EXPECT_EQ(fake_->parallel_tasks, 2);
}

TEST_F(FallbackPlugin, SplitPiecesRunAtTheSameTime)
{
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    const size_t size = 4 * kMiB;
    File f = OpenPatternFile("split-concurrent", size, 3);
    Buffer b(size, kDevice);
    fake_->pread_waits_for_company = true;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    EXPECT_GE(fake_->max_tasks_at_once, 2);
}

TEST_F(FallbackPlugin, AParkedThreadDoesNotHoldBackTheWindowsOfAStagedRequest)
{
    SetConfigBool("pipeline_reads", false); // staged reads in lanes, as writes always run
    InitSplitting(16, 4, 32);
    fake_->width = 2;
    const size_t chunks = 16;
    const size_t size = chunks * 16 * kKiB;
    File f = OpenPatternFile("parked-lane", size, 9);
    Buffer b(size, kDevice);
    // The first read stalls until every other window has been read: only threads that take
    // windows as they free up, rather than a fixed half each, get there.
    fake_->first_pread_waits_for_others = static_cast<int>(chunks - 1);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 9), -1);
    EXPECT_EQ(fake_->parallel_tasks, 2);
    EXPECT_TRUE(fake_->parked_pread_released) << "the other thread read the parked one's share";
}

// The fallback needs ABI minor 5, and with it the executor of minor 1: a core without one is
// refused at init rather than served serially.
TEST_F(FallbackPlugin, AnOlderCoreWithoutAnExecutorIsRefused)
{
    host_.abi_minor = 0;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_EQ(backend, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, AHostTableEndingBeforeTheExecutorIsRefused)
{
    host_.struct_size = offsetof(hf_host_api, parallel_run);
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_EQ(backend, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, AnExecutorThatCannotStartServesTheRequestWhole)
{
    InitSplitting();
    fake_->parallel_run_result = -EAGAIN;
    const size_t size = kMiB + 7;
    File f = OpenPatternFile("executor-refuses", size, 3);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 3), -1);
    EXPECT_EQ(fake_->parallel_runs, 1);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "serving the request whole"));
}

// ---------------------------------------------------------------------------------------------
// Random split requests.

class FallbackSplitRandom : public FallbackPlugin, public ::testing::WithParamInterface<MemKind>
{
};

TEST_P(FallbackSplitRandom, ReadsAndWritesAtRandomSizesOffsetsAndWidthsAreExact)
{
    const MemKind &kind = GetParam();
    InitSplitting(12, 3, 20);
    const uint64_t file_size = 2 * kMiB + 333;
    File f = OpenPatternFile(std::string("split-random-") + kind.name, file_size, 17);
    std::vector<uint8_t> expected(file_size);
    hf_test_pattern_fill(expected.data(), file_size, 0, 17);
    std::mt19937_64 rng(31337);
    for (int i = 0; i < 60; i++) {
        fake_->width = 1 + static_cast<unsigned>(rng() % 8);
        size_t size = 1 + rng() % (kMiB + 5000);
        uint64_t file_offset = rng() % (expected.size() + 4096);
        if (rng() % 3 == 0)
            file_offset = hfp_align_down(file_offset, 4096);
        size_t buf_offset = rng() % 3 == 0 ? 0 : rng() % 5000;
        Buffer b(buf_offset + size + rng() % 64, kind);
        SCOPED_TRACE(testing::Message()
                     << "iteration " << i << ": " << size << " bytes at " << file_offset
                     << ", buffer offset " << buf_offset << ", width " << fake_->width);
        if (rng() % 2 == 0) {
            size_t want =
                file_offset >= expected.size()
                    ? 0
                    : static_cast<size_t>(std::min<uint64_t>(size, expected.size() - file_offset));
            ssize_t n = Read(f, b, static_cast<int64_t>(buf_offset), size,
                             static_cast<int64_t>(file_offset));
            ASSERT_EQ(n, static_cast<ssize_t>(want));
            ASSERT_TRUE(std::equal(b.data() + buf_offset, b.data() + buf_offset + want,
                                   expected.begin() + static_cast<ptrdiff_t>(file_offset)));
            ASSERT_TRUE(b.UntouchedOutside(buf_offset, buf_offset + want));
        } else {
            uint32_t seed = 500 + static_cast<uint32_t>(i);
            hf_test_pattern_fill(b.data() + buf_offset, size, file_offset, seed);
            ssize_t n = Write(f, b, static_cast<int64_t>(buf_offset), size,
                              static_cast<int64_t>(file_offset));
            ASSERT_EQ(n, static_cast<ssize_t>(size));
            if (file_offset + size > expected.size())
                expected.resize(file_offset + size, 0);
            hf_test_pattern_fill(expected.data() + file_offset, size, file_offset, seed);
        }
    }
    EXPECT_TRUE(ReadWholeFile(f.fd) == expected);
    EXPECT_GT(fake_->parallel_runs, 10);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    EXPECT_LE(fake_->pinned_live_max, 3 * 2);
}

INSTANTIATE_TEST_SUITE_P(MemoryKinds, FallbackSplitRandom,
                         ::testing::Values(kDevice, kDeviceCoherent, kHostPinned, kPageable),
                         [](const ::testing::TestParamInfo<MemKind> &info) {
                             return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------------------------
// Faults in the middle piece of a split request.

// One fault: which call, which errno, how often it fires before the spot heals (-1: never heals),
// and whether the request then completes.
struct MiddleFault {
    const char *name;
    int op;
    int err; // 0: the call only moves the bytes before the spot (a short transfer)
    int times;
    bool completes;
};

class FallbackMiddleFault : public FallbackPlugin,
                            public ::testing::WithParamInterface<std::tuple<MiddleFault, MemKind>>
{
  protected:
    // 1 MiB + 1000 at an unaligned offset, in four pieces of about 256 KiB; the fault sits in the
    // third, off any chunk boundary.
    static constexpr size_t kSize = kMiB + 1000;
    static constexpr int64_t kStart = 3 * 4096 + 123;
    static constexpr int64_t kFaultAt = kStart + 600 * 1024 + 777;
};

TEST_P(FallbackMiddleFault, GivesExactlyTheBytesBeforeTheFaultAndLeavesThePoolUsable)
{
    const MiddleFault &fault = std::get<0>(GetParam());
    const MemKind &kind = std::get<1>(GetParam());
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    const uint64_t file_size = 2 * kMiB;
    File f = OpenPatternFile("middle-fault", file_size, 40);
    Buffer b(kSize, kind);
    hf_test_pattern_fill(b.data(), kSize, static_cast<uint64_t>(kStart), 41);
    SysFaults &faults = fault.op == HF_IO_READ ? fake_->pread_faults : fake_->pwrite_faults;
    faults.fault_offset = kFaultAt;
    faults.fault_errno = fault.err;
    faults.fault_times = fault.times;

    ssize_t n =
        fault.op == HF_IO_READ ? Read(f, b, 0, kSize, kStart) : Write(f, b, 0, kSize, kStart);

    EXPECT_EQ(fake_->parallel_tasks, 4);
    const size_t before = static_cast<size_t>(kFaultAt - kStart);
    size_t expected = fault.completes ? kSize : before;
    ASSERT_EQ(n, static_cast<ssize_t>(expected));
    if (fault.op == HF_IO_READ) {
        EXPECT_EQ(hf_test_pattern_check(b.data(), expected, static_cast<uint64_t>(kStart), 40), -1);
    } else {
        std::vector<uint8_t> contents = ReadWholeFile(f.fd);
        EXPECT_EQ(hf_test_pattern_check(contents.data() + kStart, expected,
                                        static_cast<uint64_t>(kStart), 41),
                  -1);
        EXPECT_EQ(hf_test_pattern_check(contents.data(), static_cast<size_t>(kStart), 0, 40), -1);
    }
    if (!fault.completes) {
        EXPECT_TRUE(LogHas(HF_LOG_ERROR, fault.op == HF_IO_READ ? "pread" : "pwrite"));
    }

    // The spot heals: the same request on the same pool and workers now moves everything.
    faults.fault_offset = -1;
    Buffer again(kSize, kind);
    hf_test_pattern_fill(again.data(), kSize, static_cast<uint64_t>(kStart), 42);
    ASSERT_EQ(Write(f, again, 0, kSize, kStart), static_cast<ssize_t>(kSize));
    Buffer back(kSize, kind);
    ASSERT_EQ(Read(f, back, 0, kSize, kStart), static_cast<ssize_t>(kSize));
    EXPECT_EQ(hf_test_pattern_check(back.data(), kSize, static_cast<uint64_t>(kStart), 42), -1);
    EXPECT_LE(fake_->pinned_live_max, 4 * 2);
}

const MiddleFault kMiddleFaults[] = {
    {"ReadEio", HF_IO_READ, EIO, -1, false},
    {"ReadPersistentEagain", HF_IO_READ, EAGAIN, -1, false},
    {"ReadTransientEagain", HF_IO_READ, EAGAIN, 3, true},
    {"ReadEintr", HF_IO_READ, EINTR, 5, true},
    {"ReadShort", HF_IO_READ, 0, -1, true},
    {"WriteEio", HF_IO_WRITE, EIO, -1, false},
    {"WriteEnospc", HF_IO_WRITE, ENOSPC, -1, false},
    {"WritePersistentEagain", HF_IO_WRITE, EAGAIN, -1, false},
    {"WriteTransientEagain", HF_IO_WRITE, EAGAIN, 2, true},
    {"WriteEintr", HF_IO_WRITE, EINTR, 5, true},
    {"WriteShort", HF_IO_WRITE, 0, -1, true},
};

INSTANTIATE_TEST_SUITE_P(
    Faults, FallbackMiddleFault,
    ::testing::Combine(::testing::ValuesIn(kMiddleFaults), ::testing::Values(kDevice, kHostPinned)),
    [](const ::testing::TestParamInfo<std::tuple<MiddleFault, MemKind>> &info) {
        return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param).name;
    });

TEST_F(FallbackPlugin, FaultAtTheFirstByteOfASplitRequestReturnsTheErrno)
{
    InitSplitting(16, 4, 64);
    File f = OpenPatternFile("first-byte-fault", 2 * kMiB, 40);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(kMiB, kind);
        fake_->pread_faults.fault_offset = 8192;
        fake_->pread_faults.fault_errno = EIO;
        EXPECT_EQ(Read(f, b, 0, kMiB, 8192), -EIO) << kind.name;
        fake_->pwrite_faults.fault_offset = 8192;
        fake_->pwrite_faults.fault_errno = ENOSPC;
        EXPECT_EQ(Write(f, b, 0, kMiB, 8192), -ENOSPC) << kind.name;
    }
    EXPECT_GE(fake_->parallel_runs, 4);
}

TEST_F(FallbackPlugin, FaultInTheFirstPieceHidesLaterPiecesThatSucceeded)
{
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    File f = OpenPatternFile("first-piece-fault", 2 * kMiB, 40);
    Buffer b(kMiB, kDevice);
    fake_->pread_faults.fault_offset = 100000;
    fake_->pread_faults.fault_errno = EIO;
    EXPECT_EQ(Read(f, b, 0, kMiB, 0), 100000);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 100000, 0, 40), -1);
}

TEST_F(FallbackPlugin, EndOfFileInTheMiddlePieceGivesTheBytesUpToIt)
{
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    const uint64_t file_size = 600 * kKiB + 99;
    File f = OpenPatternFile("middle-eof", file_size, 43);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(kMiB, kind);
        ASSERT_EQ(Read(f, b, 0, kMiB, 0), static_cast<ssize_t>(file_size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), file_size, 0, 43), -1) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(0, file_size)) << kind.name;
    }
}

// ---------------------------------------------------------------------------------------------
// GPU failures inside split requests: only bytes whose copies completed, in order, count.

class FallbackSplitGpuFault : public FallbackPlugin, public ::testing::WithParamInterface<int>
{
};

TEST_P(FallbackSplitGpuFault, CountsOnlyTheChunksBeforeTheFailedCopy)
{
    const int op = GetParam();
    const size_t chunk = 16 * kKiB;
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    const size_t size = kMiB;
    const int64_t start = 5000;
    File f = OpenPatternFile("gpu-middle", 2 * kMiB, 44);
    for (bool at_sync : {false, true}) {
        SCOPED_TRACE(at_sync ? "the wait fails" : "queueing fails");
        Buffer b(size, kDevice);
        hf_test_pattern_fill(b.data(), size, static_cast<uint64_t>(start), 45);
        const size_t bad = 700 * kKiB + 3; // in the third piece
        auto address = reinterpret_cast<uintptr_t>(b.data() + bad);
        (at_sync ? fake_->sync_fail_at : fake_->copy_fail_at) = address;
        int gpu_error = 0;
        ssize_t n = op == HF_IO_READ ? Read(f, b, 0, size, start, &gpu_error)
                                     : Write(f, b, 0, size, start, &gpu_error);
        fake_->sync_fail_at = 0;
        fake_->copy_fail_at = 0;
        // The chunk holding the bad byte starts on the file's chunk grid for writes (lanes), and
        // for reads on the pipeline's block grid (a block is a chunk here), which starts at the
        // page holding the request's first byte.
        uint64_t pos = static_cast<uint64_t>(start) + bad;
        uint64_t grid = op == HF_IO_READ ? static_cast<uint64_t>(start) / 4096 * 4096 : 0;
        size_t expected =
            static_cast<size_t>(pos - (pos - grid) % chunk - static_cast<uint64_t>(start));
        ASSERT_EQ(n, static_cast<ssize_t>(expected));
        EXPECT_EQ(gpu_error, 0) << "a short count carries no runtime code";
        if (op == HF_IO_READ) {
            EXPECT_EQ(hf_test_pattern_check(b.data(), expected, static_cast<uint64_t>(start), 44),
                      -1);
        } else {
            std::vector<uint8_t> contents = ReadWholeFile(f.fd);
            EXPECT_EQ(hf_test_pattern_check(contents.data() + start, expected,
                                            static_cast<uint64_t>(start), 45),
                      -1);
        }
        EXPECT_TRUE(LogHas(HF_LOG_ERROR, "fakeFailure"));
    }
    // Slots whose streams failed were replaced; the pool still serves, within its bound.
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_LE(fake_->pinned_live_max, 4 * 2);
    EXPECT_LE(fake_->streams_live, 4 * 2);
}

INSTANTIATE_TEST_SUITE_P(Ops, FallbackSplitGpuFault, ::testing::Values(HF_IO_READ, HF_IO_WRITE),
                         [](const ::testing::TestParamInfo<int> &info) {
                             return std::string(info.param == HF_IO_READ ? "Read" : "Write");
                         });

TEST_F(FallbackPlugin, GpuFailureInTheFirstChunkOfASplitRequestReturnsEgpu)
{
    InitSplitting(16, 4, 64);
    File f = OpenPatternFile("gpu-first", 2 * kMiB, 44);
    Buffer b(kMiB, kDevice);
    fake_->copy_fail_at = reinterpret_cast<uintptr_t>(b.data());
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, kMiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeCopyFailure);
    gpu_error = 0;
    fake_->copy_fail_at = 0;
    fake_->sync_fail_at = reinterpret_cast<uintptr_t>(b.data());
    EXPECT_EQ(Write(f, b, 0, kMiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeSyncFailure);
    EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data(), 16 * kKiB, 0, 44), -1)
        << "the chunk whose copy failed was not written";
}

TEST_F(FallbackPlugin, StreamCreationFailureReturnsEgpuAndALaterRequestWorks)
{
    InitSerial(4);
    File f = OpenPatternFile("stream-fail", 64 * kKiB, 46);
    Buffer b(64 * kKiB, kDevice);
    fake_->stream_create_fail_from = 1;
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeStreamFailure);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "create a staging stream"));
    EXPECT_EQ(fake_->streams_live, 0) << "the half-made slot was taken apart";
    EXPECT_EQ(fake_->pinned_live, 0);
    fake_->stream_create_fail_from = -1;
    ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 46), -1);
}

TEST_F(FallbackPlugin, SplitRequestsMakeDoWhenPinningRunsOutAfterTheFirstSlot)
{
    SetConfigBool("pipeline_reads", false); // staged reads in lanes, as writes always run
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    const size_t size = kMiB;
    File f = OpenPatternFile("pin-runs-out", size, 47);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, 4096, 0), 4096) << "one slot, created on the calling thread";
    fake_->alloc_fail_from = 2; // nothing after that slot's two buffers
    // The first piece holds the one slot until another has tried to create a second.
    fake_->pread_waits_for_allocs = 3;
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 47), -1);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "making do with 1 slots"));
    EXPECT_EQ(fake_->pinned_live, 2);
}

TEST_F(FallbackPlugin, AWorkerThatCannotSelectTheGpuLeavesItsWindowsToTheOthers)
{
    SetConfigBool("pipeline_reads", false); // lanes: every lane needs the GPU
    InitSplitting(16, 4, 64);
    fake_->width = 4;
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    const size_t size = kMiB;
    File f = OpenPatternFile("worker-device", size, 48);
    Buffer b(size, second_gpu);
    SetCurrentDevice(0);
    fake_->set_device_fail_from = 1;       // the caller's switch works, the workers' do not
    fake_->pread_waits_for_company = true; // the caller's lane waits until a worker has begun
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 48), -1);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "cannot make GPU 1 current"));
}

// ---------------------------------------------------------------------------------------------
// Staging pools: per device, bounded, reused.

TEST_F(FallbackPlugin, EachDeviceStagesThroughSlotsCreatedOnIt)
{
    InitSplitting(16, 2, 64);
    fake_->width = 4;
    const size_t size = kMiB;
    File f = OpenPatternFile("two-devices", size, 49);
    MemKind gpu1 = kDevice;
    gpu1.device = 1;
    Buffer b0(size, kDevice);
    Buffer b1(size, gpu1);
    SetCurrentDevice(0);
    ASSERT_EQ(Read(f, b0, 0, size, 0), static_cast<ssize_t>(size));
    ASSERT_EQ(Read(f, b1, 0, size, 0), static_cast<ssize_t>(size));
    hf_test_pattern_fill(b1.data(), size, 0, 50);
    ASSERT_EQ(Write(f, b1, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b0.data(), size, 0, 49), -1);
    EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data(), size, 0, 50), -1);
    EXPECT_EQ(CurrentDevice(), 0) << "the caller's device is put back";
    EXPECT_GT(fake_->alloc_calls_on_device[0], 0);
    EXPECT_GT(fake_->alloc_calls_on_device[1], 0);
    EXPECT_LE(fake_->alloc_calls_on_device[0], 2 * 2) << "two slots per device";
    EXPECT_LE(fake_->alloc_calls_on_device[1], 2 * 2) << "two slots per device";
    // copies_on_wrong_device (checked at teardown) proves each copy ran on a stream of the
    // buffer's device, with that device current.
}

TEST_F(FallbackPlugin, RepeatedRequestsReuseSlotsInsteadOfAllocating)
{
    InitSplitting(16, 8, 64);
    fake_->width = 2;
    const size_t size = 2 * kMiB;
    File f = OpenPatternFile("warm", size, 51);
    Buffer b(size, kDevice);
    for (int i = 0; i < 10; i++) {
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
        ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size));
        ASSERT_EQ(Read(f, b, 0, 4096, 0), 4096);
    }
    // Thirty requests, none with more than two pieces in flight: two slots serve them all.
    EXPECT_LE(fake_->alloc_calls, 2 * 2) << "no pinning per call once warm";
    EXPECT_LE(fake_->streams_created, 2 * 2) << "no stream creation per call once warm";
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 51), -1);
}

TEST_F(FallbackPlugin, AGpuTheRuntimeDidNotReportIsRejected)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-unknown", 8192, 52);
    MemKind gpu5 = kDevice;
    gpu5.device = 5;
    Buffer b(8192, gpu5);
    EXPECT_EQ(Read(f, b, 0, 8192, 0), -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "GPU 5 is not one of the 2"));
    EXPECT_EQ(fake_->pread_faults.calls, 0);
}

TEST_F(FallbackPlugin, ManyCallersShareTheBoundedPoolsAndWorkers)
{
    InitSplitting(16, 2, 32);
    fake_->width = 3;
    const int threads = 6;
    const size_t region = 300 * kKiB + 11;
    File shared = OpenPatternFile("many-callers-read", 2 * kMiB, 53);
    File out = OpenPatternFile("many-callers-write", threads * region, 54);
    std::atomic<int> failures{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < threads; t++) {
        callers.emplace_back([&, t] {
            std::mt19937_64 rng(static_cast<uint64_t>(t) + 77);
            MemKind kind = t % 3 == 0 ? kHostPinned : kDevice;
            if (t % 3 == 2)
                kind.device = 1;
            for (int i = 0; i < 8; i++) {
                size_t size = 1 + rng() % (700 * kKiB);
                uint64_t offset = rng() % (2 * kMiB - size);
                Buffer b(size, kind);
                if (Read(shared, b, 0, size, static_cast<int64_t>(offset)) !=
                        static_cast<ssize_t>(size) ||
                    hf_test_pattern_check(b.data(), size, offset, 53) != -1)
                    failures++;
            }
            Buffer w(region, kind);
            uint64_t at = static_cast<uint64_t>(t) * region;
            hf_test_pattern_fill(w.data(), region, at, 55);
            if (Write(out, w, 0, region, static_cast<int64_t>(at)) != static_cast<ssize_t>(region))
                failures++;
        });
    }
    for (std::thread &c : callers)
        c.join();
    EXPECT_EQ(failures, 0);
    std::vector<uint8_t> contents = ReadWholeFile(out.fd);
    ASSERT_EQ(contents.size(), threads * region);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), contents.size(), 0, 55), -1);
    EXPECT_LE(fake_->pinned_live_max, 2 * 2 * 2) << "two devices, two slots, two buffers";
    EXPECT_GT(fake_->parallel_runs, 0);
}

} // namespace
