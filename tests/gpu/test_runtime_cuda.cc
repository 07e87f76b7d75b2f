// The CUDA provider (libhip-cuda) on a real NVIDIA GPU: allocations, copies in every direction,
// streams, events, host functions, stream memory operations, and pointer queries on every kind of
// memory, through the HIP API exactly as programs written for AMD's runtime call it.
#include <gtest/gtest.h>

#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

// hipGetProcAddress with ROCm 6's signature; the HIP 5.2 header does not declare it.
extern "C" hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion,
                                        uint64_t flags, int *symbolStatus);

namespace
{

using namespace std::chrono_literals;

class CudaRuntime : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        int count = 0;
        ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess)
            << "this suite needs an NVIDIA GPU and its driver (libcuda.so.1)";
        ASSERT_GT(count, 0);
        ASSERT_EQ(hipSetDevice(0), hipSuccess);
        (void)hipGetLastError();
    }
    void TearDown() override
    {
        EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    }
};

std::vector<unsigned char> pattern(size_t n, unsigned seed)
{
    std::vector<unsigned char> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 12)) & 0xff);
    return v;
}

TEST_F(CudaRuntime, DeviceReportsItselfThroughHipQueries)
{
    hipDeviceProp_t prop;
    ASSERT_EQ(hipGetDeviceProperties(&prop, 0), hipSuccess);
    EXPECT_GT(strlen(prop.name), 0u);
    EXPECT_GT(prop.totalGlobalMem, size_t(1) << 30);
    EXPECT_GT(prop.multiProcessorCount, 0);
    EXPECT_GE(prop.major, 1);

    int value = 0;
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, 0), hipSuccess);
    EXPECT_EQ(value, 32);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeCanUseStreamWaitValue, 0),
              hipSuccess);
    EXPECT_EQ(value, 1);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeUnifiedAddressing, 0), hipSuccess);
    EXPECT_EQ(value, 1);
    EXPECT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeGcnArchName, 0),
              hipErrorInvalidValue);
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    EXPECT_EQ(hipSetDevice(count), hipErrorInvalidDevice);

    char name[256];
    ASSERT_EQ(hipDeviceGetName(name, sizeof(name), 0), hipSuccess);
    EXPECT_STREQ(name, prop.name);

    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(hipMemGetInfo(&free_bytes, &total), hipSuccess);
    EXPECT_GT(free_bytes, 0u);
    EXPECT_LE(free_bytes, total);

    int runtime = 0, driver = 0;
    ASSERT_EQ(hipRuntimeGetVersion(&runtime), hipSuccess);
    EXPECT_EQ(runtime, HIP_VERSION);
    ASSERT_EQ(hipDriverGetVersion(&driver), hipSuccess);
    EXPECT_GT(driver, 0);
}

TEST_F(CudaRuntime, MallocAndFree)
{
    void *p = nullptr;
    ASSERT_EQ(hipMalloc(&p, 1 << 20), hipSuccess);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(hipFree(p), hipSuccess);
    EXPECT_EQ(hipFree(nullptr), hipSuccess);
    EXPECT_EQ(hipMalloc(nullptr, 16), hipErrorInvalidValue);
    p = reinterpret_cast<void *>(1);
    EXPECT_EQ(hipMalloc(&p, 0), hipSuccess);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(hipMalloc(&p, size_t(1) << 50), hipErrorOutOfMemory);
}

TEST_F(CudaRuntime, MemcpyMovesDataInEveryDirection)
{
    const size_t n = 8 << 20;
    auto src = pattern(n, 1);
    std::vector<unsigned char> dst(n);
    void *d1 = nullptr, *d2 = nullptr, *pinned = nullptr, *managed = nullptr;
    ASSERT_EQ(hipMalloc(&d1, n), hipSuccess);
    ASSERT_EQ(hipMalloc(&d2, n), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, n, 0), hipSuccess);
    ASSERT_EQ(hipMallocManaged(&managed, n, hipMemAttachGlobal), hipSuccess);

    ASSERT_EQ(hipMemcpy(d1, src.data(), n, hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(d2, d1, n, hipMemcpyDeviceToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(pinned, d2, n, hipMemcpyDeviceToHost), hipSuccess);
    ASSERT_EQ(hipMemcpy(dst.data(), pinned, n, hipMemcpyHostToHost), hipSuccess);
    EXPECT_EQ(dst, src);

    std::fill(dst.begin(), dst.end(), 0);
    ASSERT_EQ(hipMemcpy(managed, d1, n, hipMemcpyDefault), hipSuccess);
    ASSERT_EQ(hipMemcpy(d2, managed, n, hipMemcpyDefault), hipSuccess);
    ASSERT_EQ(hipMemcpy(dst.data(), d2, n, hipMemcpyDefault), hipSuccess);
    EXPECT_EQ(dst, src);
    EXPECT_EQ(memcmp(managed, src.data(), n), 0);

    std::fill(dst.begin(), dst.end(), 0);
    ASSERT_EQ(hipMemcpyHtoD(d1, src.data(), n), hipSuccess);
    ASSERT_EQ(hipMemcpyDtoD(d2, d1, n), hipSuccess);
    ASSERT_EQ(hipMemcpyDtoH(dst.data(), d2, n), hipSuccess);
    EXPECT_EQ(dst, src);

    EXPECT_EQ(hipMemcpy(d1, d2, n, static_cast<hipMemcpyKind>(7)), hipErrorInvalidMemcpyDirection);
    EXPECT_EQ(hipMemcpy(nullptr, d2, n, hipMemcpyDefault), hipErrorInvalidValue);

    EXPECT_EQ(hipFree(d1), hipSuccess);
    EXPECT_EQ(hipFree(d2), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
    EXPECT_EQ(hipFree(managed), hipSuccess);
}

TEST_F(CudaRuntime, MemsetFillsDeviceMemory)
{
    const size_t n = 1 << 20;
    void *d = nullptr;
    std::vector<unsigned char> host(n);
    ASSERT_EQ(hipMalloc(&d, n), hipSuccess);
    ASSERT_EQ(hipMemset(d, 0x5a, n), hipSuccess);
    ASSERT_EQ(hipMemcpy(host.data(), d, n, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(std::count(host.begin(), host.end(), 0x5a), static_cast<long>(n));

    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(static_cast<char *>(d) + 100, 0x11, 50, s), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(host.data(), d, n, hipMemcpyDeviceToHost, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(host[99], 0x5a);
    EXPECT_EQ(host[100], 0x11);
    EXPECT_EQ(host[149], 0x11);
    EXPECT_EQ(host[150], 0x5a);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(CudaRuntime, AsyncCopiesOnSeveralStreamsArriveIntact)
{
    constexpr int kStreams = 4;
    const size_t n = 16 << 20;
    hipStream_t streams[kStreams];
    void *pinned_in[kStreams], *pinned_out[kStreams], *dev[kStreams];
    for (int i = 0; i < kStreams; i++) {
        ASSERT_EQ(hipStreamCreateWithFlags(&streams[i], hipStreamNonBlocking), hipSuccess);
        ASSERT_EQ(hipHostMalloc(&pinned_in[i], n, 0), hipSuccess);
        ASSERT_EQ(hipHostMalloc(&pinned_out[i], n, 0), hipSuccess);
        ASSERT_EQ(hipMalloc(&dev[i], n), hipSuccess);
        auto p = pattern(n, i + 10);
        memcpy(pinned_in[i], p.data(), n);
    }
    for (int i = 0; i < kStreams; i++) {
        ASSERT_EQ(hipMemcpyAsync(dev[i], pinned_in[i], n, hipMemcpyHostToDevice, streams[i]),
                  hipSuccess);
        ASSERT_EQ(hipMemcpyAsync(pinned_out[i], dev[i], n, hipMemcpyDeviceToHost, streams[i]),
                  hipSuccess);
    }
    for (int i = 0; i < kStreams; i++) {
        ASSERT_EQ(hipStreamSynchronize(streams[i]), hipSuccess);
        EXPECT_EQ(hipStreamQuery(streams[i]), hipSuccess);
        EXPECT_EQ(memcmp(pinned_out[i], pinned_in[i], n), 0) << "stream " << i;
        unsigned flags = 0;
        ASSERT_EQ(hipStreamGetFlags(streams[i], &flags), hipSuccess);
        EXPECT_EQ(flags, unsigned(hipStreamNonBlocking));
        EXPECT_EQ(hipStreamDestroy(streams[i]), hipSuccess);
        EXPECT_EQ(hipHostFree(pinned_in[i]), hipSuccess);
        EXPECT_EQ(hipHostFree(pinned_out[i]), hipSuccess);
        EXPECT_EQ(hipFree(dev[i]), hipSuccess);
    }
    EXPECT_EQ(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
}

TEST_F(CudaRuntime, HostFunctionsRunInStreamOrderAfterEarlierCopies)
{
    const size_t n = 4 << 20;
    hipStream_t s;
    void *dev = nullptr, *pinned = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipMalloc(&dev, n), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, n, 0), hipSuccess);
    auto src = pattern(n, 3);

    struct Check {
        std::mutex lock;
        std::vector<int> order;
        const void *pinned;
        const unsigned char *expected;
        size_t n;
        bool data_ok = false;
    } check;
    check.pinned = pinned;
    check.expected = src.data();
    check.n = n;
    struct Step {
        Check *check;
        int index;
    };
    std::vector<Step> steps;
    for (int i = 0; i < 64; i++)
        steps.push_back({&check, i});

    auto record = [](void *arg) {
        auto *st = static_cast<Step *>(arg);
        std::lock_guard<std::mutex> g(st->check->lock);
        st->check->order.push_back(st->index);
        if (st->index == 32)
            st->check->data_ok = memcmp(st->check->pinned, st->check->expected, st->check->n) == 0;
    };
    for (auto &step : steps) {
        if (step.index == 32) {
            ASSERT_EQ(hipMemcpyAsync(dev, src.data(), n, hipMemcpyHostToDevice, s), hipSuccess);
            ASSERT_EQ(hipMemcpyAsync(pinned, dev, n, hipMemcpyDeviceToHost, s), hipSuccess);
        }
        ASSERT_EQ(hipLaunchHostFunc(s, record, &step), hipSuccess);
    }
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    ASSERT_EQ(check.order.size(), steps.size());
    for (size_t i = 0; i < steps.size(); i++)
        EXPECT_EQ(check.order[i], static_cast<int>(i));
    EXPECT_TRUE(check.data_ok) << "the host function ran before the copies queued ahead of it";

    struct Seen {
        hipStream_t stream = nullptr;
        hipError_t status = hipErrorUnknown;
    } seen;
    ASSERT_EQ(hipStreamAddCallback(
                  s,
                  [](hipStream_t stream, hipError_t status, void *arg) {
                      static_cast<Seen *>(arg)->stream = stream;
                      static_cast<Seen *>(arg)->status = status;
                  },
                  &seen, 0),
              hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(seen.stream, s);
    EXPECT_EQ(seen.status, hipSuccess);

    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipFree(dev), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST_F(CudaRuntime, EventsMeasureAndOrderStreamWork)
{
    const size_t n = 64 << 20;
    hipStream_t a, b;
    hipEvent_t start, stop, untimed;
    void *d1 = nullptr, *d2 = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&a, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipStreamCreateWithFlags(&b, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipEventCreate(&start), hipSuccess);
    ASSERT_EQ(hipEventCreateWithFlags(&stop, hipEventBlockingSync), hipSuccess);
    ASSERT_EQ(hipEventCreateWithFlags(&untimed, hipEventDisableTiming), hipSuccess);
    ASSERT_EQ(hipMalloc(&d1, n), hipSuccess);
    ASSERT_EQ(hipMalloc(&d2, n), hipSuccess);

    ASSERT_EQ(hipEventRecord(start, a), hipSuccess);
    for (int i = 0; i < 8; i++)
        ASSERT_EQ(hipMemcpyAsync(d2, d1, n, hipMemcpyDeviceToDevice, a), hipSuccess);
    ASSERT_EQ(hipEventRecord(stop, a), hipSuccess);
    ASSERT_EQ(hipEventRecord(untimed, a), hipSuccess);
    ASSERT_EQ(hipStreamWaitEvent(b, stop, 0), hipSuccess);
    std::atomic<bool> b_ran{false};
    ASSERT_EQ(hipLaunchHostFunc(
                  b, [](void *arg) { static_cast<std::atomic<bool> *>(arg)->store(true); }, &b_ran),
              hipSuccess);

    ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
    EXPECT_EQ(hipEventQuery(stop), hipSuccess);
    float ms = -1;
    ASSERT_EQ(hipEventElapsedTime(&ms, start, stop), hipSuccess);
    EXPECT_GT(ms, 0.0f);
    ASSERT_EQ(hipEventSynchronize(untimed), hipSuccess);
    EXPECT_EQ(hipEventElapsedTime(&ms, start, untimed), hipErrorInvalidHandle);
    EXPECT_EQ(hipEventElapsedTime(nullptr, start, stop), hipErrorInvalidValue);
    ASSERT_EQ(hipStreamSynchronize(b), hipSuccess);
    EXPECT_TRUE(b_ran.load());

    EXPECT_EQ(hipEventDestroy(start), hipSuccess);
    EXPECT_EQ(hipEventDestroy(stop), hipSuccess);
    EXPECT_EQ(hipEventDestroy(untimed), hipSuccess);
    EXPECT_EQ(hipEventDestroy(nullptr), hipErrorInvalidHandle);
    EXPECT_EQ(hipStreamDestroy(a), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(b), hipSuccess);
    EXPECT_EQ(hipFree(d1), hipSuccess);
    EXPECT_EQ(hipFree(d2), hipSuccess);
}

// A host thread releases a stream held by a wait on pinned memory; the stream then writes a value
// the host sees, and a write into device memory reads back.
TEST_F(CudaRuntime, StreamWaitValueHoldsTheStreamUntilTheHostWrites)
{
    hipStream_t s;
    void *pinned = nullptr, *dev = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    ASSERT_EQ(hipMalloc(&dev, 4096), hipSuccess);
    auto *gate32 = static_cast<uint32_t *>(pinned);
    auto *gate64 = reinterpret_cast<uint64_t *>(static_cast<char *>(pinned) + 64);
    auto *done32 = reinterpret_cast<uint32_t *>(static_cast<char *>(pinned) + 128);
    auto *done64 = reinterpret_cast<uint64_t *>(static_cast<char *>(pinned) + 192);
    *gate32 = 0;
    *gate64 = 0;
    *done32 = 0;
    *done64 = 0;

    std::atomic<int> ran{0};
    ASSERT_EQ(hipStreamWaitValue32(s, gate32, 5, hipStreamWaitValueGte, 0xffffffffu), hipSuccess);
    ASSERT_EQ(hipStreamWaitValue64(s, gate64, 0x100000000ull, hipStreamWaitValueAnd, ~0ull),
              hipSuccess);
    ASSERT_EQ(hipLaunchHostFunc(
                  s, [](void *arg) { static_cast<std::atomic<int> *>(arg)->store(1); }, &ran),
              hipSuccess);
    ASSERT_EQ(hipStreamWriteValue32(s, done32, 77, 0), hipSuccess);
    ASSERT_EQ(hipStreamWriteValue64(s, done64, 1ull << 50, 0), hipSuccess);
    ASSERT_EQ(hipStreamWriteValue32(s, dev, 0xabcd, 0), hipSuccess);

    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(ran.load(), 0);
    EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
    EXPECT_EQ(__atomic_load_n(done32, __ATOMIC_ACQUIRE), 0u);

    __atomic_store_n(gate32, 9u, __ATOMIC_RELEASE);
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(ran.load(), 0) << "released before the 64-bit wait held";
    __atomic_store_n(gate64, 0x300000000ull, __ATOMIC_RELEASE);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(*done32, 77u);
    EXPECT_EQ(*done64, 1ull << 50);
    uint32_t back = 0;
    ASSERT_EQ(hipMemcpy(&back, dev, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(back, 0xabcdu);

    EXPECT_EQ(hipStreamWaitValue32(s, gate32, 1, hipStreamWaitValueEq, 0xff), hipErrorNotSupported);
    EXPECT_EQ(hipStreamWaitValue32(s, static_cast<char *>(pinned) + 2, 1, 0, ~0u),
              hipErrorInvalidValue);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
    EXPECT_EQ(hipFree(dev), hipSuccess);
}

TEST_F(CudaRuntime, PointerAttributesOfEveryKindOfMemory)
{
    const size_t n = 1 << 20;
    char *dev = nullptr, *pinned = nullptr, *managed = nullptr;
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&dev), n), hipSuccess);
    ASSERT_EQ(hipHostMalloc(reinterpret_cast<void **>(&pinned), n, hipHostMallocMapped),
              hipSuccess);
    ASSERT_EQ(hipMallocManaged(reinterpret_cast<void **>(&managed), n, hipMemAttachGlobal),
              hipSuccess);
    std::vector<char> registered(n);
    ASSERT_EQ(hipHostRegister(registered.data(), n, 0), hipSuccess);
    std::vector<char> plain(4096);

    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, dev + 100), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeDevice);
    EXPECT_EQ(attr.device, 0);
    EXPECT_EQ(attr.devicePointer, dev + 100);
    EXPECT_EQ(attr.hostPointer, nullptr);
    EXPECT_EQ(attr.isManaged, 0);

    ASSERT_EQ(hipPointerGetAttributes(&attr, pinned + 100), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeHost);
    EXPECT_EQ(attr.hostPointer, pinned + 100);
    EXPECT_EQ(attr.devicePointer, pinned + 100); // unified addressing
    EXPECT_EQ(attr.isManaged, 0);
    void *mapped = nullptr;
    ASSERT_EQ(hipHostGetDevicePointer(&mapped, pinned, 0), hipSuccess);
    EXPECT_EQ(mapped, pinned);

    ASSERT_EQ(hipPointerGetAttributes(&attr, managed + 100), hipSuccess);
    EXPECT_EQ(attr.isManaged, 1);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeHost);

    ASSERT_EQ(hipPointerGetAttributes(&attr, registered.data() + 100), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeHost);
    EXPECT_EQ(attr.hostPointer, registered.data() + 100);

    EXPECT_EQ(hipPointerGetAttributes(&attr, plain.data()), hipErrorInvalidValue);
    int on_stack = 0;
    EXPECT_EQ(hipPointerGetAttributes(&attr, &on_stack), hipErrorInvalidValue);
    EXPECT_EQ(hipPointerGetAttributes(&attr, nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);

    EXPECT_EQ(hipHostRegister(registered.data() + 4096, 4096, 0),
              hipErrorHostMemoryAlreadyRegistered);
    ASSERT_EQ(hipHostUnregister(registered.data()), hipSuccess);
    EXPECT_EQ(hipHostUnregister(registered.data()), hipErrorHostMemoryNotRegistered);
    EXPECT_EQ(hipPointerGetAttributes(&attr, registered.data()), hipErrorInvalidValue);

    EXPECT_EQ(hipFree(dev), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
    EXPECT_EQ(hipFree(managed), hipSuccess);
}

TEST_F(CudaRuntime, AddressRangeFindsTheAllocationAroundAnInteriorPointer)
{
    const size_t n = 3 << 20;
    char *dev = nullptr, *pinned = nullptr, *managed = nullptr;
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&dev), n), hipSuccess);
    ASSERT_EQ(hipHostMalloc(reinterpret_cast<void **>(&pinned), n, 0), hipSuccess);
    ASSERT_EQ(hipMallocManaged(reinterpret_cast<void **>(&managed), n, hipMemAttachGlobal),
              hipSuccess);

    for (char *base : {dev, pinned, managed}) {
        hipDeviceptr_t got = nullptr;
        size_t size = 0;
        ASSERT_EQ(hipMemGetAddressRange(&got, &size, base + n - 1), hipSuccess);
        EXPECT_EQ(got, base);
        EXPECT_GE(size, n);
    }
    std::vector<char> plain(4096);
    hipDeviceptr_t got;
    size_t size;
    EXPECT_EQ(hipMemGetAddressRange(&got, &size, plain.data()), hipErrorNotFound);
    EXPECT_EQ(hipMemGetAddressRange(nullptr, &size, dev), hipErrorInvalidValue);

    EXPECT_EQ(hipFree(dev), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
    EXPECT_EQ(hipFree(managed), hipSuccess);
}

TEST_F(CudaRuntime, FreeingTheWrongKindIsAnError)
{
    void *dev = nullptr, *pinned = nullptr;
    ASSERT_EQ(hipMalloc(&dev, 4096), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    EXPECT_NE(hipFree(pinned), hipSuccess);
    EXPECT_NE(hipHostFree(dev), hipSuccess);
    (void)hipGetLastError();
    EXPECT_EQ(hipFree(dev), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST_F(CudaRuntime, CurrentDeviceIsPerThreadAndWorksFromNewThreads)
{
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    const int last = count - 1;
    std::atomic<int> failures{0};
    std::thread([&] {
        int device = -1;
        if (hipGetDevice(&device) != hipSuccess || device != 0)
            failures++;
        if (hipSetDevice(last) != hipSuccess)
            failures++;
        void *p = nullptr;
        if (hipMalloc(&p, 4096) != hipSuccess)
            failures++;
        hipPointerAttribute_t attr;
        if (hipPointerGetAttributes(&attr, p) != hipSuccess || attr.device != last)
            failures++;
        if (hipFree(p) != hipSuccess)
            failures++;
    }).join();
    EXPECT_EQ(failures.load(), 0);
    int device = -1;
    ASSERT_EQ(hipGetDevice(&device), hipSuccess);
    EXPECT_EQ(device, 0);
}

TEST_F(CudaRuntime, ErrorsAreNamedAndLastErrorIsSticky)
{
    EXPECT_STREQ(hipGetErrorName(hipErrorInvalidValue), "hipErrorInvalidValue");
    EXPECT_GT(strlen(hipGetErrorString(hipErrorNotReady)), 3u);
    EXPECT_EQ(hipMalloc(nullptr, 1), hipErrorInvalidValue);
    int count;
    EXPECT_EQ(hipGetDeviceCount(&count), hipSuccess);
    EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue);
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
    EXPECT_EQ(hipGetLastError(), hipSuccess);

    void *fn = nullptr;
    int status = -1;
    ASSERT_EQ(hipGetProcAddress("hipMemcpyAsync", &fn, 502, 0, &status), hipSuccess);
    EXPECT_EQ(fn, reinterpret_cast<void *>(&hipMemcpyAsync));
    EXPECT_EQ(hipGetProcAddress("cuMemAlloc_v2", &fn, 502, 0, &status), hipErrorInvalidValue);
    EXPECT_EQ(fn, nullptr);
}

} // namespace
