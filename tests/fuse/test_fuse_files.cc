// Files on a FUSE mount, the way many distributed file systems are reached: registered as ordinary
// descriptors, recorded as "fuse", served byte-exact by the fallback at odd sizes and offsets,
// while the fastpath and nvme-passthru decline them with their reasons.
//
// test_fuse.sh mounts a directory with bindfs and runs this program with HIPFILE_TEST_FUSE_MOUNT
// (the mount point) and HIPFILE_TEST_FUSE_BACKING (the directory it mirrors); without them every
// test is skipped, saying so.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "api_test.h"
#include "file_facts_probe.h"
#if HF_TEST_HAVE_NVME
#include "fuse_nvme_decline.h"
#endif
#include "hf_odd_ranges.h"

namespace
{

std::string Env(const char *name)
{
    const char *v = getenv(name);
    return v != nullptr ? v : "";
}

std::string LogPath()
{
    char *p = hf_test_path("fuse_files.log");
    std::string s(p);
    free(p);
    return s;
}

/*
 * Every plugin of the build, and a debug log the tests read the selector's verdicts from. The
 * fastpath's coherent engine is off, as where the GPU's memory is its own (a discrete GPU): where
 * the CPU addresses it (APUs, the host runtime) that engine serves files on any file system with
 * the same page-cache and O_DIRECT reads as the fallback, so FUSE files would not reach the
 * fallback at all.
 */
class ConfigEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        char *conf = hf_test_path("fuse_files.conf");
        unlink(LogPath().c_str());
        std::string text = std::string("plugins = {\n  directory = \"") + HF_TEST_PLUGIN_DIR +
                           "\";\n};\nlog = {\n  level = \"debug\";\n  file = \"" + LogPath() +
                           "\";\n};\nfastpath = {\n  coherent = false;\n};\n";
        ASSERT_EQ(hf_test_write_text(conf, text.c_str()), 0);
        setenv("HIPFILE_CONFIG", conf, 1);
        free(conf);
    }
};

const ::testing::Environment *const config_env =
    ::testing::AddGlobalTestEnvironment(new ConfigEnvironment);

} // namespace

class FuseFiles : public ApiTest
{
  protected:
    static constexpr size_t kFileSize = (4 << 20) + 333;
    static constexpr size_t kDevSize = 8 << 20;
    static constexpr uint32_t kSeed = 31;

    void SetUp() override
    {
        ApiTest::SetUp();
        mount = Env("HIPFILE_TEST_FUSE_MOUNT");
        backing = Env("HIPFILE_TEST_FUSE_BACKING");
        if (mount.empty() || backing.empty())
            GTEST_SKIP() << "no FUSE mount given (HIPFILE_TEST_FUSE_MOUNT and "
                            "HIPFILE_TEST_FUSE_BACKING); tests/fuse/test_fuse.sh mounts one";
        const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
        name = std::string(info->name()) + ".data";
        ASSERT_EQ(hf_test_pattern_file((backing + "/" + name).c_str(), kFileSize, kSeed), 0);
        fd = open((mount + "/" + name).c_str(), O_RDWR);
        ASSERT_GE(fd, 0) << "cannot open the file through the mount";
        hipFileDescr_t descr = {};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        ASSERT_EQ(hipFileHandleRegister(&fh, &descr).err, hipFileSuccess);
        ASSERT_EQ(hipMalloc(&dev, kDevSize), hipSuccess);
    }
    void TearDown() override
    {
        if (fh != nullptr)
            hipFileHandleDeregister(fh);
        if (fd >= 0)
            close(fd);
        if (dev != nullptr)
            (void)hipFree(dev);
        if (!name.empty())
            unlink((backing + "/" + name).c_str());
        ApiTest::TearDown();
    }
    static bool LogHas(const std::string &needle)
    {
        return hf_test_file_contains(LogPath().c_str(), needle.c_str()) == 1;
    }

    std::string mount, backing, name;
    int fd = -1;
    hipFileHandle_t fh = nullptr;
    void *dev = nullptr;
};

TEST_F(FuseFiles, ReadsThroughTheMountAreByteExactAtOddSizesAndOffsets)
{
    for (const hf_test_range &r : hf_test_odd_ranges) {
        ASSERT_EQ(hipFileRead(fh, dev, r.size, r.file_offset, r.buf_offset),
                  static_cast<ssize_t>(r.size))
            << r.size << " bytes at " << r.file_offset;
        EXPECT_EQ(CheckDevice(dev, static_cast<size_t>(r.buf_offset), r.size,
                              static_cast<uint64_t>(r.file_offset), kSeed),
                  -1)
            << r.size << " bytes at " << r.file_offset;
    }
    // The end of the file cuts a read short, as pread does.
    EXPECT_EQ(hipFileRead(fh, dev, 1 << 20, kFileSize - 100, 1), 100);
    EXPECT_EQ(CheckDevice(dev, 1, 100, kFileSize - 100, kSeed), -1);
}

TEST_F(FuseFiles, WritesThroughTheMountLandInTheBackingFile)
{
    FillDevice(dev, 0, kDevSize, 0, 77);
    std::vector<char> want(kFileSize);
    hf_test_pattern_fill(want.data(), kFileSize, 0, kSeed);
    for (const hf_test_range &r : hf_test_odd_ranges) {
        ASSERT_EQ(hipFileWrite(fh, dev, r.size, r.file_offset, r.buf_offset),
                  static_cast<ssize_t>(r.size))
            << r.size << " bytes at " << r.file_offset;
        hf_test_pattern_fill(want.data() + r.file_offset, r.size,
                             static_cast<uint64_t>(r.buf_offset), 77);
    }
    size_t size = 0;
    char *got = hf_test_read_all((backing + "/" + name).c_str(), &size);
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(size, kFileSize);
    EXPECT_EQ(memcmp(got, want.data(), kFileSize), 0);
    free(got);
}

TEST_F(FuseFiles, FallbackServesWhileFastpathDeclinesWithItsReason)
{
    struct hf_file_info info;
    ASSERT_EQ(hf_probe_file_info(fh, &info), 0);
    EXPECT_STREQ(info.fs_name, "fuse");
    EXPECT_EQ(info.kind, HF_FILE_REGULAR);
    // Aligned, so nothing but the file system stands between the fastpath and the request.
    ASSERT_EQ(hipFileRead(fh, dev, 1 << 20, 0, 0), 1 << 20);
    EXPECT_TRUE(LogHas("select read of 1048576 bytes at 0: fallback offers with score 10"));
    // The host runtime offers no AIS engine, whose refusal names the file system; that refusal,
    // for the "fuse" recorded above, is tested with a fake AIS runtime in
    // tests/unit/test_fastpath_plugin.cc (FastpathAis.FilesOnFuseMountsAreRefusedByName).
    EXPECT_TRUE(LogHas("select read of 1048576 bytes at 0: fastpath refuses with score -1 (no "
                       "engine for GPU 0"))
        << "the fastpath's verdict is in " << LogPath();
}

TEST_F(FuseFiles, NvmePassthruDeclinesWithItsReason)
{
#if !HF_TEST_HAVE_NVME
    GTEST_SKIP() << "nvme-passthru is not built here (it needs liburing-dev)";
#else
    struct hf_file_info info;
    ASSERT_EQ(hf_probe_file_info(fh, &info), 0);
    ASSERT_STREQ(info.fs_name, "fuse");
    char line[512];
    EXPECT_EQ(fuse_nvme_decline(&info, line, sizeof(line)), -EOPNOTSUPP);
    EXPECT_NE(strstr(line, "only files on ext4 and XFS have device offsets this backend trusts"),
              nullptr)
        << line;
#endif
}
