/*
 * The rules that decide which file bytes may be read or written straight on the device: FIEMAP
 * extent flags, inode flags, LBA alignment, and the walk from a file offset to the segment that
 * holds it. Pure functions over FIEMAP's answer, so every rule has a unit test.
 */
#include <errno.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "common/align.h"
#include "nvme_passthru_internal.h"

/* Flags whose extents are plain blocks at fe_physical (LAST and MERGED say nothing about data). */
#define EXTENT_PLAIN_FLAGS (FIEMAP_EXTENT_LAST | FIEMAP_EXTENT_MERGED)

enum nvme_extent_use nvme_extent_classify(uint32_t fe_flags, int op, const char **reason_p)
{
    const char *reason = NULL;
    enum nvme_extent_use use = NVME_EXTENT_REFUSE;
    if (fe_flags & FIEMAP_EXTENT_DELALLOC)
        reason = "delayed allocation: the data has no place on the device yet";
    else if (fe_flags & FIEMAP_EXTENT_UNKNOWN)
        reason = "the extent's location is unknown";
    else if (fe_flags & (FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED))
        reason = "encoded (compressed or encrypted) data";
    else if (fe_flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL))
        reason = "inline or tail-packed data lives inside filesystem metadata";
    else if (fe_flags & FIEMAP_EXTENT_NOT_ALIGNED)
        reason = "the extent is not block aligned";
    else if (fe_flags &
             ~(uint32_t)(EXTENT_PLAIN_FLAGS | FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_SHARED))
        reason = "an extent flag this backend does not know";
    else if (op == HF_IO_WRITE && (fe_flags & FIEMAP_EXTENT_UNWRITTEN))
        reason = "unwritten (preallocated) extent: the filesystem would go on reading zeros";
    else if (op == HF_IO_WRITE && (fe_flags & FIEMAP_EXTENT_SHARED))
        reason = "shared (reflinked) extent: a write would change the other files too";
    else if (fe_flags & FIEMAP_EXTENT_UNWRITTEN) {
        use = NVME_EXTENT_ZERO;
        reason = "unwritten extent reads as zeros";
    } else {
        use = NVME_EXTENT_DEVICE;
        reason = "written extent";
    }
    if (reason_p != NULL)
        *reason_p = reason;
    return use;
}

const char *nvme_inode_refusal(uint32_t iflags, uint32_t xflags)
{
    /* ext4 data=journal per file: the newest data may still be in the journal only. */
    if (iflags & FS_JOURNAL_DATA_FL)
        return "data journalling (chattr +j): the newest data may be in the journal";
    if (iflags & FS_ENCRYPT_FL)
        return "encrypted file: the device holds ciphertext";
    if (iflags & FS_VERITY_FL)
        return "fs-verity file";
    /* ext4's EXT4_INLINE_DATA_FL: FIEMAP shows it, but the whole file is in the inode. */
    if (iflags & 0x10000000u)
        return "inline data: the file lives inside its inode";
    if (xflags & FS_XFLAG_REALTIME)
        return "XFS realtime file: its extents are on the realtime device";
    if ((iflags & FS_DAX_FL) || (xflags & FS_XFLAG_DAX))
        return "DAX file: no block I/O semantics";
    return NULL;
}

/* First extent ending after @p pos (binary search over the sorted array). */
static size_t extent_index_after(const struct nvme_map *map, uint64_t pos)
{
    size_t lo = 0, hi = map->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct nvme_extent *e = &map->extents[mid];
        if (e->logical + e->length <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int nvme_segment_at(const struct nvme_map *map, uint64_t pos, uint64_t end, int op,
                    uint64_t dev_start, uint32_t lba_size, struct nvme_segment *seg_p,
                    const char **reason_p)
{
    /* Past end of file there is nothing to map; an extent's last block may still reach there. */
    if (pos >= map->mapped_end || pos >= end)
        return -ERANGE;
    size_t i = extent_index_after(map, pos);
    const struct nvme_extent *e = i < map->count ? &map->extents[i] : NULL;
    struct nvme_segment seg = {.file_offset = pos, .zero = true};
    if (e == NULL || e->logical > pos) {
        uint64_t hole_end = e != NULL && e->logical < end ? e->logical : end;
        if (op == HF_IO_WRITE) {
            *reason_p = "a hole: writing it needs the filesystem to allocate blocks";
            return -ENODEV;
        }
        seg.length = hole_end - pos;
        *seg_p = seg;
        return 0;
    }
    const char *reason;
    enum nvme_extent_use use = nvme_extent_classify(e->flags, op, &reason);
    if (use == NVME_EXTENT_REFUSE) {
        *reason_p = reason;
        return -ENODEV;
    }
    uint64_t extent_end = e->logical + e->length;
    seg.length = (extent_end < end ? extent_end : end) - pos;
    if (use == NVME_EXTENT_DEVICE) {
        /*
         * LBA math below assumes a file offset and its device byte share their offset within a
         * logical block, and that an extent covers whole blocks.
         */
        if (!hfp_align_is_aligned(e->logical, lba_size) ||
            !hfp_align_is_aligned(dev_start + e->physical, lba_size) ||
            !hfp_align_is_aligned(e->length, lba_size)) {
            *reason_p = "an extent that does not start and end on logical block boundaries";
            return -ENODEV;
        }
        seg.zero = false;
        seg.dev_offset = dev_start + e->physical + (pos - e->logical);
    }
    *seg_p = seg;
    return 0;
}
