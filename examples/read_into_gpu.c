#include <errno.h>
#include <fcntl.h>
#include <hipfile.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "data.bin";
    size_t size = 1 << 20;
    void *gpu = NULL;
    hipFileHandle_t fh;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return 1;
    }
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = fd};
    hipFileError_t status = hipFileHandleRegister(&fh, &descr); /* opens the driver */
    if (status.err != hipFileSuccess) {
        fprintf(stderr, "register %s: %s\n", path, HIPFILE_ERRSTR(status.err));
        return 1;
    }
    if (hipMalloc(&gpu, size) != hipSuccess) {
        fprintf(stderr, "hipMalloc of %zu bytes failed\n", size);
        return 1;
    }
    ssize_t n = hipFileRead(fh, gpu, size, /* file offset */ 0, /* buffer offset */ 0);
    if (n < 0)
        fprintf(stderr, "read: %s\n", IS_HIPFILE_ERR(n) ? HIPFILE_ERRSTR(n) : strerror(errno));
    else
        printf("read %zd bytes into GPU memory\n", n);

    hipFileHandleDeregister(fh);
    hipFree(gpu);
    close(fd);
    return hipFileDriverClose().err != hipFileSuccess || n < 0;
}
