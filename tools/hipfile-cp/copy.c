/*
 * The copy through GPU memory, and the verification that reads both files back with pread.
 */
#include <errno.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp.h"

static void print_io_error(const char *what, const char *path, ssize_t ret)
{
    if (IS_HIPFILE_ERR(ret))
        fprintf(stderr, CP_NAME ": %s %s: %s\n", what, path, HIPFILE_ERRSTR(ret));
    else
        fprintf(stderr, CP_NAME ": %s %s: %s\n", what, path, strerror(errno));
}

/* Read [offset, offset + size) of src into dev, then write what arrived to dst. A short read
 * before the expected end means the source shrank under us: that is an error, not a copy. */
static ssize_t copy_chunk(const char *src_path, hipFileHandle_t src, const char *dst_path,
                          hipFileHandle_t dst, void *dev, size_t size, off_t offset)
{
    ssize_t got = hipFileRead(src, dev, size, offset, 0);
    if (got < 0) {
        print_io_error("cannot read", src_path, got);
        return -1;
    }
    if (got == 0) {
        fprintf(stderr, CP_NAME ": %s ended at byte %lld, before its size when opened\n", src_path,
                (long long)offset);
        return -1;
    }
    for (size_t written = 0; written < (size_t)got;) {
        ssize_t n =
            hipFileWrite(dst, dev, (size_t)got - written, offset + (off_t)written, (off_t)written);
        if (n < 0) {
            print_io_error("cannot write", dst_path, n);
            return -1;
        }
        if (n == 0) {
            fprintf(stderr, CP_NAME ": writing %s moved no bytes at offset %lld\n", dst_path,
                    (long long)offset + (long long)written);
            return -1;
        }
        written += (size_t)n;
    }
    return got;
}

static int register_file(const char *path, int fd, hipFileHandle_t *handle)
{
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = fd};
    hipFileError_t err = hipFileHandleRegister(handle, &descr);
    if (err.err != hipFileSuccess) {
        fprintf(stderr, CP_NAME ": cannot register %s with hipfile: %s\n", path,
                hipFileGetOpErrorString(err.err));
        return -1;
    }
    return 0;
}

int cp_copy(const char *src_path, int src_fd, const char *dst_path, int dst_fd, uint64_t size,
            uint64_t chunk, int device, struct cp_progress *progress)
{
    int status = -1;
    hipFileHandle_t src = NULL, dst = NULL;
    void *dev = NULL;
    if (size > 0 && size < chunk)
        chunk = (size + 4095) / 4096 * 4096;

    if (register_file(src_path, src_fd, &src) != 0)
        return -1;
    if (register_file(dst_path, dst_fd, &dst) != 0)
        goto deregister_src;
    hipError_t hip = hipSetDevice(device);
    if (hip == hipSuccess)
        hip = hipMalloc(&dev, chunk);
    if (hip != hipSuccess) {
        fprintf(stderr, CP_NAME ": cannot allocate %llu bytes on GPU %d: %s\n",
                (unsigned long long)chunk, device, hipGetErrorString(hip));
        goto deregister_dst;
    }
    hipFileError_t err = hipFileBufRegister(dev, chunk, 0);
    if (err.err != hipFileSuccess) {
        fprintf(stderr, CP_NAME ": cannot register the GPU buffer: %s\n",
                hipFileGetOpErrorString(err.err));
        goto free_dev;
    }

    uint64_t copied = 0;
    cp_progress_update(progress, 0);
    while (copied < size) {
        size_t want = (size_t)(size - copied < chunk ? size - copied : chunk);
        ssize_t n = copy_chunk(src_path, src, dst_path, dst, dev, want, (off_t)copied);
        if (n < 0)
            break;
        copied += (uint64_t)n;
        cp_progress_update(progress, copied);
    }
    if (copied == size)
        status = 0;

    err = hipFileBufDeregister(dev);
    if (err.err != hipFileSuccess) {
        fprintf(stderr, CP_NAME ": cannot deregister the GPU buffer: %s\n",
                hipFileGetOpErrorString(err.err));
        status = -1;
    }
free_dev:
    hipFree(dev);
deregister_dst:
    hipFileHandleDeregister(dst);
deregister_src:
    hipFileHandleDeregister(src);
    return status;
}

/* Read up to size bytes at offset, retrying short reads until end of file. */
static ssize_t read_full(int fd, unsigned char *buf, size_t size, off_t offset)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, buf + done, size - done, offset + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

int cp_verify(const char *src_path, int src_fd, const char *dst_path, int dst_fd, uint64_t chunk,
              uint64_t expected, struct cp_progress *progress)
{
    unsigned char *a = malloc(chunk), *b = malloc(chunk);
    int result = -1;
    if (!a || !b) {
        fprintf(stderr, CP_NAME ": verify: cannot allocate %llu bytes\n",
                (unsigned long long)chunk);
        goto out;
    }
    cp_progress_update(progress, 0);
    for (uint64_t offset = 0;; offset += chunk) {
        ssize_t na = read_full(src_fd, a, chunk, (off_t)offset);
        if (na < 0) {
            fprintf(stderr, CP_NAME ": verify: cannot read %s: %s\n", src_path, strerror(errno));
            goto out;
        }
        ssize_t nb = read_full(dst_fd, b, chunk, (off_t)offset);
        if (nb < 0) {
            fprintf(stderr, CP_NAME ": verify: cannot read %s: %s\n", dst_path, strerror(errno));
            goto out;
        }
        size_t common = (size_t)(na < nb ? na : nb);
        for (size_t i = 0; i < common; i++) {
            if (a[i] != b[i]) {
                fprintf(stderr,
                        CP_NAME ": verify: %s differs from %s at byte %llu (0x%02x, not 0x%02x)\n",
                        dst_path, src_path, (unsigned long long)(offset + i), b[i], a[i]);
                result = 1;
                goto out;
            }
        }
        if (na != nb) {
            fprintf(stderr, CP_NAME ": verify: %s is %s than %s: they differ from byte %llu\n",
                    dst_path, na > nb ? "shorter" : "longer", src_path,
                    (unsigned long long)(offset + common));
            result = 1;
            goto out;
        }
        cp_progress_update(progress,
                           offset + (uint64_t)na < expected ? offset + (uint64_t)na : expected);
        if ((size_t)na < chunk)
            break;
    }
    result = 0;
out:
    free(a);
    free(b);
    return result;
}
