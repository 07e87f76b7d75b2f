/*
 * A cuFile program as PyTorch's torch.cuda.gds writes one: one cuFileWrite of a whole tensor and
 * one cuFileRead back, trusting the count (cuFile clients do not loop on short counts). The tensor
 * is larger than one read(2) can move (3 GiB by default), so the library must split it inside.
 *
 * Usage: cufile_one_call FILE [MIB]. Exit 0 only if both calls moved every byte, the file has
 * exactly the tensor's size and both copies match byte for byte. FILE is removed at the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cufile.h>
#include <hip/hip_runtime_api.h>

#include "client_data.h"

#define SEED 3

static int status_failed(const char *what, CUfileError_t status)
{
    if (status.err == CU_FILE_SUCCESS)
        return 0;
    fprintf(stderr, "%s failed: %d (%s)\n", what, (int)status.err,
            cufileop_status_error(status.err));
    return 1;
}

/* One call, as the client makes it: the count must be the whole size. */
static int one_call(int write, CUfileHandle_t fh, void *dev, size_t size)
{
    double t0 = client_now_s();
    ssize_t n = write ? cuFileWrite(fh, dev, size, 0, 0) : cuFileRead(fh, dev, size, 0, 0);
    double s = client_now_s() - t0;
    const char *what = write ? "cuFileWrite" : "cuFileRead";
    if (n != (ssize_t)size) {
        fprintf(stderr, "%s of %zu bytes in one call returned %zd%s%s\n", what, size, n,
                n < 0 ? ": " : "", n < 0 ? cufileop_status_error((CUfileOpError)-n) : "");
        return 1;
    }
    printf("%s: %zu bytes in one call, %.2f GB/s\n", what, size, (double)size / s / 1e9);
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
    CUfileHandle_t fh;
    struct stat st;
    int rc = 1;

    if (status_failed("cuFileDriverOpen", cuFileDriverOpen()))
        return 1;
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) {
        perror("open");
        goto close_driver;
    }
    CUfileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = fd;
    if (status_failed("cuFileHandleRegister", cuFileHandleRegister(&fh, &descr)))
        goto close_file;
    if (hipMalloc(&dev, size) != hipSuccess) {
        fprintf(stderr, "hipMalloc of %zu bytes failed\n", size);
        goto deregister_file;
    }
    if (client_fill_device(dev, size, SEED) != 0 ||
        status_failed("cuFileBufRegister", cuFileBufRegister(dev, size, 0)))
        goto free_device;

    if (one_call(1, fh, dev, size) != 0)
        goto deregister_buffer;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != size) {
        fprintf(stderr, "the file is %lld bytes long after writing %zu\n", (long long)st.st_size,
                size);
        goto deregister_buffer;
    }
    if (client_check_file(fd, 0, size, SEED, "after cuFileWrite") != 0)
        goto deregister_buffer;
    if (hipMemset(dev, 0, size) != hipSuccess) {
        fprintf(stderr, "hipMemset failed\n");
        goto deregister_buffer;
    }
    if (one_call(0, fh, dev, size) != 0 ||
        client_check_device(dev, size, SEED, "after cuFileRead") != 0)
        goto deregister_buffer;
    printf("cufile_one_call: %zu MiB moved whole in one call each way\n", size >> 20);
    rc = 0;

deregister_buffer:
    rc |= status_failed("cuFileBufDeregister", cuFileBufDeregister(dev));
free_device:
    hipFree(dev);
deregister_file:
    cuFileHandleDeregister(fh);
close_file:
    close(fd);
    unlink(path);
close_driver:
    rc |= status_failed("cuFileDriverClose", cuFileDriverClose());
    return rc;
}
