/*
 * The settings table: one row per key, with the defaults and limits every input path enforces.
 * Sizes follow cuFile's cufile.json names and defaults where cuFile has the key, so a tuned
 * cufile.json translates key for key; docs/configuration.rst lists the same rows, and a test
 * checks that the two agree.
 */
#include "config/settings.h"

#include <hipfile.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"

#ifndef HF_DEFAULT_PLUGIN_DIR
#define HF_DEFAULT_PLUGIN_DIR "/usr/local/lib/hipfile/plugins"
#endif

/* One hipFileRead/Write moves at most 0x7ffff000 bytes, so a larger direct transfer is useless. */
#define MAX_TRANSFER_KIB (0x7ffff000 / 1024)

/*
 * libconfig 1.5 stores an integer literal without the L suffix in 32 bits, so every integer range
 * stays within INT_MAX: a literal that wrapped around then lands out of range and is reported
 * instead of silently becoming a different number.
 */
#define MAX_CONFIG_INT INT_MAX

static const char *const log_level_names[] = {"error", "warn", "info", "debug", NULL};
static const char *const compat_mode_names[] = {"off", "allow", "force", NULL};

static const char *check_any(const char *value)
{
    (void)value;
    return NULL;
}

static const char *check_gpu_runtime(const char *value)
{
    static const char *const names[] = {"auto", "hip", "cuda", "host"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(value, names[i]) == 0)
            return NULL;
    }
    /* Anything else is handed to dlopen, which takes a path or a shared-object name. */
    if (strchr(value, '/') != NULL || strstr(value, ".so") != NULL)
        return NULL;
    return "\"auto\", \"hip\", \"cuda\", \"host\" or the path of a HIP runtime library";
}

#define INT_ROW(k, u, def, lo, hi)                                                                 \
    .key = (k), .type = HF_TYPE_INT, .unit = (u), .default_int = (def), .min = (lo), .max = (hi)
#define BOOL_ROW(k, def)                                                                           \
    .key = (k), .type = HF_TYPE_BOOL, .unit = "", .default_int = (def), .max = 1
#define STRING_ROW(k, def) .key = (k), .type = HF_TYPE_STRING, .unit = "", .default_string = (def)
#define SIZE_PARAM(p) .param_kind = HF_PARAM_SIZE_T, .param = (p)
#define BOOL_PARAM(p) .param_kind = HF_PARAM_BOOL, .param = (p)
#define STRING_PARAM(p) .param_kind = HF_PARAM_STRING, .param = (p)

const struct hf_setting hf_settings[HF_SETTING_COUNT] = {
    [HF_SETTING_LOG_LEVEL] = {.key = "log.level",
                              .type = HF_TYPE_ENUM,
                              .unit = "",
                              .default_int = HF_LOG_WARN,
                              .max = HF_LOG_DEBUG,
                              .names = log_level_names,
                              .parse_enum = hf_log_level_parse,
                              STRING_PARAM(hipFileParamLoggingLevel),
                              .env = "HIPFILE_LOG_LEVEL",
                              .closed_only = true,
                              .help = "most verbose log level written (0-3 are accepted too)"},
    [HF_SETTING_LOG_FILE] = {STRING_ROW("log.file", ""), .check_string = check_any,
                             STRING_PARAM(hipFileParamEnvLogfilePath),
                             .env = "HIPFILE_LOGFILE_PATH", .is_path = true, .closed_only = true,
                             .help = "file log lines are appended to; empty = standard error"},
    [HF_SETTING_LOG_DIR] = {STRING_ROW("log.dir", ""), .check_string = check_any,
                            STRING_PARAM(hipFileParamLogDir), .is_path = true, .closed_only = true,
                            .help = "when log.file is empty: write hipfile_<pid>.log here"},
    [HF_SETTING_GPU_RUNTIME] = {STRING_ROW("gpu.runtime", "auto"),
                                .check_string = check_gpu_runtime, .env = "HIPFILE_GPU_RUNTIME",
                                .is_path = true,
                                .help = "HIP runtime: auto, hip, cuda, host or a library path"},
    [HF_SETTING_PLUGINS_DIRECTORY] = {STRING_ROW("plugins.directory", HF_DEFAULT_PLUGIN_DIR),
                                      .env = "HIPFILE_PLUGIN_DIR", .is_path = true,
                                      .help = "directory holding the plugin manifests (*.xml)"},
    [HF_SETTING_PLUGINS_ENABLE] = {.key = "plugins.enable",
                                   .type = HF_TYPE_LIST,
                                   .unit = "",
                                   .env = "HIPFILE_PLUGINS",
                                   .help = "plugins that may be opened; empty = every plugin"},
    [HF_SETTING_PLUGINS_PRIORITY] = {.key = "plugins.priority",
                                     .type = HF_TYPE_MAP,
                                     .unit = "",
                                     .min = INT_MIN,
                                     .max = INT_MAX,
                                     .help = "name = priority; overrides the manifest's priority"},
    [HF_SETTING_COMPAT_MODE] = {.key = "properties.compat_mode",
                                .type = HF_TYPE_ENUM,
                                .unit = "",
                                .default_int = 1,
                                .max = 2,
                                .names = compat_mode_names,
                                .live = true,
                                .help =
                                    "POSIX fallback: off, allow (when no direct path) or force"},
    [HF_SETTING_ALLOW_COMPAT_MODE] = {BOOL_ROW("properties.allow_compat_mode", 1),
                                      BOOL_PARAM(hipFileParamPropertiesAllowCompatMode),
                                      .env = "HIPFILE_ALLOW_COMPAT_MODE",
                                      .view = HF_VIEW_COMPAT_ALLOW, .live = true,
                                      .help = "cuFile spelling: false sets compat_mode = off"},
    [HF_SETTING_FORCE_COMPAT_MODE] = {BOOL_ROW("properties.force_compat_mode", 0),
                                      BOOL_PARAM(hipFileParamForceCompatMode),
                                      .env = "HIPFILE_FORCE_COMPAT_MODE",
                                      .view = HF_VIEW_COMPAT_FORCE, .live = true,
                                      .help = "cuFile spelling: true sets compat_mode = force"},
    [HF_SETTING_MAX_DIRECT_IO_SIZE_KB] = {INT_ROW("properties.max_direct_io_size_kb", "KiB", 16384,
                                                  4, MAX_TRANSFER_KIB),
                                          SIZE_PARAM(hipFileParamPropertiesMaxDirectIOSizeKB),
                                          .live = true,
                                          .no_effect = "stored and reported as "
                                                       "nvfs.max_direct_io_size; no backend "
                                                       "bounds its direct transfers by it yet",
                                          .help = "largest single direct transfer"},
    [HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB] = {INT_ROW("properties.max_device_cache_size_kb", "KiB",
                                                     131072, 1024, MAX_CONFIG_INT),
                                             SIZE_PARAM(hipFileParamPropertiesMaxDeviceCacheSizeKB),
                                             .live = true,
                                             .help = "staging memory per GPU: bounds the "
                                                     "fallback's slots (2 buffers each)"},
    [HF_SETTING_PER_BUFFER_CACHE_SIZE_KB] = {INT_ROW("properties.per_buffer_cache_size_kb", "KiB",
                                                     4096, 4, 1048576),
                                             .multiple = 4,
                                             SIZE_PARAM(hipFileParamPropertiesPerBufferCacheSizeKB),
                                             .help = "size of one staging buffer (the fallback's "
                                                     "chunk unless fallback.chunk_size_kb is set)"},
    [HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB] =
        {INT_ROW("properties.max_device_pinned_mem_size_kb", "KiB", 33554432, 1024, MAX_CONFIG_INT),
         SIZE_PARAM(hipFileParamPropertiesMaxDevicePinnedMemSizeKB), .live = true,
         .help = "cap on pinned memory per GPU, staging buffers included"},
    [HF_SETTING_ALLOW_SYSTEM_MEMORY] = {BOOL_ROW("properties.allow_system_memory", 0),
                                        BOOL_PARAM(hipFileParamPropertiesAllowSystemMemory),
                                        .live = true,
                                        .help = "accept host (pinned, pageable, managed) buffers"},
    [HF_SETTING_USE_POLL_MODE] = {BOOL_ROW("properties.use_poll_mode", 0),
                                  BOOL_PARAM(hipFileParamPropertiesUsePollMode), .live = true,
                                  .no_effect = "stored and reported in driver_control_flags; "
                                               "completions are always waited for",
                                  .help = "poll for completion of small I/O instead of sleeping"},
    [HF_SETTING_POLL_MODE_MAX_SIZE_KB] = {INT_ROW("properties.poll_mode_max_size_kb", "KiB", 4, 0,
                                                  1048576),
                                          SIZE_PARAM(hipFileParamPollthresholdSizeKB), .live = true,
                                          .no_effect = "stored and reported as "
                                                       "nvfs.poll_thresh_size",
                                          .help = "largest I/O that is polled in poll mode"},
    [HF_SETTING_MAX_BATCH_IO_COUNT] = {INT_ROW("properties.max_batch_io_count", "entries", 128, 1,
                                               1024),
                                       .env = "HIPFILE_MAX_BATCH_IO_COUNT", .live = true,
                                       .help = "largest max_nr hipFileBatchIOSetUp accepts"},
    [HF_SETTING_BATCH_IO_TIMEOUT_MS] = {INT_ROW("properties.batch_io_timeout_ms", "ms", 5, 1,
                                                3600000),
                                        SIZE_PARAM(hipFileParamPropertiesBatchIOTimeoutMs),
                                        .live = true,
                                        .no_effect = "reported as max_batch_io_timeout_msecs; "
                                                     "hipFileBatchIOGetStatus waits as long as "
                                                     "its own timeout says",
                                        .help = "batch completion timeout reported by the driver"},
    [HF_SETTING_IO_BATCHSIZE] = {INT_ROW("properties.io_batchsize", "entries", 128, 1, 1024),
                                 SIZE_PARAM(hipFileParamPropertiesIOBatchsize), .live = true,
                                 .no_effect = "stored; batch entries go to the executor as they "
                                              "are submitted",
                                 .help = "most batch entries handed to the executor at once"},
    [HF_SETTING_USE_PCI_P2PDMA] = {BOOL_ROW("properties.use_pci_p2pdma", 0),
                                   BOOL_PARAM(hipFileParamUsePcip2pdma), .closed_only = true,
                                   .no_effect = "stored; no backend built here uses P2PDMA",
                                   .help = "use the kernel's PCI P2PDMA where a backend can"},
    [HF_SETTING_PREFER_IO_URING] = {BOOL_ROW("properties.prefer_io_uring", 0),
                                    BOOL_PARAM(hipFileParamPreferIOUring), .live = true,
                                    .no_effect = "stored; the fallback's thread-pool I/O "
                                                 "measured faster than io_uring",
                                    .help = "prefer io_uring over thread-pool POSIX I/O"},
    [HF_SETTING_FORCE_ODIRECT_MODE] = {BOOL_ROW("properties.force_odirect_mode", 0),
                                       BOOL_PARAM(hipFileParamForceOdirectMode), .live = true,
                                       .help = "read every aligned range with O_DIRECT, cached "
                                               "or not (fallback.direct_io = \"always\")"},
    [HF_SETTING_SKIP_TOPOLOGY_DETECTION] = {BOOL_ROW("properties.skip_topology_detection", 0),
                                            BOOL_PARAM(hipFileParamSkipTopologyDetection),
                                            .live = true,
                                            .no_effect = "stored; no PCIe topology is discovered",
                                            .help = "skip PCIe topology discovery"},
    [HF_SETTING_STREAM_MEMOPS_BYPASS] = {BOOL_ROW("properties.stream_memops_bypass", 0),
                                         BOOL_PARAM(hipFileParamStreamMemopsBypass), .live = true,
                                         .help = "order async I/O without stream memory ops"},
    [HF_SETTING_MAX_IO_THREADS] = {INT_ROW("execution.max_io_threads", "threads", 16, 1, 1024),
                                   SIZE_PARAM(hipFileParamExecutionMaxIOThreads),
                                   .help = "worker threads of the executor"},
    [HF_SETTING_MAX_IO_QUEUE_DEPTH] = {INT_ROW("execution.max_io_queue_depth", "items", 128, 1,
                                               65536),
                                       SIZE_PARAM(hipFileParamExecutionMaxIOQueueDepth),
                                       .live = true,
                                       .no_effect = "stored; the executor's queue has no bound, "
                                                    "so submitters never block",
                                       .help = "work items the executor queues before blocking"},
    [HF_SETTING_PARALLEL_IO] = {BOOL_ROW("execution.parallel_io", 1),
                                BOOL_PARAM(hipFileParamExecutionParallelIO), .live = true,
                                .help = "split large requests across the executor's workers"},
    [HF_SETTING_MIN_IO_THRESHOLD_SIZE_KB] =
        {INT_ROW("execution.min_io_threshold_size_kb", "KiB", 1024, 4, 1048576), .multiple = 4,
         SIZE_PARAM(hipFileParamExecutionMinIOThresholdSizeKB), .live = true,
         .help = "smallest piece a request is split into"},
    [HF_SETTING_MAX_REQUEST_PARALLELISM] = {INT_ROW("execution.max_request_parallelism", "pieces",
                                                    64, 1, 1024),
                                            SIZE_PARAM(hipFileParamExecutionMaxRequestParallelism),
                                            .live = true,
                                            .help = "most pieces one request is split into"},
    [HF_SETTING_STREAM_PREPARE_AT_OPEN] = {BOOL_ROW("execution.stream_prepare_at_open", 1),
                                           .help = "make the current GPU's staging for async "
                                                   "I/O when the driver opens"},
    [HF_SETTING_IDLE_POLLERS] = {INT_ROW("execution.idle_pollers", "threads", -1, -1, 1024),
                                 .help = "idle workers that poll for work before sleeping; -1 = "
                                         "one fewer than the CPUs on machines of 8 or more, "
                                         "else none"},
    [HF_SETTING_PROFILE_STATS] = {INT_ROW("profile.stats", "", 1, 0, 3),
                                  SIZE_PARAM(hipFileParamProfileStats),
                                  .env = "HIPFILE_STATS_LEVEL", .live = true,
                                  .help = "statistics level: 0 = none, 1-3 = levels L1-L3"},
    [HF_SETTING_PROFILE_NVTX] = {BOOL_ROW("profile.nvtx", 0), BOOL_PARAM(hipFileParamProfileNvtx),
                                 .live = true,
                                 .no_effect = "stored; no profiler annotations are emitted",
                                 .help = "emit profiler range annotations"},
    [HF_SETTING_PROFILE_STATS_REPORT] = {STRING_ROW("profile.stats_report", ""),
                                         .check_string = check_any, .env = "HIPFILE_STATS_REPORT",
                                         .is_path = true, .live = true,
                                         .help = "at exit, append the statistics to this file; "
                                                 "empty = no report"},
    [HF_SETTING_API_CHECK_AGGRESSIVE] = {BOOL_ROW("fs.misc.api_check_aggressive", 0),
                                         BOOL_PARAM(hipFileParamFsMiscApiCheckAggressive),
                                         .live = true,
                                         .no_effect = "stored; every call already checks all of "
                                                      "its arguments",
                                         .help = "extra argument checks in every API call"},
};

bool hf_setting_path_is_relative(const struct hf_setting *s, const char *value)
{
    if (!s->is_path || value == NULL || value[0] == '\0' || value[0] == '/')
        return false;
    /* A runtime name ("hip") or a bare soname is looked up by dlopen, not taken as a path. */
    if (hf_setting_id_of(s) == HF_SETTING_GPU_RUNTIME)
        return strchr(value, '/') != NULL;
    return true;
}

/* Groups whose every key is in the table; any other top-level group belongs to a plugin. */
static const char *const core_groups[] = {"log",       "gpu",     "plugins", "properties",
                                          "execution", "profile", "fs"};

const struct hf_setting *hf_setting_find(const char *key)
{
    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        if (strcmp(hf_settings[i].key, key) == 0)
            return &hf_settings[i];
    }
    return NULL;
}

enum hf_setting_id hf_setting_id_of(const struct hf_setting *setting)
{
    return (enum hf_setting_id)(setting - hf_settings);
}

const struct hf_setting *hf_setting_by_param(enum hf_param_kind kind, int param)
{
    if (kind == HF_PARAM_NONE)
        return NULL;
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        if (hf_settings[i].param_kind == kind && hf_settings[i].param == param)
            return &hf_settings[i];
    }
    return NULL;
}

bool hf_setting_group_is_core(const char *group)
{
    for (size_t i = 0; i < sizeof(core_groups) / sizeof(core_groups[0]); i++) {
        if (strcmp(core_groups[i], group) == 0)
            return true;
    }
    return false;
}

bool hf_setting_is_group(const char *prefix)
{
    size_t len = strlen(prefix);
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        const char *key = hf_settings[i].key;
        if (strncmp(key, prefix, len) == 0 && key[len] == '.')
            return true;
    }
    return false;
}

int hf_setting_parse_enum(const struct hf_setting *s, const char *text)
{
    int index = -1;
    if (s->parse_enum != NULL) {
        index = s->parse_enum(text);
    } else {
        for (int i = 0; s->names[i] != NULL; i++) {
            if (strcasecmp(s->names[i], text) == 0)
                index = i;
        }
    }
    return index >= s->min && index <= s->max ? index : -1;
}

int hf_setting_parse_bool(const char *text)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(text, yes[i]) == 0)
            return 1;
        if (strcasecmp(text, no[i]) == 0)
            return 0;
    }
    return -1;
}

bool hf_setting_int_ok(const struct hf_setting *s, int64_t value)
{
    return value >= s->min && value <= s->max && (s->multiple <= 1 || value % s->multiple == 0);
}

bool hf_setting_string_ok(const struct hf_setting *s, const char *text)
{
    if (s->check_string != NULL)
        return s->check_string(text) == NULL;
    return text[0] != '\0';
}

const char *hf_setting_describe(const struct hf_setting *s, char *buf, size_t size)
{
    switch (s->type) {
    case HF_TYPE_INT:
        if (s->multiple > 1)
            snprintf(buf, size, "a multiple of %lld from %lld to %lld%s%s%s",
                     (long long)s->multiple, (long long)s->min, (long long)s->max,
                     s->unit[0] ? " (" : "", s->unit, s->unit[0] ? ")" : "");
        else
            snprintf(buf, size, "an integer from %lld to %lld%s%s%s", (long long)s->min,
                     (long long)s->max, s->unit[0] ? " (" : "", s->unit, s->unit[0] ? ")" : "");
        return buf;
    case HF_TYPE_BOOL:
        return "true or false";
    case HF_TYPE_STRING: {
        /* A checker's complaint about the empty string is the full list of what it accepts. */
        const char *phrase = s->check_string != NULL ? s->check_string("") : NULL;
        if (phrase != NULL)
            return phrase;
        return s->check_string != NULL ? "a string" : "a non-empty string";
    }
    case HF_TYPE_ENUM: {
        size_t used = (size_t)snprintf(buf, size, "one of");
        for (int i = 0; s->names[i] != NULL && used < size; i++)
            used +=
                (size_t)snprintf(buf + used, size - used, "%s \"%s\"", i ? "," : "", s->names[i]);
        return buf;
    }
    case HF_TYPE_LIST:
        return "a list of plugin names, e.g. [\"fallback\"]";
    case HF_TYPE_MAP:
        return "a group of plugin-name = integer entries";
    }
    return "?";
}

int64_t hf_setting_compat_after_view(int64_t mode, enum hf_setting_view view, bool on)
{
    if (view == HF_VIEW_COMPAT_ALLOW) {
        if (!on)
            return HF_COMPAT_OFF;
        return mode == HF_COMPAT_OFF ? HF_COMPAT_ALLOW : mode;
    }
    if (on)
        return HF_COMPAT_FORCE;
    return mode == HF_COMPAT_FORCE ? HF_COMPAT_ALLOW : mode;
}
