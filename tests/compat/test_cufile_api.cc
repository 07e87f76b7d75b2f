/*
 * The cuFile compatibility library through its own header, on the host runtime: every function
 * answers with cuFile's types and codes, errors keep their meaning, and every function of cuFile
 * 1.19 does what cuFile documents, or refuses what has no counterpart here with cuFile's code.
 */
#include <gtest/gtest.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <hip/hip_runtime_api.h>

#include <cufile.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "hf_harness.h"

#undef cuFileDriverClose

namespace
{

constexpr size_t kSize = 1 << 20;

class CuFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        CloseDriverFully();
    }
    void TearDown() override
    {
        if (fh_ != nullptr)
            cuFileHandleDeregister(fh_);
        if (fd_ >= 0)
            close(fd_);
        if (dev_ != nullptr)
            (void)hipFree(dev_);
        CloseDriverFully();
    }
    static void CloseDriverFully()
    {
        while (cuFileUseCount() > 0)
            (void)cuFileDriverClose_v2();
    }
    /* Opens a scratch file, registers it and allocates kSize bytes of device memory. */
    void OpenFileAndBuffer()
    {
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        char *path = hf_test_path((std::string("cufile.") + info->name()).c_str());
        fd_ = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
        free(path);
        ASSERT_GE(fd_, 0);
        CUfileDescr_t descr = {};
        descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
        descr.handle.fd = fd_;
        CUfileError_t e = cuFileHandleRegister(&fh_, &descr);
        ASSERT_EQ(e.err, CU_FILE_SUCCESS);
        ASSERT_EQ(hipMalloc(&dev_, kSize), hipSuccess);
    }
    int fd_ = -1;
    CUfileHandle_t fh_ = nullptr;
    void *dev_ = nullptr;
};

void ExpectStatus(CUfileError_t e, CUfileOpError err)
{
    EXPECT_EQ(e.err, err) << cufileop_status_error(e.err);
    EXPECT_EQ(e.cu_err, CUDA_SUCCESS);
}

TEST_F(CuFileTest, EveryCuFileFunctionIsExportedAndNothingElse)
{
    void *lib = dlopen(HF_TEST_CUFILE_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(lib, nullptr) << "the test links libcufile.so.0, so it must be loaded";
    std::istringstream names(HF_TEST_CUFILE_FUNCTIONS);
    std::string name;
    int count = 0;
    while (std::getline(names, name, ';')) {
        EXPECT_NE(dlsym(lib, name.c_str()), nullptr) << name;
        count++;
    }
    EXPECT_EQ(count, 47);
    EXPECT_EQ(dlsym(lib, "hf_cufile_status"), nullptr) << "internal helpers stay hidden";
    EXPECT_EQ(dlsym(lib, "cufileop_status_error"), nullptr) << "an inline of the header";
    dlclose(lib);
}

TEST_F(CuFileTest, LoadingTheLibraryLoadsTheCudaProviderForAutoSelection)
{
    void *provider = dlopen("libhip-cuda.so.0", RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(provider, nullptr);
    if (provider != nullptr)
        dlclose(provider);
}

TEST_F(CuFileTest, DriverCountsOpensAndBothCloseNamesClose)
{
    ExpectStatus(cuFileDriverClose_v2(), CU_FILE_DRIVER_NOT_INITIALIZED);
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    EXPECT_EQ(cuFileUseCount(), 2);
    ExpectStatus(cuFileDriverClose(), CU_FILE_SUCCESS);
    EXPECT_EQ(cuFileUseCount(), 1);
    ExpectStatus(cuFileDriverClose_v2(), CU_FILE_SUCCESS);
    EXPECT_EQ(cuFileUseCount(), 0);
    ExpectStatus(cuFileDriverClose(), CU_FILE_DRIVER_NOT_INITIALIZED);
}

TEST_F(CuFileTest, VersionIsCuFile119)
{
    int version = 0;
    ExpectStatus(cuFileGetVersion(&version), CU_FILE_SUCCESS);
    EXPECT_EQ(version, 1190);
    ExpectStatus(cuFileGetVersion(nullptr), CU_FILE_INVALID_VALUE);
}

TEST_F(CuFileTest, PropertiesCarryLimitsInCuFileLayout)
{
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverSetMaxDirectIOSize(2048), CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverSetMaxPinnedMemSize(65536), CU_FILE_SUCCESS);
    CUfileDrvProps_t props;
    memset(&props, 0xa5, sizeof(props));
    ExpectStatus(cuFileDriverGetProperties(&props), CU_FILE_SUCCESS);
    EXPECT_EQ(props.nvfs.max_direct_io_size, 2048u);
    EXPECT_EQ(props.max_device_pinned_mem_size, 65536u);
    EXPECT_NE(props.fflags & (1u << CU_FILE_BATCH_IO_SUPPORTED), 0u);
    EXPECT_NE(props.fflags & (1u << CU_FILE_STREAMS_SUPPORTED), 0u);
    size_t batch = 0;
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE, &batch),
                 CU_FILE_SUCCESS);
    EXPECT_EQ(props.max_batch_io_size, batch);
    ExpectStatus(cuFileDriverGetProperties(nullptr), CU_FILE_INVALID_VALUE);
}

TEST_F(CuFileTest, PollModeAndCacheSizeReachTheSettings)
{
    ExpectStatus(cuFileDriverSetPollMode(true, 8), CU_FILE_SUCCESS);
    bool poll = false;
    size_t threshold = 0;
    ExpectStatus(cuFileGetParameterBool(CUFILE_PARAM_PROPERTIES_USE_POLL_MODE, &poll),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_POLLTHRESHOLD_SIZE_KB, &threshold),
                 CU_FILE_SUCCESS);
    EXPECT_TRUE(poll);
    EXPECT_EQ(threshold, 8u);
    ExpectStatus(cuFileDriverSetPollMode(false, 4), CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverSetMaxCacheSize(262144), CU_FILE_SUCCESS);
    size_t cache = 0;
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB, &cache),
                 CU_FILE_SUCCESS);
    EXPECT_EQ(cache, 262144u);
}

TEST_F(CuFileTest, ParametersRoundTripAndBadOnesAreInvalidValue)
{
    ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, 6),
                 CU_FILE_SUCCESS);
    size_t threads = 0;
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &threads),
                 CU_FILE_SUCCESS);
    EXPECT_EQ(threads, 6u);
    ExpectStatus(cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, true),
                 CU_FILE_SUCCESS);
    bool system_memory = false;
    ExpectStatus(
        cuFileGetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, &system_memory),
        CU_FILE_SUCCESS);
    EXPECT_TRUE(system_memory);
    ExpectStatus(cuFileSetParameterBool(CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, false),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_LOGGING_LEVEL, "error"), CU_FILE_SUCCESS);
    char level[16] = "";
    ExpectStatus(cuFileGetParameterString(CUFILE_PARAM_LOGGING_LEVEL, level, sizeof(level)),
                 CU_FILE_SUCCESS);
    EXPECT_STREQ(level, "error");

    ExpectStatus(cuFileGetParameterSizeT((CUFileSizeTConfigParameter_t)99, &threads),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterBool((CUFileBoolConfigParameter_t)-1, &system_memory),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterString(CUFILE_PARAM_LOGGING_LEVEL, level, 1),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_LOG_DIR, nullptr), CU_FILE_INVALID_VALUE);
}

// cuFile's close resets what cuFileSetParameter* set before the open (AMD's tests,
// CloseClearsAppliedValue): the next reads give the defaults again.
TEST_F(CuFileTest, ParametersSetBeforeOpenAreResetByTheLastClose)
{
    size_t threads_default = 0;
    bool p2pdma_default = true;
    char dir_default[64] = "x";
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &threads_default),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, &p2pdma_default),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterString(CUFILE_PARAM_LOG_DIR, dir_default, sizeof(dir_default)),
                 CU_FILE_SUCCESS);
    ASSERT_NE(threads_default, 10u);
    ASSERT_FALSE(p2pdma_default);
    ASSERT_STREQ(dir_default, "");

    const char *dir = hf_test_tmpdir();
    ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, 10),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, true), CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_LOG_DIR, dir), CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    size_t threads = 0;
    bool p2pdma = false;
    char got_dir[PATH_MAX] = "";
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &threads),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, &p2pdma), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterString(CUFILE_PARAM_LOG_DIR, got_dir, sizeof(got_dir)),
                 CU_FILE_SUCCESS);
    EXPECT_EQ(threads, 10u);
    EXPECT_TRUE(p2pdma);
    EXPECT_STREQ(got_dir, dir);

    ExpectStatus(cuFileDriverClose_v2(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &threads),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, &p2pdma), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterString(CUFILE_PARAM_LOG_DIR, got_dir, sizeof(got_dir)),
                 CU_FILE_SUCCESS);
    EXPECT_EQ(threads, threads_default);
    EXPECT_FALSE(p2pdma);
    EXPECT_STREQ(got_dir, "");
}

// cuFile refuses its string parameters and use_pci_p2pdma while the driver is open
// (CantSetIfDriverOpen) with CU_FILE_DRIVER_ALREADY_OPEN, even for a value it would reject.
TEST_F(CuFileTest, StringParametersAndPciP2pdmaAreRefusedWhileTheDriverIsOpen)
{
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, true),
                 CU_FILE_DRIVER_ALREADY_OPEN);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_LOG_DIR, "/foo/bar"),
                 CU_FILE_DRIVER_ALREADY_OPEN);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_LOGGING_LEVEL, "info"),
                 CU_FILE_DRIVER_ALREADY_OPEN);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_ENV_LOGFILE_PATH, "/tmp/x.log"),
                 CU_FILE_DRIVER_ALREADY_OPEN);
    ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, 10),
                 CU_FILE_DRIVER_ALREADY_OPEN);
    bool p2pdma = true;
    ExpectStatus(cuFileGetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, &p2pdma), CU_FILE_SUCCESS);
    EXPECT_FALSE(p2pdma);
    ExpectStatus(cuFileDriverClose_v2(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterBool(CUFILE_PARAM_USE_PCIP2PDMA, true), CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterString(CUFILE_PARAM_LOGGING_LEVEL, "warn"), CU_FILE_SUCCESS);
}

TEST_F(CuFileTest, MinMaxValueIsTheRangeSetParameterAccepts)
{
    size_t lo = 7, hi = 9;
    ExpectStatus(cuFileGetParameterMinMaxValue(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &lo, &hi),
                 CU_FILE_SUCCESS);
    EXPECT_LE(lo, hi);
    size_t threads = 0;
    ExpectStatus(cuFileGetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, &threads),
                 CU_FILE_SUCCESS);
    EXPECT_GE(threads, lo);
    EXPECT_LE(threads, hi);
    ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, hi),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, hi + 1),
                 CU_FILE_INVALID_VALUE);
    if (lo > 0)
        ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, lo - 1),
                     CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileSetParameterSizeT(CUFILE_PARAM_EXECUTION_MAX_IO_THREADS, threads),
                 CU_FILE_SUCCESS);
    /* A setting taken in steps reports ends that are steps. */
    ExpectStatus(
        cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB, &lo, &hi),
        CU_FILE_SUCCESS);
    EXPECT_EQ(lo % 4, 0u);
    EXPECT_EQ(hi % 4, 0u);
    ExpectStatus(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROFILE_STATS, &lo, &hi),
                 CU_FILE_SUCCESS);
    EXPECT_EQ(lo, 0u);
    EXPECT_EQ(hi, 3u);
    ExpectStatus(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROFILE_STATS, nullptr, &hi),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterMinMaxValue(CUFILE_PARAM_PROFILE_STATS, &lo, nullptr),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterMinMaxValue((CUFileSizeTConfigParameter_t)999, &lo, &hi),
                 CU_FILE_INVALID_VALUE);
}

TEST_F(CuFileTest, PosixPoolSlabArrayIsTheStagingPool)
{
    size_t size_kb = 0, count = 0;
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(&size_kb, &count, 1), CU_FILE_SUCCESS);
    size_t buffer_kb = 0, cache_kb = 0;
    ExpectStatus(
        cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB, &buffer_kb),
        CU_FILE_SUCCESS);
    ExpectStatus(
        cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB, &cache_kb),
        CU_FILE_SUCCESS);
    EXPECT_EQ(size_kb, buffer_kb);
    EXPECT_EQ(count, cache_kb / buffer_kb);

    const size_t sizes[2] = {1024, 16384}, counts[2] = {64, 8};
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(sizes, counts, 1), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(&size_kb, &count, 1), CU_FILE_SUCCESS);
    EXPECT_EQ(size_kb, 1024u);
    EXPECT_EQ(count, 64u);
    ExpectStatus(
        cuFileGetParameterSizeT(CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB, &cache_kb),
        CU_FILE_SUCCESS);
    EXPECT_EQ(cache_kb, 64u * 1024u);

    /* One slab size only; bad arrays change nothing. */
    size_t out[2] = {7, 7}, out_counts[2] = {9, 9};
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(sizes, counts, 2), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(out, out_counts, 2), CU_FILE_INVALID_VALUE);
    EXPECT_EQ(out[0], 7u);
    EXPECT_EQ(out_counts[0], 9u);
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(nullptr, counts, 1), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(out, nullptr, 1), CU_FILE_INVALID_VALUE);
    const size_t zero[1] = {0}, odd[1] = {1023}, many[1] = {SIZE_MAX / 2};
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(sizes, zero, 1), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(odd, counts, 1), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(sizes, many, 1), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(&size_kb, &count, 1), CU_FILE_SUCCESS);
    EXPECT_EQ(size_kb, 1024u);
    EXPECT_EQ(count, 64u);

    /* Set before the driver opens, as cuFile says; the last close resets it. */
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileSetParameterPosixPoolSlabArray(&sizes[1], &counts[1], 1),
                 CU_FILE_DRIVER_ALREADY_OPEN);
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(&size_kb, &count, 1), CU_FILE_SUCCESS);
    EXPECT_EQ(size_kb, 1024u);
    ExpectStatus(cuFileDriverClose_v2(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetParameterPosixPoolSlabArray(&size_kb, &count, 1), CU_FILE_SUCCESS);
    EXPECT_EQ(size_kb, buffer_kb);
}

TEST_F(CuFileTest, BarSizeNeedsTheDriverAndAPciDevice)
{
    size_t kb = 7;
    ExpectStatus(cuFileGetBARSizeInKB(0, &kb), CU_FILE_DRIVER_NOT_INITIALIZED);
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetBARSizeInKB(0, nullptr), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetBARSizeInKB(-1, &kb), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetBARSizeInKB(4096, &kb), CU_FILE_INVALID_VALUE);
    /* The host runtime's devices have no PCI function. */
    ExpectStatus(cuFileGetBARSizeInKB(0, &kb), CU_FILE_DEVICE_NOT_SUPPORTED);
    EXPECT_EQ(kb, 7u);
}

TEST_F(CuFileTest, StatsResetZeroesTheCounters)
{
    ExpectStatus(cuFileStatsReset(), CU_FILE_DRIVER_NOT_INITIALIZED);
    ExpectStatus(cuFileSetStatsLevel(1), CU_FILE_SUCCESS);
    OpenFileAndBuffer();
    ASSERT_EQ(cuFileWrite(fh_, dev_, 4096, 0, 0), 4096);
    CUfileStatsLevel1_t s = {};
    ExpectStatus(cuFileGetStatsL1(&s), CU_FILE_SUCCESS);
    EXPECT_GE(s.write_ops.ok, 1u);
    ExpectStatus(cuFileStatsReset(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetStatsL1(&s), CU_FILE_SUCCESS);
    EXPECT_EQ(s.write_ops.ok, 0u);
    EXPECT_EQ(s.write_bytes, 0u);
    ASSERT_EQ(cuFileRead(fh_, dev_, 4096, 0, 0), 4096);
    ExpectStatus(cuFileGetStatsL1(&s), CU_FILE_SUCCESS);
    EXPECT_EQ(s.read_ops.ok, 1u);
    EXPECT_EQ(s.read_bytes, 4096u);
    /* Stopped, a reset clears the figures a program reads too. */
    ExpectStatus(cuFileStatsStop(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileStatsReset(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetStatsL1(&s), CU_FILE_SUCCESS);
    EXPECT_EQ(s.read_ops.ok, 0u);
    ExpectStatus(cuFileStatsStart(), CU_FILE_SUCCESS);
}

TEST_F(CuFileTest, P2PFlagsAreCheckedAndNoneIsInUse)
{
    CUfileP2PFlags_t flags = (CUfileP2PFlags_t)7;
    ExpectStatus(cuFileDriverGetP2PFlags(CU_FILE_NVME_SUPPORTED, &flags),
                 CU_FILE_DRIVER_NOT_INITIALIZED);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NVME_SUPPORTED, CU_FILE_P2P_FLAG_PCI_P2PDMA),
                 CU_FILE_DRIVER_NOT_INITIALIZED);
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
#if defined(__aarch64__)
    const CUfileP2PFlags_t choosable = CU_FILE_P2P_FLAG_C2C, other = CU_FILE_P2P_FLAG_PCI_P2PDMA;
#else
    const CUfileP2PFlags_t choosable = CU_FILE_P2P_FLAG_PCI_P2PDMA, other = CU_FILE_P2P_FLAG_C2C;
#endif
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NVME_SUPPORTED, choosable), CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NVME_SUPPORTED, (CUfileP2PFlags_t)0),
                 CU_FILE_SUCCESS);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NVME_SUPPORTED, other),
                 CU_FILE_PLATFORM_NOT_SUPPORTED);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NFS_SUPPORTED, CU_FILE_P2P_FLAG_NVFS),
                 CU_FILE_PLATFORM_NOT_SUPPORTED);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NFS_SUPPORTED, CU_FILE_P2P_FLAG_DMABUF),
                 CU_FILE_PLATFORM_NOT_SUPPORTED);
    ExpectStatus(cuFileDriverSetP2PFlags((CUfileDriverStatusFlags_t)10, choosable),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_MAX_TARGET_TYPES, choosable),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileDriverSetP2PFlags((CUfileDriverStatusFlags_t)-1, choosable),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileDriverSetP2PFlags(CU_FILE_NVME_SUPPORTED, choosable), CU_FILE_SUCCESS);
    /* Chosen or not, no backend here moves data by P2PDMA or C2C. */
    ExpectStatus(cuFileDriverGetP2PFlags(CU_FILE_NVME_SUPPORTED, &flags), CU_FILE_SUCCESS);
    EXPECT_EQ((int)flags, 0);
    ExpectStatus(cuFileDriverGetP2PFlags(CU_FILE_NVME_SUPPORTED, nullptr), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileDriverGetP2PFlags(CU_FILE_MAX_TARGET_TYPES, &flags), CU_FILE_INVALID_VALUE);
}

TEST_F(CuFileTest, ReadvAndWritevMoveRangesInOrder)
{
    ExpectStatus(cuFileDriverOpen(), CU_FILE_SUCCESS);
    OpenFileAndBuffer();
    std::vector<uint8_t> pattern(kSize), back(kSize);
    hf_test_pattern_fill(pattern.data(), kSize, 0, 13);
    ASSERT_EQ(hipMemcpy(dev_, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
    char *d = static_cast<char *>(dev_);
    /* Gather the buffer's second half, then its first, to the start of the file. */
    CUfileIOVec_t out[3] = {{d + kSize / 2, kSize / 2}, {nullptr, 0}, {d, kSize / 2}};
    ASSERT_EQ(cuFileWritev(fh_, out, 3, 0, 0), (ssize_t)kSize);
    ASSERT_EQ(hipMemset(dev_, 0, kSize), hipSuccess);
    /* Scatter it back where it came from: the pattern again, whole. */
    CUfileIOVec_t in[2] = {{d + kSize / 2, kSize / 2}, {d, kSize / 2}};
    ASSERT_EQ(cuFileReadv(fh_, in, 2, 0, 0), (ssize_t)kSize);
    ASSERT_EQ(hipMemcpy(back.data(), dev_, kSize, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(back.data(), kSize, 0, 13), -1);
    /* Past the end of the file: what is there, then nothing. */
    EXPECT_EQ(cuFileReadv(fh_, in, 2, kSize / 2 + 100, 0), (ssize_t)(kSize / 2 - 100));
    EXPECT_EQ(cuFileReadv(fh_, in, 2, kSize, 0), 0);

    EXPECT_EQ(cuFileReadv(fh_, in, 2, 0, 1), -CU_FILE_INVALID_VALUE);
    EXPECT_EQ(cuFileReadv(fh_, nullptr, 2, 0, 0), -CU_FILE_INVALID_VALUE);
    std::vector<CUfileIOVec_t> many(1025, CUfileIOVec_t{d, 1});
    EXPECT_EQ(cuFileReadv(fh_, many.data(), many.size(), 0, 0), -CU_FILE_INVALID_VALUE);
    EXPECT_EQ(cuFileReadv(fh_, many.data(), 1024, 0, 0), 1024);
    CUfileIOVec_t past[1] = {{d + kSize - 8, 4096}};
    EXPECT_EQ(cuFileReadv(fh_, past, 1, 0, 0), -CU_FILE_INVALID_VALUE);
    errno = 0;
    EXPECT_EQ(cuFileWritev(fh_, out, 3, -1, 0), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(CuFileTest, BadArgumentsKeepTheirCuFileCodes)
{
    CUfileDescr_t descr = {};
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = -1;
    CUfileHandle_t fh = nullptr;
    ExpectStatus(cuFileHandleRegister(nullptr, &descr), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileHandleRegister(&fh, nullptr), CU_FILE_INVALID_VALUE);
    descr.type = CU_FILE_HANDLE_TYPE_USERSPACE_FS;
    ExpectStatus(cuFileHandleRegister(&fh, &descr), CU_FILE_INVALID_VALUE); // no fs_ops
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_WIN32;
    ExpectStatus(cuFileHandleRegister(&fh, &descr), CU_FILE_IO_NOT_SUPPORTED);
    ExpectStatus(cuFileBufRegister(nullptr, 4096, 0), CU_FILE_INVALID_VALUE);
    /* Memory the GPU runtime does not know is an invalid pointer; pinned host memory is known
     * but is not device memory. */
    std::vector<char> pageable(4096);
    ExpectStatus(cuFileBufRegister(pageable.data(), pageable.size(), 0), CU_FILE_INVALID_VALUE);
    void *pinned = nullptr;
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    ExpectStatus(cuFileBufRegister(pinned, 4096, 0), CU_FILE_CUDA_MEMORY_TYPE_INVALID);
    ExpectStatus(cuFileBufDeregister(pinned), CU_FILE_MEMORY_NOT_REGISTERED);
    ASSERT_EQ(hipHostFree(pinned), hipSuccess);
    /* A deregistration of an unknown handle is ignored, as in cuFile. */
    cuFileHandleDeregister(nullptr);
}

TEST_F(CuFileTest, RegisteredBufferIsFoundAndReRegistrationRefused)
{
    OpenFileAndBuffer();
    ExpectStatus(cuFileBufRegister(dev_, kSize, CU_FILE_RDMA_REGISTER), CU_FILE_SUCCESS);
    ExpectStatus(cuFileBufRegister(dev_, kSize, 0), CU_FILE_MEMORY_ALREADY_REGISTERED);
    ExpectStatus(cuFileBufRegister((char *)dev_ + 4096, kSize, 0),
                 CU_FILE_CUDA_POINTER_RANGE_ERROR);
    ExpectStatus(cuFileBufDeregister(dev_), CU_FILE_SUCCESS);
}

TEST_F(CuFileTest, ReadAndWriteRoundTripAndReportErrorsAsNegatedCuFileCodes)
{
    OpenFileAndBuffer();
    std::vector<uint8_t> pattern(kSize), back(kSize);
    hf_test_pattern_fill(pattern.data(), kSize, 0, 11);
    ASSERT_EQ(hipMemcpy(dev_, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(cuFileWrite(fh_, dev_, kSize, 0, 0), (ssize_t)kSize);
    ASSERT_EQ(hipMemset(dev_, 0, kSize), hipSuccess);
    ASSERT_EQ(cuFileRead(fh_, dev_, kSize / 2, kSize / 2, 0), (ssize_t)(kSize / 2));
    ASSERT_EQ(hipMemcpy(back.data(), dev_, kSize / 2, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(back.data(), kSize / 2, kSize / 2, 11), -1);

    ssize_t n = cuFileRead(fh_, dev_, kSize, 0, (off_t)kSize);
    EXPECT_TRUE(IS_CUFILE_ERR(n));
    EXPECT_EQ(n, -CU_FILE_INVALID_VALUE);
    void *pinned = nullptr;
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    n = cuFileWrite(fh_, pinned, 4096, 0, 0);
    EXPECT_EQ(n, -CU_FILE_CUDA_MEMORY_TYPE_INVALID) << CUFILE_ERRSTR(n);
    ASSERT_EQ(hipHostFree(pinned), hipSuccess);
}

/*
 * A program that closes a registered descriptor without cuFileHandleDeregister and gets the number
 * back for another file: the old handle keeps reading the file it was registered for, and the new
 * file registers on the reused number.
 */
TEST_F(CuFileTest, StaleHandleKeepsItsFileWhenTheNumberIsReused)
{
    char *path_a = hf_test_path("cufile.stale.a");
    char *path_b = hf_test_path("cufile.stale.b");
    ASSERT_EQ(hf_test_pattern_file(path_a, kSize, 21), 0);
    ASSERT_EQ(hf_test_pattern_file(path_b, kSize, 22), 0);
    ASSERT_EQ(hipMalloc(&dev_, kSize), hipSuccess);
    int fd_a = open(path_a, O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_a, 0);
    CUfileDescr_t descr = {};
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = fd_a;
    CUfileHandle_t stale = nullptr;
    ExpectStatus(cuFileHandleRegister(&stale, &descr), CU_FILE_SUCCESS);
    ASSERT_EQ(close(fd_a), 0);
    int fd_b = open(path_b, O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_b, 0);
    if (fd_b != fd_a) {
        ASSERT_EQ(dup2(fd_b, fd_a), fd_a);
        close(fd_b);
    }
    fd_ = fd_a; /* now B's; TearDown closes it */

    std::vector<uint8_t> back(kSize);
    ASSERT_EQ(cuFileRead(stale, dev_, kSize, 0, 0), (ssize_t)kSize);
    ASSERT_EQ(hipMemcpy(back.data(), dev_, kSize, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(back.data(), kSize, 0, 21), -1) << "the old handle read B";

    descr.handle.fd = fd_;
    ExpectStatus(cuFileHandleRegister(&fh_, &descr), CU_FILE_SUCCESS);
    EXPECT_NE(fh_, stale);
    ASSERT_EQ(cuFileRead(fh_, dev_, kSize, 0, 0), (ssize_t)kSize);
    ASSERT_EQ(hipMemcpy(back.data(), dev_, kSize, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(back.data(), kSize, 0, 22), -1);
    cuFileHandleDeregister(stale);
    unlink(path_a);
    unlink(path_b);
    free(path_a);
    free(path_b);
}

/* A user-space file system of cuFile's shape: a file in memory, read and written by callbacks. */
struct CallbackFile {
    std::mutex lock; /* pieces of one request call back from several threads */
    std::vector<char> data;
    bool rdma_info_seen = false;
};

const char *CallbackFsType(void *)
{
    return "cufile-memfs";
}

ssize_t CallbackFsRead(void *handle, char *buf, size_t size, __loff_t offset,
                       cufileRDMAInfo_t *rdma)
{
    auto *f = static_cast<CallbackFile *>(handle);
    std::lock_guard<std::mutex> g(f->lock);
    f->rdma_info_seen |= rdma != nullptr;
    if (offset >= (__loff_t)f->data.size())
        return 0;
    size_t n = std::min(size, f->data.size() - (size_t)offset);
    memcpy(buf, f->data.data() + offset, n);
    return (ssize_t)n;
}

ssize_t CallbackFsWrite(void *handle, const char *buf, size_t size, __loff_t offset,
                        cufileRDMAInfo_t *rdma)
{
    auto *f = static_cast<CallbackFile *>(handle);
    std::lock_guard<std::mutex> g(f->lock);
    f->rdma_info_seen |= rdma != nullptr;
    if (f->data.size() < (size_t)offset + size)
        f->data.resize((size_t)offset + size);
    memcpy(f->data.data() + offset, buf, size);
    return (ssize_t)size;
}

TEST_F(CuFileTest, UserspaceFsCallbacksServeReadsAndWrites)
{
    CallbackFile file;
    file.data.resize(kSize);
    hf_test_pattern_fill(file.data.data(), kSize, 0, 5);
    const CUfileFSOps_t ops = {CallbackFsType, nullptr, nullptr, CallbackFsRead, CallbackFsWrite};
    CUfileDescr_t descr = {};
    descr.type = CU_FILE_HANDLE_TYPE_USERSPACE_FS;
    descr.handle.handle = &file;
    descr.fs_ops = &ops;
    ExpectStatus(cuFileHandleRegister(&fh_, &descr), CU_FILE_SUCCESS);
    CUfileHandle_t again = nullptr;
    ExpectStatus(cuFileHandleRegister(&again, &descr), CU_FILE_HANDLE_ALREADY_REGISTERED);
    ASSERT_EQ(hipMalloc(&dev_, kSize), hipSuccess);

    ASSERT_EQ(cuFileRead(fh_, dev_, 300001, 4097, 3), 300001);
    std::vector<char> back(300001);
    ASSERT_EQ(hipMemcpy(back.data(), (char *)dev_ + 3, back.size(), hipMemcpyDeviceToHost),
              hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(back.data(), back.size(), 4097, 5), -1);

    ASSERT_EQ(cuFileWrite(fh_, dev_, 300001, kSize - 7, 3), 300001);
    ASSERT_EQ(file.data.size(), kSize - 7 + 300001);
    EXPECT_EQ(hf_test_pattern_check(file.data.data() + kSize - 7, 300001, 4097, 5), -1);
    EXPECT_FALSE(file.rdma_info_seen) << "hipfile offers no RDMA descriptor";
    EXPECT_EQ(cuFileRead(fh_, dev_, 4096, 4 * kSize, 0), 0);
}

TEST_F(CuFileTest, BatchEntriesRunAndReportCuFileEvents)
{
    OpenFileAndBuffer();
    std::vector<uint8_t> pattern(kSize);
    hf_test_pattern_fill(pattern.data(), kSize, 0, 5);
    ASSERT_EQ(hipMemcpy(dev_, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
    ExpectStatus(cuFileBufRegister(dev_, kSize, 0), CU_FILE_SUCCESS);
    CUfileBatchHandle_t batch = nullptr;
    ExpectStatus(cuFileBatchIOSetUp(&batch, 4), CU_FILE_SUCCESS);
    CUfileIOParams_t params[2] = {};
    int cookies[2];
    for (int i = 0; i < 2; i++) {
        params[i].mode = CUFILE_BATCH;
        params[i].opcode = CUFILE_WRITE;
        params[i].fh = fh_;
        params[i].u.batch.devPtr_base = dev_;
        params[i].u.batch.devPtr_offset = (off_t)(i * kSize / 2);
        params[i].u.batch.file_offset = (off_t)(i * kSize / 2);
        params[i].u.batch.size = kSize / 2;
        params[i].cookie = &cookies[i];
    }
    ExpectStatus(cuFileBatchIOSubmit(batch, 2, params, 0), CU_FILE_SUCCESS);
    CUfileIOEvents_t events[2] = {};
    unsigned nr = 2;
    unsigned got = 0;
    while (got < 2) {
        nr = 2 - got;
        ExpectStatus(cuFileBatchIOGetStatus(batch, nr, &nr, events + got, nullptr),
                     CU_FILE_SUCCESS);
        got += nr;
    }
    for (const CUfileIOEvents_t &ev : events) {
        EXPECT_EQ(ev.status, CUFILE_COMPLETE);
        EXPECT_EQ(ev.ret, kSize / 2);
        EXPECT_TRUE(ev.cookie == &cookies[0] || ev.cookie == &cookies[1]);
    }
    ExpectStatus(cuFileBatchIOCancel(batch), CU_FILE_SUCCESS);
    params[0].mode = (CUfileBatchMode_t)7;
    ExpectStatus(cuFileBatchIOSubmit(batch, 1, params, 0), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileBatchIOSetUp(&batch, 0), CU_FILE_INVALID_VALUE);
    cuFileBatchIODestroy(batch);
    ExpectStatus(cuFileBufDeregister(dev_), CU_FILE_SUCCESS);

    std::vector<uint8_t> file(kSize);
    ASSERT_EQ(pread(fd_, file.data(), kSize, 0), (ssize_t)kSize);
    EXPECT_EQ(hf_test_pattern_check(file.data(), kSize, 0, 5), -1);
}

TEST_F(CuFileTest, StreamOrderedIoCompletesOnTheStream)
{
    OpenFileAndBuffer();
    std::vector<uint8_t> pattern(kSize), back(kSize);
    hf_test_pattern_fill(pattern.data(), kSize, 0, 9);
    ASSERT_EQ(hipMemcpy(dev_, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
    hipStream_t hs = nullptr;
    ASSERT_EQ(hipStreamCreate(&hs), hipSuccess);
    CUstream stream = (CUstream)hs;
    ExpectStatus(cuFileStreamRegister(stream, 0xf), CU_FILE_SUCCESS);
    ExpectStatus(cuFileStreamRegister(stream, 0), CU_FILE_INVALID_VALUE);
    size_t size = kSize;
    off_t file_offset = 0, buf_offset = 0;
    ssize_t written = -7, read = -7;
    ExpectStatus(cuFileWriteAsync(fh_, dev_, &size, &file_offset, &buf_offset, &written, stream),
                 CU_FILE_SUCCESS);
    ASSERT_EQ(hipStreamSynchronize(hs), hipSuccess);
    EXPECT_EQ(written, (ssize_t)kSize);
    ASSERT_EQ(hipMemset(dev_, 0, kSize), hipSuccess);
    ExpectStatus(cuFileReadAsync(fh_, dev_, &size, &file_offset, &buf_offset, &read, stream),
                 CU_FILE_SUCCESS);
    ASSERT_EQ(hipStreamSynchronize(hs), hipSuccess);
    EXPECT_EQ(read, (ssize_t)kSize);
    ASSERT_EQ(hipMemcpy(back.data(), dev_, kSize, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(back.data(), kSize, 0, 9), -1);
    ExpectStatus(cuFileReadAsync(fh_, dev_, nullptr, &file_offset, &buf_offset, &read, stream),
                 CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileStreamDeregister(stream), CU_FILE_SUCCESS);
    ExpectStatus(cuFileStreamDeregister(stream), CU_FILE_INVALID_VALUE);
    ASSERT_EQ(hipStreamDestroy(hs), hipSuccess);
}

TEST_F(CuFileTest, StatsLevelStartAndStopFreezeWhatIsReported)
{
    ExpectStatus(cuFileSetStatsLevel(4), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileSetStatsLevel(-1), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileGetStatsLevel(nullptr), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileSetStatsLevel(3), CU_FILE_SUCCESS);
    int level = 0;
    ExpectStatus(cuFileGetStatsLevel(&level), CU_FILE_SUCCESS);
    EXPECT_EQ(level, 3);

    OpenFileAndBuffer();
    CUfileStatsLevel1_t before = {};
    ExpectStatus(cuFileGetStatsL1(&before), CU_FILE_SUCCESS);
    ASSERT_EQ(cuFileWrite(fh_, dev_, 4096, 0, 0), 4096);
    ExpectStatus(cuFileStatsStop(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetStatsLevel(&level), CU_FILE_SUCCESS);
    EXPECT_EQ(level, 0);
    ASSERT_EQ(cuFileWrite(fh_, dev_, 8192, 0, 0), 8192);
    CUfileStatsLevel3_t stopped = {};
    ExpectStatus(cuFileGetStatsL3(&stopped), CU_FILE_SUCCESS);
    EXPECT_EQ(stopped.detailed.basic.write_bytes, before.write_bytes + 4096);
    EXPECT_EQ(stopped.detailed.basic.write_ops.ok, before.write_ops.ok + 1);

    ExpectStatus(cuFileStatsStart(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetStatsLevel(&level), CU_FILE_SUCCESS);
    EXPECT_EQ(level, 3);
    ASSERT_EQ(cuFileWrite(fh_, dev_, 4096, 0, 0), 4096);
    CUfileStatsLevel2_t running = {};
    ExpectStatus(cuFileGetStatsL2(&running), CU_FILE_SUCCESS);
    EXPECT_EQ(running.basic.write_bytes, stopped.detailed.basic.write_bytes + 4096);

    ExpectStatus(cuFileSetStatsLevel(1), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetStatsL2(&running), CU_FILE_INTERNAL_ERROR);
    ExpectStatus(cuFileGetStatsL1(nullptr), CU_FILE_INVALID_VALUE);
    ExpectStatus(cuFileStatsStop(), CU_FILE_SUCCESS);
    ExpectStatus(cuFileGetStatsL3(&stopped), CU_FILE_INTERNAL_ERROR);
    ExpectStatus(cuFileStatsStart(), CU_FILE_SUCCESS);
}

} // namespace
