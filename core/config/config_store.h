/*
 * What a load hands config_store.c to publish (config.c stages it; plugin_keys.c reads the
 * published file's plugin groups): the parsed file with the list and map settings derived from it,
 * and the values of the core's table. Private to core/config/: the rest of the core includes
 * config.h only.
 */
#ifndef HF_CORE_CONFIG_STORE_H
#define HF_CORE_CONFIG_STORE_H

#include <libconfig.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/setting_values.h"
#include "config/settings.h"
#include "config/value_parse.h"

/**
 * A key of a plugin's group in the file. The core cannot tell a plugin's keys from misspellings
 * until the plugin has read them, so each lookup marks the key it found (through the libconfig
 * hook of the setting, which points here) and hf_config_warn_unused reports the unmarked ones
 * (plugin_keys.c).
 */
struct hf_config_plugin_key {
    const config_setting_t *setting; /**< the key in cfg */
    atomic_bool read;                /**< a lookup found it */
};

/** Most keys a plugin looked up and did not find that are kept, for "did you mean" hints. */
#define HF_CONFIG_MISSES_MAX 128

/** A parsed file plus the list and map settings derived from it. Never freed once published. */
struct hf_config_state {
    struct hf_config_file file;               /**< the parsed file and where it came from */
    const char **enable;                      /**< plugins.enable; NULL/0 = every plugin */
    size_t enable_count;                      /**< entries in enable */
    const char **priority_name;               /**< plugins.priority names */
    int *priority_value;                      /**< their priorities */
    size_t priority_count;                    /**< entries in priority_name and priority_value */
    struct hf_config_plugin_key *plugin_keys; /**< every key of the plugins' groups */
    size_t plugin_key_count;                  /**< entries in plugin_keys */
    /** "plugin.key" of look-ups that found nothing, until hf_config_warn_unused */
    const char *misses[HF_CONFIG_MISSES_MAX];
    size_t miss_count;             /**< entries in misses */
    atomic_bool checked;           /**< hf_config_warn_unused ran on this state */
    struct hf_config_state *older; /**< the state published before this one, kept */
};

/** Values of one load, indexed by enum hf_setting_id, before they are published. */
struct hf_config_staged {
    int64_t num[HF_SETTING_COUNT];                   /**< int, bool and enum values */
    const char *text[HF_SETTING_COUNT];              /**< string values (kept or static strings) */
    enum hf_setting_origin origin[HF_SETTING_COUNT]; /**< where each value came from */
    const char *origin_where[HF_SETTING_COUNT];      /**< "file:line" or the variable (kept) */
};

/** Serialise writers (loads, resets, parameter-API sets). */
void hf_config_store_lock(void);
/** End of a hf_config_store_lock section. */
void hf_config_store_unlock(void);

/**
 * Fill @p st with every setting's built-in default; plugins.directory is the installation's own
 * (hf_install_plugin_dir) when the core can tell where it is installed.
 */
void hf_config_stage_defaults(struct hf_config_staged *st);
/**
 * Make @p st (after re-applying every parameter-API value on top of it) and @p state (NULL = no
 * file) what readers see, then apply the log settings. Lock held.
 */
void hf_config_store_publish(struct hf_config_staged *st, struct hf_config_state *state);
/** Forget every parameter-API value. Lock held. */
void hf_config_store_forget_overrides(void);

/** The published state (NULL before the first load); never freed. */
struct hf_config_state *hf_config_store_current(void);

#endif
