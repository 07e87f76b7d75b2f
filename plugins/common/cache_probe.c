/* The page-cache probe plugins share (cache_probe.h). */
#include "common/cache_probe.h"

#include <errno.h>
#include <stddef.h>
#include <sys/uio.h>

/* Bytes asked for before the rest of a range: one page. */
#define PROBE_FIRST 4096

/* One RWF_NOWAIT read: the bytes the page cache gave, 0 when none or unknown. */
static size_t cache_read(const struct hf_sys_ops *sys, int fd, char *dst, size_t len, int64_t pos)
{
    struct iovec iov = {.iov_base = dst, .iov_len = len};
    for (;;) {
        ssize_t n = sys->preadv2(fd, &iov, 1, (off_t)pos, RWF_NOWAIT);
        if (n > 0 && (size_t)n <= len)
            return (size_t)n;
        if (n < 0 && errno == EINTR)
            continue;
        /* EAGAIN, EOPNOTSUPP, end of file or anything odd: the caller's blocking reads decide. */
        return 0;
    }
}

size_t hfp_cache_probe(const struct hf_sys_ops *sys, int fd, char *dst, size_t len, int64_t pos)
{
    size_t first = len < PROBE_FIRST ? len : PROBE_FIRST;
    size_t done = cache_read(sys, fd, dst, first, pos);
    if (done < first || done == len)
        return done;
    return done + cache_read(sys, fd, dst + done, len - done, pos + (int64_t)done);
}

int64_t hfp_cached_bytes(const struct hf_sys_ops *sys, int fd, uint64_t pos, uint64_t len)
{
    if (sys->struct_size < offsetof(struct hf_sys_ops, cached_bytes) + sizeof(sys->cached_bytes) ||
        sys->cached_bytes == NULL || len == 0)
        return -1;
    int64_t cached = sys->cached_bytes(fd, pos, len);
    return cached >= 0 ? cached : -1;
}

bool hfp_mostly_uncached(int64_t cached, uint64_t len)
{
    return cached >= 0 && (uint64_t)cached < len / 2;
}

bool hfp_window_worth_probing(const struct hf_sys_ops *sys, int fd, bool from_storage, int64_t pos,
                              size_t len)
{
    return !from_storage || hfp_cached_bytes(sys, fd, (uint64_t)pos, len) != 0;
}

bool hfp_byte_cached(const struct hf_sys_ops *sys, int fd, int64_t pos)
{
    char byte;
    return cache_read(sys, fd, &byte, 1, pos) == 1;
}
