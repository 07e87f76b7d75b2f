/*
 * Reads of data that is not in the page cache, and writes that must leave it alone, on a real
 * block device: the fast device that scripts/fast-device makes (ext4 on a loop device with direct
 * I/O), whose directory ctest passes in HIPFILE_FAST_DIR. Each test drops only its own file's pages
 * (fsync, then POSIX_FADV_DONTNEED), checks with mincore that they are gone, and compares every
 * byte read. Without the device the tests skip, except under CI=true, where they fail: CI runs as
 * root and must exercise the cold path.
 *
 * HIPFILE_TEST_BACKEND picks the fallback's variant: "staged" stages the host emulation's device
 * memory through pinned buffers and GPU copies (the path a GPU's memory takes), "straight" reads
 * into it directly (the path of host memory).
 */
#include "../api/api_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace
{

constexpr size_t kMiB = 1024 * 1024;

const char *FastDir()
{
    const char *dir = getenv("HIPFILE_FAST_DIR");
    if (dir == nullptr || dir[0] == '\0')
        return nullptr;
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : nullptr;
}

bool InCi()
{
    const char *ci = getenv("CI");
    return ci != nullptr && std::string(ci) == "true";
}

class ColdEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        const char *backend = getenv("HIPFILE_TEST_BACKEND");
        bool staged = backend == nullptr || std::string(backend) != "straight";
        char *conf = hf_test_path("cold.conf");
        std::string text = std::string("plugins = {\n  directory = \"") + HF_TEST_PLUGIN_DIR +
                           "\";\n  enable = [ \"fallback\" ];\n};\nfallback = {\n"
                           "  bounce_host_accessible = " +
                           (staged ? "true" : "false") + ";\n};\n";
        ASSERT_EQ(hf_test_write_text(conf, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", conf, 1);
        free(conf);
    }
};

const ::testing::Environment *const cold_env =
    ::testing::AddGlobalTestEnvironment(new ColdEnvironment);

} // namespace

class ColdReads : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        const char *dir = FastDir();
        if (dir == nullptr) {
            if (InCi())
                FAIL() << "HIPFILE_FAST_DIR names no directory: the fast device "
                          "(scripts/fast-device) could not be made, and CI must test cold reads";
            GTEST_SKIP() << "no fast device (scripts/fast-device make, as root, then "
                            "HIPFILE_FAST_DIR=its directory)";
        }
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        const char *backend = getenv("HIPFILE_TEST_BACKEND");
        path_ = std::string(dir) + "/" + info->name() + "." + (backend ? backend : "staged") + "." +
                std::to_string(getpid());
    }
    void TearDown() override
    {
        if (fh_ != nullptr)
            hipFileHandleDeregister(fh_);
        if (fd_ >= 0)
            close(fd_);
        if (dev_ != nullptr)
            (void)hipFree(dev_);
        if (!path_.empty())
            unlink(path_.c_str());
        ApiTest::TearDown();
    }

    /* The pattern file of @p size bytes, opened, registered, and out of the page cache. */
    void MakeFile(size_t size)
    {
        size_ = size;
        ASSERT_EQ(hf_test_pattern_file(path_.c_str(), size, kSeed), 0);
        fd_ = open(path_.c_str(), O_RDWR);
        ASSERT_GE(fd_, 0);
        fh_ = Register(fd_);
        ASSERT_NE(fh_, nullptr);
        DropPages();
    }

    /* This file's pages, and only them, leave the page cache. */
    void DropPages()
    {
        ASSERT_EQ(fsync(fd_), 0);
        ASSERT_EQ(posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED), 0);
        ASSERT_EQ(CachedPages(0, size_), 0u) << "the pages did not leave the cache";
    }

    /* Pages of [offset, offset + length) in the page cache. */
    size_t CachedPages(size_t offset, size_t length)
    {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t first = offset / page * page;
        size_t span = std::min(offset + length, size_) - first;
        void *map = mmap(nullptr, span, PROT_READ, MAP_SHARED, fd_, (off_t)first);
        EXPECT_NE(map, MAP_FAILED);
        if (map == MAP_FAILED)
            return 0;
        std::vector<unsigned char> resident((span + page - 1) / page);
        EXPECT_EQ(mincore(map, span, resident.data()), 0);
        munmap(map, span);
        return (size_t)std::count_if(resident.begin(), resident.end(),
                                     [](unsigned char r) { return (r & 1) != 0; });
    }

    /* Bring [offset, offset + length) into the page cache, as another reader would. */
    void Cache(size_t offset, size_t length)
    {
        std::vector<char> sink(length);
        ASSERT_EQ(pread(fd_, sink.data(), length, (off_t)offset), (ssize_t)length);
    }

    void *Device(size_t size)
    {
        if (dev_ == nullptr) {
            EXPECT_EQ(hipMalloc(&dev_, size), hipSuccess);
        }
        return dev_;
    }

    /* The first byte of device bytes [at, at + n) that differs from the file's at @p offset. */
    int64_t Check(size_t at, size_t n, size_t offset)
    {
        return CheckDevice(dev_, at, n, offset, kSeed);
    }

    static constexpr uint32_t kSeed = 41;
    std::string path_;
    size_t size_ = 0;
    int fd_ = -1;
    hipFileHandle_t fh_ = nullptr;
    void *dev_ = nullptr;
};

TEST_F(ColdReads, EveryCallSizeReadsTheWholeFileExactly)
{
    // A tail that is no multiple of any block.
    const size_t size = 40 * kMiB + 123;
    MakeFile(size);
    Device(64 * kMiB); // room for the largest call
    for (size_t call : {64 * 1024ul, kMiB + 7, 4 * kMiB, 16 * kMiB, 64 * kMiB}) {
        DropPages();
        for (size_t at = 0; at < size; at += call) {
            size_t length = std::min(call, size - at);
            ASSERT_EQ(hipFileRead(fh_, dev_, length, (hoff_t)at, (hoff_t)at), (ssize_t)length)
                << "call " << call << " at " << at;
        }
        ASSERT_EQ(Check(0, size, 0), -1) << "call " << call;
        // A call reaching past the end returns the bytes before it, exactly.
        DropPages();
        ASSERT_EQ(hipFileRead(fh_, dev_, call, (hoff_t)(size - 100), 0), 100) << "call " << call;
        ASSERT_EQ(Check(0, 100, size - 100), -1) << "call " << call;
        ASSERT_EQ(hipFileRead(fh_, dev_, call, (hoff_t)size, 0), 0) << "at end of file";
    }
}

TEST_F(ColdReads, MisalignedHeadsAndTailsAreExact)
{
    const size_t size = 24 * kMiB + 4095;
    MakeFile(size);
    Device(size);
    struct Case {
        size_t offset, length, at;
    };
    const Case cases[] = {
        {1, 3 * kMiB, 0},
        {4095, 5 * kMiB + 3, 17},
        {4097, 4096, 4096},
        {65537, 8 * kMiB, 1},
        {kMiB - 1, 2, 9},
        {size - 5000, 5000, 3},
        {size - 1, 1, 0},
        {size - 3 * kMiB - 1, 8 * kMiB, 4095},
        {12 * kMiB + 511, 12 * kMiB, 513},
    };
    for (const Case &c : cases) {
        DropPages();
        size_t length = std::min(c.length, size - c.at); // what the device buffer holds there
        size_t expect = std::min(length, size - c.offset);
        ssize_t n = hipFileRead(fh_, dev_, length, (hoff_t)c.offset, (hoff_t)c.at);
        ASSERT_EQ(n, (ssize_t)expect) << "offset " << c.offset;
        ASSERT_EQ(Check(c.at, expect, c.offset), -1) << "offset " << c.offset;
    }
}

TEST_F(ColdReads, PartlyCachedFilesAreExactWhereverTheCacheEnds)
{
    const size_t size = 48 * kMiB + 1000;
    MakeFile(size);
    Device(size);
    // Every other MiB cached, and ranges whose ends fall inside pages.
    for (size_t at = 0; at < 32 * kMiB; at += 2 * kMiB)
        Cache(at, kMiB);
    Cache(33 * kMiB + 100, 3 * kMiB + 5);
    Cache(size - 700, 700);
    size_t cached = CachedPages(0, size);
    size_t pages = (size + 4095) / 4096;
    ASSERT_GT(cached, 0u);
    ASSERT_LT(cached, pages / 2) << "the test needs uncached ranges";
    ASSERT_EQ(hipFileRead(fh_, dev_, size, 0, 0), (ssize_t)size);
    ASSERT_EQ(Check(0, size, 0), -1);
    // Again from an odd offset, now that more of it may be cached.
    DropPages();
    Cache(10 * kMiB, 5 * kMiB);
    ASSERT_EQ(hipFileRead(fh_, dev_, size - 3333, 3333, 0), (ssize_t)(size - 3333));
    ASSERT_EQ(Check(0, size - 3333, 3333), -1);
}

TEST_F(ColdReads, AFileTruncatedDuringAReadGivesAnExactPrefix)
{
    const size_t size = 96 * kMiB;
    const size_t cut = 40 * kMiB + 12345;
    for (int round = 0; round < 4; round++) {
        if (fh_ != nullptr) {
            hipFileHandleDeregister(fh_);
            close(fd_);
            fh_ = nullptr;
        }
        MakeFile(size);
        Device(size);
        std::atomic<bool> started{false};
        std::thread cutter([&] {
            while (!started.load())
                std::this_thread::yield();
            std::this_thread::sleep_for(std::chrono::microseconds(500 * round));
            EXPECT_EQ(ftruncate(fd_, (off_t)cut), 0);
        });
        started = true;
        ssize_t n = hipFileRead(fh_, dev_, size, 0, 0);
        cutter.join();
        // Everything before the cut stays; past it, the read stops at the first piece that
        // found the end, or got all of it before the cut came.
        ASSERT_GE(n, (ssize_t)cut) << "round " << round;
        ASSERT_LE(n, (ssize_t)size) << "round " << round;
        ASSERT_EQ(Check(0, (size_t)n, 0), -1) << "round " << round << ", " << n << " bytes";
        size_ = cut;
        ASSERT_EQ(hipFileRead(fh_, dev_, kMiB, (hoff_t)cut, 0), 0) << "past the new end";
    }
}

// A program that opens its file with O_DIRECT asks for writes that leave the page cache alone;
// one that opens it without asks for the cache's semantics. Both read back exactly.
TEST_F(ColdReads, WritesToAFileOpenedWithODirectLeaveThePageCacheAlone)
{
    const size_t size = 32 * kMiB + 3; // a tail shorter than a block goes through the cache
    std::vector<uint8_t> host(size);
    hf_test_pattern_fill(host.data(), size, 0, kSeed);
    ASSERT_EQ(hipMemcpy(Device(size), host.data(), size, hipMemcpyHostToDevice), hipSuccess);
    for (bool direct : {true, false}) {
        SCOPED_TRACE(direct ? "O_DIRECT" : "buffered");
        if (fh_ != nullptr) {
            hipFileHandleDeregister(fh_);
            close(fd_);
            fh_ = nullptr;
            unlink(path_.c_str());
        }
        fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | (direct ? O_DIRECT : 0), 0644);
        ASSERT_GE(fd_, 0);
        fh_ = Register(fd_);
        ASSERT_NE(fh_, nullptr);
        ASSERT_EQ(hipFileWrite(fh_, dev_, size, 0, 0), (ssize_t)size);
        size_ = size;
        size_t cached = CachedPages(0, size);
        size_t pages = (size + 4095) / 4096;
        if (direct)
            EXPECT_LE(cached, 1u) << "only the last, partial block may be cached";
        else
            EXPECT_GT(cached, pages / 2) << "a buffered write lands in the page cache";
        std::vector<uint8_t> back(size);
        int plain = open(path_.c_str(), O_RDONLY);
        ASSERT_GE(plain, 0);
        ASSERT_EQ(pread(plain, back.data(), size, 0), (ssize_t)size);
        close(plain);
        EXPECT_EQ(hf_test_pattern_check(back.data(), size, 0, kSeed), -1);
    }
}
