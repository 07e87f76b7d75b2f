/*
 * roundtrip-verify: writes a pattern from GPU memory to a file with hipFileWrite, reads it back
 * into a second GPU buffer with hipFileRead and compares on the host, for several sizes and
 * offsets. Usage: roundtrip-verify [DIRECTORY] (default $TMPDIR, else /tmp); exits 1 on mismatch.
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
#include <unistd.h>

/* One transfer: the bytes at [file_offset, file_offset+size) go through buffer_offset. */
struct roundtrip_case {
    size_t size;
    off_t file_offset;
    off_t buffer_offset;
    const char *what;
};

/* Aligned and unaligned shapes, and one larger than a typical bounce buffer. */
static const struct roundtrip_case roundtrip_cases[] = {
    {4096, 0, 0, "one aligned page"},
    {1 << 20, 4096, 0, "1 MiB at an aligned offset"},
    {1000003, 12345, 7, "unaligned size and offsets"},
    {1, 8191, 4095, "a single byte"},
    {(16 << 20) + 513, 3 << 20, 4096, "16 MiB and a partial page"},
};
#define ROUNDTRIP_CASES (sizeof(roundtrip_cases) / sizeof(roundtrip_cases[0]))

/* Write all @p size bytes, looping over short counts. Returns 0 or -1 after printing why. */
static int write_all(hipFileHandle_t handle, const void *buf, size_t size, off_t file_offset,
                     off_t buffer_offset)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = hipFileWrite(handle, buf, size - done, file_offset + (off_t)done,
                                 buffer_offset + (off_t)done);
        if (n < 0) {
            example_print_io_error("hipFileWrite", n);
            return -1;
        }
        if (n == 0) {
            fprintf(stderr, "hipFileWrite moved no bytes at file offset %lld\n",
                    (long long)file_offset + (long long)done);
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Read all @p size bytes, looping over short counts; end of file first is an error. */
static int read_all(hipFileHandle_t handle, void *buf, size_t size, off_t file_offset,
                    off_t buffer_offset)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = hipFileRead(handle, buf, size - done, file_offset + (off_t)done,
                                buffer_offset + (off_t)done);
        if (n < 0) {
            example_print_io_error("hipFileRead", n);
            return -1;
        }
        if (n == 0) {
            fprintf(stderr, "hipFileRead hit end of file at offset %lld, expected %zu more bytes\n",
                    (long long)file_offset + (long long)done, size - done);
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Print whether a HIP call failed; returns -1 when it did. */
static int hip_check(hipError_t hip, const char *what)
{
    if (hip == hipSuccess)
        return 0;
    fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString(hip));
    return -1;
}

/* Run one case through @p src_dev (registered) and @p dst_dev (not registered). */
static int run_case(hipFileHandle_t handle, const struct roundtrip_case *c, unsigned seed,
                    unsigned char *src_dev, unsigned char *dst_dev, size_t dev_size,
                    unsigned char *expected, unsigned char *actual)
{
    example_pattern_fill(expected, c->size, (uint64_t)c->file_offset, seed);
    if (hip_check(hipMemcpy(src_dev + c->buffer_offset, expected, c->size, hipMemcpyHostToDevice),
                  "hipMemcpy to the device") != 0)
        return -1;
    if (write_all(handle, src_dev, c->size, c->file_offset, c->buffer_offset) != 0)
        return -1;
    /* Clear the target so stale bytes from an earlier case cannot pass for a good read. */
    if (hip_check(hipMemset(dst_dev, 0, dev_size), "hipMemset") != 0)
        return -1;
    if (read_all(handle, dst_dev, c->size, c->file_offset, c->buffer_offset) != 0)
        return -1;
    if (hip_check(hipMemcpy(actual, dst_dev + c->buffer_offset, c->size, hipMemcpyDeviceToHost),
                  "hipMemcpy to the host") != 0)
        return -1;
    if (memcmp(expected, actual, c->size) != 0) {
        size_t i = 0;
        while (expected[i] == actual[i])
            i++;
        fprintf(stderr, "MISMATCH at byte %zu (file offset %lld): expected 0x%02x, read 0x%02x\n",
                i, (long long)c->file_offset + (long long)i, expected[i], actual[i]);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* Line-buffered, so our lines stay in order with the library's log lines on stderr. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: %s [DIRECTORY]\n", argv[0]);
        return 2;
    }
    const char *dir = argc == 2 ? argv[1] : getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";

    size_t dev_size = 0;
    off_t file_end = 0;
    for (size_t i = 0; i < ROUNDTRIP_CASES; i++) {
        const struct roundtrip_case *c = &roundtrip_cases[i];
        if ((size_t)c->buffer_offset + c->size > dev_size)
            dev_size = (size_t)c->buffer_offset + c->size;
        if (c->file_offset + (off_t)c->size > file_end)
            file_end = c->file_offset + (off_t)c->size;
    }

    int status = EXIT_FAILURE;
    int fd = -1;
    hipFileHandle_t handle = NULL;
    unsigned char *src_dev = NULL, *dst_dev = NULL;
    unsigned char *expected = NULL, *actual = NULL;
    hipFileError_t err;
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/hipfile-roundtrip-XXXXXX", dir) >= (int)sizeof(path)) {
        fprintf(stderr, "directory name too long: %s\n", dir);
        return EXIT_FAILURE;
    }
    int tmp_fd = mkstemp(path);
    if (tmp_fd < 0) {
        fprintf(stderr, "cannot create a file in %s: %s\n", dir, strerror(errno));
        return EXIT_FAILURE;
    }
    close(tmp_fd);

    example_enable_stats();
    err = hipFileDriverOpen();
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileDriverOpen", err);
        goto remove_file;
    }
    example_report_runtime();
    printf("test file: %s\n", path);

    if (example_open_registered(path, O_RDWR, 0600, &fd, &handle) != 0)
        goto close_driver;

    if (hip_check(hipMalloc((void **)&src_dev, dev_size), "hipMalloc") != 0)
        goto close_file;
    if (hip_check(hipMalloc((void **)&dst_dev, dev_size), "hipMalloc") != 0)
        goto free_src;
    /* The source buffer is registered, the target is not: both kinds must work. */
    err = hipFileBufRegister(src_dev, dev_size, 0);
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileBufRegister", err);
        goto free_dst;
    }
    expected = malloc(dev_size);
    actual = malloc(dev_size);
    if (expected == NULL || actual == NULL) {
        fprintf(stderr, "out of host memory for %zu-byte buffers\n", dev_size);
        goto free_host;
    }

    unsigned failed = 0;
    for (size_t i = 0; i < ROUNDTRIP_CASES; i++) {
        const struct roundtrip_case *c = &roundtrip_cases[i];
        int rc = run_case(handle, c, (unsigned)i + 1, src_dev, dst_dev, dev_size, expected, actual);
        printf("%-4s %-28s size %9zu  file offset %8lld  buffer offset %5lld\n",
               rc == 0 ? "ok" : "FAIL", c->what, c->size, (long long)c->file_offset,
               (long long)c->buffer_offset);
        if (rc != 0)
            failed++;
    }

    /* A read that starts at end of file moves nothing and is not an error. */
    ssize_t at_eof = hipFileRead(handle, dst_dev, 4096, file_end, 0);
    printf("%-4s %-28s returned %zd\n", at_eof == 0 ? "ok" : "FAIL", "read at end of file", at_eof);
    if (at_eof != 0) {
        if (at_eof < 0)
            example_print_io_error("hipFileRead at end of file", at_eof);
        failed++;
    }

    example_report_path();
    if (failed == 0) {
        printf("roundtrip-verify: all %zu transfers matched\n", ROUNDTRIP_CASES + 1);
        status = EXIT_SUCCESS;
    } else {
        printf("roundtrip-verify: %u of %zu checks FAILED\n", failed, ROUNDTRIP_CASES + 1);
    }

free_host:
    free(actual);
    free(expected);
    err = hipFileBufDeregister(src_dev);
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileBufDeregister", err);
        status = EXIT_FAILURE;
    }
free_dst:
    if (hip_check(hipFree(dst_dev), "hipFree") != 0)
        status = EXIT_FAILURE;
free_src:
    if (hip_check(hipFree(src_dev), "hipFree") != 0)
        status = EXIT_FAILURE;
close_file:
    if (example_close_registered(path, fd, handle) != 0)
        status = EXIT_FAILURE;
close_driver:
    err = hipFileDriverClose();
    if (err.err != hipFileSuccess) {
        example_print_error("hipFileDriverClose", err);
        status = EXIT_FAILURE;
    }
remove_file:
    unlink(path);
    return status;
}
