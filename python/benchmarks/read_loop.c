/*
 * The C side of the Python call-overhead measurement (call_overhead.py): reads SIZE bytes from
 * offset 0 of FILE into device memory ITERATIONS times through hipFileRead and prints the mean
 * time of one call. The file is read once first so that every timed read finds it cached.
 *
 *   read_loop FILE [SIZE [ITERATIONS]]    prints "c: SIZE bytes, N calls, X.XXX us per call"
 */
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s FILE [SIZE [ITERATIONS]]\n", argv[0]);
        return 2;
    }
    size_t size = argc > 2 ? strtoull(argv[2], NULL, 0) : 4096;
    long iterations = argc > 3 ? strtol(argv[3], NULL, 0) : 100000;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    hipFileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t handle;
    hipFileError_t status = hipFileHandleRegister(&handle, &descr);
    if (status.err != hipFileSuccess) {
        fprintf(stderr, "hipFileHandleRegister: %s\n", HIPFILE_ERRSTR(status.err));
        return 1;
    }
    void *buffer = NULL;
    if (hipMalloc(&buffer, size) != hipSuccess) {
        fprintf(stderr, "hipMalloc of %zu bytes failed\n", size);
        return 1;
    }
    /* Warm up: the page cache, the backend's staging memory and the runtime's pointer tables. */
    for (int i = 0; i < 100; i++) {
        if (hipFileRead(handle, buffer, size, 0, 0) != (ssize_t)size) {
            fprintf(stderr, "hipFileRead did not read %zu bytes\n", size);
            return 1;
        }
    }
    double start = now_us();
    for (long i = 0; i < iterations; i++)
        (void)hipFileRead(handle, buffer, size, 0, 0);
    double elapsed = now_us() - start;
    printf("c: %zu bytes, %ld calls, %.3f us per call\n", size, iterations,
           elapsed / (double)iterations);
    (void)hipFree(buffer);
    hipFileHandleDeregister(handle);
    close(fd);
    return 0;
}
