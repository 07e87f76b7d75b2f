/*
 * hipFileReadv and hipFileWritev: one file range to and from a list of memory ranges of every
 * kind (registered device memory and its interior, unregistered device memory, host memory,
 * empty entries), hundreds of entries at once, end of file, and every refusal, which moves no
 * byte.
 */
#include "api_test.h"

#include <hipfile/vector.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

class VectorTest : public ApiTest
{
  protected:
    static constexpr size_t kFileSize = 8 << 20;
    static constexpr size_t kDevSize = 8 << 20;
    static constexpr uint32_t kSeed = 11;

    void SetUp() override
    {
        ApiTest::SetUp();
        /* Pinned host memory is one of the kinds a vector mixes (cuFile allows it too). */
        ASSERT_EQ(hipFileSetParameterBool(hipFileParamPropertiesAllowSystemMemory, true).err,
                  hipFileSuccess);
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
        path = ScratchPath("data");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), kFileSize, kSeed), 0);
        fd = open(path.c_str(), O_RDWR);
        ASSERT_GE(fd, 0);
        fh = Register(fd);
        ASSERT_EQ(hipMalloc(&reg, kDevSize), hipSuccess);
        ASSERT_EQ(hipFileBufRegister(reg, kDevSize, 0).err, hipFileSuccess);
        ASSERT_EQ(hipMalloc(&dev, kDevSize), hipSuccess);
    }
    void TearDown() override
    {
        (void)hipFileBufDeregister(reg);
        if (fh != nullptr)
            hipFileHandleDeregister(fh);
        close(fd);
        (void)hipFree(reg);
        (void)hipFree(dev);
        ApiTest::TearDown();
    }
    /* The file's bytes [offset, offset + size), read back with pread. */
    std::vector<char> FileBytes(off_t offset, size_t size)
    {
        std::vector<char> out(size);
        EXPECT_EQ(pread(fd, out.data(), size, offset), static_cast<ssize_t>(size));
        return out;
    }
    static std::vector<char> DeviceBytes(const void *p, size_t size)
    {
        std::vector<char> out(size);
        EXPECT_EQ(hipMemcpy(out.data(), p, size, hipMemcpyDeviceToHost), hipSuccess);
        return out;
    }

    std::string path;
    int fd = -1;
    hipFileHandle_t fh = nullptr;
    char *reg = nullptr; /* registered */
    char *dev = nullptr; /* not registered */
};

static char *At(void *p, size_t offset)
{
    return static_cast<char *>(p) + offset;
}

TEST_F(VectorTest, ReadScattersEveryKindOfMemoryInOrder)
{
    char *host = nullptr;
    ASSERT_EQ(hipHostMalloc(reinterpret_cast<void **>(&host), 300000, 0), hipSuccess);
    /* Odd lengths, an empty entry, the registered buffer's start and interior, plain memory. */
    std::vector<hipFileIOVec_t> iov = {
        {reg, 4096},    {At(dev, 12345), 1000001}, {nullptr, 0},
        {host, 300000}, {At(reg, 65536), 3 << 20}, {At(dev, 2 << 20), 7},
    };
    const int64_t offset = 4093;
    ssize_t want = 0;
    for (const auto &v : iov)
        want += static_cast<ssize_t>(v.len);
    ASSERT_EQ(hipFileReadv(fh, iov.data(), iov.size(), offset, 0), want);
    uint64_t at = static_cast<uint64_t>(offset);
    for (const auto &v : iov) {
        if (v.len == 0)
            continue;
        std::vector<char> got = DeviceBytes(v.base, v.len);
        EXPECT_EQ(hf_test_pattern_check(got.data(), v.len, at, kSeed), -1) << "entry at " << at;
        at += v.len;
    }
    (void)hipHostFree(host);
}

TEST_F(VectorTest, HundredsOfSmallEntries)
{
    /* 1000 tensors of a checkpoint: sizes from a byte to 8 KB, packed back to back. */
    std::vector<hipFileIOVec_t> iov;
    size_t used = 0;
    for (unsigned i = 0; i < 1000; i++) {
        size_t len = 1 + (i * 7919) % 8000;
        iov.push_back({At(dev, used), len});
        used += len + 64; /* gaps in memory, none in the file */
    }
    size_t total = 0;
    for (const auto &v : iov)
        total += v.len;
    ASSERT_LE(used, kDevSize);
    ASSERT_EQ(hipFileReadv(fh, iov.data(), iov.size(), 100, 0), static_cast<ssize_t>(total));
    uint64_t at = 100;
    for (const auto &v : iov) {
        std::vector<char> got = DeviceBytes(v.base, v.len);
        ASSERT_EQ(hf_test_pattern_check(got.data(), v.len, at, kSeed), -1) << "entry at " << at;
        at += v.len;
    }
}

TEST_F(VectorTest, ReadStopsAtEndOfFile)
{
    ASSERT_EQ(hipMemset(dev, 0x5a, kDevSize), hipSuccess);
    /* The second entry crosses the end; the third lies wholly past it. */
    std::vector<hipFileIOVec_t> iov = {{dev, 1000}, {At(dev, 4096), 5000}, {At(dev, 16384), 100}};
    const int64_t offset = kFileSize - 3000;
    ASSERT_EQ(hipFileReadv(fh, iov.data(), iov.size(), offset, 0), 3000);
    std::vector<char> first = DeviceBytes(dev, 1000);
    EXPECT_EQ(hf_test_pattern_check(first.data(), 1000, offset, kSeed), -1);
    std::vector<char> second = DeviceBytes(At(dev, 4096), 2000);
    EXPECT_EQ(hf_test_pattern_check(second.data(), 2000, offset + 1000, kSeed), -1);
    std::vector<char> past = DeviceBytes(At(dev, 16384), 100);
    EXPECT_EQ(past, std::vector<char>(100, 0x5a));
    EXPECT_EQ(hipFileReadv(fh, iov.data(), iov.size(), kFileSize, 0), 0);
}

TEST_F(VectorTest, WriteGathersInOrder)
{
    FillDevice(dev, 0, kDevSize, 1 << 20, 3);
    char *host = nullptr;
    ASSERT_EQ(hipHostMalloc(reinterpret_cast<void **>(&host), 5000, 0), hipSuccess);
    hf_test_pattern_fill(host, 5000, 777, 4);
    std::vector<hipFileIOVec_t> iov = {
        {At(dev, 10), 70000}, {nullptr, 0}, {host, 5000}, {At(dev, 3 << 20), 2 << 20}};
    const int64_t offset = 123457;
    ASSERT_EQ(hipFileWritev(fh, iov.data(), iov.size(), offset, 0), 70000 + 5000 + (2 << 20));
    std::vector<char> a = FileBytes(offset, 70000);
    EXPECT_EQ(hf_test_pattern_check(a.data(), 70000, (1 << 20) + 10, 3), -1);
    std::vector<char> b = FileBytes(offset + 70000, 5000);
    EXPECT_EQ(memcmp(b.data(), host, 5000), 0);
    (void)hipHostFree(host);
    std::vector<char> c = FileBytes(offset + 75000, 2 << 20);
    EXPECT_EQ(hf_test_pattern_check(c.data(), 2 << 20, (1 << 20) + (3 << 20), 3), -1);
    /* Bytes either side are the file's own. */
    std::vector<char> before = FileBytes(offset - 1, 1);
    EXPECT_EQ(hf_test_pattern_check(before.data(), 1, offset - 1, kSeed), -1);
    std::vector<char> after = FileBytes(offset + 75000 + (2 << 20), 1);
    EXPECT_EQ(hf_test_pattern_check(after.data(), 1, offset + 75000 + (2 << 20), kSeed), -1);
}

TEST_F(VectorTest, WriteThenReadBackPastTheEnd)
{
    FillDevice(dev, 0, 1 << 20, 0, 8);
    std::vector<hipFileIOVec_t> iov = {{dev, 1000}, {At(dev, 1000), (1 << 20) - 1000}};
    ASSERT_EQ(hipFileWritev(fh, iov.data(), iov.size(), kFileSize + 10, 0), 1 << 20);
    struct stat st;
    ASSERT_EQ(fstat(fd, &st), 0);
    EXPECT_EQ(static_cast<size_t>(st.st_size), kFileSize + 10 + (1 << 20));
    std::vector<hipFileIOVec_t> back = {{reg, 1 << 20}};
    ASSERT_EQ(hipFileReadv(fh, back.data(), 1, kFileSize + 10, 0), 1 << 20);
    std::vector<char> got = DeviceBytes(reg, 1 << 20);
    EXPECT_EQ(hf_test_pattern_check(got.data(), 1 << 20, 0, 8), -1);
}

TEST_F(VectorTest, RefusalsNameTheProblemAndMoveNothing)
{
    hipFileIOVec_t one = {dev, 4096};
    EXPECT_EQ(hipFileReadv(fh, &one, 1, 0, 1), -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(hipFileReadv(fh, nullptr, 2, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(hipFileReadv(fh, nullptr, 0, 0, 0), 0);
    EXPECT_EQ(hipFileReadv(fh, &one, 0, 0, 0), 0);
    std::vector<hipFileIOVec_t> many(HIPFILE_IOV_MAX + 1, hipFileIOVec_t{dev, 1});
    EXPECT_EQ(hipFileReadv(fh, many.data(), many.size(), 0, 0),
              -static_cast<ssize_t>(hipFileInvalidValue));
    many.resize(HIPFILE_IOV_MAX);
    EXPECT_EQ(hipFileReadv(fh, many.data(), many.size(), 0, 0), HIPFILE_IOV_MAX);
    hipFileIOVec_t null_base[2] = {{dev, 10}, {nullptr, 10}};
    EXPECT_EQ(hipFileReadv(fh, null_base, 2, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
    hipFileIOVec_t huge[2] = {{dev, SIZE_MAX / 2 + 1}, {dev, SIZE_MAX / 2 + 1}};
    EXPECT_EQ(hipFileReadv(fh, huge, 2, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
    errno = 0;
    EXPECT_EQ(hipFileReadv(fh, &one, 1, -1, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    int not_a_handle = 0;
    EXPECT_EQ(hipFileReadv(&not_a_handle, &one, 1, 0, 0),
              -static_cast<ssize_t>(hipFileHandleNotRegistered));

    /* The second range runs past its allocation: the first is not written either. */
    std::vector<char> before = FileBytes(0, 8192);
    FillDevice(dev, 0, 4096, 0, 99);
    hipFileIOVec_t bad[2] = {{dev, 4096}, {At(dev, kDevSize - 10), 100}};
    EXPECT_EQ(hipFileWritev(fh, bad, 2, 0, 0), -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(FileBytes(0, 8192), before);
}

TEST_F(VectorTest, ClosedDriverRefuses)
{
    hipFileIOVec_t one = {dev, 4096};
    ASSERT_EQ(hipFileBufDeregister(reg).err, hipFileSuccess);
    hipFileHandleDeregister(fh);
    fh = nullptr;
    ASSERT_EQ(hipFileDriverClose().err, hipFileSuccess);
    errno = 0;
    EXPECT_EQ(hipFileReadv(fh, &one, 1, 0, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    errno = 0;
    EXPECT_EQ(hipFileWritev(fh, &one, 1, 0, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    ASSERT_EQ(hipFileBufRegister(reg, kDevSize, 0).err, hipFileSuccess);
}

TEST_F(VectorTest, ReadOnlyAndWriteOnlyFilesRefuseTheOtherWay)
{
    int ro = open(path.c_str(), O_RDONLY);
    ASSERT_GE(ro, 0);
    hipFileHandle_t ro_fh = Register(ro);
    hipFileIOVec_t one[2] = {{dev, 4096}, {At(dev, 4096), 4096}};
    errno = 0;
    EXPECT_EQ(hipFileWritev(ro_fh, one, 2, 0, 0), -1);
    EXPECT_EQ(errno, EBADF);
    EXPECT_EQ(hipFileReadv(ro_fh, one, 2, 0, 0), 8192);
    hipFileHandleDeregister(ro_fh);
    close(ro);
}
