/*
 * Settings: one table of every key (settings.h), fed in order by built-in defaults, the config
 * file (libconfig), the environment and the parameter API. Top-level groups that are not the
 * core's own (log, gpu, plugins, properties, execution, profile, fs) belong to the plugin of that
 * name. A plugin that declares its keys (hf_config_declare_plugin_settings) has its group checked
 * against them and is answered from them; the groups of other plugins are kept as parsed for them
 * to look up, and once the plugins are loaded, keys no plugin read and groups no plugin owns are
 * reported (hf_config_warn_unused).
 *
 * This header (with settings.h, which it includes) is the whole of the configuration the rest of
 * the core sees; the other headers of core/config/ are private to that folder.
 *
 * Reads never block: values are atomics, and every string handed out (setting values, plugin
 * group strings, the config path) stays valid for the life of the process, so I/O threads may read
 * while the parameter API or a reload writes.
 */
#ifndef HF_CORE_CONFIG_H
#define HF_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings.h"

/** Where a setting's value came from. */
enum hf_setting_origin {
    HF_ORIGIN_DEFAULT = 0, /**< the built-in default (or the installation's plugin directory) */
    HF_ORIGIN_FILE,        /**< the config file */
    HF_ORIGIN_ENV,         /**< an environment variable */
    HF_ORIGIN_API,         /**< the parameter API */
};

/**
 * Load defaults, then the config file (HIPFILE_CONFIG, which must be absolute, else the first of
 * hf_config_search_path that exists; missing = defaults; relative paths inside resolve against its
 * directory), then environment overrides, then re-apply every value set through the parameter API
 * (those always win, so a program may set parameters before the driver opens). Applies log.level
 * and log.file/log.dir to the log; the lines the load itself logs follow the level it sets (a
 * missing HIPFILE_CONFIG file is a warning, a missing default file an info line). On failure
 * nothing changes. Returns 0, or -EINVAL for a malformed file or a bad value in the file or
 * environment (one error line naming file and line, or the variable), or another -errno when the
 * file exists but cannot be read.
 */
int hf_config_load(void);

/**
 * What the last failed hf_config_load failed on, for the line that reports the failure: "the
 * environment variable HIPFILE_LOG_LEVEL", "the config file /etc/hipfile.conf", or NULL after a
 * load that succeeded.
 */
const char *hf_config_failure(void);

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

/** What the loader found of one plugin, for hf_config_warn_unused. */
struct hf_config_plugin {
    const char *name; /**< the name its manifest declares */
    bool initialised; /**< its init ran and returned 0, so it has read its keys */
};

/**
 * Once the plugins are loaded (@p plugins: every valid manifest of plugin directory @p dir), warn
 * with file and line about: each top-level group of the file that is neither a core group nor
 * the name of one of @p plugins; each key of an initialised plugin's group that the plugin never
 * read (plugins read their keys in init); each name in plugins.enable that none of @p plugins
 * has. Runs once per published configuration.
 */
void hf_config_warn_unused(const struct hf_config_plugin *plugins, size_t count, const char *dir);

/** hf_config_load once per process: later calls return the first result without reloading. */
int hf_config_ensure_loaded(void);

/**
 * Forget the loaded file, the environment and every parameter-API value: all settings return to
 * the built-in defaults and the next hf_config_ensure_loaded loads again. Tests only.
 */
void hf_config_reset(void);

/**
 * The environment variable @p name, as every setting read from the environment gets it: NULL in a
 * set-user-ID or set-group-ID process (AT_SECURE), with a warning naming the variable when it is
 * set. The one place the library reads its variables.
 */
const char *hf_env_get(const char *name);
/** Treat the process as set-user-ID from now on (@p on) or not. Tests only. */
void hf_env_assume_secure(bool on);

/**
 * The config files tried in order when HIPFILE_CONFIG is unset, NULL-terminated: the installation's
 * own (hf_install_config_path, or the compiled-in path when the core cannot find where it is
 * installed), then /etc/hipfile.conf when that is another file. The first that exists is read.
 */
const char *const *hf_config_search_path(void);

/** Path of the file the last hf_config_load read or failed on, or NULL when it used defaults. */
const char *hf_config_path(void);

/**
 * Integer, boolean (0/1) or enum (index) setting by dotted key; 0 for an unknown key. Kept only
 * for callers not yet reading by id: new code reads with hf_setting_int and friends.
 */
int64_t hf_config_get_int(const char *key);
/** Boolean setting by dotted key; false for an unknown key. */
bool hf_config_get_bool(const char *key);
/** String or enum (its name) setting by dotted key; NULL for an unknown key. */
const char *hf_config_get_string(const char *key);
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

struct hf_setting_decl;
/**
 * Record the keys plugin @p plugin declares for its group (@p count entries of @p decls, kept by
 * reference: the plugin stays loaded), validate the group's values against them (errors and
 * warnings name file and line), and from then on answer hf_config_plugin_int, _bool and _string
 * for a declared key with its default when unset. Returns 0, or -EINVAL when a value the file
 * gives is not acceptable (logged).
 */
int hf_config_declare_plugin_settings(const char *plugin, const struct hf_setting_decl *decls,
                                      unsigned count);

/** One key a plugin declared, with its current value and where the value came from. */
struct hf_config_declared_setting {
    const struct hf_setting_decl *decl; /**< the plugin's declaration */
    /** The declaration as a row of the core's shape ("plugin.key"), for hf_setting_describe. */
    const struct hf_setting *row;
    int64_t num;                   /**< value of an int or bool (0/1) key */
    const char *text;              /**< value of a string key; NULL when it has no default */
    enum hf_setting_origin origin; /**< HF_ORIGIN_DEFAULT, HF_ORIGIN_FILE or HF_ORIGIN_ENV */
    const char *where;             /**< "file:line" or the variable's name; NULL for the default */
};

/**
 * Declared key number @p index of plugin @p plugin, in the order of its table, into *out. Returns
 * 0, -ENOENT past the last key, or -ESRCH when the plugin declared no table.
 */
int hf_config_declared_at(const char *plugin, unsigned index,
                          struct hf_config_declared_setting *out);

#endif
