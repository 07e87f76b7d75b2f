/*
 * An AMD hipFile program that trusts the count: one hipFileWrite of a whole buffer larger than
 * one read(2) can move (3 GiB by default), then one hipFileRead back, then one more read that
 * starts one byte in, in the file and in the buffer, so the pieces the library splits the call
 * into keep both offsets. The buffer is not registered, as in most programs.
 *
 * Usage: hipfile_one_call FILE [MIB]. Exit 0 only if every call moved every byte, the file has
 * exactly the buffer's size and the data matches byte for byte. FILE is removed at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hipfile.h>

#include "client_data.h"

#define SEED 5

static int one_call(int write, hipFileHandle_t fh, void *dev, size_t size, hoff_t offset)
{
    double t0 = client_now_s();
    ssize_t n = write ? hipFileWrite(fh, dev, size, offset, offset)
                      : hipFileRead(fh, dev, size, offset, offset);
    double s = client_now_s() - t0;
    const char *what = write ? "hipFileWrite" : "hipFileRead";
    if (n != (ssize_t)size) {
        fprintf(stderr, "%s of %zu bytes at %lld in one call returned %zd (%s)\n", what, size,
                (long long)offset, n,
                n == -1             ? strerror(errno)
                : IS_HIPFILE_ERR(n) ? HIPFILE_ERRSTR(n)
                                    : "short");
        return 1;
    }
    printf("%s: %zu bytes at %lld in one call, %.2f GB/s\n", what, size, (long long)offset,
           (double)size / s / 1e9);
    return 0;
}

int main(int argc, char **argv)
{
    const char *path;
    size_t mib;
    if (client_args(argc, argv, "MIB", 3072, &path, &mib) != 0)
        return 2;
    size_t size = mib << 20;
    void *dev = NULL;
    hipFileHandle_t fh;
    struct stat st;
    int rc = 1;

    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) {
        perror("open");
        return 1;
    }
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = fd};
    hipFileError_t status = hipFileHandleRegister(&fh, &descr); /* opens the driver */
    if (status.err != hipFileSuccess) {
        fprintf(stderr, "hipFileHandleRegister failed: %s\n", HIPFILE_ERRSTR(status.err));
        goto close_file;
    }
    if (hipMalloc(&dev, size) != hipSuccess) {
        fprintf(stderr, "hipMalloc of %zu bytes failed\n", size);
        goto deregister_file;
    }
    if (client_fill_device(dev, size, SEED) != 0 || one_call(1, fh, dev, size, 0) != 0)
        goto free_device;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != size) {
        fprintf(stderr, "the file is %lld bytes long after writing %zu\n", (long long)st.st_size,
                size);
        goto free_device;
    }
    if (client_check_file(fd, 0, size, SEED, "after hipFileWrite") != 0 ||
        hipMemset(dev, 0, size) != hipSuccess || one_call(0, fh, dev, size, 0) != 0 ||
        client_check_device(dev, size, SEED, "after hipFileRead") != 0)
        goto free_device;
    /* The same bytes again, one in: every piece after the first starts off the page grid. */
    if (hipMemset(dev, 0, size) != hipSuccess || one_call(0, fh, dev, size - 1, 1) != 0)
        goto free_device;
    unsigned char first;
    if (hipMemcpy(&first, dev, 1, hipMemcpyDeviceToHost) != hipSuccess || first != 0) {
        fprintf(stderr, "the read at offset 1 wrote before its buffer offset\n");
        goto free_device;
    }
    /* Byte 0 was not read; give it the pattern's value so one check covers the rest. */
    if (client_fill_device(dev, 1, SEED) != 0 ||
        client_check_device(dev, size, SEED, "after hipFileRead at offset 1") != 0)
        goto free_device;
    printf("hipfile_one_call: %zu MiB moved whole in one call each way\n", size >> 20);
    rc = 0;

free_device:
    hipFree(dev);
deregister_file:
    hipFileHandleDeregister(fh);
close_file:
    close(fd);
    unlink(path);
    if (hipFileDriverClose().err != hipFileSuccess) {
        fprintf(stderr, "hipFileDriverClose failed\n");
        rc = 1;
    }
    return rc;
}
