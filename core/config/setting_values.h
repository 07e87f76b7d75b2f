/*
 * The current values of the settings, as the rest of the core reads and sets them: one reader per
 * type, by id, for the core's own table, and by plugin and key for the plugins' groups. Implemented
 * by config_store.c; config.h includes it, so the rest of the core includes config.h alone.
 */
#ifndef HF_CORE_SETTING_VALUES_H
#define HF_CORE_SETTING_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/settings.h"

/** Where a setting's value came from. */
enum hf_setting_origin {
    HF_ORIGIN_DEFAULT = 0, /**< the built-in default (or the installation's plugin directory) */
    HF_ORIGIN_FILE,        /**< the config file */
    HF_ORIGIN_ENV,         /**< an environment variable */
    HF_ORIGIN_API,         /**< the parameter API */
};

/**
 * Where the value of setting @p id came from. *where_p (may be NULL) gets "<file>:<line>" for
 * HF_ORIGIN_FILE, the variable's name for HF_ORIGIN_ENV, NULL otherwise. The compat views report
 * properties.compat_mode's origin.
 */
enum hf_setting_origin hf_setting_origin(enum hf_setting_id id, const char **where_p);

/**
 * Where setting @p id came from, in words for a message, in @p buf: "HIPFILE_PLUGIN_DIR",
 * "plugins.directory at /etc/hipfile.conf:12", "the parameter API" or "the built-in default".
 */
const char *hf_setting_origin_text(enum hf_setting_id id, char *buf, size_t size);

/** Effective compat mode. */
enum hf_compat_mode hf_config_compat_mode(void);

/** Value of an int, bool or enum setting by id (no key look-up: for hot paths). */
int64_t hf_setting_int(enum hf_setting_id id);
/** Value of a bool setting by id. */
bool hf_setting_bool(enum hf_setting_id id);
/** Value of a string setting, or the name of an enum setting's value, by id; NULL otherwise. */
const char *hf_setting_string(enum hf_setting_id id);

/**
 * Set an int setting as the parameter API does: the value outlives later hf_config_load calls.
 * Returns 0, -EINVAL when @p id is not an int setting, or -ERANGE outside the table's range
 * (logged with the allowed range).
 */
int hf_setting_set_int(enum hf_setting_id id, int64_t value);
/** Set a bool setting (views included) as the parameter API does. 0 or -EINVAL. */
int hf_setting_set_bool(enum hf_setting_id id, bool value);
/**
 * Set a string or enum setting as the parameter API does. log.file and log.dir take effect at once
 * and fail with the open's -errno when the log file cannot be opened. 0 or -EINVAL (logged).
 */
int hf_setting_set_string(enum hf_setting_id id, const char *value);

/** plugins.enable as loaded (file or HIPFILE_PLUGINS) into *names_p; 0 entries = every plugin. */
size_t hf_config_plugin_enable_list(const char *const **names_p);
/** Whether plugin @p name may be opened (plugins.enable; absent or empty list = all). */
bool hf_config_plugin_enabled(const char *name);
/** plugins.priority as loaded: its names into *names_p, their priorities into *values_p. */
size_t hf_config_plugin_priorities(const char *const **names_p, const int **values_p);
/** Configured priority of plugin @p name (plugins.priority.<name>); -ENOENT when not set. */
int hf_config_plugin_priority(const char *name, int *priority_p);

/**
 * Integer @p key ("queue_depth", or a dotted path inside the group) from the top-level group named
 * after @p plugin; -ENOENT when unset, -EINVAL on a type mismatch (logged with file and line).
 * For a plugin that declared its keys (hf_config_declare_plugin_settings): a declared key's
 * value, or its default when unset; -ENOENT for a key it did not declare. The same holds for
 * hf_config_plugin_bool and hf_config_plugin_string.
 */
int hf_config_plugin_int(const char *plugin, const char *key, int64_t *value_p);
/** Boolean from plugin @p plugin's own group; -ENOENT when unset, -EINVAL on a type mismatch. */
int hf_config_plugin_bool(const char *plugin, const char *key, bool *value_p);
/** String from plugin @p plugin's own group; -ENOENT when unset, -EINVAL on a type mismatch.
 * The string stays valid for the life of the process. A declared string key that is unset and
 * declares no default reads as 0 with *value_p NULL. */
int hf_config_plugin_string(const char *plugin, const char *key, const char **value_p);

#endif
