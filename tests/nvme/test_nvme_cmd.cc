/*
 * NVMe command encoding: the fields of Read, Write and Flush as the kernel's passthrough takes
 * them, and above all a data length that always equals (NLB + 1) logical blocks.
 */
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include "nvme_passthru_internal.h"

namespace
{

struct nvme_passthru_cmd64 Encode(const struct nvme_io &io, int expect_rc = 0)
{
    struct nvme_passthru_cmd64 cmd;
    std::memset(&cmd, 0x5a, sizeof(cmd));
    EXPECT_EQ(nvme_cmd_encode(&io, &cmd), expect_rc);
    return cmd;
}

char buffer[4096];

} // namespace

TEST(NvmeCmd, ReadCarriesSlbaSplitOverCdw10And11AndZeroBasedNlb)
{
    struct nvme_io io = {NVME_OP_READ, 7, 0x123456789ull, 8, 9, buffer};
    auto cmd = Encode(io);
    EXPECT_EQ(cmd.opcode, 0x02);
    EXPECT_EQ(cmd.flags, 0);
    EXPECT_EQ(cmd.nsid, 7u);
    EXPECT_EQ(cmd.cdw10, 0x23456789u);
    EXPECT_EQ(cmd.cdw11, 0x1u);
    EXPECT_EQ(cmd.cdw12, 7u);
    EXPECT_EQ(cmd.cdw13, 0u);
    EXPECT_EQ(cmd.cdw14, 0u);
    EXPECT_EQ(cmd.cdw15, 0u);
    EXPECT_EQ(cmd.data_len, 8u * 512u);
    EXPECT_EQ(cmd.addr, reinterpret_cast<uintptr_t>(buffer));
    EXPECT_EQ(cmd.metadata, 0u);
    EXPECT_EQ(cmd.metadata_len, 0u);
    EXPECT_EQ(cmd.timeout_ms, 0u);
}

TEST(NvmeCmd, DataLengthFollowsTheLogicalBlockSize)
{
    struct nvme_io io = {NVME_OP_READ, 1, 10, 256, 12, buffer};
    auto cmd = Encode(io);
    EXPECT_EQ(cmd.data_len, 1024u * 1024u);
    EXPECT_EQ(cmd.cdw12, 255u);
    EXPECT_EQ(cmd.cdw10, 10u);
    EXPECT_EQ(cmd.cdw11, 0u);
}

TEST(NvmeCmd, WriteUsesOpcodeOneWithTheSameLayout)
{
    struct nvme_io io = {NVME_OP_WRITE, 3, 4096, 1, 9, buffer};
    auto cmd = Encode(io);
    EXPECT_EQ(cmd.opcode, 0x01);
    EXPECT_EQ(cmd.cdw12, 0u);
    EXPECT_EQ(cmd.data_len, 512u);
}

TEST(NvmeCmd, LargestCommandFillsTheSixteenBitNlbField)
{
    struct nvme_io io = {NVME_OP_READ, 1, 0, NVME_MAX_BLOCKS_PER_CMD, 9, buffer};
    auto cmd = Encode(io);
    EXPECT_EQ(cmd.cdw12, 0xffffu);
    EXPECT_EQ(cmd.data_len, 65536u * 512u);
}

TEST(NvmeCmd, BadBlockCountsShiftsAndBuffersAreRefused)
{
    Encode({NVME_OP_READ, 1, 0, 0, 9, buffer}, -EINVAL);
    Encode({NVME_OP_READ, 1, 0, NVME_MAX_BLOCKS_PER_CMD + 1, 9, buffer}, -EINVAL);
    Encode({NVME_OP_READ, 1, 0, 1, 8, buffer}, -EINVAL);
    Encode({NVME_OP_READ, 1, 0, 1, 17, buffer}, -EINVAL);
    Encode({NVME_OP_READ, 1, 0, 1, 9, nullptr}, -EINVAL);
    /* 65536 blocks of 64 KiB is 4 GiB: more than the 32-bit data length can say. */
    Encode({NVME_OP_READ, 1, 0, NVME_MAX_BLOCKS_PER_CMD, 16, buffer}, -EINVAL);
}

TEST(NvmeCmd, FlushCarriesNoData)
{
    struct nvme_io io = {NVME_OP_FLUSH, 5, 0, 0, 12, nullptr};
    auto cmd = Encode(io);
    EXPECT_EQ(cmd.opcode, 0x00);
    EXPECT_EQ(cmd.nsid, 5u);
    EXPECT_EQ(cmd.data_len, 0u);
    EXPECT_EQ(cmd.addr, 0u);
    EXPECT_EQ(cmd.cdw12, 0u);
    Encode({NVME_OP_FLUSH, 5, 0, 1, 12, buffer}, -EINVAL);
}

/* The io_uring form is copied from the ioctl form's first bytes; the layouts must agree. */
TEST(NvmeCmd, UringCommandIsThePrefixOfTheIoctlCommand)
{
    EXPECT_EQ(sizeof(struct nvme_uring_cmd), 72u);
    EXPECT_EQ(sizeof(struct nvme_passthru_cmd64), 80u);
#define SAME_OFFSET(field)                                                                         \
    EXPECT_EQ(offsetof(struct nvme_uring_cmd, field), offsetof(struct nvme_passthru_cmd64, field))
    SAME_OFFSET(opcode);
    SAME_OFFSET(flags);
    SAME_OFFSET(nsid);
    SAME_OFFSET(metadata);
    SAME_OFFSET(addr);
    SAME_OFFSET(metadata_len);
    SAME_OFFSET(data_len);
    SAME_OFFSET(cdw10);
    SAME_OFFSET(cdw11);
    SAME_OFFSET(cdw12);
    SAME_OFFSET(cdw13);
    SAME_OFFSET(cdw14);
    SAME_OFFSET(cdw15);
    SAME_OFFSET(timeout_ms);
#undef SAME_OFFSET
}

TEST(NvmeCmd, ResultsMapToErrno)
{
    EXPECT_EQ(nvme_status_to_errno(0), 0);
    EXPECT_EQ(nvme_status_to_errno(-EACCES), -EACCES);
    EXPECT_EQ(nvme_status_to_errno(-EINVAL), -EINVAL);
    EXPECT_EQ(nvme_status_to_errno(0x4080), -EREMOTEIO);
}

TEST(NvmeCmd, StatusTextNamesCodeTypeAndRetryBit)
{
    char text[128];
    std::string lba = nvme_status_text(0x4080, text, sizeof(text));
    EXPECT_NE(lba.find("LBA out of range"), std::string::npos) << lba;
    EXPECT_NE(lba.find("do not retry"), std::string::npos) << lba;
    std::string sgl = nvme_status_text(0x000f, text, sizeof(text));
    EXPECT_NE(sgl.find("SGL length"), std::string::npos) << sgl;
    EXPECT_EQ(sgl.find("do not retry"), std::string::npos) << sgl;
    std::string media = nvme_status_text(0x0281, text, sizeof(text));
    EXPECT_NE(media.find("SCT 2"), std::string::npos) << media;
    EXPECT_NE(media.find("media"), std::string::npos) << media;
}
