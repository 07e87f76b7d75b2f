/*
 * The AMD AIS engine: ROCm's hipAmdFileRead/hipAmdFileWrite, which the HIP runtime does not
 * declare in a header and offers only through hipGetProcAddress. The kernel (amdkfd) reads or
 * writes the file straight into VRAM, so the rules are the kernel's: an O_DIRECT descriptor,
 * device memory, a file system whose O_DIRECT path it trusts (ext4 with data=ordered, xfs, or a
 * block device), page-aligned file ranges, and at most MAX_RW_COUNT bytes per call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/align.h"
#include "common/device_switch.h"
#include "fastpath_internal.h"

/* amdkfd refuses file offsets and sizes that are not whole pages, whatever statx allows. */
#define AIS_PAGE_SIZE 4096u

void fastpath_ais_setup(struct fastpath *fp)
{
    const struct hf_gpu_ops *gpu = fp->host->gpu;
    if (!fp->set.ais) {
        fp->ais_absent = "off (fastpath.ais = false)";
        return;
    }
    void *read_fn = NULL;
    void *write_fn = NULL;
    int err = gpu->get_proc_address("hipAmdFileRead", &read_fn);
    if (err == 0)
        err = gpu->get_proc_address("hipAmdFileWrite", &write_fn);
    if (err != 0 || read_fn == NULL || write_fn == NULL) {
        fp->ais_absent = "the HIP runtime offers no hipAmdFileRead/hipAmdFileWrite through "
                         "hipGetProcAddress";
        fastpath_log(fp, HF_LOG_INFO, "AIS: %s (%s)", fp->ais_absent, gpu->error_string(err));
        return;
    }
    /* POSIX guarantees a data pointer from the runtime converts to a function pointer. */
    memcpy(&fp->ais_read, &read_fn, sizeof(read_fn));
    memcpy(&fp->ais_write, &write_fn, sizeof(write_fn));
    fastpath_log(fp, HF_LOG_INFO, "AIS: hipAmdFileRead and hipAmdFileWrite found");
}

/* ext4 journals data in data=journal mode, and writeback mode may expose stale blocks. */
static const char *file_system_refusal(const struct fastpath *fp, const struct hf_file_info *file)
{
    if (file->kind == HF_FILE_BLOCK || fp->set.unsupported_file_systems)
        return NULL;
    if (strcmp(file->fs_name, "xfs") == 0)
        return NULL;
    if (strcmp(file->fs_name, "ext4") == 0)
        return strcmp(file->ext4_data_mode, "ordered") == 0
                   ? NULL
                   : "AIS: ext4 without data=ordered (fastpath.unsupported_file_systems allows it)";
    return "AIS: the file system is not ext4, xfs or a block device "
           "(fastpath.unsupported_file_systems allows others)";
}

const char *fastpath_ais_refusal(const struct fastpath *fp, const struct hf_io_request *req)
{
    const char *why = file_system_refusal(fp, req->file);
    if (why != NULL)
        return why;
    uint64_t offset_align = req->file->dio_offset_align;
    if (hfp_align_is_pow2(offset_align) && offset_align < AIS_PAGE_SIZE)
        offset_align = AIS_PAGE_SIZE;
    return fastpath_alignment_refusal(req, offset_align, req->file->dio_mem_align);
}

/* The runtime's answer as -errno: the kernel's status when it gave one, else -HF_EGPU. */
static ssize_t ais_error(struct fastpath *fp, const struct hf_io_request *req, int hip_error,
                         int32_t status)
{
    const char *what = req->op == HF_IO_READ ? "hipAmdFileRead" : "hipAmdFileWrite";
    int device = req->buf->device;
    if (status != 0) {
        int err = status < 0 ? -status : status;
        if (err == ENODEV) {
            /* amdkfd: AIS is not set up on this GPU; asking again would only fail again. */
            atomic_store(&fp->ais_off[device], "AIS: hipAmdFileRead answered ENODEV before: AIS "
                                               "is not available on this GPU");
            fastpath_log(fp, HF_LOG_INFO, "GPU %d: %s answered ENODEV; AIS is off for this GPU",
                         device, what);
        } else if (err == EREMOTEIO) {
            fastpath_log(fp, HF_LOG_DEBUG, "GPU %d: %s answered EREMOTEIO (no peer-to-peer path)",
                         device, what);
        } else {
            fastpath_log(fp, HF_LOG_ERROR, "GPU %d: %s of %zu bytes at %lld failed: %s", device,
                         what, req->size, (long long)req->file_offset, fastpath_errno_text(err));
        }
        return -err;
    }
    fastpath_log(fp, HF_LOG_ERROR, "GPU %d: %s of %zu bytes at %lld failed: %s (%d)", device, what,
                 req->size, (long long)req->file_offset, fp->host->gpu->error_string(hip_error),
                 hip_error);
    if (req->gpu_error_p != NULL)
        *req->gpu_error_p = hip_error;
    return -HF_EGPU;
}

ssize_t fastpath_ais_transfer(struct fastpath *fp, const struct hf_io_request *req)
{
    fastpath_ais_fn fn = req->op == HF_IO_READ ? fp->ais_read : fp->ais_write;
    int previous = -1;
    int rc = hfp_device_enter(fp->host, req->buf->device, &previous, req->gpu_error_p);
    if (rc < 0)
        return rc;
    fastpath_ais_handle handle;
    memset(&handle, 0, sizeof(handle));
    handle.fd = req->file->direct_fd;
    char *mem = (char *)req->buf->base + req->buf_offset;
    size_t done = 0;
    ssize_t result = 0;
    while (done < req->size) {
        size_t chunk = req->size - done;
        if (chunk > FASTPATH_AIS_MAX_CALL)
            chunk = FASTPATH_AIS_MAX_CALL;
        uint64_t copied = 0;
        int32_t status = 0;
        int err = fn(handle, mem + done, chunk, req->file_offset + (int64_t)done, &copied, &status);
        if (err != 0 || status != 0) {
            /* Bytes already moved are the answer; the error comes back on the next call. */
            result = done > 0 ? (ssize_t)done : ais_error(fp, req, err, status);
            goto restore_device;
        }
        if (copied > chunk) {
            fastpath_log(fp, HF_LOG_ERROR, "the runtime claims %llu bytes for a call of %zu",
                         (unsigned long long)copied, chunk);
            result = done > 0 ? (ssize_t)done : -EIO;
            goto restore_device;
        }
        done += copied;
        if (copied < chunk)
            break;
    }
    result = (ssize_t)done;
restore_device:
    hfp_device_restore(fp->host, previous);
    return result;
}
