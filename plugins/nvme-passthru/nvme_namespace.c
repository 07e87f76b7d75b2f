/*
 * Which files the backend takes, decided once at registration: an ext4 or XFS file whose block
 * device sysfs resolves to an NVMe namespace, with no inode flag that moves its data out of
 * FIEMAP's view, on a namespace whose generic char device this process may send commands to.
 * Namespaces are opened once and shared by the files on them. Also the idle submission queues.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvme_backend.h"

/* Identify Namespace: admin opcode 0x06 with CNS 0 returns a 4096-byte structure. */
#define ADMIN_IDENTIFY 0x06
#define IDENTIFY_SIZE 4096
#define ID_NS_NLBAF 25
#define ID_NS_FLBAS 26
#define ID_NS_LBAF 128

static unsigned log2_of(uint32_t value)
{
    unsigned shift = 0;
    while ((1u << shift) < value)
        shift++;
    return shift;
}

/*
 * Ask the controller for the namespace's format: the data size must match sysfs, and the format
 * must carry no metadata, since the backend never passes a metadata buffer.
 */
static const char *identify_check(struct nvme_passthru *np, int fd, uint32_t nsid,
                                  unsigned lba_shift)
{
    void *id = NULL;
    if (posix_memalign(&id, 4096, IDENTIFY_SIZE) != 0)
        return "out of memory for Identify";
    memset(id, 0, IDENTIFY_SIZE);
    struct nvme_passthru_cmd64 cmd = {
        .opcode = ADMIN_IDENTIFY,
        .nsid = nsid,
        .addr = (uint64_t)(uintptr_t)id,
        .data_len = IDENTIFY_SIZE,
        .cdw10 = 0,
    };
    int rc = np->host->sys->ioctl(fd, NVME_IOCTL_ADMIN64_CMD, &cmd);
    int err = errno;
    const char *reason = NULL;
    const uint8_t *b = id;
    if (rc < 0 && (err == EACCES || err == EPERM)) {
        reason = "no permission for NVMe passthrough (CAP_SYS_ADMIN, or Linux 6.2+ with read "
                 "access to the generic device)";
    } else if (rc != 0) {
        reason = "Identify Namespace failed";
    } else {
        unsigned nlbaf = b[ID_NS_NLBAF];
        unsigned flbas = b[ID_NS_FLBAS];
        unsigned index = flbas & 0xfu;
        if (nlbaf >= 16)
            index |= ((flbas >> 5) & 0x3u) << 4;
        const uint8_t *lbaf = b + ID_NS_LBAF + 4 * index;
        unsigned ms = (unsigned)lbaf[0] | ((unsigned)lbaf[1] << 8);
        unsigned ds = lbaf[2];
        if (index > nlbaf)
            reason = "Identify Namespace names a format that does not exist";
        else if (ds != lba_shift)
            reason = "Identify Namespace and sysfs disagree on the logical block size";
        else if (ms != 0)
            reason = "the namespace is formatted with metadata, which this backend does not pass";
    }
    free(id);
    return reason;
}

/* One read of block 0: the I/O permission check the kernel makes on every command. */
static const char *read_check(struct nvme_passthru *np, int fd, uint32_t nsid, unsigned lba_shift)
{
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, (size_t)1 << lba_shift) != 0)
        return "out of memory for the permission check";
    struct nvme_io io = {.opcode = NVME_OP_READ,
                         .nsid = nsid,
                         .slba = 0,
                         .blocks = 1,
                         .lba_shift = lba_shift,
                         .buf = buf};
    struct nvme_passthru_cmd64 cmd;
    const char *reason = NULL;
    if (nvme_cmd_encode(&io, &cmd) != 0) {
        reason = "cannot encode a read";
    } else {
        int rc = np->host->sys->ioctl(fd, NVME_IOCTL_IO64_CMD, &cmd);
        if (rc < 0 && (errno == EACCES || errno == EPERM))
            reason = "no permission to send NVMe I/O commands to the namespace";
        else if (rc != 0)
            reason = "a test read of block 0 failed";
    }
    free(buf);
    return reason;
}

/* Open the generic device and check that it is the namespace sysfs named. */
static const char *namespace_open(struct nvme_passthru *np, const struct nvme_target *t,
                                  struct nvme_namespace *ns)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", np->dev_root, t->generic_name);
    ns->writable = np->set.writes;
    int fd = open(path, (np->set.writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (fd < 0 && np->set.writes && (errno == EACCES || errno == EPERM)) {
        nvme_log(np, HF_LOG_WARN, "%s cannot be opened for writing; serving reads only", path);
        ns->writable = false;
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0)
        return errno == EACCES || errno == EPERM ? "no permission to open the generic device"
                                                 : "the generic device cannot be opened";
    struct stat st;
    const char *reason = NULL;
    unsigned lba_shift = log2_of(t->lba_size);
    if (np->host->sys->fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) ||
        major(st.st_rdev) != t->generic_major || minor(st.st_rdev) != t->generic_minor) {
        reason = "the generic device node is not the char device sysfs names";
    } else {
        int id = np->host->sys->ioctl(fd, NVME_IOCTL_ID, NULL);
        if (id < 0 || (uint32_t)id != t->nsid)
            reason = "the generic device answers with another namespace id";
    }
    if (reason == NULL)
        reason = identify_check(np, fd, t->nsid, lba_shift);
    if (reason == NULL)
        reason = read_check(np, fd, t->nsid, lba_shift);
    if (reason != NULL) {
        close(fd);
        return reason;
    }
    ns->fd = fd;
    ns->target = *t;
    ns->lba_shift = lba_shift;
    nvme_log(np, HF_LOG_INFO,
             "opened %s: namespace %u, %u-byte blocks, %llu KiB per command, %s, %s", path, t->nsid,
             t->lba_size, (unsigned long long)(t->max_transfer / 1024),
             nvme_mechanism_name(np->mechanism), ns->writable ? "reads and writes" : "reads");
    return NULL;
}

/* The namespace for @p t, opened on first use; the caller holds np->lock. */
static const char *namespace_get(struct nvme_passthru *np, const struct nvme_target *t,
                                 struct nvme_namespace **ns_p)
{
    for (struct nvme_namespace *ns = np->namespaces; ns != NULL; ns = ns->next) {
        if (ns->target.generic_major == t->generic_major &&
            ns->target.generic_minor == t->generic_minor) {
            ns->refs++;
            *ns_p = ns;
            return NULL;
        }
    }
    struct nvme_namespace *ns = calloc(1, sizeof(*ns));
    if (ns == NULL)
        return "out of memory";
    const char *reason = namespace_open(np, t, ns);
    if (reason != NULL) {
        free(ns);
        return reason;
    }
    ns->refs = 1;
    ns->next = np->namespaces;
    np->namespaces = ns;
    *ns_p = ns;
    return NULL;
}

/* Drop one file's hold on @p ns, closing it with the last. */
static void namespace_put(struct nvme_passthru *np, struct nvme_namespace *ns)
{
    pthread_mutex_lock(&np->lock);
    for (struct nvme_namespace **link = &np->namespaces; *link != NULL; link = &(*link)->next) {
        if (*link != ns)
            continue;
        if (--ns->refs == 0) {
            *link = ns->next;
            close(ns->fd);
            free(ns);
        }
        break;
    }
    pthread_mutex_unlock(&np->lock);
}

/* Per-file inode flags that take the data out of FIEMAP's view. */
static const char *inode_check(struct nvme_passthru *np, int fd)
{
    unsigned int iflags = 0;
    struct fsxattr fsx;
    memset(&fsx, 0, sizeof(fsx));
    if (np->host->sys->ioctl(fd, FS_IOC_GETFLAGS, &iflags) != 0)
        iflags = 0;
    if (np->host->sys->ioctl(fd, FS_IOC_FSGETXATTR, &fsx) != 0)
        fsx.fsx_xflags = 0;
    return nvme_inode_refusal(iflags, fsx.fsx_xflags);
}

/* Why @p file is not for this backend, or NULL; fills *target_p on the way. */
static const char *file_check(struct nvme_passthru *np, const struct hf_file_info *file,
                              struct nvme_target *target_p)
{
    if (file->kind != HF_FILE_REGULAR)
        return "not a regular file";
    if (strcmp(file->fs_name, "ext4") != 0 && strcmp(file->fs_name, "xfs") != 0)
        return "only files on ext4 and XFS have device offsets this backend trusts";
    if (strcmp(file->ext4_data_mode, "journal") == 0)
        return "ext4 data=journal: the newest data may be in the journal only";
    struct stat st;
    if (np->host->sys->fstat(file->fd, &st) != 0)
        return "fstat failed";
    const char *reason = inode_check(np, file->fd);
    if (reason != NULL)
        return reason;
    int rc =
        nvme_sysfs_resolve(np->sysfs_root, major(st.st_dev), minor(st.st_dev), target_p, &reason);
    return rc == 0 ? NULL : reason;
}

int nvme_file_open(struct nvme_passthru *np, const struct hf_file_info *file, struct nvme_file *nf)
{
    struct nvme_target t;
    const char *reason = file_check(np, file, &t);
    struct nvme_namespace *ns = NULL;
    if (reason == NULL) {
        pthread_mutex_lock(&np->lock);
        reason = namespace_get(np, &t, &ns);
        pthread_mutex_unlock(&np->lock);
    }
    if (reason != NULL) {
        nvme_log(np, HF_LOG_INFO, "declining fd %d: %s", file->fd, reason);
        return -EOPNOTSUPP;
    }
    memset(nf, 0, sizeof(*nf));
    if (nvme_map_cache_init(&nf->cache) != 0) {
        namespace_put(np, ns);
        return -ENOMEM;
    }
    nf->ns = ns;
    nf->dev_start = t.part_start_bytes;
    nf->lba_size = t.lba_size;
    nf->max_transfer = t.max_transfer < ((uint64_t)NVME_MAX_BLOCKS_PER_CMD << ns->lba_shift)
                           ? t.max_transfer
                           : (uint64_t)NVME_MAX_BLOCKS_PER_CMD << ns->lba_shift;
    nf->fd = file->fd;
    nvme_log(np, HF_LOG_DEBUG, "fd %d on %s at byte %llu of the namespace", file->fd, t.disk,
             (unsigned long long)t.part_start_bytes);
    return 0;
}

void nvme_file_close(struct nvme_passthru *np, struct nvme_file *nf)
{
    nvme_map_cache_destroy(&nf->cache);
    namespace_put(np, nf->ns);
}

void nvme_namespaces_close(struct nvme_passthru *np)
{
    while (np->namespaces != NULL) {
        struct nvme_namespace *ns = np->namespaces;
        np->namespaces = ns->next;
        close(ns->fd);
        free(ns);
    }
}

int nvme_queue_take(struct nvme_passthru *np, struct nvme_queue **queue_p)
{
    pthread_mutex_lock(&np->lock);
    if (np->idle_count > 0) {
        *queue_p = np->idle_queues[--np->idle_count];
        pthread_mutex_unlock(&np->lock);
        return 0;
    }
    pthread_mutex_unlock(&np->lock);
    int rc = nvme_queue_create(np->mechanism, np->set.queue_depth, np->host->sys->ioctl, queue_p);
    if (rc < 0)
        nvme_log(np, HF_LOG_ERROR, "cannot create a %s submission queue: %s",
                 nvme_mechanism_name(np->mechanism), strerror(-rc));
    return rc;
}

void nvme_queue_give(struct nvme_passthru *np, struct nvme_queue *queue)
{
    if (!nvme_queue_usable(queue)) {
        nvme_queue_destroy(queue);
        return;
    }
    pthread_mutex_lock(&np->lock);
    if (np->idle_count == np->idle_capacity) {
        size_t want = np->idle_capacity ? np->idle_capacity * 2 : 8;
        struct nvme_queue **grown = realloc(np->idle_queues, want * sizeof(*grown));
        if (grown == NULL) {
            pthread_mutex_unlock(&np->lock);
            nvme_queue_destroy(queue);
            return;
        }
        np->idle_queues = grown;
        np->idle_capacity = want;
    }
    np->idle_queues[np->idle_count++] = queue;
    pthread_mutex_unlock(&np->lock);
}
