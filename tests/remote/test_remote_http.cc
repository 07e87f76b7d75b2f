/*
 * Remote objects on a real HTTP server: nginx, started by the ctest fixture remote_nginx on a free
 * loopback port (servers/nginx_fixture.sh). Reads into device memory through parallel ranged GETs
 * must be byte-exact at odd sizes and offsets, short at the end of the object, and fail clearly
 * when the object is missing or changes after it was opened; the async and batch APIs work on
 * the same handles.
 */
#include "remote_test.h"

#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

namespace
{

class RemoteHttp : public RemoteTest
{
  protected:
    void SetUp() override
    {
        RemoteTest::SetUp();
        if (!NginxFixture(&root_, &base_))
            GTEST_SKIP() << "no nginx fixture (nginx not installed: Debian nginx-light)";
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        name_ = std::string(info->name()) + ".bin";
    }
    std::string name_;
    void ReadOddRanges(const char *options, uint32_t seed);
};

/* Small pieces, so a few MiB make many ranged GETs on several connections. */
const char *const kManyPieces = "piece_size_kb=64;connections=4";
/* The same through pinned staging and GPU copies, as on a GPU the CPU cannot address. */
const char *const kStaged = "piece_size_kb=64;connections=4;bounce_host_accessible=true";

/* Reads of an object of 1 MiB + 777 bytes: single bytes, across piece edges, past the end. */
void RemoteHttp::ReadOddRanges(const char *options, uint32_t seed)
{
    const uint64_t size = 1024 * 1024 + 777;
    PutObject(name_, size, seed);
    hipFileHandle_t fh = OpenOk(Url(name_), options);
    const struct {
        uint64_t offset;
        size_t size;
    } cases[] = {{1, 1},          {65535, 2},    {65536 - 3, 65536 + 7},
                 {12345, 700001}, {size - 1, 1}, {size - 10, 4096}};
    for (const auto &c : cases) {
        size_t expect = c.offset + c.size > size ? (size_t)(size - c.offset) : c.size;
        ReadAndCheck(fh, c.offset, c.size, expect, seed);
    }
}

TEST_F(RemoteHttp, WholeObjectReadIsByteExact)
{
    const uint64_t size = 3 * 1024 * 1024 + 12345;
    PutObject(name_, size, 11);
    ReadAndCheck(OpenOk(Url(name_), kManyPieces), 0, size, size, 11);
}

TEST_F(RemoteHttp, StagedWholeObjectReadIsByteExact)
{
    const uint64_t size = 3 * 1024 * 1024 + 4321;
    PutObject(name_, size, 25);
    ReadAndCheck(OpenOk(Url(name_), kStaged), 0, size, size, 25);
}

TEST_F(RemoteHttp, OddOffsetsAndSizesAreByteExact)
{
    ReadOddRanges(kManyPieces, 12);
}

TEST_F(RemoteHttp, StagedOddOffsetsAndSizesAreByteExact)
{
    ReadOddRanges(kStaged, 26);
}

TEST_F(RemoteHttp, DefaultSettingsReadIsByteExact)
{
    const uint64_t size = 20 * 1024 * 1024 + 3;
    PutObject(name_, size, 13);
    hipFileHandle_t fh = OpenOk(Url(name_));
    ReadAndCheck(fh, 0, size, size, 13);
}

TEST_F(RemoteHttp, ReadPastEndIsShortAndAtEndIsZero)
{
    const uint64_t size = 100000;
    PutObject(name_, size, 14);
    hipFileHandle_t fh = OpenOk(Url(name_), kManyPieces);
    ReadAndCheck(fh, size - 100, 4096, 100, 14);
    void *dev = DeviceBuffer(4096);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, (hoff_t)size, 0), 0);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, (hoff_t)size + 5000, 0), 0);
}

TEST_F(RemoteHttp, SizeIsWhatTheOpenFound)
{
    PutObject(name_, 100003, 15);
    hipFileHandle_t fh = OpenOk(Url(name_), kManyPieces);
    uint64_t size = 0;
    ASSERT_EQ(hipFileRemoteGetSize(fh, &size).err, hipFileSuccess);
    EXPECT_EQ(size, 100003u);
    /* The object changing after the open does not change what the handle stands for. */
    PutObject(name_, 5, 16);
    ASSERT_EQ(hipFileRemoteGetSize(fh, &size).err, hipFileSuccess);
    EXPECT_EQ(size, 100003u);
    EXPECT_EQ(hipFileRemoteGetSize(fh, nullptr).err, hipFileInvalidValue);
    int not_a_handle = 0;
    EXPECT_EQ(hipFileRemoteGetSize(&not_a_handle, &size).err, hipFileHandleNotRegistered);
    /* A file on disk is not a remote object. */
    std::string path = root_ + "/" + name_;
    int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t local = nullptr;
    ASSERT_EQ(hipFileHandleRegister(&local, &descr).err, hipFileSuccess);
    EXPECT_EQ(hipFileRemoteGetSize(local, &size).err, hipFileInvalidValue);
    hipFileHandleDeregister(local);
    close(fd);
}

TEST_F(RemoteHttp, ReadIntoPinnedHostMemoryIsByteExact)
{
    const uint64_t size = 700001;
    PutObject(name_, size, 15);
    hipFileHandle_t fh = OpenOk(Url(name_), kManyPieces);
    ASSERT_EQ(hipFileSetParameterBool(hipFileParamPropertiesAllowSystemMemory, true).err,
              hipFileSuccess);
    void *host = nullptr;
    ASSERT_EQ(hipHostMalloc(&host, size, 0), hipSuccess);
    EXPECT_EQ(hipFileRead(fh, host, size - 3, 3, 0), (ssize_t)(size - 3));
    EXPECT_EQ(hf_test_pattern_check(host, size - 3, 3, 15), -1);
    (void)hipHostFree(host);
}

TEST_F(RemoteHttp, MissingObjectFailsOpen)
{
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(Url("no-such-object"), nullptr, &fh).err, hipFileInvalidValue);
}

TEST_F(RemoteHttp, ObjectReplacedAfterOpenFailsRead)
{
    PutObject(name_, 200000, 16);
    hipFileHandle_t fh = OpenOk(Url(name_), kManyPieces);
    PutObject(name_, 200000, 17);
    /* nginx's ETag is mtime and size: move the mtime so the same size still changes it. */
    struct utimbuf times = {time(nullptr) + 100, time(nullptr) + 100};
    ASSERT_EQ(utime((root_ + "/" + name_).c_str(), &times), 0);
    ReadFails(fh, 200000, ESTALE);
}

TEST_F(RemoteHttp, HttpObjectsCannotBeOpenedForWriting)
{
    PutObject(name_, 10, 18);
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(Open(Url(name_), nullptr, &fh, HIPFILE_REMOTE_WRITE).err, hipFilePermissionDenied);
}

TEST_F(RemoteHttp, WriteOnAReadHandleIsRefused)
{
    PutObject(name_, 4096, 19);
    hipFileHandle_t fh = OpenOk(Url(name_));
    void *dev = DeviceBuffer(4096);
    errno = 0;
    EXPECT_EQ(hipFileWrite(fh, dev, 4096, 0, 0), -1);
    EXPECT_EQ(errno, EBADF);
}

TEST_F(RemoteHttp, BadArgumentsAreRefused)
{
    PutObject(name_, 10, 20);
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(hipFileRemoteOpen(nullptr, nullptr, HIPFILE_REMOTE_READ, &fh).err,
              hipFileInvalidValue);
    EXPECT_EQ(hipFileRemoteOpen(Url(name_).c_str(), nullptr, HIPFILE_REMOTE_READ, nullptr).err,
              hipFileInvalidValue);
    EXPECT_EQ(Open("ftp://127.0.0.1/x", nullptr, &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open("http://", nullptr, &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open(Url(name_), nullptr, &fh, 7).err, hipFileInvalidFileOpenFlag);
    EXPECT_EQ(Open(Url(name_), "no_such_key=1", &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open(Url(name_), "connections=0", &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open(Url(name_), "piece_size_kb=6", &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open(Url(name_), "retries", &fh).err, hipFileInvalidValue);
    EXPECT_EQ(Open(Url(name_), "tls_verify=maybe", &fh).err, hipFileInvalidValue);
}

/* Programs written for the first spelling, hipfileRemoteOpen, still build (with a deprecation
 * warning, silenced here) and get the same call: the same handle semantics and the same errors. */
TEST_F(RemoteHttp, DeprecatedSpellingStillOpensAndReads)
{
    const uint64_t size = 256 * 1024 + 3;
    PutObject(name_, size, 31);
    hipFileHandle_t fh = nullptr;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ASSERT_EQ(hipfileRemoteOpen(Url(name_).c_str(), nullptr, HIPFILE_REMOTE_READ, &fh).err,
              hipFileSuccess);
    hipFileHandle_t refused = nullptr;
    EXPECT_EQ(hipfileRemoteOpen(Url(name_).c_str(), nullptr, 7, &refused).err,
              hipFileInvalidFileOpenFlag);
#pragma GCC diagnostic pop
    ReadAndCheck(fh, 0, size, size, 31);
    hipFileHandleDeregister(fh);
}

TEST_F(RemoteHttp, DeregisteredHandleIsRejected)
{
    PutObject(name_, 4096, 21);
    hipFileHandle_t fh = nullptr;
    ASSERT_EQ(hipFileRemoteOpen(Url(name_).c_str(), nullptr, HIPFILE_REMOTE_READ, &fh).err,
              hipFileSuccess);
    hipFileHandleDeregister(fh);
    void *dev = DeviceBuffer(4096);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 0, 0), -(ssize_t)hipFileHandleNotRegistered);
}

TEST_F(RemoteHttp, ConnectionRefusedFailsOpen)
{
    hipFileHandle_t fh = nullptr;
    /* Port 1 on loopback: nothing listens there in a test environment. */
    EXPECT_EQ(Open("http://127.0.0.1:1/x", "retries=0", &fh).err, hipFileDriverError);
}

/* Plugins load once per process, so the check runs in a fresh one (threadsafe death test). */
TEST_F(RemoteHttp, WithoutTheRemotePluginOpenSaysSo)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    PutObject(name_, 10, 22);
    const std::string url = Url(name_);
    EXPECT_EXIT(
        {
            setenv("HIPFILE_PLUGINS", "fallback", 1);
            hipFileHandle_t fh = nullptr;
            hipFileError_t e = hipFileRemoteOpen(url.c_str(), nullptr, HIPFILE_REMOTE_READ, &fh);
            _exit(e.err == hipFileIONotSupported ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "the remote plugin is not loaded or not enabled");
}

TEST_F(RemoteHttp, AsyncReadOnARemoteHandle)
{
    const uint64_t size = 512 * 1024 + 5;
    PutObject(name_, size, 23);
    hipFileHandle_t fh = OpenOk(Url(name_), kManyPieces);
    void *dev = DeviceBuffer(size);
    hipStream_t stream;
    ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
    size_t n = size - 1;
    hoff_t file_offset = 1, buffer_offset = 0;
    ssize_t bytes = -7;
    ASSERT_EQ(hipFileReadAsync(fh, dev, &n, &file_offset, &buffer_offset, &bytes, stream).err,
              hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
    EXPECT_EQ(bytes, (ssize_t)(size - 1));
    std::vector<uint8_t> host = Fetch(dev, size - 1);
    EXPECT_EQ(hf_test_pattern_check(host.data(), size - 1, 1, 23), -1);
    (void)hipStreamDestroy(stream);
}

TEST_F(RemoteHttp, BatchReadsOnARemoteHandle)
{
    const uint64_t size = 300000;
    PutObject(name_, size, 24);
    hipFileHandle_t fh = OpenOk(Url(name_), kManyPieces);
    void *dev = DeviceBuffer(size);
    hipFileBatchHandle_t batch;
    ASSERT_EQ(hipFileBatchIOSetUp(&batch, 3).err, hipFileSuccess);
    hipFileIOParams_t io[3] = {};
    const uint64_t starts[3] = {0, 100000, 250001};
    const size_t sizes[3] = {100000, 150001, 60000}; /* the last runs past the end */
    for (int i = 0; i < 3; i++) {
        io[i].mode = hipFileBatch;
        io[i].fh = fh;
        io[i].opcode = hipFileBatchRead;
        io[i].u.batch.devPtr_base = dev;
        io[i].u.batch.file_offset = (int64_t)starts[i];
        io[i].u.batch.devPtr_offset = (int64_t)starts[i];
        io[i].u.batch.size = i == 2 ? size - starts[i] : sizes[i];
        io[i].cookie = &io[i];
    }
    ASSERT_EQ(hipFileBatchIOSubmit(batch, 3, io, 0).err, hipFileSuccess);
    hipFileIOEvents_t events[3];
    unsigned nr = 3;
    ASSERT_EQ(hipFileBatchIOGetStatus(batch, 3, &nr, events, nullptr).err, hipFileSuccess);
    ASSERT_EQ(nr, 3u);
    for (unsigned i = 0; i < nr; i++) {
        EXPECT_EQ(events[i].status, hipFileComplete);
        const hipFileIOParams_t *p = static_cast<const hipFileIOParams_t *>(events[i].cookie);
        EXPECT_EQ((ssize_t)events[i].ret, (ssize_t)p->u.batch.size);
    }
    hipFileBatchIODestroy(batch);
    std::vector<uint8_t> host = Fetch(dev, size);
    EXPECT_EQ(hf_test_pattern_check(host.data(), size, 0, 24), -1);
}

} // namespace
