/*
 * A checkpoint saved and loaded the way torch.cuda.gds.GdsFile does it, through the cuFile API:
 * one file handle, one cuFileWrite per tensor at the running offset (tensors packed back to back,
 * so most start off the page grid), then every tensor freed and loaded into new GPU memory with
 * one cuFileRead each, in reverse order. Half of the tensors are registered with
 * cuFileBufRegister, as torch's gds_register_buffer does. The checkpoint has hundreds of small
 * tensors (2 bytes to 64 KiB), tens of medium ones (1 to 16 MiB), a few of 64 MiB and one larger
 * than one read(2) can move (2 GiB and a bit by default).
 *
 * Usage: cufile_checkpoint FILE [BIG_MIB [O_DIRECT]]. With O_DIRECT the file is opened with it, as
 * NVIDIA's cuFile samples open theirs (the tensors stay packed, so most calls start and end off the
 * granule), and checked through a second, buffered descriptor. Exit 0 only if every call moved its
 * whole tensor and every loaded tensor equals the saved one. FILE is removed at the end.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cufile.h>
#include <hip/hip_runtime_api.h>

#include "client_data.h"

enum { SMALL = 300, MEDIUM = 32, LARGE = 4, TENSORS = SMALL + MEDIUM + LARGE + 1 };

struct tensor {
    size_t nbytes;
    off_t offset;
    void *dev;
    int registered;
};

static void layout(struct tensor *t, size_t big_mib)
{
    size_t n = 0;
    for (unsigned i = 0; i < SMALL; i++)
        t[n++].nbytes = (size_t)(i * 7919u % 65536u) + 2;
    for (unsigned i = 0; i < MEDIUM; i++)
        t[n++].nbytes = ((size_t)(1 + i % 16) << 20) + i * 12;
    for (unsigned i = 0; i < LARGE; i++)
        t[n++].nbytes = ((size_t)64 << 20) - i * 4096 + i;
    t[n++].nbytes = (big_mib << 20) + 3 * 4096 + 6;
    off_t at = 0;
    for (unsigned i = 0; i < TENSORS; i++) {
        t[i].offset = at;
        at += (off_t)t[i].nbytes;
        t[i].registered = i % 2;
    }
}

static int status_failed(const char *what, unsigned i, CUfileError_t status)
{
    if (status.err == CU_FILE_SUCCESS)
        return 0;
    fprintf(stderr, "%s of tensor %u failed: %s\n", what, i, cufileop_status_error(status.err));
    return 1;
}

/* GPU memory for tensor @p i, registered when the layout says so. */
static int tensor_alloc(struct tensor *t, unsigned i)
{
    if (hipMalloc(&t->dev, t->nbytes) != hipSuccess) {
        fprintf(stderr, "hipMalloc of tensor %u (%zu bytes) failed\n", i, t->nbytes);
        return 1;
    }
    if (t->registered &&
        status_failed("cuFileBufRegister", i, cuFileBufRegister(t->dev, t->nbytes, 0)))
        return 1;
    return 0;
}

static void tensor_free(struct tensor *t)
{
    if (t->dev == NULL)
        return;
    if (t->registered)
        cuFileBufDeregister(t->dev);
    hipFree(t->dev);
    t->dev = NULL;
}

static int tensor_io(int write, CUfileHandle_t fh, const struct tensor *t, unsigned i)
{
    ssize_t n = write ? cuFileWrite(fh, t->dev, t->nbytes, t->offset, 0)
                      : cuFileRead(fh, t->dev, t->nbytes, t->offset, 0);
    if (n == (ssize_t)t->nbytes)
        return 0;
    fprintf(stderr, "%s of tensor %u (%zu bytes at %lld) returned %zd\n",
            write ? "cuFileWrite" : "cuFileRead", i, t->nbytes, (long long)t->offset, n);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path;
    size_t big_mib;
    int direct = argc == 4 && strcmp(argv[3], "O_DIRECT") == 0;
    if (client_args(direct ? 3 : argc, argv, "BIG_MIB [O_DIRECT]", 2048, &path, &big_mib) != 0)
        return 2;
    static struct tensor tensors[TENSORS];
    layout(tensors, big_mib);
    CUfileHandle_t fh;
    int rc = 1;

    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC | (direct ? O_DIRECT : 0), 0644);
    if (fd < 0) {
        perror("open");
        return 1;
    }
    /* The program's own check reads whole chunks at tensor offsets, which O_DIRECT refuses. */
    int check_fd = direct ? open(path, O_RDONLY) : fd;
    if (check_fd < 0) {
        perror("open for the check");
        goto close_file;
    }
    CUfileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = fd;
    if (status_failed("cuFileHandleRegister", 0, cuFileHandleRegister(&fh, &descr)))
        goto close_file;

    double t0 = client_now_s();
    size_t total = 0;
    for (unsigned i = 0; i < TENSORS; i++) {
        if (tensor_alloc(&tensors[i], i) != 0 ||
            client_fill_device(tensors[i].dev, tensors[i].nbytes, i) != 0 ||
            tensor_io(1, fh, &tensors[i], i) != 0)
            goto free_tensors;
        total += tensors[i].nbytes;
        tensor_free(&tensors[i]);
    }
    double save_s = client_now_s() - t0;
    for (unsigned i = 0; i < TENSORS; i++)
        if (client_check_file(check_fd, (uint64_t)tensors[i].offset, tensors[i].nbytes, i,
                              "saved") != 0)
            goto free_tensors;

    t0 = client_now_s();
    for (unsigned i = TENSORS; i-- > 0;) {
        if (tensor_alloc(&tensors[i], i) != 0 || hipMemset(tensors[i].dev, 0, tensors[i].nbytes) ||
            tensor_io(0, fh, &tensors[i], i) != 0)
            goto free_tensors;
    }
    double load_s = client_now_s() - t0;
    for (unsigned i = 0; i < TENSORS; i++)
        if (client_check_device(tensors[i].dev, tensors[i].nbytes, i, "loaded") != 0)
            goto free_tensors;
    printf("cufile_checkpoint: %u tensors, %zu bytes, saved and loaded intact%s "
           "(save %.2f GB/s, load %.2f GB/s)\n",
           (unsigned)TENSORS, total, direct ? " through O_DIRECT" : "",
           (double)total / save_s / 1e9, (double)total / load_s / 1e9);
    rc = 0;

free_tensors:
    for (unsigned i = 0; i < TENSORS; i++)
        tensor_free(&tensors[i]);
    cuFileHandleDeregister(fh);
close_file:
    if (check_fd >= 0 && check_fd != fd)
        close(check_fd);
    close(fd);
    unlink(path);
    if (cuFileDriverClose().err != CU_FILE_SUCCESS) {
        fprintf(stderr, "cuFileDriverClose failed\n");
        rc = 1;
    }
    return rc;
}
