/*
 * Stream-ordered I/O (hipFileReadAsync/WriteAsync, hipFileStreamRegister/Deregister): operations
 * run after the stream work queued before them and before the work queued after them, read their
 * parameters when the stream reaches them unless fixed by the stream's flags, report through
 * *bytes_p, and move data on the I/O threads, several streams at once. Streams are held at a
 * point with a host function that waits for the test to open a gate.
 */
#include "api_test.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

extern "C" {
#include "services/executor.h"
#include "base/sys.h"
}

namespace
{

/* Two emulated GPUs on the host runtime, for the device check (a real runtime ignores this). */
const int two_host_devices = setenv("HIP_HOST_DEVICE_COUNT", "2", 0);

#ifdef HF_TEST_TSAN
/*
 * The host runtime is not instrumented: a stream freed by whichever of its handle and its worker
 * drops the last reference (an atomic count TSan does not see) looks like a race to TSan.
 */
extern "C" const char *__tsan_default_suppressions()
{
    return "race:stream_release\n";
}
#endif

/*
 * Holds streams where Hold was called until Open. The host function runs on the runtime's thread
 * and takes the gate's lock, so whatever the test wrote before Open is visible to the work that
 * follows on the stream.
 */
class StreamGate
{
  public:
    ~StreamGate()
    {
        Open();
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return left_ == held_; });
    }
    void Hold(hipStream_t stream)
    {
        {
            std::lock_guard<std::mutex> lock(m_);
            held_++;
        }
        ASSERT_EQ(hipLaunchHostFunc(stream, Wait, this), hipSuccess);
    }
    void Open()
    {
        std::lock_guard<std::mutex> lock(m_);
        open_ = true;
        cv_.notify_all();
    }

  private:
    static void Wait(void *arg)
    {
        auto *g = static_cast<StreamGate *>(arg);
        std::unique_lock<std::mutex> lock(g->m_);
        g->cv_.wait(lock, [g] { return g->open_; });
        g->left_++;
        g->cv_.notify_all();
    }
    std::mutex m_;
    std::condition_variable cv_;
    bool open_ = false;
    unsigned held_ = 0, left_ = 0;
};

/* Parks every I/O thread until Open, so work handed to the executor stays queued. */
class WorkerGate
{
  public:
    WorkerGate()
    {
        workers_ = hf_executor_width() - 1;
        EXPECT_EQ(hf_executor_submit(workers_, Task, this), 0);
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return arrived_ == workers_; });
    }
    ~WorkerGate()
    {
        Open();
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return left_ == workers_; });
    }
    void Open()
    {
        std::lock_guard<std::mutex> lock(m_);
        open_ = true;
        cv_.notify_all();
    }

  private:
    static void Task(void *arg, unsigned)
    {
        auto *g = static_cast<WorkerGate *>(arg);
        std::unique_lock<std::mutex> lock(g->m_);
        g->arrived_++;
        g->cv_.notify_all();
        g->cv_.wait(lock, [g] { return g->open_; });
        g->left_++;
        g->cv_.notify_all();
    }
    unsigned workers_ = 0, arrived_ = 0, left_ = 0;
    bool open_ = false;
    std::mutex m_;
    std::condition_variable cv_;
};

/* Records what a host function queued on a stream saw when the stream reached it. */
struct Probe {
    const ssize_t *bytes_p = nullptr;
    std::atomic<bool> ran{false};
    ssize_t seen = 0;
    static void Run(void *arg)
    {
        auto *p = static_cast<Probe *>(arg);
        p->seen = *p->bytes_p;
        p->ran = true;
    }
};

/* One operation's arguments, which must stay put until the stream has run it. */
struct Op {
    size_t size = 0;
    hoff_t file_offset = 0;
    hoff_t buffer_offset = 0;
    ssize_t bytes = -12345;
};

/*
 * Wraps the system calls backends use: while armed, each read waits (up to 10 s) until reads of
 * kRegions different regions of the file are inside at once, then all pass. The most regions seen
 * inside together tells whether operations of different streams ran at the same time.
 */
class ConcurrentReads
{
  public:
    static constexpr int kRegions = 4;
    static constexpr size_t kRegionSize = 64 << 10;

    ConcurrentReads()
    {
        ops_ = *hf_sys_default();
        ops_.pread = Pread;
        ops_.preadv2 = Preadv2;
        instance_ = this;
        hf_sys_override(&ops_);
    }
    ~ConcurrentReads()
    {
        hf_sys_override(nullptr);
        instance_ = nullptr;
    }
    int MostAtOnce()
    {
        std::lock_guard<std::mutex> lock(m_);
        return most_;
    }

  private:
    void Enter(off_t offset)
    {
        std::unique_lock<std::mutex> lock(m_);
        long region = static_cast<long>(offset / static_cast<off_t>(kRegionSize));
        inside_[region]++;
        most_ = std::max(most_, static_cast<int>(inside_.size()));
        if (static_cast<int>(inside_.size()) >= kRegions)
            released_ = true;
        cv_.notify_all();
        cv_.wait_for(lock, std::chrono::seconds(10), [this] { return released_; });
        released_ = true; /* a timeout releases everyone: the count already tells */
        if (--inside_[region] == 0)
            inside_.erase(region);
    }
    static ssize_t Pread(int fd, void *buf, size_t count, off_t offset)
    {
        instance_->Enter(offset);
        return hf_sys_default()->pread(fd, buf, count, offset);
    }
    static ssize_t Preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
    {
        instance_->Enter(offset);
        return hf_sys_default()->preadv2(fd, iov, iovcnt, offset, flags);
    }
    static ConcurrentReads *instance_;
    struct hf_sys_ops ops_;
    std::mutex m_;
    std::condition_variable cv_;
    std::map<long, int> inside_;
    int most_ = 0;
    bool released_ = false;
};
ConcurrentReads *ConcurrentReads::instance_ = nullptr;

} // namespace

/* Calls that fail before the driver is open, or with bad arguments. */
class AsyncArgsTest : public ApiTest
{
};

TEST_F(AsyncArgsTest, WriteAsyncAtZeroOpensAndReportsInvalidValue)
{
    size_t size = 16;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 7;
    char host[16] = {0};
    hipFileError_t e = hipFileWriteAsync(reinterpret_cast<hipFileHandle_t>(0x1234), host, &size,
                                         &file_offset, &buffer_offset, &bytes, nullptr);
    EXPECT_EQ(e.err, hipFileInvalidValue);
    EXPECT_EQ(hipFileUseCount(), 1);
    /* Refused before submission: the result is not touched. */
    EXPECT_EQ(bytes, 7);
}

class AsyncTest : public ApiTest
{
  protected:
    static constexpr size_t kFileSize = 4 << 20;
    static constexpr uint32_t kSeed = 11;

    void SetUp() override
    {
        ApiTest::SetUp();
        /*
         * Under ThreadSanitizer the library holds streams with host functions
         * (stream_memops_bypass) instead of stream waits: the host runtime polls the completion
         * word in uninstrumented code, which hides that ordering from TSan, while the
         * host-function path orders through locks it sees. Set before every open, since the last
         * close forgets values set through the API.
         */
        ASSERT_EQ(hipFileSetParameterBool(hipFileParamStreamMemopsBypass, kBypassDefault).err,
                  hipFileSuccess);
        ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
        /* Parameterised suites have a '/' in their names: keep the file in the scratch folder. */
        path_ = ScratchPath("data");
        std::replace(path_.begin() + strlen(hf_test_tmpdir()) + 1, path_.end(), '/', '_');
        ASSERT_EQ(hf_test_pattern_file(path_.c_str(), kFileSize, kSeed), 0);
        fd_ = open(path_.c_str(), O_RDWR);
        ASSERT_GE(fd_, 0);
        fh_ = Register(fd_);
        ASSERT_EQ(hipMalloc(&dev_, kFileSize), hipSuccess);
        ASSERT_EQ(hipMemset(dev_, 0, kFileSize), hipSuccess);
        ASSERT_EQ(hipHostMalloc(&pinned_, kFileSize, 0), hipSuccess);
        ASSERT_EQ(hipStreamCreate(&stream_), hipSuccess);
    }
    void TearDown() override
    {
        if (stream_ != nullptr) {
            EXPECT_EQ(hipStreamSynchronize(stream_), hipSuccess);
            EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
        }
        hipFileHandleDeregister(fh_);
        if (fd_ >= 0)
            close(fd_);
        (void)hipFree(dev_);
        (void)hipHostFree(pinned_);
        (void)hipFileSetParameterBool(hipFileParamStreamMemopsBypass, kBypassDefault);
        ApiTest::TearDown();
    }

    hipFileError_t Read(Op &op, hipStream_t stream, hipFileHandle_t fh = nullptr)
    {
        return hipFileReadAsync(fh != nullptr ? fh : fh_, dev_, &op.size, &op.file_offset,
                                &op.buffer_offset, &op.bytes, stream);
    }
    hipFileError_t Write(Op &op, hipStream_t stream)
    {
        return hipFileWriteAsync(fh_, dev_, &op.size, &op.file_offset, &op.buffer_offset, &op.bytes,
                                 stream);
    }
    /*
     * The whole file read into the device buffer by 16 streams, each queuing 8 pieces behind a
     * gate so that all of them are in flight together.
     */
    void ReadFileOnManyStreams()
    {
        const int streams_n = 16, per_stream = 8;
        const size_t piece = kFileSize / (streams_n * per_stream);
        std::vector<hipStream_t> streams(streams_n);
        std::vector<Op> ops(streams_n * per_stream);
        for (auto &s : streams)
            ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
        {
            StreamGate gate;
            for (int s = 0; s < streams_n; s++) {
                gate.Hold(streams[s]);
                for (int k = 0; k < per_stream; k++) {
                    Op &op = ops[s * per_stream + k];
                    op.size = piece;
                    /* Interleaved, so neighbouring pieces belong to different streams. */
                    op.file_offset = static_cast<hoff_t>((k * streams_n + s) * piece);
                    op.buffer_offset = op.file_offset;
                    ASSERT_EQ(Read(op, streams[s]).err, hipFileSuccess);
                }
            }
            gate.Open();
            for (auto s : streams)
                ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        }
        for (size_t i = 0; i < ops.size(); i++)
            EXPECT_EQ(ops[i].bytes, static_cast<ssize_t>(piece)) << "operation " << i;
        for (auto s : streams)
            EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    }
    /* Device bytes [offset, offset + size), copied out after everything queued has run. */
    std::vector<uint8_t> DeviceBytes(size_t offset, size_t size)
    {
        std::vector<uint8_t> out(size);
        EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
        EXPECT_EQ(
            hipMemcpy(out.data(), static_cast<char *>(dev_) + offset, size, hipMemcpyDeviceToHost),
            hipSuccess);
        return out;
    }
    /* Whether device bytes at @p dev_offset hold the file's pattern at @p file_offset. */
    bool DeviceHoldsFile(size_t dev_offset, size_t file_offset, size_t size)
    {
        std::vector<uint8_t> got = DeviceBytes(dev_offset, size);
        return hf_test_pattern_check(got.data(), size, file_offset, kSeed) == -1;
    }
    static bool AllBytes(const uint8_t *p, size_t size, uint8_t value)
    {
        return std::all_of(p, p + size, [value](uint8_t b) { return b == value; });
    }

#ifdef HF_TEST_TSAN
    static constexpr bool kBypassDefault = true;
#else
    static constexpr bool kBypassDefault = false;
#endif
    std::string path_;
    int fd_ = -1;
    hipFileHandle_t fh_ = nullptr;
    void *dev_ = nullptr;
    uint8_t *pinned_ = nullptr;
    hipStream_t stream_ = nullptr;
};

TEST_F(AsyncTest, ReadLandsInTheBufferAndReportsBytes)
{
    Op op;
    op.size = 1 << 20;
    op.file_offset = 8192;
    op.buffer_offset = 4096;
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, 1 << 20);
    EXPECT_TRUE(DeviceHoldsFile(4096, 8192, 1 << 20));
}

TEST_F(AsyncTest, ReadRunsAfterEarlierStreamWorkAndBeforeLaterWork)
{
    const size_t n = 256 << 10;
    Op op;
    op.size = n;
    Probe probe;
    probe.bytes_p = &op.bytes;
    memset(pinned_, 0x5a, n);
    StreamGate gate;
    gate.Hold(stream_);
    /* A fill queued before the read must not overwrite it; a copy queued after must see it. */
    ASSERT_EQ(hipMemsetAsync(dev_, 0xee, n, stream_), hipSuccess);
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    ASSERT_EQ(hipLaunchHostFunc(stream_, Probe::Run, &probe), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(pinned_, dev_, n, hipMemcpyDeviceToHost, stream_), hipSuccess);
    EXPECT_EQ(op.bytes, 0); /* set at submission */
    EXPECT_FALSE(probe.ran.load());
    gate.Open();
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, static_cast<ssize_t>(n));
    EXPECT_TRUE(probe.ran.load());
    EXPECT_EQ(probe.seen, static_cast<ssize_t>(n)); /* stored before later stream work ran */
    EXPECT_EQ(hf_test_pattern_check(pinned_, n, 0, kSeed), -1);
}

TEST_F(AsyncTest, WriteRunsAfterTheCopyThatFillsItsBuffer)
{
    const size_t n = 512 << 10;
    const hoff_t at = 1 << 20;
    hf_test_pattern_fill(pinned_, n, 0, 77);
    Op op;
    op.size = n;
    op.file_offset = at;
    StreamGate gate;
    gate.Hold(stream_);
    ASSERT_EQ(hipMemcpyAsync(dev_, pinned_, n, hipMemcpyHostToDevice, stream_), hipSuccess);
    ASSERT_EQ(Write(op, stream_).err, hipFileSuccess);
    gate.Open();
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, static_cast<ssize_t>(n));
    std::vector<uint8_t> file(n);
    ASSERT_EQ(pread(fd_, file.data(), n, at), static_cast<ssize_t>(n));
    EXPECT_EQ(hf_test_pattern_check(file.data(), n, 0, 77), -1);
}

TEST_F(AsyncTest, WritesThenReadsOnOneStreamRunInOrder)
{
    const size_t n = 256 << 10;
    const int rounds = 4;
    std::vector<Op> writes(rounds), reads(rounds);
    hf_test_pattern_fill(pinned_, n, 0, 91);
    ASSERT_EQ(hipMemcpyAsync(dev_, pinned_, n, hipMemcpyHostToDevice, stream_), hipSuccess);
    /* Each round writes the data a little further on, then reads it back to the next place. */
    for (int i = 0; i < rounds; i++) {
        writes[i].size = n;
        writes[i].file_offset = static_cast<hoff_t>((i + 1) * n);
        writes[i].buffer_offset = static_cast<hoff_t>(i * n);
        reads[i].size = n;
        reads[i].file_offset = writes[i].file_offset;
        reads[i].buffer_offset = static_cast<hoff_t>((i + 1) * n);
        ASSERT_EQ(Write(writes[i], stream_).err, hipFileSuccess);
        ASSERT_EQ(Read(reads[i], stream_).err, hipFileSuccess);
    }
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    for (int i = 0; i < rounds; i++) {
        EXPECT_EQ(writes[i].bytes, static_cast<ssize_t>(n)) << "round " << i;
        EXPECT_EQ(reads[i].bytes, static_cast<ssize_t>(n)) << "round " << i;
    }
    std::vector<uint8_t> last = DeviceBytes(rounds * n, n);
    EXPECT_EQ(hf_test_pattern_check(last.data(), n, 0, 91), -1);
}

/*
 * A non-blocking stream with nothing queued is handed to the I/O threads at submission, without
 * the runtime's host-function thread: what a caller that waits for each call does, call after call.
 */
TEST_F(AsyncTest, CallsOnAnIdleNonBlockingStreamEachLandBeforeTheWorkAfterThem)
{
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    const size_t n = 256 << 10;
    const int rounds = 32;
    for (int i = 0; i < rounds; i++) {
        const size_t at = (i * n) % kFileSize;
        Op op;
        op.size = n;
        op.file_offset = static_cast<hoff_t>(at);
        op.buffer_offset = static_cast<hoff_t>(at);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess); /* idle at submission */
        memset(pinned_, 0, n);
        ASSERT_EQ(Read(op, s).err, hipFileSuccess);
        ASSERT_EQ(
            hipMemcpyAsync(pinned_, static_cast<char *>(dev_) + at, n, hipMemcpyDeviceToHost, s),
            hipSuccess);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        ASSERT_EQ(op.bytes, static_cast<ssize_t>(n)) << "round " << i;
        ASSERT_EQ(hf_test_pattern_check(pinned_, n, at, kSeed), -1) << "round " << i;
    }
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(AsyncTest, WriteOnAnIdleNonBlockingStreamWritesWhatTheBufferHeldAtSubmission)
{
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    const size_t n = 512 << 10;
    const hoff_t at = 1 << 20;
    hf_test_pattern_fill(pinned_, n, 0, 78);
    ASSERT_EQ(hipMemcpy(dev_, pinned_, n, hipMemcpyHostToDevice), hipSuccess);
    Op op;
    op.size = n;
    op.file_offset = at;
    ASSERT_EQ(Write(op, s).err, hipFileSuccess);
    /* Queued after the write: must not reach the buffer before the write has read it. */
    ASSERT_EQ(hipMemsetAsync(dev_, 0xee, n, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(op.bytes, static_cast<ssize_t>(n));
    std::vector<uint8_t> file(n);
    ASSERT_EQ(pread(fd_, file.data(), n, at), static_cast<ssize_t>(n));
    EXPECT_EQ(hf_test_pattern_check(file.data(), n, 0, 78), -1);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

/* A non-blocking stream with work still queued is not idle: the operation waits its turn. */
TEST_F(AsyncTest, ReadOnABusyNonBlockingStreamRunsAfterEarlierWork)
{
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    const size_t n = 256 << 10;
    Op op;
    op.size = n;
    {
        StreamGate gate;
        gate.Hold(s);
        ASSERT_EQ(hipMemsetAsync(dev_, 0xee, n, s), hipSuccess);
        ASSERT_EQ(Read(op, s).err, hipFileSuccess);
        ASSERT_EQ(hipMemcpyAsync(pinned_, dev_, n, hipMemcpyDeviceToHost, s), hipSuccess);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        EXPECT_EQ(op.bytes, 0); /* nothing ran while the stream was held */
        gate.Open();
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    }
    EXPECT_EQ(op.bytes, static_cast<ssize_t>(n));
    EXPECT_EQ(hf_test_pattern_check(pinned_, n, 0, kSeed), -1);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

/* A failure of an operation handed over at submission still arrives through the bytes word. */
TEST_F(AsyncTest, ErrorOnAnIdleNonBlockingStreamArrivesThroughBytes)
{
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    Op op;
    op.size = 4096;
    op.file_offset = -1; /* read at execution: reported there */
    ASSERT_EQ(Read(op, s).err, hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(op.bytes, -EINVAL);
    EXPECT_EQ(hipGetLastError(), hipSuccess); /* asking whether the stream was idle left none */
    op.file_offset = 0;
    ASSERT_EQ(Read(op, s).err, hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(op.bytes, 4096);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

/* Which parameters a registered stream fixes at submission; the others are read at execution. */
struct FixedCase {
    const char *name;
    unsigned flags;
};

class AsyncFixedTest : public AsyncTest, public ::testing::WithParamInterface<FixedCase>
{
};

TEST_P(AsyncFixedTest, ParametersAreReadAtExecutionUnlessFixed)
{
    const unsigned flags = GetParam().flags;
    if (flags != 0) {
        ASSERT_EQ(hipFileStreamRegister(stream_, flags).err, hipFileSuccess);
    }
    Op op;
    op.size = 64 << 10;
    op.file_offset = 0;
    op.buffer_offset = 0;
    StreamGate gate;
    gate.Hold(stream_);
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    /* Changed after submission, before the stream reaches the operation. */
    op.size = 32 << 10;
    op.file_offset = 128 << 10;
    op.buffer_offset = 256 << 10;
    gate.Open();
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);

    size_t want_size = flags & HIPFILE_STREAM_FIXED_FILE_SIZE ? 64 << 10 : 32 << 10;
    size_t want_file = flags & HIPFILE_STREAM_FIXED_FILE_OFFSET ? 0 : 128 << 10;
    size_t want_buf = flags & HIPFILE_STREAM_FIXED_BUF_OFFSET ? 0 : 256 << 10;
    EXPECT_EQ(op.bytes, static_cast<ssize_t>(want_size));
    EXPECT_TRUE(DeviceHoldsFile(want_buf, want_file, want_size));
    /* Nothing beyond the size in force was written. */
    std::vector<uint8_t> after = DeviceBytes(want_buf + want_size, 4096);
    EXPECT_TRUE(AllBytes(after.data(), after.size(), 0));
    if (flags != 0) {
        EXPECT_EQ(hipFileStreamDeregister(stream_).err, hipFileSuccess);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Flags, AsyncFixedTest,
    ::testing::Values(FixedCase{"Unregistered", 0},
                      FixedCase{"PageAlignedOnly", HIPFILE_STREAM_PAGE_ALIGNED_INPUTS},
                      FixedCase{"FixedBufOffset", HIPFILE_STREAM_FIXED_BUF_OFFSET},
                      FixedCase{"FixedFileOffset", HIPFILE_STREAM_FIXED_FILE_OFFSET},
                      FixedCase{"FixedFileSize", HIPFILE_STREAM_FIXED_FILE_SIZE},
                      FixedCase{"AllFixed", HIPFILE_STREAM_FIXED_BUF_OFFSET |
                                                HIPFILE_STREAM_FIXED_FILE_OFFSET |
                                                HIPFILE_STREAM_FIXED_FILE_SIZE}),
    [](const ::testing::TestParamInfo<FixedCase> &info) { return std::string(info.param.name); });

/* AsyncTest's buffer size, for the cases below. */
constexpr size_t kAsyncBufferSize = 4 << 20;

/* A value that is wrong when the call is made, and which the stream's flags fix (AMD's cases). */
struct WrongAtSubmission {
    const char *name;
    unsigned fixed; /* the flag that makes the call read this value now */
    size_t size;    /* of a buffer of kAsyncBufferSize bytes */
    hoff_t file_offset;
    hoff_t buffer_offset;
};

class AsyncWrongAtSubmissionTest : public AsyncTest,
                                   public ::testing::WithParamInterface<WrongAtSubmission>
{
  protected:
    /* Submits a read and a write with the case's values on a stream registered with @p flags. */
    void SubmitBoth(unsigned flags, hipFileOpError_t expect)
    {
        const WrongAtSubmission &c = GetParam();
        ASSERT_EQ(hipFileStreamRegister(stream_, flags).err, hipFileSuccess);
        Op read_op, write_op;
        for (Op *op : {&read_op, &write_op}) {
            op->size = c.size;
            op->file_offset = c.file_offset;
            op->buffer_offset = c.buffer_offset;
            op->bytes = 12345;
        }
        EXPECT_EQ(Read(read_op, stream_).err, expect);
        EXPECT_EQ(Write(write_op, stream_).err, expect);
        ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
        if (expect != hipFileSuccess) {
            EXPECT_EQ(read_op.bytes, 12345) << "a refused call reports nothing later";
        } else {
            EXPECT_LT(read_op.bytes, 0) << "checked at execution instead";
            EXPECT_LT(write_op.bytes, 0);
        }
        EXPECT_EQ(hipFileStreamDeregister(stream_).err, hipFileSuccess);
        std::vector<uint8_t> untouched = DeviceBytes(0, 8192);
        EXPECT_TRUE(AllBytes(untouched.data(), untouched.size(), 0));
    }
};

TEST_P(AsyncWrongAtSubmissionTest, FixedValueIsRefusedByTheCall)
{
    SubmitBoth(HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                   HIPFILE_STREAM_FIXED_FILE_SIZE,
               hipFileInvalidValue);
}

TEST_P(AsyncWrongAtSubmissionTest, ValueFixedByItsOwnFlagAloneIsRefusedByTheCall)
{
    SubmitBoth(GetParam().fixed, hipFileInvalidValue);
}

TEST_P(AsyncWrongAtSubmissionTest, ValueReadAtExecutionIsReportedThroughBytes)
{
    const unsigned all = HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                         HIPFILE_STREAM_FIXED_FILE_SIZE;
    SubmitBoth(all & ~GetParam().fixed, hipFileSuccess);
}

INSTANTIATE_TEST_SUITE_P(
    AmdCases, AsyncWrongAtSubmissionTest,
    ::testing::Values(
        WrongAtSubmission{"SizeLargerThanTheBuffer", HIPFILE_STREAM_FIXED_FILE_SIZE,
                          kAsyncBufferSize + 4096, 0, 0},
        WrongAtSubmission{"NegativeFileOffset", HIPFILE_STREAM_FIXED_FILE_OFFSET, 4096, -4096, 0},
        WrongAtSubmission{"NegativeBufferOffset", HIPFILE_STREAM_FIXED_BUF_OFFSET, 4096, 0, -4096},
        WrongAtSubmission{"BufferOffsetPastTheBuffer", HIPFILE_STREAM_FIXED_BUF_OFFSET, 4096, 0,
                          static_cast<hoff_t>(kAsyncBufferSize) + 4096}),
    [](const ::testing::TestParamInfo<WrongAtSubmission> &info) {
        return std::string(info.param.name);
    });

TEST_F(AsyncTest, SizeGrownAfterSubmissionIsInvalidValueAndStreamStaysUsable)
{
    Op op;
    op.size = 4096;
    StreamGate gate;
    gate.Hold(stream_);
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    op.size = 8192;
    gate.Open();
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_TRUE(IS_HIPFILE_ERR(op.bytes));
    std::vector<uint8_t> untouched = DeviceBytes(0, 8192);
    EXPECT_TRUE(AllBytes(untouched.data(), untouched.size(), 0));

    Op again;
    again.size = 4096;
    ASSERT_EQ(Read(again, stream_).err, hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(again.bytes, 4096);
}

TEST_F(AsyncTest, SizeGrownOnAFixedSizeStreamIsNotSeen)
{
    ASSERT_EQ(hipFileStreamRegister(stream_, HIPFILE_STREAM_FIXED_FILE_SIZE).err, hipFileSuccess);
    Op op;
    op.size = 4096;
    StreamGate gate;
    gate.Hold(stream_);
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    op.size = 8192;
    gate.Open();
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, 4096);
    EXPECT_EQ(hipFileStreamDeregister(stream_).err, hipFileSuccess);
}

TEST_F(AsyncTest, ErrorsArriveThroughBytesAndTheStreamStaysUsable)
{
    Op unknown, negative, past_buffer, good;
    unknown.size = negative.size = good.size = 4096;
    negative.file_offset = -4096;
    past_buffer.size = 8192;
    past_buffer.buffer_offset = kFileSize - 4096;
    ASSERT_EQ(Read(unknown, stream_, reinterpret_cast<hipFileHandle_t>(0x1234)).err,
              hipFileSuccess);
    ASSERT_EQ(Read(negative, stream_).err, hipFileSuccess);
    ASSERT_EQ(Read(past_buffer, stream_).err, hipFileSuccess);
    ASSERT_EQ(Read(good, stream_).err, hipFileSuccess);
    ASSERT_EQ(hipMemcpyAsync(pinned_, dev_, 4096, hipMemcpyDeviceToHost, stream_), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(unknown.bytes, -static_cast<ssize_t>(hipFileHandleNotRegistered));
    /* A system error is -errno: errno cannot follow the result to the caller's thread. */
    EXPECT_EQ(negative.bytes, -EINVAL);
    EXPECT_EQ(past_buffer.bytes, -static_cast<ssize_t>(hipFileInvalidValue));
    EXPECT_EQ(good.bytes, 4096);
    EXPECT_EQ(hf_test_pattern_check(pinned_, 4096, 0, kSeed), -1);
}

TEST_F(AsyncTest, WriteThroughAReadOnlyDescriptorIsMinusEbadf)
{
    int ro = open(path_.c_str(), O_RDONLY);
    ASSERT_GE(ro, 0);
    hipFileHandle_t ro_fh = Register(ro);
    Op op;
    op.size = 4096;
    ASSERT_EQ(hipFileWriteAsync(ro_fh, dev_, &op.size, &op.file_offset, &op.buffer_offset,
                                &op.bytes, stream_)
                  .err,
              hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, -EBADF);
    hipFileHandleDeregister(ro_fh);
    close(ro);
}

TEST_F(AsyncTest, ReadAtEndOfFileIsShortThenZero)
{
    Op tail, past;
    tail.size = 8192;
    tail.file_offset = kFileSize - 4096;
    past.size = 4096;
    past.file_offset = kFileSize;
    ASSERT_EQ(Read(tail, stream_).err, hipFileSuccess);
    ASSERT_EQ(Read(past, stream_).err, hipFileSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(tail.bytes, 4096);
    EXPECT_EQ(past.bytes, 0);
}

TEST_F(AsyncTest, EachNullPointerIsInvalidValueAndLeavesBytesAlone)
{
    size_t size = 4096;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = 7;
    EXPECT_EQ(
        hipFileReadAsync(fh_, nullptr, &size, &file_offset, &buffer_offset, &bytes, stream_).err,
        hipFileInvalidValue);
    EXPECT_EQ(
        hipFileReadAsync(fh_, dev_, nullptr, &file_offset, &buffer_offset, &bytes, stream_).err,
        hipFileInvalidValue);
    EXPECT_EQ(hipFileReadAsync(fh_, dev_, &size, nullptr, &buffer_offset, &bytes, stream_).err,
              hipFileInvalidValue);
    EXPECT_EQ(hipFileWriteAsync(fh_, dev_, &size, &file_offset, nullptr, &bytes, stream_).err,
              hipFileInvalidValue);
    EXPECT_EQ(bytes, 7);
    EXPECT_EQ(
        hipFileWriteAsync(fh_, dev_, &size, &file_offset, &buffer_offset, nullptr, stream_).err,
        hipFileInvalidValue);
}

TEST_F(AsyncTest, ZeroSizeSucceedsAtOnceWithZeroBytes)
{
    StreamGate gate;
    gate.Hold(stream_);
    Op op;
    op.size = 0;
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    /* Answered at submission, while the stream is still held. */
    EXPECT_EQ(op.bytes, 0);
    op.bytes = 99;
    ASSERT_EQ(Write(op, stream_).err, hipFileSuccess);
    EXPECT_EQ(op.bytes, 0);
}

TEST_F(AsyncTest, BufferOnAnotherGpuThanTheStreamIsInvalidValue)
{
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    if (count < 2)
        GTEST_SKIP() << "needs two GPUs";
    void *other = nullptr;
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    ASSERT_EQ(hipMalloc(&other, 4096), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    Op op;
    op.size = 4096;
    op.bytes = 7;
    /* The null stream belongs to the current device, 0. */
    EXPECT_EQ(hipFileReadAsync(fh_, other, &op.size, &op.file_offset, &op.buffer_offset, &op.bytes,
                               nullptr)
                  .err,
              hipFileInvalidValue);
    EXPECT_EQ(op.bytes, 7);
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    EXPECT_EQ(hipFileReadAsync(fh_, other, &op.size, &op.file_offset, &op.buffer_offset, &op.bytes,
                               nullptr)
                  .err,
              hipFileSuccess);
    EXPECT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
    EXPECT_EQ(op.bytes, 4096);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    (void)hipFree(other);
}

TEST_F(AsyncTest, StreamTheRuntimeRejectsIsRefusedAtSubmission)
{
    const char *runtime = getenv("HIPFILE_GPU_RUNTIME");
    if (runtime == nullptr || strcmp(runtime, "host") != 0)
        GTEST_SKIP() << "a real runtime may crash on a handle that is not a stream";
    int not_a_stream = 0;
    Op op;
    op.size = 4096;
    hipFileError_t e = Read(op, reinterpret_cast<hipStream_t>(&not_a_stream));
    EXPECT_EQ(e.err, hipFileHipDriverError);
    EXPECT_EQ(e.hip_drv_err, hipErrorInvalidHandle);
}

TEST_F(AsyncTest, NullStreamIsTheDefaultStream)
{
    Op op;
    op.size = 64 << 10;
    op.file_offset = 4096;
    ASSERT_EQ(Read(op, nullptr).err, hipFileSuccess);
    ASSERT_EQ(hipMemcpyAsync(pinned_, dev_, 64 << 10, hipMemcpyDeviceToHost, nullptr), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
    EXPECT_EQ(op.bytes, 64 << 10);
    EXPECT_EQ(hf_test_pattern_check(pinned_, 64 << 10, 4096, kSeed), -1);
}

TEST_F(AsyncTest, IoRunsOnTheIoThreadsNotTheStreamCallback)
{
    Op op;
    op.size = 4096;
    Probe probe;
    probe.bytes_p = &op.bytes;
    {
        WorkerGate workers;
        ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
        ASSERT_EQ(hipLaunchHostFunc(stream_, Probe::Run, &probe), hipSuccess);
        /* The hand-over has long run, but the data cannot move while the I/O threads are parked,
         * and the stream does not move past the operation without it. */
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        EXPECT_FALSE(probe.ran.load());
        EXPECT_EQ(op.bytes, 0);
        EXPECT_EQ(hipStreamQuery(stream_), hipErrorNotReady);
    }
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_TRUE(probe.ran.load());
    EXPECT_EQ(probe.seen, 4096);
}

TEST_F(AsyncTest, OperationsOfSeveralStreamsRunAtTheSameTime)
{
    const int n = ConcurrentReads::kRegions;
    std::vector<hipStream_t> streams(n);
    std::vector<Op> ops(n);
    for (auto &s : streams)
        ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    {
        ConcurrentReads reads;
        StreamGate gate;
        for (int i = 0; i < n; i++) {
            gate.Hold(streams[i]);
            ops[i].size = ConcurrentReads::kRegionSize;
            ops[i].file_offset = static_cast<hoff_t>(i * ConcurrentReads::kRegionSize);
            ops[i].buffer_offset = ops[i].file_offset;
            ASSERT_EQ(Read(ops[i], streams[i]).err, hipFileSuccess);
        }
        gate.Open();
        for (auto s : streams)
            ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        EXPECT_EQ(reads.MostAtOnce(), n);
    }
    for (int i = 0; i < n; i++)
        EXPECT_EQ(ops[i].bytes, static_cast<ssize_t>(ConcurrentReads::kRegionSize));
    EXPECT_TRUE(DeviceHoldsFile(0, 0, n * ConcurrentReads::kRegionSize));
    for (auto s : streams)
        EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(AsyncTest, SixteenStreamsOfQueuedReadsAllArriveIntact)
{
    ReadFileOnManyStreams();
    EXPECT_TRUE(DeviceHoldsFile(0, 0, kFileSize));
}

TEST_F(AsyncTest, HostFunctionHoldModeKeepsOrderOnManyStreams)
{
    ASSERT_EQ(hipFileSetParameterBool(hipFileParamStreamMemopsBypass, true).err, hipFileSuccess);
    ReadFileOnManyStreams();
    EXPECT_TRUE(DeviceHoldsFile(0, 0, kFileSize));

    const size_t n = 128 << 10;
    Op op;
    op.size = n;
    ASSERT_EQ(hipMemsetAsync(dev_, 0xee, n, stream_), hipSuccess);
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    ASSERT_EQ(hipMemcpyAsync(pinned_, dev_, n, hipMemcpyDeviceToHost, stream_), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, static_cast<ssize_t>(n));
    EXPECT_EQ(hf_test_pattern_check(pinned_, n, 0, kSeed), -1);
}

TEST_F(AsyncTest, HundredsOfOperationsQueuedOnHeldStreams)
{
    /*
     * More than one pool slab (256) of operation records in flight at once, on the host runtime.
     * A real runtime's queues are finite: each operation is two stream commands, and on the H200
     * CUDA's launches blocked once 224 operations waited behind held streams, however many
     * streams they were spread over. There the count stays below that; the slab logic does not
     * depend on the runtime.
     */
    const char *runtime = getenv("HIPFILE_GPU_RUNTIME");
    const int count = runtime != nullptr && strcmp(runtime, "cuda") == 0 ? 192 : 300;
    const int lanes = 4;
    const size_t piece = 4096;
    std::vector<Op> ops(count);
    std::vector<hipStream_t> streams{stream_};
    for (int l = 1; l < lanes; l++) {
        hipStream_t s = nullptr;
        ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
        streams.push_back(s);
    }
    std::atomic<int> submitted{0};
    std::atomic<bool> watchdog_fired{false};
    std::atomic<int> stalled_at{-1};
    {
        StreamGate gate;
        for (hipStream_t s : streams)
            gate.Hold(s);
        /* A submission that blocks while the streams are held would never end: open them. */
        std::thread watchdog([&] {
            auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
            while (submitted.load() < count && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (submitted.load() < count) {
                stalled_at = submitted.load();
                watchdog_fired = true;
                gate.Open();
            }
        });
        for (int i = 0; i < count; i++) {
            ops[i].size = piece;
            ops[i].file_offset = static_cast<hoff_t>(i * piece);
            ops[i].buffer_offset = ops[i].file_offset;
            EXPECT_EQ(Read(ops[i], streams[i % lanes]).err, hipFileSuccess);
            submitted++;
        }
        watchdog.join();
        EXPECT_FALSE(watchdog_fired.load()) << "submission blocked with the streams held, after "
                                            << stalled_at.load() << " operations";
        gate.Open();
        for (hipStream_t s : streams)
            ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    }
    for (int l = 1; l < lanes; l++)
        EXPECT_EQ(hipStreamDestroy(streams[l]), hipSuccess);
    for (int i = 0; i < count; i++)
        EXPECT_EQ(ops[i].bytes, static_cast<ssize_t>(piece)) << "operation " << i;
    EXPECT_TRUE(DeviceHoldsFile(0, 0, count * piece));
}

/* The record pool pins more memory while streams wait on its words: that must not wait for them. */
TEST_F(AsyncTest, PinningMemoryWhileAStreamIsHeldDoesNotWaitForIt)
{
    StreamGate gate;
    gate.Hold(stream_);
    std::atomic<bool> done{false}, fired{false};
    std::thread watchdog([&] {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!done.load() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!done.load()) {
            fired = true;
            gate.Open();
        }
    });
    void *p = nullptr;
    EXPECT_EQ(hipHostMalloc(&p, 16384, 0), hipSuccess);
    done = true;
    watchdog.join();
    EXPECT_FALSE(fired.load()) << "hipHostMalloc waited for the held stream";
    gate.Open();
    EXPECT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    (void)hipHostFree(p);
}

TEST_F(AsyncTest, DeregisterWithOperationsInFlightKeepsTheirFixedValues)
{
    ASSERT_EQ(hipFileStreamRegister(stream_, HIPFILE_STREAM_FIXED_FILE_OFFSET).err, hipFileSuccess);
    Op op;
    op.size = 4096;
    op.file_offset = 8192;
    StreamGate gate;
    gate.Hold(stream_);
    ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
    /* Returns at once: the operation took what it needs from the registration at submission. */
    EXPECT_EQ(hipFileStreamDeregister(stream_).err, hipFileSuccess);
    op.file_offset = 0;
    gate.Open();
    ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    EXPECT_EQ(op.bytes, 4096);
    EXPECT_TRUE(DeviceHoldsFile(0, 8192, 4096));
    /* The stream may be registered again, and a later operation reads at execution again. */
    ASSERT_EQ(hipFileStreamRegister(stream_, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileStreamDeregister(stream_).err, hipFileSuccess);
}

TEST_F(AsyncTest, StreamDestroyedWhileRegisteredWithWorkQueued)
{
    hipStream_t doomed = nullptr;
    ASSERT_EQ(hipStreamCreate(&doomed), hipSuccess);
    ASSERT_EQ(hipFileStreamRegister(doomed, HIPFILE_STREAM_FIXED_FILE_SIZE).err, hipFileSuccess);
    Op op;
    op.size = 4096;
    {
        StreamGate gate;
        gate.Hold(doomed);
        ASSERT_EQ(Read(op, doomed).err, hipFileSuccess);
        /* Destruction does not wait; the work already queued still runs. */
        ASSERT_EQ(hipStreamDestroy(doomed), hipSuccess);
        gate.Open();
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (__atomic_load_n(&op.bytes, __ATOMIC_ACQUIRE) == 0 &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(op.bytes, 4096);
    /* The registration outlives the stream until it is removed; nothing touches the handle. */
    EXPECT_EQ(hipFileStreamDeregister(doomed).err, hipFileSuccess);
}

TEST_F(AsyncTest, OperationReachedAfterTheLastCloseFailsAndTheStreamGoesOn)
{
    Op op;
    op.size = 4096;
    {
        StreamGate gate;
        gate.Hold(stream_);
        ASSERT_EQ(Read(op, stream_).err, hipFileSuccess);
        ASSERT_EQ(hipFileDriverClose().err, hipFileSuccess);
        ASSERT_EQ(hipFileUseCount(), 0);
        gate.Open();
        ASSERT_EQ(hipStreamSynchronize(stream_), hipSuccess);
    }
    /* As a synchronous read with the driver closed: -1 with EINVAL, delivered as -EINVAL. */
    EXPECT_EQ(op.bytes, -EINVAL);
    ASSERT_EQ(hipMemcpyAsync(pinned_, dev_, 16, hipMemcpyDeviceToHost, stream_), hipSuccess);
    EXPECT_EQ(hipStreamSynchronize(stream_), hipSuccess);
}

/*
 * Throughput of N streams each reading the same cached file against N threads each calling
 * hipFileRead, in one run. A measurement, not a timed test: it runs only when
 * HIPFILE_TEST_ASYNC_BENCH_MIB gives the size each stream reads, and it prints both rates.
 */
TEST_F(AsyncTest, BenchStreamsAgainstSyncReads)
{
    const char *mib_text = getenv("HIPFILE_TEST_ASYNC_BENCH_MIB");
    if (mib_text == nullptr)
        GTEST_SKIP() << "set HIPFILE_TEST_ASYNC_BENCH_MIB to measure";
    const size_t size = static_cast<size_t>(atol(mib_text)) << 20;
    const int n = getenv("HIPFILE_TEST_ASYNC_BENCH_STREAMS") != nullptr
                      ? atoi(getenv("HIPFILE_TEST_ASYNC_BENCH_STREAMS"))
                      : 8;
    const int rounds = 3;
    std::string path = ScratchPath("bench");
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), size, 5), 0);
    int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = Register(fd);
    std::vector<void *> bufs(n);
    std::vector<hipStream_t> streams(n);
    for (int i = 0; i < n; i++) {
        ASSERT_EQ(hipMalloc(&bufs[i], size), hipSuccess);
        ASSERT_EQ(hipStreamCreate(&streams[i]), hipSuccess);
    }
    ASSERT_EQ(hipFileRead(fh, bufs[0], size, 0, 0), static_cast<ssize_t>(size)); /* warm */
    double best_sync = 0, best_async = 0;
    for (int r = 0; r < rounds; r++) {
        auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> threads;
        std::vector<ssize_t> got(n);
        for (int i = 0; i < n; i++)
            threads.emplace_back([&, i] { got[i] = hipFileRead(fh, bufs[i], size, 0, 0); });
        for (auto &t : threads)
            t.join();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (int i = 0; i < n; i++)
            EXPECT_EQ(got[i], static_cast<ssize_t>(size));
        best_sync = std::max(best_sync, n * size / s / 1e9);

        std::vector<Op> ops(n);
        t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; i++) {
            ops[i].size = size;
            ASSERT_EQ(hipFileReadAsync(fh, bufs[i], &ops[i].size, &ops[i].file_offset,
                                       &ops[i].buffer_offset, &ops[i].bytes, streams[i])
                          .err,
                      hipFileSuccess);
        }
        for (auto st : streams)
            ASSERT_EQ(hipStreamSynchronize(st), hipSuccess);
        s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (int i = 0; i < n; i++)
            EXPECT_EQ(ops[i].bytes, static_cast<ssize_t>(size));
        best_async = std::max(best_async, n * size / s / 1e9);
    }
    printf("bench: %d x %zu MiB: sync threads %.2f GB/s, async streams %.2f GB/s (%.0f%%)\n", n,
           size >> 20, best_sync, best_async, 100.0 * best_async / best_sync);
    RecordProperty("sync_gbps", std::to_string(best_sync));
    RecordProperty("async_gbps", std::to_string(best_async));
    std::vector<uint8_t> check(1 << 20);
    ASSERT_EQ(hipMemcpy(check.data(), static_cast<char *>(bufs[n - 1]) + size - check.size(),
                        check.size(), hipMemcpyDeviceToHost),
              hipSuccess);
    EXPECT_EQ(hf_test_pattern_check(check.data(), check.size(), size - check.size(), 5), -1);
    for (int i = 0; i < n; i++) {
        (void)hipStreamDestroy(streams[i]);
        (void)hipFree(bufs[i]);
    }
    hipFileHandleDeregister(fh);
    close(fd);
}
