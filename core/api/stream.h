/*
 * Registered streams and their HIPFILE_STREAM_* flags. Registration does not depend on the
 * driver count (API.md section 8.1 item 8).
 */
#ifndef HF_CORE_STREAM_H
#define HF_CORE_STREAM_H

#include <stdbool.h>

#include <hipfile.h>

/**
 * Flags of @p stream when registered; 0 when not. Async submission reads them once, so a later
 * deregistration does not change operations already queued.
 */
unsigned hf_stream_flags(hipStream_t stream);

#endif
