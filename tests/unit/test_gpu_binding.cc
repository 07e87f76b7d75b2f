// GPU runtime binding: choosing the provider, failing clearly, and reading pointer attributes by
// the running runtime's ABI (fake ROCm 6 and HIP 5.2 runtimes from tests/fixtures, plus the host
// provider this program links).
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include "fake_hip.h"
#include "hf_harness.h"

extern "C" {
#include "services/gpu.h"
#include "base/log.h"
}

namespace
{

const std::string kFixtureDir = HF_TEST_FIXTURE_DIR;
const std::string kRocm6 = kFixtureDir + "/libfake-hip-rocm6.so";
const std::string kRocm5 = kFixtureDir + "/libfake-hip-rocm5.so";
const std::string kNoSymbol = kFixtureDir + "/libfake-hip-nosym.so";
const std::string kNoDevice = kFixtureDir + "/libfake-hip-nodev.so";
const std::string kHostProvider = std::string(HF_TEST_BUILD_DIR) + "/lib/libhip-host.so.0";

constexpr int kHipErrorInvalidValue = 1;
constexpr int kHipMemcpyDefault = 4;
constexpr unsigned kHipStreamNonBlocking = 0x01;

class GpuBindingTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        hf_gpu_reset();
        saved_level_ = hf_log_level();
        hf_log_set_level(HF_LOG_INFO);
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        char *path = hf_test_path((std::string("gpu-") + info->name() + ".log").c_str());
        ASSERT_NE(path, nullptr);
        log_path_ = path;
        free(path);
        ASSERT_EQ(hf_test_write_text(log_path_.c_str(), ""), 0);
        ASSERT_EQ(hf_log_set_file(log_path_.c_str()), 0);
    }

    void TearDown() override
    {
        hf_log_set_file(nullptr);
        hf_log_set_level(saved_level_);
        hf_gpu_reset();
    }

    bool LogHas(const char *needle) const
    {
        return hf_test_file_contains(log_path_.c_str(), needle) != 0;
    }

    // Bind a fake runtime by path and fetch its control functions.
    void BindFake(const std::string &path)
    {
        ASSERT_EQ(hf_gpu_bind(path.c_str()), 0);
        void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
        ASSERT_NE(handle, nullptr);
        alloc_ = reinterpret_cast<fake_hip_alloc_fn>(dlsym(handle, "fake_hip_alloc"));
        free_ = reinterpret_cast<fake_hip_free_fn>(dlsym(handle, "fake_hip_free"));
        last_stream_flags_ =
            reinterpret_cast<fake_hip_last_fn>(dlsym(handle, "fake_hip_last_stream_flags"));
        last_memcpy_kind_ =
            reinterpret_cast<fake_hip_last_fn>(dlsym(handle, "fake_hip_last_memcpy_kind"));
        last_host_malloc_flags_ =
            reinterpret_cast<fake_hip_last_fn>(dlsym(handle, "fake_hip_last_host_malloc_flags"));
        ASSERT_NE(alloc_, nullptr);
        ASSERT_NE(free_, nullptr);
        ASSERT_NE(last_stream_flags_, nullptr);
        ASSERT_NE(last_memcpy_kind_, nullptr);
        ASSERT_NE(last_host_malloc_flags_, nullptr);
        gpu_ = hf_gpu();
        ASSERT_NE(gpu_, nullptr);
    }

    struct hf_gpu_pointer_info Info(const void *ptr)
    {
        struct hf_gpu_pointer_info info;
        memset(&info, 0x5a, sizeof(info));
        EXPECT_EQ(gpu_->pointer_info(ptr, &info), 0);
        return info;
    }

    std::string log_path_;
    int saved_level_ = HF_LOG_WARN;
    const struct hf_gpu_ops *gpu_ = nullptr;
    fake_hip_alloc_fn alloc_ = nullptr;
    fake_hip_free_fn free_ = nullptr;
    fake_hip_last_fn last_stream_flags_ = nullptr;
    fake_hip_last_fn last_memcpy_kind_ = nullptr;
    fake_hip_last_fn last_host_malloc_flags_ = nullptr;
};

TEST_F(GpuBindingTest, Rocm6MemoryTypesNormalise)
{
    BindFake(kRocm6);
    EXPECT_EQ(gpu_->runtime_version, 60241133);
    ASSERT_TRUE(hf_gpu_runtime()->memtype_v6);

    char *dev = static_cast<char *>(alloc_(FAKE_HIP_DEVICE, 8192, 1));
    struct hf_gpu_pointer_info info = Info(dev);
    EXPECT_EQ(info.mem_type, HF_MEM_DEVICE);
    EXPECT_EQ(info.device, 1);
    EXPECT_EQ(info.alloc_base, dev);
    EXPECT_EQ(info.alloc_size, 8192u);
    EXPECT_FALSE(info.host_accessible);

    char *pinned = static_cast<char *>(alloc_(FAKE_HIP_PINNED, 4096, 0));
    info = Info(pinned);
    EXPECT_EQ(info.mem_type, HF_MEM_HOST_PINNED);
    EXPECT_EQ(info.device, -1);
    EXPECT_EQ(info.alloc_base, pinned);
    EXPECT_EQ(info.alloc_size, 4096u);
    EXPECT_TRUE(info.host_accessible);

    char *managed = static_cast<char *>(alloc_(FAKE_HIP_MANAGED, 4096, 1));
    info = Info(managed);
    EXPECT_EQ(info.mem_type, HF_MEM_MANAGED);
    EXPECT_EQ(info.device, 1);
    EXPECT_TRUE(info.host_accessible);

    char *unified = static_cast<char *>(alloc_(FAKE_HIP_UNIFIED, 4096, 0));
    EXPECT_EQ(Info(unified).mem_type, HF_MEM_MANAGED);

    char *array = static_cast<char *>(alloc_(FAKE_HIP_ARRAY, 4096, 1));
    info = Info(array);
    EXPECT_EQ(info.mem_type, HF_MEM_ARRAY);
    EXPECT_EQ(info.device, 1);
    EXPECT_FALSE(info.host_accessible);

    // ROCm 6 answers success with type Unregistered for memory it does not know.
    char pageable[64];
    info = Info(pageable);
    EXPECT_EQ(info.mem_type, HF_MEM_UNKNOWN);
    EXPECT_EQ(info.device, -1);
    EXPECT_EQ(info.alloc_base, pageable);
    EXPECT_EQ(info.alloc_size, 0u);
    EXPECT_TRUE(info.host_accessible);

    for (char *p : {dev, pinned, managed, unified, array})
        free_(p);
}

TEST_F(GpuBindingTest, Hip5MemoryTypesNormalise)
{
    BindFake(kRocm5);
    EXPECT_EQ(gpu_->runtime_version, 50221153);
    ASSERT_FALSE(hf_gpu_runtime()->memtype_v6);

    char *dev = static_cast<char *>(alloc_(FAKE_HIP_DEVICE, 8192, 0));
    struct hf_gpu_pointer_info info = Info(dev);
    EXPECT_EQ(info.mem_type, HF_MEM_DEVICE);
    EXPECT_EQ(info.device, 0);
    EXPECT_EQ(info.alloc_base, dev);
    EXPECT_EQ(info.alloc_size, 8192u);
    EXPECT_FALSE(info.host_accessible);

    // 5.x numbers Host 0, which 6.x uses for unregistered memory.
    char *pinned = static_cast<char *>(alloc_(FAKE_HIP_PINNED, 4096, 0));
    info = Info(pinned);
    EXPECT_EQ(info.mem_type, HF_MEM_HOST_PINNED);
    EXPECT_EQ(info.device, -1);
    EXPECT_TRUE(info.host_accessible);

    // Managed memory reported as Host with isManaged set: not pinned memory.
    char *managed = static_cast<char *>(alloc_(FAKE_HIP_MANAGED, 4096, 0));
    info = Info(managed);
    EXPECT_EQ(info.mem_type, HF_MEM_MANAGED);
    EXPECT_TRUE(info.host_accessible);

    char *unified = static_cast<char *>(alloc_(FAKE_HIP_UNIFIED, 4096, 0));
    EXPECT_EQ(Info(unified).mem_type, HF_MEM_MANAGED);

    char *array = static_cast<char *>(alloc_(FAKE_HIP_ARRAY, 4096, 0));
    info = Info(array);
    EXPECT_EQ(info.mem_type, HF_MEM_ARRAY);
    EXPECT_FALSE(info.host_accessible);

    for (char *p : {dev, pinned, managed, unified, array})
        free_(p);
}

TEST_F(GpuBindingTest, Hip5UnknownHostPointerReturnsInvalidValue)
{
    BindFake(kRocm5);
    char pageable[64];
    struct hf_gpu_pointer_info info;
    memset(&info, 0x5a, sizeof(info));
    EXPECT_EQ(gpu_->pointer_info(pageable, &info), kHipErrorInvalidValue);
    EXPECT_EQ(info.mem_type, 0x5a5a5a5a) << "output written on failure";
    EXPECT_STREQ(gpu_->error_string(kHipErrorInvalidValue), "invalid argument");
}

TEST_F(GpuBindingTest, InteriorPointerReportsAllocationExtent)
{
    BindFake(kRocm6);
    char *dev = static_cast<char *>(alloc_(FAKE_HIP_DEVICE, 1 << 20, 0));
    struct hf_gpu_pointer_info info = Info(dev + 12345);
    EXPECT_EQ(info.mem_type, HF_MEM_DEVICE);
    EXPECT_EQ(info.alloc_base, dev);
    EXPECT_EQ(info.alloc_size, size_t{1} << 20);

    char *pinned = static_cast<char *>(alloc_(FAKE_HIP_PINNED, 65536, 0));
    info = Info(pinned + 4096);
    EXPECT_EQ(info.mem_type, HF_MEM_HOST_PINNED);
    EXPECT_EQ(info.alloc_base, pinned);
    EXPECT_EQ(info.alloc_size, 65536u);
    free_(dev);
    free_(pinned);
}

TEST_F(GpuBindingTest, PinnedRangeUnknownToRuntimeReportsPointerAndSizeZero)
{
    BindFake(kRocm5);
    char *pinned = static_cast<char *>(alloc_(FAKE_HIP_PINNED, 65536, 0));
    struct hf_gpu_pointer_info info = Info(pinned + 4096);
    EXPECT_EQ(info.mem_type, HF_MEM_HOST_PINNED);
    EXPECT_EQ(info.alloc_base, pinned + 4096);
    EXPECT_EQ(info.alloc_size, 0u);
    free_(pinned);
}

TEST_F(GpuBindingTest, UndefinedMemoryTypeIsRefusedWithLogLine)
{
    BindFake(kRocm6);
    char *odd = static_cast<char *>(alloc_(FAKE_HIP_BOGUS, 4096, 0));
    struct hf_gpu_pointer_info info;
    EXPECT_EQ(gpu_->pointer_info(odd, &info), kHipErrorInvalidValue);
    EXPECT_TRUE(LogHas("memory type 7"));
    free_(odd);
}

TEST_F(GpuBindingTest, NullPointerIsInvalidValue)
{
    BindFake(kRocm6);
    struct hf_gpu_pointer_info info;
    EXPECT_EQ(gpu_->pointer_info(nullptr, &info), kHipErrorInvalidValue);
}

TEST_F(GpuBindingTest, OpsForwardWithDefaultCopyKindAndNonBlockingStreams)
{
    BindFake(kRocm6);
    EXPECT_EQ(gpu_->struct_size, sizeof(struct hf_gpu_ops));
    EXPECT_EQ(std::string(gpu_->name), kRocm6);

    int count = 0;
    EXPECT_EQ(gpu_->device_count(&count), 0);
    EXPECT_EQ(count, 2);
    EXPECT_EQ(gpu_->set_device(1), 0);
    int device = -1;
    EXPECT_EQ(gpu_->get_device(&device), 0);
    EXPECT_EQ(device, 1);
    EXPECT_EQ(gpu_->set_device(5), kHipErrorInvalidValue);

    void *stream = nullptr;
    ASSERT_EQ(gpu_->stream_create(&stream), 0);
    EXPECT_EQ(last_stream_flags_(), kHipStreamNonBlocking);

    void *pinned = nullptr;
    ASSERT_EQ(gpu_->host_alloc_pinned(&pinned, 4096), 0);
    EXPECT_EQ(last_host_malloc_flags_(), 0u);
    EXPECT_EQ(Info(pinned).mem_type, HF_MEM_HOST_PINNED);

    char *dev = static_cast<char *>(alloc_(FAKE_HIP_DEVICE, 4096, 0));
    memset(pinned, 0xab, 4096);
    EXPECT_EQ(gpu_->memcpy_sync(dev, pinned, 4096), 0);
    EXPECT_EQ(last_memcpy_kind_(), static_cast<unsigned>(kHipMemcpyDefault));
    memset(pinned, 0, 4096);
    EXPECT_EQ(gpu_->memcpy_async(pinned, dev, 4096, stream), 0);
    EXPECT_EQ(last_memcpy_kind_(), static_cast<unsigned>(kHipMemcpyDefault));
    EXPECT_EQ(gpu_->stream_synchronize(stream), 0);
    EXPECT_EQ(static_cast<unsigned char *>(pinned)[4095], 0xab);

    EXPECT_EQ(gpu_->stream_destroy(stream), 0);
    EXPECT_EQ(gpu_->host_free_pinned(pinned), 0);
    free_(dev);
}

TEST_F(GpuBindingTest, OptionalFunctionsFollowTheLibrary)
{
    BindFake(kRocm6);
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    ASSERT_NE(rt, nullptr);
    EXPECT_NE(rt->launch_host_func, nullptr);
    EXPECT_NE(rt->get_proc_address, nullptr);
    EXPECT_NE(rt->stream_add_callback, nullptr);
    EXPECT_EQ(rt->event_create, nullptr);
    EXPECT_EQ(rt->device_count, 2);

    hf_gpu_reset();
    EXPECT_EQ(hf_gpu_runtime(), nullptr);
    // HIP 5.2 declares hipLaunchHostFunc but does not export it, and has no hipGetProcAddress.
    BindFake(kRocm5);
    rt = hf_gpu_runtime();
    ASSERT_NE(rt, nullptr);
    EXPECT_EQ(rt->launch_host_func, nullptr);
    EXPECT_EQ(rt->get_proc_address, nullptr);
    EXPECT_NE(rt->stream_add_callback, nullptr);
}

TEST_F(GpuBindingTest, MissingMandatorySymbolIsENOENTWithLogLine)
{
    EXPECT_EQ(hf_gpu_bind(kNoSymbol.c_str()), -ENOENT);
    EXPECT_EQ(hf_gpu(), nullptr);
    EXPECT_TRUE(LogHas("lacks hipMemcpyAsync"));
}

TEST_F(GpuBindingTest, ZeroDevicesIsENODEVWithLogLine)
{
    EXPECT_EQ(hf_gpu_bind(kNoDevice.c_str()), -ENODEV);
    EXPECT_EQ(hf_gpu(), nullptr);
    EXPECT_TRUE(LogHas("reports no device"));
    EXPECT_TRUE(LogHas("no ROCm-capable device"));
}

TEST_F(GpuBindingTest, MissingLibraryPathIsENOENTWithLogLine)
{
    std::string missing = kFixtureDir + "/libno-such-runtime.so";
    EXPECT_EQ(hf_gpu_bind(missing.c_str()), -ENOENT);
    EXPECT_EQ(hf_gpu(), nullptr);
    EXPECT_TRUE(LogHas("libno-such-runtime.so"));
}

TEST_F(GpuBindingTest, EmptyNameIsEINVALWithLogLine)
{
    EXPECT_EQ(hf_gpu_bind(""), -EINVAL);
    EXPECT_TRUE(LogHas("gpu.runtime is empty"));
    EXPECT_EQ(hf_gpu(), nullptr);
}

TEST_F(GpuBindingTest, NullNameIsEINVALWithLogLine)
{
    EXPECT_EQ(hf_gpu_bind(nullptr), -EINVAL);
    EXPECT_TRUE(LogHas("gpu.runtime is not set"));
}

TEST_F(GpuBindingTest, UnknownNameIsEINVALWithLogLine)
{
    EXPECT_EQ(hf_gpu_bind("rocm"), -EINVAL);
    EXPECT_TRUE(LogHas("\"rocm\" is not auto, hip, cuda, host or a library path"));
    EXPECT_EQ(hf_gpu(), nullptr);
}

TEST_F(GpuBindingTest, OverlongPathIsEINVAL)
{
    std::string path = "/" + std::string(5000, 'x');
    EXPECT_EQ(hf_gpu_bind(path.c_str()), -EINVAL);
    EXPECT_TRUE(LogHas("gpu.runtime is a library path of 5001 bytes"));
}

TEST_F(GpuBindingTest, FirstBindingIsKeptUntilReset)
{
    BindFake(kRocm6);
    EXPECT_EQ(hf_gpu_bind(kRocm5.c_str()), 0);
    EXPECT_EQ(std::string(hf_gpu()->name), kRocm6);
    EXPECT_EQ(hf_gpu()->runtime_version, 60241133);
    // A bad name is still refused while bound.
    EXPECT_EQ(hf_gpu_bind(""), -EINVAL);

    hf_gpu_reset();
    EXPECT_EQ(hf_gpu(), nullptr);
    ASSERT_EQ(hf_gpu_bind(kRocm5.c_str()), 0);
    EXPECT_EQ(hf_gpu()->runtime_version, 50221153);
}

TEST_F(GpuBindingTest, SuccessfulBindingIsLoggedAtInfo)
{
    BindFake(kRocm6);
    EXPECT_TRUE(LogHas("GPU runtime: bound "));
    EXPECT_TRUE(LogHas("HIP 6.2.41133"));
    EXPECT_TRUE(LogHas("6.x memory types"));
}

TEST_F(GpuBindingTest, HostBindsTheLinkedHostProvider)
{
    ASSERT_EQ(hf_gpu_bind("host"), 0);
    const struct hf_gpu_ops *gpu = hf_gpu();
    ASSERT_NE(gpu, nullptr);
    EXPECT_STREQ(gpu->name, "host");
    EXPECT_TRUE(hf_gpu_runtime()->host_emulated);
    EXPECT_TRUE(LogHas("bound host"));

    // The program's hipMalloc and the core share one runtime instance, so the core knows it.
    void *dev = nullptr;
    ASSERT_EQ(hipMalloc(&dev, 1 << 16), hipSuccess);
    struct hf_gpu_pointer_info info;
    ASSERT_EQ(gpu->pointer_info(static_cast<char *>(dev) + 100, &info), 0);
    EXPECT_EQ(info.mem_type, HF_MEM_DEVICE);
    EXPECT_EQ(info.alloc_base, dev);
    EXPECT_EQ(info.alloc_size, size_t{1} << 16);
    EXPECT_GE(info.device, 0);
    // Emulated device memory is ordinary host pages.
    EXPECT_TRUE(info.host_accessible);

    void *pinned = nullptr;
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    ASSERT_EQ(gpu->pointer_info(pinned, &info), 0);
    EXPECT_EQ(info.mem_type, HF_MEM_HOST_PINNED);
    EXPECT_TRUE(info.host_accessible);

    // A copy through the core lands in memory the program reads back through its runtime.
    char src[256], back[256];
    memset(src, 0x3c, sizeof(src));
    ASSERT_EQ(gpu->memcpy_sync(dev, src, sizeof(src)), 0);
    ASSERT_EQ(hipMemcpy(back, dev, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(memcmp(src, back, sizeof(src)), 0);

    EXPECT_EQ(hipHostFree(pinned), hipSuccess);
    EXPECT_EQ(hipFree(dev), hipSuccess);
}

TEST_F(GpuBindingTest, PageableMemoryOnHostProviderIsInvalidValueOrUnknown)
{
    ASSERT_EQ(hf_gpu_bind("host"), 0);
    char pageable[64];
    struct hf_gpu_pointer_info info;
    memset(&info, 0, sizeof(info));
    int rc = hf_gpu()->pointer_info(pageable, &info);
    // The provider reports a HIP 5.x ABI (hipErrorInvalidValue) or a 6.x one (Unregistered).
    if (hf_gpu_runtime()->memtype_v6) {
        EXPECT_EQ(rc, 0);
        EXPECT_EQ(info.mem_type, HF_MEM_UNKNOWN);
    } else {
        EXPECT_EQ(rc, kHipErrorInvalidValue);
    }
}

// The library's own look-ups run on the program's threads and fail as a matter of course; the
// program's hipGetLastError must not see their failures, nor lose an error of its own.
TEST_F(GpuBindingTest, FailedLookUpsLeaveTheThreadsLastErrorAlone)
{
    ASSERT_EQ(hf_gpu_bind("host"), 0);
    const struct hf_gpu_ops *gpu = hf_gpu();
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    char pageable[64];
    struct hf_gpu_pointer_info info;
    void *fn = nullptr;
    int value = 0;
    gpu->pointer_info(pageable, &info);
    EXPECT_NE(gpu->get_proc_address("hipNoSuchFunction", &fn), 0);
    EXPECT_NE(gpu->device_attribute(1 << 20, HF_GPU_ATTR_INTEGRATED, &value), 0);
    EXPECT_EQ(hipGetLastError(), hipSuccess);

    // An error the program left pending is still there for it afterwards.
    ASSERT_NE(hipSetDevice(1 << 20), hipSuccess);
    gpu->pointer_info(pageable, &info);
    EXPECT_NE(gpu->get_proc_address("hipNoSuchFunction", &fn), 0);
    EXPECT_NE(hipGetLastError(), hipSuccess);
}

TEST_F(GpuBindingTest, ProviderNamesIgnoreCase)
{
    ASSERT_EQ(hf_gpu_bind("HOST"), 0);
    EXPECT_STREQ(hf_gpu()->name, "host");
}

TEST_F(GpuBindingTest, HostProviderBoundByPathIsHostEmulated)
{
    ASSERT_EQ(hf_gpu_bind(kHostProvider.c_str()), 0);
    EXPECT_EQ(std::string(hf_gpu()->name), kHostProvider);
    EXPECT_TRUE(hf_gpu_runtime()->host_emulated);
}

TEST_F(GpuBindingTest, FakeRuntimeIsNotHostEmulated)
{
    BindFake(kRocm6);
    EXPECT_FALSE(hf_gpu_runtime()->host_emulated);
}

TEST_F(GpuBindingTest, AutoPicksTheProviderTheProgramLoaded)
{
    ASSERT_EQ(hf_gpu_bind("auto"), 0);
    EXPECT_STREQ(hf_gpu()->name, "host");
    EXPECT_TRUE(LogHas("gpu.runtime is auto and the program already loaded it"));
}

} // namespace
