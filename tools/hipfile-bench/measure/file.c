/*
 * The benchmark file: making it (filled with a pattern every byte of which can be checked),
 * opening its buffered and O_DIRECT descriptors, registering it, dropping its cached pages,
 * settling written data on disk between methods, and the full-length pread/pwrite loops every raw
 * method uses (and the ceiling's streamed one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bench.h"
#include "common/cmdline.h"
#include "common/stream_copy.h"

/* The pattern is a 64-bit hash of each 8-byte word's index, stored little-endian. */
static uint64_t pattern_word(uint64_t index, uint64_t seed)
{
    uint64_t z = index + (seed + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned char pattern_byte(uint64_t offset, uint64_t seed)
{
    return (unsigned char)(pattern_word(offset >> 3, seed) >> (8 * (offset & 7)));
}

static uint64_t to_le64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

void bench_pattern_fill(void *buf, size_t size, uint64_t offset, uint64_t seed)
{
    unsigned char *p = buf;
    for (; size > 0 && (offset & 7) != 0; size--)
        *p++ = pattern_byte(offset++, seed);
    for (; size >= 8; size -= 8, p += 8, offset += 8) {
        uint64_t w = to_le64(pattern_word(offset >> 3, seed));
        memcpy(p, &w, 8);
    }
    for (; size > 0; size--)
        *p++ = pattern_byte(offset++, seed);
}

bool bench_pattern_check(const void *buf, size_t size, uint64_t offset, uint64_t seed,
                         uint64_t *bad_offset_p)
{
    const unsigned char *p = buf;
    size_t i = 0;
    for (; i < size && ((offset + i) & 7) != 0; i++)
        if (p[i] != pattern_byte(offset + i, seed))
            goto mismatch;
    for (; i + 8 <= size; i += 8) {
        uint64_t got, want = to_le64(pattern_word((offset + i) >> 3, seed));
        memcpy(&got, p + i, 8);
        if (got != want)
            break;
    }
    for (; i < size; i++)
        if (p[i] != pattern_byte(offset + i, seed))
            goto mismatch;
    return true;
mismatch:
    *bad_offset_p = offset + i;
    return false;
}

/*
 * One pread of up to @p size bytes that moves some: the bytes read, or -1 with errno set (ENODATA
 * at end of file: the file was made large enough, so reaching its end means it shrank under us).
 */
static ssize_t pread_some(int fd, void *buf, size_t size, uint64_t offset)
{
    for (;;) {
        ssize_t n = pread(fd, buf, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            errno = ENODATA;
            return -1;
        }
        return n;
    }
}

int bench_pread_full(int fd, void *buf, size_t size, uint64_t offset)
{
    for (size_t done = 0; done < size;) {
        ssize_t n = pread_some(fd, (char *)buf + done, size - done, offset + done);
        if (n < 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

int bench_pread_streamed(int fd, void *buf, size_t size, uint64_t offset, void *bounce)
{
    for (size_t done = 0; done < size;) {
        size_t ask = size - done < HFP_STREAM_BOUNCE_SIZE ? size - done : HFP_STREAM_BOUNCE_SIZE;
        ssize_t n = pread_some(fd, bounce, ask, offset + done);
        if (n < 0)
            return -1;
        hfp_stream_copy((char *)buf + done, bounce, (size_t)n);
        done += (size_t)n;
    }
    return 0;
}

int bench_pwrite_full(int fd, const void *buf, size_t size, uint64_t offset)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, (const char *)buf + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

int bench_file_fill(struct bench_file *file, uint64_t size, uint64_t seed, bool progress)
{
    const size_t chunk = 8u << 20;
    char text[32];
    void *buf;
    if (posix_memalign(&buf, 4096, chunk) != 0) {
        fprintf(stderr, BENCH_NAME ": no memory for an 8 MiB fill buffer\n");
        return -1;
    }
    file->pattern_known = false;
    for (uint64_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
        bench_pattern_fill(buf, n, off, seed);
        if (bench_pwrite_full(file->check_fd, buf, n, off) != 0) {
            fprintf(stderr, BENCH_NAME ": cannot fill %s at offset %llu: %s\n", file->path,
                    (unsigned long long)off, strerror(errno));
            free(buf);
            return -1;
        }
        if (progress && (off / chunk) % 64 == 0)
            fprintf(stderr, "\rfilling %s: %3.0f%% of %s", file->path, 100.0 * off / size,
                    bench_size_text(size, text, sizeof(text)));
    }
    free(buf);
    if (progress)
        fprintf(stderr, "\r\033[K");
    /* Written-back data, so later measurements do not compete with the flusher. */
    if (fdatasync(file->check_fd) != 0) {
        fprintf(stderr, BENCH_NAME ": fdatasync %s: %s\n", file->path, strerror(errno));
        return -1;
    }
    file->expected_seed = seed;
    file->pattern_known = true;
    return 0;
}

/* Whether the first and last 64 KiB of [0, size) hold the pattern of @p seed. */
static bool sample_matches(int fd, uint64_t size, uint64_t seed)
{
    static unsigned char sample[64 << 10];
    size_t n = size < sizeof(sample) ? (size_t)size : sizeof(sample);
    uint64_t bad;
    if (n == 0)
        return false;
    if (bench_pread_full(fd, sample, n, 0) != 0 || !bench_pattern_check(sample, n, 0, seed, &bad))
        return false;
    return bench_pread_full(fd, sample, n, size - n) == 0 &&
           bench_pattern_check(sample, n, size - n, seed, &bad);
}

static void describe_fs(struct bench_file *file)
{
    static const struct {
        long magic;
        const char *name;
    } names[] = {
        {0xef53, "ext4"},      {0x58465342, "xfs"}, {0x9123683e, "btrfs"},
        {0x01021994, "tmpfs"}, {0x6969, "nfs"},     {0x794c7630, "overlayfs"},
        {0x65735546, "fuse"},  {0x2fc12fc1, "zfs"}, {0xf2f52010, "f2fs"},
    };
    struct statfs sfs;
    snprintf(file->fs_type, sizeof(file->fs_type), "unknown");
    if (fstatfs(file->check_fd, &sfs) != 0)
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if ((long)sfs.f_type == names[i].magic)
            snprintf(file->fs_type, sizeof(file->fs_type), "%s", names[i].name);
}

static void open_direct(struct bench_file *file)
{
    file->dio_align = 4096;
    file->direct_fd = open(file->path, file->access | O_DIRECT);
    if (file->direct_fd < 0) {
        snprintf(file->direct_error, sizeof(file->direct_error), "%s refuses O_DIRECT (%s)",
                 file->fs_type, strerror(errno));
        return;
    }
    /* STATX_DIOALIGN needs Linux 6.1; without it, 4096 is right for every common setup. */
    struct statx stx;
    if (statx(file->direct_fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
        (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align != 0)
        file->dio_align = stx.stx_dio_offset_align;
}

/* Make sure [0, file_size) exists and, where it matters, holds the pattern. */
static int prepare_contents(const struct bench_options *opts, struct bench_file *file)
{
    bool progress = tool_progress_wanted(opts->progress);
    struct stat st;
    if (fstat(file->check_fd, &st) != 0) {
        fprintf(stderr, BENCH_NAME ": stat %s: %s\n", file->path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, BENCH_NAME ": %s is not a regular file\n", file->path);
        return -1;
    }
    uint64_t have = (uint64_t)st.st_size;
    bool pattern =
        !file->created &&
        sample_matches(file->check_fd, have < opts->file_size ? have : opts->file_size, opts->seed);
    if (have >= opts->file_size && pattern) {
        file->expected_seed = opts->seed;
        file->pattern_known = true;
        return 0;
    }
    if (have >= opts->file_size && !opts->verify) {
        if (!opts->json)
            printf("note: %s does not hold this program's pattern; reading it as it is\n",
                   file->path);
        return 0;
    }
    const char *why = have < opts->file_size ? "is smaller than --file-size"
                                             : "does not hold the pattern --verify needs";
    if (file->access == O_RDONLY) {
        fprintf(stderr, BENCH_NAME ": %s %s, and this program may only read it\n", file->path, why);
        return -1;
    }
    if (!file->created && !opts->json)
        printf("note: %s %s; filling it with the pattern\n", file->path, why);
    return bench_file_fill(file, opts->file_size, opts->seed, progress);
}

int bench_file_open(const struct bench_options *opts, struct bench_file *file)
{
    memset(file, 0, sizeof(*file));
    file->fd = file->check_fd = file->direct_fd = -1;
    if (opts->file != NULL) {
        if (strlen(opts->file) >= sizeof(file->path)) {
            fprintf(stderr, BENCH_NAME ": --file path is too long\n");
            return -1;
        }
        strcpy(file->path, opts->file);
        file->created = access(file->path, F_OK) != 0;
        file->access = O_RDWR;
        file->check_fd = open(file->path, O_RDWR | O_CREAT, 0644);
        /* A data set the user may only read can still be read from. */
        if (file->check_fd < 0 && !file->created && (errno == EACCES || errno == EROFS)) {
            file->access = O_RDONLY;
            file->check_fd = open(file->path, O_RDONLY);
        }
    } else {
        const char *dir = getenv("TMPDIR");
        snprintf(file->path, sizeof(file->path), "%s/" BENCH_NAME ".XXXXXX",
                 dir != NULL && *dir != '\0' ? dir : "/tmp");
        file->created = true;
        file->access = O_RDWR;
        file->check_fd = mkstemp(file->path);
    }
    if (file->check_fd < 0) {
        fprintf(stderr, BENCH_NAME ": cannot open %s: %s\n", file->path, strerror(errno));
        return -1;
    }
    describe_fs(file);
    if (prepare_contents(opts, file) != 0)
        goto close_fds;

    file->fd = open(file->path, file->access | (opts->direct ? O_DIRECT : 0));
    if (file->fd < 0) {
        fprintf(stderr, BENCH_NAME ": cannot open %s%s: %s\n", file->path,
                opts->direct ? " with O_DIRECT (--direct)" : "", strerror(errno));
        goto close_fds;
    }
    open_direct(file);

    hipFileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = file->fd;
    hipFileError_t status = hipFileHandleRegister(&file->handle, &descr);
    if (status.err != hipFileSuccess) {
        bench_status_error("hipFileHandleRegister", status);
        goto close_fds;
    }
    return 0;

close_fds:
    if (file->direct_fd >= 0)
        close(file->direct_fd);
    if (file->fd >= 0)
        close(file->fd);
    close(file->check_fd);
    if (file->created && !opts->keep)
        unlink(file->path);
    file->fd = file->check_fd = file->direct_fd = -1;
    return -1;
}

void bench_file_close(const struct bench_options *opts, struct bench_file *file)
{
    if (file->check_fd < 0)
        return;
    hipFileHandleDeregister(file->handle);
    if (file->direct_fd >= 0)
        close(file->direct_fd);
    close(file->fd);
    close(file->check_fd);
    if (file->created && !opts->keep && unlink(file->path) != 0)
        fprintf(stderr, BENCH_NAME ": cannot remove %s: %s\n", file->path, strerror(errno));
    file->fd = file->check_fd = file->direct_fd = -1;
}

int bench_file_drop_cache(const struct bench_file *file, char *how, size_t len)
{
    sync();
    int proc = open("/proc/sys/vm/drop_caches", O_WRONLY);
    int proc_errno = errno;
    if (proc >= 0) {
        ssize_t n = write(proc, "3\n", 2);
        proc_errno = errno;
        close(proc);
        if (n == 2) {
            snprintf(how, len, "sync, then 3 > /proc/sys/vm/drop_caches");
            return 0;
        }
    }
    /* Without root the file's own clean pages can still go: enough for a cold read of it. */
    int rc = posix_fadvise(file->check_fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc == 0) {
        snprintf(how, len,
                 "only this file's pages (posix_fadvise DONTNEED); drop_caches: %s (needs root)",
                 strerror(proc_errno));
        return 0;
    }
    snprintf(how, len, "not possible: drop_caches: %s; posix_fadvise: %s", strerror(proc_errno),
             strerror(rc));
    return -1;
}

int bench_settle_writes(const struct bench_ctx *ctx)
{
    if (ctx->wl->op == BENCH_READ || fdatasync(ctx->file->check_fd) == 0)
        return 0;
    fprintf(stderr, BENCH_NAME ": fdatasync %s: %s\n", ctx->file->path, strerror(errno));
    return -1;
}
