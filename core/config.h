/*
 * Settings: one table of every key (type, unit, default, range, hipFileParam* counterpart), fed in
 * order by built-in defaults, the config file (libconfig), the environment and the parameter API.
 * Plugin groups (plugins.<name>.* and the top-level group named after each plugin) are kept as
 * parsed so backends can look up their own knobs.
 */
#ifndef HF_CORE_CONFIG_H
#define HF_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Compatibility (POSIX fallback) policy, properties.compat_mode. */
enum hf_compat_mode {
    HF_COMPAT_OFF = 0,   /**< never fall back to the compat path */
    HF_COMPAT_ALLOW = 1, /**< fall back when a direct path cannot serve (default) */
    HF_COMPAT_FORCE = 2, /**< serve everything through the compat path */
};

/**
 * Load defaults, then the config file (HIPFILE_CONFIG, else /etc/hipfile.conf; missing = defaults),
 * then environment overrides. Replaces whatever was loaded before, including values set through
 * the parameter API. Returns 0, or -EINVAL for a malformed file or value (logged with file, line
 * and problem), or another -errno when the file cannot be read.
 */
int hf_config_load(void);

/** Path of the file the last hf_config_load read, or NULL when it used built-in defaults. */
const char *hf_config_path(void);

/** Integer setting by dotted key ("execution.max_io_threads"); 0 for an unknown key. */
int64_t hf_config_get_int(const char *key);
/** Boolean setting by dotted key; false for an unknown key. */
bool hf_config_get_bool(const char *key);
/** String setting by dotted key ("plugins.directory", "gpu.runtime"); NULL for an unknown key. */
const char *hf_config_get_string(const char *key);
/** Effective compat mode. */
enum hf_compat_mode hf_config_compat_mode(void);

/** Whether plugin @p name may be opened (plugins.enable; absent or empty list = all). */
bool hf_config_plugin_enabled(const char *name);
/** Configured priority of plugin @p name (plugins.priority.<name>); -ENOENT when not set. */
int hf_config_plugin_priority(const char *name, int *priority_p);

/** Integer from plugin @p plugin's own group; -ENOENT when unset, -EINVAL on a type mismatch. */
int hf_config_plugin_int(const char *plugin, const char *key, int64_t *value_p);
/** Boolean from plugin @p plugin's own group; -ENOENT when unset, -EINVAL on a type mismatch. */
int hf_config_plugin_bool(const char *plugin, const char *key, bool *value_p);
/** String from plugin @p plugin's own group; valid until the next hf_config_load. */
int hf_config_plugin_string(const char *plugin, const char *key, const char **value_p);

#endif
