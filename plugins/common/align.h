/*
 * Alignment math shared by the plugins: rounding offsets and sizes to the power-of-two granules
 * that O_DIRECT, DMA engines and NVMe logical blocks demand.
 */
#ifndef HF_PLUGIN_COMMON_ALIGN_H
#define HF_PLUGIN_COMMON_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
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

/**
 * The next step of moving [at, at + left) of a file to or from @p mem under O_DIRECT's rule:
 * true with *want_p whole granules of @p offset_align when @p at is on a granule boundary, @p mem
 * is aligned to @p mem_align and a granule is left; otherwise false with *want_p the bytes that go
 * buffered: up to the next boundary when @p at is off one, else all that is left.
 */
static inline bool hfp_align_direct_step(uint64_t at, size_t left, const void *mem,
                                         uint64_t offset_align, uint64_t mem_align, size_t *want_p)
{
    if (!hfp_align_is_aligned(at, offset_align)) {
        size_t to_boundary = (size_t)(hfp_align_up(at, offset_align) - at);
        *want_p = left < to_boundary ? left : to_boundary;
        return false;
    }
    *want_p = left;
    if (left < offset_align || !hfp_align_ptr_is_aligned(mem, mem_align))
        return false;
    *want_p = (size_t)hfp_align_down(left, offset_align);
    return true;
}

#endif
