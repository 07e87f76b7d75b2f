/*
 * The system-call table handed to backends. Backends keep the pointer they got at load, so what
 * they hold is a forwarding table that reads the current override on every call; tests swap the
 * target with hf_sys_override to inject faults.
 */
#include "base/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* cachestat(2), Linux 6.5; one number on every architecture, and older headers lack it. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

static int sys_ioctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}

struct cachestat_range_arg {
    uint64_t off;
    uint64_t len;
};

struct cachestat_result {
    uint64_t nr_cache;
    uint64_t nr_dirty;
    uint64_t nr_writeback;
    uint64_t nr_evicted;
    uint64_t nr_recently_evicted;
};

static int64_t sys_cached_bytes(int fd, uint64_t offset, uint64_t len)
{
    if (len == 0)
        return 0; /* cachestat reads a length of 0 as "to the end of the file" */
    struct cachestat_range_arg range = {.off = offset, .len = len};
    struct cachestat_result result = {0};
    if (syscall(__NR_cachestat, fd, &range, &result, 0) != 0)
        return -1;
    /* Pages are counted whole: the first and last may reach past the range. */
    uint64_t bytes = result.nr_cache * (uint64_t)sysconf(_SC_PAGESIZE);
    return (int64_t)(bytes < len ? bytes : len);
}

static const struct hf_sys_ops sys_default = {
    .struct_size = sizeof(struct hf_sys_ops),
    .pread = pread,
    .pwrite = pwrite,
    .fstat = fstat,
    .fdatasync = fdatasync,
    .ioctl = sys_ioctl,
    .preadv2 = preadv2,
    .cached_bytes = sys_cached_bytes,
};

static _Atomic(const struct hf_sys_ops *) sys_current = &sys_default;

static ssize_t forward_pread(int fd, void *buf, size_t count, off_t offset)
{
    return atomic_load(&sys_current)->pread(fd, buf, count, offset);
}

static ssize_t forward_pwrite(int fd, const void *buf, size_t count, off_t offset)
{
    return atomic_load(&sys_current)->pwrite(fd, buf, count, offset);
}

static int forward_fstat(int fd, struct stat *st)
{
    return atomic_load(&sys_current)->fstat(fd, st);
}

static int forward_fdatasync(int fd)
{
    return atomic_load(&sys_current)->fdatasync(fd);
}

static int forward_ioctl(int fd, unsigned long request, void *arg)
{
    return atomic_load(&sys_current)->ioctl(fd, request, arg);
}

/* A test table built before preadv2 existed leaves it NULL: report it unsupported. */
static ssize_t forward_preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
    const struct hf_sys_ops *ops = atomic_load(&sys_current);
    if (ops->struct_size < offsetof(struct hf_sys_ops, preadv2) + sizeof(ops->preadv2) ||
        ops->preadv2 == NULL) {
        errno = EOPNOTSUPP;
        return -1;
    }
    return ops->preadv2(fd, iov, iovcnt, offset, flags);
}

/* A test table built before cached_bytes existed leaves it NULL: the kernel "cannot say". */
static int64_t forward_cached_bytes(int fd, uint64_t offset, uint64_t len)
{
    const struct hf_sys_ops *ops = atomic_load(&sys_current);
    if (ops->struct_size < offsetof(struct hf_sys_ops, cached_bytes) + sizeof(ops->cached_bytes) ||
        ops->cached_bytes == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return ops->cached_bytes(fd, offset, len);
}

static const struct hf_sys_ops sys_forward = {
    .struct_size = sizeof(struct hf_sys_ops),
    .pread = forward_pread,
    .pwrite = forward_pwrite,
    .fstat = forward_fstat,
    .fdatasync = forward_fdatasync,
    .ioctl = forward_ioctl,
    .preadv2 = forward_preadv2,
    .cached_bytes = forward_cached_bytes,
};

const struct hf_sys_ops *hf_sys(void)
{
    return &sys_forward;
}

void hf_sys_override(const struct hf_sys_ops *ops)
{
    atomic_store(&sys_current, ops ? ops : &sys_default);
}

const struct hf_sys_ops *hf_sys_default(void)
{
    return &sys_default;
}

/* ---- the core's own calls ---- */

static int core_open(const char *path, int flags)
{
    return open(path, flags);
}

static const struct hf_core_sys_ops core_sys_default = {
    .open = core_open,
    .fstat = fstat,
    .statx = statx,
};

static _Atomic(const struct hf_core_sys_ops *) core_sys_current = &core_sys_default;

const struct hf_core_sys_ops *hf_core_sys(void)
{
    return atomic_load(&core_sys_current);
}

void hf_core_sys_override(const struct hf_core_sys_ops *ops)
{
    atomic_store(&core_sys_current, ops ? ops : &core_sys_default);
}

const struct hf_core_sys_ops *hf_core_sys_default(void)
{
    return &core_sys_default;
}
