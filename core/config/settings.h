/*
 * The settings table: every key the core knows, with its type, unit, default, range, environment
 * variable and hipFileParam* counterpart. The config file, the environment, the parameter API and
 * hipFileDriverSet* all go through this one table (settings.c); the values live in config_store.c.
 */
#ifndef HF_CORE_SETTINGS_H
#define HF_CORE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipfile/backend.h"

/** Compatibility (POSIX fallback) policy, properties.compat_mode. */
enum hf_compat_mode {
    HF_COMPAT_OFF = 0,   /**< never fall back to the compat path */
    HF_COMPAT_ALLOW = 1, /**< fall back when a direct path cannot serve (default) */
    HF_COMPAT_FORCE = 2, /**< serve everything through the compat path */
};

/** Room for the longest dotted key looked up; a longer one cannot be in the table. */
#define HF_SETTING_KEY_MAX 256

/** Identifies one row of the table; the order is the table's order. */
enum hf_setting_id {
    HF_SETTING_LOG_LEVEL,                     /**< log.level */
    HF_SETTING_LOG_FILE,                      /**< log.file */
    HF_SETTING_LOG_DIR,                       /**< log.dir */
    HF_SETTING_GPU_RUNTIME,                   /**< gpu.runtime */
    HF_SETTING_PLUGINS_DIRECTORY,             /**< plugins.directory */
    HF_SETTING_PLUGINS_ENABLE,                /**< plugins.enable */
    HF_SETTING_PLUGINS_PRIORITY,              /**< plugins.priority */
    HF_SETTING_COMPAT_MODE,                   /**< properties.compat_mode */
    HF_SETTING_ALLOW_COMPAT_MODE,             /**< properties.allow_compat_mode (view) */
    HF_SETTING_FORCE_COMPAT_MODE,             /**< properties.force_compat_mode (view) */
    HF_SETTING_MAX_DIRECT_IO_SIZE_KB,         /**< properties.max_direct_io_size_kb */
    HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB,      /**< properties.max_device_cache_size_kb */
    HF_SETTING_PER_BUFFER_CACHE_SIZE_KB,      /**< properties.per_buffer_cache_size_kb */
    HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB, /**< properties.max_device_pinned_mem_size_kb */
    HF_SETTING_ALLOW_SYSTEM_MEMORY,           /**< properties.allow_system_memory */
    HF_SETTING_USE_POLL_MODE,                 /**< properties.use_poll_mode */
    HF_SETTING_POLL_MODE_MAX_SIZE_KB,         /**< properties.poll_mode_max_size_kb */
    HF_SETTING_MAX_BATCH_IO_COUNT,            /**< properties.max_batch_io_count */
    HF_SETTING_BATCH_IO_TIMEOUT_MS,           /**< properties.batch_io_timeout_ms */
    HF_SETTING_IO_BATCHSIZE,                  /**< properties.io_batchsize */
    HF_SETTING_USE_PCI_P2PDMA,                /**< properties.use_pci_p2pdma */
    HF_SETTING_PREFER_IO_URING,               /**< properties.prefer_io_uring */
    HF_SETTING_FORCE_ODIRECT_MODE,            /**< properties.force_odirect_mode */
    HF_SETTING_SKIP_TOPOLOGY_DETECTION,       /**< properties.skip_topology_detection */
    HF_SETTING_STREAM_MEMOPS_BYPASS,          /**< properties.stream_memops_bypass */
    HF_SETTING_MAX_IO_THREADS,                /**< execution.max_io_threads */
    HF_SETTING_MAX_IO_QUEUE_DEPTH,            /**< execution.max_io_queue_depth */
    HF_SETTING_PARALLEL_IO,                   /**< execution.parallel_io */
    HF_SETTING_MIN_IO_THRESHOLD_SIZE_KB,      /**< execution.min_io_threshold_size_kb */
    HF_SETTING_MAX_REQUEST_PARALLELISM,       /**< execution.max_request_parallelism */
    HF_SETTING_STREAM_PREPARE_AT_OPEN,        /**< execution.stream_prepare_at_open */
    HF_SETTING_IDLE_POLLERS,                  /**< execution.idle_pollers */
    HF_SETTING_PROFILE_STATS,                 /**< profile.stats */
    HF_SETTING_PROFILE_NVTX,                  /**< profile.nvtx */
    HF_SETTING_PROFILE_STATS_REPORT,          /**< profile.stats_report */
    HF_SETTING_API_CHECK_AGGRESSIVE,          /**< fs.misc.api_check_aggressive */
    HF_SETTING_COUNT                          /**< number of rows */
};

/**
 * What a setting holds, as the checks and messages see it: derived from its declaration's type
 * (hf_setting_type), where a string with a list of names is an enum.
 */
enum hf_setting_type {
    HF_TYPE_INT,    /**< integer (sizes, counts, times), stored as int64_t */
    HF_TYPE_BOOL,   /**< true/false */
    HF_TYPE_STRING, /**< text (paths, names) */
    HF_TYPE_ENUM,   /**< one name out of decl.names, stored as its index */
    HF_TYPE_LIST,   /**< list of strings (plugins.enable); kept with the file, not in the store */
    HF_TYPE_MAP,    /**< group of name = integer (plugins.priority); kept with the file */
};

/** Declaration types only the core's table uses, beyond the HF_DECL_* a backend may declare. */
enum hf_setting_core_decl_type {
    HF_DECL_LIST = 16, /**< HF_TYPE_LIST */
    HF_DECL_MAP = 17,  /**< HF_TYPE_MAP */
};

/** Which hipFile*ConfigParameter_t enum (if any) reaches a setting. */
enum hf_param_kind {
    HF_PARAM_NONE = 0, /**< no parameter-API counterpart */
    HF_PARAM_SIZE_T,   /**< hipFileSizeTConfigParameter_t */
    HF_PARAM_BOOL,     /**< hipFileBoolConfigParameter_t */
    HF_PARAM_STRING,   /**< hipFileStringConfigParameter_t */
};

/**
 * Settings that store nothing themselves and read or write another one. cuFile users know
 * compatibility mode as two booleans (allow_compat_mode, force_compat_mode) while the core needs
 * one three-way mode; the booleans are views of properties.compat_mode so the two can never
 * disagree.
 */
enum hf_setting_view {
    HF_VIEW_NONE = 0,     /**< an ordinary setting */
    HF_VIEW_COMPAT_ALLOW, /**< true = compat_mode is allow or force; false sets it to off */
    HF_VIEW_COMPAT_FORCE, /**< true = compat_mode is force; false turns force into allow */
};

/**
 * One setting: its declaration, in the shape a backend declares its own keys in (key, type, unit,
 * default, range, names, variable, live, help; plugin keys are rows of this type too, keyed
 * "plugin.key"), and what only the core's own settings have.
 */
struct hf_setting {
    struct hf_setting_decl decl; /**< what a backend could declare about it as well */
    /** Parser for an enum setting that accepts more spellings than its names; NULL = names only.
     * Returns the index, or -1. */
    int (*parse_enum)(const char *text);
    /** Extra validation of a string setting; NULL = any string. Returns NULL when @p value is
     * fine, else a phrase saying what is allowed. */
    const char *(*check_string)(const char *value);
    enum hf_param_kind param_kind; /**< parameter-API enum reaching it */
    int param;                     /**< value in that enum */
    enum hf_setting_view view;     /**< HF_VIEW_NONE unless it mirrors another setting */
    /**
     * A file-system path: relative values in the config file are taken from the file's directory;
     * relative values from the environment or the parameter API are refused. The current
     * directory never takes part.
     */
    bool is_path;
    /**
     * Not live, yet read by no setup either: the parameter API changes it only while the driver
     * is closed and refuses it with hipFileDriverAlreadyOpen while the driver is open, as cuFile
     * does for its string parameters and use_pci_p2pdma. The config file and environment still
     * reach it on every load. (Settings that are not decl.live are read once by the first
     * hipFileDriverOpen; setting one through the parameter API afterwards is refused.)
     */
    bool closed_only;
    /** NULL when the setting acts; else what it does (accepted for compatibility, stored,
     * reported) and why no more, for the documentation. */
    const char *no_effect;
};

/** The table, indexed by enum hf_setting_id. */
extern const struct hf_setting hf_settings[HF_SETTING_COUNT];

/** Row for dotted @p key, or NULL. */
const struct hf_setting *hf_setting_find(const char *key);
/** Id of a row (its index in hf_settings). */
enum hf_setting_id hf_setting_id_of(const struct hf_setting *setting);
/** Row reached by parameter @p param of enum @p kind, or NULL when there is none. */
const struct hf_setting *hf_setting_by_param(enum hf_param_kind kind, int param);
/** Whether @p group (a top-level config group name) belongs to the core rather than a plugin. */
bool hf_setting_group_is_core(const char *group);
/** Whether @p prefix ("fs.misc") is a group some key of the table lives in, at any depth. */
bool hf_setting_is_group(const char *prefix);

/** Index of @p text among enum setting @p s's values (any case, or its own parser), or -1. */
int hf_setting_parse_enum(const struct hf_setting *s, const char *text);
/** 1 for true/yes/on/1, 0 for false/no/off/0 (any case), -1 for anything else. */
int hf_setting_parse_bool(const char *text);
/** What @p s holds: its declaration's type, with a named string an enum. */
static inline enum hf_setting_type hf_setting_type(const struct hf_setting *s)
{
    switch (s->decl.type) {
    case HF_DECL_INT:
        return HF_TYPE_INT;
    case HF_DECL_BOOL:
        return HF_TYPE_BOOL;
    case HF_DECL_LIST:
        return HF_TYPE_LIST;
    case HF_DECL_MAP:
        return HF_TYPE_MAP;
    default:
        return s->decl.names != NULL && s->decl.names[0] != NULL ? HF_TYPE_ENUM : HF_TYPE_STRING;
    }
}
/** @p s's unit, "" when it has none. */
const char *hf_setting_unit(const struct hf_setting *s);
/** Whether @p value is within int setting @p s's range and a multiple of its granule. */
bool hf_setting_int_ok(const struct hf_setting *s, int64_t value);
/**
 * Whether @p value of path setting @p s is a relative path: never for settings that are not paths,
 * empty values, or runtime names and bare library names of gpu.runtime.
 */
bool hf_setting_path_is_relative(const struct hf_setting *s, const char *value);
/** Whether @p text is an acceptable value of string setting @p s. */
bool hf_setting_string_ok(const struct hf_setting *s, const char *text);
/** What @p s accepts, in words, for error messages ("an integer from 4 to 2097148 (KiB)"); the
 * result is @p buf or a constant string. */
const char *hf_setting_describe(const struct hf_setting *s, char *buf, size_t size);
/** properties.compat_mode once view @p view of it is set to @p on, starting from @p mode. */
int64_t hf_setting_compat_after_view(int64_t mode, enum hf_setting_view view, bool on);

#endif
