/*
 * An application of the installed library: <hipfile.h>, libhipfile and a HIP runtime. It opens the
 * driver (which reads the installed config and loads the installed plugins) and reads the file
 * named on the command line into device memory, then checks the bytes against the file.
 */
#define _POSIX_C_SOURCE 200809L /* pread, under -std=c17 */
#include <fcntl.h>
#include <hipfile.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define READ_SIZE 4096

int main(int argc, char **argv)
{
    unsigned major, minor, patch;
    hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    if (argc != 2 || status.err != hipFileSuccess || major != HIPFILE_VERSION_MAJOR ||
        minor != HIPFILE_VERSION_MINOR || patch != HIPFILE_VERSION_PATCH)
        return 2;
    status = hipFileDriverOpen();
    if (status.err != hipFileSuccess) {
        fprintf(stderr, "hipFileDriverOpen: %s\n", HIPFILE_ERRSTR(status.err));
        return 1;
    }
    int fd = open(argv[1], O_RDONLY);
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = fd};
    hipFileHandle_t fh;
    void *gpu = NULL;
    if (fd < 0 || hipFileHandleRegister(&fh, &descr).err != hipFileSuccess ||
        hipMalloc(&gpu, READ_SIZE) != hipSuccess) {
        fprintf(stderr, "cannot register %s or allocate device memory\n", argv[1]);
        return 1;
    }
    ssize_t n = hipFileRead(fh, gpu, READ_SIZE, 0, 0);
    char expected[READ_SIZE], got[READ_SIZE];
    ssize_t want = pread(fd, expected, sizeof(expected), 0);
    bool same = n >= 0 && n == want &&
                hipMemcpy(got, gpu, (size_t)n, hipMemcpyDeviceToHost) == hipSuccess &&
                memcmp(got, expected, (size_t)n) == 0;
    if (n < 0)
        fprintf(stderr, "hipFileRead: %s\n", IS_HIPFILE_ERR(n) ? HIPFILE_ERRSTR(n) : "errno set");
    else
        printf("hipfile %u.%u.%u read %zd bytes into device memory, %s the file\n", major, minor,
               patch, n, same ? "identical to" : "DIFFERENT FROM");
    hipFileHandleDeregister(fh);
    hipFree(gpu);
    close(fd);
    return hipFileDriverClose().err != hipFileSuccess || !same;
}
