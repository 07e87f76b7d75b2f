// Helpers of the multi-GPU suites (multigpu_test.h).
#include "multigpu_test.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace multigpu_test
{

int CurrentDevice()
{
    int device = -1;
    return hipGetDevice(&device) == hipSuccess ? device : -1;
}

int DeviceCount()
{
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess)
        return 0;
    return count < kWantedDevices ? count : kWantedDevices;
}

void UseConfig(const std::string &name, const std::string &text)
{
    char *path = hf_test_path(name.c_str());
    // Statistics level 3: the per-GPU counters are what several tests check.
    std::string full = std::string("plugins = { directory = \"") + HF_TEST_PLUGIN_DIR + "\"; " +
                       text + "profile = { stats = 3; };\n";
    ASSERT_EQ(hf_test_write_text(path, full.c_str()), 0);
    setenv("HIPFILE_CONFIG", path, 1);
    free(path);
}

DeviceBuffer::DeviceBuffer(int device, size_t size) : size_(size), device_(device)
{
    int previous = CurrentDevice();
    EXPECT_EQ(hipSetDevice(device), hipSuccess);
    EXPECT_EQ(hipMalloc(&ptr_, size), hipSuccess);
    EXPECT_EQ(hipSetDevice(previous), hipSuccess);
}

DeviceBuffer::~DeviceBuffer()
{
    if (ptr_ != nullptr) {
        EXPECT_EQ(hipFree(ptr_), hipSuccess);
    }
}

void DeviceBuffer::Fill(uint64_t offset, uint32_t seed)
{
    std::vector<uint8_t> host(size_);
    hf_test_pattern_fill(host.data(), size_, offset, seed);
    EXPECT_EQ(hipMemcpy(ptr_, host.data(), size_, hipMemcpyHostToDevice), hipSuccess);
}

int64_t DeviceBuffer::Check(uint64_t offset, uint32_t seed) const
{
    std::vector<uint8_t> host(size_);
    EXPECT_EQ(hipMemcpy(host.data(), ptr_, size_, hipMemcpyDeviceToHost), hipSuccess);
    return hf_test_pattern_check(host.data(), size_, offset, seed);
}

RegisteredFile::RegisteredFile(const std::string &name, uint64_t size, uint32_t seed)
{
    char *path = hf_test_path(name.c_str());
    path_ = path;
    free(path);
    EXPECT_EQ(hf_test_pattern_file(path_.c_str(), size, seed), 0);
    fd_ = open(path_.c_str(), O_RDWR);
    EXPECT_GE(fd_, 0) << path_ << ": " << strerror(errno);
    hipFileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd_;
    hipFileError_t e = hipFileHandleRegister(&handle_, &descr);
    EXPECT_EQ(e.err, hipFileSuccess) << path_;
}

RegisteredFile::~RegisteredFile()
{
    if (handle_ != nullptr)
        hipFileHandleDeregister(handle_);
    if (fd_ >= 0)
        close(fd_);
    unlink(path_.c_str());
}

int64_t RegisteredFile::Check(uint64_t offset, size_t size, uint32_t seed) const
{
    std::vector<uint8_t> bytes(size);
    if (pread(fd_, bytes.data(), size, static_cast<off_t>(offset)) != static_cast<ssize_t>(size))
        return -2;
    return hf_test_pattern_check(bytes.data(), size, offset, seed);
}

hipFileStatsLevel3_t StatsNow()
{
    hipFileStatsLevel3_t stats;
    memset(&stats, 0, sizeof(stats));
    EXPECT_EQ(hipFileGetStatsL3(&stats).err, hipFileSuccess);
    return stats;
}

void MultiGpuTest::SetUp()
{
    devices_ = DeviceCount();
    const char *runtime = getenv("HIPFILE_GPU_RUNTIME");
    if (runtime != nullptr && strcmp(runtime, "cuda") == 0) {
        if (devices_ < 2)
            GTEST_SKIP() << "a multi-GPU test; this machine has " << devices_ << " GPU(s)";
    } else {
        ASSERT_EQ(devices_, kWantedDevices)
            << "run with HIP_HOST_DEVICE_COUNT=" << kWantedDevices << " (ctest sets it)";
    }
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
}

void MultiGpuTest::TearDown()
{
    if (hipFileUseCount() > 0) {
        EXPECT_EQ(hipFileDriverClose().err, hipFileSuccess);
    }
}

} // namespace multigpu_test
