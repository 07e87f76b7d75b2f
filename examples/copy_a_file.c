/*
 * copy-a-file: copies SOURCE to DEST through GPU memory, one chunk at a time: hipFileRead from the
 * source into a GPU buffer, hipFileWrite from that buffer to the destination.
 * Usage: copy-a-file SOURCE DEST [CHUNK_KIB] (default chunk 64 MiB, smaller for small files).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define COPY_DEFAULT_CHUNK_KIB (64u * 1024u)
#define COPY_ALIGN 4096u

/*
 * Copy up to @p size bytes at @p offset of @p src to the same place in @p dst through @p dev.
 * Returns the number of bytes copied (a short read copies less), or -1 after printing why.
 */
static ssize_t copy_chunk(hipFileHandle_t src, hipFileHandle_t dst, void *dev, size_t size,
                          off_t offset)
{
    ssize_t got = hipFileRead(src, dev, size, offset, 0);
    if (got < 0) {
        example_print_io_error("hipFileRead", got);
        return -1;
    }
    if (got == 0) {
        fprintf(stderr, "source ended early at offset %lld (was it truncated?)\n",
                (long long)offset);
        return -1;
    }
    /* A short read is fine: write what arrived, and the caller continues after it. */
    size_t written = 0;
    while (written < (size_t)got) {
        ssize_t n =
            hipFileWrite(dst, dev, (size_t)got - written, offset + (off_t)written, (off_t)written);
        if (n < 0) {
            example_print_io_error("hipFileWrite", n);
            return -1;
        }
        if (n == 0) {
            fprintf(stderr, "hipFileWrite moved no bytes at offset %lld\n",
                    (long long)offset + (long long)written);
            return -1;
        }
        written += (size_t)n;
    }
    return got;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
    /* Line-buffered, so our lines stay in order with the library's log lines on stderr. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s SOURCE DEST [CHUNK_KIB]\n", argv[0]);
        return 2;
    }
    const char *src_path = argv[1], *dst_path = argv[2];
    unsigned long chunk_kib = COPY_DEFAULT_CHUNK_KIB;
    if (argc == 4) {
        char *end;
        errno = 0;
        chunk_kib = strtoul(argv[3], &end, 10);
        if (errno != 0 || *end != '\0' || chunk_kib == 0 || chunk_kib > 1024ul * 1024ul) {
            fprintf(stderr, "CHUNK_KIB must be a number from 1 to 1048576, not '%s'\n", argv[3]);
            return 2;
        }
    }

    int status = EXIT_FAILURE;
    int src_fd = -1, dst_fd = -1;
    hipFileHandle_t src = NULL, dst = NULL;
    void *dev = NULL;
    hipError_t hip;

    example_enable_stats();
    hipFileError_t err = hipFileDriverOpen();
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileDriverOpen", err);
        return EXIT_FAILURE;
    }
    example_report_runtime();

    if (example_open_registered(src_path, O_RDONLY, 0, &src_fd, &src) != 0)
        goto close_driver;
    struct stat st;
    if (fstat(src_fd, &st) != 0) {
        fprintf(stderr, "cannot stat %s: %s\n", src_path, strerror(errno));
        goto close_src;
    }
    size_t file_size = (size_t)st.st_size;
    if (example_open_registered(dst_path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &dst_fd, &dst) != 0)
        goto close_src;

    /* One buffer, allocated once and rounded to whole pages so the direct path can use it. */
    size_t chunk = (size_t)chunk_kib * 1024u;
    if (chunk > file_size)
        chunk = file_size;
    chunk = (chunk + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN;
    if (chunk == 0)
        chunk = COPY_ALIGN;
    hip = hipMalloc(&dev, chunk);
    if (hip != hipSuccess) {
        fprintf(stderr, "hipMalloc of %zu bytes failed: %s\n", chunk, hipGetErrorString(hip));
        goto close_dst;
    }
    err = hipFileBufRegister(dev, chunk, 0);
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileBufRegister", err);
        goto free_dev;
    }

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t copied = 0;
    while (copied < file_size) {
        size_t want = file_size - copied < chunk ? file_size - copied : chunk;
        ssize_t n = copy_chunk(src, dst, dev, want, (off_t)copied);
        if (n < 0)
            goto deregister_buf;
        copied += (size_t)n;
    }
    double secs = seconds_since(&start);
    printf("copied %zu bytes from %s to %s in %.3f s (%.1f MB/s, %zu-byte chunks)\n", copied,
           src_path, dst_path, secs, secs > 0 ? (double)copied / secs / 1e6 : 0.0, chunk);
    example_report_path();
    status = EXIT_SUCCESS;

deregister_buf:
    err = hipFileBufDeregister(dev);
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileBufDeregister", err);
        status = EXIT_FAILURE;
    }
free_dev:
    hip = hipFree(dev);
    if (hip != hipSuccess) {
        fprintf(stderr, "hipFree failed: %s\n", hipGetErrorString(hip));
        status = EXIT_FAILURE;
    }
close_dst:
    if (example_close_registered(dst_path, dst_fd, dst) != 0)
        status = EXIT_FAILURE;
close_src:
    if (example_close_registered(src_path, src_fd, src) != 0)
        status = EXIT_FAILURE;
close_driver:
    err = hipFileDriverClose();
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileDriverClose", err);
        status = EXIT_FAILURE;
    }
    return status;
}
