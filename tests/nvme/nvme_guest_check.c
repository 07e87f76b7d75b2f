/*
 * Conformance checks and a benchmark for the nvme-passthru backend, run inside a QEMU guest with
 * emulated NVMe controllers (scripts/test-nvme-qemu). Every check compares what hipfile moved with
 * what POSIX reads of the same file return. The config (HIPFILE_CONFIG) decides which backends
 * may serve: the "read" and "write" modes enable nvme-passthru alone, so a request it declines
 * fails instead of quietly going to the fallback.
 *
 *   nvme_guest_check read DIR            reads: random ranges, holes, preallocation, dirty pages
 *   nvme_guest_check write DIR           writes (enabled): visible to POSIX, unsafe ones declined
 *   nvme_guest_check write-fallback DIR  writes it declines are served by the fallback
 *   nvme_guest_check decline DIR         a file off NVMe (tmpfs) is declined
 *   nvme_guest_check bench DIR LABEL     cold and warm whole-file reads, MB/s
 *
 * Prints "ok NAME" or "not ok NAME: why" per check; exits 0 when all passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)
#define DEV_SIZE (8 * MIB)

static int failures;
static void *dev;
static unsigned char *got, *want;
static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fill_random(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(rng() >> 24);
}

static bool fail(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("not ok %s: ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    failures++;
    return false;
}

static void pass(const char *name)
{
    printf("ok %s\n", name);
    fflush(stdout);
}

static int write_all(int fd, const void *p, size_t n, off_t off)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n, off);
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

/* A file of @p size random bytes; synced to the device only when @p sync. */
static int make_file(const char *path, size_t size, bool sync)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    unsigned char *buf = malloc(MIB);
    for (size_t at = 0; at < size; at += MIB) {
        size_t n = size - at < MIB ? size - at : MIB;
        fill_random(buf, n);
        if (write_all(fd, buf, n, (off_t)at) != 0) {
            free(buf);
            close(fd);
            return -1;
        }
    }
    free(buf);
    if (sync)
        fsync(fd);
    return fd;
}

static hipFileHandle_t file_register(int fd)
{
    hipFileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t fh = NULL;
    hipFileError_t e = hipFileHandleRegister(&fh, &descr);
    return e.err == hipFileSuccess ? fh : NULL;
}

/* POSIX view of [off, off+size): bytes into want, count returned. */
static ssize_t posix_read(int fd, size_t size, off_t off)
{
    size_t done = 0;
    while (done < size) {
        ssize_t r = pread(fd, want + done, size - done, off + (off_t)done);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

/* hipFileRead of [off, off+size) must return what POSIX reads return, byte for byte. */
static bool check_read(const char *name, hipFileHandle_t fh, int fd, size_t size, off_t off)
{
    ssize_t expect = posix_read(fd, size, off);
    if (hipMemset(dev, 0xa5, size) != hipSuccess)
        return fail(name, "hipMemset failed");
    ssize_t n = hipFileRead(fh, dev, size, off, 0);
    if (n != expect)
        return fail(name, "hipFileRead(%zu at %lld) returned %zd, POSIX read %zd", size,
                    (long long)off, n, expect);
    if (n > 0 && hipMemcpy(got, dev, (size_t)n, hipMemcpyDeviceToHost) != hipSuccess)
        return fail(name, "hipMemcpy failed");
    for (ssize_t i = 0; i < n; i++) {
        if (got[i] != want[i])
            return fail(name,
                        "%zu bytes at %lld: first difference at file byte %lld (%02x, not %02x)",
                        size, (long long)off, (long long)(off + i), got[i], want[i]);
    }
    return true;
}

static void random_reads(const char *name, hipFileHandle_t fh, int fd, int count, size_t max_size)
{
    struct stat st;
    fstat(fd, &st);
    bool ok = true;
    for (int i = 0; i < count && ok; i++) {
        size_t size = 1 + (size_t)(rng() % max_size);
        off_t off = (off_t)(rng() % ((uint64_t)st.st_size + 8192));
        if (i % 4 == 0) { /* whole blocks now and then */
            off &= ~(off_t)4095;
            size = (size + 4095) & ~(size_t)4095;
        }
        ok = check_read(name, fh, fd, size, off);
    }
    if (ok)
        pass(name);
}

static char *path_in(const char *dir, const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
    return p;
}

static void read_checks(const char *dir)
{
    /* Random ranges of a file written but never synced: the first read must write it back. */
    int fd = make_file(path_in(dir, "random"), 6 * MIB + 1234, false);
    hipFileHandle_t fh = file_register(fd);
    if (fh == NULL) {
        fail("register", "hipFileHandleRegister failed");
        return;
    }
    random_reads("random-ranges-unsynced", fh, fd, 80, 2 * MIB);
    if (check_read("read-at-eof", fh, fd, 4096, 6 * MIB + 1234) &&
        check_read("read-past-eof", fh, fd, 4096, 7 * MIB) &&
        check_read("read-whole-file", fh, fd, 6 * MIB + 1234, 0))
        pass("eof-and-whole-file");

    /* A just-written, unsynced range reads back new, again and again. */
    bool ok = true;
    for (int i = 0; i < 20 && ok; i++) {
        size_t n = 1 + (size_t)(rng() % (300 * 1024));
        off_t off = (off_t)(rng() % (6 * MIB));
        unsigned char *buf = malloc(n);
        fill_random(buf, n);
        write_all(fd, buf, n, off);
        free(buf);
        ok = check_read("dirty-page-cache", fh, fd, n + 8192, off > 4096 ? off - 4096 : 0);
    }
    if (ok)
        pass("dirty-page-cache");

    /* The file changes between reads: holes punched, truncated, extended. */
    ok = check_read("modified-between-reads", fh, fd, 2 * MIB, 0);
    if (ok && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, MIB, 512 * 1024) != 0)
        ok = fail("modified-between-reads", "punch hole: %s", strerror(errno));
    ok = ok && check_read("modified-between-reads", fh, fd, 2 * MIB, 0);
    if (ok && ftruncate(fd, 3 * MIB + 100) != 0)
        ok = fail("modified-between-reads", "truncate: %s", strerror(errno));
    ok = ok && check_read("modified-between-reads", fh, fd, 2 * MIB, 2 * MIB);
    if (ok) {
        unsigned char tail[5000];
        fill_random(tail, sizeof(tail));
        write_all(fd, tail, sizeof(tail), 4 * MIB);
        ok = check_read("modified-between-reads", fh, fd, 2 * MIB, 3 * MIB);
    }
    if (ok)
        pass("modified-between-reads");
    hipFileHandleDeregister(fh);
    close(fd);

    /* Holes between written ranges read as zeros. */
    fd = open(path_in(dir, "holes"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    ftruncate(fd, 5 * MIB);
    unsigned char *buf = malloc(MIB);
    fill_random(buf, MIB);
    write_all(fd, buf, 100 * 1024, MIB + 333);
    write_all(fd, buf, 4096, 4 * MIB);
    fsync(fd);
    fh = file_register(fd);
    if (check_read("holes", fh, fd, 5 * MIB, 0))
        random_reads("holes", fh, fd, 30, MIB);
    hipFileHandleDeregister(fh);
    close(fd);

    /* Preallocated (unwritten) ranges read as zeros, partly written ones as their data. */
    fd = open(path_in(dir, "prealloc"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fallocate(fd, 0, 0, 3 * MIB) != 0 ||
        fallocate(fd, FALLOC_FL_KEEP_SIZE, 3 * MIB, 2 * MIB) != 0)
        fail("prealloc", "fallocate: %s", strerror(errno));
    write_all(fd, buf, 64 * 1024, 512 * 1024 + 100);
    fh = file_register(fd);
    if (check_read("prealloc", fh, fd, 3 * MIB, 0))
        random_reads("prealloc", fh, fd, 30, MIB);
    hipFileHandleDeregister(fh);
    close(fd);
    free(buf);
}

/* hipFileWrite of random bytes over [off, off+size); returns its result. */
static ssize_t gpu_write(hipFileHandle_t fh, size_t size, off_t off, unsigned char *shadow)
{
    fill_random(got, size);
    if (hipMemcpy(dev, got, size, hipMemcpyHostToDevice) != hipSuccess)
        return -1;
    ssize_t n = hipFileWrite(fh, dev, size, off, 0);
    if (n == (ssize_t)size && shadow != NULL)
        memcpy(shadow + off, got, size);
    return n;
}

/* The whole file as POSIX reads it must equal @p shadow. */
static bool check_shadow(const char *name, int fd, const unsigned char *shadow, size_t size)
{
    if (posix_read(fd, size, 0) != (ssize_t)size)
        return fail(name, "short POSIX read");
    for (size_t i = 0; i < size; i++) {
        if (want[i] != shadow[i])
            return fail(name, "POSIX read differs at byte %zu (%02x, not %02x)", i, want[i],
                        shadow[i]);
    }
    return true;
}

/* Writes the backend must decline; with @p served_elsewhere the fallback serves them instead. */
static void unsafe_writes(const char *dir, bool served_elsewhere)
{
    const char *suffix = served_elsewhere ? "-served-by-fallback" : "-declined";
    char name[96];
    size_t size = 2 * MIB;
    unsigned char *shadow = malloc(size);
    int fd = make_file(path_in(dir, "unsafe"), size, true);
    posix_read(fd, size, 0);
    memcpy(shadow, want, size);
    ftruncate(fd, 3 * MIB); /* a hole from 2 MiB to 3 MiB */
    shadow = realloc(shadow, 3 * MIB);
    memset(shadow + size, 0, MIB);
    size = 3 * MIB;
    hipFileHandle_t fh = file_register(fd);
    struct {
        const char *what;
        size_t len;
        off_t off;
    } cases[] = {
        {"unaligned-write", 1000, 100},
        {"write-into-hole", 8192, 2 * MIB + 8192},
        {"write-past-eof", 8192, 3 * MIB - 4096},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(name, sizeof(name), "%s%s", cases[i].what, suffix);
        ssize_t n = gpu_write(fh, cases[i].len, cases[i].off, NULL);
        if (served_elsewhere && n == (ssize_t)cases[i].len) {
            size_t reach = (size_t)cases[i].off + cases[i].len;
            if (reach > size) {
                shadow = realloc(shadow, reach);
                size = reach;
            }
            memcpy(shadow + cases[i].off, got, cases[i].len);
        }
        bool ok = served_elsewhere ? n == (ssize_t)cases[i].len : n < 0;
        if (!ok)
            fail(name, "hipFileWrite returned %zd", n);
        else if (check_shadow(name, fd, shadow, size))
            pass(name);
    }
    /* A page mapped by someone stays visible there; the backend must not write under it. */
    snprintf(name, sizeof(name), "write-under-mmap%s", suffix);
    unsigned char *map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    volatile unsigned char touch = map[0];
    (void)touch;
    ssize_t n = gpu_write(fh, 8192, 0, served_elsewhere ? shadow : NULL);
    bool ok = served_elsewhere ? n == 8192 : n < 0;
    if (!ok)
        fail(name, "hipFileWrite returned %zd", n);
    else if (memcmp(map, shadow, 4096) != 0)
        fail(name, "the mapping shows other bytes than the file");
    else if (check_shadow(name, fd, shadow, size))
        pass(name);
    munmap(map, 4096);
    /* Unwritten (fallocated) extents stay the filesystem's to convert. */
    snprintf(name, sizeof(name), "write-into-unwritten%s", suffix);
    if (fallocate(fd, 0, (off_t)size, MIB) == 0) {
        shadow = realloc(shadow, size + MIB);
        memset(shadow + size, 0, MIB);
        n = gpu_write(fh, 65536, (off_t)size, served_elsewhere ? shadow : NULL);
        size += MIB;
        ok = served_elsewhere ? n == 65536 : n < 0;
        if (!ok)
            fail(name, "hipFileWrite returned %zd", n);
        else if (check_shadow(name, fd, shadow, size))
            pass(name);
    }
    hipFileHandleDeregister(fh);
    close(fd);
    free(shadow);
}

static void write_checks(const char *dir)
{
    size_t size = 4 * MIB;
    unsigned char *shadow = malloc(size);
    int fd = make_file(path_in(dir, "overwrite"), size, true);
    posix_read(fd, size, 0); /* the page cache now holds every page */
    memcpy(shadow, want, size);
    hipFileHandle_t fh = file_register(fd);
    bool ok = true;
    for (int i = 0; i < 20 && ok; i++) {
        size_t len = 4096 * (1 + (size_t)(rng() % 256));
        off_t off = (off_t)(4096 * (rng() % ((size - len) / 4096 + 1)));
        ssize_t n = gpu_write(fh, len, off, shadow);
        if (n != (ssize_t)len)
            ok = fail("overwrite-visible-to-posix", "hipFileWrite(%zu at %lld) returned %zd", len,
                      (long long)off, n);
        else
            ok = check_shadow("overwrite-visible-to-posix", fd, shadow, size);
    }
    if (ok)
        pass("overwrite-visible-to-posix");

    /* A dirty page elsewhere in the file survives a write; one inside the range is written first.
     */
    unsigned char dirty[4096];
    fill_random(dirty, sizeof(dirty));
    write_all(fd, dirty, sizeof(dirty), 3 * MIB);
    memcpy(shadow + 3 * MIB, dirty, sizeof(dirty));
    fill_random(dirty, sizeof(dirty));
    write_all(fd, dirty, sizeof(dirty), 64 * 1024);
    ssize_t n = gpu_write(fh, 256 * 1024, 0, shadow);
    if (n != 256 * 1024)
        fail("dirty-pages-never-overwritten-unseen", "hipFileWrite returned %zd", n);
    else if (check_shadow("dirty-pages-never-overwritten-unseen", fd, shadow, size))
        pass("dirty-pages-never-overwritten-unseen");
    hipFileHandleDeregister(fh);
    close(fd);
    free(shadow);
}

static void decline_checks(const char *dir)
{
    int fd = make_file(path_in(dir, "off-nvme"), MIB, false);
    hipFileHandle_t fh = file_register(fd);
    if (fh == NULL) {
        fail("decline-file-off-nvme", "hipFileHandleRegister failed");
        return;
    }
    ssize_t n = hipFileRead(fh, dev, 4096, 0, 0);
    if (n >= 0)
        fail("decline-file-off-nvme", "hipFileRead served a tmpfs file with %zd", n);
    else
        pass("decline-file-off-nvme");
    hipFileHandleDeregister(fh);
    close(fd);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void drop_caches(void)
{
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (fd >= 0) {
        (void)!write(fd, "3", 1);
        close(fd);
    }
}

static void bench(const char *dir, const char *label)
{
    const size_t size = 64 * MIB, request = 4 * MIB;
    const char *path = path_in(dir, "bench");
    int fd = open(path, O_RDWR);
    if (fd < 0)
        fd = make_file(path, size, true);
    hipFileHandle_t fh = file_register(fd);
    for (int warm = 0; warm < 2; warm++) {
        double best = 0;
        for (int rep = 0; rep < 3; rep++) {
            if (!warm)
                drop_caches();
            double t0 = now_s();
            for (size_t off = 0; off < size; off += request) {
                if (hipFileRead(fh, dev, request, (off_t)off, 0) != (ssize_t)request) {
                    fail("bench", "%s read at %zu failed", label, off);
                    return;
                }
            }
            double mbs = (double)size / 1e6 / (now_s() - t0);
            best = mbs > best ? mbs : best;
        }
        printf("BENCH %s %s %.1f MB/s\n", label, warm ? "warm" : "cold", best);
    }
    hipFileHandleDeregister(fh);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s read|write|write-fallback|decline|bench DIR [LABEL]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1], *dir = argv[2];
    rng_state ^= (uint64_t)strlen(dir) * 0x9e3779b97f4a7c15ull;
    hipFileError_t e = hipFileDriverOpen();
    if (e.err != hipFileSuccess) {
        printf("not ok driver-open: error %d\n", (int)e.err);
        return 1;
    }
    got = malloc(DEV_SIZE + 16384);
    want = malloc(DEV_SIZE + 16384);
    if (hipMalloc(&dev, DEV_SIZE + 16384) != hipSuccess) {
        printf("not ok hipMalloc\n");
        return 1;
    }
    if (strcmp(mode, "read") == 0)
        read_checks(dir);
    else if (strcmp(mode, "write") == 0) {
        write_checks(dir);
        unsafe_writes(dir, false);
    } else if (strcmp(mode, "write-fallback") == 0)
        unsafe_writes(dir, true);
    else if (strcmp(mode, "decline") == 0)
        decline_checks(dir);
    else if (strcmp(mode, "bench") == 0)
        bench(dir, argc > 3 ? argv[3] : "?");
    else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    (void)hipFree(dev);
    hipFileDriverClose();
    free(got);
    free(want);
    printf("%s %s: %d failed\n", mode, dir, failures);
    return failures == 0 ? 0 : 1;
}
