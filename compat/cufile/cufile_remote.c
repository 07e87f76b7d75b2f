/*
 * cuFileRemoteOpen, hipfile's URL extension of the cuFile API: hipFileRemoteOpen with cuFile's
 * flags and status.
 */
#include <hipfile/remote.h>

#include "cufile_compat.h"
#include "cufile_remote.h"

_Static_assert(CU_FILE_REMOTE_READ == HIPFILE_REMOTE_READ &&
                   CU_FILE_REMOTE_WRITE == HIPFILE_REMOTE_WRITE,
               "remote open flags are numbered alike");

HF_CUFILE_API CUfileError_t cuFileRemoteOpen(const char *url, const char *options, int flags,
                                             CUfileHandle_t *fh)
{
    return hf_cufile_status(hipFileRemoteOpen(url, options, flags, fh));
}
