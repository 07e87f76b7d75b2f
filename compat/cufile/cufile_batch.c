/*
 * cuFile's batch calls. CUfileIOParams_t and CUfileIOEvents_t have hipfile's layouts and values
 * exactly (pinned below), so the caller's arrays are handed over as they are: no copy and no
 * allocation per submission, and events land straight in the caller's array.
 */
#include "cufile_compat.h"

#include <stddef.h>

#define SAME_FIELD(cu_type, hip_type, cu_field, hip_field)                                         \
    (offsetof(cu_type, cu_field) == offsetof(hip_type, hip_field) &&                               \
     sizeof(((cu_type *)0)->cu_field) == sizeof(((hip_type *)0)->hip_field))

_Static_assert(sizeof(CUfileIOParams_t) == sizeof(hipFileIOParams_t) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, mode, mode) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, u.batch.devPtr_base,
                              u.batch.devPtr_base) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, u.batch.file_offset,
                              u.batch.file_offset) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, u.batch.devPtr_offset,
                              u.batch.devPtr_offset) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, u.batch.size, u.batch.size) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, fh, fh) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, opcode, opcode) &&
                   SAME_FIELD(CUfileIOParams_t, hipFileIOParams_t, cookie, cookie),
               "CUfileIOParams_t is hipFileIOParams_t");
_Static_assert(sizeof(CUfileIOEvents_t) == sizeof(hipFileIOEvents_t) &&
                   SAME_FIELD(CUfileIOEvents_t, hipFileIOEvents_t, cookie, cookie) &&
                   SAME_FIELD(CUfileIOEvents_t, hipFileIOEvents_t, status, status) &&
                   SAME_FIELD(CUfileIOEvents_t, hipFileIOEvents_t, ret, ret),
               "CUfileIOEvents_t is hipFileIOEvents_t");
_Static_assert((int)CUFILE_BATCH == (int)hipFileBatch &&
                   (int)CUFILE_READ == (int)hipFileBatchRead &&
                   (int)CUFILE_WRITE == (int)hipFileBatchWrite,
               "batch modes and opcodes are numbered alike");
_Static_assert((int)CUFILE_WAITING == (int)hipFileWaiting &&
                   (int)CUFILE_PENDING == (int)hipFilePending &&
                   (int)CUFILE_INVALID == (int)hipFileInvalid &&
                   (int)CUFILE_CANCELED == (int)hipFileCanceled &&
                   (int)CUFILE_COMPLETE == (int)hipFileComplete &&
                   (int)CUFILE_TIMEOUT == (int)hipFileTimeout &&
                   (int)CUFILE_FAILED == (int)hipFileFailed,
               "batch states are numbered alike");

HF_CUFILE_API CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t *batch_idp, unsigned nr)
{
    return hf_cufile_status(hipFileBatchIOSetUp(batch_idp, nr));
}

HF_CUFILE_API CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t batch_idp, unsigned nr,
                                                CUfileIOParams_t *iocbp, unsigned int flags)
{
    return hf_cufile_status(
        hipFileBatchIOSubmit(batch_idp, nr, (hipFileIOParams_t *)(void *)iocbp, flags));
}

HF_CUFILE_API CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned *nr, CUfileIOEvents_t *iocbp,
                                                   struct timespec *timeout)
{
    return hf_cufile_status(hipFileBatchIOGetStatus(batch_idp, min_nr, nr,
                                                    (hipFileIOEvents_t *)(void *)iocbp, timeout));
}

HF_CUFILE_API CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t batch_idp)
{
    return hf_cufile_status(hipFileBatchIOCancel(batch_idp));
}

HF_CUFILE_API void cuFileBatchIODestroy(CUfileBatchHandle_t batch_idp)
{
    hipFileBatchIODestroy(batch_idp);
}
