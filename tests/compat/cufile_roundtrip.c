/*
 * A cuFile program: writes a pattern from GPU memory to a file with cuFileWrite, reads it back
 * into zeroed GPU memory with cuFileRead, checks every byte and prints the throughput of each.
 * The same source builds two ways: against hipfile's cufile.h with the HIP runtime (the CPU
 * tests, through the host provider), and with HF_ROUNDTRIP_CUDA against NVIDIA's real cufile.h
 * and the CUDA runtime (cudaMalloc), linked with -lcufile, to run on NVIDIA's library or ours.
 *
 * Usage: cufile_roundtrip FILE [MIB]   (default 64 MiB). Exit 0 only if the data came back intact.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cufile.h>

#ifdef HF_ROUNDTRIP_CUDA
#include <cuda_runtime_api.h>
#define GPU_OK cudaSuccess
#define gpu_malloc cudaMalloc
#define gpu_free cudaFree
#define gpu_memset cudaMemset
#define gpu_to_device(d, s, n) cudaMemcpy(d, s, n, cudaMemcpyHostToDevice)
#define gpu_to_host(d, s, n) cudaMemcpy(d, s, n, cudaMemcpyDeviceToHost)
#define gpu_error_string(e) cudaGetErrorString(e)
#else
#include <hip/hip_runtime_api.h>
#define GPU_OK hipSuccess
#define gpu_malloc hipMalloc
#define gpu_free hipFree
#define gpu_memset hipMemset
#define gpu_to_device(d, s, n) hipMemcpy(d, s, n, hipMemcpyHostToDevice)
#define gpu_to_host(d, s, n) hipMemcpy(d, s, n, hipMemcpyDeviceToHost)
#define gpu_error_string(e) hipGetErrorString(e)
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail_status(const char *what, CUfileError_t status)
{
    fprintf(stderr, "cufile_roundtrip: %s failed: %d (%s), CUDA result %d\n", what, (int)status.err,
            cufileop_status_error(status.err), (int)status.cu_err);
    return 1;
}

/* Moves all of size bytes, looping over short counts; returns the count or a negative result. */
static ssize_t transfer_all(int write, CUfileHandle_t fh, void *buf, size_t size)
{
    size_t done = 0;

    while (done < size) {
        ssize_t n = write ? cuFileWrite(fh, buf, size - done, (off_t)done, (off_t)done)
                          : cuFileRead(fh, buf, size - done, (off_t)done, (off_t)done);
        if (n <= 0)
            return n < 0 ? n : -1;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int report_io_failure(const char *what, ssize_t n)
{
    if (IS_CUFILE_ERR(n))
        fprintf(stderr, "cufile_roundtrip: %s failed: %s (%zd)\n", what,
                cufileop_status_error((CUfileOpError)(-n)), n);
    else
        fprintf(stderr, "cufile_roundtrip: %s failed: %zd\n", what, n);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path;
    size_t size = 64u << 20;
    unsigned char *pattern = NULL, *back = NULL;
    void *dev = NULL;
    CUfileDescr_t descr;
    CUfileHandle_t fh = NULL;
    CUfileError_t status;
    ssize_t n;
    double t0, write_s, read_s;
    int fd, rc = 1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE [MIB]\n", argv[0]);
        return 2;
    }
    path = argv[1];
    if (argc == 3)
        size = (size_t)strtoul(argv[2], NULL, 10) << 20;
    if (size == 0) {
        fprintf(stderr, "cufile_roundtrip: size must be at least 1 MiB\n");
        return 2;
    }

    pattern = malloc(size);
    back = malloc(size);
    if (pattern == NULL || back == NULL) {
        fprintf(stderr, "cufile_roundtrip: out of host memory\n");
        goto free_host;
    }
    for (size_t i = 0; i < size; i++)
        pattern[i] = (unsigned char)((i * 2654435761u) >> 13);

    status = cuFileDriverOpen();
    if (status.err != CU_FILE_SUCCESS) {
        rc = fail_status("cuFileDriverOpen", status);
        goto free_host;
    }
    if (gpu_malloc(&dev, size) != GPU_OK || gpu_to_device(dev, pattern, size) != GPU_OK) {
        fprintf(stderr, "cufile_roundtrip: GPU allocation or copy failed\n");
        goto close_driver;
    }
    fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) {
        perror("cufile_roundtrip: open");
        goto free_device;
    }
    memset(&descr, 0, sizeof(descr));
    descr.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = fd;
    status = cuFileHandleRegister(&fh, &descr);
    if (status.err != CU_FILE_SUCCESS) {
        rc = fail_status("cuFileHandleRegister", status);
        goto close_file;
    }
    status = cuFileBufRegister(dev, size, 0);
    if (status.err != CU_FILE_SUCCESS) {
        rc = fail_status("cuFileBufRegister", status);
        goto deregister_file;
    }

    t0 = now_s();
    n = transfer_all(1, fh, dev, size);
    write_s = now_s() - t0;
    if (n != (ssize_t)size) {
        rc = report_io_failure("cuFileWrite", n);
        goto deregister_buffer;
    }
    if (gpu_memset(dev, 0, size) != GPU_OK) {
        fprintf(stderr, "cufile_roundtrip: clearing GPU memory failed\n");
        goto deregister_buffer;
    }
    t0 = now_s();
    n = transfer_all(0, fh, dev, size);
    read_s = now_s() - t0;
    if (n != (ssize_t)size) {
        rc = report_io_failure("cuFileRead", n);
        goto deregister_buffer;
    }
    if (gpu_to_host(back, dev, size) != GPU_OK) {
        fprintf(stderr, "cufile_roundtrip: copying GPU memory back failed\n");
        goto deregister_buffer;
    }
    if (memcmp(pattern, back, size) != 0) {
        size_t i = 0;
        while (pattern[i] == back[i])
            i++;
        fprintf(stderr, "cufile_roundtrip: data differs first at byte %zu\n", i);
        goto deregister_buffer;
    }
    printf("cufile_roundtrip: %zu MiB intact; write %.2f GB/s, read %.2f GB/s\n", size >> 20,
           (double)size / write_s / 1e9, (double)size / read_s / 1e9);
    rc = 0;

deregister_buffer:
    status = cuFileBufDeregister(dev);
    if (status.err != CU_FILE_SUCCESS)
        rc = fail_status("cuFileBufDeregister", status);
deregister_file:
    cuFileHandleDeregister(fh);
close_file:
    close(fd);
free_device:
    gpu_free(dev);
close_driver:
    status = cuFileDriverClose();
    if (status.err != CU_FILE_SUCCESS)
        rc = fail_status("cuFileDriverClose", status);
free_host:
    free(back);
    free(pattern);
    return rc;
}
