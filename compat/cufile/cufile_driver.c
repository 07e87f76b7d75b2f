/*
 * cuFile's driver calls: lifecycle, properties, limits and the version. Each is hipfile's
 * function of the same role; properties are copied field by field because cuFile's struct keeps
 * the cache and pinned-memory sizes in 32 bits where hipfile's uses 64.
 */
#include "cufile_compat.h"

#include <limits.h>
#include <string.h>

/* The cuFile API level this library implements (cuFile 1.15, CUDA 13.0), in cuFile's encoding:
 * programs such as KvikIO compare it against 1060 (batch) and 1080 (streams). */
#define HF_CUFILE_API_VERSION 1150

HF_CUFILE_API CUfileError_t cuFileDriverOpen(void)
{
    return hf_cufile_status(hipFileDriverOpen());
}

/* cufile.h turns cuFileDriverClose into cuFileDriverClose_v2; programs linked before that
 * rename still bind to the old name, so both are exported, with the same behaviour. */
#undef cuFileDriverClose

HF_CUFILE_API CUfileError_t cuFileDriverClose_v2(void)
{
    return hf_cufile_status(hipFileDriverClose());
}

HF_CUFILE_API CUfileError_t cuFileDriverClose(void)
{
    return cuFileDriverClose_v2();
}

HF_CUFILE_API long cuFileUseCount(void)
{
    return (long)hipFileUseCount();
}

static unsigned int clamp_uint(uint64_t value)
{
    return value > UINT_MAX ? UINT_MAX : (unsigned int)value;
}

HF_CUFILE_API CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t *props)
{
    hipFileDriverProps_t hp;
    hipFileError_t status;

    if (props == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "props is NULL");
    memset(&hp, 0, sizeof(hp));
    status = hipFileDriverGetProperties(&hp);
    if (status.err != hipFileSuccess)
        return hf_cufile_status(status);
    memset(props, 0, sizeof(*props));
    props->nvfs.major_version = hp.nvfs.major_version;
    props->nvfs.minor_version = hp.nvfs.minor_version;
    props->nvfs.poll_thresh_size = (size_t)hp.nvfs.poll_thresh_size;
    props->nvfs.max_direct_io_size = (size_t)hp.nvfs.max_direct_io_size;
    props->nvfs.dstatusflags = hp.nvfs.driver_status_flags;
    props->nvfs.dcontrolflags = hp.nvfs.driver_control_flags;
    props->fflags = hp.feature_flags;
    props->max_device_cache_size = clamp_uint(hp.max_device_cache_size);
    props->per_buffer_cache_size = clamp_uint(hp.per_buffer_cache_size);
    props->max_device_pinned_mem_size = clamp_uint(hp.max_device_pinned_mem_size);
    props->max_batch_io_size = hp.max_batch_io_count;
    props->max_batch_io_timeout_msecs = hp.max_batch_io_timeout_msecs;
    return hf_cufile_error(CU_FILE_SUCCESS);
}

HF_CUFILE_API CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size)
{
    return hf_cufile_status(hipFileDriverSetPollMode(poll, poll_threshold_size));
}

HF_CUFILE_API CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size)
{
    return hf_cufile_status(hipFileDriverSetMaxDirectIOSize(max_direct_io_size));
}

HF_CUFILE_API CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size)
{
    return hf_cufile_status(hipFileDriverSetMaxCacheSize(max_cache_size));
}

HF_CUFILE_API CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size)
{
    return hf_cufile_status(hipFileDriverSetMaxPinnedMemSize(max_pinned_size));
}

HF_CUFILE_API CUfileError_t cuFileGetVersion(int *version)
{
    if (version == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "version is NULL");
    *version = HF_CUFILE_API_VERSION;
    return hf_cufile_error(CU_FILE_SUCCESS);
}
