// Shared by the multi-GPU suites: device buffers made on a chosen device without disturbing the
// caller's, pattern files registered with hipfile, the per-GPU statistics, and a config written
// once per process.
#ifndef HF_TEST_MULTIGPU_TEST_H
#define HF_TEST_MULTIGPU_TEST_H

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hf_harness.h"

namespace multigpu_test
{

// Devices the suites use: the four the host runtime emulates (HIP_HOST_DEVICE_COUNT=4), or up to
// four real ones.
constexpr int kWantedDevices = 4;

// The calling thread's current device (-1 when the runtime cannot say).
int CurrentDevice();
// Devices to use: min(runtime's count, kWantedDevices).
int DeviceCount();
// Write @p text as this process's config, after the start of its plugins group ("plugins = {
// directory = ...;") and before statistics at level 3, and point HIPFILE_CONFIG at it.
void UseConfig(const std::string &name, const std::string &text);

// hipMalloc'd memory on one device, made there with the caller's device put back afterwards.
class DeviceBuffer
{
  public:
    DeviceBuffer(int device, size_t size);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    void *get() const
    {
        return ptr_;
    }
    size_t size() const
    {
        return size_;
    }
    int device() const
    {
        return device_;
    }
    // Fill with the pattern of @p seed starting at pattern offset @p offset.
    void Fill(uint64_t offset, uint32_t seed);
    // Index of the first byte that differs from the pattern, or -1.
    int64_t Check(uint64_t offset, uint32_t seed) const;

  private:
    void *ptr_ = nullptr;
    size_t size_;
    int device_;
};

// A scratch file opened read-write and registered with hipfile; deregistered and closed at the end.
class RegisteredFile
{
  public:
    // A file of @p size pattern bytes of @p seed (size 0: empty).
    RegisteredFile(const std::string &name, uint64_t size, uint32_t seed);
    ~RegisteredFile();
    RegisteredFile(const RegisteredFile &) = delete;
    RegisteredFile &operator=(const RegisteredFile &) = delete;
    hipFileHandle_t handle() const
    {
        return handle_;
    }
    int fd() const
    {
        return fd_;
    }
    // Index of the first byte of [offset, offset + size) that differs from the pattern, or -1
    // (-2 when the range cannot be read back).
    int64_t Check(uint64_t offset, size_t size, uint32_t seed) const;

  private:
    std::string path_;
    int fd_ = -1;
    hipFileHandle_t handle_ = nullptr;
};

// The per-GPU statistics now (hipFileGetStatsL3); fails the test when they cannot be read.
hipFileStatsLevel3_t StatsNow();

// Every test opens the driver and closes it again; the current device is 0 when it starts.
class MultiGpuTest : public ::testing::Test
{
  protected:
    void SetUp() override;
    void TearDown() override;
    int devices_ = 0;
};

} // namespace multigpu_test

#endif
