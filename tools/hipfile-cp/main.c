/*
 * hipfile-cp: copies a file through GPU memory (the copy-a-file tutorial as a tool). Opens and
 * checks both paths before anything is truncated, copies, optionally verifies, and prints the
 * size, time and throughput.
 */
#include <errno.h>
#include <fcntl.h>
#include <hipfile.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cmdline.h"
#include "cp.h"

/* DEST names a directory: the copy goes inside it, under the source's own name, as cp does. */
static const char *resolve_destination(const char *src, const char *dst, char *buf, size_t len)
{
    struct stat st;
    if (stat(dst, &st) != 0 || !S_ISDIR(st.st_mode))
        return dst;
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", src);
    size_t dst_len = strlen(dst);
    const char *sep = dst_len > 0 && dst[dst_len - 1] == '/' ? "" : "/";
    if (snprintf(buf, len, "%s%s%s", dst, sep, basename(copy)) >= (int)len)
        return NULL;
    return buf;
}

/*
 * Open SOURCE and find how many bytes to copy. DEST is compared with it here, before DEST is
 * opened, because opening it truncates it. Returns the descriptor, or -1 after printing why.
 */
static int open_source(const char *src, const char *dst, uint64_t *size_p)
{
    int src_fd = open(src, O_RDONLY | O_CLOEXEC);
    if (src_fd < 0) {
        fprintf(stderr, CP_NAME ": cannot open %s: %s\n", src, strerror(errno));
        return -1;
    }
    struct stat src_st, dst_st;
    if (fstat(src_fd, &src_st) != 0) {
        fprintf(stderr, CP_NAME ": cannot stat %s: %s\n", src, strerror(errno));
        goto close_source;
    }
    if (!S_ISREG(src_st.st_mode) && !S_ISBLK(src_st.st_mode)) {
        fprintf(stderr, CP_NAME ": %s is not a regular file or block device\n", src);
        goto close_source;
    }
    if (stat(dst, &dst_st) == 0 && dst_st.st_dev == src_st.st_dev &&
        dst_st.st_ino == src_st.st_ino) {
        fprintf(stderr, CP_NAME ": %s and %s are the same file\n", src, dst);
        goto close_source;
    }
    *size_p = (uint64_t)src_st.st_size;
    if (S_ISBLK(src_st.st_mode)) {
        off_t end = lseek(src_fd, 0, SEEK_END);
        *size_p = end > 0 ? (uint64_t)end : 0;
    }
    return src_fd;

close_source:
    close(src_fd);
    return -1;
}

static void print_summary(const struct cp_options *o, const char *dst, uint64_t size,
                          double seconds)
{
    if (o->quiet)
        return;
    /* As hipfile-bench: sizes in MiB (2^20 bytes), rates in GB/s (10^9 bytes per second). */
    printf("copied %llu bytes (%.1f MiB) from %s to %s in %.3f s: %.3f GB/s\n",
           (unsigned long long)size, (double)size / 1048576.0, o->src, dst, seconds,
           seconds > 0 ? (double)size / seconds / 1e9 : 0.0);
}

int main(int argc, char **argv)
{
    struct cp_options o;
    int parsed = cp_parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    bool progress_on = tool_progress_wanted(o.progress);

    char dst_buf[PATH_MAX];
    const char *dst = resolve_destination(o.src, o.dst, dst_buf, sizeof dst_buf);
    if (!dst) {
        fprintf(stderr, CP_NAME ": destination path too long: %s/...\n", o.dst);
        return 1;
    }

    uint64_t size;
    int src_fd = open_source(o.src, dst, &size);
    if (src_fd < 0)
        return 1;

    /* --verify reads the destination back, so it needs read access too. */
    int dst_fd = open(dst, (o.verify ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (dst_fd < 0) {
        fprintf(stderr, CP_NAME ": cannot open %s for writing: %s\n", dst, strerror(errno));
        close(src_fd);
        return 1;
    }

    int status = 1;
    hipFileError_t err = hipFileDriverOpen();
    if (err.err != hipFileSuccess) {
        fprintf(stderr, CP_NAME ": hipFileDriverOpen failed: %s\n",
                hipFileGetOpErrorString(err.err));
        goto close_files;
    }
    struct cp_progress progress;
    cp_progress_start(&progress, progress_on, "copy", size);
    double start = cp_now();
    int rc = cp_copy(o.src, src_fd, dst, dst_fd, size, o.chunk, o.device, &progress);
    double seconds = cp_now() - start;
    cp_progress_finish(&progress);
    if (rc != 0)
        goto close_driver;
    print_summary(&o, dst, size, seconds);

    if (o.verify) {
        cp_progress_start(&progress, progress_on, "verify", size);
        start = cp_now();
        rc = cp_verify(o.src, src_fd, dst, dst_fd, o.chunk, size, &progress);
        cp_progress_finish(&progress);
        if (rc != 0)
            goto close_driver;
        if (!o.quiet)
            printf("verified: %s is identical to %s (%.3f s)\n", dst, o.src, cp_now() - start);
    }
    status = 0;

close_driver:
    err = hipFileDriverClose();
    if (err.err != hipFileSuccess) {
        fprintf(stderr, CP_NAME ": hipFileDriverClose failed: %s\n",
                hipFileGetOpErrorString(err.err));
        status = 1;
    }
close_files:
    close(src_fd);
    if (close(dst_fd) != 0) {
        fprintf(stderr, CP_NAME ": cannot close %s: %s\n", dst, strerror(errno));
        status = 1;
    }
    return status;
}
