/*
 * Settings: one table of every key (settings.h), fed in order by built-in defaults, the config
 * file (libconfig), the environment and the parameter API. Top-level groups that are not the
 * core's own (log, gpu, plugins, properties, execution, profile, fs) belong to the plugin of that
 * name (plugin_keys.h).
 *
 * This header, with those it includes, is the whole of the configuration the rest of the core
 * sees; config_store.h and value_parse.h are private to core/config/. The folder's files, lowest
 * first: settings (the table), env and kept (the environment; strings that outlive a load),
 * value_parse (one value from the file or a variable, checked against its row), config_store (the
 * values readers see), plugin_keys (the plugins' groups), config (a whole load).
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

#include "config/env.h"
#include "config/kept.h"
#include "config/plugin_keys.h"
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

/** hf_config_load once per process: later calls return the first result without reloading. */
int hf_config_ensure_loaded(void);

/**
 * Forget the loaded file, the environment and every parameter-API value: all settings return to
 * the built-in defaults and the next hf_config_ensure_loaded loads again. Tests only.
 */
void hf_config_reset(void);

/**
 * The config files tried in order when HIPFILE_CONFIG is unset, NULL-terminated: the installation's
 * own (hf_install_config_path, or the compiled-in path when the core cannot find where it is
 * installed), then /etc/hipfile.conf when that is another file. The first that exists is read.
 */
const char *const *hf_config_search_path(void);

/** Path of the file the last hf_config_load read or failed on, or NULL when it used defaults. */
const char *hf_config_path(void);

#endif
