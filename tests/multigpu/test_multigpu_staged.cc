// Staged I/O on several devices, seen through the recording runtime (device_record_hip.h): a
// request for a buffer on device N pins, creates streams and queues copies only for device N,
// whatever device is current and however many threads run at once; a device that cannot be made
// current fails its own requests only; staging memory goes on the NUMA node the device names.
#include "multigpu_test.h"

#include <dlfcn.h>
#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device_record_hip.h"

extern "C" {
#include "common/staging_pool.h"
#include "services/gpu.h"
}

using namespace multigpu_test;

namespace
{

constexpr size_t kKiB = 1024;
constexpr size_t kPiece = 1024 * kKiB;
constexpr int kNodeMaskBits = 1024;
constexpr size_t kNodeMaskWords = kNodeMaskBits / (8 * sizeof(unsigned long));
// hipDeviceAttributeHostNumaId (ROCm's number; the HIP 5.2 header lacks it).
constexpr int kHostNumaIdAttribute = 92;

class RecordEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        setenv("HIPFILE_GPU_RUNTIME", HF_TEST_RECORD_RUNTIME, 1);
        UseConfig("staged.conf",
                  "enable = [\"fallback\"]; };\n"
                  "execution = { max_io_threads = 4; min_io_threshold_size_kb = 64; };\n"
                  "fallback = { chunk_size_kb = 64; split_threshold_kb = 64;\n"
                  "             inline_max_kb = 64; staging_slots_per_device = 2; };\n");
    }
};

[[maybe_unused]] const ::testing::Environment *const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new RecordEnvironment);

struct Recorder {
    device_record_counts_fn counts = nullptr;
    device_record_reset_fn reset = nullptr;
    device_record_fail_set_device_fn fail_set_device = nullptr;

    device_record_counts Of(int device) const
    {
        device_record_counts c;
        counts(device, &c);
        return c;
    }
};

// The memory nodes this process may use, as the kernel says; the count in *count_p.
void MemsAllowed(unsigned long (&mask)[kNodeMaskWords], int *count_p)
{
    memset(mask, 0, sizeof(mask));
    *count_p = 0;
    if (syscall(SYS_get_mempolicy, nullptr, mask, static_cast<unsigned long>(kNodeMaskBits),
                nullptr, static_cast<unsigned long>(MPOL_F_MEMS_ALLOWED)) != 0)
        return;
    for (unsigned long word : mask)
        *count_p += __builtin_popcountl(word);
}

std::mutex log_mutex;
std::vector<std::string> log_lines;

void CaptureLog(const struct hf_host_api *, int, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> lock(log_mutex);
    log_lines.emplace_back(line);
}

bool LogHas(const char *needle)
{
    std::lock_guard<std::mutex> lock(log_mutex);
    for (const std::string &line : log_lines)
        if (line.find(needle) != std::string::npos)
            return true;
    return false;
}

int FailRegister(void *, size_t)
{
    return 2; // hipErrorOutOfMemory
}

class MultiGpuStaged : public MultiGpuTest
{
  protected:
    void SetUp() override
    {
        MultiGpuTest::SetUp();
        if (HasFatalFailure() || IsSkipped())
            return;
        void *lib = dlopen(HF_TEST_RECORD_RUNTIME, RTLD_NOW | RTLD_NOLOAD);
        ASSERT_NE(lib, nullptr) << "the recording runtime is not bound";
        *reinterpret_cast<void **>(&rec_.counts) = dlsym(lib, "device_record_counts");
        *reinterpret_cast<void **>(&rec_.reset) = dlsym(lib, "device_record_reset");
        *reinterpret_cast<void **>(&rec_.fail_set_device) =
            dlsym(lib, "device_record_fail_set_device");
        ASSERT_NE(rec_.counts, nullptr);
        ASSERT_NE(rec_.reset, nullptr);
        ASSERT_NE(rec_.fail_set_device, nullptr);
        rec_.reset();
        host_.struct_size = sizeof(host_);
        host_.abi_minor = HF_BACKEND_ABI_MINOR;
        host_.log = CaptureLog;
        host_.gpu = hf_gpu();
        ASSERT_NE(host_.gpu, nullptr);
        std::lock_guard<std::mutex> lock(log_mutex);
        log_lines.clear();
    }
    void TearDown() override
    {
        if (rec_.reset != nullptr)
            rec_.reset();
        MultiGpuTest::TearDown();
    }

    // Read then write @p size bytes through a buffer on @p device; both byte-checked.
    void MoveThrough(int device, RegisteredFile &source, RegisteredFile &sink, uint32_t seed)
    {
        DeviceBuffer buffer(device, kPiece);
        ASSERT_EQ(hipFileRead(source.handle(), buffer.get(), kPiece, 0, 0),
                  static_cast<ssize_t>(kPiece));
        EXPECT_EQ(buffer.Check(0, seed), -1);
        ASSERT_EQ(hipFileWrite(sink.handle(), buffer.get(), kPiece, 0, 0),
                  static_cast<ssize_t>(kPiece));
        EXPECT_EQ(sink.Check(0, kPiece, seed), -1);
    }

    Recorder rec_;
    struct hf_host_api host_ = {};
};

} // namespace

TEST_F(MultiGpuStaged, EachDevicesRequestsUseThatDevicesPoolStreamsAndCopies)
{
    RegisteredFile source("staged-in", kPiece, 21);
    for (int d = devices_ - 1; d >= 0; d--) {
        RegisteredFile sink("staged-out-" + std::to_string(d), 0, 0);
        rec_.reset();
        MoveThrough(d, source, sink, 21);
        EXPECT_EQ(CurrentDevice(), 0) << "after I/O through GPU " << d;
        // Copies on streams of GPU d: the pool's streams were made with GPU d current (stream
        // device as the runtime reports it), and no other device's streams were used.
        device_record_counts own = rec_.Of(d);
        EXPECT_GT(own.copies, 0) << "GPU " << d;
        EXPECT_GE(own.copied_bytes, static_cast<long>(2 * kPiece)) << "GPU " << d;
        for (int e = 0; e < devices_; e++) {
            device_record_counts other = rec_.Of(e);
            EXPECT_EQ(other.foreign_copies, 0) << "stream of GPU " << e;
            if (e == d)
                continue;
            EXPECT_EQ(other.copies, 0) << "GPU " << e << " during I/O through GPU " << d;
            EXPECT_EQ(other.streams_created, 0) << "GPU " << e;
            EXPECT_EQ(other.pinned_allocs + other.registered, 0) << "GPU " << e;
        }
    }
}

TEST_F(MultiGpuStaged, ConcurrentThreadsStayOnTheirOwnDevices)
{
    constexpr int kRounds = 4;
    RegisteredFile source("concurrent-in", kPiece * static_cast<size_t>(devices_), 22);
    RegisteredFile sink("concurrent-out", 0, 0);
    std::vector<int> failures(static_cast<size_t>(devices_), 0);
    std::vector<std::thread> threads;
    for (int d = 0; d < devices_; d++) {
        threads.emplace_back([&, d] {
            const int current = (d + devices_ - 1) % devices_;
            if (hipSetDevice(current) != hipSuccess) {
                failures[d]++;
                return;
            }
            DeviceBuffer buffer(d, kPiece);
            const hoff_t offset = static_cast<hoff_t>(kPiece * static_cast<size_t>(d));
            for (int round = 0; round < kRounds; round++) {
                if (hipFileRead(source.handle(), buffer.get(), kPiece, offset, 0) !=
                        static_cast<ssize_t>(kPiece) ||
                    buffer.Check(static_cast<uint64_t>(offset), 22) != -1 ||
                    hipFileWrite(sink.handle(), buffer.get(), kPiece, offset, 0) !=
                        static_cast<ssize_t>(kPiece) ||
                    CurrentDevice() != current)
                    failures[d]++;
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    for (int d = 0; d < devices_; d++) {
        EXPECT_EQ(failures[d], 0) << "thread of GPU " << d;
        EXPECT_EQ(sink.Check(kPiece * static_cast<uint64_t>(d), kPiece, 22), -1) << "GPU " << d;
        device_record_counts c = rec_.Of(d);
        EXPECT_GE(c.copied_bytes, static_cast<long>(2 * kRounds * kPiece)) << "GPU " << d;
        EXPECT_EQ(c.foreign_copies, 0) << "GPU " << d;
    }
}

TEST_F(MultiGpuStaged, ADeviceThatCannotBeMadeCurrentFailsOnlyItsOwnRequests)
{
    RegisteredFile source("gone-in", kPiece, 23);
    const int gone = devices_ - 1;
    DeviceBuffer lost(gone, kPiece);
    DeviceBuffer kept(1, kPiece);
    ASSERT_EQ(hipMemset(lost.get(), 0x5a, kPiece), hipSuccess);
    rec_.fail_set_device(gone);
    EXPECT_EQ(hipFileRead(source.handle(), lost.get(), kPiece, 0, 0),
              -static_cast<ssize_t>(hipFileHipDriverError));
    EXPECT_EQ(CurrentDevice(), 0);
    EXPECT_EQ(rec_.Of(gone).copies, 0) << "nothing was copied on the lost device's behalf";
    std::vector<uint8_t> host(kPiece);
    ASSERT_EQ(hipMemcpy(host.data(), lost.get(), kPiece, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(host, std::vector<uint8_t>(kPiece, 0x5a)) << "the lost device's buffer is untouched";
    EXPECT_EQ(hipFileRead(source.handle(), kept.get(), kPiece, 0, 0), static_cast<ssize_t>(kPiece));
    EXPECT_EQ(kept.Check(0, 23), -1);
    EXPECT_EQ(CurrentDevice(), 0);
}

TEST_F(MultiGpuStaged, TheHostRuntimeNamesTheNodeOfEachDeviceFromItsEnvironment)
{
    // HIP_HOST_DEVICE_NUMA=0,-1,0,-1 (set by ctest for this program).
    for (int d = 0; d < devices_; d++) {
        int node = -2;
        ASSERT_EQ(hipDeviceGetAttribute(&node,
                                        static_cast<hipDeviceAttribute_t>(kHostNumaIdAttribute), d),
                  hipSuccess);
        EXPECT_EQ(node, d % 2 == 0 ? 0 : -1) << "GPU " << d;
        int through_core = -2;
        ASSERT_EQ(host_.gpu->device_attribute(d, HF_GPU_ATTR_HOST_NUMA_NODE, &through_core), 0);
        EXPECT_EQ(through_core, node) << "GPU " << d;
    }
}

TEST_F(MultiGpuStaged, PoolsPlaceBuffersOnTheirDevicesNodeWhereThereIsAChoice)
{
    unsigned long mask[kNodeMaskWords];
    int nodes = 0;
    MemsAllowed(mask, &nodes);
    // Device 0 names node 0; placement is only worth it with more than one node to choose from.
    const bool placed = nodes > 1 && (mask[0] & 1ul) != 0;
    for (int d = -1; d < 2; d++) {
        const bool expect_placed = d == 0 && placed;
        struct hfp_staging_pool *pool = nullptr;
        ASSERT_EQ(hfp_staging_pool_create(&host_, 64 * kKiB, 1, d, &pool), 0);
        EXPECT_EQ(hfp_staging_pool_numa_node(pool), expect_placed ? 0 : -1)
            << "GPU " << d << " with " << nodes << " memory nodes";
        // Takers make the pool's device current, as the fallback does.
        ASSERT_EQ(hipSetDevice(d < 0 ? 0 : d), hipSuccess);
        rec_.reset();
        struct hfp_staging_slot *slot = nullptr;
        int gpu_error = 0;
        ASSERT_EQ(hfp_staging_pool_take(pool, &slot, &gpu_error), 0);
        device_record_counts c = rec_.Of(d < 0 ? 0 : d);
        for (int i = 0; i < HF_STAGING_SLOT_BUFFERS; i++)
            EXPECT_EQ(slot->numa_node[i], expect_placed ? 0 : -1) << "GPU " << d;
        EXPECT_EQ(c.registered, expect_placed ? HF_STAGING_SLOT_BUFFERS : 0) << "GPU " << d;
        EXPECT_EQ(c.pinned_allocs, expect_placed ? 0 : HF_STAGING_SLOT_BUFFERS) << "GPU " << d;
        hfp_staging_pool_give(pool, slot);
        ASSERT_EQ(hipSetDevice(0), hipSuccess);
        hfp_staging_pool_destroy(pool);
    }
}

TEST_F(MultiGpuStaged, AStagingBufferForANodeIsBoundThereAndRegistered)
{
    const size_t size = 256 * kKiB + 123;
    void *ptr = nullptr;
    int bound = -2;
    ASSERT_EQ(hfp_staging_buffer_alloc(&host_, size, 0, &ptr, &bound), 0);
    EXPECT_EQ(bound, 0);
    int mode = -1;
    unsigned long nodes[kNodeMaskWords] = {};
    ASSERT_EQ(syscall(SYS_get_mempolicy, &mode, nodes, static_cast<unsigned long>(kNodeMaskBits),
                      ptr, static_cast<unsigned long>(MPOL_F_ADDR)),
              0);
    EXPECT_EQ(mode, MPOL_PREFERRED);
    EXPECT_EQ(nodes[0], 1ul) << "node 0 and no other";
    int page_node = -1;
    const size_t last_page = (size - 1) / static_cast<size_t>(sysconf(_SC_PAGESIZE)) *
                             static_cast<size_t>(sysconf(_SC_PAGESIZE));
    ASSERT_EQ(syscall(SYS_get_mempolicy, &page_node, nullptr, 0ul,
                      static_cast<char *>(ptr) + last_page,
                      static_cast<unsigned long>(MPOL_F_NODE | MPOL_F_ADDR)),
              0);
    EXPECT_EQ(page_node, 0) << "the pages were faulted in on the node";
    EXPECT_EQ(rec_.Of(0).registered, 1) << "registered while GPU 0 was current";
    EXPECT_EQ(rec_.Of(0).pinned_allocs, 0);
    hipPointerAttribute_t attributes;
    ASSERT_EQ(hipPointerGetAttributes(&attributes, ptr), hipSuccess);
    EXPECT_EQ(attributes.memoryType, hipMemoryTypeHost);
    memset(ptr, 0x3c, size);
    EXPECT_EQ(hfp_staging_buffer_free(&host_, ptr, size, bound), 0);
    EXPECT_NE(hipPointerGetAttributes(&attributes, ptr), hipSuccess) << "unregistered";
}

TEST_F(MultiGpuStaged, AStagingBufferWithoutANodeIsPinnedByTheRuntime)
{
    for (int node : {-1, kNodeMaskBits + 5}) {
        void *ptr = nullptr;
        int bound = -2;
        rec_.reset();
        ASSERT_EQ(hfp_staging_buffer_alloc(&host_, 64 * kKiB, node, &ptr, &bound), 0);
        EXPECT_EQ(bound, -1) << "node " << node;
        EXPECT_EQ(rec_.Of(0).pinned_allocs, 1) << "node " << node;
        EXPECT_EQ(rec_.Of(0).registered, 0) << "node " << node;
        EXPECT_EQ(hfp_staging_buffer_free(&host_, ptr, 64 * kKiB, bound), 0);
    }
}

TEST_F(MultiGpuStaged, AStagingBufferFallsBackToTheRuntimeWhenRegistrationFails)
{
    struct hf_gpu_ops failing = *host_.gpu;
    failing.host_register = FailRegister;
    host_.gpu = &failing;
    void *ptr = nullptr;
    int bound = -2;
    ASSERT_EQ(hfp_staging_buffer_alloc(&host_, 64 * kKiB, 0, &ptr, &bound), 0);
    EXPECT_EQ(bound, -1);
    EXPECT_TRUE(LogHas("cannot register")) << "the failure is logged";
    EXPECT_EQ(rec_.Of(0).pinned_allocs, 1);
    memset(ptr, 0x11, 64 * kKiB);
    EXPECT_EQ(hfp_staging_buffer_free(&host_, ptr, 64 * kKiB, bound), 0);
}

TEST_F(MultiGpuStaged, ACoreWithoutHostRegistrationLeavesPlacementToTheRuntime)
{
    host_.abi_minor = 2;
    void *ptr = nullptr;
    int bound = -2;
    ASSERT_EQ(hfp_staging_buffer_alloc(&host_, 64 * kKiB, 0, &ptr, &bound), 0);
    EXPECT_EQ(bound, -1);
    EXPECT_EQ(rec_.Of(0).registered, 0);
    EXPECT_EQ(hfp_staging_buffer_free(&host_, ptr, 64 * kKiB, bound), 0);
}
