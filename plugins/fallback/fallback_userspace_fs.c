/*
 * File I/O of the fallback backend for user-space filesystem files (HF_FILE_USERSPACE_FS): the
 * filesystem's own read and write callbacks in place of pread and pwrite. They run wherever the
 * window runs (the caller, the core's workers, the pipeline's readers), always with host memory:
 * the caller's, or a staging buffer the fallback copies to or from the GPU. The callbacks get no
 * RDMA descriptor (the last argument is NULL), since hipfile never hands out GPU addresses.
 */
#include <errno.h>

#include "fallback_internal.h"

/*
 * A callback's failure as an errno. cuFile leaves the convention to the filesystem: most return
 * -errno, some -1 with errno set. -1 is read as the latter when errno says something, and any
 * value that is no errno at all as EIO.
 */
static int callback_errno(ssize_t rc, int errno_after)
{
    if (rc == -1 && errno_after > 0)
        return errno_after;
    if (rc < 0 && rc > -HF_EGPU)
        return (int)-rc;
    return EIO;
}

/*
 * Both directions: call the callback for what is left of the window until it is done. A short
 * count is continued; 0 ends a read (end of file) and fails a write (no progress would loop
 * forever). @p mem is only read from for writes.
 */
static ssize_t fs_window(struct fallback_io *io, int op, char *mem, size_t len, int64_t pos)
{
    const struct hf_file_info *file = io->file;
    const char *what = op == HF_IO_READ ? "read" : "write";
    size_t done = 0;
    while (done < len) {
        size_t want = len - done;
        int64_t at = pos + (int64_t)done;
        errno = 0;
        ssize_t n = op == HF_IO_READ
                        ? file->fs_read(file->fs_handle, mem + done, want, (off_t)at, NULL)
                        : file->fs_write(file->fs_handle, mem + done, want, (off_t)at, NULL);
        int errno_after = errno;
        if (n == 0 && op == HF_IO_READ)
            break;
        if (n > 0 && (size_t)n <= want) {
            done += (size_t)n;
            continue;
        }
        int err = n >= 0 ? EIO : callback_errno(n, errno_after);
        if (n > 0)
            fallback_log(io->fb, HF_LOG_ERROR,
                         "user-space FS %s callback claims %zd bytes for %zu at %lld", what, n,
                         want, (long long)at);
        else
            fallback_log(io->fb, HF_LOG_ERROR,
                         "user-space FS %s callback of %zu bytes at %lld failed after %zu "
                         "(returned %zd): %s",
                         what, want, (long long)at, done, n, fallback_errno_text(err));
        return done > 0 ? (ssize_t)done : -err;
    }
    return (ssize_t)done;
}

ssize_t fallback_fs_read(struct fallback_io *io, char *dst, size_t len, int64_t pos)
{
    return fs_window(io, HF_IO_READ, dst, len, pos);
}

ssize_t fallback_fs_write(struct fallback_io *io, const char *src, size_t len, int64_t pos)
{
    if (io->file->fs_write == NULL) {
        /* The core refuses writes to such files first; this keeps a direct caller safe. */
        fallback_log(io->fb, HF_LOG_ERROR, "user-space FS file has no write callback");
        return -EBADF;
    }
    /* fs_window only reads through the pointer for a write; the cast spares a second loop. */
    return fs_window(io, HF_IO_WRITE, (char *)src, len, pos);
}
