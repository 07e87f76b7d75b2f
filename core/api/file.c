/*
 * File registration: validates the caller's descriptor, opens the buffered/O_DIRECT twin through
 * /proc/self/fd, records the facts backends need (kind, flags, DIO alignment, filesystem), offers
 * the file to every backend whose manifest takes its kind, and hands out a generation-tagged
 * handle. A user-space filesystem's file has no descriptor: it is registered with its callbacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "api/driver.h"
#include "api/registry.h"
#include "base/error.h"
#include "base/log.h"
#include "base/sys.h"
#include "hipfile/remote.h"
#include "host/backend_call.h"
#include "host/manifest.h"
#include "services/stats.h"

/*
 * Handle = (generation << HANDLE_SLOT_BITS) | (slot + 1). The generation of a slot grows on every
 * reuse, so a handle kept after deregistration no longer matches and is refused.
 */
#define HANDLE_SLOT_BITS 20
#define HANDLE_SLOT_MAX (1u << HANDLE_SLOT_BITS)

struct file_slot {
    struct hf_file *file;
    uint64_t generation;
};

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static struct file_slot *file_slots;
static size_t file_slot_cap;
static size_t file_live;

static void file_close_owned(struct hf_file *file)
{
    for (int i = 0; i < 2; i++) {
        if (file->owned_fds[i] >= 0)
            close(file->owned_fds[i]);
        file->owned_fds[i] = -1;
    }
}

static void file_backends_release(struct hf_file *file)
{
    for (unsigned i = 0; i < hf_backend_count(); i++) {
        struct hf_backend *b = hf_backend_at(i);
        if (!file->declined[i])
            hf_call_file_deregister(b, file->backend_ctx[i]);
    }
}

static void file_destroy(struct hf_file *file)
{
    file_backends_release(file);
    file_close_owned(file);
    hf_write_undo_fini(&file->write_undo);
    free(file);
}

void hf_file_release(struct hf_file *file)
{
    if (file != NULL && atomic_fetch_sub(&file->refs, 1) == 1)
        file_destroy(file);
}

static bool handle_decode(hipFileHandle_t fh, size_t *slot_p, uint64_t *gen_p)
{
    uint64_t value = (uint64_t)(uintptr_t)fh;
    uint64_t slot_plus_one = value & (HANDLE_SLOT_MAX - 1);
    if (slot_plus_one == 0)
        return false;
    *slot_p = (size_t)(slot_plus_one - 1);
    *gen_p = value >> HANDLE_SLOT_BITS;
    return true;
}

/* Called with file_lock held. */
static struct file_slot *slot_of(hipFileHandle_t fh)
{
    size_t slot;
    uint64_t gen;
    if (!handle_decode(fh, &slot, &gen) || slot >= file_slot_cap)
        return NULL;
    struct file_slot *s = &file_slots[slot];
    if (s->file == NULL || s->generation != gen)
        return NULL;
    return s;
}

struct hf_file *hf_file_hold(struct hf_file *file)
{
    atomic_fetch_add(&file->refs, 1);
    return file;
}

struct hf_file *hf_file_acquire(hipFileHandle_t fh)
{
    pthread_mutex_lock(&file_lock);
    struct file_slot *s = slot_of(fh);
    struct hf_file *file = NULL;
    if (s != NULL) {
        file = s->file;
        atomic_fetch_add(&file->refs, 1);
    }
    pthread_mutex_unlock(&file_lock);
    return file;
}

/*
 * Called with file_lock held. A descriptor is registered once; a user-space filesystem file once
 * per (fs_ops, handle) pair, since it has no descriptor. A registration whose number the caller
 * closed and got back for another file (another device and inode) is stale, not the same file:
 * it keeps serving its own file through its twins, and the new file registers.
 */
static bool file_already_registered(const struct hf_file *candidate)
{
    bool userspace = candidate->info.kind == HF_FILE_USERSPACE_FS;
    for (size_t i = 0; i < file_slot_cap; i++) {
        const struct hf_file *f = file_slots[i].file;
        if (f == NULL)
            continue;
        if (userspace
                ? f->info.kind == HF_FILE_USERSPACE_FS && f->fs_ops == candidate->fs_ops &&
                      f->info.fs_handle == candidate->info.fs_handle
                : f->caller_fd >= 0 && f->caller_fd == candidate->caller_fd &&
                      f->info.dev == candidate->info.dev && f->info.ino == candidate->info.ino)
            return true;
    }
    return false;
}

/* Called with file_lock held. Returns the slot index, or -ENOMEM / -ENOSPC. */
static ssize_t slot_alloc(void)
{
    for (size_t i = 0; i < file_slot_cap; i++) {
        if (file_slots[i].file == NULL)
            return (ssize_t)i;
    }
    if (file_slot_cap >= HANDLE_SLOT_MAX)
        return -ENOSPC;
    size_t cap = file_slot_cap ? file_slot_cap * 2 : 64;
    if (cap > HANDLE_SLOT_MAX)
        cap = HANDLE_SLOT_MAX;
    struct file_slot *grown = realloc(file_slots, cap * sizeof(*grown));
    if (grown == NULL)
        return -ENOMEM;
    memset(grown + file_slot_cap, 0, (cap - file_slot_cap) * sizeof(*grown));
    file_slots = grown;
    ssize_t idx = (ssize_t)file_slot_cap;
    file_slot_cap = cap;
    return idx;
}

static const struct {
    uint64_t magic;
    const char *name;
} fs_names[] = {
    {EXT4_SUPER_MAGIC, "ext4"},   {XFS_SUPER_MAGIC, "xfs"},  {TMPFS_MAGIC, "tmpfs"},
    {BTRFS_SUPER_MAGIC, "btrfs"}, {NFS_SUPER_MAGIC, "nfs"},  {OVERLAYFS_SUPER_MAGIC, "overlay"},
    {0x65735546, "fuse"},         {0x2fc12fc1, "zfs"},       {0x0bd00bd0, "lustre"},
    {F2FS_SUPER_MAGIC, "f2fs"},   {0x47504653, "gpfs"},      {0x19830326, "beegfs"},
    {SQUASHFS_MAGIC, "squashfs"}, {0x6a656a63, "fakeowner"}, {0xff534d42, "cifs"},
    {0x01021994, "tmpfs"},        {0x858458f6, "ramfs"},     {0x9fa0, "proc"},
};

static const char *fs_name_of(uint64_t magic)
{
    for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++) {
        if (fs_names[i].magic == magic)
            return fs_names[i].name;
    }
    return "unknown";
}

/*
 * ext4's data= journalling mode decides whether direct writes are safe to mix with buffered ones;
 * it is shown in the superblock options of /proc/self/mountinfo, and "ordered" when absent.
 */
static void ext4_data_mode(dev_t dev, char *mode, size_t mode_size)
{
    snprintf(mode, mode_size, "ordered");
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (f == NULL)
        return;
    char line[4096];
    char want[32];
    snprintf(want, sizeof(want), " %u:%u ", major(dev), minor(dev));
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strstr(line, want) == NULL)
            continue;
        const char *data = strstr(line, "data=");
        if (data != NULL) {
            data += 5;
            size_t n = strcspn(data, ", \n");
            if (n >= mode_size)
                n = mode_size - 1;
            memcpy(mode, data, n);
            mode[n] = '\0';
        }
        break;
    }
    fclose(f);
}

/* Open the caller's file again through /proc with @p flags; -errno on failure. */
static int reopen_fd(int fd, int flags)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int twin = hf_core_sys()->open(path, flags);
    return twin >= 0 ? twin : -errno;
}

/*
 * Flags a twin keeps from the caller's descriptor. O_APPEND is dropped: with it Linux pwrite
 * ignores the offset, and hipFileWrite always writes at the offset it is given.
 */
#define TWIN_KEPT_FLAGS (O_ACCMODE | O_SYNC | O_DSYNC | O_NOATIME | O_LARGEFILE)

/*
 * Backends never see the caller's descriptor: the registration opens a buffered twin and, where
 * the filesystem allows, an O_DIRECT twin of its own. A program that closes its descriptor
 * without deregistering, and gets the number back for another file, would otherwise have the
 * old handle read half of each file (buffered pieces from the new one, direct pieces from the
 * old). With twins of its own a handle serves the file it was registered for until it is
 * deregistered, whatever the caller does with its number, at no cost per request.
 */
static hipFileOpError_t file_open_twins(struct hf_file *file, int status_flags)
{
    int fd = file->caller_fd;
    int keep = status_flags & TWIN_KEPT_FLAGS;

    int buffered = reopen_fd(fd, keep | O_CLOEXEC);
    if (buffered < 0) {
        hf_error("file register: fd %d: cannot open a buffered twin: %s", fd, strerror(-buffered));
        return hf_error_from_errno(-buffered);
    }
    file->owned_fds[0] = buffered;
    file->info.fd = buffered;
    file->info.direct_fd = -1;

    int direct = reopen_fd(fd, keep | O_DIRECT | O_CLOEXEC);
    if (direct == -EINVAL) {
        hf_info("file register: fd %d: filesystem cannot do O_DIRECT; no direct path", fd);
        return hipFileSuccess;
    }
    if (direct < 0) {
        hf_error("file register: fd %d: cannot open an O_DIRECT twin: %s", fd, strerror(-direct));
        return hf_error_from_errno(-direct);
    }
    file->owned_fds[1] = direct;
    file->info.direct_fd = direct;
    return hipFileSuccess;
}

static void file_record_facts(struct hf_file *file, const struct stat *st)
{
    struct hf_file_info *info = &file->info;
    info->mode = st->st_mode;
    info->dev = st->st_dev;
    info->ino = st->st_ino;
    info->size_at_register = (uint64_t)st->st_size;
    if (S_ISBLK(st->st_mode)) {
        uint64_t bytes = 0;
        info->size_at_register = ioctl(info->fd, BLKGETSIZE64, &bytes) == 0 ? bytes : 0;
    }
    if (info->direct_fd >= 0) {
        /* STATX_DIOALIGN needs Linux 6.1; older kernels and filesystems leave it unset. */
        struct statx stx;
        info->dio_mem_align = 4096;
        info->dio_offset_align = 4096;
        if (hf_core_sys()->statx(info->direct_fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
            (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align != 0) {
            info->dio_mem_align = stx.stx_dio_mem_align;
            info->dio_offset_align = stx.stx_dio_offset_align;
        }
    }
    struct statfs sfs;
    if (S_ISBLK(st->st_mode)) {
        snprintf(info->fs_name, sizeof(info->fs_name), "blockdev");
    } else if (fstatfs(info->fd, &sfs) == 0) {
        info->fs_magic = (uint64_t)(unsigned long)sfs.f_type;
        snprintf(info->fs_name, sizeof(info->fs_name), "%s", fs_name_of(info->fs_magic));
        if (info->fs_magic == EXT4_SUPER_MAGIC)
            ext4_data_mode(st->st_dev, info->ext4_data_mode, sizeof(info->ext4_data_mode));
    } else {
        snprintf(info->fs_name, sizeof(info->fs_name), "unknown");
    }
}

/* How log lines name @p file: its URL, its user-space filesystem handle, or its descriptor. */
static void file_label(const struct hf_file *file, char *label, size_t label_size)
{
    if (file->info.url != NULL)
        hipFileRedactUrls(file->info.url, label, label_size); /* redact before the cut */
    else if (file->info.kind == HF_FILE_USERSPACE_FS)
        snprintf(label, label_size, "user-space FS handle %p", file->info.fs_handle);
    else
        snprintf(label, label_size, "fd %d", file->caller_fd);
}

/*
 * A backend whose manifest does not list the file's kind is never asked about it: the selector
 * refuses it for every request anyway, and a backend built for descriptors would only fail on a
 * file without one. It counts as declined, so deregistration leaves it alone too. Returns the
 * first failure other than a decline (-EOPNOTSUPP), or 0.
 */
static int file_offer_to_backends(struct hf_file *file)
{
    char label[72];
    file_label(file, label, sizeof(label));
    int first_failure = 0;
    for (unsigned i = 0; i < hf_backend_count(); i++) {
        struct hf_backend *b = hf_backend_at(i);
        void *ctx = NULL;
        if (!(b->file_kinds & (1u << file->info.kind))) {
            file->declined[i] = true;
            hf_debug("file register: %s: backend %s is not offered it: its manifest does not "
                     "accept %s files",
                     label, b->name, hf_manifest_file_kind_name(file->info.kind));
            continue;
        }
        int rc = hf_call_file_register(b, &file->info, &ctx);
        if (rc == 0) {
            file->backend_ctx[i] = ctx;
        } else {
            file->declined[i] = true;
            if (rc == -EOPNOTSUPP)
                hf_debug("file register: %s: backend %s declines it", label, b->name);
            else
                hf_warn("file register: %s: backend %s failed to accept it: %s", label, b->name,
                        strerror(-rc));
            if (rc != -EOPNOTSUPP && first_failure == 0)
                first_failure = rc;
        }
    }
    return first_failure;
}

/*
 * Give @p file a slot and its handle, unless the same file is registered already. The slot is
 * reserved before the file is offered to backends, so a concurrent registration of the same file
 * is refused. Returns the slot in *slot_p.
 */
static hipFileOpError_t file_publish(struct hf_file *file, ssize_t *slot_p)
{
    char label[64];
    file_label(file, label, sizeof(label));
    pthread_mutex_lock(&file_lock);
    if (file_already_registered(file)) {
        pthread_mutex_unlock(&file_lock);
        hf_error("hipFileHandleRegister: %s is already registered", label);
        return hipFileHandleAlreadyRegistered;
    }
    ssize_t slot = slot_alloc();
    if (slot < 0) {
        pthread_mutex_unlock(&file_lock);
        hf_error("hipFileHandleRegister: handle table full or out of memory");
        return hipFileInternalError;
    }
    file_slots[slot].file = file;
    file_slots[slot].generation++;
    file->handle = (file_slots[slot].generation << HANDLE_SLOT_BITS) | (uint64_t)(slot + 1);
    file_live++;
    pthread_mutex_unlock(&file_lock);
    *slot_p = slot;
    return hipFileSuccess;
}

/* Undo file_publish for a file whose registration failed afterwards. */
static void file_unpublish(ssize_t slot)
{
    pthread_mutex_lock(&file_lock);
    file_slots[slot].file = NULL;
    file_live--;
    pthread_mutex_unlock(&file_lock);
}

/* A file of @p kind, with @p extra zeroed bytes after the struct for what it must keep. */
static struct hf_file *file_new(int kind, int caller_fd, size_t extra)
{
    struct hf_file *file = calloc(1, sizeof(*file) + extra);
    if (file == NULL) {
        hf_error("hipFileHandleRegister: out of memory");
        return NULL;
    }
    file->info.struct_size = sizeof(file->info);
    file->info.kind = kind;
    file->info.fd = file->info.direct_fd = -1;
    file->caller_fd = caller_fd;
    file->owned_fds[0] = file->owned_fds[1] = -1;
    atomic_init(&file->refs, 1);
    hf_write_undo_init(&file->write_undo, 0);
    return file;
}

/* ---- user-space filesystems (hipFileHandleTypeUserspaceFS) --------------------------------- */

/*
 * The filesystem's own name for itself, "userspace" when it gives none. fs_type receives the
 * caller's handle, as in cuFile.
 */
static void userspace_fs_name(const hipFileFSOps_t *ops, void *handle, char *name, size_t size)
{
    const char *type = ops->fs_type != NULL ? ops->fs_type(handle) : NULL;
    snprintf(name, size, "%s", type != NULL && type[0] != '\0' ? type : "userspace");
}

/*
 * The callbacks are the backend ABI's fs_read and fs_write: the same arguments but for the last
 * one's type (hipFileRDMAInfo_t *, given NULL) and hoff_t, which is off_t. The conversion goes
 * through a generic function pointer type, which C allows and -Wcast-function-type accepts.
 */
typedef void (*generic_fn)(void);
_Static_assert(sizeof(hoff_t) == sizeof(off_t), "hoff_t is off_t");

/*
 * A file reached only through the caller's callbacks: no descriptor, no stat facts. Its size is
 * unknown (size_at_register 0); reads end where the read callback returns short. Without a write
 * callback the file is read-only, which the access mode records so writes are refused up front.
 */
static hipFileError_t file_register_userspace_fs(hipFileHandle_t *fh, const hipFileDescr_t *descr)
{
    const hipFileFSOps_t *ops = descr->fs_ops;
    if (ops == NULL || ops->read == NULL) {
        hf_error("hipFileHandleRegister: a hipFileHandleTypeUserspaceFS descriptor needs %s",
                 ops == NULL ? "fs_ops (it is NULL)" : "an fs_ops->read callback (it is NULL)");
        return hf_status(hipFileInvalidValue);
    }
    hf_driver_on_last_close(HF_TEARDOWN_FILES, hf_file_drop_all);
    hipFileOpError_t err = hf_driver_ensure_open();
    if (err != hipFileSuccess)
        return hf_status(err);

    struct hf_file *file = file_new(HF_FILE_USERSPACE_FS, -1, 0);
    if (file == NULL)
        return hf_status(hipFileInternalError);
    struct hf_file_info *info = &file->info;
    file->fs_ops = ops;
    info->fs_handle = descr->handle.hFile;
    info->fs_read = (ssize_t(*)(void *, char *, size_t, off_t, void *))(generic_fn)ops->read;
    info->fs_write =
        (ssize_t(*)(void *, const char *, size_t, off_t, void *))(generic_fn)ops->write;
    info->status_flags = ops->write != NULL ? O_RDWR : O_RDONLY;
    userspace_fs_name(ops, info->fs_handle, info->fs_name, sizeof(info->fs_name));

    ssize_t slot;
    err = file_publish(file, &slot);
    if (err != hipFileSuccess) {
        free(file);
        return hf_status(err);
    }
    file_offer_to_backends(file);
    hf_debug("registered user-space FS handle %p: fs %s, %s", info->fs_handle, info->fs_name,
             ops->write != NULL ? "read-write" : "read-only (no write callback)");
    *fh = (hipFileHandle_t)(uintptr_t)file->handle;
    return hf_status(hipFileSuccess);
}

/* ---- descriptors (hipFileHandleTypeOpaqueFD) ------------------------------------------------ */

static hipFileError_t file_register_fd(hipFileHandle_t *fh, const hipFileDescr_t *descr)
{
    /* Before the first file exists, so the last close always finds the hook. */
    hf_driver_on_last_close(HF_TEARDOWN_FILES, hf_file_drop_all);
    hipFileOpError_t err = hf_driver_ensure_open();
    if (err != hipFileSuccess)
        return hf_status(err);

    int fd = descr->handle.fd;
    int status_flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (status_flags < 0) {
        hf_error("hipFileHandleRegister: fd %d is not an open descriptor", fd);
        return hf_status(hipFileInvalidValue);
    }
    struct stat st;
    if (hf_core_sys()->fstat(fd, &st) != 0) {
        hf_error("hipFileHandleRegister: fstat(fd %d) failed: %s", fd, strerror(errno));
        return hf_status(hipFileInvalidValue);
    }
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
        hf_error("hipFileHandleRegister: fd %d is not a regular file or block device (mode 0%o)",
                 fd, (unsigned)(st.st_mode & S_IFMT));
        return hf_status(hipFileInvalidFileType);
    }

    struct hf_file *file = file_new(S_ISBLK(st.st_mode) ? HF_FILE_BLOCK : HF_FILE_REGULAR, fd, 0);
    if (file == NULL)
        return hf_status(hipFileInternalError);
    /* Backends get descriptors without O_APPEND (file_open_twins); their flags say so too. */
    file->info.status_flags = status_flags & ~O_APPEND;
    /* Known before publishing: they tell a reused descriptor number from the same file. */
    file->info.dev = st.st_dev;
    file->info.ino = st.st_ino;

    ssize_t slot;
    err = file_publish(file, &slot);
    if (err != hipFileSuccess) {
        free(file);
        return hf_status(err);
    }
    err = file_open_twins(file, status_flags);
    if (err != hipFileSuccess) {
        file_unpublish(slot);
        file_close_owned(file);
        free(file);
        return hf_status(err);
    }
    file_record_facts(file, &st);
    file->write_undo.size_seen = file->info.size_at_register;
    file_offer_to_backends(file);
    hf_debug("registered fd %d: %s, fs %s, direct fd %d, dio align mem %u offset %u", fd,
             file->info.kind == HF_FILE_BLOCK ? "block device" : "regular file", file->info.fs_name,
             file->info.direct_fd, file->info.dio_mem_align, file->info.dio_offset_align);
    *fh = (hipFileHandle_t)(uintptr_t)file->handle;
    return hf_status(hipFileSuccess);
}

hipFileError_t hf_file_register(hipFileHandle_t *fh, const hipFileDescr_t *descr)
{
    if (fh == NULL || descr == NULL) {
        hf_error("hipFileHandleRegister: %s is NULL", fh == NULL ? "fh" : "descr");
        return hf_status(hipFileInvalidValue);
    }
    /* Read the type as a plain integer: an out-of-range enum value must be safe. */
    int type;
    memcpy(&type, &descr->type, sizeof(type));
    if (type == hipFileHandleTypeOpaqueFD)
        return file_register_fd(fh, descr);
    if (type == hipFileHandleTypeUserspaceFS)
        return file_register_userspace_fs(fh, descr);
    hf_error("hipFileHandleRegister: handle type %d is not supported (OpaqueFD and UserspaceFS "
             "are)",
             type);
    return hf_status(hipFileIONotSupported);
}

/*
 * Files without a descriptor (remote objects): the caller filled @p info; the URL and options are
 * copied behind the struct hf_file, so they live exactly as long as the registration. Unlike a
 * descriptor, such a file is useless unless a backend takes it, so a registration that no backend
 * accepts fails: with the first backend's failure, or -EOPNOTSUPP when every backend declined.
 */
int hf_file_register_info(const struct hf_file_info *info, hipFileHandle_t *fh)
{
    size_t url_size = info->url != NULL ? strlen(info->url) + 1 : 0;
    size_t options_size = info->remote_options != NULL ? strlen(info->remote_options) + 1 : 0;
    struct hf_file *file = file_new(info->kind, -1, url_size + options_size);
    if (file == NULL)
        return -ENOMEM;
    char *strings = (char *)(file + 1);
    file->info = *info;
    file->info.struct_size = sizeof(file->info);
    if (info->url != NULL)
        file->info.url = memcpy(strings, info->url, url_size);
    if (info->remote_options != NULL)
        file->info.remote_options = memcpy(strings + url_size, info->remote_options, options_size);

    ssize_t slot;
    if (file_publish(file, &slot) != hipFileSuccess) {
        free(file);
        return -ENOMEM;
    }

    int failure = file_offer_to_backends(file);
    bool accepted = false;
    for (unsigned i = 0; i < hf_backend_count(); i++)
        accepted = accepted || !file->declined[i];
    if (!accepted) {
        file_unpublish(slot);
        free(file);
        return failure != 0 ? failure : -EOPNOTSUPP;
    }
    *fh = (hipFileHandle_t)(uintptr_t)file->handle;
    return 0;
}

void hf_file_deregister(hipFileHandle_t fh)
{
    if (fh == NULL)
        return;
    pthread_mutex_lock(&file_lock);
    struct file_slot *s = slot_of(fh);
    if (s == NULL) {
        pthread_mutex_unlock(&file_lock);
        hf_debug("hipFileHandleDeregister: unknown handle %p ignored", fh);
        return;
    }
    /*
     * The handle stops working now and the slot and descriptor number are free for the next
     * registration; I/O already in flight keeps its references and the last of them releases the
     * file (backends' contexts, twins). Refusing instead would leave the registration behind after
     * the caller closed its descriptor, and the number's next file could not register.
     */
    struct hf_file *file = s->file;
    bool in_flight = atomic_load(&file->refs) > 1;
    s->file = NULL;
    file_live--;
    pthread_mutex_unlock(&file_lock);
    if (in_flight) {
        char label[64];
        file_label(file, label, sizeof(label));
        hf_debug("hipFileHandleDeregister: %s has I/O in flight; released when it ends", label);
    }
    hf_stats_file_deregister();
    hf_file_release(file);
}

void hf_file_drop_all(void)
{
    pthread_mutex_lock(&file_lock);
    for (size_t i = 0; i < file_slot_cap; i++) {
        struct hf_file *file = file_slots[i].file;
        if (file == NULL)
            continue;
        file_slots[i].file = NULL;
        /* A file with I/O in flight is freed when that I/O drops its reference. */
        hf_file_release(file);
    }
    file_live = 0;
    pthread_mutex_unlock(&file_lock);
}

size_t hf_file_count(void)
{
    pthread_mutex_lock(&file_lock);
    size_t n = file_live;
    pthread_mutex_unlock(&file_lock);
    return n;
}

HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t *fh, hipFileDescr_t *descr)
{
    hipFileError_t e = hf_file_register(fh, descr);
    hf_stats_file_register(e.err == hipFileSuccess);
    return e;
}

HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh)
{
    /* At count 0 there is nothing registered; AMD makes this a no-op. */
    if (!hf_driver_is_open())
        return;
    hf_file_deregister(fh);
}
