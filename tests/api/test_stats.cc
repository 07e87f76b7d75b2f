/*
 * hipFileGetStatsL1/L2/L3 count exactly what the program did. Counters are process-wide and
 * cumulative, so every test compares a snapshot taken after its calls with one taken before.
 */
#include "api_test.h"

#include <vector>

class StatsTest : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        ASSERT_EQ(hipFileSetParameterSizeT(hipFileParamProfileStats, 3).err, hipFileSuccess);
        /* Every request on the compat path, so which path served each one is known in advance. */
        ASSERT_EQ(hipFileSetParameterBool(hipFileParamForceCompatMode, true).err, hipFileSuccess);
        path = ScratchPath("data");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), 1 << 20, 21), 0);
        fd = open(path.c_str(), O_RDWR);
        ASSERT_GE(fd, 0);
        fh = Register(fd);
        ASSERT_EQ(hipMalloc(&dev, 1 << 20), hipSuccess);
    }
    void TearDown() override
    {
        hipFileHandleDeregister(fh);
        close(fd);
        (void)hipFree(dev);
        (void)hipFileSetParameterBool(hipFileParamForceCompatMode, false);
        ApiTest::TearDown();
    }
    static hipFileStatsLevel3_t Snapshot()
    {
        hipFileStatsLevel3_t s;
        EXPECT_EQ(hipFileGetStatsL3(&s).err, hipFileSuccess);
        return s;
    }
    std::string path;
    int fd = -1;
    hipFileHandle_t fh = nullptr;
    void *dev = nullptr;
};

TEST_F(StatsTest, NullIsInvalidValue)
{
    EXPECT_EQ(hipFileGetStatsL1(nullptr).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileGetStatsL2(nullptr).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileGetStatsL3(nullptr).err, hipFileInvalidValue);
}

TEST_F(StatsTest, EachLevelNeedsTheConfiguredStatsLevel)
{
    hipFileStatsLevel1_t l1;
    hipFileStatsLevel2_t l2;
    hipFileStatsLevel3_t l3;
    ASSERT_EQ(hipFileSetParameterSizeT(hipFileParamProfileStats, 1).err, hipFileSuccess);
    EXPECT_EQ(hipFileGetStatsL1(&l1).err, hipFileSuccess);
    EXPECT_EQ(hipFileGetStatsL2(&l2).err, hipFileInternalError);
    EXPECT_EQ(hipFileGetStatsL3(&l3).err, hipFileInternalError);
    ASSERT_EQ(hipFileSetParameterSizeT(hipFileParamProfileStats, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileGetStatsL1(&l1).err, hipFileInternalError);
}

TEST_F(StatsTest, ReadsAndWritesAreCountedExactly)
{
    hipFileStatsLevel3_t before = Snapshot();
    ASSERT_EQ(hipFileRead(fh, dev, 4096, 0, 0), 4096);
    ASSERT_EQ(hipFileRead(fh, dev, 100000, 4096, 0), 100000);
    ASSERT_EQ(hipFileRead(fh, dev, 4096, 1 << 20, 0), 0); /* at EOF: a successful read of 0 */
    ASSERT_EQ(hipFileRead(fh, dev, 4096, -1, 0), -1);     /* refused */
    ASSERT_EQ(hipFileWrite(fh, dev, 8192, 0, 0), 8192);
    hipFileStatsLevel3_t after = Snapshot();

    const hipFileStatsLevel1_t &b = before.detailed.basic, &a = after.detailed.basic;
    EXPECT_EQ(a.read_ops.ok - b.read_ops.ok, 3u);
    EXPECT_EQ(a.read_ops.err - b.read_ops.err, 1u);
    EXPECT_EQ(a.write_ops.ok - b.write_ops.ok, 1u);
    EXPECT_EQ(a.write_ops.err - b.write_ops.err, 0u);
    EXPECT_EQ(a.read_bytes - b.read_bytes, 4096u + 100000u);
    EXPECT_EQ(a.write_bytes - b.write_bytes, 8192u);
    EXPECT_GE(a.read_lat_sum_us, b.read_lat_sum_us);

    /* 4 KiB and the refused 4 KiB read land in bucket 2, ~98 KiB in bucket 6, 8 KiB in 3. */
    auto hist = [&](const uint64_t *h_after, const uint64_t *h_before, int i) {
        return h_after[i] - h_before[i];
    };
    EXPECT_EQ(hist(after.detailed.read_size_kb_hist, before.detailed.read_size_kb_hist, 2), 3u);
    EXPECT_EQ(hist(after.detailed.read_size_kb_hist, before.detailed.read_size_kb_hist, 6), 1u);
    EXPECT_EQ(hist(after.detailed.write_size_kb_hist, before.detailed.write_size_kb_hist, 3), 1u);

    EXPECT_GE(after.num_gpus, 1u);
    const hipFilePerGpuStats_t &gb = before.per_gpu_stats[0], &ga = after.per_gpu_stats[0];
    EXPECT_EQ(ga.n_total_reads - gb.n_total_reads, 3u) << "the refused read never reached a GPU";
    EXPECT_EQ(ga.n_posix_reads - gb.n_posix_reads, 3u) << "served by the compat path";
    EXPECT_EQ(ga.n_nvfs_reads - gb.n_nvfs_reads, 0u);
    EXPECT_EQ(ga.n_unaligned_reads - gb.n_unaligned_reads, 1u) << "the 100000-byte read";
    EXPECT_EQ(ga.read_bytes - gb.read_bytes, 104096u);
    EXPECT_EQ(ga.n_total_writes - gb.n_total_writes, 1u);
    EXPECT_EQ(ga.n_posix_writes - gb.n_posix_writes, 1u);
    EXPECT_EQ(ga.write_bytes - gb.write_bytes, 8192u);
}

TEST_F(StatsTest, RegistrationsAreCounted)
{
    hipFileStatsLevel3_t before = Snapshot();
    hipFileHandle_t dup = nullptr;
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    EXPECT_EQ(hipFileHandleRegister(&dup, &descr).err, hipFileHandleAlreadyRegistered);
    ASSERT_EQ(hipFileBufRegister(dev, 65536, 0).err, hipFileSuccess);
    EXPECT_EQ(hipFileBufRegister(dev, 65536, 0).err, hipFileMemoryAlreadyRegistered);
    hipFileStatsLevel3_t middle = Snapshot();
    ASSERT_EQ(hipFileBufDeregister(dev).err, hipFileSuccess);
    hipFileStatsLevel3_t after = Snapshot();

    const hipFileStatsLevel1_t &b = before.detailed.basic, &a = after.detailed.basic;
    EXPECT_EQ(a.hdl_register_ops.err - b.hdl_register_ops.err, 1u);
    EXPECT_EQ(a.buf_register_ops.ok - b.buf_register_ops.ok, 1u);
    EXPECT_EQ(a.buf_register_ops.err - b.buf_register_ops.err, 1u);
    EXPECT_EQ(a.buf_deregister_ops.ok - b.buf_deregister_ops.ok, 1u);
    EXPECT_EQ(after.per_gpu_stats[0].n_mmap_ok - before.per_gpu_stats[0].n_mmap_ok, 1u);
    EXPECT_EQ(after.per_gpu_stats[0].n_mmap_free - before.per_gpu_stats[0].n_mmap_free, 1u);
    EXPECT_EQ(middle.per_gpu_stats[0].reg_bytes - before.per_gpu_stats[0].reg_bytes, 65536u);
    EXPECT_EQ(after.per_gpu_stats[0].reg_bytes, before.per_gpu_stats[0].reg_bytes);
}

TEST_F(StatsTest, BatchCallsAreCounted)
{
    hipFileStatsLevel1_t before;
    ASSERT_EQ(hipFileGetStatsL1(&before).err, hipFileSuccess);
    hipFileBatchHandle_t batch = nullptr;
    ASSERT_EQ(hipFileBatchIOSetUp(&batch, 4).err, hipFileSuccess);
    std::vector<hipFileIOParams_t> io(2);
    for (int i = 0; i < 2; i++) {
        io[i].mode = hipFileBatch;
        io[i].fh = fh;
        io[i].opcode = hipFileBatchRead;
        io[i].u.batch.devPtr_base = dev;
        io[i].u.batch.file_offset = i * 4096;
        io[i].u.batch.devPtr_offset = i * 4096;
        io[i].u.batch.size = 4096;
    }
    ASSERT_EQ(hipFileBatchIOSubmit(batch, 2, io.data(), 0).err, hipFileSuccess);
    hipFileIOEvents_t events[4];
    unsigned nr = 4;
    ASSERT_EQ(hipFileBatchIOGetStatus(batch, 2, &nr, events, nullptr).err, hipFileSuccess);
    ASSERT_EQ(nr, 2u);
    hipFileBatchIODestroy(batch);
    hipFileStatsLevel1_t after;
    ASSERT_EQ(hipFileGetStatsL1(&after).err, hipFileSuccess);
    EXPECT_EQ(after.batch_setup_ops.ok - before.batch_setup_ops.ok, 1u);
    EXPECT_EQ(after.batch_submit_ops.ok - before.batch_submit_ops.ok, 1u);
    EXPECT_EQ(after.batch_complete_ops.ok - before.batch_complete_ops.ok, 2u);
    EXPECT_EQ(after.batch_destroy_ops.ok - before.batch_destroy_ops.ok, 1u);
    EXPECT_EQ(after.batch_read_bytes - before.batch_read_bytes, 8192u);
    EXPECT_EQ(after.last_batch_read_bytes, 8192u);
    /* Batch entries are reads too. */
    EXPECT_EQ(after.read_ops.ok - before.read_ops.ok, 2u);
}

TEST_F(StatsTest, EveryServedRequestIsCountedOnExactlyOnePath)
{
    ASSERT_EQ(hipFileSetParameterBool(hipFileParamForceCompatMode, false).err, hipFileSuccess);
    hipFileStatsLevel3_t before = Snapshot();
    ASSERT_EQ(hipFileRead(fh, dev, 65536, 0, 0), 65536);
    ASSERT_EQ(hipFileRead(fh, dev, 1000, 3, 0), 1000);
    ASSERT_EQ(hipFileWrite(fh, dev, 4096, 8192, 0), 4096);
    hipFileStatsLevel3_t after = Snapshot();
    const hipFilePerGpuStats_t &gb = before.per_gpu_stats[0], &ga = after.per_gpu_stats[0];
    EXPECT_EQ(ga.n_total_reads - gb.n_total_reads, 2u);
    EXPECT_EQ((ga.n_nvfs_reads - gb.n_nvfs_reads) + (ga.n_posix_reads - gb.n_posix_reads), 2u);
    EXPECT_EQ((ga.n_nvfs_writes - gb.n_nvfs_writes) + (ga.n_posix_writes - gb.n_posix_writes), 1u);
    EXPECT_EQ(ga.read_bytes - gb.read_bytes, 66536u);
    EXPECT_GE(after.detailed.basic.read_lat_sum_us, before.detailed.basic.read_lat_sum_us);
}

TEST_F(StatsTest, LatencyAndBandwidthFollowFromTheSums)
{
    ASSERT_EQ(hipFileRead(fh, dev, 1 << 20, 0, 0), 1 << 20);
    hipFileStatsLevel1_t s;
    ASSERT_EQ(hipFileGetStatsL1(&s).err, hipFileSuccess);
    uint64_t reads = s.read_ops.ok + s.read_ops.err;
    ASSERT_GT(reads, 0u);
    EXPECT_EQ(s.read_lat_avg_us, s.read_lat_sum_us / reads);
    EXPECT_GT(s.read_bw_bytes_per_sec, 0u);
    EXPECT_GT(s.read_ops_per_sec, 0u);
}
