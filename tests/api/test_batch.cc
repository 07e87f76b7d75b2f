/*
 * Batch I/O (hipFileBatchIO*): entries move data on the I/O threads and report once; every bad
 * submission is refused before any I/O; cancel and destroy are safe with entries queued, running
 * or waited for. Entries are held "not yet started" deterministically by parking every I/O thread
 * on a gate task queued through the executor, which the suite links from the core archive.
 */
#include "api_test.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

extern "C" {
#include "services/executor.h"
}

namespace
{

constexpr unsigned kConfiguredMax = 1024;

/* The suite's own config: the in-tree plugins and a batch limit above AMD's default of 128. */
class BatchEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        char *conf = hf_test_path("batch.conf");
        std::string text =
            std::string("plugins = {\n  directory = \"") + HF_TEST_PLUGIN_DIR +
            "\";\n};\nproperties = {\n  max_batch_io_count = " + std::to_string(kConfiguredMax) +
            ";\n};\n";
        ASSERT_EQ(hf_test_write_text(conf, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", conf, 1);
        free(conf);
    }
};

const ::testing::Environment *const batch_env =
    ::testing::AddGlobalTestEnvironment(new BatchEnvironment);

/* Parks every I/O thread until opened, so entries submitted meanwhile stay pending. */
class WorkerGate
{
  public:
    WorkerGate()
    {
        workers_ = hf_executor_width() - 1;
        EXPECT_EQ(hf_executor_submit(workers_, Task, this), 0);
        while (arrived_.load() < workers_)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    ~WorkerGate()
    {
        Open();
        while (left_.load() < workers_)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
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
        g->arrived_++;
        {
            std::unique_lock<std::mutex> lock(g->m_);
            g->cv_.wait(lock, [g] { return g->open_; });
        }
        g->left_++; /* the last touch of *g */
    }
    unsigned workers_;
    std::mutex m_;
    std::condition_variable cv_;
    bool open_ = false;
    std::atomic<unsigned> arrived_{0}, left_{0};
};

void *Cookie(uintptr_t n)
{
    return reinterpret_cast<void *>(n);
}

hipFileStatus_t StatusOf(const hipFileIOEvents_t &ev)
{
    return ev.status;
}

ssize_t RetOf(const hipFileIOEvents_t &ev)
{
    return static_cast<ssize_t>(ev.ret);
}

timespec Timeout(long sec, long nsec)
{
    timespec t;
    t.tv_sec = sec;
    t.tv_nsec = nsec;
    return t;
}

} // namespace

class BatchTest : public ApiTest
{
  protected:
    static constexpr size_t kFileSize = 8 << 20;
    static constexpr size_t kOutSize = 1 << 20;
    static constexpr size_t kDevSize = 8 << 20;
    static constexpr uint32_t kFileSeed = 7, kOutSeed = 99, kDevSeed = 5;

    void SetUp() override
    {
        ApiTest::SetUp();
        path = ScratchPath("data");
        out_path = ScratchPath("out");
        ro_path = ScratchPath("ro");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), kFileSize, kFileSeed), 0);
        ASSERT_EQ(hf_test_pattern_file(out_path.c_str(), kOutSize, kOutSeed), 0);
        ASSERT_EQ(hf_test_pattern_file(ro_path.c_str(), kOutSize, kOutSeed), 0);
        fd = open(path.c_str(), O_RDWR);
        out_fd = open(out_path.c_str(), O_RDWR);
        ro_fd = open(ro_path.c_str(), O_RDONLY);
        ASSERT_GE(fd, 0);
        ASSERT_GE(out_fd, 0);
        ASSERT_GE(ro_fd, 0);
        fh = Register(fd);
        out_fh = Register(out_fd);
        ro_fh = Register(ro_fd);
        ASSERT_EQ(hipMalloc(&dev, kDevSize), hipSuccess);
        ASSERT_EQ(hipFileBufRegister(dev, kDevSize, 0).err, hipFileSuccess);
        FillDev(0, kDevSize, kDevSeed);
    }
    void TearDown() override
    {
        for (hipFileBatchHandle_t b : batches)
            hipFileBatchIODestroy(b);
        (void)hipFileBufDeregister(dev);
        hipFileHandleDeregister(fh);
        hipFileHandleDeregister(out_fh);
        hipFileHandleDeregister(ro_fh);
        close(fd);
        close(out_fd);
        close(ro_fd);
        (void)hipFree(dev);
        ApiTest::TearDown();
    }

    hipFileBatchHandle_t NewBatch(unsigned max_nr)
    {
        hipFileBatchHandle_t b = nullptr;
        EXPECT_EQ(hipFileBatchIOSetUp(&b, max_nr).err, hipFileSuccess);
        if (b != nullptr)
            batches.push_back(b);
        return b;
    }
    /* Destroy a batch made by NewBatch now (TearDown would otherwise do it). */
    void Destroy(hipFileBatchHandle_t b)
    {
        batches.erase(std::remove(batches.begin(), batches.end(), b), batches.end());
        hipFileBatchIODestroy(b);
    }

    hipFileIOParams_t Entry(hipFileOpcode_t op, hipFileHandle_t file, int64_t file_offset,
                            int64_t dev_offset, size_t size, uintptr_t cookie)
    {
        hipFileIOParams_t p;
        memset(&p, 0, sizeof(p));
        p.mode = hipFileBatch;
        p.opcode = op;
        p.fh = file;
        p.u.batch.devPtr_base = dev;
        p.u.batch.file_offset = file_offset;
        p.u.batch.devPtr_offset = dev_offset;
        p.u.batch.size = size;
        p.cookie = Cookie(cookie);
        return p;
    }

    /* Collect exactly @p n events, waiting as long as it takes. */
    static std::vector<hipFileIOEvents_t> WaitAll(hipFileBatchHandle_t b, unsigned n)
    {
        std::vector<hipFileIOEvents_t> all;
        while (all.size() < n) {
            std::vector<hipFileIOEvents_t> ev(n - all.size());
            unsigned nr = static_cast<unsigned>(ev.size());
            hipFileError_t e = hipFileBatchIOGetStatus(b, nr, &nr, ev.data(), nullptr);
            EXPECT_EQ(e.err, hipFileSuccess);
            if (e.err != hipFileSuccess)
                break;
            all.insert(all.end(), ev.begin(), ev.begin() + nr);
        }
        return all;
    }
    /* Whatever has finished right now. */
    static std::vector<hipFileIOEvents_t> Poll(hipFileBatchHandle_t b, unsigned capacity = 64)
    {
        std::vector<hipFileIOEvents_t> ev(capacity);
        unsigned nr = capacity;
        timespec zero = Timeout(0, 0);
        EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, &nr, ev.data(), &zero).err, hipFileSuccess);
        ev.resize(nr);
        return ev;
    }
    static std::map<uintptr_t, hipFileIOEvents_t> ByCookie(const std::vector<hipFileIOEvents_t> &ev)
    {
        std::map<uintptr_t, hipFileIOEvents_t> m;
        for (const auto &e : ev) {
            uintptr_t c = reinterpret_cast<uintptr_t>(e.cookie);
            EXPECT_EQ(m.count(c), 0u) << "cookie " << c << " reported twice";
            m[c] = e;
        }
        return m;
    }

    void FillDev(size_t offset, size_t size, uint32_t seed)
    {
        std::vector<uint8_t> host(size);
        hf_test_pattern_fill(host.data(), size, offset, seed);
        ASSERT_EQ(
            hipMemcpy(static_cast<char *>(dev) + offset, host.data(), size, hipMemcpyHostToDevice),
            hipSuccess);
    }
    /* Index of the first byte of dev[offset, offset+size) unlike the pattern, or -1. */
    int64_t CheckDev(size_t offset, size_t size, uint64_t pattern_offset, uint32_t seed)
    {
        std::vector<uint8_t> host(size);
        EXPECT_EQ(
            hipMemcpy(host.data(), static_cast<char *>(dev) + offset, size, hipMemcpyDeviceToHost),
            hipSuccess);
        return hf_test_pattern_check(host.data(), size, pattern_offset, seed);
    }
    static int64_t CheckFile(const std::string &p, uint64_t offset, size_t size,
                             uint64_t pattern_offset, uint32_t seed)
    {
        int f = open(p.c_str(), O_RDONLY);
        EXPECT_GE(f, 0);
        std::vector<uint8_t> host(size);
        EXPECT_EQ(pread(f, host.data(), size, static_cast<off_t>(offset)), (ssize_t)size);
        close(f);
        return hf_test_pattern_check(host.data(), size, pattern_offset, seed);
    }
    /* Nothing ran: the start of dev, where refused or canceled entries point, still holds its
     * pattern, and the output file its own. */
    void ExpectUntouched()
    {
        EXPECT_EQ(CheckDev(0, 1 << 20, 0, kDevSeed), -1) << "device buffer was written";
        EXPECT_EQ(CheckFile(out_path, 0, kOutSize, 0, kOutSeed), -1) << "output file was written";
    }

    std::string path, out_path, ro_path;
    int fd = -1, out_fd = -1, ro_fd = -1;
    hipFileHandle_t fh = nullptr, out_fh = nullptr, ro_fh = nullptr;
    void *dev = nullptr;
    std::vector<hipFileBatchHandle_t> batches;
};

/* ---- SetUp ----------------------------------------------------------------------------------- */

TEST_F(BatchTest, SetUpAcceptsOneToTheConfiguredMaximum)
{
    hipFileDriverProps_t props;
    ASSERT_EQ(hipFileDriverGetProperties(&props).err, hipFileSuccess);
    EXPECT_EQ(props.max_batch_io_count, kConfiguredMax);
    hipFileBatchHandle_t a = nullptr, b = nullptr;
    ASSERT_EQ(hipFileBatchIOSetUp(&a, 1).err, hipFileSuccess);
    ASSERT_EQ(hipFileBatchIOSetUp(&b, kConfiguredMax).err, hipFileSuccess);
    EXPECT_NE(a, b);
    hipFileBatchIODestroy(a);
    hipFileBatchIODestroy(b);
}

TEST_F(BatchTest, SetUpRefusesZeroOverTheMaximumAndNull)
{
    hipFileBatchHandle_t b = Cookie(0x1234);
    EXPECT_EQ(hipFileBatchIOSetUp(&b, 0).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileBatchIOSetUp(&b, kConfiguredMax + 1).err, hipFileInvalidValue);
    EXPECT_EQ(b, Cookie(0x1234)) << "the handle is written only on success";
    EXPECT_EQ(hipFileBatchIOSetUp(nullptr, 4).err, hipFileInvalidValue);
}

/* ---- Data and completions -------------------------------------------------------------------- */

TEST_F(BatchTest, MixedReadsAndWritesMoveTheirDataAndReportTheirCookies)
{
    hipFileBatchHandle_t b = NewBatch(16);
    FillDev(4 << 20, 1 << 20, kDevSeed + 1);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 6; i++) /* 6 reads of 512 KiB from scattered file offsets */
        io.push_back(Entry(hipFileBatchRead, fh, (int64_t)(i * 2 + 1) << 19, (int64_t)i << 19,
                           1 << 19, 100 + i));
    for (unsigned i = 0; i < 4; i++) /* 4 writes of 256 KiB to the other file */
        io.push_back(Entry(hipFileBatchWrite, out_fh, (int64_t)i << 18,
                           (4 << 20) + ((int64_t)i << 18), 1 << 18, 200 + i));
    ASSERT_EQ(hipFileBatchIOSubmit(b, (unsigned)io.size(), io.data(), 0).err, hipFileSuccess);
    auto ev = ByCookie(WaitAll(b, (unsigned)io.size()));
    ASSERT_EQ(ev.size(), io.size());
    for (const auto &p : io) {
        const hipFileIOEvents_t &e = ev[reinterpret_cast<uintptr_t>(p.cookie)];
        EXPECT_EQ(StatusOf(e), hipFileComplete);
        EXPECT_EQ(RetOf(e), (ssize_t)p.u.batch.size);
    }
    for (unsigned i = 0; i < 6; i++)
        EXPECT_EQ(CheckDev((size_t)i << 19, 1 << 19, (uint64_t)(i * 2 + 1) << 19, kFileSeed), -1)
            << "read " << i;
    EXPECT_EQ(CheckFile(out_path, 0, 1 << 20, 4 << 20, kDevSeed + 1), -1);
    EXPECT_EQ(Poll(b).size(), 0u) << "each completion is reported once";
}

TEST_F(BatchTest, EntriesThatSplitInsideAWorkerComplete)
{
    /* 4 MiB entries are split by the backend into pieces on the same I/O threads that run the
     * entries themselves. */
    hipFileBatchHandle_t b = NewBatch(4);
    std::vector<hipFileIOParams_t> io;
    io.push_back(Entry(hipFileBatchRead, fh, 0, 4 << 20, 4 << 20, 1));
    io.push_back(Entry(hipFileBatchRead, fh, 4 << 20, 0, 4 << 20, 2));
    ASSERT_EQ(hipFileBatchIOSubmit(b, 2, io.data(), 0).err, hipFileSuccess);
    auto ev = WaitAll(b, 2);
    ASSERT_EQ(ev.size(), 2u);
    for (const auto &e : ev) {
        EXPECT_EQ(StatusOf(e), hipFileComplete);
        EXPECT_EQ(RetOf(e), 4 << 20);
    }
    EXPECT_EQ(CheckDev(0, 4 << 20, 4 << 20, kFileSeed), -1);
    EXPECT_EQ(CheckDev(4 << 20, 4 << 20, 0, kFileSeed), -1);
}

TEST_F(BatchTest, AFailingEntryDoesNotAffectTheOthers)
{
    hipFileBatchHandle_t b = NewBatch(8);
    std::vector<hipFileIOParams_t> io;
    io.push_back(Entry(hipFileBatchRead, fh, 0, 0, 65536, 1));
    io.push_back(Entry(hipFileBatchWrite, ro_fh, 0, 0, 4096, 2)); /* fd opened read-only */
    io.push_back(Entry(hipFileBatchRead, fh, 65536, 65536, 65536, 3));
    io.push_back(Entry(hipFileBatchRead, fh, kFileSize, 1 << 20, 4096, 4));        /* at EOF */
    io.push_back(Entry(hipFileBatchRead, fh, kFileSize - 1000, 2 << 20, 4096, 5)); /* short */
    ASSERT_EQ(hipFileBatchIOSubmit(b, (unsigned)io.size(), io.data(), 0).err, hipFileSuccess);
    auto ev = ByCookie(WaitAll(b, (unsigned)io.size()));
    ASSERT_EQ(ev.size(), io.size());
    EXPECT_EQ(StatusOf(ev[1]), hipFileComplete);
    EXPECT_EQ(RetOf(ev[1]), 65536);
    EXPECT_EQ(StatusOf(ev[2]), hipFileFailed);
    EXPECT_EQ(RetOf(ev[2]), -EBADF) << "-errno, as the read/write return convention gives";
    EXPECT_EQ(StatusOf(ev[3]), hipFileComplete);
    EXPECT_EQ(RetOf(ev[3]), 65536);
    EXPECT_EQ(StatusOf(ev[4]), hipFileComplete);
    EXPECT_EQ(RetOf(ev[4]), 0);
    EXPECT_EQ(StatusOf(ev[5]), hipFileComplete);
    EXPECT_EQ(RetOf(ev[5]), 1000);
    EXPECT_EQ(CheckDev(0, 131072, 0, kFileSeed), -1);
    EXPECT_EQ(CheckFile(ro_path, 0, kOutSize, 0, kOutSeed), -1);
}

/* ---- Status transitions, min_nr and timeouts ------------------------------------------------- */

TEST_F(BatchTest, PendingEntriesAreNotReportedUntilTheyFinish)
{
    hipFileBatchHandle_t b = NewBatch(8);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 3; i++)
        io.push_back(Entry(hipFileBatchRead, fh, (int64_t)i << 16, (int64_t)i << 16, 65536, i));
    {
        WorkerGate gate;
        ASSERT_EQ(hipFileBatchIOSubmit(b, 3, io.data(), 0).err, hipFileSuccess);
        EXPECT_EQ(Poll(b).size(), 0u) << "pending entries have no event yet";
        ExpectUntouched();
    }
    auto ev = WaitAll(b, 3);
    ASSERT_EQ(ev.size(), 3u);
    for (const auto &e : ev)
        EXPECT_EQ(StatusOf(e), hipFileComplete);
    EXPECT_EQ(CheckDev(0, 3 << 16, 0, kFileSeed), -1);
}

TEST_F(BatchTest, ShortTimeoutWithNothingFinishedReturnsNoEvents)
{
    hipFileBatchHandle_t b = NewBatch(4);
    hipFileIOParams_t p = Entry(hipFileBatchRead, fh, 0, 0, 4096, 1);
    WorkerGate gate;
    ASSERT_EQ(hipFileBatchIOSubmit(b, 1, &p, 0).err, hipFileSuccess);
    hipFileIOEvents_t ev[4];
    unsigned nr = 4;
    timespec t = Timeout(0, 30 * 1000 * 1000);
    auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(hipFileBatchIOGetStatus(b, 1, &nr, ev, &t).err, hipFileSuccess);
    auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(nr, 0u);
    EXPECT_GE(waited, std::chrono::milliseconds(29));
    EXPECT_LT(waited, std::chrono::seconds(10));
    gate.Open();
    EXPECT_EQ(WaitAll(b, 1).size(), 1u);
}

TEST_F(BatchTest, WaitingForeverReturnsOnceMinNrEntriesFinish)
{
    hipFileBatchHandle_t b = NewBatch(4);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 3; i++)
        io.push_back(Entry(hipFileBatchRead, fh, (int64_t)i << 12, (int64_t)i << 12, 4096, i));
    WorkerGate gate;
    ASSERT_EQ(hipFileBatchIOSubmit(b, 3, io.data(), 0).err, hipFileSuccess);
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gate.Open();
    });
    hipFileIOEvents_t ev[4];
    unsigned nr = 4;
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 3, &nr, ev, nullptr).err, hipFileSuccess);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(45));
    opener.join();
    EXPECT_EQ(nr, 3u);
}

TEST_F(BatchTest, LongTimeoutReturnsAsSoonAsMinNrEntriesFinish)
{
    hipFileBatchHandle_t b = NewBatch(4);
    hipFileIOParams_t p = Entry(hipFileBatchRead, fh, 0, 0, 4096, 1);
    ASSERT_EQ(hipFileBatchIOSubmit(b, 1, &p, 0).err, hipFileSuccess);
    hipFileIOEvents_t ev[4];
    unsigned nr = 4;
    timespec t = Timeout(60, 0);
    auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(hipFileBatchIOGetStatus(b, 1, &nr, ev, &t).err, hipFileSuccess);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    EXPECT_EQ(nr, 1u);
}

TEST_F(BatchTest, MinNrIsCappedAtTheEntriesOutstanding)
{
    hipFileBatchHandle_t b = NewBatch(8);
    hipFileIOEvents_t ev[8];
    unsigned nr = 8;
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 5, &nr, ev, nullptr).err, hipFileSuccess)
        << "nothing outstanding: no wait";
    EXPECT_EQ(nr, 0u);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 2; i++)
        io.push_back(Entry(hipFileBatchRead, fh, 0, (int64_t)i << 12, 4096, i));
    ASSERT_EQ(hipFileBatchIOSubmit(b, 2, io.data(), 0).err, hipFileSuccess);
    nr = 8;
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 8, &nr, ev, nullptr).err, hipFileSuccess);
    EXPECT_EQ(nr, 2u);
}

TEST_F(BatchTest, PartialCollectionReportsTheRestLater)
{
    hipFileBatchHandle_t b = NewBatch(8);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 5; i++)
        io.push_back(Entry(hipFileBatchRead, fh, (int64_t)i << 12, (int64_t)i << 12, 4096, i));
    ASSERT_EQ(hipFileBatchIOSubmit(b, 5, io.data(), 0).err, hipFileSuccess);
    std::vector<hipFileIOEvents_t> all;
    hipFileIOEvents_t ev[2];
    unsigned nr = 2;
    ASSERT_EQ(hipFileBatchIOGetStatus(b, 2, &nr, ev, nullptr).err, hipFileSuccess);
    ASSERT_EQ(nr, 2u) << "*nr caps what one call returns";
    all.insert(all.end(), ev, ev + 2);
    auto rest = WaitAll(b, 3);
    all.insert(all.end(), rest.begin(), rest.end());
    auto by = ByCookie(all);
    EXPECT_EQ(by.size(), 5u);
    EXPECT_EQ(Poll(b).size(), 0u);
}

TEST_F(BatchTest, SomeFinishedOthersPendingReportsOnlyTheFinished)
{
    hipFileBatchHandle_t b = NewBatch(8);
    hipFileIOParams_t first[2] = {Entry(hipFileBatchRead, fh, 0, 0, 4096, 1),
                                  Entry(hipFileBatchRead, fh, 4096, 4096, 4096, 2)};
    ASSERT_EQ(hipFileBatchIOSubmit(b, 2, first, 0).err, hipFileSuccess);
    /* Cancel returns with nothing in flight: both are finished (or canceled), none collected. */
    ASSERT_EQ(hipFileBatchIOCancel(b).err, hipFileSuccess);
    WorkerGate gate;
    hipFileIOParams_t second[2] = {Entry(hipFileBatchRead, fh, 0, 8192, 4096, 3),
                                   Entry(hipFileBatchRead, fh, 0, 12288, 4096, 4)};
    ASSERT_EQ(hipFileBatchIOSubmit(b, 2, second, 0).err, hipFileSuccess);
    hipFileIOEvents_t ev[8];
    unsigned nr = 8;
    timespec t = Timeout(0, 20 * 1000 * 1000);
    ASSERT_EQ(hipFileBatchIOGetStatus(b, 4, &nr, ev, &t).err, hipFileSuccess);
    ASSERT_EQ(nr, 2u) << "the timeout ends the wait with what has finished";
    auto by = ByCookie(std::vector<hipFileIOEvents_t>(ev, ev + nr));
    EXPECT_EQ(by.count(1), 1u);
    EXPECT_EQ(by.count(2), 1u);
    gate.Open();
    auto rest = ByCookie(WaitAll(b, 2));
    EXPECT_EQ(rest.count(3), 1u);
    EXPECT_EQ(rest.count(4), 1u);
}

/* ---- Invalid submissions: refused before any I/O --------------------------------------------- */

TEST_F(BatchTest, InvalidEntryRefusesTheWholeSubmission)
{
    struct Case {
        const char *name;
        void (*spoil)(hipFileIOParams_t &p, void *dev);
    };
    const Case cases[] = {
        {"bad opcode", [](hipFileIOParams_t &p, void *) { p.opcode = (hipFileOpcode_t)2; }},
        {"bad mode", [](hipFileIOParams_t &p, void *) { p.mode = (hipFileBatchMode_t)0; }},
        {"unregistered handle", [](hipFileIOParams_t &p, void *) { p.fh = Cookie(0xdead0000); }},
        {"null handle", [](hipFileIOParams_t &p, void *) { p.fh = nullptr; }},
        {"negative file offset", [](hipFileIOParams_t &p, void *) { p.u.batch.file_offset = -1; }},
        {"negative buffer offset",
         [](hipFileIOParams_t &p, void *) { p.u.batch.devPtr_offset = -4096; }},
        {"size past the buffer",
         [](hipFileIOParams_t &p, void *) { p.u.batch.size = kDevSize + 1; }},
        {"offset past the buffer",
         [](hipFileIOParams_t &p, void *) { p.u.batch.devPtr_offset = kDevSize; }},
        {"null buffer", [](hipFileIOParams_t &p, void *) { p.u.batch.devPtr_base = nullptr; }},
        {"host memory",
         [](hipFileIOParams_t &p, void *) {
             static char host[8192];
             p.u.batch.devPtr_base = host;
             p.u.batch.devPtr_offset = 0;
         }},
    };
    hipFileBatchHandle_t b = NewBatch(8);
    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        /* A valid write and read first: neither may run. */
        hipFileIOParams_t io[3] = {Entry(hipFileBatchWrite, out_fh, 0, 0, 65536, 1),
                                   Entry(hipFileBatchRead, fh, 0, 0, 65536, 2),
                                   Entry(hipFileBatchRead, fh, 4096, 65536, 4096, 3)};
        c.spoil(io[2], dev);
        EXPECT_EQ(hipFileBatchIOSubmit(b, 3, io, 0).err, hipFileInvalidValue);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        EXPECT_EQ(Poll(b).size(), 0u);
        ExpectUntouched();
    }
    /* The refused submissions took no room and left no references behind. */
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 8; i++)
        io.push_back(Entry(hipFileBatchRead, fh, 0, (int64_t)i << 12, 4096, i));
    EXPECT_EQ(hipFileBatchIOSubmit(b, 8, io.data(), 0).err, hipFileSuccess);
    EXPECT_EQ(WaitAll(b, 8).size(), 8u);
}

TEST_F(BatchTest, NullEntriesAreInvalidUnlessThereAreNone)
{
    hipFileBatchHandle_t b = NewBatch(4);
    EXPECT_EQ(hipFileBatchIOSubmit(b, 1, nullptr, 0).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileBatchIOSubmit(b, 0, nullptr, 0).err, hipFileSuccess);
    EXPECT_EQ(Poll(b).size(), 0u);
}

TEST_F(BatchTest, MoreEntriesThanFreeRoomIsBatchFull)
{
    hipFileBatchHandle_t b = NewBatch(4);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 5; i++)
        io.push_back(Entry(hipFileBatchWrite, out_fh, (int64_t)i << 12, (int64_t)i << 12, 4096, i));
    EXPECT_EQ(hipFileBatchIOSubmit(b, 5, io.data(), 0).err, hipFileBatchFull);
    ExpectUntouched();
    std::vector<hipFileIOParams_t> reads;
    for (unsigned i = 0; i < 3; i++)
        reads.push_back(Entry(hipFileBatchRead, fh, 0, (1 << 20) + ((int64_t)i << 12), 4096, i));
    ASSERT_EQ(hipFileBatchIOSubmit(b, 3, reads.data(), 0).err, hipFileSuccess);
    /* Cancel returns with nothing in flight: all are finished (or canceled), none collected. */
    ASSERT_EQ(hipFileBatchIOCancel(b).err, hipFileSuccess);
    EXPECT_EQ(hipFileBatchIOSubmit(b, 2, io.data(), 0).err, hipFileBatchFull)
        << "finished events not yet collected still take room";
    EXPECT_EQ(CheckFile(out_path, 0, kOutSize, 0, kOutSeed), -1);
    EXPECT_EQ(WaitAll(b, 3).size(), 3u);
    EXPECT_EQ(hipFileBatchIOSubmit(b, 4, io.data(), 0).err, hipFileSuccess);
    EXPECT_EQ(WaitAll(b, 4).size(), 4u);
}

TEST_F(BatchTest, UnknownBatchHandleIsInvalidValue)
{
    hipFileBatchHandle_t b = NewBatch(4);
    Destroy(b);
    hipFileIOParams_t p = Entry(hipFileBatchWrite, out_fh, 0, 0, 4096, 1);
    hipFileIOEvents_t ev[1];
    unsigned nr = 1;
    for (hipFileBatchHandle_t bad :
         {b, static_cast<hipFileBatchHandle_t>(nullptr), static_cast<hipFileBatchHandle_t>(&p)}) {
        EXPECT_EQ(hipFileBatchIOSubmit(bad, 1, &p, 0).err, hipFileInvalidValue);
        EXPECT_EQ(hipFileBatchIOGetStatus(bad, 0, &nr, ev, nullptr).err, hipFileInvalidValue);
        EXPECT_EQ(hipFileBatchIOCancel(bad).err, hipFileInvalidValue);
        hipFileBatchIODestroy(bad); /* ignored */
    }
    ExpectUntouched();
}

TEST_F(BatchTest, GetStatusRefusesBadArguments)
{
    hipFileBatchHandle_t b = NewBatch(4);
    hipFileIOEvents_t ev[4];
    unsigned nr = 4;
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, &nr, nullptr, nullptr).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, nullptr, ev, nullptr).err, hipFileInvalidValue);
    nr = 0;
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, &nr, ev, nullptr).err, hipFileInvalidValue);
    nr = 2;
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 3, &nr, ev, nullptr).err, hipFileInvalidValue);
    EXPECT_EQ(nr, 2u) << "*nr is written only on success";
    for (timespec t : {Timeout(-1, 0), Timeout(0, -1), Timeout(0, 1000000000L)}) {
        nr = 4;
        EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, &nr, ev, &t).err, hipFileInvalidValue)
            << t.tv_sec << "s " << t.tv_nsec << "ns";
    }
}

/* ---- Cancel ---------------------------------------------------------------------------------- */

TEST_F(BatchTest, CancelReportsEntriesNotStartedAsCanceled)
{
    hipFileBatchHandle_t b = NewBatch(8);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 5; i++)
        io.push_back(Entry(i % 2 ? hipFileBatchWrite : hipFileBatchRead, i % 2 ? out_fh : fh,
                           (int64_t)i << 12, (int64_t)i << 12, 4096, 10 + i));
    {
        WorkerGate gate;
        ASSERT_EQ(hipFileBatchIOSubmit(b, 5, io.data(), 0).err, hipFileSuccess);
        ASSERT_EQ(hipFileBatchIOCancel(b).err, hipFileSuccess);
        auto ev = ByCookie(Poll(b));
        ASSERT_EQ(ev.size(), 5u) << "canceled entries are reported at once";
        for (auto &[cookie, e] : ev) {
            EXPECT_GE(cookie, 10u);
            EXPECT_EQ(StatusOf(e), hipFileCanceled);
            EXPECT_EQ(RetOf(e), 0);
        }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(Poll(b).size(), 0u);
    ExpectUntouched();
}

TEST_F(BatchTest, CancelWaitsForRunningEntries)
{
    hipFileBatchHandle_t b = NewBatch(16);
    for (int round = 0; round < 20; round++) {
        std::vector<hipFileIOParams_t> io;
        for (unsigned i = 0; i < 16; i++)
            io.push_back(
                Entry(hipFileBatchRead, fh, (int64_t)i << 19, (int64_t)i << 19, 1 << 19, i));
        ASSERT_EQ(hipFileBatchIOSubmit(b, 16, io.data(), 0).err, hipFileSuccess);
        ASSERT_EQ(hipFileBatchIOCancel(b).err, hipFileSuccess);
        auto ev = ByCookie(Poll(b));
        ASSERT_EQ(ev.size(), 16u) << "after Cancel nothing is left running";
        for (auto &[cookie, e] : ev) {
            if (StatusOf(e) == hipFileComplete)
                EXPECT_EQ(RetOf(e), 1 << 19);
            else
                EXPECT_EQ(StatusOf(e), hipFileCanceled);
        }
    }
}

TEST_F(BatchTest, CancelWakesAWaiter)
{
    hipFileBatchHandle_t b = NewBatch(4);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 3; i++)
        io.push_back(Entry(hipFileBatchRead, fh, 0, (int64_t)i << 12, 4096, i));
    WorkerGate gate;
    ASSERT_EQ(hipFileBatchIOSubmit(b, 3, io.data(), 0).err, hipFileSuccess);
    std::vector<hipFileIOEvents_t> got;
    std::thread waiter([&] { got = WaitAll(b, 3); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(hipFileBatchIOCancel(b).err, hipFileSuccess);
    waiter.join();
    ASSERT_EQ(got.size(), 3u);
    for (const auto &e : got)
        EXPECT_EQ(StatusOf(e), hipFileCanceled);
}

TEST_F(BatchTest, ResubmittingAfterCompletionAndCancelWorks)
{
    hipFileBatchHandle_t b = NewBatch(4);
    for (int round = 0; round < 3; round++) {
        std::vector<hipFileIOParams_t> io;
        for (unsigned i = 0; i < 4; i++)
            io.push_back(Entry(hipFileBatchRead, fh, (int64_t)(round * 4 + i) << 12,
                               (int64_t)i << 12, 4096, round * 4 + i));
        {
            WorkerGate gate;
            ASSERT_EQ(hipFileBatchIOSubmit(b, 4, io.data(), 0).err, hipFileSuccess);
            ASSERT_EQ(hipFileBatchIOCancel(b).err, hipFileSuccess);
            EXPECT_EQ(WaitAll(b, 4).size(), 4u);
        }
        ASSERT_EQ(hipFileBatchIOSubmit(b, 4, io.data(), 0).err, hipFileSuccess);
        auto ev = ByCookie(WaitAll(b, 4));
        for (unsigned i = 0; i < 4; i++) {
            EXPECT_EQ(StatusOf(ev[round * 4 + i]), hipFileComplete);
            EXPECT_EQ(CheckDev((size_t)i << 12, 4096, (uint64_t)(round * 4 + i) << 12, kFileSeed),
                      -1);
        }
    }
}

/* ---- References, destroy, driver close ------------------------------------------------------- */

TEST_F(BatchTest, OutstandingEntriesKeepTheirBufferAndFile)
{
    hipFileBatchHandle_t b = NewBatch(4);
    hipFileIOParams_t p = Entry(hipFileBatchRead, fh, 0, 0, 4096, 1);
    {
        WorkerGate gate;
        ASSERT_EQ(hipFileBatchIOSubmit(b, 1, &p, 0).err, hipFileSuccess);
        EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileInternalError) << "entry outstanding";
        /* Takes effect at once for new I/O; the outstanding entry still reads its file. */
        hipFileHandleDeregister(fh);
        EXPECT_EQ(hipFileRead(fh, dev, 4096, 0, 0),
                  -static_cast<ssize_t>(hipFileHandleNotRegistered));
        /* The caller may close its descriptor now: the entry reads through the registration's. */
        ASSERT_EQ(close(fd), 0);
        fd = open(out_path.c_str(), O_RDWR);
        ASSERT_GE(fd, 0);
    }
    auto ev = WaitAll(b, 1);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].status, hipFileComplete);
    EXPECT_EQ(ev[0].ret, 4096u);
    EXPECT_EQ(CheckDev(0, 4096, 0, kFileSeed), -1) << "the entry read the file it was given";
    /* The descriptor number, now another file, registers; the old handle stays refused. */
    fh = Register(fd);
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess) << "reported entries hold nothing";
    ASSERT_EQ(hipFileBufRegister(dev, kDevSize, 0).err, hipFileSuccess);
}

TEST_F(BatchTest, DestroyWithEntriesPendingCancelsThem)
{
    hipFileBatchHandle_t b = NewBatch(8);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 8; i++)
        io.push_back(Entry(hipFileBatchWrite, out_fh, (int64_t)i << 12, (int64_t)i << 12, 4096, i));
    {
        WorkerGate gate;
        ASSERT_EQ(hipFileBatchIOSubmit(b, 8, io.data(), 0).err, hipFileSuccess);
        Destroy(b); /* returns with the workers still held: nothing of b was running */
        hipFileIOEvents_t ev[1];
        unsigned nr = 1;
        EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, &nr, ev, nullptr).err, hipFileInvalidValue);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ExpectUntouched();
    EXPECT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess) << "no reference left behind";
    ASSERT_EQ(hipFileBufRegister(dev, kDevSize, 0).err, hipFileSuccess);
}

TEST_F(BatchTest, DestroyDuringIoWaitsForRunningEntries)
{
    for (int round = 0; round < 20; round++) {
        hipFileBatchHandle_t b = NewBatch(64);
        std::vector<hipFileIOParams_t> io;
        /* Reads of 128 KiB and writes of 4 KiB, each to a region of its own. */
        for (unsigned i = 0; i < 64; i++)
            io.push_back(Entry(i % 4 ? hipFileBatchRead : hipFileBatchWrite, i % 4 ? fh : out_fh,
                               i % 4 ? (int64_t)i << 17 : (int64_t)i << 12, (int64_t)i << 17,
                               i % 4 ? 1 << 17 : 4096, i));
        ASSERT_EQ(hipFileBatchIOSubmit(b, 64, io.data(), 0).err, hipFileSuccess);
        if (round % 2)
            std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
        Destroy(b);
        /* Destroy returned: no entry of b holds the buffer any more. */
        ASSERT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess) << "round " << round;
        ASSERT_EQ(hipFileBufRegister(dev, kDevSize, 0).err, hipFileSuccess);
    }
}

TEST_F(BatchTest, DestroyWhileAnotherThreadWaitsWakesItWithWhatFinished)
{
    hipFileBatchHandle_t b = NewBatch(8);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 4; i++)
        io.push_back(Entry(hipFileBatchRead, fh, 0, (int64_t)i << 12, 4096, i));
    WorkerGate gate;
    ASSERT_EQ(hipFileBatchIOSubmit(b, 4, io.data(), 0).err, hipFileSuccess);
    hipFileError_t waited = {};
    unsigned nr = 8;
    hipFileIOEvents_t ev[8];
    std::thread waiter([&] { waited = hipFileBatchIOGetStatus(b, 4, &nr, ev, nullptr); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Destroy(b);
    waiter.join();
    EXPECT_EQ(waited.err, hipFileSuccess);
    ASSERT_EQ(nr, 4u);
    for (unsigned i = 0; i < nr; i++)
        EXPECT_EQ(StatusOf(ev[i]), hipFileCanceled);
}

TEST_F(BatchTest, DriverCloseDropsBatches)
{
    hipFileBatchHandle_t b = nullptr;
    ASSERT_EQ(hipFileBatchIOSetUp(&b, 8).err, hipFileSuccess);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < 8; i++)
        io.push_back(Entry(hipFileBatchWrite, out_fh, (int64_t)i << 12, (int64_t)i << 12, 4096, i));
    {
        WorkerGate gate;
        ASSERT_EQ(hipFileBatchIOSubmit(b, 8, io.data(), 0).err, hipFileSuccess);
        CloseDriverFully();
    }
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    hipFileIOEvents_t ev[1];
    unsigned nr = 1;
    EXPECT_EQ(hipFileBatchIOGetStatus(b, 0, &nr, ev, nullptr).err, hipFileInvalidValue);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(CheckFile(out_path, 0, kOutSize, 0, kOutSeed), -1);
}

/* ---- Concurrency and scale ------------------------------------------------------------------- */

TEST_F(BatchTest, ConcurrentGetStatusReportsEachCompletionOnce)
{
    constexpr unsigned n = kConfiguredMax;
    hipFileBatchHandle_t b = NewBatch(n);
    std::vector<hipFileIOParams_t> io;
    for (unsigned i = 0; i < n; i++)
        io.push_back(Entry(hipFileBatchRead, fh, (int64_t)i << 12, (int64_t)i << 12, 4096, i));
    std::atomic<unsigned> collected{0};
    std::vector<hipFileIOEvents_t> got[2];
    auto collect = [&](std::vector<hipFileIOEvents_t> *out) {
        timespec t = Timeout(0, 1000 * 1000);
        while (collected.load() < n) {
            hipFileIOEvents_t ev[16];
            unsigned nr = 16;
            if (hipFileBatchIOGetStatus(b, 1, &nr, ev, &t).err != hipFileSuccess)
                break;
            out->insert(out->end(), ev, ev + nr);
            collected += nr;
        }
    };
    std::thread t1(collect, &got[0]), t2(collect, &got[1]);
    ASSERT_EQ(hipFileBatchIOSubmit(b, n, io.data(), 0).err, hipFileSuccess);
    t1.join();
    t2.join();
    std::vector<hipFileIOEvents_t> all(got[0]);
    all.insert(all.end(), got[1].begin(), got[1].end());
    auto by = ByCookie(all);
    EXPECT_EQ(by.size(), n);
    EXPECT_EQ(collected.load(), n);
    EXPECT_EQ(CheckDev(0, (size_t)n << 12, 0, kFileSeed), -1);
}

TEST_F(BatchTest, ThousandRandomReadsWithAConfigAllowingThem)
{
    constexpr unsigned n = kConfiguredMax;
    constexpr size_t size = 8192; /* n * size = the device buffer */
    hipFileBatchHandle_t b = NewBatch(n);
    std::mt19937_64 rng(42);
    std::vector<hipFileIOParams_t> io;
    std::vector<int64_t> offsets;
    for (unsigned i = 0; i < n; i++) {
        int64_t off = (int64_t)(rng() % (kFileSize / size)) * (int64_t)size;
        offsets.push_back(off);
        io.push_back(Entry(hipFileBatchRead, fh, off, (int64_t)i * (int64_t)size, size, i));
    }
    ASSERT_EQ(hipFileBatchIOSubmit(b, n, io.data(), 0).err, hipFileSuccess);
    hipFileIOParams_t one = Entry(hipFileBatchRead, fh, 0, 0, 4096, n);
    EXPECT_EQ(hipFileBatchIOSubmit(b, 1, &one, 0).err, hipFileBatchFull);
    auto by = ByCookie(WaitAll(b, n));
    ASSERT_EQ(by.size(), n);
    for (unsigned i = 0; i < n; i++) {
        EXPECT_EQ(StatusOf(by[i]), hipFileComplete) << i;
        EXPECT_EQ(RetOf(by[i]), (ssize_t)size) << i;
    }
    for (unsigned i = 0; i < n; i++)
        ASSERT_EQ(CheckDev((size_t)i * size, size, (uint64_t)offsets[i], kFileSeed), -1) << i;
}
