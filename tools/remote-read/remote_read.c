/*
 * hipfile-remote-read: time reads of a whole remote object into device memory, for the remote
 * benchmark (scripts/bench-remote, docs/performance.rst). Usage:
 *   hipfile-remote-read URL REPEATS [OPTIONS]
 * opens URL with hipFileRemoteOpen(OPTIONS), reads the object once untimed, then REPEATS timed
 * times into one hipMalloc'd buffer, and prints one line per timed read and the best:
 *   "best: BYTES bytes in SECONDS s, GBPS GB/s".
 */
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile/remote.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s URL REPEATS [OPTIONS]\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    int repeats = atoi(argv[2]);
    hipFileHandle_t fh = NULL;
    hipFileError_t e = hipFileRemoteOpen(url, argc == 4 ? argv[3] : NULL, HIPFILE_REMOTE_READ, &fh);
    if (e.err != hipFileSuccess) {
        char shown[1024];
        hipFileRedactUrls(url, shown, sizeof(shown));
        fprintf(stderr, "cannot open %s: %s\n", shown, hipFileGetOpErrorString(e.err));
        return 1;
    }
    /* The object's size: read until a short read says where it ends, in 1 GiB steps. */
    size_t cap = (size_t)1 << 30;
    void *dev = NULL;
    size_t size = 0;
    for (;;) {
        if (hipMalloc(&dev, cap) != hipSuccess) {
            fprintf(stderr, "hipMalloc of %zu bytes failed\n", cap);
            return 1;
        }
        ssize_t got = hipFileRead(fh, dev, cap, 0, 0);
        if (got < 0) {
            fprintf(stderr, "read failed: %zd\n", got);
            return 1;
        }
        if ((size_t)got < cap) {
            size = (size_t)got;
            break;
        }
        (void)hipFree(dev);
        cap *= 2;
    }
    double best = 0;
    for (int i = 0; i < repeats; i++) {
        double t0 = now_s();
        ssize_t got = hipFileRead(fh, dev, cap, 0, 0);
        double t = now_s() - t0;
        if (got != (ssize_t)size) {
            fprintf(stderr, "read %d returned %zd, not %zu\n", i, got, size);
            return 1;
        }
        printf("read %d: %zu bytes in %.3f s, %.2f GB/s\n", i, size, t, (double)size / t / 1e9);
        if (best == 0 || t < best)
            best = t;
    }
    printf("best: %zu bytes in %.3f s, %.2f GB/s\n", size, best, (double)size / best / 1e9);
    (void)hipFree(dev);
    hipFileHandleDeregister(fh);
    hipFileDriverClose();
    return 0;
}
