/*
 * The NVIDIA GDS engine (off unless fastpath.gds = true): hands device-memory requests to
 * NVIDIA's libcufile, opened with dlopen, when the nvidia-fs kernel module is loaded. cuFile then
 * moves the data by peer-to-peer DMA between storage and GPU memory. Without nvidia-fs cuFile
 * would fall back to its own bounce buffers, which our fallback does better, so GDS declines.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/align.h"
#include "common/device_switch.h"
#include "common/regular_file.h"
#include "fastpath_internal.h"

/* Where a loaded nvidia-fs module shows itself. */
#define NVIDIA_FS_MODULE "/sys/module/nvidia_fs"
/* cuFile reports its own errors as values from 5000 on, errno values below. */
#define CUFILE_ERROR_BASE 5000
#define CUFILE_HANDLE_TYPE_OPAQUE_FD 1

/* The cuFile types used here, laid out as cufile.h declares them. */
typedef struct {
    int err;    /* CUfileOpError */
    int cu_err; /* CUresult */
} cufile_error;

typedef struct {
    int type; /* CUfileFileHandleType */
    union {
        int fd;
        void *handle;
    } handle;
    const void *fs_ops;
} cufile_descr;

struct fastpath_gds {
    void *library;
    cufile_error (*driver_open)(void);
    cufile_error (*driver_close)(void);
    cufile_error (*handle_register)(void **handle_p, cufile_descr *descr);
    void (*handle_deregister)(void *handle);
    ssize_t (*read)(void *handle, void *base, size_t size, off_t file_offset, off_t buf_offset);
    ssize_t (*write)(void *handle, const void *base, size_t size, off_t file_offset,
                     off_t buf_offset);
};

static bool symbol_bind(void *library, const char *name, void *slot, size_t slot_size)
{
    void *fn = dlsym(library, name);
    if (fn == NULL)
        return false;
    memcpy(slot, &fn, slot_size);
    return true;
}

#define GDS_BIND(gds, name, member)                                                                \
    symbol_bind((gds)->library, name, &(gds)->member, sizeof((gds)->member))

void fastpath_gds_setup(struct fastpath *fp)
{
    if (!fp->set.gds) {
        fp->gds_absent = "off (fastpath.gds = false)";
        return;
    }
    struct stat st;
    if (stat(NVIDIA_FS_MODULE, &st) != 0) {
        fp->gds_absent = "the nvidia-fs kernel module is not loaded";
        fastpath_log(fp, HF_LOG_INFO, "GDS: %s", fp->gds_absent);
        return;
    }
    struct fastpath_gds *gds = calloc(1, sizeof(*gds));
    if (gds == NULL) {
        fp->gds_absent = "out of memory while opening libcufile";
        return;
    }
    /* A path (not a soname) is opened by dlopen itself, which would wait for ever on a FIFO. */
    char why[HFP_REGULAR_WHY_SIZE];
    if (strchr(fp->set.gds_library, '/') != NULL &&
        hfp_check_regular(fp->set.gds_library, why, sizeof(why)) == -EINVAL) {
        fp->gds_absent = "libcufile cannot be opened (fastpath.gds_library)";
        fastpath_log(fp, HF_LOG_WARN, "GDS: %s: %s is %s", fp->gds_absent, fp->set.gds_library,
                     why);
        goto free_gds;
    }
    gds->library = dlopen(fp->set.gds_library, RTLD_NOW | RTLD_LOCAL);
    if (gds->library == NULL) {
        const char *err = dlerror();
        fp->gds_absent = "libcufile cannot be opened (fastpath.gds_library)";
        fastpath_log(fp, HF_LOG_WARN, "GDS: %s: %s", fp->gds_absent, err != NULL ? err : "?");
        goto free_gds;
    }
    /* A cuFile layer built over hipfile would hand every request back to us. */
    if (dlsym(gds->library, "hipFileDriverOpen") != NULL) {
        fp->gds_absent = "the libcufile found is a layer over hipfile itself";
        fastpath_log(fp, HF_LOG_WARN, "GDS: %s", fp->gds_absent);
        goto close_library;
    }
    if (!GDS_BIND(gds, "cuFileDriverOpen", driver_open) ||
        !GDS_BIND(gds, "cuFileDriverClose", driver_close) ||
        !GDS_BIND(gds, "cuFileHandleRegister", handle_register) ||
        !GDS_BIND(gds, "cuFileHandleDeregister", handle_deregister) ||
        !GDS_BIND(gds, "cuFileRead", read) || !GDS_BIND(gds, "cuFileWrite", write)) {
        fp->gds_absent = "libcufile lacks a cuFile function";
        fastpath_log(fp, HF_LOG_WARN, "GDS: %s", fp->gds_absent);
        goto close_library;
    }
    cufile_error e = gds->driver_open();
    if (e.err != 0) {
        fp->gds_absent = "cuFileDriverOpen failed";
        fastpath_log(fp, HF_LOG_WARN, "GDS: %s (cuFile error %d, CUDA error %d)", fp->gds_absent,
                     e.err, e.cu_err);
        goto close_library;
    }
    fp->gds = gds;
    fastpath_log(fp, HF_LOG_INFO, "GDS: %s opened, nvidia-fs loaded", fp->set.gds_library);
    return;
close_library:
    dlclose(gds->library);
free_gds:
    free(gds);
}

void fastpath_gds_teardown(struct fastpath *fp)
{
    if (fp->gds == NULL)
        return;
    fp->gds->driver_close();
    dlclose(fp->gds->library);
    free(fp->gds);
    fp->gds = NULL;
}

/* Files cuFile will not take are still served by the other engines: never decline the file. */
int fastpath_gds_file_register(struct fastpath *fp, const struct hf_file_info *file, void **ctx_p)
{
    *ctx_p = NULL;
    if (fp->gds == NULL || file->direct_fd < 0)
        return 0;
    cufile_descr descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = CUFILE_HANDLE_TYPE_OPAQUE_FD;
    descr.handle.fd = file->direct_fd;
    void *handle = NULL;
    cufile_error e = fp->gds->handle_register(&handle, &descr);
    if (e.err != 0) {
        fastpath_log(fp, HF_LOG_INFO,
                     "GDS: cuFileHandleRegister refused the file (cuFile error %d); other engines "
                     "still serve it",
                     e.err);
        return 0;
    }
    *ctx_p = handle;
    return 0;
}

void fastpath_gds_file_deregister(struct fastpath *fp, void *ctx)
{
    if (fp->gds != NULL && ctx != NULL)
        fp->gds->handle_deregister(ctx);
}

const char *fastpath_gds_refusal(const struct fastpath *fp, const struct hf_io_request *req)
{
    (void)fp;
    if (req->file_ctx == NULL)
        return "GDS: cuFile did not register this file";
    return fastpath_alignment_refusal(req, req->file->dio_offset_align, req->file->dio_mem_align);
}

ssize_t fastpath_gds_transfer(struct fastpath *fp, const struct hf_io_request *req)
{
    struct fastpath_gds *gds = fp->gds;
    int previous = -1;
    int rc = hfp_device_enter(fp->host, req->buf->device, &previous, req->gpu_error_p);
    if (rc < 0)
        return rc;
    ssize_t r = req->op == HF_IO_READ ? gds->read(req->file_ctx, req->buf->base, req->size,
                                                  (off_t)req->file_offset, (off_t)req->buf_offset)
                                      : gds->write(req->file_ctx, req->buf->base, req->size,
                                                   (off_t)req->file_offset, (off_t)req->buf_offset);
    hfp_device_restore(fp->host, previous);
    if (r >= 0)
        return r > (ssize_t)req->size ? -EIO : r;
    /* cuFile's own failures (no P2P path, nvidia-fs refusing the range) leave room for others. */
    if (-r >= CUFILE_ERROR_BASE) {
        fastpath_log(fp, HF_LOG_DEBUG, "GDS: cuFile error %zd; handing the request on", -r);
        return -EREMOTEIO;
    }
    fastpath_log(fp, HF_LOG_ERROR, "GDS: %s of %zu bytes at %lld failed: %s",
                 req->op == HF_IO_READ ? "read" : "write", req->size, (long long)req->file_offset,
                 fastpath_errno_text((int)-r));
    return r;
}
