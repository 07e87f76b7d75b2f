/* hipFileHandleRegister/Deregister: every rule of API.md section 8.2 and every bad input. */
#include "api_test.h"

#include <dirent.h>
#include <sys/socket.h>
#include <algorithm>
#include <cstring>
#include <vector>

class FileRegisterTest : public ApiTest
{
  protected:
    void SetUp() override
    {
        ApiTest::SetUp();
        path = ScratchPath("data");
        ASSERT_EQ(hf_test_pattern_file(path.c_str(), 1 << 16, 3), 0);
    }
    static int OpenFdCount()
    {
        int n = 0;
        DIR *d = opendir("/proc/self/fd");
        while (d != nullptr && readdir(d) != nullptr)
            n++;
        if (d != nullptr)
            closedir(d);
        return n;
    }
    static hipFileError_t TryRegister(hipFileHandle_t *fh, int type, int fd)
    {
        hipFileDescr_t descr = {};
        /* Stored through memcpy so out-of-range enum values reach the library as they are. */
        memcpy(&descr.type, &type, sizeof(type));
        descr.handle.fd = fd;
        return hipFileHandleRegister(fh, &descr);
    }
    static void RegisterOnceToStartTheRuntime(int fd)
    {
        hipFileHandleDeregister(Register(fd));
    }
    std::string path;
};

TEST_F(FileRegisterTest, NullArgumentsAreInvalidValue)
{
    hipFileDescr_t descr = {};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = 0;
    hipFileHandle_t fh;
    EXPECT_EQ(hipFileHandleRegister(nullptr, &descr).err, hipFileInvalidValue);
    EXPECT_EQ(hipFileHandleRegister(&fh, nullptr).err, hipFileInvalidValue);
}

TEST_F(FileRegisterTest, HandleTypesOtherThanFdAndUserspaceFsAreNotSupported)
{
    int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = nullptr;
    for (int type : {0, 2, 4, -1, 0x7fffffff})
        EXPECT_EQ(TryRegister(&fh, type, fd).err, hipFileIONotSupported) << "type " << type;
    /* A user-space filesystem is served (test_userspace_fs.cc), but not without its fs_ops. */
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeUserspaceFS, fd).err, hipFileInvalidValue);
    close(fd);
}

TEST_F(FileRegisterTest, ClosedAndNegativeFdsAreInvalidValue)
{
    /* Open the driver first: a GPU runtime starting up opens descriptors of its own, and could
     * reuse a low number closed just before. A high number stays free. */
    ASSERT_EQ(hipFileDriverOpen().err, hipFileSuccess);
    int low = open(path.c_str(), O_RDONLY);
    ASSERT_GE(low, 0);
    int fd = fcntl(low, F_DUPFD_CLOEXEC, 700);
    ASSERT_GE(fd, 700);
    close(low);
    close(fd);
    hipFileHandle_t fh = nullptr;
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeOpaqueFD, fd).err, hipFileInvalidValue);
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeOpaqueFD, -1).err, hipFileInvalidValue);
}

TEST_F(FileRegisterTest, DirectoriesPipesAndSocketsAreInvalidFileType)
{
    hipFileHandle_t fh = nullptr;
    int dir = open(hf_test_tmpdir(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(dir, 0);
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeOpaqueFD, dir).err, hipFileInvalidFileType);
    close(dir);
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeOpaqueFD, pipefd[0]).err, hipFileInvalidFileType);
    close(pipefd[0]);
    close(pipefd[1]);
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeOpaqueFD, sv[0]).err, hipFileInvalidFileType);
    close(sv[0]);
    close(sv[1]);
    int null_fd = open("/dev/null", O_RDWR);
    ASSERT_GE(null_fd, 0);
    EXPECT_EQ(TryRegister(&fh, hipFileHandleTypeOpaqueFD, null_fd).err, hipFileInvalidFileType);
    close(null_fd);
}

TEST_F(FileRegisterTest, SameFdTwiceIsAlreadyRegistered)
{
    int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    hipFileHandle_t fh = Register(fd);
    hipFileHandle_t fh2 = nullptr;
    EXPECT_EQ(TryRegister(&fh2, hipFileHandleTypeOpaqueFD, fd).err, hipFileHandleAlreadyRegistered);
    /* Another descriptor of the same file is a separate registration. */
    int fd2 = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd2, 0);
    hipFileHandle_t fh3 = Register(fd2);
    EXPECT_NE(fh3, fh);
    hipFileHandleDeregister(fh3);
    hipFileHandleDeregister(fh);
    close(fd2);
    close(fd);
}

TEST_F(FileRegisterTest, DeregisterClosesTwinsButNeverTheCallersFd)
{
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    /* Start the driver and the GPU runtime first: they keep descriptors of their own open. */
    RegisterOnceToStartTheRuntime(fd);
    int before = OpenFdCount();
    hipFileHandle_t fh = Register(fd);
    EXPECT_GT(OpenFdCount(), before);
    hipFileHandleDeregister(fh);
    EXPECT_EQ(OpenFdCount(), before);
    EXPECT_EQ(fcntl(fd, F_GETFD), 0);
    close(fd);
}

TEST_F(FileRegisterTest, StaleAndForgedHandlesAreRejectedWithoutCrashing)
{
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    void *dev = nullptr;
    ASSERT_EQ(hipMalloc(&dev, 4096), hipSuccess);
    hipFileHandle_t fh = Register(fd);
    hipFileHandleDeregister(fh);
    hipFileHandleDeregister(fh); /* twice: ignored */
    hipFileHandleDeregister(nullptr);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 0, 0), -static_cast<ssize_t>(hipFileHandleNotRegistered));
    /* Registering again may reuse the slot; the old handle must still be refused. */
    hipFileHandle_t fresh = Register(fd);
    EXPECT_NE(fresh, fh);
    EXPECT_EQ(hipFileRead(fh, dev, 4096, 0, 0), -static_cast<ssize_t>(hipFileHandleNotRegistered));
    for (uintptr_t forged : {uintptr_t(1), uintptr_t(0xdeadbeef), ~uintptr_t(0)})
        EXPECT_EQ(hipFileRead(reinterpret_cast<hipFileHandle_t>(forged), dev, 16, 0, 0),
                  -static_cast<ssize_t>(hipFileHandleNotRegistered));
    hipFileHandleDeregister(fresh);
    close(fd);
    (void)hipFree(dev);
}

TEST_F(FileRegisterTest, DirectAndAppendDescriptorsRegister)
{
    for (int flags : {O_RDWR | O_DIRECT, O_RDWR | O_APPEND, O_WRONLY, O_RDONLY | O_NOATIME}) {
        int fd = open(path.c_str(), flags);
        if (fd < 0 && (errno == EINVAL || errno == EPERM))
            continue; /* the filesystem refuses O_DIRECT or O_NOATIME here */
        ASSERT_GE(fd, 0) << "flags " << flags;
        hipFileHandle_t fh = Register(fd);
        EXPECT_NE(fh, nullptr);
        hipFileHandleDeregister(fh);
        close(fd);
    }
}

TEST_F(FileRegisterTest, ManyFilesGetDistinctHandles)
{
    std::vector<int> fds;
    std::vector<hipFileHandle_t> handles;
    for (int i = 0; i < 100; i++) {
        int fd = open(path.c_str(), O_RDONLY);
        ASSERT_GE(fd, 0);
        fds.push_back(fd);
        handles.push_back(Register(fd));
    }
    std::sort(handles.begin(), handles.end());
    EXPECT_EQ(std::unique(handles.begin(), handles.end()), handles.end());
    for (auto fh : handles)
        hipFileHandleDeregister(fh);
    for (int fd : fds)
        close(fd);
}
