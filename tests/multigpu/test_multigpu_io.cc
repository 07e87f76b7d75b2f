// Reads, writes, stream-ordered and batch I/O into buffers on every device through the public API:
// each lands on the right device, byte for byte, and the caller's current device is what it was.
// Run once per backend variant (HIPFILE_TEST_BACKEND): "fastpath" (its coherent engine serves the
// host runtime's device memory, the fallback beside it for the rest) and "fallback-bounce" (the
// fallback alone, staging device memory through each device's pool).
#include "multigpu_test.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace multigpu_test;

namespace
{

constexpr size_t kKiB = 1024;
constexpr size_t kPiece = 1024 * kKiB; // one request: split into several pieces or lanes

class BackendEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        const char *backend = getenv("HIPFILE_TEST_BACKEND");
        std::string variant = backend != nullptr ? backend : "fallback-bounce";
        // Small chunks and split sizes, so a 1 MiB request runs on several threads at once.
        std::string common = "execution = { max_io_threads = 4; min_io_threshold_size_kb = 64; };\n"
                             "fallback = { chunk_size_kb = 64; split_threshold_kb = 64;\n"
                             "             inline_max_kb = 64; staging_slots_per_device = 2;\n";
        if (variant == "fastpath")
            UseConfig("multigpu.conf",
                      "enable = [\"fastpath\", \"fallback\"]; };\n" + common + "};\n");
        else
            UseConfig("multigpu.conf", "enable = [\"fallback\"]; };\n" + common +
                                           "             bounce_host_accessible = true; };\n");
    }
};

[[maybe_unused]] const ::testing::Environment *const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new BackendEnvironment);

class MultiGpuIo : public MultiGpuTest
{
};

} // namespace

TEST_F(MultiGpuIo, RegisteredBuffersCountOnTheirOwnDevice)
{
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    hipFileStatsLevel3_t before = StatsNow();
    for (int d = 0; d < devices_; d++) {
        // A different size per device, so each device's count can only come from its own buffer.
        buffers.emplace_back(new DeviceBuffer(d, (static_cast<size_t>(d) + 1) * 64 * kKiB));
        ASSERT_EQ(hipFileBufRegister(buffers[d]->get(), buffers[d]->size(), 0).err, hipFileSuccess);
    }
    EXPECT_EQ(CurrentDevice(), 0);
    hipFileStatsLevel3_t registered = StatsNow();
    for (int d = 0; d < devices_; d++) {
        EXPECT_EQ(registered.per_gpu_stats[d].reg_bytes - before.per_gpu_stats[d].reg_bytes,
                  buffers[d]->size())
            << "GPU " << d;
        EXPECT_EQ(registered.per_gpu_stats[d].n_mmap_ok - before.per_gpu_stats[d].n_mmap_ok, 1u)
            << "GPU " << d;
    }
    for (int d = 0; d < devices_; d++)
        ASSERT_EQ(hipFileBufDeregister(buffers[d]->get()).err, hipFileSuccess);
    hipFileStatsLevel3_t after = StatsNow();
    for (int d = 0; d < devices_; d++)
        EXPECT_EQ(after.per_gpu_stats[d].reg_bytes, before.per_gpu_stats[d].reg_bytes);
}

TEST_F(MultiGpuIo, ReadsIntoEveryDeviceLeaveTheCurrentDeviceAlone)
{
    RegisteredFile file("reads", kPiece * static_cast<size_t>(devices_), 11);
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    for (int d = 0; d < devices_; d++)
        buffers.emplace_back(new DeviceBuffer(d, kPiece));
    // Registered buffers on even devices, unregistered pointers on odd ones.
    for (int d = 0; d < devices_; d += 2)
        ASSERT_EQ(hipFileBufRegister(buffers[d]->get(), kPiece, 0).err, hipFileSuccess);
    for (int current = 0; current < devices_; current++) {
        ASSERT_EQ(hipSetDevice(current), hipSuccess);
        hipFileStatsLevel3_t before = StatsNow();
        for (int d = 0; d < devices_; d++) {
            uint64_t offset = kPiece * static_cast<uint64_t>((d + current) % devices_);
            ASSERT_EQ(hipMemset(buffers[d]->get(), 0, kPiece), hipSuccess);
            ASSERT_EQ(hipFileRead(file.handle(), buffers[d]->get(), kPiece,
                                  static_cast<hoff_t>(offset), 0),
                      static_cast<ssize_t>(kPiece))
                << "into GPU " << d << " with GPU " << current << " current";
            EXPECT_EQ(CurrentDevice(), current) << "after a read into GPU " << d;
            EXPECT_EQ(buffers[d]->Check(offset, 11), -1) << "GPU " << d;
        }
        hipFileStatsLevel3_t after = StatsNow();
        for (int d = 0; d < devices_; d++)
            EXPECT_EQ(after.per_gpu_stats[d].read_bytes - before.per_gpu_stats[d].read_bytes,
                      kPiece)
                << "GPU " << d << " with GPU " << current << " current";
    }
}

TEST_F(MultiGpuIo, WritesFromEveryDeviceLeaveTheCurrentDeviceAlone)
{
    RegisteredFile file("writes", 0, 0);
    const int current = devices_ - 1;
    ASSERT_EQ(hipSetDevice(current), hipSuccess);
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    hipFileStatsLevel3_t before = StatsNow();
    for (int d = 0; d < devices_; d++) {
        buffers.emplace_back(new DeviceBuffer(d, kPiece));
        uint64_t offset = kPiece * static_cast<uint64_t>(d);
        buffers[d]->Fill(offset, 12);
        ASSERT_EQ(
            hipFileWrite(file.handle(), buffers[d]->get(), kPiece, static_cast<hoff_t>(offset), 0),
            static_cast<ssize_t>(kPiece))
            << "from GPU " << d;
        EXPECT_EQ(CurrentDevice(), current) << "after a write from GPU " << d;
    }
    hipFileStatsLevel3_t after = StatsNow();
    for (int d = 0; d < devices_; d++) {
        EXPECT_EQ(file.Check(kPiece * static_cast<uint64_t>(d), kPiece, 12), -1) << "GPU " << d;
        EXPECT_EQ(after.per_gpu_stats[d].write_bytes - before.per_gpu_stats[d].write_bytes, kPiece)
            << "GPU " << d;
    }
}

TEST_F(MultiGpuIo, ThreadsOnDifferentDevicesMoveTheirOwnBytesAtOnce)
{
    constexpr int kRounds = 6;
    RegisteredFile source("threads-in", kPiece * static_cast<size_t>(devices_), 13);
    RegisteredFile sink("threads-out", 0, 0);
    hipFileStatsLevel3_t before = StatsNow();
    std::vector<std::thread> threads;
    std::vector<int> failures(static_cast<size_t>(devices_), 0);
    for (int d = 0; d < devices_; d++) {
        threads.emplace_back([&, d] {
            // Each thread's current device is a neighbour's, never the one its buffer is on.
            const int current = (d + 1) % devices_;
            if (hipSetDevice(current) != hipSuccess) {
                failures[d]++;
                return;
            }
            DeviceBuffer buffer(d, kPiece);
            uint64_t offset = kPiece * static_cast<uint64_t>(d);
            for (int round = 0; round < kRounds; round++) {
                if (hipFileRead(source.handle(), buffer.get(), kPiece, static_cast<hoff_t>(offset),
                                0) != static_cast<ssize_t>(kPiece) ||
                    buffer.Check(offset, 13) != -1 ||
                    hipFileWrite(sink.handle(), buffer.get(), kPiece, static_cast<hoff_t>(offset),
                                 0) != static_cast<ssize_t>(kPiece) ||
                    CurrentDevice() != current)
                    failures[d]++;
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    hipFileStatsLevel3_t after = StatsNow();
    for (int d = 0; d < devices_; d++) {
        EXPECT_EQ(failures[d], 0) << "thread of GPU " << d;
        EXPECT_EQ(sink.Check(kPiece * static_cast<uint64_t>(d), kPiece, 13), -1) << "GPU " << d;
        EXPECT_EQ(after.per_gpu_stats[d].read_bytes - before.per_gpu_stats[d].read_bytes,
                  kPiece * kRounds)
            << "GPU " << d;
        EXPECT_EQ(after.per_gpu_stats[d].write_bytes - before.per_gpu_stats[d].write_bytes,
                  kPiece * kRounds)
            << "GPU " << d;
    }
}

TEST_F(MultiGpuIo, AsyncReadsRunOnStreamsOfEveryDevice)
{
    RegisteredFile file("async", kPiece * static_cast<size_t>(devices_), 14);
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    std::vector<hipStream_t> streams(static_cast<size_t>(devices_), nullptr);
    std::vector<size_t> sizes(static_cast<size_t>(devices_), kPiece);
    std::vector<hoff_t> file_offsets(static_cast<size_t>(devices_));
    std::vector<hoff_t> buffer_offsets(static_cast<size_t>(devices_), 0);
    std::vector<ssize_t> results(static_cast<size_t>(devices_), -1);
    for (int d = 0; d < devices_; d++) {
        buffers.emplace_back(new DeviceBuffer(d, kPiece));
        ASSERT_EQ(hipSetDevice(d), hipSuccess);
        ASSERT_EQ(hipStreamCreate(&streams[d]), hipSuccess);
        file_offsets[d] = static_cast<hoff_t>(kPiece * static_cast<size_t>(d));
    }
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    for (int d = 0; d < devices_; d++) {
        hipFileError_t e =
            hipFileReadAsync(file.handle(), buffers[d]->get(), &sizes[d], &file_offsets[d],
                             &buffer_offsets[d], &results[d], streams[d]);
        ASSERT_EQ(e.err, hipFileSuccess) << "stream of GPU " << d;
        EXPECT_EQ(CurrentDevice(), 0);
    }
    for (int d = 0; d < devices_; d++) {
        ASSERT_EQ(hipStreamSynchronize(streams[d]), hipSuccess);
        EXPECT_EQ(results[d], static_cast<ssize_t>(kPiece)) << "GPU " << d;
        EXPECT_EQ(buffers[d]->Check(kPiece * static_cast<uint64_t>(d), 14), -1) << "GPU " << d;
        EXPECT_EQ(hipStreamDestroy(streams[d]), hipSuccess);
    }
    EXPECT_EQ(CurrentDevice(), 0);
}

TEST_F(MultiGpuIo, AsyncRefusesABufferOnAnotherDeviceThanTheStream)
{
    RegisteredFile file("async-mismatch", kPiece, 15);
    // Buffer on the last device (3 with four), stream on device 1 (0 on a two-GPU machine).
    const int buffer_device = devices_ - 1;
    const int stream_device = devices_ > 2 ? 1 : 0;
    DeviceBuffer buffer(buffer_device, kPiece);
    hipStream_t stream = nullptr;
    ASSERT_EQ(hipSetDevice(stream_device), hipSuccess);
    ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    size_t size = kPiece;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t result = 12345;
    hipFileError_t e = hipFileReadAsync(file.handle(), buffer.get(), &size, &file_offset,
                                        &buffer_offset, &result, stream);
    EXPECT_EQ(e.err, hipFileInvalidValue);
    EXPECT_EQ(result, 12345) << "nothing was queued, so nothing reports";
    EXPECT_EQ(CurrentDevice(), 0);
    // The same buffer on a stream of its own device is accepted.
    hipStream_t own = nullptr;
    ASSERT_EQ(hipSetDevice(buffer_device), hipSuccess);
    ASSERT_EQ(hipStreamCreate(&own), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    e = hipFileReadAsync(file.handle(), buffer.get(), &size, &file_offset, &buffer_offset, &result,
                         own);
    ASSERT_EQ(e.err, hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(own), hipSuccess);
    EXPECT_EQ(result, static_cast<ssize_t>(kPiece));
    EXPECT_EQ(buffer.Check(0, 15), -1);
    EXPECT_EQ(hipStreamDestroy(own), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
}

TEST_F(MultiGpuIo, ABatchFillsBuffersOnEveryDevice)
{
    constexpr size_t kEntry = 256 * kKiB;
    const unsigned entries = static_cast<unsigned>(devices_) * 2;
    RegisteredFile file("batch", kEntry * entries, 16);
    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    std::vector<hipFileIOParams_t> params(entries);
    for (unsigned i = 0; i < entries; i++) {
        // Two entries per device, at the two halves of its buffer.
        int device = static_cast<int>(i) % devices_;
        if (i < static_cast<unsigned>(devices_))
            buffers.emplace_back(new DeviceBuffer(device, 2 * kEntry));
        memset(&params[i], 0, sizeof(params[i]));
        params[i].mode = hipFileBatch;
        params[i].fh = file.handle();
        params[i].opcode = hipFileBatchRead;
        params[i].cookie = reinterpret_cast<void *>(static_cast<uintptr_t>(i + 1));
        params[i].u.batch.devPtr_base = buffers[device]->get();
        params[i].u.batch.devPtr_offset = static_cast<int64_t>(i / devices_ * kEntry);
        params[i].u.batch.file_offset = static_cast<int64_t>(i * kEntry);
        params[i].u.batch.size = kEntry;
    }
    const int current = 2 % devices_;
    ASSERT_EQ(hipSetDevice(current), hipSuccess);
    hipFileBatchHandle_t batch = nullptr;
    ASSERT_EQ(hipFileBatchIOSetUp(&batch, entries).err, hipFileSuccess);
    ASSERT_EQ(hipFileBatchIOSubmit(batch, entries, params.data(), 0).err, hipFileSuccess);
    std::vector<hipFileIOEvents_t> events(entries);
    unsigned collected = 0;
    while (collected < entries) {
        unsigned nr = entries - collected;
        ASSERT_EQ(hipFileBatchIOGetStatus(batch, nr, &nr, &events[collected], nullptr).err,
                  hipFileSuccess);
        collected += nr;
    }
    hipFileBatchIODestroy(batch);
    EXPECT_EQ(CurrentDevice(), current);
    for (const hipFileIOEvents_t &event : events) {
        EXPECT_EQ(event.status, hipFileComplete)
            << "entry " << reinterpret_cast<uintptr_t>(event.cookie);
        EXPECT_EQ(static_cast<ssize_t>(event.ret), static_cast<ssize_t>(kEntry));
    }
    for (unsigned i = 0; i < entries; i++) {
        int device = static_cast<int>(i) % devices_;
        std::vector<uint8_t> host(kEntry);
        ASSERT_EQ(hipMemcpy(host.data(),
                            static_cast<char *>(buffers[device]->get()) + i / devices_ * kEntry,
                            kEntry, hipMemcpyDeviceToHost),
                  hipSuccess);
        EXPECT_EQ(hf_test_pattern_check(host.data(), kEntry, i * kEntry, 16), -1)
            << "entry " << i << " on GPU " << device;
    }
}
