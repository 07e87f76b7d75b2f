// The host-emulation HIP provider (libhip-host): memory kinds and pointer queries, copies, stream
// ordering, host functions, stream memory operations, events, devices, errors and symbol lookup.
#include <gtest/gtest.h>

#include <hip/hip_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

// hipGetProcAddress with ROCm 6's signature; the HIP 5.2 header does not declare it.
extern "C" hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion,
                                        uint64_t flags, int *symbolStatus);

namespace
{

constexpr int kDeviceCount = 4;
constexpr int kProcNotFound = 1; // HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND

// The suite runs with several emulated devices unless the environment already says otherwise
// (the child process of EnvironmentWithBadCountFallsBackToOne). The provider reads the variable
// at its first call, which comes after static initialisation.
const bool device_count_set = [] {
    setenv("HIP_HOST_DEVICE_COUNT", std::to_string(kDeviceCount).c_str(), 0);
    return true;
}();

using namespace std::chrono_literals;

// Whether @p done becomes true within @p limit.
template <typename Pred> bool eventually(Pred done, std::chrono::milliseconds limit = 5000ms)
{
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

class HostRuntime : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_EQ(hipSetDevice(0), hipSuccess);
        (void)hipGetLastError();
    }
    void TearDown() override
    {
        EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    }
};

// ---------------------------------------------------------------- memory kinds and pointer queries

TEST_F(HostRuntime, MallocGivesPageAlignedDeviceMemory)
{
    void *p = nullptr;
    ASSERT_EQ(hipMalloc(&p, 12345), hipSuccess);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % sysconf(_SC_PAGESIZE), 0u);

    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, p), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeDevice);
    EXPECT_EQ(attr.device, 0);
    EXPECT_EQ(attr.devicePointer, p);
    EXPECT_EQ(attr.hostPointer, nullptr);
    EXPECT_EQ(attr.isManaged, 0);
    EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HostRuntime, DeviceMemoryIsZeroedAndCpuAddressable)
{
    unsigned char *p = nullptr;
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&p), 4096), hipSuccess);
    for (int i = 0; i < 4096; i++)
        ASSERT_EQ(p[i], 0);
    p[17] = 0x5a;
    EXPECT_EQ(p[17], 0x5a);
    EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HostRuntime, InteriorPointerOfDeviceAllocationIsDeviceMemory)
{
    char *p = nullptr;
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&p), 1 << 20), hipSuccess);

    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, p + 777), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeDevice);
    EXPECT_EQ(attr.devicePointer, p + 777);

    hipDeviceptr_t base = nullptr;
    size_t size = 0;
    ASSERT_EQ(hipMemGetAddressRange(&base, &size, p + 777), hipSuccess);
    EXPECT_EQ(base, p);
    EXPECT_EQ(size, 1u << 20);
    ASSERT_EQ(hipMemGetAddressRange(&base, &size, p + (1 << 20) - 1), hipSuccess);
    EXPECT_EQ(base, p);
    EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HostRuntime, PointerOnePastTheEndIsNotPartOfTheAllocation)
{
    char *p = nullptr;
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&p), 100), hipSuccess);
    hipPointerAttribute_t attr;
    EXPECT_EQ(hipPointerGetAttributes(&attr, p + 100), hipErrorInvalidValue);
    hipDeviceptr_t base;
    size_t size;
    EXPECT_EQ(hipMemGetAddressRange(&base, &size, p + 100), hipErrorNotFound);
    EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HostRuntime, HostMallocIsPinnedHostMemoryMappedAtTheSameAddress)
{
    void *p = nullptr;
    ASSERT_EQ(hipHostMalloc(&p, 8192, hipHostMallocMapped | hipHostMallocPortable), hipSuccess);

    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, static_cast<char *>(p) + 10), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeHost);
    EXPECT_EQ(attr.hostPointer, static_cast<char *>(p) + 10);
    EXPECT_EQ(attr.devicePointer, static_cast<char *>(p) + 10);
    EXPECT_EQ(attr.isManaged, 0);
    EXPECT_EQ(attr.allocationFlags, unsigned(hipHostMallocMapped | hipHostMallocPortable));

    void *dev = nullptr;
    ASSERT_EQ(hipHostGetDevicePointer(&dev, static_cast<char *>(p) + 5, 0), hipSuccess);
    EXPECT_EQ(dev, static_cast<char *>(p) + 5);

    hipDeviceptr_t base;
    size_t size;
    ASSERT_EQ(hipMemGetAddressRange(&base, &size, static_cast<char *>(p) + 8000), hipSuccess);
    EXPECT_EQ(base, p);
    EXPECT_EQ(size, 8192u);
    EXPECT_EQ(hipHostFree(p), hipSuccess);
}

TEST_F(HostRuntime, MallocManagedIsManagedHostAccessibleMemory)
{
    void *p = nullptr;
    ASSERT_EQ(hipMallocManaged(&p, 3000, hipMemAttachGlobal), hipSuccess);
    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, p), hipSuccess);
    EXPECT_EQ(attr.isManaged, 1);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeHost);
    EXPECT_EQ(attr.hostPointer, p);
    EXPECT_EQ(attr.devicePointer, p);
    hipDeviceptr_t base;
    size_t size;
    ASSERT_EQ(hipMemGetAddressRange(&base, &size, static_cast<char *>(p) + 2999), hipSuccess);
    EXPECT_EQ(base, p);
    EXPECT_EQ(size, 3000u);
    EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HostRuntime, MallocManagedRejectsBadArguments)
{
    void *p = nullptr;
    EXPECT_EQ(hipMallocManaged(&p, 0, hipMemAttachGlobal), hipErrorInvalidValue);
    EXPECT_EQ(hipMallocManaged(&p, 64, hipMemAttachSingle), hipErrorInvalidValue);
    EXPECT_EQ(hipMallocManaged(nullptr, 64, hipMemAttachGlobal), hipErrorInvalidValue);
}

TEST_F(HostRuntime, ExtMallocWithFlagsGivesDeviceMemoryForEveryKind)
{
    for (unsigned flags :
         {hipDeviceMallocDefault, hipDeviceMallocFinegrained, hipMallocSignalMemory}) {
        void *p = nullptr;
        ASSERT_EQ(hipExtMallocWithFlags(&p, 4096, flags), hipSuccess) << flags;
        hipPointerAttribute_t attr;
        ASSERT_EQ(hipPointerGetAttributes(&attr, p), hipSuccess);
        EXPECT_EQ(attr.memoryType, hipMemoryTypeDevice) << flags;
        EXPECT_EQ(hipFree(p), hipSuccess);
    }
    void *p = reinterpret_cast<void *>(0x1);
    EXPECT_EQ(hipExtMallocWithFlags(&p, 4096, 5), hipErrorInvalidValue);
    EXPECT_EQ(hipExtMallocWithFlags(nullptr, 4096, 0), hipErrorInvalidValue);
}

/* A stream's work runs on a thread of the runtime, which must not take the program's signals. */
TEST_F(HostRuntime, StreamWorkersBlockTheProgramsSignalsButNotFaults)
{
    struct Seen {
        sigset_t mask;
    } seen;
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(
        hipLaunchHostFunc(
            s,
            [](void *arg) { pthread_sigmask(SIG_BLOCK, nullptr, &static_cast<Seen *>(arg)->mask); },
            &seen),
        hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGUSR1, SIGCHLD, SIGALRM})
        EXPECT_TRUE(sigismember(&seen.mask, sig)) << strsignal(sig);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
        EXPECT_FALSE(sigismember(&seen.mask, sig)) << strsignal(sig);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

/* AMD's tests pause a stream on a signal word made this way, then release it with hipMemcpy. */
TEST_F(HostRuntime, StreamWaitsOnASignalWordUntilACopyReleasesIt)
{
    uint64_t *flag = nullptr;
    ASSERT_EQ(hipExtMallocWithFlags(reinterpret_cast<void **>(&flag), sizeof(*flag),
                                    hipMallocSignalMemory),
              hipSuccess);
    uint64_t value = 0;
    ASSERT_EQ(hipMemcpy(flag, &value, sizeof(value), hipMemcpyHostToDevice), hipSuccess);
    hipStream_t s;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipStreamWaitValue64(s, flag, 1, hipStreamWaitValueEq, ~0ull), hipSuccess);
    EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
    value = 1;
    ASSERT_EQ(hipMemcpy(flag, &value, sizeof(value), hipMemcpyHostToDevice), hipSuccess);
    EXPECT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipFree(flag), hipSuccess);
}

TEST_F(HostRuntime, RegisteredHostMemoryIsHostMemoryUntilUnregistered)
{
    std::vector<char> buf(10000);
    ASSERT_EQ(hipHostRegister(buf.data(), buf.size(), hipHostRegisterMapped), hipSuccess);

    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, buf.data() + 9999), hipSuccess);
    EXPECT_EQ(attr.memoryType, hipMemoryTypeHost);
    EXPECT_EQ(attr.hostPointer, buf.data() + 9999);
    EXPECT_EQ(attr.allocationFlags, unsigned(hipHostRegisterMapped));
    void *dev = nullptr;
    EXPECT_EQ(hipHostGetDevicePointer(&dev, buf.data(), 0), hipSuccess);
    EXPECT_EQ(dev, buf.data());

    EXPECT_EQ(hipHostRegister(buf.data() + 100, 10, 0), hipErrorHostMemoryAlreadyRegistered);
    EXPECT_EQ(hipHostUnregister(buf.data() + 1), hipErrorHostMemoryNotRegistered);
    ASSERT_EQ(hipHostUnregister(buf.data()), hipSuccess);
    EXPECT_EQ(hipPointerGetAttributes(&attr, buf.data()), hipErrorInvalidValue);
    EXPECT_EQ(hipHostUnregister(buf.data()), hipErrorHostMemoryNotRegistered);
}

TEST_F(HostRuntime, HostRegisterRejectsBadArguments)
{
    char buf[64];
    EXPECT_EQ(hipHostRegister(nullptr, 64, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipHostRegister(buf, 0, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipHostRegister(buf, sizeof(buf), 0x80), hipErrorInvalidValue);
    EXPECT_EQ(hipHostUnregister(nullptr), hipErrorInvalidValue);
}

TEST_F(HostRuntime, UnknownPointerIsInvalidValue)
{
    int on_stack = 0;
    std::vector<char> on_heap(100);
    hipPointerAttribute_t attr;
    EXPECT_EQ(hipPointerGetAttributes(&attr, &on_stack), hipErrorInvalidValue);
    EXPECT_EQ(hipPointerGetAttributes(&attr, on_heap.data()), hipErrorInvalidValue);
    EXPECT_EQ(hipPointerGetAttributes(&attr, nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipPointerGetAttributes(nullptr, on_heap.data()), hipErrorInvalidValue);

    hipDeviceptr_t base;
    size_t size;
    EXPECT_EQ(hipMemGetAddressRange(&base, &size, on_heap.data()), hipErrorNotFound);
    EXPECT_EQ(hipMemGetAddressRange(nullptr, &size, on_heap.data()), hipErrorInvalidValue);
    EXPECT_EQ(hipMemGetAddressRange(&base, nullptr, on_heap.data()), hipErrorInvalidValue);
    EXPECT_EQ(hipMemGetAddressRange(&base, &size, nullptr), hipErrorInvalidValue);

    void *dev;
    EXPECT_EQ(hipHostGetDevicePointer(&dev, on_heap.data(), 0), hipErrorInvalidValue);
}

TEST_F(HostRuntime, FreedPointerIsUnknown)
{
    void *p = nullptr;
    ASSERT_EQ(hipMalloc(&p, 4096), hipSuccess);
    ASSERT_EQ(hipFree(p), hipSuccess);
    hipPointerAttribute_t attr;
    EXPECT_EQ(hipPointerGetAttributes(&attr, p), hipErrorInvalidValue);
}

TEST_F(HostRuntime, FreeRejectsWhatItDidNotAllocate)
{
    void *dev = nullptr, *pinned = nullptr;
    std::vector<char> host(64);
    ASSERT_EQ(hipMalloc(&dev, 256), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, 256, 0), hipSuccess);

    EXPECT_EQ(hipFree(host.data()), hipErrorInvalidValue);
    EXPECT_EQ(hipFree(static_cast<char *>(dev) + 1), hipErrorInvalidValue);
    EXPECT_EQ(hipFree(pinned), hipErrorInvalidValue);
    EXPECT_EQ(hipHostFree(dev), hipErrorInvalidValue);
    EXPECT_EQ(hipHostFree(host.data()), hipErrorInvalidValue);

    EXPECT_EQ(hipFree(dev), hipSuccess);
    EXPECT_EQ(hipFree(dev), hipErrorInvalidValue);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
    EXPECT_EQ(hipFree(nullptr), hipSuccess);
    EXPECT_EQ(hipHostFree(nullptr), hipSuccess);
}

TEST_F(HostRuntime, ZeroSizedAllocationsGiveNull)
{
    void *p = reinterpret_cast<void *>(1);
    EXPECT_EQ(hipMalloc(&p, 0), hipSuccess);
    EXPECT_EQ(p, nullptr);
    p = reinterpret_cast<void *>(1);
    EXPECT_EQ(hipHostMalloc(&p, 0, 0), hipSuccess);
    EXPECT_EQ(p, nullptr);
}

TEST_F(HostRuntime, AllocationRejectsBadArguments)
{
    void *p = nullptr;
    EXPECT_EQ(hipMalloc(nullptr, 16), hipErrorInvalidValue);
    EXPECT_EQ(hipMalloc(&p, SIZE_MAX), hipErrorOutOfMemory);
    EXPECT_EQ(hipHostMalloc(nullptr, 16, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipHostMalloc(&p, 16, 0x100), hipErrorInvalidValue);
    EXPECT_EQ(hipHostMalloc(&p, 16, hipHostMallocCoherent | hipHostMallocNonCoherent),
              hipErrorInvalidValue);
}

TEST_F(HostRuntime, HostGetDevicePointerRejectsFlags)
{
    void *p = nullptr, *dev = nullptr;
    ASSERT_EQ(hipHostMalloc(&p, 64, 0), hipSuccess);
    EXPECT_EQ(hipHostGetDevicePointer(&dev, p, 1), hipErrorInvalidValue);
    EXPECT_EQ(hipHostGetDevicePointer(nullptr, p, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipHostFree(p), hipSuccess);
}

TEST_F(HostRuntime, MemGetInfoReportsFreeWithinTotal)
{
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(hipMemGetInfo(&free_bytes, &total), hipSuccess);
    EXPECT_GT(total, 0u);
    EXPECT_LE(free_bytes, total);
    EXPECT_EQ(hipMemGetInfo(nullptr, &total), hipErrorInvalidValue);
}

// ------------------------------------------------------------------------------- copies and fills

TEST_F(HostRuntime, MemcpyMovesDataInEveryDirection)
{
    const size_t n = 64 * 1024;
    std::vector<unsigned char> src(n), dst(n);
    for (size_t i = 0; i < n; i++)
        src[i] = static_cast<unsigned char>(i * 7 + 3);
    void *d1 = nullptr, *d2 = nullptr, *pinned = nullptr;
    ASSERT_EQ(hipMalloc(&d1, n), hipSuccess);
    ASSERT_EQ(hipMalloc(&d2, n), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, n, 0), hipSuccess);

    ASSERT_EQ(hipMemcpy(d1, src.data(), n, hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(d2, d1, n, hipMemcpyDeviceToDevice), hipSuccess);
    ASSERT_EQ(hipMemcpy(pinned, d2, n, hipMemcpyDeviceToHost), hipSuccess);
    ASSERT_EQ(hipMemcpy(dst.data(), pinned, n, hipMemcpyHostToHost), hipSuccess);
    EXPECT_EQ(dst, src);

    std::fill(dst.begin(), dst.end(), 0);
    ASSERT_EQ(hipMemcpy(d1, pinned, n, hipMemcpyDefault), hipSuccess);
    ASSERT_EQ(hipMemcpy(dst.data(), d1, n, hipMemcpyDefault), hipSuccess);
    EXPECT_EQ(dst, src);

    std::fill(dst.begin(), dst.end(), 0);
    ASSERT_EQ(hipMemcpyHtoD(d1, src.data(), n), hipSuccess);
    ASSERT_EQ(hipMemcpyDtoD(d2, d1, n), hipSuccess);
    ASSERT_EQ(hipMemcpyDtoH(dst.data(), d2, n), hipSuccess);
    EXPECT_EQ(dst, src);

    EXPECT_EQ(hipFree(d1), hipSuccess);
    EXPECT_EQ(hipFree(d2), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST_F(HostRuntime, MemcpyRejectsBadArguments)
{
    char a[16] = {}, b[16] = {};
    EXPECT_EQ(hipMemcpy(a, b, sizeof(a), static_cast<hipMemcpyKind>(5)),
              hipErrorInvalidMemcpyDirection);
    EXPECT_EQ(hipMemcpy(nullptr, b, sizeof(a), hipMemcpyDefault), hipErrorInvalidValue);
    EXPECT_EQ(hipMemcpy(a, nullptr, sizeof(a), hipMemcpyDefault), hipErrorInvalidValue);
    EXPECT_EQ(hipMemcpy(a, b, 0, hipMemcpyDefault), hipSuccess);
}

TEST_F(HostRuntime, CopyRunningPastTheAllocationEndIsRejected)
{
    char *d = nullptr;
    std::vector<char> host(8192);
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&d), 4096), hipSuccess);
    EXPECT_EQ(hipMemcpy(d + 4000, host.data(), 97, hipMemcpyHostToDevice), hipErrorInvalidValue);
    EXPECT_EQ(hipMemcpy(host.data(), d, 4097, hipMemcpyDeviceToHost), hipErrorInvalidValue);
    EXPECT_EQ(hipMemset(d + 1, 0, 4096), hipErrorInvalidValue);
    EXPECT_EQ(hipMemcpy(d + 4000, host.data(), 96, hipMemcpyHostToDevice), hipSuccess);
    EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HostRuntime, CopyBeyondARegisteredRangeIsAllowed)
{
    // Registering part of a buffer does not make the rest of it any less valid host memory.
    std::vector<char> buf(3 * 4096), src(2 * 4096, 'x');
    ASSERT_EQ(hipHostRegister(buf.data(), 4096, 0), hipSuccess);
    EXPECT_EQ(hipMemcpy(buf.data() + 100, src.data(), src.size(), hipMemcpyHostToHost), hipSuccess);
    EXPECT_EQ(buf[100 + src.size() - 1], 'x');
    EXPECT_EQ(hipHostUnregister(buf.data()), hipSuccess);
}

TEST_F(HostRuntime, MemsetFillsBytes)
{
    unsigned char *d = nullptr;
    ASSERT_EQ(hipMalloc(reinterpret_cast<void **>(&d), 1000), hipSuccess);
    ASSERT_EQ(hipMemset(d, 0x1ab, 1000), hipSuccess); // only the low byte counts
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ(d[i], 0xab);

    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(d + 10, 0x11, 20, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(d[9], 0xab);
    EXPECT_EQ(d[10], 0x11);
    EXPECT_EQ(d[29], 0x11);
    EXPECT_EQ(d[30], 0xab);
    EXPECT_EQ(hipMemset(nullptr, 0, 10), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipFree(d), hipSuccess);
}

// ------------------------------------------------------------------------------------------
// streams

TEST_F(HostRuntime, AsyncCopiesAndHostFunctionsRunInStreamOrder)
{
    hipStream_t s;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);

    struct Log {
        std::mutex lock;
        std::vector<int> order;
    } log;
    struct Step {
        Log *log;
        int index;
    };
    std::vector<Step> steps;
    steps.reserve(200);
    for (int i = 0; i < 200; i++)
        steps.push_back({&log, i});

    const size_t n = 4096;
    std::vector<unsigned char> src(n, 0x42), dst(n, 0);
    void *d = nullptr;
    ASSERT_EQ(hipMalloc(&d, n), hipSuccess);
    for (auto &step : steps) {
        ASSERT_EQ(hipLaunchHostFunc(
                      s,
                      [](void *arg) {
                          auto *st = static_cast<Step *>(arg);
                          std::lock_guard<std::mutex> g(st->log->lock);
                          st->log->order.push_back(st->index);
                      },
                      &step),
                  hipSuccess);
        if (step.index == 100) {
            ASSERT_EQ(hipMemcpyAsync(d, src.data(), n, hipMemcpyHostToDevice, s), hipSuccess);
            ASSERT_EQ(hipMemcpyAsync(dst.data(), d, n, hipMemcpyDeviceToHost, s), hipSuccess);
        }
    }
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    ASSERT_EQ(log.order.size(), 200u);
    for (int i = 0; i < 200; i++)
        EXPECT_EQ(log.order[i], i);
    EXPECT_EQ(dst, src);
    EXPECT_EQ(hipStreamQuery(s), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipFree(d), hipSuccess);
}

TEST_F(HostRuntime, HostFunctionsRunOnTheStreamWorkerNotTheCaller)
{
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    std::thread::id seen;
    ASSERT_EQ(
        hipLaunchHostFunc(
            s, [](void *arg) { *static_cast<std::thread::id *>(arg) = std::this_thread::get_id(); },
            &seen),
        hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_NE(seen, std::this_thread::get_id());

    // The null stream is synchronous: its host function has run, in this thread, on return.
    std::thread::id inline_seen;
    ASSERT_EQ(
        hipLaunchHostFunc(
            nullptr,
            [](void *arg) { *static_cast<std::thread::id *>(arg) = std::this_thread::get_id(); },
            &inline_seen),
        hipSuccess);
    EXPECT_EQ(inline_seen, std::this_thread::get_id());
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HostRuntime, StreamCallbackGetsItsStreamAndSuccess)
{
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    struct Seen {
        hipStream_t stream = nullptr;
        hipError_t status = hipErrorUnknown;
    } seen;
    ASSERT_EQ(hipStreamAddCallback(
                  s,
                  [](hipStream_t stream, hipError_t status, void *arg) {
                      auto *out = static_cast<Seen *>(arg);
                      out->stream = stream;
                      out->status = status;
                  },
                  &seen, 0),
              hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(seen.stream, s);
    EXPECT_EQ(seen.status, hipSuccess);
    EXPECT_EQ(hipStreamAddCallback(s, nullptr, nullptr, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamAddCallback(
                  s, [](hipStream_t, hipError_t, void *) {}, nullptr, 1),
              hipErrorInvalidValue);
    EXPECT_EQ(hipLaunchHostFunc(s, nullptr, nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HostRuntime, StreamCreateRejectsBadArguments)
{
    hipStream_t s;
    EXPECT_EQ(hipStreamCreate(nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamCreateWithFlags(&s, 0x4), hipErrorInvalidValue);
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    unsigned flags = 0;
    ASSERT_EQ(hipStreamGetFlags(s, &flags), hipSuccess);
    EXPECT_EQ(flags, unsigned(hipStreamNonBlocking));
    EXPECT_EQ(hipStreamGetFlags(s, nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HostRuntime, DestroyedStreamHandleIsRejected)
{
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
    char a[4], b[4] = {};
    EXPECT_EQ(hipMemcpyAsync(a, b, 4, hipMemcpyHostToHost, s), hipErrorInvalidHandle);
    EXPECT_EQ(hipStreamSynchronize(s), hipErrorInvalidHandle);
    EXPECT_EQ(hipStreamQuery(s), hipErrorInvalidHandle);
    EXPECT_EQ(hipStreamDestroy(s), hipErrorInvalidHandle);
    EXPECT_EQ(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
}

TEST_F(HostRuntime, DestroyingABusyStreamStillRunsItsWork)
{
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    alignas(4) static uint32_t gate;
    gate = 0;
    std::atomic<int> ran{0};
    ASSERT_EQ(hipStreamWaitValue32(s, &gate, 1, hipStreamWaitValueEq, 0xffffffffu), hipSuccess);
    ASSERT_EQ(hipLaunchHostFunc(
                  s, [](void *arg) { static_cast<std::atomic<int> *>(arg)->store(1); }, &ran),
              hipSuccess);
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(ran.load(), 0);
    __atomic_store_n(&gate, 1u, __ATOMIC_RELEASE);
    EXPECT_TRUE(eventually([&] { return ran.load() == 1; }));
}

// ------------------------------------------------------------------------ stream memory operations

struct WaitCase {
    unsigned flags;
    uint64_t value;
    uint64_t mask;
    uint64_t blocking_memory;
    uint64_t releasing_memory;
};

class HostWaitValue : public HostRuntime, public ::testing::WithParamInterface<WaitCase>
{
};

// Each case: the stream stays blocked while memory holds blocking_memory, and moves on once a host
// thread stores releasing_memory.
TEST_P(HostWaitValue, BlocksUntilTheConditionHolds32And64)
{
    const WaitCase c = GetParam();
    for (int width : {4, 8}) {
        SCOPED_TRACE(width);
        alignas(8) static uint64_t word;
        word = c.blocking_memory;
        hipStream_t s;
        ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
        std::atomic<int> after{0};
        if (width == 4)
            ASSERT_EQ(hipStreamWaitValue32(s, &word, static_cast<uint32_t>(c.value), c.flags,
                                           static_cast<uint32_t>(c.mask)),
                      hipSuccess);
        else
            ASSERT_EQ(hipStreamWaitValue64(s, &word, c.value, c.flags, c.mask), hipSuccess);
        ASSERT_EQ(hipLaunchHostFunc(
                      s, [](void *arg) { static_cast<std::atomic<int> *>(arg)->store(1); }, &after),
                  hipSuccess);

        std::this_thread::sleep_for(20ms);
        EXPECT_EQ(after.load(), 0);
        EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);

        if (width == 4)
            __atomic_store_n(reinterpret_cast<uint32_t *>(&word),
                             static_cast<uint32_t>(c.releasing_memory), __ATOMIC_RELEASE);
        else
            __atomic_store_n(&word, c.releasing_memory, __ATOMIC_RELEASE);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        EXPECT_EQ(after.load(), 1);
        EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    }
}

std::string wait_case_name(const ::testing::TestParamInfo<WaitCase> &info)
{
    static const char *const names[] = {"Gte", "Eq", "And", "Nor"};
    return std::string(names[info.param.flags]) + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(
    AllFlags, HostWaitValue,
    ::testing::Values(WaitCase{hipStreamWaitValueGte, 5, ~0ull, 4, 9},
                      WaitCase{hipStreamWaitValueEq, 7, ~0ull, 6, 7},
                      WaitCase{hipStreamWaitValueEq, 0x7, 0xf, 0x16, 0x27}, // mask on memory
                      WaitCase{hipStreamWaitValueAnd, 0x4, ~0ull, 0x3, 0xc},
                      // Nor: released once some bit is clear in both memory and value.
                      WaitCase{hipStreamWaitValueNor, 0x0f0f0f0f0f0f0f0full, ~0ull,
                               0xf0f0f0f0f0f0f0f0ull, 0xf0f0f0f0f0f0f070ull}),
    wait_case_name);

TEST_F(HostRuntime, WriteValueOnOneStreamReleasesAWaitOnAnother)
{
    alignas(8) static uint64_t flag64;
    alignas(4) static uint32_t flag32;
    flag64 = 0;
    flag32 = 0;
    hipStream_t waiter, writer;
    ASSERT_EQ(hipStreamCreateWithFlags(&waiter, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipStreamCreateWithFlags(&writer, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipStreamWaitValue32(waiter, &flag32, 3, hipStreamWaitValueEq, 0xffffffffu),
              hipSuccess);
    ASSERT_EQ(hipStreamWaitValue64(waiter, &flag64, 1ull << 40, hipStreamWaitValueGte, ~0ull),
              hipSuccess);
    ASSERT_EQ(hipStreamWriteValue32(waiter, &flag32, 4, 0), hipSuccess);

    std::this_thread::sleep_for(10ms);
    EXPECT_EQ(hipStreamQuery(waiter), hipErrorNotReady);
    ASSERT_EQ(hipStreamWriteValue32(writer, &flag32, 3, 0), hipSuccess);
    ASSERT_EQ(hipStreamWriteValue64(writer, &flag64, 1ull << 41, 0), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(waiter), hipSuccess);
    EXPECT_EQ(flag32, 4u);
    EXPECT_EQ(flag64, 1ull << 41);
    EXPECT_EQ(hipStreamDestroy(waiter), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(writer), hipSuccess);
}

TEST_F(HostRuntime, StreamMemoryOperationsRejectBadArguments)
{
    alignas(8) static uint64_t word;
    char *bytes = reinterpret_cast<char *>(&word);
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    EXPECT_EQ(hipStreamWaitValue32(s, nullptr, 0, hipStreamWaitValueEq, ~0u), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamWaitValue32(s, bytes + 1, 0, hipStreamWaitValueEq, ~0u),
              hipErrorInvalidValue);
    EXPECT_EQ(hipStreamWaitValue64(s, bytes + 4, 0, hipStreamWaitValueEq, ~0ull),
              hipErrorInvalidValue);
    EXPECT_EQ(hipStreamWaitValue32(s, &word, 0, 4, ~0u), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamWriteValue32(s, nullptr, 0, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamWriteValue64(s, bytes + 2, 0, 0), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HostRuntime, NullStreamWaitsForBlockingStreamsButNotNonBlockingOnes)
{
    alignas(4) static uint32_t gate;
    gate = 0;
    hipStream_t blocking, nonblocking;
    ASSERT_EQ(hipStreamCreate(&blocking), hipSuccess);
    ASSERT_EQ(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking), hipSuccess);

    // A held non-blocking stream does not hold up the null stream.
    ASSERT_EQ(hipStreamWaitValue32(nonblocking, &gate, 1, hipStreamWaitValueEq, ~0u), hipSuccess);
    char a[8] = {}, b[8] = {1};
    EXPECT_EQ(hipMemcpy(a, b, sizeof(a), hipMemcpyHostToHost), hipSuccess);

    // A held blocking stream does.
    ASSERT_EQ(hipStreamWaitValue32(blocking, &gate, 1, hipStreamWaitValueEq, ~0u), hipSuccess);
    std::atomic<bool> copied{false};
    std::thread t([&] {
        EXPECT_EQ(hipMemcpy(a, b, sizeof(a), hipMemcpyHostToHost), hipSuccess);
        copied = true;
    });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(copied.load());
    EXPECT_EQ(hipStreamQuery(nullptr), hipErrorNotReady);
    __atomic_store_n(&gate, 1u, __ATOMIC_RELEASE);
    t.join();
    EXPECT_TRUE(copied.load());
    EXPECT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
    EXPECT_EQ(hipStreamSynchronize(nonblocking), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(blocking), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(nonblocking), hipSuccess);
}

TEST_F(HostRuntime, DeviceSynchronizeWaitsForEveryStream)
{
    constexpr int kStreams = 4;
    hipStream_t s[kStreams];
    std::atomic<int> done{0};
    for (auto &stream : s) {
        ASSERT_EQ(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipSuccess);
        ASSERT_EQ(hipLaunchHostFunc(
                      stream,
                      [](void *arg) {
                          std::this_thread::sleep_for(10ms);
                          static_cast<std::atomic<int> *>(arg)->fetch_add(1);
                      },
                      &done),
                  hipSuccess);
    }
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(done.load(), kStreams);
    for (auto stream : s)
        EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
}

// -------------------------------------------------------------------------------------------
// events

TEST_F(HostRuntime, EventsCompleteInStreamOrderAndMeasureTime)
{
    alignas(4) static uint32_t gate;
    gate = 0;
    hipStream_t s;
    hipEvent_t start, stop;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipEventCreate(&start), hipSuccess);
    ASSERT_EQ(hipEventCreateWithFlags(&stop, hipEventBlockingSync), hipSuccess);

    EXPECT_EQ(hipEventQuery(stop), hipSuccess); // never recorded
    ASSERT_EQ(hipEventRecord(start, s), hipSuccess);
    ASSERT_EQ(hipStreamWaitValue32(s, &gate, 1, hipStreamWaitValueEq, ~0u), hipSuccess);
    ASSERT_EQ(hipEventRecord(stop, s), hipSuccess);

    float ms = -1;
    EXPECT_TRUE(eventually([&] { return hipEventQuery(start) == hipSuccess; }));
    EXPECT_EQ(hipEventQuery(stop), hipErrorNotReady);
    EXPECT_EQ(hipEventElapsedTime(&ms, start, stop), hipErrorNotReady);
    std::this_thread::sleep_for(15ms);
    __atomic_store_n(&gate, 1u, __ATOMIC_RELEASE);
    ASSERT_EQ(hipEventSynchronize(stop), hipSuccess);
    EXPECT_EQ(hipEventQuery(stop), hipSuccess);
    ASSERT_EQ(hipEventElapsedTime(&ms, start, stop), hipSuccess);
    EXPECT_GE(ms, 10.0f);
    EXPECT_LT(ms, 5000.0f);

    EXPECT_EQ(hipEventDestroy(start), hipSuccess);
    EXPECT_EQ(hipEventDestroy(stop), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(HostRuntime, EventOnTheNullStreamCompletesAtOnce)
{
    hipEvent_t e;
    ASSERT_EQ(hipEventCreate(&e), hipSuccess);
    ASSERT_EQ(hipEventRecord(e, nullptr), hipSuccess);
    EXPECT_EQ(hipEventQuery(e), hipSuccess);
    EXPECT_EQ(hipEventDestroy(e), hipSuccess);
}

TEST_F(HostRuntime, StreamWaitEventOrdersWorkAcrossStreams)
{
    alignas(4) static uint32_t gate;
    gate = 0;
    hipStream_t producer, consumer;
    hipEvent_t e;
    ASSERT_EQ(hipStreamCreateWithFlags(&producer, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipStreamCreateWithFlags(&consumer, hipStreamNonBlocking), hipSuccess);
    ASSERT_EQ(hipEventCreateWithFlags(&e, hipEventDisableTiming), hipSuccess);

    ASSERT_EQ(hipStreamWaitValue32(producer, &gate, 1, hipStreamWaitValueEq, ~0u), hipSuccess);
    ASSERT_EQ(hipEventRecord(e, producer), hipSuccess);
    ASSERT_EQ(hipStreamWaitEvent(consumer, e, 0), hipSuccess);
    std::atomic<int> ran{0};
    ASSERT_EQ(
        hipLaunchHostFunc(
            consumer, [](void *arg) { static_cast<std::atomic<int> *>(arg)->store(1); }, &ran),
        hipSuccess);
    // The event may go away before the streams reach it.
    EXPECT_EQ(hipEventDestroy(e), hipSuccess);

    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(ran.load(), 0);
    __atomic_store_n(&gate, 1u, __ATOMIC_RELEASE);
    ASSERT_EQ(hipStreamSynchronize(consumer), hipSuccess);
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(hipStreamDestroy(producer), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(consumer), hipSuccess);
}

TEST_F(HostRuntime, EventErrorsMatchHip)
{
    hipEvent_t timed, untimed, unrecorded;
    float ms;
    ASSERT_EQ(hipEventCreate(&timed), hipSuccess);
    ASSERT_EQ(hipEventCreateWithFlags(&untimed, hipEventDisableTiming), hipSuccess);
    ASSERT_EQ(hipEventCreate(&unrecorded), hipSuccess);
    ASSERT_EQ(hipEventRecord(timed, nullptr), hipSuccess);
    ASSERT_EQ(hipEventRecord(untimed, nullptr), hipSuccess);

    EXPECT_EQ(hipEventElapsedTime(&ms, timed, untimed), hipErrorInvalidHandle);
    EXPECT_EQ(hipEventElapsedTime(&ms, timed, unrecorded), hipErrorInvalidHandle);
    EXPECT_EQ(hipEventElapsedTime(nullptr, timed, timed), hipErrorInvalidValue);
    EXPECT_EQ(hipEventElapsedTime(&ms, nullptr, timed), hipErrorInvalidHandle);
    EXPECT_EQ(hipEventElapsedTime(&ms, timed, timed), hipSuccess);
    EXPECT_EQ(ms, 0.0f);

    hipEvent_t e;
    EXPECT_EQ(hipEventCreate(nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipEventCreateWithFlags(&e, 0x100), hipErrorInvalidValue);
    EXPECT_EQ(hipEventCreateWithFlags(&e, hipEventInterprocess), hipErrorInvalidValue);
    EXPECT_EQ(hipEventRecord(nullptr, nullptr), hipErrorInvalidHandle);
    EXPECT_EQ(hipStreamWaitEvent(nullptr, timed, 1), hipErrorInvalidValue);
    EXPECT_EQ(hipStreamWaitEvent(nullptr, nullptr, 0), hipErrorInvalidHandle);

    EXPECT_EQ(hipEventDestroy(timed), hipSuccess);
    EXPECT_EQ(hipEventDestroy(untimed), hipSuccess);
    EXPECT_EQ(hipEventDestroy(unrecorded), hipSuccess);
    EXPECT_EQ(hipEventDestroy(timed), hipErrorInvalidHandle);
    EXPECT_EQ(hipEventQuery(timed), hipErrorInvalidHandle);
    EXPECT_EQ(hipEventDestroy(nullptr), hipErrorInvalidHandle);
}

// ------------------------------------------------------------------------------------------
// devices

TEST_F(HostRuntime, DeviceCountComesFromTheEnvironment)
{
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    EXPECT_EQ(count, atoi(getenv("HIP_HOST_DEVICE_COUNT")));
    EXPECT_EQ(hipGetDeviceCount(nullptr), hipErrorInvalidValue);
}

TEST_F(HostRuntime, CurrentDeviceIsPerThreadAndAllocationsRememberIt)
{
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    ASSERT_GE(count, 2) << "run with HIP_HOST_DEVICE_COUNT >= 2";

    ASSERT_EQ(hipSetDevice(count - 1), hipSuccess);
    int device = -1;
    ASSERT_EQ(hipGetDevice(&device), hipSuccess);
    EXPECT_EQ(device, count - 1);
    std::thread([] {
        int other = -1;
        EXPECT_EQ(hipGetDevice(&other), hipSuccess);
        EXPECT_EQ(other, 0);
    }).join();

    void *p = nullptr, *pinned = nullptr;
    ASSERT_EQ(hipMalloc(&p, 64), hipSuccess);
    ASSERT_EQ(hipHostMalloc(&pinned, 64, 0), hipSuccess);
    hipStream_t s;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);

    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, p), hipSuccess);
    EXPECT_EQ(attr.device, count - 1);
    ASSERT_EQ(hipPointerGetAttributes(&attr, pinned), hipSuccess);
    EXPECT_EQ(attr.device, count - 1);
    // Streams of another device still take work and synchronize.
    ASSERT_EQ(hipMemsetAsync(p, 1, 64, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(static_cast<unsigned char *>(p)[63], 1);

    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipFree(p), hipSuccess);
    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST_F(HostRuntime, InvalidDeviceIsRejected)
{
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    int value;
    hipDeviceProp_t prop;
    char name[64];
    EXPECT_EQ(hipSetDevice(count), hipErrorInvalidDevice);
    EXPECT_EQ(hipSetDevice(-1), hipErrorInvalidDevice);
    EXPECT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, count),
              hipErrorInvalidDevice);
    EXPECT_EQ(hipGetDeviceProperties(&prop, count), hipErrorInvalidDevice);
    EXPECT_EQ(hipDeviceGetName(name, sizeof(name), count), hipErrorInvalidDevice);
    EXPECT_EQ(hipGetDevice(nullptr), hipErrorInvalidValue);
}

TEST_F(HostRuntime, DeviceDescribesItselfAsHostEmulation)
{
    hipDeviceProp_t prop;
    ASSERT_EQ(hipGetDeviceProperties(&prop, 0), hipSuccess);
    EXPECT_STREQ(prop.name, "hipfile host emulation");
    EXPECT_GT(prop.totalGlobalMem, 0u);
    EXPECT_EQ(prop.integrated, 1);
    EXPECT_EQ(prop.managedMemory, 1);
    EXPECT_EQ(hipGetDeviceProperties(nullptr, 0), hipErrorInvalidValue);

    char name[8];
    ASSERT_EQ(hipDeviceGetName(name, sizeof(name), 0), hipSuccess);
    EXPECT_STREQ(name, "hipfile"); // truncated to fit
    EXPECT_EQ(hipDeviceGetName(nullptr, 8, 0), hipErrorInvalidValue);
}

TEST_F(HostRuntime, DeviceAttributesCoverWhatTheCoreAsks)
{
    int value = -1;
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeCanUseStreamWaitValue, 0),
              hipSuccess);
    EXPECT_EQ(value, 1);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeIntegrated, 0), hipSuccess);
    EXPECT_EQ(value, 1);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeCanMapHostMemory, 0), hipSuccess);
    EXPECT_EQ(value, 1);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributePciDeviceId, 0), hipSuccess);
    EXPECT_EQ(value, 0);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeMultiprocessorCount, 0), hipSuccess);
    EXPECT_GE(value, 1);
    EXPECT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeGcnArchName, 0),
              hipErrorInvalidValue);
    EXPECT_EQ(hipDeviceGetAttribute(&value, static_cast<hipDeviceAttribute_t>(123456), 0),
              hipErrorInvalidValue);
    EXPECT_EQ(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
}

TEST_F(HostRuntime, VersionsAreTheHeadersHipVersion)
{
    int runtime = 0, driver = 0;
    ASSERT_EQ(hipRuntimeGetVersion(&runtime), hipSuccess);
    ASSERT_EQ(hipDriverGetVersion(&driver), hipSuccess);
    EXPECT_EQ(runtime, HIP_VERSION);
    EXPECT_EQ(driver, HIP_VERSION);
    EXPECT_EQ(hipRuntimeGetVersion(nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipDriverGetVersion(nullptr), hipErrorInvalidValue);
    EXPECT_EQ(hipInit(0), hipSuccess);
    EXPECT_EQ(hipInit(1), hipErrorInvalidValue);
}

// Runs this test binary again, filtered to @p test, with @p env added; returns its exit status.
int run_self(const char *test, const char *env_name, const char *env_value)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv(env_name, env_value, 1);
        setenv("HF_RUNTIME_HOST_CHILD", "1", 1);
        if (freopen("/dev/null", "w", stdout) == nullptr)
            _exit(126);
        std::string filter = std::string("--gtest_filter=") + test;
        execl("/proc/self/exe", "test_runtime_host", filter.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HostRuntimeChild, ReportsOneDevice)
{
    if (getenv("HF_RUNTIME_HOST_CHILD") == nullptr)
        GTEST_SKIP() << "runs as the child of EnvironmentWithBadCountFallsBackToOne";
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    EXPECT_EQ(count, 1);
}

TEST_F(HostRuntime, EnvironmentWithBadCountFallsBackToOne)
{
    for (const char *bad : {"0", "17", "two", "3x", "-1"}) {
        SCOPED_TRACE(bad);
        EXPECT_EQ(run_self("HostRuntimeChild.ReportsOneDevice", "HIP_HOST_DEVICE_COUNT", bad), 0);
    }
}

// ----------------------------------------------------------------------- errors and symbol lookup

TEST_F(HostRuntime, ErrorNamesAndStringsAreMeaningful)
{
    EXPECT_STREQ(hipGetErrorName(hipSuccess), "hipSuccess");
    EXPECT_STREQ(hipGetErrorName(hipErrorInvalidValue), "hipErrorInvalidValue");
    EXPECT_STREQ(hipGetErrorName(hipErrorNotReady), "hipErrorNotReady");
    EXPECT_STREQ(hipGetErrorName(hipErrorNoDevice), "hipErrorNoDevice");
    EXPECT_STREQ(hipGetErrorName(static_cast<hipError_t>(4242)), "hipErrorUnknown");
    for (hipError_t e : {hipSuccess, hipErrorInvalidValue, hipErrorOutOfMemory, hipErrorNotReady,
                         hipErrorInvalidHandle, hipErrorNotFound}) {
        const char *text = hipGetErrorString(e);
        ASSERT_NE(text, nullptr);
        EXPECT_GT(strlen(text), 3u);
        EXPECT_STRNE(text, hipGetErrorName(e));
    }
    EXPECT_STREQ(hipGetErrorString(static_cast<hipError_t>(4242)), "unknown error");
}

TEST_F(HostRuntime, LastErrorIsStickyPerThreadAndClearedByGet)
{
    EXPECT_EQ(hipGetLastError(), hipSuccess);
    EXPECT_EQ(hipMalloc(nullptr, 1), hipErrorInvalidValue);
    int count;
    EXPECT_EQ(hipGetDeviceCount(&count), hipSuccess); // a success does not hide the failure
    EXPECT_EQ(hipPeekAtLastError(), hipErrorInvalidValue);
    std::thread([] { EXPECT_EQ(hipGetLastError(), hipSuccess); }).join();
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
    EXPECT_EQ(hipGetLastError(), hipSuccess);
    EXPECT_EQ(hipPeekAtLastError(), hipSuccess);
}

TEST_F(HostRuntime, GetProcAddressResolvesOwnExportsOnly)
{
    void *fn = nullptr;
    int status = -1;
    ASSERT_EQ(hipGetProcAddress("hipMalloc", &fn, 502, 0, &status), hipSuccess);
    EXPECT_EQ(fn,
              reinterpret_cast<void *>(static_cast<hipError_t (*)(void **, size_t)>(&hipMalloc)));
    EXPECT_EQ(status, 0);
    ASSERT_EQ(hipGetProcAddress("hipStreamWaitValue64", &fn, 600, 1, nullptr), hipSuccess);
    EXPECT_EQ(fn, reinterpret_cast<void *>(&hipStreamWaitValue64));

    fn = reinterpret_cast<void *>(1);
    EXPECT_EQ(hipGetProcAddress("hipAmdFileRead", &fn, 600, 0, &status), hipErrorInvalidValue);
    EXPECT_EQ(fn, nullptr);
    EXPECT_EQ(status, kProcNotFound);
    EXPECT_EQ(hipGetProcAddress("malloc", &fn, 600, 0, &status), hipErrorInvalidValue);
    EXPECT_EQ(hipGetProcAddress(nullptr, &fn, 600, 0, &status), hipErrorInvalidValue);
    EXPECT_EQ(hipGetProcAddress("", &fn, 600, 0, &status), hipErrorInvalidValue);
    EXPECT_EQ(hipGetProcAddress("hipMalloc", nullptr, 600, 0, &status), hipErrorInvalidValue);
    EXPECT_EQ(hipGetProcAddress("hipMalloc", &fn, 600, 4, &status), hipErrorInvalidValue);
}

// ------------------------------------------------------------------------------------ thread
// safety

TEST_F(HostRuntime, ConcurrentAllocationAndLookupStayConsistent)
{
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&failures, t] {
            for (int i = 0; i < 200; i++) {
                void *p = nullptr;
                size_t size = 4096 * (1 + (i + t) % 5);
                if (hipMalloc(&p, size) != hipSuccess) {
                    failures++;
                    continue;
                }
                hipDeviceptr_t base;
                size_t got;
                hipPointerAttribute_t attr;
                if (hipMemGetAddressRange(&base, &got, static_cast<char *>(p) + size - 1) !=
                        hipSuccess ||
                    base != p || got != size)
                    failures++;
                if (hipPointerGetAttributes(&attr, p) != hipSuccess ||
                    attr.memoryType != hipMemoryTypeDevice)
                    failures++;
                if (hipFree(p) != hipSuccess)
                    failures++;
            }
        });
    }
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(failures.load(), 0);
}

} // namespace
