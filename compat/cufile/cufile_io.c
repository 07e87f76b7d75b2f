/*
 * cuFile's file, buffer, synchronous and stream-ordered I/O calls on hipfile's. The descriptor is
 * rebuilt in hipfile's type; buffers, offsets and streams pass unchanged (a CUstream is the CUDA
 * provider's hipStream_t, and off_t is hipfile's hoff_t).
 */
#include "cufile_compat.h"

#include <hipfile/vector.h>

#include <stddef.h>

_Static_assert(sizeof(off_t) == sizeof(hoff_t), "cuFile offsets are hipfile offsets");
_Static_assert(sizeof(CUfileIOVec_t) == sizeof(hipFileIOVec_t) &&
                   offsetof(CUfileIOVec_t, base) == offsetof(hipFileIOVec_t, base) &&
                   offsetof(CUfileIOVec_t, len) == offsetof(hipFileIOVec_t, len),
               "a cuFile vector entry is a hipfile one");
_Static_assert((int)CU_FILE_HANDLE_TYPE_OPAQUE_FD == (int)hipFileHandleTypeOpaqueFD &&
                   (int)CU_FILE_HANDLE_TYPE_OPAQUE_WIN32 == (int)hipFileHandleTypeOpaqueWin32 &&
                   (int)CU_FILE_HANDLE_TYPE_USERSPACE_FS == (int)hipFileHandleTypeUserspaceFS,
               "handle types are numbered alike");
_Static_assert(CU_FILE_RDMA_REGISTER == HIPFILE_RDMA_REGISTER &&
                   CU_FILE_RDMA_RELAXED_ORDERING == HIPFILE_RDMA_RELAXED_ORDERING,
               "buffer flags are numbered alike");
_Static_assert(CU_FILE_STREAM_FIXED_BUF_OFFSET == HIPFILE_STREAM_FIXED_BUF_OFFSET &&
                   CU_FILE_STREAM_FIXED_FILE_OFFSET == HIPFILE_STREAM_FIXED_FILE_OFFSET &&
                   CU_FILE_STREAM_FIXED_FILE_SIZE == HIPFILE_STREAM_FIXED_FILE_SIZE &&
                   CU_FILE_STREAM_PAGE_ALIGNED_INPUTS == HIPFILE_STREAM_PAGE_ALIGNED_INPUTS,
               "stream flags are numbered alike");

/*
 * cuFile's callback table is hipfile's member for member, the types differing only in naming
 * (sockaddr_t is struct sockaddr, __loff_t is hoff_t, the RDMA structs have one layout), so the
 * caller's table is handed over as it is: the core keeps the pointer for the registration's life
 * and tells registrations apart by it, as cuFile does.
 */
_Static_assert(sizeof(CUfileFSOps_t) == sizeof(hipFileFSOps_t) &&
                   offsetof(CUfileFSOps_t, fs_type) == offsetof(hipFileFSOps_t, fs_type) &&
                   offsetof(CUfileFSOps_t, getRDMADeviceList) ==
                       offsetof(hipFileFSOps_t, getRDMADeviceList) &&
                   offsetof(CUfileFSOps_t, getRDMADevicePriority) ==
                       offsetof(hipFileFSOps_t, getRDMADevicePriority) &&
                   offsetof(CUfileFSOps_t, read) == offsetof(hipFileFSOps_t, read) &&
                   offsetof(CUfileFSOps_t, write) == offsetof(hipFileFSOps_t, write),
               "user-space filesystem callback tables have one layout");
_Static_assert(sizeof(cufileRDMAInfo_t) == sizeof(hipFileRDMAInfo_t) &&
                   sizeof(__loff_t) == sizeof(hoff_t),
               "user-space filesystem callback arguments have one layout");

HF_CUFILE_API CUfileError_t cuFileHandleRegister(CUfileHandle_t *fh, CUfileDescr_t *descr)
{
    hipFileDescr_t hd;

    if (fh == NULL || descr == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "%s is NULL",
                                fh == NULL ? "fh" : "descr");
    hd.type = (hipFileFileHandleType_t)descr->type;
    hd.handle.hFile = NULL;
    if (descr->type == CU_FILE_HANDLE_TYPE_OPAQUE_FD)
        hd.handle.fd = descr->handle.fd;
    else
        hd.handle.hFile = descr->handle.handle;
    hd.fs_ops = descr->type == CU_FILE_HANDLE_TYPE_USERSPACE_FS
                    ? (const hipFileFSOps_t *)(const void *)descr->fs_ops
                    : NULL;
    return hf_cufile_status(hipFileHandleRegister(fh, &hd));
}

HF_CUFILE_API void cuFileHandleDeregister(CUfileHandle_t fh)
{
    hipFileHandleDeregister(fh);
}

HF_CUFILE_API CUfileError_t cuFileBufRegister(const void *bufPtr_base, size_t length, int flags)
{
    return hf_cufile_status(hipFileBufRegister(bufPtr_base, length, flags));
}

HF_CUFILE_API CUfileError_t cuFileBufDeregister(const void *bufPtr_base)
{
    return hf_cufile_status(hipFileBufDeregister(bufPtr_base));
}

HF_CUFILE_API ssize_t cuFileRead(CUfileHandle_t fh, void *bufPtr_base, size_t size,
                                 off_t file_offset, off_t bufPtr_offset)
{
    return hf_cufile_io_result(hipFileRead(fh, bufPtr_base, size, file_offset, bufPtr_offset));
}

HF_CUFILE_API ssize_t cuFileWrite(CUfileHandle_t fh, const void *bufPtr_base, size_t size,
                                  off_t file_offset, off_t bufPtr_offset)
{
    return hf_cufile_io_result(hipFileWrite(fh, bufPtr_base, size, file_offset, bufPtr_offset));
}

/*
 * The stream's result word receives hipfile's result when the stream reaches the operation:
 * bytes, or a negative value. Negative hipfile codes have the values of cuFile's, so the word
 * needs no translation after the fact.
 */
HF_CUFILE_API CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
                                            off_t *file_offset_p, off_t *bufPtr_offset_p,
                                            ssize_t *bytes_read_p, CUstream stream)
{
    return hf_cufile_status(hipFileReadAsync(fh, bufPtr_base, size_p, file_offset_p,
                                             bufPtr_offset_p, bytes_read_p, (hipStream_t)stream));
}

HF_CUFILE_API CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
                                             off_t *file_offset_p, off_t *bufPtr_offset_p,
                                             ssize_t *bytes_written_p, CUstream stream)
{
    return hf_cufile_status(hipFileWriteAsync(fh, bufPtr_base, size_p, file_offset_p,
                                              bufPtr_offset_p, bytes_written_p,
                                              (hipStream_t)stream));
}

HF_CUFILE_API CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags)
{
    return hf_cufile_status(hipFileStreamRegister((hipStream_t)stream, flags));
}

HF_CUFILE_API CUfileError_t cuFileStreamDeregister(CUstream stream)
{
    return hf_cufile_status(hipFileStreamDeregister((hipStream_t)stream));
}

HF_CUFILE_API ssize_t cuFileReadv(CUfileHandle_t fh, const CUfileIOVec_t *iov, size_t iovcnt,
                                  off_t file_offset, unsigned flags)
{
    return hf_cufile_io_result(
        hipFileReadv(fh, (const hipFileIOVec_t *)(const void *)iov, iovcnt, file_offset, flags));
}

HF_CUFILE_API ssize_t cuFileWritev(CUfileHandle_t fh, const CUfileIOVec_t *iov, size_t iovcnt,
                                   off_t file_offset, unsigned flags)
{
    return hf_cufile_io_result(
        hipFileWritev(fh, (const hipFileIOVec_t *)(const void *)iov, iovcnt, file_offset, flags));
}
