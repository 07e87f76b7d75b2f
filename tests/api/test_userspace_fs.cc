// User-space filesystems (hipFileHandleTypeUserspaceFS): registration of fs_ops, reads and writes
// through the callbacks byte-exact at odd sizes and offsets, parallel pieces, the end of file,
// callback failures and short counts mid-transfer, read-only filesystems, async, batch, and that
// only backends whose manifest takes "userspace-fs" files are offered them.
//
// Two filesystems stand in for a real one: MemFs keeps the file in memory and can be told to
// fail or cut a count short at a given offset; FileFs forwards to pread/pwrite on a real file.
// The suite runs once straight into host-addressable device memory and once through the
// fallback's staging buffers and GPU copies (HIPFILE_TEST_BACKEND "straight" or "staged").
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "api_test.h"
#include "hf_odd_ranges.h"

namespace
{

/* An in-memory file with fault injection. Every callback records the thread it ran on. */
struct MemFs {
    std::mutex lock;
    std::vector<char> data;
    std::set<std::thread::id> threads;
    unsigned calls = 0;
    /* Reads (writes) reaching this offset stop there; a call that starts at it fails. */
    int64_t read_fault_at = -1;
    int64_t write_fault_at = -1;
    /* What a failing call returns; -1 means "-1 with errno set to fault_errno". */
    ssize_t fault_result = -EIO;
    int fault_errno = 0;
    /* Most bytes one write call takes (0: all); 0-byte answers when write_stalls is set. */
    size_t write_max = 0;
    bool write_stalls = false;
};

void Note(MemFs *fs)
{
    std::lock_guard<std::mutex> g(fs->lock);
    fs->threads.insert(std::this_thread::get_id());
    fs->calls++;
}

ssize_t Fault(MemFs *fs)
{
    if (fs->fault_result == -1)
        errno = fs->fault_errno;
    return fs->fault_result;
}

const char *MemFsType(void *)
{
    return "test-memfs";
}

ssize_t MemFsRead(void *handle, char *buf, size_t size, hoff_t offset, hipFileRDMAInfo_t *rdma)
{
    auto *fs = static_cast<MemFs *>(handle);
    Note(fs);
    if (rdma != nullptr)
        return -EINVAL; // the library promises NULL
    if (fs->read_fault_at >= 0 && offset <= fs->read_fault_at &&
        fs->read_fault_at < offset + static_cast<int64_t>(size)) {
        if (offset == fs->read_fault_at)
            return Fault(fs);
        size = static_cast<size_t>(fs->read_fault_at - offset);
    }
    if (offset >= static_cast<hoff_t>(fs->data.size()))
        return 0;
    size_t n = std::min(size, fs->data.size() - static_cast<size_t>(offset));
    memcpy(buf, fs->data.data() + offset, n);
    return static_cast<ssize_t>(n);
}

ssize_t MemFsWrite(void *handle, const char *buf, size_t size, hoff_t offset,
                   hipFileRDMAInfo_t *rdma)
{
    auto *fs = static_cast<MemFs *>(handle);
    Note(fs);
    if (rdma != nullptr)
        return -EINVAL;
    if (fs->write_stalls)
        return 0;
    if (fs->write_fault_at >= 0 && offset <= fs->write_fault_at &&
        fs->write_fault_at < offset + static_cast<int64_t>(size)) {
        if (offset == fs->write_fault_at)
            return Fault(fs);
        size = static_cast<size_t>(fs->write_fault_at - offset);
    }
    if (fs->write_max != 0)
        size = std::min(size, fs->write_max);
    std::lock_guard<std::mutex> g(fs->lock);
    if (fs->data.size() < static_cast<size_t>(offset) + size)
        fs->data.resize(static_cast<size_t>(offset) + size);
    memcpy(fs->data.data() + offset, buf, size);
    return static_cast<ssize_t>(size);
}

const hipFileFSOps_t kMemFsOps = {MemFsType, nullptr, nullptr, MemFsRead, MemFsWrite};
const hipFileFSOps_t kMemFsReadOnlyOps = {MemFsType, nullptr, nullptr, MemFsRead, nullptr};

/* A filesystem over a real file: the callbacks are pread and pwrite, failures as -errno. */
ssize_t FileFsRead(void *handle, char *buf, size_t size, hoff_t offset, hipFileRDMAInfo_t *)
{
    ssize_t n = pread(*static_cast<int *>(handle), buf, size, offset);
    return n < 0 ? -errno : n;
}

ssize_t FileFsWrite(void *handle, const char *buf, size_t size, hoff_t offset, hipFileRDMAInfo_t *)
{
    ssize_t n = pwrite(*static_cast<int *>(handle), buf, size, offset);
    return n < 0 ? -errno : n;
}

const hipFileFSOps_t kFileFsOps = {nullptr, nullptr, nullptr, FileFsRead, FileFsWrite};

/* The suite's config: every plugin of the build, and staging when the variant asks for it. */
class ConfigEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        const char *variant = getenv("HIPFILE_TEST_BACKEND");
        bool staged = variant != nullptr && strcmp(variant, "staged") == 0;
        char *conf = hf_test_path(staged ? "userspace_fs_staged.conf" : "userspace_fs.conf");
        char *log = hf_test_path(staged ? "userspace_fs_staged.log" : "userspace_fs.log");
        unlink(log);
        std::string text = std::string("plugins = {\n  directory = \"") + HF_TEST_PLUGIN_DIR +
                           "\";\n};\nlog = {\n  level = \"debug\";\n  file = \"" + log +
                           "\";\n};\n" +
                           (staged ? "fallback = {\n  bounce_host_accessible = true;\n};\n" : "");
        ASSERT_EQ(hf_test_write_text(conf, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", conf, 1);
        log_path = log;
        free(conf);
        free(log);
    }
    static std::string log_path;
};

std::string ConfigEnvironment::log_path;

const ::testing::Environment *const config_env =
    ::testing::AddGlobalTestEnvironment(new ConfigEnvironment);

} // namespace

class UserspaceFs : public ApiTest
{
  protected:
    static constexpr size_t kDevSize = 8 << 20;
    static constexpr uint32_t kSeed = 23;

    void SetUp() override
    {
        ApiTest::SetUp();
        ASSERT_EQ(hipMalloc(&dev, kDevSize), hipSuccess);
    }
    void TearDown() override
    {
        for (hipFileHandle_t fh : handles)
            hipFileHandleDeregister(fh);
        (void)hipFree(dev);
        ApiTest::TearDown();
    }

    static hipFileError_t TryRegister(hipFileHandle_t *fh, void *handle, const hipFileFSOps_t *ops)
    {
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeUserspaceFS;
        descr.handle.hFile = handle;
        descr.fs_ops = ops;
        return hipFileHandleRegister(fh, &descr);
    }
    hipFileHandle_t RegisterFs(void *handle, const hipFileFSOps_t *ops = &kMemFsOps)
    {
        hipFileHandle_t fh = nullptr;
        EXPECT_EQ(TryRegister(&fh, handle, ops).err, hipFileSuccess);
        if (fh != nullptr)
            handles.push_back(fh);
        return fh;
    }
    static void FillFs(MemFs &fs, size_t size)
    {
        fs.data.resize(size);
        hf_test_pattern_fill(fs.data.data(), size, 0, kSeed);
    }
    void FillDev(size_t offset, size_t size, uint64_t pattern_offset, uint32_t seed)
    {
        FillDevice(dev, offset, size, pattern_offset, seed);
    }
    int64_t CheckDev(size_t offset, size_t size, uint64_t pattern_offset, uint32_t seed)
    {
        return CheckDevice(dev, offset, size, pattern_offset, seed);
    }
    static bool LogHas(const std::string &needle)
    {
        return hf_test_file_contains(ConfigEnvironment::log_path.c_str(), needle.c_str()) == 1;
    }

    void *dev = nullptr;
    std::vector<hipFileHandle_t> handles;
};

// ---- registration ----

TEST_F(UserspaceFs, NullOpsOrNullReadIsInvalidValue)
{
    MemFs fs;
    hipFileHandle_t fh = nullptr;
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess); // so the log goes to the config's file
    EXPECT_EQ(TryRegister(&fh, &fs, nullptr).err, hipFileInvalidValue);
    hipFileFSOps_t no_read = kMemFsOps;
    no_read.read = nullptr;
    EXPECT_EQ(TryRegister(&fh, &fs, &no_read).err, hipFileInvalidValue);
    EXPECT_EQ(fh, nullptr);
    EXPECT_TRUE(LogHas("needs fs_ops (it is NULL)"));
    EXPECT_TRUE(LogHas("needs an fs_ops->read callback (it is NULL)"));
}

TEST_F(UserspaceFs, SamePairTwiceIsAlreadyRegistered)
{
    MemFs fs, other;
    ASSERT_NE(RegisterFs(&fs), nullptr);
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(TryRegister(&fh, &fs, &kMemFsOps).err, hipFileHandleAlreadyRegistered);
    // Another handle with the same callbacks, or the same handle with other callbacks, is a
    // different file.
    EXPECT_NE(RegisterFs(&other), nullptr);
    EXPECT_NE(RegisterFs(&fs, &kMemFsReadOnlyOps), nullptr);
}

TEST_F(UserspaceFs, DeregisteredHandleIsRefusedAndThePairMayComeBack)
{
    MemFs fs;
    FillFs(fs, 4096);
    hipFileHandle_t fh = nullptr;
    ASSERT_EQ(TryRegister(&fh, &fs, &kMemFsOps).err, hipFileSuccess);
    hipFileHandleDeregister(fh);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 0, 0), -static_cast<ssize_t>(hipFileHandleNotRegistered));
    hipFileHandle_t again = RegisterFs(&fs);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(hipFileRead(again, dev, 4096, 0, 0), 4096);
}

TEST_F(UserspaceFs, OnlyBackendsWhoseManifestTakesTheKindAreOffered)
{
    MemFs fs;
    FillFs(fs, 65536);
    hipFileHandle_t fh = RegisterFs(&fs);
    ASSERT_EQ(hipFileRead(fh, dev, 65536, 0, 0), 65536);
    EXPECT_TRUE(LogHas("fs test-memfs, read-write"));
    // The fastpath loads on the host runtime; its manifest lists regular files and block devices.
    EXPECT_TRUE(LogHas("backend fastpath is not offered it: its manifest does not accept "
                       "userspace-fs files"));
    EXPECT_TRUE(LogHas("fastpath refuses with score -1 (manifest does not accept userspace-fs "
                       "files)"));
    // Each variant takes the path it is meant to test.
    const char *variant = getenv("HIPFILE_TEST_BACKEND");
    bool staged = variant != nullptr && strcmp(variant, "staged") == 0;
    EXPECT_TRUE(LogHas(staged ? "fallback offers with score 10 (user-space filesystem callbacks "
                                "through pinned staging buffers and GPU copies)"
                              : "fallback offers with score 10 (user-space filesystem callbacks "
                                "straight into host-addressable memory)"));
}

// ---- reads and writes ----

TEST_F(UserspaceFs, ReadsAreByteExactAtOddSizesAndOffsets)
{
    MemFs fs;
    FillFs(fs, 6 << 20);
    hipFileHandle_t fh = RegisterFs(&fs);
    for (const hf_test_range &r : hf_test_odd_ranges) {
        FillDev(0, kDevSize, 0, 99);
        ASSERT_EQ(hipFileRead(fh, dev, r.size, r.file_offset, r.buf_offset),
                  static_cast<ssize_t>(r.size))
            << r.size << " bytes at " << r.file_offset;
        EXPECT_EQ(CheckDev(static_cast<size_t>(r.buf_offset), r.size,
                           static_cast<uint64_t>(r.file_offset), kSeed),
                  -1)
            << r.size << " bytes at " << r.file_offset;
        // Bytes around the range are untouched.
        EXPECT_EQ(CheckDev(0, static_cast<size_t>(r.buf_offset), 0, 99), -1);
        size_t after = static_cast<size_t>(r.buf_offset) + r.size;
        EXPECT_EQ(CheckDev(after, kDevSize - after, after, 99), -1);
    }
}

TEST_F(UserspaceFs, WritesAreByteExactAtOddSizesAndOffsets)
{
    for (const hf_test_range &r : hf_test_odd_ranges) {
        MemFs fs;
        FillFs(fs, 6 << 20);
        std::vector<char> want = fs.data;
        hipFileHandle_t fh = RegisterFs(&fs);
        FillDev(0, kDevSize, 0, 51);
        ASSERT_EQ(hipFileWrite(fh, dev, r.size, r.file_offset, r.buf_offset),
                  static_cast<ssize_t>(r.size))
            << r.size << " bytes at " << r.file_offset;
        hf_test_pattern_fill(want.data() + r.file_offset, r.size,
                             static_cast<uint64_t>(r.buf_offset), 51);
        EXPECT_TRUE(fs.data == want) << r.size << " bytes at " << r.file_offset;
        hipFileHandleDeregister(fh);
        handles.clear();
    }
}

TEST_F(UserspaceFs, WritePastTheEndGrowsTheFile)
{
    MemFs fs;
    hipFileHandle_t fh = RegisterFs(&fs);
    FillDev(0, 10001, 0, 8);
    ASSERT_EQ(hipFileWrite(fh, dev, 10001, 333, 0), 10001);
    ASSERT_EQ(fs.data.size(), 10334u);
    EXPECT_EQ(hf_test_pattern_check(fs.data.data() + 333, 10001, 0, 8), -1);
}

TEST_F(UserspaceFs, LargeReadRunsInParallelPiecesOnSeveralThreads)
{
    constexpr size_t kBig = 64 << 20;
    MemFs fs;
    FillFs(fs, kBig);
    void *big = nullptr;
    ASSERT_EQ(hipMalloc(&big, kBig), hipSuccess);
    hipFileHandle_t fh = RegisterFs(&fs);
    EXPECT_EQ(hipFileRead(fh, big, kBig, 0, 0), static_cast<ssize_t>(kBig));
    std::vector<char> host(kBig);
    ASSERT_EQ(hipMemcpy(host.data(), big, kBig, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(host.data(), kBig, 0, kSeed), -1);
    EXPECT_GT(fs.threads.size(), 1u) << "every callback ran on one thread";
    EXPECT_GT(fs.calls, 1u);
    (void)hipFree(big);
}

TEST_F(UserspaceFs, ReadStopsAtTheEndOfFile)
{
    MemFs fs;
    FillFs(fs, 10000);
    hipFileHandle_t fh = RegisterFs(&fs);
    EXPECT_EQ(hipFileRead(fh, dev, 20000, 5000, 1), 5000);
    EXPECT_EQ(CheckDev(1, 5000, 5000, kSeed), -1);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 10000, 0), 0);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 1 << 30, 0), 0);
}

TEST_F(UserspaceFs, FailedReadCallbackMidTransferReturnsTheBytesBeforeIt)
{
    MemFs fs;
    FillFs(fs, 6 << 20);
    fs.read_fault_at = (3 << 20) + 1234;
    hipFileHandle_t fh = RegisterFs(&fs);
    // As pread: the bytes before the failure, all of them in place, and no more.
    FillDev(0, kDevSize, 0, 99);
    ASSERT_EQ(hipFileRead(fh, dev, 6 << 20, 0, 0), (3 << 20) + 1234);
    EXPECT_EQ(CheckDev(0, (3 << 20) + 1234, 0, kSeed), -1);
    // Failing where the request starts: -1 with the callback's errno.
    errno = 0;
    EXPECT_EQ(hipFileRead(fh, dev, 4096, fs.read_fault_at, 0), -1);
    EXPECT_EQ(errno, EIO);
    EXPECT_TRUE(LogHas("user-space FS read callback of"));
}

TEST_F(UserspaceFs, CallbackReturningMinusOneReportsItsErrno)
{
    MemFs fs;
    FillFs(fs, 8192);
    fs.write_fault_at = 0;
    fs.fault_result = -1;
    fs.fault_errno = ENOSPC;
    hipFileHandle_t fh = RegisterFs(&fs);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, ENOSPC);
}

TEST_F(UserspaceFs, FailedWriteCallbackMidTransferIsAShortCountNeverDone)
{
    MemFs fs;
    FillFs(fs, 6 << 20);
    std::vector<char> before = fs.data;
    fs.write_fault_at = (2 << 20) + 77;
    hipFileHandle_t fh = RegisterFs(&fs);
    FillDev(0, kDevSize, 0, 61);
    ssize_t n = hipFileWrite(fh, dev, 5 << 20, 0, 0);
    EXPECT_EQ(n, (2 << 20) + 77);
    EXPECT_EQ(hf_test_pattern_check(fs.data.data(), (2 << 20) + 77, 0, 61), -1);
    EXPECT_EQ(memcmp(fs.data.data() + fs.write_fault_at, before.data() + fs.write_fault_at, 4096),
              0);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, fs.write_fault_at, 0), -1);
    EXPECT_EQ(errno, EIO);
}

TEST_F(UserspaceFs, ShortWriteCountsAreContinued)
{
    MemFs fs;
    fs.write_max = 1000;
    hipFileHandle_t fh = RegisterFs(&fs);
    FillDev(0, 123457, 0, 3);
    ASSERT_EQ(hipFileWrite(fh, dev, 123457, 11, 0), 123457);
    EXPECT_EQ(hf_test_pattern_check(fs.data.data() + 11, 123457, 0, 3), -1);
}

TEST_F(UserspaceFs, WriteCallbackThatMovesNothingIsAnIoError)
{
    MemFs fs;
    fs.write_stalls = true;
    hipFileHandle_t fh = RegisterFs(&fs);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, EIO);
}

TEST_F(UserspaceFs, WithoutAWriteCallbackWritesAreRefused)
{
    MemFs fs;
    FillFs(fs, 8192);
    hipFileHandle_t fh = RegisterFs(&fs, &kMemFsReadOnlyOps);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, EBADF);
    EXPECT_TRUE(LogHas("is read-only: it was registered without a write callback"));
    EXPECT_EQ(fs.calls, 0u);
    EXPECT_EQ(hipFileRead(fh, dev, 8192, 0, 0), 8192);
}

TEST_F(UserspaceFs, FilesystemOverARealFileRoundTrips)
{
    std::string path = ScratchPath("data");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 3 << 20, kSeed), 0);
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = RegisterFs(&fd, &kFileFsOps);
    ASSERT_EQ(hipFileRead(fh, dev, (2 << 20) + 5, 4099, 3), (2 << 20) + 5);
    EXPECT_EQ(CheckDev(3, (2 << 20) + 5, 4099, kSeed), -1);
    FillDev(0, 777777, 0, 44);
    ASSERT_EQ(hipFileWrite(fh, dev, 777777, 12345, 0), 777777);
    std::vector<char> back(777777);
    ASSERT_EQ(pread(fd, back.data(), back.size(), 12345), 777777);
    EXPECT_EQ(hf_test_pattern_check(back.data(), back.size(), 0, 44), -1);
    EXPECT_EQ(hipFileRead(fh, dev, 1 << 20, (3 << 20) - 10, 0), 10);
    close(fd);
}

// ---- async and batch ----

TEST_F(UserspaceFs, AsyncReadAndWriteGoThroughTheCallbacks)
{
    MemFs fs;
    FillFs(fs, 1 << 20);
    hipFileHandle_t fh = RegisterFs(&fs);
    hipStream_t stream = nullptr;
    ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
    size_t size = 300001;
    hoff_t file_offset = 17, buf_offset = 5;
    ssize_t bytes = 0;
    ASSERT_EQ(hipFileReadAsync(fh, dev, &size, &file_offset, &buf_offset, &bytes, stream).err,
              hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
    EXPECT_EQ(bytes, 300001);
    EXPECT_EQ(CheckDev(5, 300001, 17, kSeed), -1);

    FillDev(0, 1 << 20, 0, 70);
    hoff_t write_offset = 500000;
    ssize_t written = 0;
    ASSERT_EQ(hipFileWriteAsync(fh, dev, &size, &write_offset, &buf_offset, &written, stream).err,
              hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
    EXPECT_EQ(written, 300001);
    EXPECT_EQ(hf_test_pattern_check(fs.data.data() + 500000, 300001, 5, 70), -1);
    (void)hipStreamDestroy(stream);
}

TEST_F(UserspaceFs, BatchEntriesGoThroughTheCallbacks)
{
    MemFs fs;
    FillFs(fs, 1 << 20);
    MemFs out;
    hipFileHandle_t fh = RegisterFs(&fs);
    hipFileHandle_t out_fh = RegisterFs(&out);
    FillDev(4 << 20, 70001, 0, 12);
    hipFileBatchHandle_t batch = nullptr;
    ASSERT_EQ(hipFileBatchIOSetUp(&batch, 4).err, hipFileSuccess);
    hipFileIOParams_t p[3];
    memset(p, 0, sizeof(p));
    const struct {
        hipFileOpcode_t op;
        hipFileHandle_t fh;
        int64_t file_offset, dev_offset;
        size_t size;
    } entries[3] = {{hipFileBatchRead, fh, 3, 0, 65537},
                    {hipFileBatchRead, fh, 1000000, 1 << 20, 100000},
                    {hipFileBatchWrite, out_fh, 9, 4 << 20, 70001}};
    for (int i = 0; i < 3; i++) {
        p[i].mode = hipFileBatch;
        p[i].opcode = entries[i].op;
        p[i].fh = entries[i].fh;
        p[i].u.batch.devPtr_base = dev;
        p[i].u.batch.file_offset = entries[i].file_offset;
        p[i].u.batch.devPtr_offset = entries[i].dev_offset;
        p[i].u.batch.size = entries[i].size;
        p[i].cookie = reinterpret_cast<void *>(static_cast<uintptr_t>(i));
    }
    ASSERT_EQ(hipFileBatchIOSubmit(batch, 3, p, 0).err, hipFileSuccess);
    ssize_t results[3] = {-100, -100, -100};
    unsigned seen = 0;
    while (seen < 3) {
        hipFileIOEvents_t ev[3];
        unsigned nr = 3 - seen;
        ASSERT_EQ(hipFileBatchIOGetStatus(batch, nr, &nr, ev, nullptr).err, hipFileSuccess);
        for (unsigned i = 0; i < nr; i++) {
            EXPECT_EQ(ev[i].status, hipFileComplete);
            results[reinterpret_cast<uintptr_t>(ev[i].cookie)] = static_cast<ssize_t>(ev[i].ret);
        }
        seen += nr;
    }
    hipFileBatchIODestroy(batch);
    EXPECT_EQ(results[0], 65537);
    EXPECT_EQ(results[1], (1 << 20) - 1000000); // the end of file cuts it short
    EXPECT_EQ(results[2], 70001);
    EXPECT_EQ(CheckDev(0, 65537, 3, kSeed), -1);
    EXPECT_EQ(CheckDev(1 << 20, (1 << 20) - 1000000, 1000000, kSeed), -1);
    ASSERT_EQ(out.data.size(), 70010u);
    EXPECT_EQ(hf_test_pattern_check(out.data.data() + 9, 70001, 0, 12), -1);
}
