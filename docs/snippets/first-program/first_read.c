/* The first program of getting-started.rst: read the first 4 KiB of a file into GPU memory. */
#include <fcntl.h>
#include <hipfile.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int fd = open(argv[1], O_RDONLY);
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = fd};
    hipFileHandle_t fh;
    void *gpu;
    if (fd < 0 || hipFileDriverOpen().err != hipFileSuccess ||
        hipFileHandleRegister(&fh, &descr).err != hipFileSuccess ||
        hipMalloc(&gpu, 4096) != hipSuccess)
        return 1;
    ssize_t n = hipFileRead(fh, gpu, 4096, 0, 0); /* size, file offset, buffer offset */
    printf("%zd: %s\n", n, n >= 0 ? "bytes read" : HIPFILE_ERRSTR(n));
    hipFileHandleDeregister(fh);
    hipFree(gpu);
    close(fd);
    return hipFileDriverClose().err != hipFileSuccess || n < 0;
}
