// The fallback plugin driven through its ABI alone (the fake host is in fallback_fake_host.h):
// every byte a request moves is checked against the harness's patterns. The shared bounce and
// staging pools and the alignment helpers are tested directly at the end. Splitting, the O_DIRECT
// rule and faults inside split requests have their own files (fallback_*_test.cc).
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <set>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/align.h"
#include "common/staging_pool.h"
#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

// ---------------------------------------------------------------------------------------------
// The ABI surface.

TEST_F(FallbackPlugin, OpsTableDescribesTheFallback)
{
    EXPECT_EQ(ops_->magic, HF_BACKEND_MAGIC);
    EXPECT_EQ(ops_->abi_major, HF_BACKEND_ABI_MAJOR);
    EXPECT_EQ(ops_->abi_minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(ops_->struct_size, sizeof(hf_backend_ops));
    EXPECT_STREQ(ops_->name, "fallback");
    EXPECT_EQ(ops_->caps, HF_CAP_READ | HF_CAP_WRITE | HF_CAP_COMPAT);
    EXPECT_NE(ops_->init, nullptr);
    EXPECT_NE(ops_->fini, nullptr);
    EXPECT_NE(ops_->probe, nullptr);
    EXPECT_NE(ops_->score, nullptr);
    // One function serves both directions (ABI minor 7): read and write are left to it.
    EXPECT_NE(ops_->transfer, nullptr);
    EXPECT_EQ(ops_->read, nullptr);
    EXPECT_EQ(ops_->write, nullptr);
}

TEST_F(FallbackPlugin, EntryLowersANewerCoreMinorToItsOwn)
{
    const hf_backend_ops *ops = nullptr;
    uint32_t minor = HF_BACKEND_ABI_MINOR + 5;
    ASSERT_EQ(Plugin().entry(&host_, &minor, &ops), 0);
    EXPECT_EQ(minor, HF_BACKEND_ABI_MINOR);
    EXPECT_EQ(ops, ops_);
}

TEST_F(FallbackPlugin, OpsTableDeclaresEveryKeyOfTheGroup)
{
    ASSERT_EQ(ops_->setting_count, 15u);
    std::set<std::string> keys;
    for (unsigned i = 0; i < ops_->setting_count; i++)
        keys.insert(ops_->settings[i].key);
    EXPECT_EQ(keys, (std::set<std::string>{"chunk_size_kb", "staging_slots_per_device",
                                           "split_threshold_kb", "inline_max_kb", "tail_window_kb",
                                           "direct_io", "bounce_host_accessible", "pipeline_reads",
                                           "pipeline_max_kb", "pipeline_piece_kb",
                                           "pipeline_block_kb", "streaming_stores", "mapped_reads",
                                           "mapped_min_kb", "mapped_block_kb"}));
}

TEST_F(FallbackPlugin, EntryRefusesACoreOlderThanMinorFive)
{
    const hf_backend_ops *ops = nullptr;
    uint32_t minor = 4;
    host_.abi_minor = 4;
    EXPECT_EQ(Plugin().entry(&host_, &minor, &ops), -EINVAL);
    EXPECT_EQ(ops, nullptr);
}

TEST_F(FallbackPlugin, EntryRejectsNullArguments)
{
    const hf_backend_ops *ops = nullptr;
    uint32_t minor = HF_BACKEND_ABI_MINOR;
    EXPECT_EQ(Plugin().entry(&host_, nullptr, &ops), -EINVAL);
    EXPECT_EQ(Plugin().entry(&host_, &minor, nullptr), -EINVAL);
}

TEST_F(FallbackPlugin, OnlyTheEntrySymbolIsExported)
{
    void *handle = Plugin().handle;
    EXPECT_NE(dlsym(handle, HF_BACKEND_ENTRY_SYMBOL), nullptr);
    for (const char *name :
         {"fallback_transfer", "fallback_ops", "hfp_staging_pool_create", "hfp_staging_pool_take",
          "fallback_serve", "fallback_piece_run", "fallback_staged_run", "fallback_posix_read",
          "fallback_fs_read", "fallback_settings_read"})
        EXPECT_EQ(dlsym(handle, name), nullptr) << name << " is exported";
}

TEST_F(FallbackPlugin, ProbeSaysUsableEverywhere)
{
    Init();
    EXPECT_EQ(ops_->probe(backend_), 0);
}

TEST_F(FallbackPlugin, InitRejectsAHostWithoutGpuTable)
{
    host_.gpu = nullptr;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_EQ(backend, nullptr);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, InitRejectsAHostWithoutSystemCalls)
{
    host_.sys = nullptr;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, InitRejectsACoreOlderThanMinorFive)
{
    host_.abi_minor = 4;
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

TEST_F(FallbackPlugin, InitRejectsAnOlderSmallerHostTable)
{
    host_.struct_size = offsetof(hf_host_api, gpu);
    void *backend = nullptr;
    EXPECT_EQ(ops_->init(&host_, &backend), -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "host table"));
}

// ---------------------------------------------------------------------------------------------
// Scoring.

TEST_F(FallbackPlugin, ScoresLowButPositiveForEveryAddressableMemoryKind)
{
    Init();
    File f = OpenPatternFile("score", 4096, 1);
    for (const MemKind &kind : {kDevice, kDeviceCoherent, kHostPinned, kPageable, kManaged}) {
        Buffer b(4096, kind);
        const char *reason = nullptr;
        int score = Score(f, b.Info(), &reason);
        EXPECT_GT(score, 0) << kind.name;
        EXPECT_LT(score, 100) << kind.name << ": a direct path should outscore the fallback";
        ASSERT_NE(reason, nullptr);
        EXPECT_EQ(std::string(reason).find("staging") != std::string::npos, kind.bounces)
            << kind.name << ": " << reason;
    }
}

TEST_F(FallbackPlugin, ScoreReasonSaysStagingWhenHostAccessibleDeviceMemoryIsBounced)
{
    SetConfigBool("bounce_host_accessible", true);
    Init();
    File f = OpenPatternFile("score-bounce", 4096, 1);
    Buffer b(4096, kDeviceCoherent);
    const char *reason = nullptr;
    EXPECT_GT(Score(f, b.Info(), &reason), 0);
    ASSERT_NE(reason, nullptr);
    EXPECT_NE(std::string(reason).find("staging"), std::string::npos) << reason;
}

TEST_F(FallbackPlugin, ScoreRefusesAFileWithoutDescriptor)
{
    Init();
    File f;
    f.fd = -1;
    Buffer b(4096, kHostPinned);
    const char *reason = nullptr;
    EXPECT_LT(Score(f, b.Info(), &reason), 0);
    ASSERT_NE(reason, nullptr);
    EXPECT_NE(std::string(reason).find("descriptor"), std::string::npos) << reason;
}

TEST_F(FallbackPlugin, ScoreAcceptsANullReasonPointer)
{
    Init();
    File f = OpenPatternFile("score-null", 4096, 1);
    Buffer b(4096, kDevice);
    EXPECT_GT(Score(f, b.Info(), nullptr), 0);
}

// ---------------------------------------------------------------------------------------------
// Reads and writes at random sizes, offsets and alignments, for every kind of memory.

class FallbackRandomIo : public FallbackPlugin, public ::testing::WithParamInterface<MemKind>
{
};

// Sizes from nothing to a few MiB, biased towards the awkward small and unaligned ones.
size_t RandomSize(std::mt19937_64 &rng, size_t max)
{
    switch (rng() % 5) {
    case 0:
        return rng() % 4;
    case 1:
        return rng() % 600;
    case 2:
        return 4096 * (1 + rng() % 8) + (rng() % 2 ? 0 : rng() % 7);
    case 3:
        return rng() % (128 * kKiB);
    default:
        return rng() % max;
    }
}

TEST_P(FallbackRandomIo, RandomReadsReturnExactlyTheFileBytes)
{
    const MemKind &kind = GetParam();
    InitSplitting();
    const uint64_t file_size = 3 * kMiB + 123;
    const uint32_t seed = 11;
    File f = OpenPatternFile(std::string("random-read-") + kind.name, file_size, seed);
    std::mt19937_64 rng(20261202);
    for (int i = 0; i < 40; i++) {
        size_t size = RandomSize(rng, file_size + 8 * kKiB);
        uint64_t file_offset = rng() % (file_size + 8 * kKiB);
        if (rng() % 4 == 0)
            file_offset = hfp_align_down(file_offset, 4096);
        size_t buf_offset = rng() % 3 == 0 ? 0 : rng() % 8192;
        Buffer b(buf_offset + size + rng() % 100, kind);
        size_t expected =
            file_offset >= file_size ? 0 : std::min<uint64_t>(size, file_size - file_offset);
        SCOPED_TRACE(testing::Message() << "iteration " << i << ": " << size << " bytes at "
                                        << file_offset << " into offset " << buf_offset);

        ssize_t n =
            Read(f, b, static_cast<int64_t>(buf_offset), size, static_cast<int64_t>(file_offset));

        ASSERT_EQ(n, static_cast<ssize_t>(expected));
        ASSERT_EQ(hf_test_pattern_check(b.data() + buf_offset, expected, file_offset, seed), -1);
        ASSERT_TRUE(b.UntouchedOutside(buf_offset, buf_offset + expected));
    }
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    if (kind.bounces) {
        EXPECT_GT(fake_->memcpy_calls, 0);
        EXPECT_EQ(fake_->copies_without_pinned, 0);
        EXPECT_LE(fake_->pinned_live_max, 4 * 2) << "4 slots of 2 buffers";
    } else {
        EXPECT_EQ(fake_->memcpy_calls, 0);
        EXPECT_EQ(fake_->alloc_calls, 0);
    }
}

TEST_P(FallbackRandomIo, RandomWritesReadBackExactly)
{
    const MemKind &kind = GetParam();
    InitSplitting();
    const uint64_t initial_size = kMiB + 77;
    File f = OpenPatternFile(std::string("random-write-") + kind.name, initial_size, 5);
    std::vector<uint8_t> expected_file(initial_size);
    hf_test_pattern_fill(expected_file.data(), initial_size, 0, 5);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 30; i++) {
        size_t size = RandomSize(rng, 1536 * kKiB);
        // Up to 64 KiB past the end: the gap reads back as zeros.
        uint64_t file_offset = rng() % (expected_file.size() + 64 * kKiB);
        size_t buf_offset = rng() % 3 == 0 ? 0 : rng() % 8192;
        uint32_t seed = 100 + static_cast<uint32_t>(i);
        Buffer b(buf_offset + size + rng() % 100, kind);
        hf_test_pattern_fill(b.data() + buf_offset, size, file_offset, seed);
        SCOPED_TRACE(testing::Message() << "iteration " << i << ": " << size << " bytes at "
                                        << file_offset << " from offset " << buf_offset);

        ssize_t n =
            Write(f, b, static_cast<int64_t>(buf_offset), size, static_cast<int64_t>(file_offset));

        ASSERT_EQ(n, static_cast<ssize_t>(size));
        if (size > 0 && file_offset + size > expected_file.size())
            expected_file.resize(file_offset + size, 0);
        hf_test_pattern_fill(expected_file.data() + file_offset, size, file_offset, seed);
    }
    EXPECT_TRUE(ReadWholeFile(f.fd) == expected_file);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    EXPECT_EQ(fake_->memcpy_calls > 0, kind.bounces);
    EXPECT_GT(fake_->parallel_runs, 0) << "the larger requests were split";
}

INSTANTIATE_TEST_SUITE_P(MemoryKinds, FallbackRandomIo,
                         ::testing::Values(kDevice, kDeviceCoherent, kHostPinned, kPageable,
                                           kManaged),
                         [](const ::testing::TestParamInfo<MemKind> &info) {
                             return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------------------------
// End of file and holes.

TEST_F(FallbackPlugin, ReadPastEofReturnsZero)
{
    InitSmallPool(4);
    File f = OpenPatternFile("past-eof", 10000, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Read(f, b, 0, 4096, 10000), 0) << kind.name;
        EXPECT_EQ(Read(f, b, 0, 4096, int64_t{1} << 40), 0) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(0, 0)) << kind.name;
    }
}

TEST_F(FallbackPlugin, ReadStraddlingEofIsShort)
{
    InitSmallPool(4);
    File f = OpenPatternFile("straddle-eof", 10000, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Read(f, b, 100, 8000, 5000), 5000) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data() + 100, 5000, 5000, 3), -1) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(100, 5100)) << kind.name;
    }
}

TEST_F(FallbackPlugin, ReadEndingExactlyAtEofIsWhole)
{
    InitSmallPool(4);
    File f = OpenPatternFile("exact-eof", 3 * 4096, 3);
    Buffer b(3 * 4096, kDevice);
    EXPECT_EQ(Read(f, b, 0, 3 * 4096, 0), 3 * 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 3 * 4096, 0, 3), -1);
}

TEST_F(FallbackPlugin, ZeroSizeRequestsMoveNothing)
{
    Init();
    File f = OpenPatternFile("zero-size", 4096, 3);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(4096, kind);
        EXPECT_EQ(Read(f, b, 0, 0, 0), 0);
        EXPECT_EQ(Write(f, b, 0, 0, 0), 0);
        EXPECT_EQ(Read(f, b, 4096, 0, 0), 0) << "an empty range at the buffer's end";
    }
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_EQ(fake_->pwrite_faults.calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
}

TEST_F(FallbackPlugin, HolesReadAsZeros)
{
    InitSmallPool(4);
    File f = OpenPatternFile("holes", 0, 0);
    const size_t file_size = kMiB;
    ASSERT_EQ(ftruncate(f.fd, static_cast<off_t>(file_size)), 0);
    std::vector<uint8_t> island(1000);
    hf_test_pattern_fill(island.data(), island.size(), 300000, 9);
    ASSERT_EQ(pwrite(f.fd, island.data(), island.size(), 300000), 1000);
    std::vector<uint8_t> expected(file_size, 0);
    std::copy(island.begin(), island.end(), expected.begin() + 300000);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer whole(file_size, kind);
        ASSERT_EQ(Read(f, whole, 0, file_size, 0), static_cast<ssize_t>(file_size)) << kind.name;
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), whole.data())) << kind.name;

        Buffer in_hole(64 * kKiB, kind);
        ASSERT_EQ(Read(f, in_hole, 0, 64 * kKiB, 512 * kKiB), 64 * 1024) << kind.name;
        EXPECT_TRUE(std::all_of(in_hole.data(), in_hole.data() + 64 * kKiB, [](uint8_t byte) {
            return byte == 0;
        })) << kind.name;
    }
}

TEST_F(FallbackPlugin, WritePastEofLeavesAHoleOfZeros)
{
    InitSmallPool(4);
    File f = OpenPatternFile("write-hole", 4096, 4);
    Buffer b(8192, kDevice);
    hf_test_pattern_fill(b.data(), 8192, 0, 6);
    ASSERT_EQ(Write(f, b, 0, 8192, 100000), 8192);
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    ASSERT_EQ(contents.size(), 108192u);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), 4096, 0, 4), -1);
    EXPECT_TRUE(std::all_of(contents.begin() + 4096, contents.begin() + 100000,
                            [](uint8_t byte) { return byte == 0; }));
    EXPECT_EQ(hf_test_pattern_check(contents.data() + 100000, 8192, 0, 6), -1);
}

// ---------------------------------------------------------------------------------------------
// Which path serves which memory.

TEST_F(FallbackPlugin, HostMemoryIsReadWithoutAGpuCopy)
{
    InitSmallPool(4);
    File f = OpenPatternFile("host-path", 256 * kKiB, 2);
    for (const MemKind &kind : {kHostPinned, kPageable, kManaged}) {
        Buffer b(256 * kKiB, kind);
        ASSERT_EQ(Read(f, b, 0, 256 * kKiB, 0), 256 * 1024) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), 256 * kKiB, 0, 2), -1) << kind.name;
        ASSERT_EQ(Write(f, b, 0, 256 * kKiB, 0), 256 * 1024) << kind.name;
    }
    EXPECT_EQ(fake_->memcpy_calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_EQ(fake_->set_device_calls, 0);
}

TEST_F(FallbackPlugin, DeviceMemoryIsReadThroughOneStagingSlotOneChunkAtATime)
{
    InitSerial(4, 2);
    const size_t size = kMiB + 5;
    File f = OpenPatternFile("device-path", size, 2);
    Buffer b(size, kDevice);
    ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, static_cast<int>((size + 4095) / 4096));
    EXPECT_EQ(fake_->copies_without_pinned, 0);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    EXPECT_EQ(fake_->alloc_calls, 2) << "one slot: two pinned buffers, reused for every chunk";
    EXPECT_EQ(fake_->streams_created, 2) << "one slot: one stream per buffer";
    EXPECT_EQ(fake_->pinned_size, 4 * kKiB);
    EXPECT_EQ(fake_->parallel_runs, 0) << "served whole on the calling thread";
}

TEST_F(FallbackPlugin, DeviceMemoryIsWrittenThroughOneStagingSlotOneChunkAtATime)
{
    InitSerial(4, 2);
    const size_t size = 256 * kKiB + 5;
    File f = OpenPatternFile("device-write-path", 0, 0);
    Buffer b(size, kDevice);
    hf_test_pattern_fill(b.data(), size, 0, 6);
    ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size));
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    ASSERT_EQ(contents.size(), size);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), size, 0, 6), -1);
    EXPECT_EQ(fake_->memcpy_calls, static_cast<int>((size + 4095) / 4096));
    EXPECT_EQ(fake_->pwrite_faults.calls, static_cast<int>((size + 4095) / 4096));
    EXPECT_EQ(fake_->alloc_calls, 2);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
}

TEST_F(FallbackPlugin, DeviceMemoryTheCpuCanAddressIsMovedStraight)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-coherent", 64 * kKiB, 2);
    Buffer b(64 * kKiB, kDeviceCoherent);
    ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 2), -1);
    ASSERT_EQ(Write(f, b, 0, 64 * kKiB, 64 * kKiB), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data() + 64 * kKiB, 64 * kKiB, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_EQ(fake_->set_device_calls, 0);
}

TEST_F(FallbackPlugin, BounceHostAccessibleStagesDeviceMemoryTheCpuCanAddress)
{
    SetConfigBool("bounce_host_accessible", true);
    InitSerial(4);
    File f = OpenPatternFile("device-coherent-staged", 64 * kKiB, 2);
    MemKind staged = kDeviceCoherent;
    staged.bounces = true;
    Buffer b(64 * kKiB, staged);
    ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, 16);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "host-accessible device memory staged"));
}

TEST_F(FallbackPlugin, BounceHostAccessibleLeavesHostMemoryStraight)
{
    SetConfigBool("bounce_host_accessible", true);
    InitSerial(4);
    File f = OpenPatternFile("host-not-staged", 64 * kKiB, 2);
    for (const MemKind &kind : {kHostPinned, kPageable, kManaged}) {
        Buffer b(64 * kKiB, kind);
        ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024) << kind.name;
    }
    EXPECT_EQ(fake_->memcpy_calls, 0);
}

TEST_F(FallbackPlugin, HostMemoryTheCpuCannotAddressGoesThroughTheGpu)
{
    InitSmallPool(4);
    File f = OpenPatternFile("host-inaccessible", 64 * kKiB, 2);
    MemKind inaccessible = kHostPinned;
    inaccessible.host_accessible = false;
    inaccessible.bounces = true;
    Buffer b(64 * kKiB, inaccessible);
    ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 2), -1);
    EXPECT_EQ(fake_->memcpy_calls, 16);
    EXPECT_EQ(fake_->syscalls_on_device_memory, 0);
}

TEST_F(FallbackPlugin, CopiesRunOnTheBuffersDeviceAndTheCallersDeviceIsRestored)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-select", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    SetCurrentDevice(0);
    ASSERT_EQ(Read(f, b, 0, 16 * kKiB, 0), 16 * 1024);
    EXPECT_EQ(fake_->copy_device, 1);
    EXPECT_EQ(CurrentDevice(), 0);
    EXPECT_EQ(fake_->set_device_calls, 2);
    ASSERT_EQ(Write(f, b, 0, 16 * kKiB, 0), 16 * 1024);
    EXPECT_EQ(fake_->copy_device, 1);
    EXPECT_EQ(CurrentDevice(), 0);
}

TEST_F(FallbackPlugin, TheCurrentDeviceIsLeftAloneWhenItIsTheBuffers)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-current", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    SetCurrentDevice(1);
    ASSERT_EQ(Read(f, b, 0, 16 * kKiB, 0), 16 * 1024);
    EXPECT_EQ(fake_->set_device_calls, 0);
    EXPECT_EQ(CurrentDevice(), 1);
}

TEST_F(FallbackPlugin, SetDeviceFailureReturnsEgpuWithTheRuntimeCode)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-fail", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    fake_->set_device_fail_from = 0;
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 16 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeNoDevice);
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "GPU 1"));
}

TEST_F(FallbackPlugin, FailingToRestoreTheCallersDeviceOnlyWarns)
{
    InitSmallPool(4);
    File f = OpenPatternFile("device-restore-fail", 16 * kKiB, 2);
    MemKind second_gpu = kDevice;
    second_gpu.device = 1;
    Buffer b(16 * kKiB, second_gpu);
    fake_->set_device_fail_from = 1;
    ASSERT_EQ(Read(f, b, 0, 16 * kKiB, 0), 16 * 1024) << "the data did move";
    EXPECT_EQ(hf_test_pattern_check(b.data(), 16 * kKiB, 0, 2), -1);
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "GPU 0"));
}

// ---------------------------------------------------------------------------------------------
// System call faults.

TEST_F(FallbackPlugin, EintrIsRetried)
{
    InitSmallPool(4);
    File f = OpenPatternFile("eintr", 64 * kKiB, 8);
    fake_->pread_faults.eintr_every = 2;
    fake_->pwrite_faults.eintr_every = 2;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(64 * kKiB, kind);
        ASSERT_EQ(Read(f, b, 0, 64 * kKiB, 0), 64 * 1024) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), 64 * kKiB, 0, 8), -1) << kind.name;
        ASSERT_EQ(Write(f, b, 0, 64 * kKiB, 0), 64 * 1024) << kind.name;
    }
    EXPECT_GT(fake_->pread_faults.eintr_seen, 0);
    EXPECT_GT(fake_->pwrite_faults.eintr_seen, 0);
    EXPECT_EQ(hf_test_pattern_check(ReadWholeFile(f.fd).data(), 64 * kKiB, 0, 8), -1);
}

TEST_F(FallbackPlugin, EioBeforeAnyByteReturnsEio)
{
    InitSmallPool(4);
    File f = OpenPatternFile("eio-first", 64 * kKiB, 8);
    fake_->pread_faults.fail_from = 0;
    fake_->pread_faults.fail_errno = EIO;
    fake_->pwrite_faults.fail_from = 0;
    fake_->pwrite_faults.fail_errno = EIO;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(64 * kKiB, kind);
        EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0), -EIO) << kind.name;
        EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), -EIO) << kind.name;
    }
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "pread"));
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "pwrite"));
}

TEST_F(FallbackPlugin, ErrnoOtherThanEioIsPassedOn)
{
    InitSmallPool(4);
    File f = OpenPatternFile("enospc", 64 * kKiB, 8);
    fake_->pwrite_faults.fail_from = 0;
    fake_->pwrite_faults.fail_errno = ENOSPC;
    Buffer b(64 * kKiB, kDevice);
    EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), -ENOSPC);
}

TEST_F(FallbackPlugin, ReadErrorAfterSomeBytesReturnsTheShortCount)
{
    InitSmallPool(12);
    File f = OpenPatternFile("eio-later-read", 64 * kKiB, 8);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        fake_->pread_faults.calls = 0;
        fake_->pread_faults.max_bytes = 5000;
        fake_->pread_faults.fail_from = 1;
        fake_->pread_faults.fail_errno = EIO;
        Buffer b(64 * kKiB, kind);
        EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0), 5000) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), 5000, 0, 8), -1) << kind.name;
    }
}

TEST_F(FallbackPlugin, ReadErrorInALaterChunkReturnsTheChunksBefore)
{
    InitSmallPool(4);
    File f = OpenPatternFile("eio-later-chunk", 64 * kKiB, 8);
    fake_->pread_faults.fail_from = 3;
    fake_->pread_faults.fail_errno = EIO;
    Buffer b(64 * kKiB, kDevice);
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0), 3 * 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 3 * 4096, 0, 8), -1);
}

TEST_F(FallbackPlugin, WriteErrorAfterSomeBytesReturnsTheShortCount)
{
    InitSmallPool(12);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        File f = OpenPatternFile(std::string("eio-later-write-") + kind.name, 64 * kKiB, 8);
        fake_->pwrite_faults.calls = 0;
        fake_->pwrite_faults.max_bytes = 5000;
        fake_->pwrite_faults.fail_from = 1;
        fake_->pwrite_faults.fail_errno = EIO;
        Buffer b(64 * kKiB, kind);
        hf_test_pattern_fill(b.data(), 64 * kKiB, 0, 9);
        EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), 5000) << kind.name;
        std::vector<uint8_t> contents = ReadWholeFile(f.fd);
        EXPECT_EQ(hf_test_pattern_check(contents.data(), 5000, 0, 9), -1) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(contents.data() + 5000, 64 * kKiB - 5000, 5000, 8), -1)
            << kind.name;
    }
}

TEST_F(FallbackPlugin, ShortPreadsAreContinued)
{
    InitSmallPool(12);
    const size_t size = 100000;
    File f = OpenPatternFile("short-pread", size, 8);
    fake_->pread_faults.max_bytes = 777;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        fake_->pread_faults.calls = 0;
        Buffer b(size, kind);
        ASSERT_EQ(Read(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
        EXPECT_EQ(hf_test_pattern_check(b.data(), size, 0, 8), -1) << kind.name;
        EXPECT_GE(fake_->pread_faults.calls, static_cast<int>(size / 777)) << kind.name;
    }
}

TEST_F(FallbackPlugin, ShortPwritesAreContinued)
{
    InitSmallPool(12);
    const size_t size = 100000;
    fake_->pwrite_faults.max_bytes = 777;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        File f = OpenPatternFile(std::string("short-pwrite-") + kind.name, 0, 0);
        fake_->pwrite_faults.calls = 0;
        Buffer b(size, kind);
        hf_test_pattern_fill(b.data(), size, 0, 12);
        ASSERT_EQ(Write(f, b, 0, size, 0), static_cast<ssize_t>(size)) << kind.name;
        std::vector<uint8_t> contents = ReadWholeFile(f.fd);
        ASSERT_EQ(contents.size(), size);
        EXPECT_EQ(hf_test_pattern_check(contents.data(), size, 0, 12), -1) << kind.name;
        EXPECT_GE(fake_->pwrite_faults.calls, static_cast<int>(size / 777)) << kind.name;
    }
}

TEST_F(FallbackPlugin, PwriteThatMakesNoProgressReturnsEio)
{
    InitSmallPool(4);
    File f = OpenPatternFile("pwrite-zero", 8192, 8);
    fake_->pwrite_faults.zero_from = 0;
    Buffer b(8192, kHostPinned);
    EXPECT_EQ(Write(f, b, 0, 8192, 0), -EIO);
    fake_->pwrite_faults.calls = 0;
    fake_->pwrite_faults.zero_from = 1;
    fake_->pwrite_faults.max_bytes = 100;
    EXPECT_EQ(Write(f, b, 0, 8192, 0), 100);
}

TEST_F(FallbackPlugin, SystemCallClaimingMoreThanAskedIsAnIoError)
{
    InitSmallPool(4);
    File f = OpenPatternFile("overstate", 8192, 8);
    fake_->pread_faults.overstate = true;
    fake_->pwrite_faults.overstate = true;
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Read(f, b, 0, 8192, 0), -EIO) << kind.name;
        EXPECT_EQ(Write(f, b, 0, 8192, 0), -EIO) << kind.name;
        EXPECT_TRUE(b.UntouchedOutside(0, 0)) << kind.name;
    }
}

// ---------------------------------------------------------------------------------------------
// Access modes and bad requests.

TEST_F(FallbackPlugin, WriteToReadOnlyFileReturnsEbadf)
{
    Init();
    File f = OpenPatternFile("read-only", 8192, 8, O_RDONLY);
    for (const MemKind &kind : {kDevice, kHostPinned}) {
        Buffer b(8192, kind);
        EXPECT_EQ(Write(f, b, 0, 8192, 0), -EBADF) << kind.name;
    }
    EXPECT_EQ(fake_->pwrite_faults.calls, 0);
    EXPECT_EQ(fake_->alloc_calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "read-only"));
}

TEST_F(FallbackPlugin, ReadFromWriteOnlyFileReturnsEbadf)
{
    Init();
    File f = OpenPatternFile("write-only", 8192, 8, O_WRONLY);
    Buffer b(8192, kDevice);
    EXPECT_EQ(Read(f, b, 0, 8192, 0), -EBADF);
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "write-only"));
}

TEST_F(FallbackPlugin, WriteToAppendModeFileIsRejected)
{
    Init();
    File f = OpenPatternFile("append", 8192, 8, O_RDWR | O_APPEND);
    Buffer b(4096, kHostPinned);
    EXPECT_EQ(Write(f, b, 0, 4096, 0), -EINVAL);
    EXPECT_EQ(fake_->pwrite_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "O_APPEND"));
    EXPECT_EQ(Read(f, b, 0, 4096, 0), 4096) << "reads from an append-mode file are fine";
}

TEST_F(FallbackPlugin, NegativeOffsetsAreRejected)
{
    Init();
    File f = OpenPatternFile("negative", 8192, 8);
    Buffer b(8192, kDevice);
    EXPECT_EQ(Read(f, b, 0, 4096, -1), -EINVAL);
    EXPECT_EQ(Read(f, b, -1, 4096, 0), -EINVAL);
    EXPECT_EQ(Write(f, b, 0, 4096, -4096), -EINVAL);
    EXPECT_EQ(fake_->pread_faults.calls + fake_->pwrite_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "negative offset"));
}

TEST_F(FallbackPlugin, RangesPastTheBufferAreRejected)
{
    Init();
    File f = OpenPatternFile("past-buffer", 8192, 8);
    Buffer b(4096, kHostPinned);
    EXPECT_EQ(Read(f, b, 0, 4097, 0), -EINVAL);
    EXPECT_EQ(Read(f, b, 4000, 97, 0), -EINVAL);
    EXPECT_EQ(Write(f, b, 4097, 0, 0), -EINVAL);
    EXPECT_EQ(Read(f, b, 0, SIZE_MAX, 0), -EINVAL);
    EXPECT_EQ(Read(f, b, 0, 4096, INT64_MAX - 100), -EINVAL) << "the file offset would overflow";
    EXPECT_EQ(fake_->pread_faults.calls + fake_->pwrite_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "past the end of the buffer"));
}

TEST_F(FallbackPlugin, ArrayMemoryIsRejected)
{
    Init();
    File f = OpenPatternFile("array", 8192, 8);
    Buffer b(4096, kDevice);
    hf_file_info file;
    hf_buf_info buf = b.Info();
    buf.mem_type = HF_MEM_ARRAY;
    hf_io_request req = Request(HF_IO_READ, f, &file, &buf, 0, 4096, 0, nullptr);
    EXPECT_EQ(ops_->transfer(backend_, &req), -EINVAL);
    req.op = HF_IO_WRITE;
    EXPECT_EQ(ops_->transfer(backend_, &req), -EINVAL);
    EXPECT_EQ(fake_->pread_faults.calls + fake_->pwrite_faults.calls, 0);
}

// ---------------------------------------------------------------------------------------------
// GPU runtime failures.

TEST_F(FallbackPlugin, GpuCopyFailureReturnsEgpuWithTheRuntimeCode)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-fail", 64 * kKiB, 8);
    fake_->memcpy_fail_from = 0;
    Buffer b(64 * kKiB, kDevice);
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeCopyFailure);
    gpu_error = 0;
    EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeCopyFailure);
    EXPECT_EQ(fake_->pwrite_faults.calls, 0) << "nothing reaches the file when the copy fails";
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "fakeFailure"));
}

TEST_F(FallbackPlugin, GpuCopyFailureAfterSomeChunksReturnsTheShortCount)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-fail-later", 64 * kKiB, 8);
    fake_->memcpy_fail_from = 2;
    Buffer b(64 * kKiB, kDevice);
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 64 * kKiB, 0, &gpu_error), 2 * 4096);
    EXPECT_EQ(hf_test_pattern_check(b.data(), 2 * 4096, 0, 8), -1);
    EXPECT_EQ(gpu_error, 0) << "a short count carries no error code";

    fake_->memcpy_calls = 0;
    hf_test_pattern_fill(b.data(), 64 * kKiB, 0, 10);
    EXPECT_EQ(Write(f, b, 0, 64 * kKiB, 0), 2 * 4096);
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), 2 * 4096, 0, 10), -1);
    EXPECT_EQ(hf_test_pattern_check(contents.data() + 8192, 64 * kKiB - 8192, 8192, 8), -1);
}

TEST_F(FallbackPlugin, GpuCopyFailureWithoutAnErrorPointerStillFails)
{
    InitSmallPool(4);
    File f = OpenPatternFile("gpu-fail-null", 8192, 8);
    fake_->memcpy_fail_from = 0;
    Buffer b(8192, kDevice);
    EXPECT_EQ(Read(f, b, 0, 8192, 0, nullptr), -HF_EGPU);
}

TEST_F(FallbackPlugin, PinningFailureReturnsEgpuWithTheRuntimeCode)
{
    InitSmallPool(4);
    File f = OpenPatternFile("pin-fail", 8192, 8);
    fake_->alloc_fail_from = 0;
    Buffer b(8192, kDevice);
    int gpu_error = 0;
    EXPECT_EQ(Read(f, b, 0, 8192, 0, &gpu_error), -HF_EGPU);
    EXPECT_EQ(gpu_error, kFakeOutOfMemory);
    EXPECT_EQ(fake_->pread_faults.calls, 0);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "cannot pin"));

    fake_->alloc_fail_from = -1;
    EXPECT_EQ(Read(f, b, 0, 8192, 0), 8192) << "a later request pins again";
}

// ---------------------------------------------------------------------------------------------
// Many threads at once.

TEST_F(FallbackPlugin, ConcurrentRequestsStayCorrectAndTheBoundedPoolIsShared)
{
    InitSmallPool(4, 2);
    const size_t region = 192 * kKiB + 13;
    const int threads = 8;
    File shared = OpenPatternFile("concurrent-read", 2 * kMiB, 21);
    File out = OpenPatternFile("concurrent-write", threads * region, 22);
    std::atomic<int> failures{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; t++) {
        workers.emplace_back([&, t] {
            std::mt19937_64 rng(static_cast<uint64_t>(t));
            const MemKind &kind = t % 2 == 0 ? kDevice : kHostPinned;
            for (int i = 0; i < 6; i++) {
                size_t size = 1 + rng() % (300 * kKiB);
                uint64_t offset = rng() % (2 * kMiB - size);
                Buffer b(size + 7, kind);
                if (Read(shared, b, 7, size, static_cast<int64_t>(offset)) !=
                        static_cast<ssize_t>(size) ||
                    hf_test_pattern_check(b.data() + 7, size, offset, 21) != -1)
                    failures++;
            }
            Buffer w(region, kind);
            uint64_t at = static_cast<uint64_t>(t) * region;
            hf_test_pattern_fill(w.data(), region, at, 30);
            if (Write(out, w, 0, region, static_cast<int64_t>(at)) != static_cast<ssize_t>(region))
                failures++;
        });
    }
    for (std::thread &w : workers)
        w.join();
    EXPECT_EQ(failures, 0);
    std::vector<uint8_t> contents = ReadWholeFile(out.fd);
    ASSERT_EQ(contents.size(), threads * region);
    EXPECT_EQ(hf_test_pattern_check(contents.data(), contents.size(), 0, 30), -1);
    EXPECT_LE(fake_->pinned_live_max, 2 * 2) << "two slots of two buffers";
    EXPECT_LE(fake_->alloc_calls, 2 * 2);
    EXPECT_EQ(fake_->copies_without_pinned, 0);
}

// ---------------------------------------------------------------------------------------------
// Configuration.

TEST_F(FallbackPlugin, DefaultsAreFourMibChunksAndSixteenSlots)
{
    Init();
    File f = OpenPatternFile("defaults", 8192, 8);
    Buffer b(8192, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->pinned_size, kDefaultChunkSize);
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "chunks of 4096 KiB; up to 16 staging slots per GPU"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "requests over 1024 KiB split into pieces of at least 1024"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "O_DIRECT reads auto"));
}

TEST_F(FallbackPlugin, ConfiguredChunkSizeIsUsed)
{
    SetConfig("chunk_size_kb", 12);
    Init();
    File f = OpenPatternFile("configured-size", 8192, 8);
    Buffer b(8192, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->pinned_size, 12 * kKiB);
}

TEST_F(FallbackPlugin, ConfiguredSlotCountBoundsThePool)
{
    InitSmallPool(4, 1);
    File f = OpenPatternFile("configured-count", 256 * kKiB, 8);
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; t++) {
        workers.emplace_back([&] {
            Buffer b(256 * kKiB, kDevice);
            if (Read(f, b, 0, 256 * kKiB, 0) != 256 * 1024 ||
                hf_test_pattern_check(b.data(), 256 * kKiB, 0, 8) != -1)
                failures++;
        });
    }
    for (std::thread &w : workers)
        w.join();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(fake_->alloc_calls, 2) << "one slot of two buffers, shared by four threads";
    EXPECT_EQ(fake_->streams_created, 2);
}

// A bad value for an integer key: (config_int result, value), and the key.
struct BadInteger {
    const char *key;
    int result;
    int64_t value;
};

class FallbackBadInteger : public FallbackPlugin, public ::testing::WithParamInterface<BadInteger>
{
};

TEST_P(FallbackBadInteger, IsLoggedAndReplacedByTheDefault)
{
    const BadInteger &bad = GetParam();
    fake_->config[bad.key] = {bad.result, bad.value};
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_WARN, bad.key));
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "using the default"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "chunks of 4096 KiB; up to 16 staging slots per GPU"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "requests over 1024 KiB split into pieces of at least 1024"));
    File f = OpenPatternFile("bad-integer", 8192, 8);
    Buffer b(8192, kDevice);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->pinned_size, kDefaultChunkSize);
}

INSTANTIATE_TEST_SUITE_P(
    Values, FallbackBadInteger,
    ::testing::Values(
        BadInteger{"chunk_size_kb", 0, -4}, BadInteger{"chunk_size_kb", 0, 6},
        BadInteger{"chunk_size_kb", 0, 1024 * 1024 + 4},
        BadInteger{"chunk_size_kb", 0, int64_t{1} << 40}, BadInteger{"chunk_size_kb", -EINVAL, 0},
        BadInteger{"staging_slots_per_device", 0, 0}, BadInteger{"staging_slots_per_device", 0, -1},
        BadInteger{"staging_slots_per_device", 0, 1025},
        BadInteger{"staging_slots_per_device", -EINVAL, 0}, BadInteger{"split_threshold_kb", 0, 10},
        BadInteger{"split_threshold_kb", 0, 2 * 1024 * 1024},
        BadInteger{"split_threshold_kb", -EINVAL, 0}, BadInteger{"inline_max_kb", 0, -1},
        BadInteger{"inline_max_kb", 0, 2 * 1024 * 1024}, BadInteger{"inline_max_kb", -EINVAL, 0}),
    [](const ::testing::TestParamInfo<BadInteger> &info) {
        return std::string(info.param.key) + "_" + std::to_string(info.index);
    });

// 0 is the declared default of both keys: it follows the core's per_buffer_cache_size_kb and
// min_io_threshold_size_kb, whether the key is unset or the core answers it with the default.
TEST_F(FallbackPlugin, ZeroChunkSizeAndSplitThresholdFollowTheCore)
{
    SetConfig("chunk_size_kb", 0);
    SetConfig("split_threshold_kb", 0);
    Init();
    EXPECT_FALSE(LogHas(HF_LOG_WARN, "using the default"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "chunks of 4096 KiB; up to 16 staging slots per GPU"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "requests over 1024 KiB split into pieces of at least 1024"));
}

TEST_F(FallbackPlugin, BadDirectIoValueIsLoggedAndAutoUsed)
{
    SetConfigText("direct_io", "sometimes");
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "direct_io must be \"auto\", \"always\" or \"never\""));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "O_DIRECT reads auto"));
}

TEST_F(FallbackPlugin, DirectIoOfAnotherTypeIsLoggedAndAutoUsed)
{
    fake_->config_texts["direct_io"] = {-EINVAL, ""};
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "direct_io must be"));
    EXPECT_TRUE(LogHas(HF_LOG_INFO, "O_DIRECT reads auto"));
}

TEST_F(FallbackPlugin, DirectIoNamesAreAccepted)
{
    for (const char *name : {"auto", "always", "never"}) {
        SetConfigText("direct_io", name);
        Init();
        EXPECT_TRUE(LogHas(HF_LOG_INFO, std::string("O_DIRECT reads ") + name)) << name;
        EXPECT_FALSE(LogHas(HF_LOG_WARN, "direct_io")) << name;
        Fini();
    }
}

TEST_F(FallbackPlugin, BounceHostAccessibleOfAnotherTypeIsLoggedAndFalseUsed)
{
    fake_->config_bools["bounce_host_accessible"] = {-EINVAL, false};
    Init();
    EXPECT_TRUE(LogHas(HF_LOG_WARN, "bounce_host_accessible is not true or false"));
    File f = OpenPatternFile("bad-bool", 8192, 8);
    Buffer b(8192, kDeviceCoherent);
    ASSERT_EQ(Read(f, b, 0, 8192, 0), 8192);
    EXPECT_EQ(fake_->memcpy_calls, 0) << "host-accessible device memory is moved straight";
}

TEST(PluginAlign, RoundsToPowerOfTwoGranules)
{
    EXPECT_TRUE(hfp_align_is_pow2(4096));
    EXPECT_FALSE(hfp_align_is_pow2(0));
    EXPECT_FALSE(hfp_align_is_pow2(12288));
    EXPECT_EQ(hfp_align_down(12345, 4096), 12288u);
    EXPECT_EQ(hfp_align_up(12345, 4096), 16384u);
    EXPECT_EQ(hfp_align_up(8192, 4096), 8192u);
    EXPECT_EQ(hfp_align_down(8192, 4096), 8192u);
    EXPECT_TRUE(hfp_align_is_aligned(1u << 20, 512));
    EXPECT_FALSE(hfp_align_is_aligned(1000, 512));
    alignas(64) char bytes[128];
    EXPECT_TRUE(hfp_align_ptr_is_aligned(bytes, 64));
    EXPECT_FALSE(hfp_align_ptr_is_aligned(bytes + 1, 2));
}

} // namespace
