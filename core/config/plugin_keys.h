/*
 * The keys of the plugins' groups: those a plugin declares (struct hf_setting_decl, kept as rows of
 * the core's own type), checked against the file when it declares them and on every load; those
 * of a plugin without a table, answered from the file as parsed and marked when read; and, once
 * the plugins are loaded, what nothing claimed. config.h includes this header.
 */
#ifndef HF_CORE_PLUGIN_KEYS_H
#define HF_CORE_PLUGIN_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/setting_values.h"
#include "config/settings.h"

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
    /** The declaration as a row of the core's type, keyed "plugin.key". */
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

/**
 * Integer @p key ("queue_depth", or a dotted path inside the group) from the top-level group named
 * after @p plugin; -ENOENT when unset, -EINVAL on a type mismatch (logged with file and line).
 * For a plugin that declared its keys: a declared key's value, or its default when unset; -ENOENT
 * for a key it did not declare. A key that starts with a core group ("properties.x") reads the
 * core's setting. The same holds for hf_config_plugin_bool and hf_config_plugin_string.
 */
int hf_config_plugin_int(const char *plugin, const char *key, int64_t *value_p);
/** Boolean from plugin @p plugin's own group; -ENOENT when unset, -EINVAL on a type mismatch. */
int hf_config_plugin_bool(const char *plugin, const char *key, bool *value_p);
/** String from plugin @p plugin's own group; -ENOENT when unset, -EINVAL on a type mismatch.
 * The string stays valid for the life of the process. A declared string key that is unset and
 * declares no default reads as 0 with *value_p NULL. */
int hf_config_plugin_string(const char *plugin, const char *key, const char **value_p);

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

/* ---- for config.c's loads ---- */

struct hf_config_state;

/**
 * Collect the keys of every plugin group of @p state's file, so that look-ups can mark what they
 * read. Before publishing. 0 or -ENOMEM.
 */
int hf_config_plugin_keys_collect(struct hf_config_state *state);

/** Most plugins whose declared settings are kept. */
#define HF_CONFIG_DECLARED_MAX 64

/** One plugin's declarations with their values. */
struct hf_config_declared_block;

/** Declared values a load resolved against its file, published with it. */
struct hf_config_declared_staged {
    struct hf_config_declared_block *blocks[HF_CONFIG_DECLARED_MAX]; /**< by plugin, or NULL */
    size_t count;                                                    /**< entries in blocks */
};

/**
 * Resolve every declared plugin's keys against @p state (file, then variables) into @p staged;
 * report unknown keys of their groups. Returns 0, or -EINVAL (logged, nothing kept). Store lock
 * held.
 */
int hf_config_declared_stage(const struct hf_config_state *state,
                             struct hf_config_declared_staged *staged);
/** Make @p staged what readers see, once the state it was resolved against is published. */
void hf_config_declared_publish(struct hf_config_declared_staged *staged);
/** Forget every plugin's declarations (hf_config_reset). Store lock held. */
void hf_config_declared_forget(void);

#endif
