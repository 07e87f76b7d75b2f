// The CUDA provider (libhip-cuda) on machines without a usable NVIDIA driver: it must load, report
// no device and fail every GPU call cleanly. A stand-in driver (HIP_CUDA_DRIVER) also checks how
// HIP arguments are translated into driver calls. Each case runs in a child process because the
// provider reads its driver once per process.
#include <gtest/gtest.h>

#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <dlfcn.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

namespace
{

// The provider under test, opened privately: this test program itself links the host provider.
class CudaProvider
{
  public:
    CudaProvider() : lib_(dlopen(HF_HIP_CUDA_PATH, RTLD_NOW | RTLD_LOCAL)) {}
    ~CudaProvider()
    {
        if (lib_ != nullptr)
            dlclose(lib_);
    }
    bool loaded() const
    {
        return lib_ != nullptr;
    }
    template <typename Fn> Fn get(const char *name) const
    {
        return reinterpret_cast<Fn>(dlsym(lib_, name));
    }

  private:
    void *lib_;
};

using GetDeviceCountFn = hipError_t (*)(int *);
using MallocFn = hipError_t (*)(void **, size_t);
using HostMallocFn = hipError_t (*)(void **, size_t, unsigned);
using FreeFn = hipError_t (*)(void *);
using SetDeviceFn = hipError_t (*)(int);
using VoidFn = hipError_t (*)();
using InitFn = hipError_t (*)(unsigned);
using VersionFn = hipError_t (*)(int *);
using StreamCreateFn = hipError_t (*)(hipStream_t *);
using EventCreateFn = hipError_t (*)(hipEvent_t *);
using MemcpyFn = hipError_t (*)(void *, const void *, size_t, hipMemcpyKind);
using PointerAttrFn = hipError_t (*)(hipPointerAttribute_t *, const void *);
using AddressRangeFn = hipError_t (*)(hipDeviceptr_t *, size_t *, hipDeviceptr_t);
using ErrorStringFn = const char *(*)(hipError_t);
using ProcAddressFn = hipError_t (*)(const char *, void **, int, uint64_t, int *);
using WaitValue32Fn = hipError_t (*)(hipStream_t, void *, uint32_t, unsigned, uint32_t);
using WaitValue64Fn = hipError_t (*)(hipStream_t, void *, uint64_t, unsigned, uint64_t);

int failures;

#define CHILD_EXPECT(cond)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                    \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

// Runs @p body in a child whose provider loads @p driver in FAKE_CUDA_MODE @p mode; true when
// every check in the child held.
bool in_child(const char *driver, const char *mode, void (*body)(CudaProvider &))
{
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("HIP_CUDA_DRIVER", driver, 1);
        setenv("FAKE_CUDA_MODE", mode, 1);
        CudaProvider provider;
        if (!provider.loaded()) {
            fprintf(stderr, "cannot open %s: %s\n", HF_HIP_CUDA_PATH, dlerror());
            _exit(100);
        }
        body(provider);
        fflush(nullptr);
        _exit(failures > 99 ? 99 : failures);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// What every call must do when the driver offers no GPU: fail with @p expected, never crash.
void expect_no_gpu(CudaProvider &p, hipError_t expected)
{
    int count = 42;
    CHILD_EXPECT(p.get<GetDeviceCountFn>("hipGetDeviceCount")(&count) == expected);
    CHILD_EXPECT(count == 0);
    CHILD_EXPECT(p.get<InitFn>("hipInit")(0) == expected);

    void *ptr = nullptr;
    CHILD_EXPECT(p.get<MallocFn>("hipMalloc")(&ptr, 4096) == expected);
    CHILD_EXPECT(ptr == nullptr);
    CHILD_EXPECT(p.get<HostMallocFn>("hipHostMalloc")(&ptr, 4096, 0) == expected);
    CHILD_EXPECT(p.get<SetDeviceFn>("hipSetDevice")(0) == expected);
    int device = -1;
    CHILD_EXPECT(p.get<VersionFn>("hipGetDevice")(&device) == expected);
    CHILD_EXPECT(p.get<VoidFn>("hipDeviceSynchronize")() == expected);
    hipStream_t stream = nullptr;
    CHILD_EXPECT(p.get<StreamCreateFn>("hipStreamCreate")(&stream) == expected);
    hipEvent_t event = nullptr;
    CHILD_EXPECT(p.get<EventCreateFn>("hipEventCreate")(&event) == expected);
    char a[8] = {}, b[8] = {};
    CHILD_EXPECT(p.get<MemcpyFn>("hipMemcpy")(a, b, sizeof(a), hipMemcpyHostToHost) == expected);
    hipPointerAttribute_t attr;
    CHILD_EXPECT(p.get<PointerAttrFn>("hipPointerGetAttributes")(&attr, a) == expected);

    CHILD_EXPECT(p.get<VoidFn>("hipGetLastError")() == expected);
    CHILD_EXPECT(p.get<VoidFn>("hipGetLastError")() == hipSuccess);

    // Argument checks still come first, and freeing nothing is still fine.
    CHILD_EXPECT(p.get<MallocFn>("hipMalloc")(nullptr, 16) == hipErrorInvalidValue);
    CHILD_EXPECT(p.get<FreeFn>("hipFree")(nullptr) == hipSuccess);

    // What does not need a GPU keeps working.
    int version = 0;
    CHILD_EXPECT(p.get<VersionFn>("hipRuntimeGetVersion")(&version) == hipSuccess);
    CHILD_EXPECT(version == HIP_VERSION);
    const char *text = p.get<ErrorStringFn>("hipGetErrorString")(expected);
    CHILD_EXPECT(text != nullptr && text[0] != '\0');
    void *fn = nullptr;
    int status = -1;
    CHILD_EXPECT(p.get<ProcAddressFn>("hipGetProcAddress")("hipMalloc", &fn, 502, 0, &status) ==
                 hipSuccess);
    CHILD_EXPECT(fn == reinterpret_cast<void *>(p.get<MallocFn>("hipMalloc")));
}

void no_device(CudaProvider &p)
{
    expect_no_gpu(p, hipErrorNoDevice);
}

void no_driver(CudaProvider &p)
{
    expect_no_gpu(p, hipErrorNoDevice);
    int version = -1;
    CHILD_EXPECT(p.get<VersionFn>("hipDriverGetVersion")(&version) == hipSuccess);
    CHILD_EXPECT(version == 0);
}

void insufficient_driver(CudaProvider &p)
{
    expect_no_gpu(p, hipErrorInsufficientDriver);
}

void not_initialized(CudaProvider &p)
{
    expect_no_gpu(p, hipErrorNotInitialized);
}

TEST(CudaProviderWithoutDriver, MissingLibcudaMeansNoDevice)
{
    EXPECT_TRUE(in_child("libhipfile-no-such-driver.so.1", "", no_driver));
}

TEST(CudaProviderWithoutDriver, DriverReportingNoDeviceMeansNoDevice)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "nodevice", no_device));
}

TEST(CudaProviderWithoutDriver, DriverWithZeroDevicesMeansNoDevice)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "zero", no_device));
}

TEST(CudaProviderWithoutDriver, StubDriverLibraryMeansNoDevice)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "stub", no_device));
}

TEST(CudaProviderWithoutDriver, MismatchedDriverIsInsufficientDriver)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "mismatch", insufficient_driver));
}

TEST(CudaProviderWithoutDriver, LibraryWithoutDriverEntryPointsIsNotInitialized)
{
    EXPECT_TRUE(in_child("libc.so.6", "", not_initialized));
}

// The stand-in driver, which the provider opens at its first call (made here; the GPU count it
// reports goes to *count_p when asked), for reading what it recorded; nullptr when not loaded.
void *stand_in_driver(CudaProvider &p, int *count_p = nullptr)
{
    int count = 0;
    CHILD_EXPECT(p.get<GetDeviceCountFn>("hipGetDeviceCount")(&count) == hipSuccess);
    if (count_p != nullptr)
        *count_p = count;
    void *fake = dlopen(HF_FAKE_LIBCUDA_PATH, RTLD_NOW | RTLD_NOLOAD);
    CHILD_EXPECT(fake != nullptr);
    return fake;
}

// With a stand-in GPU: how HIP's masked stream waits become CUDA's unmasked ones.
void wait_value_translation(CudaProvider &p)
{
    struct Recorded {
        int calls;
        int width;
        unsigned long long addr;
        uint64_t value;
        unsigned flags;
    };
    auto wait32 = p.get<WaitValue32Fn>("hipStreamWaitValue32");
    auto wait64 = p.get<WaitValue64Fn>("hipStreamWaitValue64");
    alignas(8) static uint64_t word;
    int count = 0;
    void *fake = stand_in_driver(p, &count);
    CHILD_EXPECT(count == 1);
    if (fake == nullptr)
        return;
    auto *last = static_cast<Recorded *>(dlsym(fake, "fake_cuda_last_wait"));

    // Full mask: passed through, flags unchanged.
    CHILD_EXPECT(wait32(nullptr, &word, 7, hipStreamWaitValueEq, 0xffffffffu) == hipSuccess);
    CHILD_EXPECT(last->calls == 1 && last->width == 4 && last->value == 7 &&
                 last->flags == hipStreamWaitValueEq &&
                 last->addr == reinterpret_cast<uintptr_t>(&word));
    CHILD_EXPECT(wait64(nullptr, &word, 1ull << 40, hipStreamWaitValueGte, ~0ull) == hipSuccess);
    CHILD_EXPECT(last->calls == 2 && last->width == 8 && last->value == 1ull << 40 &&
                 last->flags == hipStreamWaitValueGte);

    // And folds the mask into the value.
    CHILD_EXPECT(wait32(nullptr, &word, 0x0ff0, hipStreamWaitValueAnd, 0x00ff) == hipSuccess);
    CHILD_EXPECT(last->calls == 3 && last->value == 0x00f0 && last->flags == hipStreamWaitValueAnd);

    // Nor with a partial mask always holds: nothing is queued.
    CHILD_EXPECT(wait64(nullptr, &word, 5, hipStreamWaitValueNor, 0xff) == hipSuccess);
    CHILD_EXPECT(last->calls == 3);

    // Gte and Eq with a partial mask have no CUDA form.
    CHILD_EXPECT(wait32(nullptr, &word, 1, hipStreamWaitValueEq, 0xff) == hipErrorNotSupported);
    CHILD_EXPECT(wait64(nullptr, &word, 1, hipStreamWaitValueGte, 0xff) == hipErrorNotSupported);
    CHILD_EXPECT(wait32(nullptr, &word, 1, 7, ~0u) == hipErrorInvalidValue);
    CHILD_EXPECT(wait32(nullptr, reinterpret_cast<char *>(&word) + 2, 1, 0, ~0u) ==
                 hipErrorInvalidValue);
    CHILD_EXPECT(last->calls == 3);
    dlclose(fake);
}

TEST(CudaProviderWithStandInDriver, WaitValueMasksTranslateOrAreRefused)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "device", wait_value_translation));
}

void pointer_queries(CudaProvider &p)
{
    auto attributes = p.get<PointerAttrFn>("hipPointerGetAttributes");
    auto range = p.get<AddressRangeFn>("hipMemGetAddressRange");
    void *inside = reinterpret_cast<void *>(0x1800);
    void *outside = reinterpret_cast<void *>(0x3000);

    hipPointerAttribute_t attr;
    CHILD_EXPECT(attributes(&attr, inside) == hipSuccess);
    CHILD_EXPECT(attr.memoryType == hipMemoryTypeDevice);
    CHILD_EXPECT(attr.device == 0);
    CHILD_EXPECT(attr.devicePointer == inside);
    CHILD_EXPECT(attr.hostPointer == nullptr);
    CHILD_EXPECT(attr.isManaged == 0);
    CHILD_EXPECT(attributes(&attr, outside) == hipErrorInvalidValue);

    hipDeviceptr_t base = nullptr;
    size_t size = 0;
    CHILD_EXPECT(range(&base, &size, inside) == hipSuccess);
    CHILD_EXPECT(base == reinterpret_cast<void *>(0x1000) && size == 4096);
    CHILD_EXPECT(range(&base, &size, outside) == hipErrorNotFound);
    CHILD_EXPECT(range(nullptr, &size, inside) == hipErrorInvalidValue);
}

TEST(CudaProviderWithStandInDriver, PointerQueriesUseDriverFacts)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "device", pointer_queries));
}

void host_register_flags(CudaProvider &p)
{
    struct Recorded {
        int calls;
        void *ptr;
        size_t size;
        unsigned flags;
    };
    auto reg = p.get<hipError_t (*)(void *, size_t, unsigned)>("hipHostRegister");
    void *fake = stand_in_driver(p);
    if (fake == nullptr)
        return;
    auto *last = static_cast<Recorded *>(dlsym(fake, "fake_cuda_last_register"));
    alignas(4096) static char page[4096];
    // Every registration is portable and mapped (CU_MEMHOSTREGISTER_PORTABLE | DEVICEMAP).
    CHILD_EXPECT(reg(page, sizeof(page), hipHostRegisterPortable) == hipSuccess);
    CHILD_EXPECT(last->calls == 1 && last->ptr == page && last->size == sizeof(page) &&
                 last->flags == 0x3u);
    // hipHostRegisterReadOnly (0x8) asks CUDA's read-only registration, which lets pages the
    // process may only read (a file mapped read-only) be locked.
    CHILD_EXPECT(reg(page, sizeof(page), hipHostRegisterPortable | 0x8u) == hipSuccess);
    CHILD_EXPECT(last->calls == 2 && last->flags == 0xbu);
    CHILD_EXPECT(reg(page, sizeof(page), 0x10u) == hipErrorInvalidValue);
    CHILD_EXPECT(last->calls == 2);
    dlclose(fake);
}

TEST(CudaProviderWithStandInDriver, HostRegisterTranslatesReadOnly)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "device", host_register_flags));
}

struct FakeSync {
    long busy_queries;
    int query_result;
    int event_create_result;
    int event_sync_result;
    int queries;
    unsigned event_flags;
    int events_created, events_recorded, events_synchronized, events_destroyed;
    int stream_syncs;
};

uint64_t now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void stream_waits(CudaProvider &p)
{
    auto sync = p.get<hipError_t (*)(hipStream_t)>("hipStreamSynchronize");
    void *fake = stand_in_driver(p);
    if (fake == nullptr)
        return;
    auto *f = static_cast<FakeSync *>(dlsym(fake, "fake_cuda_sync"));

    // Work that ends soon is seen by polling: no event, no sleep (unless this machine is so busy
    // that three yields took the whole polling time).
    *f = FakeSync{};
    f->busy_queries = 3;
    uint64_t polled = now_ns();
    CHILD_EXPECT(sync(nullptr) == hipSuccess);
    polled = now_ns() - polled;
    CHILD_EXPECT(f->queries <= 4 && f->stream_syncs == 0);
    CHILD_EXPECT(f->queries == 4 || polled >= 1000000u);
    CHILD_EXPECT(f->events_created == 0 || polled >= 1000000u);

    // A long wait stops polling after a while and sleeps on a blocking event recorded on the
    // stream, then frees it.
    *f = FakeSync{};
    f->busy_queries = 1L << 40;
    uint64_t start = now_ns();
    CHILD_EXPECT(sync(nullptr) == hipSuccess);
    CHILD_EXPECT(now_ns() - start >= 1000000u);
    CHILD_EXPECT(f->events_created == 1 && (f->event_flags & hipEventBlockingSync) != 0);
    CHILD_EXPECT(f->events_recorded == 1 && f->events_synchronized == 1 &&
                 f->events_destroyed == 1 && f->stream_syncs == 0);

    // What the stream failed with is the answer, polled or waited for.
    *f = FakeSync{};
    f->query_result = 700; // CUDA_ERROR_ILLEGAL_ADDRESS
    CHILD_EXPECT(sync(nullptr) != hipSuccess);
    CHILD_EXPECT(f->events_created == 0);
    *f = FakeSync{};
    f->busy_queries = 1L << 40;
    f->event_sync_result = 700;
    CHILD_EXPECT(sync(nullptr) != hipSuccess);
    CHILD_EXPECT(f->events_destroyed == 1);

    // Without an event to sleep on, the driver's own wait.
    *f = FakeSync{};
    f->busy_queries = 1L << 40;
    f->event_create_result = 2; // CUDA_ERROR_OUT_OF_MEMORY
    CHILD_EXPECT(sync(nullptr) == hipSuccess);
    CHILD_EXPECT(f->stream_syncs == 1 && f->events_created == 0);
    dlclose(fake);
}

TEST(CudaProviderWithStandInDriver, StreamSynchronizePollsThenSleepsOnABlockingEvent)
{
    EXPECT_TRUE(in_child(HF_FAKE_LIBCUDA_PATH, "device", stream_waits));
}

} // namespace
