/*
 * Reasons handed back to a caller: the loader, the manifest reader and plugin trust each take a
 * "why" buffer that a refusal fills, so that the caller's one log line names the file and the
 * reason together.
 */
#ifndef HF_WHY_H
#define HF_WHY_H

#include <stddef.h>

/**
 * Format a reason into @p why (@p why_size bytes, cut to fit and always terminated). Does nothing
 * when @p why is NULL or @p why_size is 0, so callers that want no reason pass NULL.
 */
void hf_why_set(char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* HF_WHY_H */
