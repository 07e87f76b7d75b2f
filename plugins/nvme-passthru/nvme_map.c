/*
 * A file's mapping from offsets to device bytes (FIEMAP), kept per file and taken again when the
 * file's statx stamp changes. Dirty page-cache data is written back and waited for before every
 * request, so a device read never misses data a POSIX read would return.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "nvme_passthru_internal.h"

/* Extents asked for per FIEMAP call; files with more take several calls. */
#define FIEMAP_BATCH 256

/*
 * Timestamps come from a coarse clock (one jiffy, up to 10 ms). A file changed within this long
 * before its mapping was taken could change again without a new stamp, so such a mapping is used
 * once and not cached.
 */
#define STAMP_GRANULE_NS (50 * 1000 * 1000LL)

static int64_t ts_ns(const struct statx_timestamp *ts)
{
    return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

int nvme_file_stamp_take(int fd, struct nvme_file_stamp *stamp_p)
{
    struct statx stx;
    /*
     * A failed call always sets errno, but the compiler cannot know that: with a bare -errno it
     * sees a path that returns 0 without writing *stamp_p, and gcc -O3 warns at every caller.
     */
    if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) != 0)
        return errno > 0 ? -errno : -EIO;
    stamp_p->ino = stx.stx_ino;
    stamp_p->size = stx.stx_size;
    stamp_p->blocks = stx.stx_blocks;
    stamp_p->mtime_ns = ts_ns(&stx.stx_mtime);
    stamp_p->ctime_ns = ts_ns(&stx.stx_ctime);
    return 0;
}

bool nvme_file_stamp_equal(const struct nvme_file_stamp *a, const struct nvme_file_stamp *b)
{
    return a->ino == b->ino && a->size == b->size && a->blocks == b->blocks &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

void nvme_map_put(struct nvme_map *map)
{
    if (map == NULL || __atomic_sub_fetch(&map->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    free(map->extents);
    free(map);
}

/* Append FIEMAP's extents to @p map, growing its array. */
static int map_append(struct nvme_map *map, size_t *capacity, const struct fiemap_extent *fe,
                      unsigned n)
{
    if (map->count + n > *capacity) {
        size_t want = (map->count + n) * 2;
        struct nvme_extent *grown = realloc(map->extents, want * sizeof(*grown));
        if (grown == NULL)
            return -ENOMEM;
        map->extents = grown;
        *capacity = want;
    }
    for (unsigned i = 0; i < n; i++) {
        map->extents[map->count++] = (struct nvme_extent){
            .logical = fe[i].fe_logical,
            .physical = fe[i].fe_physical,
            .length = fe[i].fe_length,
            .flags = fe[i].fe_flags,
        };
    }
    return 0;
}

int nvme_map_fetch(int fd, int (*ioctl_fn)(int, unsigned long, void *), uint64_t size,
                   struct nvme_map **map_p)
{
    struct fiemap *fm = calloc(1, sizeof(*fm) + FIEMAP_BATCH * sizeof(struct fiemap_extent));
    struct nvme_map *map = calloc(1, sizeof(*map));
    int rc = -ENOMEM;
    if (fm == NULL || map == NULL)
        goto free_all;
    map->refs = 1;
    size_t capacity = 0;
    uint64_t start = 0;
    bool last = false;
    /* A file's extents can change between calls; only the first call syncs, later ones follow. */
    uint32_t flags = FIEMAP_FLAG_SYNC;
    while (!last && start < size) {
        memset(fm, 0, sizeof(*fm));
        fm->fm_start = start;
        fm->fm_length = FIEMAP_MAX_OFFSET - start;
        fm->fm_flags = flags;
        fm->fm_extent_count = FIEMAP_BATCH;
        if (ioctl_fn(fd, FS_IOC_FIEMAP, fm) != 0) {
            rc = errno == ENOTTY || errno == EOPNOTSUPP ? -EOPNOTSUPP : -errno;
            goto free_all;
        }
        flags = 0;
        if (fm->fm_mapped_extents == 0)
            break;
        rc = map_append(map, &capacity, fm->fm_extents, fm->fm_mapped_extents);
        if (rc < 0)
            goto free_all;
        const struct fiemap_extent *tail = &fm->fm_extents[fm->fm_mapped_extents - 1];
        last = (tail->fe_flags & FIEMAP_EXTENT_LAST) != 0;
        uint64_t next = tail->fe_logical + tail->fe_length;
        if (next <= start) {
            rc = -EIO; /* a filesystem that does not move forward */
            goto free_all;
        }
        start = next;
    }
    /* Extents must come sorted and apart; anything else is a filesystem this code does not know. */
    for (size_t i = 1; i < map->count; i++) {
        const struct nvme_extent *a = &map->extents[i - 1];
        if (a->logical + a->length > map->extents[i].logical) {
            rc = -EIO;
            goto free_all;
        }
    }
    map->mapped_end = size;
    free(fm);
    *map_p = map;
    return 0;

free_all:
    free(fm);
    if (map != NULL)
        free(map->extents);
    free(map);
    return rc;
}

int nvme_map_cache_init(struct nvme_map_cache *cache)
{
    memset(cache, 0, sizeof(*cache));
    return pthread_mutex_init(&cache->lock, NULL) == 0 ? 0 : -ENOMEM;
}

void nvme_map_cache_destroy(struct nvme_map_cache *cache)
{
    nvme_map_put(cache->map);
    cache->map = NULL;
    pthread_mutex_destroy(&cache->lock);
}

void nvme_map_cache_drop(struct nvme_map_cache *cache)
{
    pthread_mutex_lock(&cache->lock);
    struct nvme_map *old = cache->map;
    cache->map = NULL;
    pthread_mutex_unlock(&cache->lock);
    nvme_map_put(old);
}

bool nvme_stamp_is_recent(const struct nvme_file_stamp *stamp, int64_t now_ns)
{
    int64_t changed = stamp->ctime_ns > stamp->mtime_ns ? stamp->ctime_ns : stamp->mtime_ns;
    return now_ns - changed < STAMP_GRANULE_NS;
}

static int64_t now_ns(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return 0;
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Whether every extent of @p map is settled (cached mappings must not hold passing states). */
static bool map_is_settled(const struct nvme_map *map)
{
    for (size_t i = 0; i < map->count; i++) {
        if (map->extents[i].flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
            return false;
    }
    return true;
}

int nvme_map_get(struct nvme_map_cache *cache, int fd, int (*ioctl_fn)(int, unsigned long, void *),
                 uint64_t offset, uint64_t size, bool fresh, struct nvme_map **map_p,
                 struct nvme_file_stamp *stamp_p)
{
    /*
     * Write back the range's dirty pages and wait, as the kernel does before O_DIRECT: a device
     * read must see what a buffered read would. Delayed allocation gets its blocks here too.
     */
    if (size > 0 && sync_file_range(fd, (off64_t)offset, (off64_t)size,
                                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                        SYNC_FILE_RANGE_WAIT_AFTER) != 0)
        return -errno;
    struct nvme_file_stamp stamp;
    int rc = nvme_file_stamp_take(fd, &stamp);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&cache->lock);
    if (!fresh && cache->map != NULL && nvme_file_stamp_equal(&cache->stamp, &stamp)) {
        struct nvme_map *map = cache->map;
        __atomic_add_fetch(&map->refs, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&cache->lock);
        *map_p = map;
        *stamp_p = stamp;
        return 0;
    }
    pthread_mutex_unlock(&cache->lock);

    struct nvme_map *map;
    rc = nvme_map_fetch(fd, ioctl_fn, stamp.size, &map);
    if (rc < 0)
        return rc;
    /* The stamp must describe the mapping: take it again, and give up on a file that moves. */
    struct nvme_file_stamp after;
    rc = nvme_file_stamp_take(fd, &after);
    if (rc == 0 && (after.ino != stamp.ino || after.size != stamp.size ||
                    after.mtime_ns != stamp.mtime_ns || after.ctime_ns != stamp.ctime_ns))
        rc = -EAGAIN;
    if (rc < 0) {
        nvme_map_put(map);
        return rc;
    }
    /* Writeback of delayed allocation may change st_blocks, not the data: the later one counts. */
    stamp = after;
    map->mapped_end = stamp.size;
    if (!nvme_stamp_is_recent(&stamp, now_ns()) && map_is_settled(map)) {
        pthread_mutex_lock(&cache->lock);
        struct nvme_map *old = cache->map;
        cache->map = map;
        cache->stamp = stamp;
        __atomic_add_fetch(&map->refs, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&cache->lock);
        nvme_map_put(old);
    }
    *map_p = map;
    *stamp_p = stamp;
    return 0;
}
