/*
 * Alignment math shared by the plugins: rounding offsets and sizes to the power-of-two granules
 * that O_DIRECT, DMA engines and NVMe logical blocks demand.
 */
#ifndef HF_PLUGIN_COMMON_ALIGN_H
#define HF_PLUGIN_COMMON_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

/** Whether @p value is a power of two (0 is not). */
static inline bool hfp_align_is_pow2(uint64_t value)
{
    return value != 0 && (value & (value - 1)) == 0;
}

/** @p value rounded down to a multiple of @p align (a power of two). */
static inline uint64_t hfp_align_down(uint64_t value, uint64_t align)
{
    return value & ~(align - 1);
}

/** @p value rounded up to a multiple of @p align (a power of two); the caller rules out overflow.
 */
static inline uint64_t hfp_align_up(uint64_t value, uint64_t align)
{
    return (value + align - 1) & ~(align - 1);
}

/** Whether @p value is a multiple of @p align (a power of two). */
static inline bool hfp_align_is_aligned(uint64_t value, uint64_t align)
{
    return (value & (align - 1)) == 0;
}

/** Whether @p ptr is a multiple of @p align (a power of two). */
static inline bool hfp_align_ptr_is_aligned(const void *ptr, uint64_t align)
{
    return hfp_align_is_aligned((uint64_t)(uintptr_t)ptr, align);
}

#endif
