/*
 * Between config.c (which reads the file and the environment), config_store.c (which holds the
 * values readers see and the parameter-API overrides), config_declared.c (which keeps the keys
 * plugins declare) and config_unused.c (which reports what no plugin claimed): what a load hands
 * over to be published. Private to core/config/: the rest of the core includes config.h only.
 */
#ifndef HF_CORE_CONFIG_STORE_H
#define HF_CORE_CONFIG_STORE_H

#include <libconfig.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/setting_values.h"
#include "config/settings.h"

/**
 * A key of a plugin's group in the file. The core cannot tell a plugin's keys from misspellings
 * until the plugin has read them, so each lookup marks the key it found (through the libconfig
 * hook of the setting, which points here) and hf_config_warn_unused reports the unmarked ones.
 */
struct hf_config_plugin_key {
    const config_setting_t *setting; /**< the key in cfg */
    atomic_bool read;                /**< a lookup found it */
};

/** Most keys a plugin looked up and did not find that are kept, for "did you mean" hints. */
#define HF_CONFIG_MISSES_MAX 128

/** A parsed file plus the list and map settings derived from it. Never freed once published. */
struct hf_config_state {
    config_t cfg;                             /**< the parsed file (empty without one) */
    bool parsed;                              /**< cfg holds a file */
    const char *path;                         /**< the file, NULL for defaults */
    const char *dir;                          /**< its directory, where @include paths start */
    const char **enable;                      /**< plugins.enable; NULL/0 = every plugin */
    size_t enable_count;                      /**< entries in enable */
    const char **priority_name;               /**< plugins.priority names */
    int *priority_value;                      /**< their priorities */
    size_t priority_count;                    /**< entries in priority_name and priority_value */
    struct hf_config_plugin_key *plugin_keys; /**< every key of the plugins' groups */
    size_t plugin_key_count;                  /**< entries in plugin_keys */
    /** "plugin.key" of look-ups that found nothing, until hf_config_warn_unused (misses_lock) */
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

/** The published state (NULL before the first load); never freed. */
struct hf_config_state *hf_config_store_current(void);
/**
 * Mark @p state as checked by hf_config_warn_unused: no look-up records a miss from then on.
 * Returns true the first time, false when it was checked already.
 */
bool hf_config_state_check_once(struct hf_config_state *state);

/**
 * Collect the keys of every plugin group of @p state's file into state->plugin_keys and point each
 * key's hook at its entry, so look-ups can mark what they read. Before publishing. 0 or -ENOMEM.
 * (core/config_unused.c)
 */
int hf_config_plugin_keys_collect(struct hf_config_state *state);

/**
 * The candidate closest to @p word when it is close enough to be a likely misspelling (a few
 * letters added, dropped, changed or swapped), else NULL. For "did you mean" hints.
 */
const char *hf_config_suggest(const char *word, const char *const *candidates, size_t count);

/**
 * Check the file's value @p cs of row @p s (an int, bool, string or enum row: the core's table or
 * a plugin's declaration) into *num_p (int, bool 0/1, enum index) or *text_p (string, kept for the
 * life of the state). Returns 0, or -EINVAL after an error line naming file:line, the key and what
 * it accepts.
 */
int hf_config_value_from_file(const struct hf_setting *s, const config_setting_t *cs,
                              const struct hf_config_state *state, int64_t *num_p,
                              const char **text_p);
/**
 * Check the value @p value of row @p s's variable as hf_config_value_from_file does the file's;
 * an error names the variable and records it as what the load failed on. Lock held.
 */
int hf_config_value_from_env(const struct hf_setting *s, const char *value, int64_t *num_p,
                             const char **text_p);

/** Most plugins whose declared settings are kept (config_declared.c). */
#define HF_CONFIG_DECLARED_MAX 64

/** The value of one declared key and where it came from. Never freed once published. */
struct hf_config_declared_value {
    int64_t num;                   /**< int or bool (0/1) value */
    const char *text;              /**< string value (a declared name's canonical spelling) */
    enum hf_setting_origin origin; /**< default, file or environment */
    const char *where;             /**< "file:line" or the variable; NULL for the default */
};

/** One plugin's declarations with their values (config_declared.c). */
struct hf_config_declared_block;

/** Declared values a load resolved against its file, published with it. */
struct hf_config_declared_staged {
    struct hf_config_declared_block *blocks[HF_CONFIG_DECLARED_MAX]; /**< by plugin, or NULL */
    size_t count;                                                    /**< entries in blocks */
};

/**
 * Resolve every declared plugin's keys against @p state (file, then variables) into @p staged;
 * report unknown keys of their groups. Returns 0, or -EINVAL (logged, nothing kept). Lock held.
 */
int hf_config_declared_stage(const struct hf_config_state *state,
                             struct hf_config_declared_staged *staged);
/** Make @p staged what readers see, once the state it was resolved against is published. */
void hf_config_declared_publish(struct hf_config_declared_staged *staged);
/** Free what hf_config_declared_stage made, for a load that publishes nothing. */
void hf_config_declared_discard(struct hf_config_declared_staged *staged);
/** Forget every plugin's declarations (hf_config_reset). Lock held. */
void hf_config_declared_forget(void);
/** Whether plugin @p plugin declared a table (its group is then checked against it, not read). */
bool hf_config_plugin_is_declared(const char *plugin);
/**
 * Declared key @p key of plugin @p plugin: its row and value. Returns 0, -ENOENT when the plugin
 * declares a table without that key, or -ESRCH when it declares no table.
 */
int hf_config_declared_find(const char *plugin, const char *key, const struct hf_setting **row_p,
                            const struct hf_config_declared_value **value_p);

#endif
