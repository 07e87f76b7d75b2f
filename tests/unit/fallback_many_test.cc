// A batch's entries handed to the fallback together (submit_many): small staged reads of one
// device share one staging slot and overlap across entries, each entry gets its own result, and a
// failure in one entry leaves the others whole.
#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "fallback_fake_host.h"

namespace
{

using namespace fallback_test;

// Entries of @p size bytes at file offsets that jump about, each into its own part of @p b.
struct Entries {
    std::vector<hf_file_info> files;
    std::vector<hf_buf_info> bufs;
    std::vector<int> gpu_errors;
    std::vector<hf_io_request> reqs;
    std::vector<const hf_io_request *> ptrs;
    std::vector<int64_t> offsets;
};

class FallbackMany : public FallbackPlugin
{
  protected:
    void Build(Entries &e, int op, const File &f, Buffer &b, size_t count, size_t size,
               bool page_aligned = false)
    {
        e.files.resize(count);
        e.bufs.assign(count, b.Info());
        e.gpu_errors.assign(count, 0);
        e.reqs.resize(count);
        for (size_t i = 0; i < count; i++) {
            int64_t offset =
                static_cast<int64_t>(((i * 7) % count) * size + (page_aligned ? 0 : (i % 3) * 512));
            e.offsets.push_back(offset);
            e.reqs[i] = Request(op, f, &e.files[i], &e.bufs[i], static_cast<int64_t>(i * size),
                                size, offset, &e.gpu_errors[i]);
        }
        for (const hf_io_request &r : e.reqs)
            e.ptrs.push_back(&r);
    }
    std::vector<ssize_t> Submit(Entries &e)
    {
        std::vector<ssize_t> results(e.ptrs.size(), -12345);
        ops_->submit_many(backend_, e.ptrs.data(), static_cast<unsigned>(e.ptrs.size()),
                          results.data());
        return results;
    }
};

TEST_F(FallbackMany, TheFallbackOffersSubmitMany)
{
    Init();
    ASSERT_NE(ops_->submit_many, nullptr);
    EXPECT_GE(ops_->struct_size, offsetof(hf_backend_ops, submit_many) + sizeof(void *));
}

TEST_F(FallbackMany, SmallStagedReadsShareOneSlotAndEachArrivesWhole)
{
    InitSmallPool(64, 4);
    const size_t count = 12, size = 48 * kKiB;
    File f = OpenPatternFile("many-reads", (count + 1) * size, 21);
    Buffer b(count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size);
    std::vector<ssize_t> results = Submit(e);
    for (size_t i = 0; i < count; i++) {
        ASSERT_EQ(results[i], static_cast<ssize_t>(size)) << "entry " << i;
        EXPECT_EQ(hf_test_pattern_check(b.data() + i * size, size, e.offsets[i], 21), -1)
            << "entry " << i;
    }
    EXPECT_EQ(fake_->alloc_calls, 2) << "one slot for every entry";
    EXPECT_EQ(fake_->parallel_runs, 0) << "one lane on the calling thread";
    EXPECT_EQ(fake_->copies_without_pinned, 0);
}

TEST_F(FallbackMany, EntriesThatContinueEachOtherInMemoryGoToTheDeviceInOneCopy)
{
    InitSmallPool(64, 4);
    const size_t count = 8, size = 16 * kKiB;
    File f = OpenPatternFile("many-gather", (count + 1) * size, 25);
    Buffer b(count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size, true);
    std::vector<ssize_t> results = Submit(e);
    for (size_t i = 0; i < count; i++) {
        ASSERT_EQ(results[i], static_cast<ssize_t>(size)) << "entry " << i;
        EXPECT_EQ(hf_test_pattern_check(b.data() + i * size, size, e.offsets[i], 25), -1)
            << "entry " << i;
    }
    /* 64 KiB buffers hold four 16 KiB entries: two copies for eight entries. */
    EXPECT_EQ(fake_->copy_sizes, std::vector<size_t>({64 * kKiB, 64 * kKiB}));
}

TEST_F(FallbackMany, EntriesApartInMemoryOrOffAlignmentAreCopiedAlone)
{
    InitSmallPool(64, 4);
    const size_t count = 4, size = 16 * kKiB;
    File f = OpenPatternFile("many-apart", (count + 1) * size, 26);
    Buffer b(2 * count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size, true);
    for (size_t i = 0; i < count; i++)
        e.reqs[i].buf_offset = static_cast<int64_t>(2 * i * size); // a gap after each entry
    std::vector<ssize_t> results = Submit(e);
    for (size_t i = 0; i < count; i++) {
        ASSERT_EQ(results[i], static_cast<ssize_t>(size)) << "entry " << i;
        EXPECT_EQ(hf_test_pattern_check(b.data() + 2 * i * size, size, e.offsets[i], 26), -1);
    }
    EXPECT_EQ(fake_->copy_sizes.size(), count);

    Entries odd;
    Buffer c(count * size, kDevice);
    fake_->copy_sizes.clear();
    Build(odd, HF_IO_READ, f, c, count, size); // file offsets 512 bytes off the page grid
    results = Submit(odd);
    for (size_t i = 0; i < count; i++)
        ASSERT_EQ(results[i], static_cast<ssize_t>(size)) << "entry " << i;
    EXPECT_GT(fake_->copy_sizes.size(), 1u) << "a joining window keeps its file alignment";
}

TEST_F(FallbackMany, AShortEntryEndsAGatheredCopyAndTheRestStillArrive)
{
    InitSmallPool(64, 4);
    const size_t count = 4, size = 16 * kKiB;
    /* The file ends 100 bytes into its third 16 KiB block. */
    File f = OpenPatternFile("many-gather-eof", 2 * size + 100, 27);
    Buffer b(count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size, true);
    std::vector<ssize_t> results = Submit(e);
    for (size_t i = 0; i < count; i++) {
        int64_t left = static_cast<int64_t>(2 * size + 100) - e.offsets[i];
        ssize_t expected = left <= 0 ? 0 : std::min<ssize_t>(left, static_cast<ssize_t>(size));
        ASSERT_EQ(results[i], expected) << "entry " << i;
        if (expected > 0) {
            EXPECT_EQ(hf_test_pattern_check(b.data() + i * size, static_cast<size_t>(expected),
                                            e.offsets[i], 27),
                      -1)
                << "entry " << i;
        }
    }
}

TEST_F(FallbackMany, AFailingEntryLeavesTheOthersWhole)
{
    InitSmallPool(64, 4);
    const size_t count = 6, size = 16 * kKiB;
    File f = OpenPatternFile("many-fault", (count + 1) * size, 22);
    Buffer b(count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size);
    // Entry 2 reads from the fault's offset on: it fails, the rest do not.
    fake_->pread_faults.fault_offset = e.offsets[2];
    fake_->pread_faults.fault_errno = EIO;
    std::vector<ssize_t> results = Submit(e);
    for (size_t i = 0; i < count; i++) {
        bool holds_fault = e.offsets[i] <= e.offsets[2] &&
                           e.offsets[2] < e.offsets[i] + static_cast<int64_t>(size);
        if (i == 2) {
            EXPECT_EQ(results[i], -EIO);
        } else if (holds_fault) {
            EXPECT_EQ(results[i], e.offsets[2] - e.offsets[i]) << "entry " << i;
        } else {
            ASSERT_EQ(results[i], static_cast<ssize_t>(size)) << "entry " << i;
            EXPECT_EQ(hf_test_pattern_check(b.data() + i * size, size, e.offsets[i], 22), -1);
        }
    }
}

TEST_F(FallbackMany, EndOfFileShortensOnlyTheEntriesThatReachIt)
{
    InitSmallPool(64, 4);
    const size_t count = 4, size = 16 * kKiB;
    File f = OpenPatternFile("many-eof", 2 * size + 100, 23);
    Buffer b(count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size);
    std::vector<ssize_t> results = Submit(e);
    for (size_t i = 0; i < count; i++) {
        int64_t left = static_cast<int64_t>(2 * size + 100) - e.offsets[i];
        ssize_t expected = left <= 0 ? 0 : std::min<ssize_t>(left, static_cast<ssize_t>(size));
        EXPECT_EQ(results[i], expected) << "entry " << i;
    }
}

TEST_F(FallbackMany, AFailedCopyFailsThatEntryAndTheOnesTheLaneHadNotReached)
{
    InitSmallPool(64, 4);
    const size_t count = 5, size = 16 * kKiB;
    File f = OpenPatternFile("many-gpu", (count + 1) * size, 24);
    Buffer b(count * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, count, size);
    fake_->memcpy_fail_from = 2;
    std::vector<ssize_t> results = Submit(e);
    EXPECT_EQ(results[0], static_cast<ssize_t>(size));
    EXPECT_EQ(results[1], static_cast<ssize_t>(size));
    for (size_t i = 2; i < count; i++) {
        EXPECT_EQ(results[i], -HF_EGPU) << "entry " << i;
        EXPECT_NE(e.gpu_errors[i], 0) << "entry " << i;
    }
    fake_->memcpy_fail_from = -1;
    results = Submit(e);
    for (size_t i = 0; i < count; i++)
        EXPECT_EQ(results[i], static_cast<ssize_t>(size)) << "the pool is usable afterwards";
}

TEST_F(FallbackMany, BadEntriesGetTheirErrorAndWritesAndLargeReadsAreServedAlone)
{
    InitSplitting(16, 4, 32);
    const size_t size = 16 * kKiB;
    File f = OpenPatternFile("many-mixed", 64 * size, 25);
    Buffer b(8 * size, kDevice);
    Buffer big(4 * size, kDevice);
    Entries e;
    Build(e, HF_IO_READ, f, b, 4, size);
    hf_file_info wfile, bigfile;
    hf_buf_info wbuf = b.Info(), bigbuf = big.Info();
    int werr = 0, bigerr = 0;
    hf_test_pattern_fill(b.data() + 4 * size, size, 40 * size, 26);
    hf_io_request write = Request(HF_IO_WRITE, f, &wfile, &wbuf, static_cast<int64_t>(4 * size),
                                  size, static_cast<int64_t>(40 * size), &werr);
    hf_io_request large = Request(HF_IO_READ, f, &bigfile, &bigbuf, 0, 4 * size, 0, &bigerr);
    hf_io_request bad = e.reqs[1];
    bad.buf_offset = static_cast<int64_t>(b.length()); // runs past the buffer
    std::vector<const hf_io_request *> ptrs = {e.ptrs[0], &write, &bad, &large, e.ptrs[3]};
    std::vector<ssize_t> results(ptrs.size());
    ops_->submit_many(backend_, ptrs.data(), static_cast<unsigned>(ptrs.size()), results.data());
    EXPECT_EQ(results[0], static_cast<ssize_t>(size));
    EXPECT_EQ(results[1], static_cast<ssize_t>(size));
    EXPECT_EQ(results[2], -EINVAL);
    EXPECT_TRUE(LogHas(HF_LOG_ERROR, "rejecting a read"));
    EXPECT_EQ(results[3], static_cast<ssize_t>(4 * size));
    EXPECT_EQ(results[4], static_cast<ssize_t>(size));
    EXPECT_EQ(hf_test_pattern_check(big.data(), 4 * size, 0, 25), -1);
    EXPECT_GT(fake_->parallel_runs, 0) << "the large read was split as hipFileRead's would be";
    std::vector<uint8_t> contents = ReadWholeFile(f.fd);
    EXPECT_EQ(hf_test_pattern_check(contents.data() + 40 * size, size, 40 * size, 26), -1);
}

} // namespace
