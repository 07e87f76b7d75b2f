/*
 * Copying into memory a device will read next, with stores that leave no dirty lines in the CPU's
 * private caches: a copy engine reading lines another core holds modified runs at about half its
 * speed (docs/performance.rst, "Why staged reads clean their stores").
 */
#ifndef HF_PLUGIN_COMMON_STREAM_COPY_H
#define HF_PLUGIN_COMMON_STREAM_COPY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Bytes of a bounce buffer that a reader fills and then streams on with hfp_stream_copy: small
 * enough to stay in the reading core's cache between the two, large enough that the read's fixed
 * cost stays small next to it.
 */
#define HFP_STREAM_BOUNCE_SIZE ((size_t)256 * 1024)

/**
 * Whether this CPU has stores that bypass its caches (non-temporal stores: every x86-64 CPU). Where
 * it has none, hfp_stream_copy is a plain memcpy.
 */
bool hfp_stream_copy_available(void);

/**
 * Copy @p n bytes from @p src to @p dst (not overlapping) with non-temporal stores where the CPU
 * has them, then fence them: once it returns, a release store that publishes @p dst to another
 * thread orders these bytes before it, as it would for plain stores.
 */
void hfp_stream_copy(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif
