/*
 * Whether the plugin directory and the files in it may hold code this process runs: nobody but
 * the process's own user or root may be able to change them. Each check describes a refusal in
 * the caller's buffer, for the loader's one log line.
 */
#ifndef HF_CORE_PLUGIN_TRUST_H
#define HF_CORE_PLUGIN_TRUST_H

#include <stddef.h>
#include <sys/stat.h>

/**
 * Check the status @p st of @p path (a file or directory the loader reads or maps): owned by root
 * or the effective user, and writable by neither its group nor others. Returns 0, or -EPERM with
 * @p why (of @p why_size bytes) saying which rule it breaks.
 */
int hf_plugin_trust_stat(const char *path, const struct stat *st, char *why, size_t why_size);

/**
 * Check the plugin directory @p dir: an absolute path, the directory itself as
 * hf_plugin_trust_stat says, and no directory above it writable by others without the sticky bit
 * (where anyone could swap the plugin directory for another). Returns 0, -EPERM with @p why, or
 * the -errno of a failed stat.
 */
int hf_plugin_trust_directory(const char *dir, char *why, size_t why_size);

#endif
