/*
 * The fastpath backend behind the public API, on the host runtime: device memory there is host
 * pages the runtime reports as an integrated GPU's, so the coherent-memory engine serves aligned
 * O_DIRECT requests and declines the rest, which the fallback then serves. The per-GPU statistics
 * tell the two apart (direct paths count as nvfs, the fallback as posix); the bytes must not.
 */
#include "../api/api_test.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include "services/gpu.h"
}

namespace
{

class FastpathConfig : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        char *conf = hf_test_path("fastpath-api.conf");
        std::string text = std::string("plugins = {\n  directory = \"") + HF_TEST_PLUGIN_DIR +
                           "\";\n  enable = [ \"fastpath\", \"fallback\" ];\n};\n";
        ASSERT_EQ(hf_test_write_text(conf, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", conf, 1);
        setenv("HIPFILE_GPU_RUNTIME", "host", 1);
        free(conf);
    }
};

const ::testing::Environment *const config_env =
    ::testing::AddGlobalTestEnvironment(new FastpathConfig);

class FastpathApi : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
        ASSERT_EQ(hipFileSetParameterSizeT(hipFileParamProfileStats, 3).err, hipFileSuccess);
        path = ScratchPath("data");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), kFileSize, kSeed), 0);
        fd = open(path.c_str(), O_RDWR);
        ASSERT_GE(fd, 0);
        fh = Register(fd);
        ASSERT_EQ(hipMalloc(&dev, kDevSize), hipSuccess);
    }
    void TearDown() override
    {
        hipFileHandleDeregister(fh);
        close(fd);
        (void)hipFree(dev);
        (void)hipFileDriverClose();
        ApiTest::TearDown();
    }
    static hipFilePerGpuStats_t Gpu0()
    {
        hipFileStatsLevel3_t s;
        EXPECT_EQ(hipFileGetStatsL3(&s).err, hipFileSuccess);
        return s.per_gpu_stats[0];
    }
    std::vector<uint8_t> DeviceBytes(size_t offset, size_t n)
    {
        std::vector<uint8_t> out(n);
        EXPECT_EQ(
            hipMemcpy(out.data(), static_cast<char *>(dev) + offset, n, hipMemcpyDeviceToHost),
            hipSuccess);
        return out;
    }

    static constexpr uint32_t kSeed = 31;
    static constexpr size_t kFileSize = 4 * 1024 * 1024 + 333;
    static constexpr size_t kDevSize = 8 * 1024 * 1024;
    std::string path;
    int fd = -1;
    hipFileHandle_t fh = nullptr;
    void *dev = nullptr;
};

TEST_F(FastpathApi, TheHostRuntimeReportsItsDeviceMemoryAsCoherent)
{
    const hf_gpu_ops *gpu = hf_gpu();
    ASSERT_NE(gpu, nullptr);
    ASSERT_NE(gpu->device_attribute, nullptr);
    int value = -1;
    EXPECT_EQ(gpu->device_attribute(0, HF_GPU_ATTR_INTEGRATED, &value), 0);
    EXPECT_EQ(value, 1);
    EXPECT_EQ(gpu->device_attribute(0, HF_GPU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES, &value), 0);
    EXPECT_EQ(value, 1);
    EXPECT_NE(gpu->device_attribute(0, 0, &value), 0) << "no such attribute";
    void *fn = &value;
    EXPECT_NE(gpu->get_proc_address("hipAmdFileRead", &fn), 0) << "AIS is AMD's alone";
    EXPECT_EQ(fn, nullptr);
    EXPECT_EQ(gpu->get_proc_address("hipMalloc", &fn), 0);
    EXPECT_NE(fn, nullptr);
}

TEST_F(FastpathApi, AlignedReadsGoDirectUnalignedOnesToTheFallbackWithTheSameBytes)
{
    hipFilePerGpuStats_t before = Gpu0();
    ASSERT_EQ(hipFileRead(fh, dev, 1 << 20, 4096, 8192), 1 << 20);
    hipFilePerGpuStats_t mid = Gpu0();
    EXPECT_EQ(mid.n_nvfs_reads - before.n_nvfs_reads, 1u) << "fastpath served the aligned read";
    EXPECT_EQ(mid.n_posix_reads - before.n_posix_reads, 0u);
    auto direct = DeviceBytes(8192, 1 << 20);
    EXPECT_EQ(hf_test_pattern_check(direct.data(), direct.size(), 4096, kSeed), -1);

    ASSERT_EQ(hipFileRead(fh, dev, (1 << 20) - 1, 4097, 3), (1 << 20) - 1);
    hipFilePerGpuStats_t after = Gpu0();
    EXPECT_EQ(after.n_nvfs_reads - mid.n_nvfs_reads, 0u);
    EXPECT_EQ(after.n_posix_reads - mid.n_posix_reads, 1u) << "the fallback served it";
    auto fallback = DeviceBytes(3, (1 << 20) - 1);
    EXPECT_EQ(hf_test_pattern_check(fallback.data(), fallback.size(), 4097, kSeed), -1);
}

TEST_F(FastpathApi, ReadsOverCachedAndEvictedRangesAreServedDirectWithTheSameBytes)
{
    // The file's first half stays in the page cache, its second half is dropped from it: the
    // coherent engine copies the first and reads the second with O_DIRECT, in one request.
    ASSERT_EQ(fdatasync(fd), 0);
    ASSERT_EQ(posix_fadvise(fd, 2 << 20, 0, POSIX_FADV_DONTNEED), 0);
    ASSERT_EQ(hipMemset(dev, 0x5a, kDevSize), hipSuccess);
    hipFilePerGpuStats_t before = Gpu0();
    ASSERT_EQ(hipFileRead(fh, dev, 6 << 20, 0, 0), (ssize_t)kFileSize);
    hipFilePerGpuStats_t after = Gpu0();
    EXPECT_EQ(after.n_nvfs_reads - before.n_nvfs_reads, 1u) << "fastpath served it";
    EXPECT_EQ(after.n_posix_reads - before.n_posix_reads, 0u);
    auto bytes = DeviceBytes(0, 6 << 20);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), kFileSize, 0, kSeed), -1);
    for (size_t i = kFileSize; i < bytes.size(); i++)
        ASSERT_EQ(bytes[i], 0x5a) << "byte " << i << " past end of file was stored";
}

TEST_F(FastpathApi, LargeReadsAcrossEndOfFileAndWritesMatchTheFallbackByteForByte)
{
    // A large aligned read that runs past end of file: direct up to the last whole block.
    ASSERT_EQ(hipMemset(dev, 0x5a, kDevSize), hipSuccess);
    ASSERT_EQ(hipFileRead(fh, dev, 6 << 20, 0, 0), (ssize_t)kFileSize);
    auto bytes = DeviceBytes(0, 6 << 20);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), kFileSize, 0, kSeed), -1);
    for (size_t i = kFileSize; i < bytes.size(); i++)
        ASSERT_EQ(bytes[i], 0x5a) << "byte " << i << " past end of file was stored";

    // Aligned write (fastpath) and unaligned write (fallback) land alike.
    std::vector<uint8_t> src(3 << 20);
    hf_test_pattern_fill(src.data(), src.size(), 1 << 20, 77);
    ASSERT_EQ(hipMemcpy(dev, src.data(), src.size(), hipMemcpyHostToDevice), hipSuccess);
    hipFilePerGpuStats_t before = Gpu0();
    ASSERT_EQ(hipFileWrite(fh, dev, 2 << 20, 1 << 20, 0), 2 << 20);
    ASSERT_EQ(hipFileWrite(fh, static_cast<char *>(dev) + (2 << 20), (1 << 20) - 5, 3 << 20, 0),
              (1 << 20) - 5);
    hipFilePerGpuStats_t after = Gpu0();
    EXPECT_EQ(after.n_nvfs_writes - before.n_nvfs_writes, 1u);
    EXPECT_EQ(after.n_posix_writes - before.n_posix_writes, 1u);
    std::vector<uint8_t> back((3 << 20) - 5);
    ASSERT_EQ(pread(fd, back.data(), back.size(), 1 << 20), (ssize_t)back.size());
    EXPECT_EQ(hf_test_pattern_check(back.data(), back.size(), 1 << 20, 77), -1);
}

} // namespace
