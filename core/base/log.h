/*
 * Logging: one line per event, "hipfile[<tag>] <level>: <message>", to stderr or the configured
 * file. The first function to see an error logs it; callers only pass the code on.
 */
#ifndef HF_CORE_LOG_H
#define HF_CORE_LOG_H

#include <stdarg.h>

#include "hipfile/backend.h"

/** Log a line at @p level (enum hf_log_level) tagged with @p tag ("core", a backend's name...). */
void hf_log(int level, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** va_list form of hf_log. */
void hf_logv(int level, const char *tag, const char *fmt, va_list ap);
/** Current threshold: lines above it are dropped. */
int hf_log_level(void);
/** Set the threshold (clamped to the valid range). */
void hf_log_set_level(int level);
/**
 * Send lines to @p path (appended), or back to stderr with NULL. Returns 0 or -errno; only a
 * regular file is taken (-EINVAL for a FIFO, a device, a directory or a file of /proc).
 */
int hf_log_set_file(const char *path);
/**
 * hf_log_set_file, saying in @p why (of @p why_size bytes) why a file was not taken: "a FIFO
 * (named pipe), not a regular file" or "cannot open: <strerror>".
 */
int hf_log_set_file_why(const char *path, char *why, size_t why_size);
/**
 * Hold back the calling thread's lines from now on, whatever their level, until hf_log_release.
 * For a step that sets the threshold itself (a config load): its own lines then follow the level
 * it sets. Other threads log as usual. Nested calls are one hold.
 */
void hf_log_hold(void);
/**
 * Write the lines held since hf_log_hold, in order, each whose level passes the more verbose of
 * the threshold at the hold and the threshold now: a load that raises the level shows its own info
 * lines, and a caller that raised it beforehand (hipfile-check) still sees them.
 */
void hf_log_release(void);
/** Parse "error", "warn", "info", "debug" or a digit 0-3; -1 when not a level. */
int hf_log_level_parse(const char *text);

#define HF_LOG_TAG_CORE "core"
#define hf_error(...) hf_log(HF_LOG_ERROR, HF_LOG_TAG_CORE, __VA_ARGS__)
#define hf_warn(...) hf_log(HF_LOG_WARN, HF_LOG_TAG_CORE, __VA_ARGS__)
#define hf_info(...) hf_log(HF_LOG_INFO, HF_LOG_TAG_CORE, __VA_ARGS__)
#define hf_debug(...) hf_log(HF_LOG_DEBUG, HF_LOG_TAG_CORE, __VA_ARGS__)

#endif
