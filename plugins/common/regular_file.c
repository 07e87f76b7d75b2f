/*
 * Files opened by path: refused unless they are regular files, without the open ever waiting
 * for a FIFO's other end. See regular_file.h.
 */
#include "common/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

/* The callers' buffer is optional. */
#define why_set(why, why_size, ...)                                                                \
    do {                                                                                           \
        if ((why) != NULL && (why_size) > 0)                                                       \
            snprintf((why), (why_size), __VA_ARGS__);                                              \
    } while (0)

static int refuse_type(mode_t mode, char *why, size_t why_size)
{
    const char *what = "a special file";
    if (S_ISDIR(mode))
        what = "a directory";
    else if (S_ISFIFO(mode))
        what = "a FIFO (named pipe)";
    else if (S_ISCHR(mode))
        what = "a character device";
    else if (S_ISBLK(mode))
        what = "a block device";
    else if (S_ISSOCK(mode))
        what = "a socket";
    why_set(why, why_size, "%s, not a regular file", what);
    return -EINVAL;
}

/*
 * File systems whose "regular" files are windows on the kernel or on a process: /proc/self/mem
 * writes into the process's memory, and a read of many of them never ends or has side effects.
 */
static const char *kernel_file_system(const struct statfs *fs)
{
    switch ((unsigned long)fs->f_type) {
    case PROC_SUPER_MAGIC:
        return "procfs (/proc)";
    case SYSFS_MAGIC:
        return "sysfs (/sys)";
    case DEBUGFS_MAGIC:
        return "debugfs";
#ifdef TRACEFS_MAGIC
    case TRACEFS_MAGIC:
        return "tracefs";
#endif
    default:
        return NULL;
    }
}

int hfp_open_regular(const char *path, int flags, mode_t mode, struct stat *st_p, char *why,
                     size_t why_size)
{
    struct stat st;
    /* Looked at before the open so that a device node is never opened: that runs its driver. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return refuse_type(st.st_mode, why, why_size);
    /* O_NONBLOCK: a FIFO that took the file's place since would block the open until a peer came.
     */
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode);
    if (fd < 0) {
        int err = errno;
        /* A write-only open of a FIFO with no reader fails with ENXIO instead of blocking. */
        if (err == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return refuse_type(st.st_mode, why, why_size);
        why_set(why, why_size, "cannot open: %s", strerror(err));
        return -err;
    }
    int rc;
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        why_set(why, why_size, "cannot stat: %s", strerror(-rc));
        goto close_fd;
    }
    /* What counts is the file opened, whatever the path named when it was looked at. */
    if (!S_ISREG(st.st_mode)) {
        rc = refuse_type(st.st_mode, why, why_size);
        goto close_fd;
    }
    struct statfs fs;
    const char *kernel = fstatfs(fd, &fs) == 0 ? kernel_file_system(&fs) : NULL;
    if (kernel != NULL) {
        why_set(why, why_size, "a file of %s, a kernel interface, not a regular file", kernel);
        rc = -EINVAL;
        goto close_fd;
    }
    /* Later reads and writes may wait as on any file; only the open had to not. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (st_p != NULL)
        *st_p = st;
    return fd;

close_fd:
    close(fd);
    return rc;
}

FILE *hfp_fopen_regular(const char *path, char *why, size_t why_size)
{
    int fd = hfp_open_regular(path, O_RDONLY, 0, NULL, why, why_size);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *fp = fdopen(fd, "r");
    if (fp == NULL) {
        int err = errno;
        why_set(why, why_size, "cannot open: %s", strerror(err));
        close(fd);
        errno = err;
    }
    return fp;
}

int hfp_check_regular(const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int err = errno;
        why_set(why, why_size, "%s", strerror(err));
        return -err;
    }
    return S_ISREG(st.st_mode) ? 0 : refuse_type(st.st_mode, why, why_size);
}
