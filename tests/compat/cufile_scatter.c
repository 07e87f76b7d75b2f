/*
 * A cuFile 1.19 program: a checkpoint-like file of many tensors read with one cuFileReadv into a
 * GPU allocation per tensor, checked byte for byte and timed against a loop of cuFileRead calls,
 * then written back elsewhere in the file with cuFileWritev and checked again. Built against
 * hipfile's cufile.h, with the HIP runtime for the CPU tests (host provider) or, with
 * HF_SCATTER_CUDA, the CUDA runtime (cudaMalloc) on an NVIDIA machine.
 *
 * Usage: cufile_scatter FILE [TENSORS]   (default 300; at most 1024). Exit 0 only if intact.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cufile.h>

#ifdef HF_SCATTER_CUDA
#include <cuda_runtime_api.h>
#define gpu_malloc cudaMalloc
#define gpu_free cudaFree
#define gpu_memset cudaMemset
#define gpu_sync cudaDeviceSynchronize
#define gpu_to_host(d, s, n) cudaMemcpy(d, s, n, cudaMemcpyDeviceToHost)
#else
#include <hip/hip_runtime_api.h>
#define gpu_malloc hipMalloc
#define gpu_free hipFree
#define gpu_memset hipMemset
#define gpu_sync hipDeviceSynchronize
#define gpu_to_host(d, s, n) hipMemcpy(d, s, n, hipMemcpyDeviceToHost)
#endif

#define MAX_TENSORS 1024
#define ROUNDS 5

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether the GPU ranges of iov hold the bytes of want, in order. */
static int gather_equals(const CUfileIOVec_t *iov, int n, const unsigned char *want,
                         unsigned char *scratch)
{
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        gpu_to_host(scratch + at, iov[i].base, iov[i].len);
        at += iov[i].len;
    }
    return memcmp(scratch, want, at) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: cufile_scatter FILE [TENSORS]\n"), 2;
    int n = argc > 2 ? atoi(argv[2]) : 300;
    if (n < 1 || n > MAX_TENSORS)
        return fprintf(stderr, "cufile_scatter: 1 to %d tensors\n", MAX_TENSORS), 2;
    /* Sizes from 4 KiB to 3 MiB, none a multiple of the page: a checkpoint's mix. */
    static CUfileIOVec_t iov[MAX_TENSORS];
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        iov[i].len = 4096 + (size_t)(i * 7919 % 3000) * 1024 + (size_t)i;
        total += iov[i].len;
    }
    unsigned char *data = malloc(total), *scratch = malloc(total);
    if (data == NULL || scratch == NULL)
        return 1;
    for (size_t i = 0; i < total; i++)
        data[i] = (unsigned char)((i * 2654435761u) >> 13);
    int fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, data, total, 0) != (ssize_t)total)
        return perror("cufile_scatter: writing the file"), 1;

    CUfileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = fd;
    CUfileHandle_t fh;
    CUfileError_t status = cuFileHandleRegister(&fh, &descr);
    if (status.err != CU_FILE_SUCCESS)
        return fprintf(stderr, "cufile_scatter: register: %d\n", (int)status.err), 1;
    for (int i = 0; i < n; i++)
        if (gpu_malloc(&iov[i].base, iov[i].len) != 0)
            return fprintf(stderr, "cufile_scatter: allocation %d failed\n", i), 1;

    double best_readv = 1e9, best_loop = 1e9;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < n; i++)
            gpu_memset(iov[i].base, 0, iov[i].len);
        gpu_sync();
        double t = now_s();
        ssize_t got = cuFileReadv(fh, iov, (size_t)n, 0, 0);
        t = now_s() - t;
        if (got != (ssize_t)total)
            return fprintf(stderr, "cufile_scatter: readv returned %zd of %zu\n", got, total), 1;
        best_readv = t < best_readv ? t : best_readv;
        t = now_s();
        off_t at = 0;
        for (int i = 0; i < n; i++) {
            if (cuFileRead(fh, iov[i].base, iov[i].len, at, 0) != (ssize_t)iov[i].len)
                return fprintf(stderr, "cufile_scatter: read %d came back short\n", i), 1;
            at += (off_t)iov[i].len;
        }
        t = now_s() - t;
        best_loop = t < best_loop ? t : best_loop;
    }
    int read_ok = gather_equals(iov, n, data, scratch);
    ssize_t put = cuFileWritev(fh, iov, (size_t)n, (off_t)total, 0);
    int write_ok = put == (ssize_t)total &&
                   pread(fd, scratch, total, (off_t)total) == (ssize_t)total &&
                   memcmp(scratch, data, total) == 0;
    printf("%d tensors, %zu bytes: readv %s at %.2f GB/s, a cuFileRead loop %.2f GB/s (%.2fx); "
           "writev %s\n",
           n, total, read_ok ? "intact" : "CORRUPT", (double)total / best_readv / 1e9,
           (double)total / best_loop / 1e9, best_loop / best_readv,
           write_ok ? "intact" : "CORRUPT");
    for (int i = 0; i < n; i++)
        gpu_free(iov[i].base);
    cuFileHandleDeregister(fh);
    close(fd);
    unlink(argv[1]);
    free(data);
    free(scratch);
    return read_ok && write_ok ? 0 : 1;
}
