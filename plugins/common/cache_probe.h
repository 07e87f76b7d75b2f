/*
 * Asking the page cache for a range without waiting for the disk, as the fallback and fastpath do
 * before they read what is not cached with O_DIRECT.
 */
#ifndef HF_PLUGIN_COMMON_CACHE_PROBE_H
#define HF_PLUGIN_COMMON_CACHE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Copy into @p dst the leading part of [pos, pos + len) of buffered descriptor @p fd that the page
 * cache holds, with preadv2(RWF_NOWAIT) through @p sys. Returns its length: 0 when nothing is
 * cached or the kernel cannot tell (EAGAIN, EOPNOTSUPP, end of file). The first page is asked
 * alone and the rest only when that page was cached: a RWF_NOWAIT read that misses still starts
 * readahead of all it asked for (since Linux 5.9), so asking for a whole cold range would read it
 * from the disk a second time beside the O_DIRECT read that follows.
 */
size_t hfp_cache_probe(const struct hf_sys_ops *sys, int fd, char *dst, size_t len, int64_t pos);

/**
 * Bytes of [pos, pos + len) of @p fd that the page cache holds, as the kernel counts them
 * (cached_bytes through @p sys, cachestat(2)), or -1 where it cannot say: a core older than ABI
 * minor 8, a kernel before Linux 6.5, a file system that will not tell. Costs one system call that
 * copies no data, so a path can be chosen per request.
 */
int64_t hfp_cached_bytes(const struct hf_sys_ops *sys, int fd, uint64_t pos, uint64_t len);

/**
 * Whether @p cached bytes, as hfp_cached_bytes counted them for a range of @p len bytes, are less
 * than half of it. False where the count is -1 (nobody can say).
 */
bool hfp_mostly_uncached(int64_t cached, uint64_t len);

/**
 * Whether a window [pos, pos + len) of @p fd is worth a hfp_cache_probe. A read the kernel counted
 * mostly uncached (@p from_storage: hfp_mostly_uncached of its whole range) asks the count for
 * the window first and probes only where it is not zero: a probe of a page the cache lacks fails,
 * but still starts readahead of it and of pages around it, so every cold window would also be
 * read, in part, into the page cache beside its O_DIRECT read, at the reader's CPU cost and as
 * more requests to the device. Other reads probe at once, as does a window the kernel cannot
 * count.
 */
bool hfp_window_worth_probing(const struct hf_sys_ops *sys, int fd, bool from_storage, int64_t pos,
                              size_t len);

/**
 * Whether the page cache holds the byte of @p fd at @p pos: one RWF_NOWAIT read of that byte
 * through @p sys. False when it does not, or when the kernel cannot say.
 */
bool hfp_byte_cached(const struct hf_sys_ops *sys, int fd, int64_t pos);

#ifdef __cplusplus
}
#endif

#endif
