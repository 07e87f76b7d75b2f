/*
 * Read/write conformance: the same behaviour from every backend that can serve on this machine.
 * The backend under test comes from HIPFILE_TEST_BACKEND; the suite writes a config that enables
 * only that plugin, so every request is served (or refused) by it alone.
 */
#include "../api/api_test.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace
{

/*
 * Variants of a backend: the plugins to enable (the contents of plugins.enable) and the settings
 * of their groups. "fallback-bounce" stages host-accessible device memory (the host emulation's)
 * through pinned slots and GPU copies, so the staging pipeline runs on machines without a GPU;
 * "fallback-direct" also sends every aligned read through O_DIRECT, cached or not. "fastpath"
 * declines what no direct engine can serve (unaligned ranges, files without O_DIRECT), so it runs
 * with the fallback beside it: every result must be the same as the fallback's alone.
 */
struct BackendVariant {
    const char *test_name;
    const char *plugins;
    const char *group;
};

const BackendVariant kVariants[] = {
    {"fallback-bounce", "\"fallback\"", "fallback = {\n  bounce_host_accessible = true;\n};\n"},
    {"fallback-direct", "\"fallback\"",
     "fallback = {\n  bounce_host_accessible = true;\n  direct_io = \"always\";\n};\n"},
    {"fastpath", "\"fastpath\", \"fallback\"", ""},
};

class BackendEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        const char *backend = getenv("HIPFILE_TEST_BACKEND");
        if (backend == nullptr || backend[0] == '\0')
            backend = "fallback";
        std::string plugins = std::string("\"") + backend + "\"";
        std::string group;
        for (const BackendVariant &v : kVariants) {
            if (std::string(backend) == v.test_name) {
                plugins = v.plugins;
                group = v.group;
            }
        }
        char *conf = hf_test_path("conformance.conf");
        std::string text = std::string("plugins = {\n  directory = \"") + HF_TEST_PLUGIN_DIR +
                           "\";\n  enable = [ " + plugins + " ];\n};\n" + group;
        ASSERT_EQ(hf_test_write_text(conf, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", conf, 1);
        free(conf);
    }
};

const ::testing::Environment *const backend_env =
    ::testing::AddGlobalTestEnvironment(new BackendEnvironment);

} // namespace

class ReadWriteTest : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        path = ScratchPath("data");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), file_size, seed), 0);
        fd = open(path.c_str(), O_RDWR);
        ASSERT_GE(fd, 0);
        fh = Register(fd);
        ASSERT_EQ(hipMalloc(&dev, dev_size), hipSuccess);
        host.resize(dev_size);
    }
    void TearDown() override
    {
        hipFileHandleDeregister(fh);
        close(fd);
        (void)hipFree(dev);
        ApiTest::TearDown();
    }
    /* Bytes [offset, offset+n) of the device buffer, copied to the host. */
    std::vector<uint8_t> DeviceBytes(size_t offset, size_t n)
    {
        std::vector<uint8_t> out(n);
        EXPECT_EQ(
            hipMemcpy(out.data(), static_cast<char *>(dev) + offset, n, hipMemcpyDeviceToHost),
            hipSuccess);
        return out;
    }

    static constexpr uint32_t seed = 11;
    static constexpr size_t file_size = 3 * 1024 * 1024 + 777;
    static constexpr size_t dev_size = 8 * 1024 * 1024;
    std::string path;
    int fd = -1;
    hipFileHandle_t fh = nullptr;
    void *dev = nullptr;
    std::vector<uint8_t> host;
};

TEST_F(ReadWriteTest, WholeFileReadMatchesPattern)
{
    ssize_t n = hipFileRead(fh, dev, file_size, 0, 0);
    ASSERT_EQ(n, (ssize_t)file_size);
    auto bytes = DeviceBytes(0, file_size);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), file_size, 0, seed), -1);
}

TEST_F(ReadWriteTest, RandomSizesOffsetsAndAlignmentsRead)
{
    std::mt19937_64 rng(1234);
    for (int i = 0; i < 60; i++) {
        size_t size = rng() % (1 << 20) + 1;
        if (i % 4 == 0)
            size = rng() % 64 + 1;
        size_t file_offset = rng() % (file_size - 1);
        size_t buf_offset = rng() % (dev_size - size);
        ssize_t expect = (ssize_t)std::min(size, file_size - file_offset);
        ssize_t n = hipFileRead(fh, dev, size, (hoff_t)file_offset, (hoff_t)buf_offset);
        ASSERT_EQ(n, expect) << "size " << size << " file_offset " << file_offset;
        auto bytes = DeviceBytes(buf_offset, (size_t)n);
        ASSERT_EQ(hf_test_pattern_check(bytes.data(), (size_t)n, file_offset, seed), -1)
            << "size " << size << " file_offset " << file_offset << " buf_offset " << buf_offset;
    }
}

TEST_F(ReadWriteTest, RandomWritesReadBackAndLandInTheFile)
{
    std::mt19937_64 rng(99);
    for (int i = 0; i < 40; i++) {
        size_t size = rng() % (1 << 20) + 1;
        size_t file_offset = rng() % (4 * file_size);
        size_t buf_offset = rng() % (dev_size - size);
        uint32_t wseed = 1000 + (uint32_t)i;
        std::vector<uint8_t> src(size);
        hf_test_pattern_fill(src.data(), size, file_offset, wseed);
        ASSERT_EQ(hipMemcpy(static_cast<char *>(dev) + buf_offset, src.data(), size,
                            hipMemcpyHostToDevice),
                  hipSuccess);
        ASSERT_EQ(hipFileWrite(fh, dev, size, (hoff_t)file_offset, (hoff_t)buf_offset),
                  (ssize_t)size);
        std::vector<uint8_t> back(size);
        ASSERT_EQ(pread(fd, back.data(), size, (off_t)file_offset), (ssize_t)size);
        ASSERT_EQ(hf_test_pattern_check(back.data(), size, file_offset, wseed), -1);
        ASSERT_EQ(hipMemset(dev, 0, dev_size), hipSuccess);
        ASSERT_EQ(hipFileRead(fh, dev, size, (hoff_t)file_offset, 0), (ssize_t)size);
        auto bytes = DeviceBytes(0, size);
        ASSERT_EQ(hf_test_pattern_check(bytes.data(), size, file_offset, wseed), -1);
    }
}

TEST_F(ReadWriteTest, LargeRequestsSplitAcrossWorkersMatchByteForByte)
{
    std::mt19937_64 rng(4242);
    for (int i = 0; i < 12; i++) {
        size_t size = (1 << 20) + rng() % (dev_size - (1 << 20));
        size_t buf_offset = rng() % (dev_size - size + 1);
        size_t file_offset = rng() % (2 * file_size) + (i % 3 == 0 ? 0 : rng() % 4096);
        uint32_t wseed = 2000 + (uint32_t)i;
        std::vector<uint8_t> src(size);
        hf_test_pattern_fill(src.data(), size, file_offset, wseed);
        ASSERT_EQ(hipMemcpy(static_cast<char *>(dev) + buf_offset, src.data(), size,
                            hipMemcpyHostToDevice),
                  hipSuccess);
        ASSERT_EQ(hipFileWrite(fh, dev, size, (hoff_t)file_offset, (hoff_t)buf_offset),
                  (ssize_t)size)
            << "size " << size << " file_offset " << file_offset;
        std::vector<uint8_t> back(size);
        ASSERT_EQ(pread(fd, back.data(), size, (off_t)file_offset), (ssize_t)size);
        ASSERT_EQ(hf_test_pattern_check(back.data(), size, file_offset, wseed), -1);

        ASSERT_EQ(hipMemset(dev, 0, dev_size), hipSuccess);
        size_t read_offset = (size_t)rng() % 8192;
        ASSERT_EQ(hipFileRead(fh, dev, size, (hoff_t)file_offset, (hoff_t)read_offset),
                  (ssize_t)size);
        auto bytes = DeviceBytes(read_offset, size);
        ASSERT_EQ(hf_test_pattern_check(bytes.data(), size, file_offset, wseed), -1)
            << "size " << size << " file_offset " << file_offset;
    }
}

TEST_F(ReadWriteTest, ConcurrentLargeReadersGetTheirOwnBytes)
{
    const size_t region = dev_size / 4;
    std::vector<std::thread> pool;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; t++) {
        pool.emplace_back([&, t] {
            std::mt19937_64 rng(100 + t);
            for (int i = 0; i < 4; i++) {
                size_t size = region - rng() % 4096;
                size_t file_offset = rng() % (file_size - size);
                size_t buf_offset = (size_t)t * region;
                if (hipFileRead(fh, dev, size, (hoff_t)file_offset, (hoff_t)buf_offset) !=
                    (ssize_t)size) {
                    bad++;
                    continue;
                }
                std::vector<uint8_t> out(size);
                if (hipMemcpy(out.data(), static_cast<char *>(dev) + buf_offset, size,
                              hipMemcpyDeviceToHost) != hipSuccess ||
                    hf_test_pattern_check(out.data(), size, file_offset, seed) != -1)
                    bad++;
            }
        });
    }
    for (auto &th : pool)
        th.join();
    EXPECT_EQ(bad.load(), 0);
}

TEST_F(ReadWriteTest, LargeReadStraddlingEofIsShortByExactlyTheMissingBytes)
{
    const size_t size = 6 << 20;
    const size_t file_offset = 4096 * 3;
    ssize_t n = hipFileRead(fh, dev, size, (hoff_t)file_offset, 0);
    ASSERT_EQ(n, (ssize_t)(file_size - file_offset));
    auto bytes = DeviceBytes(0, (size_t)n);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), (size_t)n, file_offset, seed), -1);
}

TEST_F(ReadWriteTest, ReadAtOrPastEofReturnsZero)
{
    EXPECT_EQ(hipFileRead(fh, dev, 4096, (hoff_t)file_size, 0), 0);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, (hoff_t)file_size * 10, 0), 0);
}

TEST_F(ReadWriteTest, ReadStraddlingEofIsShort)
{
    ssize_t n = hipFileRead(fh, dev, 1 << 20, (hoff_t)(file_size - 100), 5);
    ASSERT_EQ(n, 100);
    auto bytes = DeviceBytes(5, 100);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), 100, file_size - 100, seed), -1);
}

TEST_F(ReadWriteTest, FileLargerThanBufferReadInPieces)
{
    const size_t piece = 1 << 20;
    for (size_t off = 0; off < file_size; off += piece) {
        ssize_t n = hipFileRead(fh, dev, piece, (hoff_t)off, 0);
        ASSERT_EQ(n, (ssize_t)std::min(piece, file_size - off));
        auto bytes = DeviceBytes(0, (size_t)n);
        ASSERT_EQ(hf_test_pattern_check(bytes.data(), (size_t)n, off, seed), -1);
    }
}

TEST_F(ReadWriteTest, HolesReadAsZeros)
{
    ASSERT_EQ(ftruncate(fd, (off_t)(file_size + (4 << 20))), 0);
    ASSERT_EQ(hipMemset(dev, 0xab, dev_size), hipSuccess);
    ssize_t n = hipFileRead(fh, dev, 2 << 20, (hoff_t)(file_size + 4096), 0);
    ASSERT_EQ(n, 2 << 20);
    auto bytes = DeviceBytes(0, 2 << 20);
    for (size_t i = 0; i < bytes.size(); i++)
        ASSERT_EQ(bytes[i], 0) << "at " << i;
}

TEST_F(ReadWriteTest, UnregisteredInteriorPointerReadsToTheEndOfTheAllocation)
{
    char *inner = static_cast<char *>(dev) + 12345;
    ASSERT_EQ(hipFileRead(fh, inner, 1000, 10, 0), 1000);
    auto bytes = DeviceBytes(12345, 1000);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), 1000, 10, seed), -1);
    /* The extent of an unregistered pointer ends where its allocation ends. */
    EXPECT_EQ(hipFileRead(fh, inner, dev_size - 12345 + 1, 0, 0),
              -static_cast<ssize_t>(hipFileInvalidValue));
}

TEST_F(ReadWriteTest, RegisteredBufferBoundsAreEnforced)
{
    ASSERT_EQ(hipFileBufRegister(dev, 1 << 16, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileRead(fh, dev, 1 << 16, 0, 0), 1 << 16);
    EXPECT_EQ(hipFileRead(fh, dev, (1 << 16) + 1, 0, 0),
              -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(hipFileRead(fh, dev, 1, 0, 1 << 16), -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(hipFileRead(fh, dev, 2, 0, (1 << 16) - 1),
              -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(hipFileRead(fh, dev, SIZE_MAX, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
    auto bytes = DeviceBytes(0, 1 << 16);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), 1 << 16, 0, seed), -1);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
}

TEST_F(ReadWriteTest, NegativeOffsetsAreEinval)
{
    errno = 0;
    EXPECT_EQ(hipFileRead(fh, dev, 16, -1, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 16, 0, -5), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(ReadWriteTest, OverflowingFileRangeIsInvalidValue)
{
    EXPECT_EQ(hipFileRead(fh, dev, 4096, INT64_MAX - 10, 0),
              -static_cast<ssize_t>(hipFileInvalidValue));
}

TEST_F(ReadWriteTest, ZeroSizeReturnsZero)
{
    EXPECT_EQ(hipFileRead(fh, dev, 0, 0, 0), 0);
    EXPECT_EQ(hipFileWrite(fh, dev, 0, 0, 0), 0);
}

TEST_F(ReadWriteTest, NullAndHostBuffersAreRejected)
{
    EXPECT_EQ(hipFileRead(fh, nullptr, 16, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
    std::vector<char> pageable(4096);
    EXPECT_EQ(hipFileRead(fh, pageable.data(), 16, 0, 0),
              -static_cast<ssize_t>(hipFileInvalidValue));
    void *pinned = nullptr;
    ASSERT_EQ(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
    EXPECT_EQ(hipFileRead(fh, pinned, 16, 0, 0),
              -static_cast<ssize_t>(hipFileHipMemoryTypeInvalid));
    (void)hipHostFree(pinned);
}

TEST_F(ReadWriteTest, WriteThroughReadOnlyFdIsEbadf)
{
    int ro = open(path.c_str(), O_RDONLY);
    ASSERT_GE(ro, 0);
    hipFileHandle_t rfh = Register(ro);
    errno = 0;
    EXPECT_EQ(hipFileWrite(rfh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, EBADF);
    /* Nothing was written. */
    std::vector<uint8_t> back(4096);
    ASSERT_EQ(pread(fd, back.data(), 4096, 0), 4096);
    EXPECT_EQ(hf_test_pattern_check(back.data(), 4096, 0, seed), -1);
    hipFileHandleDeregister(rfh);
    close(ro);
}

TEST_F(ReadWriteTest, ReadThroughWriteOnlyFdIsEbadf)
{
    int wo = open(path.c_str(), O_WRONLY);
    ASSERT_GE(wo, 0);
    hipFileHandle_t wfh = Register(wo);
    errno = 0;
    EXPECT_EQ(hipFileRead(wfh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, EBADF);
    hipFileHandleDeregister(wfh);
    close(wo);
}

TEST_F(ReadWriteTest, UnalignedRequestsOnAnODirectFdAreServed)
{
    int dfd = open(path.c_str(), O_RDWR | O_DIRECT);
    if (dfd < 0)
        GTEST_SKIP() << "this filesystem refuses O_DIRECT";
    hipFileHandle_t dfh = Register(dfd);
    ssize_t n = hipFileRead(dfh, dev, 1001, 3, 7);
    ASSERT_EQ(n, 1001);
    auto bytes = DeviceBytes(7, 1001);
    EXPECT_EQ(hf_test_pattern_check(bytes.data(), 1001, 3, seed), -1);
    hipFileHandleDeregister(dfh);
    close(dfd);
}

TEST_F(ReadWriteTest, AppendFdWritesAtTheGivenOffset)
{
    int afd = open(path.c_str(), O_RDWR | O_APPEND);
    ASSERT_GE(afd, 0);
    hipFileHandle_t afh = Register(afd);
    std::vector<uint8_t> src(4096);
    hf_test_pattern_fill(src.data(), src.size(), 8192, 77);
    ASSERT_EQ(hipMemcpy(dev, src.data(), src.size(), hipMemcpyHostToDevice), hipSuccess);
    ASSERT_EQ(hipFileWrite(afh, dev, 4096, 8192, 0), 4096);
    std::vector<uint8_t> back(4096);
    ASSERT_EQ(pread(fd, back.data(), 4096, 8192), 4096);
    EXPECT_EQ(hf_test_pattern_check(back.data(), 4096, 8192, 77), -1);
    struct stat st;
    ASSERT_EQ(fstat(fd, &st), 0);
    EXPECT_EQ((size_t)st.st_size, file_size);
    hipFileHandleDeregister(afh);
    close(afd);
}

TEST_F(ReadWriteTest, ConcurrentReadersGetTheirOwnBytes)
{
    std::vector<std::thread> pool;
    std::atomic<int> bad{0};
    for (int t = 0; t < 6; t++) {
        pool.emplace_back([&, t] {
            std::mt19937_64 rng(t);
            for (int i = 0; i < 20; i++) {
                size_t size = rng() % (256 << 10) + 1;
                size_t file_offset = rng() % (file_size - size);
                size_t buf_offset = (size_t)t * (1 << 20);
                if (hipFileRead(fh, dev, size, (hoff_t)file_offset, (hoff_t)buf_offset) !=
                    (ssize_t)size) {
                    bad++;
                    continue;
                }
                std::vector<uint8_t> out(size);
                if (hipMemcpy(out.data(), static_cast<char *>(dev) + buf_offset, size,
                              hipMemcpyDeviceToHost) != hipSuccess ||
                    hf_test_pattern_check(out.data(), size, file_offset, seed) != -1)
                    bad++;
            }
        });
    }
    for (auto &th : pool)
        th.join();
    EXPECT_EQ(bad.load(), 0);
}
