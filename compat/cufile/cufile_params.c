/*
 * cuFile's settings calls. The three parameter enums list hipfile's settings in the same order, so
 * a cuFile parameter is hipfile's of the same value. The range query and the POSIX pool's slab
 * arrays have no hipfile counterpart: hipfile's fallback stages through one pool of equal buffers.
 */
#include "cufile_compat.h"

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
    (void)param;
    (void)min_value;
    (void)max_value;
    HF_CUFILE_NOT_SUPPORTED("hipfile's settings API has no range query; docs/configuration "
                            "lists every range");
}

HF_CUFILE_API CUfileError_t cuFileSetParameterPosixPoolSlabArray(const size_t *size_values,
                                                                 const size_t *count_values,
                                                                 int len)
{
    (void)size_values;
    (void)count_values;
    (void)len;
    HF_CUFILE_NOT_SUPPORTED("the fallback's staging pool has one buffer size, set with "
                            "CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB");
}

HF_CUFILE_API CUfileError_t cuFileGetParameterPosixPoolSlabArray(size_t *size_values,
                                                                 size_t *count_values, int len)
{
    (void)size_values;
    (void)count_values;
    (void)len;
    HF_CUFILE_NOT_SUPPORTED("the fallback's staging pool has one buffer size, read with "
                            "CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB");
}
