/*
 * From a file's st_dev to the NVMe namespace under it, through sysfs alone: the block device's
 * directory, its partition start, the namespace's generic char device, logical block size and
 * transfer limit. Never from device numbers to names by guesswork: generic minors follow probe
 * order, not names.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/align.h"
#include "nvme_passthru_internal.h"

/* Pages of the staging buffers: the kernel maps passthrough buffers in units of these. */
#define HOST_PAGE 4096u

/* Read one line of a sysfs attribute as an unsigned integer. */
static int read_u64(const char *dir, const char *attr, uint64_t *value_p)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, attr) >= (int)sizeof(path))
        return -ENAMETOOLONG;
    FILE *f = fopen(path, "re");
    /* Never 0 on failure, even to a compiler that cannot know fopen sets errno (see nvme_map.c). */
    if (f == NULL)
        return errno > 0 ? -errno : -EIO;
    unsigned long long value;
    int n = fscanf(f, "%llu", &value);
    fclose(f);
    if (n != 1)
        return -EINVAL;
    *value_p = value;
    return 0;
}

static int read_dev(const char *dir, unsigned *major_p, unsigned *minor_p)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/dev", dir) >= (int)sizeof(path))
        return -ENAMETOOLONG;
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -errno;
    int n = fscanf(f, "%u:%u", major_p, minor_p);
    fclose(f);
    return n == 2 ? 0 : -EINVAL;
}

static bool file_exists(const char *dir, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return false;
    return access(path, F_OK) == 0;
}

/* The last component of @p path (which has no trailing slash). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* Cut the last component off @p path in place. */
static void cut_last(char *path)
{
    char *slash = strrchr(path, '/');
    if (slash != NULL && slash != path)
        *slash = '\0';
}

/* Why a block device that is not an NVMe namespace is refused, by its kernel name. */
static const char *stacked_reason(const char *name)
{
    if (strncmp(name, "dm-", 3) == 0)
        return "the file is on a device-mapper device (LVM, dm-crypt...), not on an NVMe namespace";
    if (strncmp(name, "md", 2) == 0)
        return "the file is on an md RAID device, not on an NVMe namespace";
    if (strncmp(name, "loop", 4) == 0)
        return "the file is on a loop device, not on an NVMe namespace";
    return "the file's block device is not an NVMe namespace";
}

/* A namespace disk is named nvme<ctrl or subsystem>n<ns>, and nothing else. */
static bool parse_disk_name(const char *name, unsigned *ctrl_p, unsigned *ns_p)
{
    int used = 0;
    if (sscanf(name, "nvme%un%u%n", ctrl_p, ns_p, &used) != 2)
        return false;
    return name[used] == '\0';
}

/*
 * The sysfs directory of the whole disk under block device @p major:@p minor into @p dir (of
 * PATH_MAX bytes), and where the partition that device is starts, in 512-byte sectors, into
 * *start_sectors_p (0 for a whole disk). Returns 0, or -EOPNOTSUPP with *reason_p.
 */
static int disk_dir_find(const char *sysfs_root, unsigned major, unsigned minor, char *dir,
                         uint64_t *start_sectors_p, const char **reason_p)
{
    char link[PATH_MAX];
    /* btrfs, overlayfs and network filesystems report anonymous devices with major 0. */
    if (major == 0) {
        *reason_p = "the file's device is anonymous (btrfs, overlay or network filesystem)";
        return -EOPNOTSUPP;
    }
    snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs_root, major, minor);
    if (realpath(link, dir) == NULL) {
        *reason_p = "sysfs has no block device for the file's st_dev";
        return -EOPNOTSUPP;
    }
    *start_sectors_p = 0;
    if (file_exists(dir, "partition")) {
        if (read_u64(dir, "start", start_sectors_p) != 0) {
            *reason_p = "sysfs gives no start for the file's partition";
            return -EOPNOTSUPP;
        }
        cut_last(dir);
    }
    return 0;
}

/*
 * The directory disk @p dir hangs off into @p parent (of PATH_MAX bytes), which must be an NVMe
 * controller or subsystem: a name like a namespace's is not enough. Returns 0, or -EOPNOTSUPP
 * with *reason_p.
 */
static int disk_parent_find(const char *dir, char *parent, const char **reason_p)
{
    /* The disk's parent is its controller (nvmeX) or, with multipath, its subsystem. */
    snprintf(parent, PATH_MAX, "%s", dir);
    cut_last(parent);
    char grand[PATH_MAX];
    snprintf(grand, sizeof(grand), "%s", parent);
    cut_last(grand);
    const char *grand_name = base_name(grand);
    if (strcmp(grand_name, "nvme") != 0 && strcmp(grand_name, "nvme-subsystem") != 0) {
        *reason_p = "the file's block device is named like an NVMe namespace but is not one";
        return -EOPNOTSUPP;
    }
    return 0;
}

/*
 * The generic char device of namespace @p ns of controller or subsystem @p ctrl, whose disk hangs
 * off @p parent: its name and device number into @p t. Returns 0, or -EOPNOTSUPP with *reason_p.
 */
static int generic_device_find(const char *sysfs_root, const char *parent, unsigned ctrl,
                               unsigned ns, struct nvme_target *t, const char **reason_p)
{
    char link[PATH_MAX], generic[PATH_MAX];
    snprintf(t->generic_name, sizeof(t->generic_name), "ng%un%u", ctrl, ns);
    /* The generic device must hang off the same controller or subsystem as the disk. */
    snprintf(link, sizeof(link), "%s/class/nvme-generic/%s", sysfs_root, t->generic_name);
    if (realpath(link, generic) == NULL) {
        *reason_p = "the namespace has no generic char device (kernel older than 5.13?)";
        return -EOPNOTSUPP;
    }
    char generic_parent[PATH_MAX];
    snprintf(generic_parent, sizeof(generic_parent), "%s", generic);
    cut_last(generic_parent);
    if (strcmp(generic_parent, parent) != 0) {
        *reason_p = "the generic char device of that name belongs to another controller";
        return -EOPNOTSUPP;
    }
    if (read_dev(generic, &t->generic_major, &t->generic_minor) != 0) {
        *reason_p = "sysfs gives no device number for the generic char device";
        return -EOPNOTSUPP;
    }
    return 0;
}

/*
 * The namespace id, logical block size and largest transfer of the namespace whose disk is @p dir,
 * into @p t. Returns 0, or -EOPNOTSUPP with *reason_p when sysfs lacks them or they are unusable.
 */
static int namespace_limits_read(const char *dir, struct nvme_target *t, const char **reason_p)
{
    uint64_t nsid, lba_size, max_hw_kib, max_segments;
    char queue[PATH_MAX];
    if (snprintf(queue, sizeof(queue), "%s/queue", dir) >= (int)sizeof(queue) ||
        read_u64(dir, "nsid", &nsid) != 0 || nsid == 0 || nsid > UINT32_MAX ||
        read_u64(queue, "logical_block_size", &lba_size) != 0 ||
        read_u64(queue, "max_hw_sectors_kb", &max_hw_kib) != 0 ||
        read_u64(queue, "max_segments", &max_segments) != 0 || max_segments < 2) {
        *reason_p = "sysfs lacks the namespace's nsid, logical block size or transfer limits";
        return -EOPNOTSUPP;
    }
    if (lba_size < 512 || lba_size > 65536 || !hfp_align_is_pow2(lba_size) ||
        max_hw_kib * 1024 < lba_size) {
        *reason_p = "the namespace reports an unusable block size or transfer limit";
        return -EOPNOTSUPP;
    }
    t->nsid = (uint32_t)nsid;
    t->lba_size = (uint32_t)lba_size;
    /*
     * A command's buffer is mapped page by page, and a page-aligned buffer that is not physically
     * contiguous takes one segment per page; past max_segments the kernel answers EINVAL. One
     * segment is kept spare for a buffer that does not start on a page.
     */
    uint64_t max_transfer = max_hw_kib * 1024;
    if ((max_segments - 1) * HOST_PAGE < max_transfer)
        max_transfer = (max_segments - 1) * HOST_PAGE;
    t->max_transfer = hfp_align_down(max_transfer, lba_size);
    if (t->max_transfer == 0) {
        *reason_p = "the namespace's transfer limits are smaller than one logical block";
        return -EOPNOTSUPP;
    }
    return 0;
}

int nvme_sysfs_resolve(const char *sysfs_root, unsigned major, unsigned minor,
                       struct nvme_target *target_p, const char **reason_p)
{
    char dir[PATH_MAX], parent[PATH_MAX];
    struct nvme_target t;
    memset(&t, 0, sizeof(t));
    uint64_t start_sectors;
    int rc = disk_dir_find(sysfs_root, major, minor, dir, &start_sectors, reason_p);
    if (rc < 0)
        return rc;
    const char *disk = base_name(dir);
    unsigned ctrl, ns;
    if (!parse_disk_name(disk, &ctrl, &ns)) {
        *reason_p = stacked_reason(disk);
        return -EOPNOTSUPP;
    }
    rc = disk_parent_find(dir, parent, reason_p);
    if (rc < 0)
        return rc;
    size_t disk_len = strlen(disk);
    if (disk_len >= sizeof(t.disk)) {
        *reason_p = "the namespace's name is too long";
        return -EOPNOTSUPP;
    }
    memcpy(t.disk, disk, disk_len + 1);
    rc = generic_device_find(sysfs_root, parent, ctrl, ns, &t, reason_p);
    if (rc < 0)
        return rc;
    rc = namespace_limits_read(dir, &t, reason_p);
    if (rc < 0)
        return rc;
    /* Partition starts are in 512-byte units whatever the logical block size. */
    t.part_start_bytes = start_sectors * 512;
    *target_p = t;
    return 0;
}
