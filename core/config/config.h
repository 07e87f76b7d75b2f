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

#include "config/setting_values.h"
#include "config/settings.h"

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
 * Forget every value set through the parameter API and hipFileDriverSet*: each setting returns to
 * what the last load found in the file, the environment or the defaults. The last
 * hipFileDriverClose calls it, since cuFile's close resets its parameters as well.
 */
void hf_config_drop_api_values(void);

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
