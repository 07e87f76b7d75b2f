/*
 * What hipfile-check may ask about the settings: the core's table with every value and where it
 * came from, the keys plugins declare, and the config file searched for and read. Part of
 * introspect.h, which includes it.
 */
#ifndef HF_CORE_INTROSPECT_SETTINGS_H
#define HF_CORE_INTROSPECT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Environment variable @p name as the core reads it (NULL in set-user-ID programs). */
const char *hf_introspect_env(const char *name);
/** The config file the last load read or failed on; NULL when it used defaults. */
const char *hf_introspect_config_path(void);
/** What the last failed load failed on ("the config file X", "the environment variable Y"). */
const char *hf_introspect_config_failure(void);
/** Config files tried in order when HIPFILE_CONFIG is unset, NULL-terminated. */
const char *const *hf_introspect_config_search_path(void);

/** Where a value came from. */
enum hf_introspect_origin {
    HF_INTROSPECT_ORIGIN_DEFAULT, /**< the built-in or declared default */
    HF_INTROSPECT_ORIGIN_FILE,    /**< the config file (where: "file:line") */
    HF_INTROSPECT_ORIGIN_ENV,     /**< an environment variable (where: its name) */
    HF_INTROSPECT_ORIGIN_API,     /**< the parameter API */
};

/** What a setting holds. */
enum hf_introspect_kind {
    HF_INTROSPECT_INT,    /**< an integer (num) */
    HF_INTROSPECT_BOOL,   /**< true or false (num 0/1) */
    HF_INTROSPECT_STRING, /**< text or a name (text) */
    HF_INTROSPECT_LIST,   /**< plugins.enable: hf_introspect_enable_list */
    HF_INTROSPECT_MAP,    /**< plugins.priority: hf_introspect_priorities */
};

/** One setting of the core's table with its current value. */
struct hf_introspect_setting {
    const char *key;                  /**< dotted key */
    enum hf_introspect_kind kind;     /**< what it holds */
    const char *unit;                 /**< "KiB", "ms"... or "" */
    int64_t num;                      /**< value of an int or bool */
    const char *text;                 /**< value of a string or name */
    bool view;                        /**< a view of properties.compat_mode (no value of its own) */
    bool live;                        /**< may change while the driver is open */
    bool acts;                        /**< has an effect (false: accepted for compatibility) */
    const char *help;                 /**< one line */
    enum hf_introspect_origin origin; /**< where the value came from */
    const char *where;                /**< "file:line" or the variable; NULL otherwise */
};

/** Rows of the core's table. */
unsigned hf_introspect_setting_count(void);
/** Row @p index into *out: 0, or -ENOENT past the last. */
int hf_introspect_setting_at(unsigned index, struct hf_introspect_setting *out);

/** The settings the tool reasons about. */
enum hf_introspect_known {
    HF_INTROSPECT_GPU_RUNTIME,         /**< gpu.runtime */
    HF_INTROSPECT_PLUGINS_DIRECTORY,   /**< plugins.directory */
    HF_INTROSPECT_PLUGINS_ENABLE,      /**< plugins.enable */
    HF_INTROSPECT_COMPAT_MODE,         /**< properties.compat_mode */
    HF_INTROSPECT_ALLOW_SYSTEM_MEMORY, /**< properties.allow_system_memory */
};
/** Setting @p which into *out. */
void hf_introspect_setting_of(enum hf_introspect_known which, struct hf_introspect_setting *out);
/** Where @p which came from, in words for a message ("plugins.directory at FILE:LINE"). */
const char *hf_introspect_origin_text(enum hf_introspect_known which, char *buf, size_t size);

/** properties.compat_mode. */
enum hf_introspect_compat {
    HF_INTROSPECT_COMPAT_OFF,   /**< never the compat path */
    HF_INTROSPECT_COMPAT_ALLOW, /**< the compat path when no direct one serves */
    HF_INTROSPECT_COMPAT_FORCE, /**< only the compat path */
};
/** The effective compat mode. */
enum hf_introspect_compat hf_introspect_compat_mode(void);
/** plugins.enable as loaded into *names_p; 0 entries = every plugin. */
size_t hf_introspect_enable_list(const char *const **names_p);
/** Whether plugin @p name may be opened. */
bool hf_introspect_plugin_enabled(const char *name);
/** plugins.priority as loaded: names and priorities, returns the count. */
size_t hf_introspect_priorities(const char *const **names_p, const int **values_p);

/** One key a plugin declared for its group, with its value and where that came from. */
struct hf_introspect_plugin_key {
    const char *key;                  /**< "plugin.key" */
    enum hf_introspect_kind kind;     /**< INT, BOOL or STRING */
    const char *type;                 /**< "integer", "boolean" or "string" */
    const char *unit;                 /**< "KiB"... or "" */
    int64_t num;                      /**< value of an int or bool */
    const char *text;                 /**< value of a string; NULL when it has none */
    char value[256];                  /**< the value as the config file would write it */
    char accepts[256];                /**< what it accepts, as the core's messages say it */
    enum hf_introspect_origin origin; /**< default, file or environment */
    const char *where;                /**< "file:line" or the variable; NULL for the default */
    const char *env;                  /**< its variable, or NULL */
    bool live;                        /**< may change while the driver is open */
    const char *help;                 /**< one line */
};
/**
 * Key @p index of the table plugin @p plugin declared. Returns 0, -ENOENT past the last key, or
 * -ESRCH when the plugin declared no table (it predates ABI minor 5 or declares nothing).
 */
int hf_introspect_plugin_key_at(const char *plugin, unsigned index,
                                struct hf_introspect_plugin_key *out);

#endif
