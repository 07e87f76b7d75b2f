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
#include <sys/ioctl.h>
#include <unistd.h>

static int sys_ioctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}

static const struct hf_sys_ops sys_default = {
    .struct_size = sizeof(struct hf_sys_ops),
    .pread = pread,
    .pwrite = pwrite,
    .fstat = fstat,
    .fdatasync = fdatasync,
    .ioctl = sys_ioctl,
    .preadv2 = preadv2,
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

static const struct hf_sys_ops sys_forward = {
    .struct_size = sizeof(struct hf_sys_ops),
    .pread = forward_pread,
    .pwrite = forward_pwrite,
    .fstat = forward_fstat,
    .fdatasync = forward_fdatasync,
    .ioctl = forward_ioctl,
    .preadv2 = forward_preadv2,
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
