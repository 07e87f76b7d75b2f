/*
 * cuFile's settings calls. The three parameter enums list hipfile's settings in the same order, so
 * a cuFile parameter is hipfile's of the same value. The POSIX pool's slab array is hipfile's
 * staging pool, which has one slab: buffers of per_buffer_cache_size_kb, as many as
 * max_device_cache_size_kb holds.
 */
#include "cufile_compat.h"

#include <hipfile/params.h>
#include <stdbool.h>
#include <stdint.h>

_Static_assert((int)CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS ==
                       (int)hipFileParamPropertiesBatchIOTimeoutMs &&
                   (int)CUFILE_PARAM_PROFILE_STATS == (int)hipFileParamProfileStats &&
                   (int)CUFILE_PARAM_PROPERTIES_MAX_DIRECT_IO_SIZE_KB ==
                       (int)hipFileParamPropertiesMaxDirectIOSizeKB,
               "numeric parameters are numbered alike");
_Static_assert((int)CUFILE_PARAM_STREAM_MEMOPS_BYPASS == (int)hipFileParamStreamMemopsBypass &&
                   (int)CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY ==
                       (int)hipFileParamPropertiesAllowSystemMemory,
               "on/off parameters are numbered alike");
_Static_assert((int)CUFILE_PARAM_LOG_DIR == (int)hipFileParamLogDir,
               "text parameters are numbered alike");

HF_CUFILE_API CUfileError_t cuFileGetParameterSizeT(CUFileSizeTConfigParameter_t param,
                                                    size_t *value)
{
    return hf_cufile_status(hipFileGetParameterSizeT((hipFileSizeTConfigParameter_t)param, value));
}

HF_CUFILE_API CUfileError_t cuFileGetParameterBool(CUFileBoolConfigParameter_t param, bool *value)
{
    return hf_cufile_status(hipFileGetParameterBool((hipFileBoolConfigParameter_t)param, value));
}

HF_CUFILE_API CUfileError_t cuFileGetParameterString(CUFileStringConfigParameter_t param,
                                                     char *desc_str, int len)
{
    return hf_cufile_status(
        hipFileGetParameterString((hipFileStringConfigParameter_t)param, desc_str, len));
}

HF_CUFILE_API CUfileError_t cuFileSetParameterSizeT(CUFileSizeTConfigParameter_t param,
                                                    size_t value)
{
    return hf_cufile_status(hipFileSetParameterSizeT((hipFileSizeTConfigParameter_t)param, value));
}

HF_CUFILE_API CUfileError_t cuFileSetParameterBool(CUFileBoolConfigParameter_t param, bool value)
{
    return hf_cufile_status(hipFileSetParameterBool((hipFileBoolConfigParameter_t)param, value));
}

HF_CUFILE_API CUfileError_t cuFileSetParameterString(CUFileStringConfigParameter_t param,
                                                     const char *desc_str)
{
    return hf_cufile_status(
        hipFileSetParameterString((hipFileStringConfigParameter_t)param, desc_str));
}

HF_CUFILE_API CUfileError_t cuFileGetParameterMinMaxValue(CUFileSizeTConfigParameter_t param,
                                                          size_t *min_value, size_t *max_value)
{
    return hf_cufile_status(
        hipFileGetParameterSizeTRange((hipFileSizeTConfigParameter_t)param, min_value, max_value));
}

/* Slabs in hipfile's staging pool: one size of buffer. */
#define SLABS 1

/* The checks both slab-array calls make of their arrays; false with *status_p when one fails. */
static bool slab_arrays_usable(const void *size_values, const void *count_values, int len,
                               const char *function, CUfileError_t *status_p)
{
    if (size_values == NULL || count_values == NULL) {
        *status_p = hf_cufile_reject(CU_FILE_INVALID_VALUE, function, "%s is NULL",
                                     size_values == NULL ? "size_values" : "count_values");
        return false;
    }
    if (len != SLABS) {
        *status_p = hf_cufile_reject(CU_FILE_INVALID_VALUE, function,
                                     "len %d: hipfile's staging pool has one slab size, so len "
                                     "must be 1 (docs/cufile.rst)",
                                     len);
        return false;
    }
    return true;
}

HF_CUFILE_API CUfileError_t cuFileSetParameterPosixPoolSlabArray(const size_t *size_values,
                                                                 const size_t *count_values,
                                                                 int len)
{
    CUfileError_t status;
    if (!slab_arrays_usable(size_values, count_values, len, __func__, &status))
        return status;
    size_t size_kb = size_values[0];
    size_t count = count_values[0];
    if (count == 0 || size_kb > SIZE_MAX / count)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__,
                                "%zu buffers of %zu KiB: the count must be 1 or more and the "
                                "product must fit",
                                count, size_kb);
    size_t old_size_kb = 0;
    hipFileError_t set =
        hipFileGetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, &old_size_kb);
    if (set.err == hipFileSuccess)
        set = hipFileSetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, size_kb);
    if (set.err != hipFileSuccess)
        return hf_cufile_status(set);
    set = hipFileSetParameterSizeT(hipFileParamPropertiesMaxDeviceCacheSizeKB, size_kb * count);
    if (set.err != hipFileSuccess) /* all or nothing */
        (void)hipFileSetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, old_size_kb);
    return hf_cufile_status(set);
}

HF_CUFILE_API CUfileError_t cuFileGetParameterPosixPoolSlabArray(size_t *size_values,
                                                                 size_t *count_values, int len)
{
    CUfileError_t status;
    if (!slab_arrays_usable(size_values, count_values, len, __func__, &status))
        return status;
    size_t size_kb = 0, cache_kb = 0;
    hipFileError_t got =
        hipFileGetParameterSizeT(hipFileParamPropertiesPerBufferCacheSizeKB, &size_kb);
    if (got.err == hipFileSuccess)
        got = hipFileGetParameterSizeT(hipFileParamPropertiesMaxDeviceCacheSizeKB, &cache_kb);
    if (got.err != hipFileSuccess)
        return hf_cufile_status(got);
    size_values[0] = size_kb;
    count_values[0] = size_kb > 0 ? cache_kb / size_kb : 0;
    return hf_cufile_status(got);
}
