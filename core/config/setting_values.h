/*
 * The current values of the settings, as the rest of the core reads and sets them: one reader per
 * type, by id, for the core's own table. Implemented by config_store.c; config.h includes it, so
 * the rest of the core includes config.h alone.
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

/**
 * Forget every value set through the parameter API and hipFileDriverSet*: each setting returns to
 * what the last load found in the file, the environment or the defaults. The last
 * hipFileDriverClose calls it, since cuFile's close resets its parameters as well.
 */
void hf_config_drop_api_values(void);

/** plugins.enable as loaded (file or HIPFILE_PLUGINS) into *names_p; 0 entries = every plugin. */
size_t hf_config_plugin_enable_list(const char *const **names_p);
/** Whether plugin @p name may be opened (plugins.enable; absent or empty list = all). */
bool hf_config_plugin_enabled(const char *name);
/** plugins.priority as loaded: its names into *names_p, their priorities into *values_p. */
size_t hf_config_plugin_priorities(const char *const **names_p, const int **values_p);
/** Configured priority of plugin @p name (plugins.priority.<name>); -ENOENT when not set. */
int hf_config_plugin_priority(const char *name, int *priority_p);

#endif
