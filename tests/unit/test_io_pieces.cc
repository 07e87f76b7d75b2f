// Whole transfers: one hipFileRead or hipFileWrite of more than a backend call can move (the
// kernel's 0x7ffff000 per read(2)) is served in pieces, each through the selector, and returns
// the whole count; the file's end or an error after some pieces ends it with the bytes moved.
// The scripted backend pretends to move data, so the requests can be GiBs without the memory.
#include <cerrno>
#include <memory>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include "plugin_fixture.h"

extern "C" {
#include "host/loader.h"
}

using hf_fixture::LogCapture;
using hf_fixture::Manifest;
using hf_fixture::PluginDir;

namespace
{

/* What read(2) moves at most, and so the most one backend call is asked for. */
constexpr size_t kPiece = 0x7ffff000;
constexpr size_t kThreeGiB = size_t(3) << 30;

class IoPieces : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        hf_loader_reset();
        Manifest m;
        m.name = "scripted-a";
        dir_.add_library(m.name);
        dir_.add_manifest(m);
        std::string path = dir_.file("data.bin");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), 4096, 1), 0);
        fd_ = open(path.c_str(), O_RDWR | O_CLOEXEC);
        ASSERT_GE(fd_, 0);
        ASSERT_EQ(hipMalloc(&dev_, kThreeGiB), hipSuccess); /* never touched: pages stay unmade */
    }

    void TearDown() override
    {
        if (registered_)
            hipFileHandleDeregister(fh_);
        while (hipFileUseCount() > 0)
            (void)hipFileDriverClose();
        (void)hipFree(dev_);
        if (fd_ >= 0)
            close(fd_);
        log_.reset();
        hf_loader_reset();
    }

    /** Load the backend with @p body as its group, open the driver, register the file. */
    void Start(const std::string &body)
    {
        ASSERT_EQ(hf_fixture::load_config(hf_fixture::config_for(
                      dir_, "", "scripted-a: { pretend = true; " + body + " };\n")),
                  0);
        log_ = std::make_unique<LogCapture>();
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess) << log_->text();
        log_->reattach();
        hipFileDescr_t descr{};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd_;
        ASSERT_EQ(hipFileHandleRegister(&fh_, &descr).err, hipFileSuccess) << log_->text();
        registered_ = true;
    }

    /** The backend's log lines for a @p op of @p size bytes at @p offset. */
    size_t Calls(const char *op, size_t size, uint64_t offset)
    {
        return log_->count("hipfile[scripted-a] info: " + std::string(op) + " " +
                           std::to_string(size) + " bytes at " + std::to_string(offset) + " ");
    }

    size_t AllCalls(const char *op)
    {
        return log_->count("hipfile[scripted-a] info: " + std::string(op) + " ");
    }

    PluginDir dir_;
    int fd_ = -1;
    void *dev_ = nullptr;
    hipFileHandle_t fh_{};
    bool registered_ = false;
    std::unique_ptr<LogCapture> log_;
};

TEST_F(IoPieces, ReadLargerThanOneCallMovesWholeInPieces)
{
    Start("");
    ASSERT_EQ(hipFileRead(fh_, dev_, kThreeGiB, 0, 0), static_cast<ssize_t>(kThreeGiB))
        << log_->text();
    EXPECT_EQ(Calls("read", kPiece, 0), 1u);
    EXPECT_EQ(Calls("read", kThreeGiB - kPiece, kPiece), 1u);
    EXPECT_EQ(AllCalls("read"), 2u);
}

TEST_F(IoPieces, WriteLargerThanOneCallMovesWholeInPieces)
{
    Start("");
    ASSERT_EQ(hipFileWrite(fh_, dev_, kThreeGiB, 0, 0), static_cast<ssize_t>(kThreeGiB))
        << log_->text();
    EXPECT_EQ(Calls("write", kPiece, 0), 1u);
    EXPECT_EQ(Calls("write", kThreeGiB - kPiece, kPiece), 1u);
}

TEST_F(IoPieces, PiecesKeepTheFileAndBufferOffsets)
{
    Start("");
    size_t size = kThreeGiB - 7;
    ASSERT_EQ(hipFileRead(fh_, dev_, size, 4099, 7), static_cast<ssize_t>(size)) << log_->text();
    EXPECT_EQ(Calls("read", kPiece, 4099), 1u);
    EXPECT_EQ(Calls("read", size - kPiece, 4099 + kPiece), 1u);
}

TEST_F(IoPieces, ExactlyOnePieceIsOneCall)
{
    Start("");
    ASSERT_EQ(hipFileRead(fh_, dev_, kPiece, 0, 0), static_cast<ssize_t>(kPiece));
    EXPECT_EQ(AllCalls("read"), 1u);
}

TEST_F(IoPieces, ShortPieceIsTheEndOfTheFileAndEndsTheRequest)
{
    Start("claim = 4096;");
    EXPECT_EQ(hipFileRead(fh_, dev_, kThreeGiB, 0, 0), 4096);
    EXPECT_EQ(AllCalls("read"), 1u) << "nothing is read past a short piece";
}

TEST_F(IoPieces, ErrorAfterAPieceReturnsTheBytesMovedAndSaysSo)
{
    Start("write_errno = " + std::to_string(ENOSPC) + "; errno_at = " + std::to_string(kPiece) +
          ";");
    EXPECT_EQ(hipFileWrite(fh_, dev_, kThreeGiB, 0, 0), static_cast<ssize_t>(kPiece));
    EXPECT_EQ(
        log_->lines_with({"error:", "hipFileWrite", "after 2147479552 of 3221225472 bytes"}).size(),
        1u)
        << log_->text();
}

TEST_F(IoPieces, ErrorInTheFirstPieceIsTheCallsError)
{
    Start("read_errno = " + std::to_string(EIO) + ";");
    errno = 0;
    EXPECT_EQ(hipFileRead(fh_, dev_, kThreeGiB, 0, 0), -1);
    EXPECT_EQ(errno, EIO);
    EXPECT_EQ(AllCalls("read"), 1u);
}

TEST_F(IoPieces, AsyncReadLargerThanOneCallMovesWhole)
{
    Start("");
    size_t size = kThreeGiB;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 0;
    ASSERT_EQ(hipFileReadAsync(fh_, dev_, &size, &file_offset, &buffer_offset, &bytes, nullptr).err,
              hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
    EXPECT_EQ(bytes, static_cast<ssize_t>(kThreeGiB)) << log_->text();
    EXPECT_EQ(AllCalls("read"), 2u);
}

TEST_F(IoPieces, BatchEntryLargerThanOneCallMovesWhole)
{
    Start("");
    hipFileBatchHandle_t batch{};
    ASSERT_EQ(hipFileBatchIOSetUp(&batch, 2).err, hipFileSuccess);
    hipFileIOParams_t io[2]{};
    for (unsigned i = 0; i < 2; i++) {
        io[i].mode = hipFileBatch;
        io[i].opcode = i == 0 ? hipFileBatchRead : hipFileBatchWrite;
        io[i].fh = fh_;
        io[i].u.batch.devPtr_base = dev_;
        io[i].u.batch.size = kThreeGiB;
        io[i].cookie = &io[i];
    }
    ASSERT_EQ(hipFileBatchIOSubmit(batch, 2, io, 0).err, hipFileSuccess);
    hipFileIOEvents_t events[2]{};
    unsigned got = 0;
    while (got < 2) {
        unsigned nr = 2 - got;
        ASSERT_EQ(hipFileBatchIOGetStatus(batch, nr, &nr, events + got, nullptr).err,
                  hipFileSuccess);
        got += nr;
    }
    for (const auto &e : events) {
        EXPECT_EQ(e.status, hipFileComplete);
        EXPECT_EQ(static_cast<ssize_t>(e.ret), static_cast<ssize_t>(kThreeGiB)) << log_->text();
    }
    hipFileBatchIODestroy(batch);
    EXPECT_EQ(AllCalls("read"), 2u);
    EXPECT_EQ(AllCalls("write"), 2u);
}

// When nothing can serve, the code says GPU I/O is not possible here, not that the library broke,
// and the log says where to look.
TEST_F(IoPieces, RequestEveryBackendRefusesIsIONotSupported)
{
    Start("score = -1;");
    ssize_t n = hipFileRead(fh_, dev_, 4096, 0, 0);
    EXPECT_EQ(n, -static_cast<ssize_t>(hipFileIONotSupported));
    EXPECT_STREQ(HIPFILE_ERRSTR(n), "GPU I/O not supported for this file");
    EXPECT_EQ(log_->count("error: no backend can serve a read of 4096 bytes (regular file, device "
                          "memory): the one loaded refused; hipfile-check --explain FILE shows its "
                          "reason"),
              1u)
        << log_->text();
}

TEST_F(IoPieces, LastBackendAnsweringENODEVIsIONotSupported)
{
    Start("read_errno = " + std::to_string(ENODEV) + ";");
    EXPECT_EQ(hipFileRead(fh_, dev_, 4096, 0, 0), -static_cast<ssize_t>(hipFileIONotSupported));
    EXPECT_EQ(log_->count("error: hipFileRead: the last backend able to serve this request "
                          "reports it cannot; hipfile-check --explain FILE shows each backend's "
                          "answer"),
              1u)
        << log_->text();
}

} // namespace
