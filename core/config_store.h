/*
 * Between config.c (which reads the file and the environment) and config_store.c (which holds the
 * values readers see and the parameter-API overrides): what a load hands over to be published.
 * Internal to those two files.
 */
#ifndef HF_CORE_CONFIG_STORE_H
#define HF_CORE_CONFIG_STORE_H

#include <libconfig.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings.h"

/** A parsed file plus the list and map settings derived from it. Never freed once published. */
struct hf_config_state {
    config_t cfg;                  /**< the parsed file (empty without one) */
    bool parsed;                   /**< cfg holds a file */
    const char *path;              /**< the file, NULL for defaults */
    const char *dir;               /**< its directory, where @include paths start */
    const char **enable;           /**< plugins.enable; NULL/0 = every plugin */
    size_t enable_count;           /**< entries in enable */
    const char **priority_name;    /**< plugins.priority names */
    int *priority_value;           /**< their priorities */
    size_t priority_count;         /**< entries in priority_name and priority_value */
    struct hf_config_state *older; /**< the state published before this one, kept */
};

/** Values of one load, indexed by enum hf_setting_id, before they are published. */
struct hf_config_staged {
    int64_t num[HF_SETTING_COUNT];      /**< int, bool and enum values */
    const char *text[HF_SETTING_COUNT]; /**< string values (kept or static strings) */
};

/** Room for "file:line" in messages. */
struct hf_config_where {
    char text[PATH_MAX + 32]; /**< the formatted location */
};

/** Serialise writers (loads, resets, parameter-API sets). */
void hf_config_store_lock(void);
/** End of a hf_config_store_lock section. */
void hf_config_store_unlock(void);

/** A copy of @p text that lives as long as the process, or NULL without memory. Lock held. */
const char *hf_config_keep_string(const char *text);
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

/** "file:line" of @p cs, naming included files by the path that was opened. */
const char *hf_config_where(const config_setting_t *cs, const struct hf_config_state *state,
                            struct hf_config_where *where);
/** Path of @p file (as libconfig recorded it) relative to @p state's directory, in @p buf. */
const char *hf_config_join_dir(const struct hf_config_state *state, const char *file, char *buf,
                               size_t size);
/** "an integer", "a string", ... for a libconfig type. */
const char *hf_config_type_phrase(int config_type);

#endif
