/*
 * sysfs resolution against fixture trees laid out like the ones a 6.1 kernel shows: a file's
 * st_dev to its NVMe namespace, partition start, generic char device, block size and transfer
 * limit; and every kind of device that must be refused, each with its own reason.
 */
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hf_harness.h"
#include "nvme_passthru_internal.h"

namespace
{

const char kCtrl[] = "devices/pci0000:00/0000:00:03.0/nvme/nvme0";

class SysfsTree : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        static int counter;
        char *path = hf_test_path(("sysfs" + std::to_string(counter++)).c_str());
        root = path;
        free(path);
        ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
        Dir("dev/block");
        Dir("class/nvme-generic");
    }
    void Dir(const std::string &rel)
    {
        std::string p = root;
        size_t at = 0;
        while (at != std::string::npos) {
            at = rel.find('/', at + 1);
            p = root + "/" + rel.substr(0, at);
            mkdir(p.c_str(), 0755);
        }
    }
    void File(const std::string &rel, const std::string &text)
    {
        Dir(rel.substr(0, rel.rfind('/')));
        ASSERT_EQ(hf_test_write_text((root + "/" + rel).c_str(), (text + "\n").c_str()), 0);
    }
    /* A relative symlink, as sysfs has them, so the tree works wherever it lies. */
    void Link(const std::string &rel, const std::string &target_rel)
    {
        Dir(rel.substr(0, rel.rfind('/')));
        std::string up;
        for (char c : rel)
            if (c == '/')
                up += "../";
        ASSERT_EQ(symlink((up + target_rel).c_str(), (root + "/" + rel).c_str()), 0);
    }
    /* A namespace with a generic device and one partition starting at sector 2048. */
    void Namespace(const std::string &ctrl_dir, const std::string &disk, const std::string &ng,
                   const std::string &block_dev, const std::string &part_dev, unsigned lba,
                   unsigned max_kib, const std::string &ng_dev = "245:1",
                   unsigned max_segments = 1024)
    {
        std::string d = ctrl_dir + "/" + disk;
        File(d + "/nsid", "1");
        File(d + "/queue/max_segments", std::to_string(max_segments));
        File(d + "/queue/logical_block_size", std::to_string(lba));
        File(d + "/queue/max_hw_sectors_kb", std::to_string(max_kib));
        File(d + "/" + disk + "p1/partition", "1");
        File(d + "/" + disk + "p1/start", "2048");
        File(ctrl_dir + "/" + ng + "/dev", ng_dev);
        Link("dev/block/" + block_dev, d);
        Link("dev/block/" + part_dev, d + "/" + disk + "p1");
        Link("class/nvme-generic/" + ng, ctrl_dir + "/" + ng);
    }
    int Resolve(unsigned major, unsigned minor)
    {
        reason = nullptr;
        return nvme_sysfs_resolve(root.c_str(), major, minor, &target, &reason);
    }
    std::string Reason() const
    {
        return reason != nullptr ? reason : "";
    }
    std::string root;
    struct nvme_target target = {};
    const char *reason = nullptr;
};

} // namespace

TEST_F(SysfsTree, PartitionResolvesToItsNamespaceGenericDeviceAndStart)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 512, 512);
    ASSERT_EQ(Resolve(259, 1), 0) << Reason();
    EXPECT_STREQ(target.disk, "nvme0n1");
    EXPECT_STREQ(target.generic_name, "ng0n1");
    EXPECT_EQ(target.generic_major, 245u);
    EXPECT_EQ(target.generic_minor, 1u);
    EXPECT_EQ(target.nsid, 1u);
    EXPECT_EQ(target.part_start_bytes, 2048u * 512u);
    EXPECT_EQ(target.lba_size, 512u);
    EXPECT_EQ(target.max_transfer, 512u * 1024u);
}

TEST_F(SysfsTree, WholeNamespaceStartsAtByteZero)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 512, 512);
    ASSERT_EQ(Resolve(259, 0), 0) << Reason();
    EXPECT_EQ(target.part_start_bytes, 0u);
}

TEST_F(SysfsTree, PartitionStartStaysInSectorsOnFourKiBNamespaces)
{
    Namespace("devices/pci0000:00/0000:00:04.0/nvme/nvme1", "nvme1n1", "ng1n1", "259:2", "259:3",
              4096, 128, "245:0");
    ASSERT_EQ(Resolve(259, 3), 0) << Reason();
    EXPECT_STREQ(target.generic_name, "ng1n1");
    EXPECT_EQ(target.generic_minor, 0u);
    EXPECT_EQ(target.lba_size, 4096u);
    EXPECT_EQ(target.part_start_bytes, 2048u * 512u);
    EXPECT_EQ(target.max_transfer, 128u * 1024u);
}

/* QEMU's controller: 512 KiB per command, 127 segments: 126 pages is the most that always fits. */
TEST_F(SysfsTree, TransferLimitLeavesRoomForOneSegmentPerPage)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 4096, 512, "245:1", 127);
    ASSERT_EQ(Resolve(259, 1), 0) << Reason();
    EXPECT_EQ(target.max_transfer, 126u * 4096u);
}

TEST_F(SysfsTree, MultipathNamespaceUnderItsSubsystemResolves)
{
    Namespace("devices/virtual/nvme-subsystem/nvme-subsys0", "nvme0n1", "ng0n1", "259:0", "259:1",
              512, 512);
    ASSERT_EQ(Resolve(259, 1), 0) << Reason();
    EXPECT_STREQ(target.generic_name, "ng0n1");
}

TEST_F(SysfsTree, AnonymousDevicesOfBtrfsAndOverlayAreRefused)
{
    EXPECT_EQ(Resolve(0, 42), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("btrfs"), std::string::npos);
}

TEST_F(SysfsTree, StackedDevicesAreRefusedByName)
{
    const struct {
        const char *dev;
        const char *name;
        const char *word;
    } stacked[] = {
        {"253:0", "dm-0", "device-mapper"},
        {"9:0", "md0", "md RAID"},
        {"7:0", "loop0", "loop device"},
    };
    for (const auto &s : stacked) {
        File(std::string("devices/virtual/block/") + s.name + "/dev", s.dev);
        Link(std::string("dev/block/") + s.dev, std::string("devices/virtual/block/") + s.name);
        unsigned major, minor;
        ASSERT_EQ(sscanf(s.dev, "%u:%u", &major, &minor), 2);
        EXPECT_EQ(Resolve(major, minor), -EOPNOTSUPP);
        EXPECT_NE(Reason().find(s.word), std::string::npos) << Reason();
    }
}

TEST_F(SysfsTree, ScsiDiskIsNotAnNvmeNamespace)
{
    std::string sda = "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda";
    File(sda + "/sda1/partition", "1");
    File(sda + "/sda1/start", "2048");
    Link("dev/block/8:1", sda + "/sda1");
    EXPECT_EQ(Resolve(8, 1), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("not an NVMe namespace"), std::string::npos) << Reason();
}

TEST_F(SysfsTree, UnknownDeviceNumberIsRefused)
{
    EXPECT_EQ(Resolve(259, 99), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("no block device"), std::string::npos) << Reason();
}

TEST_F(SysfsTree, NamespaceWithoutGenericDeviceIsRefused)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 512, 512);
    ASSERT_EQ(unlink((root + "/class/nvme-generic/ng0n1").c_str()), 0);
    EXPECT_EQ(Resolve(259, 1), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("generic char device"), std::string::npos) << Reason();
}

TEST_F(SysfsTree, GenericDeviceOfAnotherControllerIsRefused)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 512, 512);
    ASSERT_EQ(unlink((root + "/class/nvme-generic/ng0n1").c_str()), 0);
    File("devices/pci0000:00/0000:00:05.0/nvme/nvme7/ng0n1/dev", "245:9");
    Link("class/nvme-generic/ng0n1", "devices/pci0000:00/0000:00:05.0/nvme/nvme7/ng0n1");
    EXPECT_EQ(Resolve(259, 1), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("another controller"), std::string::npos) << Reason();
}

TEST_F(SysfsTree, MissingNamespaceFactsAreRefused)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 512, 512);
    ASSERT_EQ(unlink((root + "/" + kCtrl + "/nvme0n1/queue/max_hw_sectors_kb").c_str()), 0);
    EXPECT_EQ(Resolve(259, 1), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("transfer limit"), std::string::npos) << Reason();
}

TEST_F(SysfsTree, ImpossibleBlockSizeIsRefused)
{
    Namespace(kCtrl, "nvme0n1", "ng0n1", "259:0", "259:1", 3000, 512);
    EXPECT_EQ(Resolve(259, 1), -EOPNOTSUPP);
    EXPECT_NE(Reason().find("block size"), std::string::npos) << Reason();
}
