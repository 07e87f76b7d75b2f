/*
 * The range of a numeric setting: an extension of hipfile's own (AMD's hipFile has no range
 * query; cuFile's cuFileGetParameterMinMaxValue, which libcufile.so.0 serves through this, does).
 */
#ifndef HIPFILE_PARAMS_H
#define HIPFILE_PARAMS_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The smallest and largest values hipFileSetParameterSizeT accepts for @p param, in the
 * parameter's own unit (KiB for sizes, as in the value calls); where a setting takes only
 * multiples of a step (per_buffer_cache_size_kb takes multiples of 4), both ends are multiples.
 * Works with the driver open or closed. Returns hipFileSuccess, or hipFileInvalidValue for an
 * unknown @p param or a NULL @p min_value or @p max_value.
 */
hipFileError_t hipFileGetParameterSizeTRange(hipFileSizeTConfigParameter_t param, size_t *min_value,
                                             size_t *max_value);

#ifdef __cplusplus
}
#endif

#endif
