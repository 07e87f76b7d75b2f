/* The facts file registration records once for backends: kind, descriptors, alignment, filesystem.
 */
#include <gtest/gtest.h>
#include <hipfile.h>

#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "file_facts_probe.h"
#include "hf_harness.h"

namespace
{

hipFileHandle_t RegisterFd(int fd)
{
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(hipFileHandleRegister(&fh, &descr).err, hipFileSuccess);
    return fh;
}

/* Whether two descriptors are open on the same inode. */
bool SameFile(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

} // namespace

TEST(FileFacts, RegularFileOnTheScratchFilesystem)
{
    char *path = hf_test_path("facts.data");
    ASSERT_EQ(hf_test_pattern_file(path, 12345, 1), 0);
    int fd = open(path, O_RDWR);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = RegisterFd(fd);
    struct hf_file_info info;
    ASSERT_EQ(hf_probe_file_info(fh, &info), 0);
    EXPECT_EQ(info.kind, HF_FILE_REGULAR);
    EXPECT_NE(info.fd, fd) << "the registration holds a descriptor of its own";
    EXPECT_TRUE(SameFile(info.fd, fd));
    EXPECT_FALSE(fcntl(info.fd, F_GETFL) & O_DIRECT);
    EXPECT_TRUE(fcntl(info.fd, F_GETFD) & FD_CLOEXEC);
    EXPECT_EQ(info.size_at_register, 12345u);
    EXPECT_EQ(info.status_flags & O_ACCMODE, O_RDWR);
    struct statfs sfs;
    ASSERT_EQ(fstatfs(fd, &sfs), 0);
    EXPECT_EQ(info.fs_magic, (uint64_t)(unsigned long)sfs.f_type);
    EXPECT_STRNE(info.fs_name, "");
    if (info.direct_fd >= 0) {
        EXPECT_NE(info.direct_fd, fd);
        EXPECT_NE(info.direct_fd, info.fd);
        EXPECT_TRUE(SameFile(info.direct_fd, fd));
        EXPECT_TRUE(fcntl(info.direct_fd, F_GETFL) & O_DIRECT);
        EXPECT_GT(info.dio_offset_align, 0u);
        EXPECT_EQ(info.dio_offset_align & (info.dio_offset_align - 1), 0u) << "a power of two";
        EXPECT_GT(info.dio_mem_align, 0u);
    } else {
        EXPECT_EQ(info.dio_offset_align, 0u);
        EXPECT_EQ(info.dio_mem_align, 0u);
    }
    hipFileHandleDeregister(fh);
    close(fd);
    free(path);
}

TEST(FileFacts, DirectCallerFdGetsTwinsOfItsOwn)
{
    char *path = hf_test_path("facts.direct");
    ASSERT_EQ(hf_test_pattern_file(path, 8192, 2), 0);
    int fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0)
        GTEST_SKIP() << "the scratch filesystem refuses O_DIRECT";
    hipFileHandle_t fh = RegisterFd(fd);
    struct hf_file_info info;
    ASSERT_EQ(hf_probe_file_info(fh, &info), 0);
    EXPECT_NE(info.direct_fd, fd) << "the caller's number may be closed and reused";
    ASSERT_GE(info.direct_fd, 0);
    EXPECT_TRUE(SameFile(info.direct_fd, fd));
    EXPECT_TRUE(fcntl(info.direct_fd, F_GETFL) & O_DIRECT);
    EXPECT_NE(info.fd, fd);
    EXPECT_TRUE(SameFile(info.fd, fd));
    EXPECT_FALSE(fcntl(info.fd, F_GETFL) & O_DIRECT);
    EXPECT_TRUE(fcntl(info.fd, F_GETFD) & FD_CLOEXEC);
    hipFileHandleDeregister(fh);
    close(fd);
    free(path);
}

TEST(FileFacts, ShmFileIsRecordedAsTmpfs)
{
    struct statfs sfs;
    if (statfs("/dev/shm", &sfs) != 0 || sfs.f_type != 0x01021994)
        GTEST_SKIP() << "no tmpfs at /dev/shm";
    std::string path = std::string("/dev/shm/hipfile-facts-") + std::to_string(getpid());
    ASSERT_EQ(hf_test_pattern_file(path.c_str(), 4096, 3), 0);
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = RegisterFd(fd);
    struct hf_file_info info;
    ASSERT_EQ(hf_probe_file_info(fh, &info), 0);
    EXPECT_STREQ(info.fs_name, "tmpfs");
    hipFileHandleDeregister(fh);
    close(fd);
    unlink(path.c_str());
}

TEST(FileFacts, AppendFdIsReopenedWithoutAppend)
{
    char *path = hf_test_path("facts.append");
    ASSERT_EQ(hf_test_pattern_file(path, 4096, 4), 0);
    int fd = open(path, O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = RegisterFd(fd);
    struct hf_file_info info;
    ASSERT_EQ(hf_probe_file_info(fh, &info), 0);
    EXPECT_NE(info.fd, fd);
    EXPECT_FALSE(fcntl(info.fd, F_GETFL) & O_APPEND);
    EXPECT_FALSE(info.status_flags & O_APPEND);
    EXPECT_EQ(info.status_flags & O_ACCMODE, O_WRONLY);
    if (info.direct_fd >= 0) {
        EXPECT_FALSE(fcntl(info.direct_fd, F_GETFL) & O_APPEND);
    }
    hipFileHandleDeregister(fh);
    close(fd);
    free(path);
}
