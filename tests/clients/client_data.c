/*
 * Chunked fill and check of GPU memory and files for the client programs. Chunks keep host memory
 * small next to buffers of several GiB.
 */
#include "client_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "pattern.h"

#define CHUNK ((size_t)64 << 20)

/*
 * Run @p step on [at, at + part) for consecutive chunks of @p n bytes, with one host chunk to work
 * in, until a step fails. Returns 0, or 1 when a step failed (it reports why).
 */
static int for_each_chunk(size_t n,
                          int (*step)(unsigned char *host, size_t at, size_t part, const void *arg),
                          const void *arg)
{
    unsigned char *host = malloc(n < CHUNK ? n : CHUNK);
    if (host == NULL) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    int rc = 0;
    for (size_t at = 0; at < n && rc == 0; at += CHUNK)
        rc = step(host, at, n - at < CHUNK ? n - at : CHUNK, arg);
    free(host);
    return rc;
}

struct device_job {
    void *dev;
    uint64_t seed;
    const char *what;
};

static int fill_step(unsigned char *host, size_t at, size_t part, const void *arg)
{
    const struct device_job *job = arg;
    pattern_fill(host, part, job->seed, at);
    hipError_t err = hipMemcpy((char *)job->dev + at, host, part, hipMemcpyHostToDevice);
    if (err == hipSuccess)
        return 0;
    fprintf(stderr, "hipMemcpy to the GPU failed: %s\n", hipGetErrorString(err));
    return 1;
}

int client_fill_device(void *dev, size_t n, uint64_t seed)
{
    struct device_job job = {.dev = dev, .seed = seed};
    return for_each_chunk(n, fill_step, &job);
}

static int check_device_step(unsigned char *host, size_t at, size_t part, const void *arg)
{
    const struct device_job *job = arg;
    hipError_t err = hipMemcpy(host, (const char *)job->dev + at, part, hipMemcpyDeviceToHost);
    if (err != hipSuccess) {
        fprintf(stderr, "%s: hipMemcpy from the GPU failed: %s\n", job->what,
                hipGetErrorString(err));
        return 1;
    }
    size_t bad = pattern_mismatch(host, part, job->seed, at);
    if (bad == part)
        return 0;
    fprintf(stderr, "%s: GPU memory differs first at byte %zu\n", job->what, at + bad);
    return 1;
}

int client_check_device(const void *dev, size_t n, uint64_t seed, const char *what)
{
    struct device_job job = {.dev = (void *)dev, .seed = seed, .what = what};
    return for_each_chunk(n, check_device_step, &job);
}

struct file_job {
    int fd;
    uint64_t offset;
    uint64_t seed;
    const char *what;
};

static int check_file_step(unsigned char *host, size_t at, size_t part, const void *arg)
{
    const struct file_job *job = arg;
    ssize_t got = pread(job->fd, host, part, (off_t)(job->offset + at));
    if (got != (ssize_t)part) {
        fprintf(stderr, "%s: pread of %zu bytes at %llu returned %zd (%s)\n", job->what, part,
                (unsigned long long)(job->offset + at), got, got < 0 ? strerror(errno) : "short");
        return 1;
    }
    size_t bad = pattern_mismatch(host, part, job->seed, at);
    if (bad == part)
        return 0;
    fprintf(stderr, "%s: the file differs first at byte %llu\n", job->what,
            (unsigned long long)(job->offset + at + bad));
    return 1;
}

int client_check_file(int fd, uint64_t offset, size_t n, uint64_t seed, const char *what)
{
    struct file_job job = {.fd = fd, .offset = offset, .seed = seed, .what = what};
    return for_each_chunk(n, check_file_step, &job);
}

int client_args(int argc, char **argv, const char *size_name, size_t default_mib,
                const char **path_p, size_t *mib_p)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE [%s]\n", argv[0], size_name);
        return 2;
    }
    *path_p = argv[1];
    *mib_p = argc == 3 ? (size_t)strtoull(argv[2], NULL, 10) : default_mib;
    return 0;
}

double client_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
