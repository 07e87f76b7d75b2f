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
#include "hipfile/plugin_kit.h"

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

static const char *check_non_empty(const char *value)
{
    return value[0] != '\0' ? NULL : "a non-empty string";
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

/* An enum: a string declared with its names, stored as the index of one (@p index_ the default). */
#define HF_ENUM_SETTING(key_, index_, names_, help_)                                               \
    .key = (key_), .type = HF_DECL_STRING, .default_int = (index_), .names = (names_),             \
    .help = (help_)
#define SIZE_PARAM(p) .param_kind = HF_PARAM_SIZE_T, .param = (p)
#define BOOL_PARAM(p) .param_kind = HF_PARAM_BOOL, .param = (p)
#define STRING_PARAM(p) .param_kind = HF_PARAM_STRING, .param = (p)

const struct hf_setting hf_settings[HF_SETTING_COUNT] = {
    [HF_SETTING_LOG_LEVEL] = {.decl = {HF_ENUM_SETTING(
                                           "log.level", HF_LOG_WARN, log_level_names,
                                           "most verbose log level written (0-3 are accepted too)"),
                                       .env = "HIPFILE_LOG_LEVEL"},
                              STRING_PARAM(hipFileParamLoggingLevel),
                              .parse_enum = hf_log_level_parse,
                              .closed_only = true},
    [HF_SETTING_LOG_FILE] = {.decl = {HFP_STRING_SETTING(
                                          "log.file", "", NULL,
                                          "file log lines are appended to; empty = standard error"),
                                      .env = "HIPFILE_LOGFILE_PATH"},
                             STRING_PARAM(hipFileParamEnvLogfilePath),
                             .is_path = true,
                             .closed_only = true},
    [HF_SETTING_LOG_DIR] = {.decl = {HFP_STRING_SETTING(
                                "log.dir", "", NULL,
                                "when log.file is empty: write hipfile_<pid>.log here")},
                            STRING_PARAM(hipFileParamLogDir),
                            .is_path = true,
                            .closed_only = true},
    [HF_SETTING_GPU_RUNTIME] =
        {.decl = {HFP_STRING_SETTING("gpu.runtime", "auto", NULL,
                                     "HIP runtime: auto, hip, cuda, host or a library path"),
                  .env = "HIPFILE_GPU_RUNTIME"},
         .check_string = check_gpu_runtime,
         .is_path = true},
    [HF_SETTING_PLUGINS_DIRECTORY] =
        {.decl = {HFP_STRING_SETTING("plugins.directory", HF_DEFAULT_PLUGIN_DIR, NULL,
                                     "directory holding the plugin manifests (*.xml)"),
                  .env = "HIPFILE_PLUGIN_DIR"},
         .check_string = check_non_empty,
         .is_path = true},
    [HF_SETTING_PLUGINS_ENABLE] = {.decl = {.key = "plugins.enable",
                                            .type = HF_DECL_LIST,
                                            .help =
                                                "plugins that may be opened; empty = every plugin",
                                            .env = "HIPFILE_PLUGINS"}},
    [HF_SETTING_PLUGINS_PRIORITY] =
        {.decl = {.key = "plugins.priority",
                  .type = HF_DECL_MAP,
                  .min = INT_MIN,
                  .max = INT_MAX,
                  .help = "name = priority; overrides the manifest's priority"}},
    [HF_SETTING_COMPAT_MODE] =
        {.decl = {HF_ENUM_SETTING("properties.compat_mode", 1, compat_mode_names,
                                  "POSIX fallback: off, allow (when no direct path) or force"),
                  .live = true}},
    [HF_SETTING_ALLOW_COMPAT_MODE] = {.decl = {HFP_BOOL_SETTING(
                                                   "properties.allow_compat_mode", 1,
                                                   "cuFile spelling: false sets compat_mode = off"),
                                               .env = "HIPFILE_ALLOW_COMPAT_MODE", .live = true},
                                      BOOL_PARAM(hipFileParamPropertiesAllowCompatMode),
                                      .view = HF_VIEW_COMPAT_ALLOW},
    [HF_SETTING_FORCE_COMPAT_MODE] =
        {.decl = {HFP_BOOL_SETTING("properties.force_compat_mode", 0,
                                   "cuFile spelling: true sets compat_mode = force"),
                  .env = "HIPFILE_FORCE_COMPAT_MODE", .live = true},
         BOOL_PARAM(hipFileParamForceCompatMode),
         .view = HF_VIEW_COMPAT_FORCE},
    [HF_SETTING_MAX_DIRECT_IO_SIZE_KB] =
        {.decl = {HFP_INT_SETTING("properties.max_direct_io_size_kb", 16384, 4, MAX_TRANSFER_KIB,
                                  "KiB", "largest single direct transfer"),
                  .live = true},
         SIZE_PARAM(hipFileParamPropertiesMaxDirectIOSizeKB),
         .no_effect = "stored and reported as "
                      "nvfs.max_direct_io_size; no backend "
                      "bounds its direct transfers by it yet"},
    [HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB] =
        {.decl = {HFP_INT_SETTING("properties.max_device_cache_size_kb", 131072,
                                  1024, MAX_CONFIG_INT, "KiB",
                                  "staging memory per GPU: bounds the "
                                  "fallback's slots (2 buffers each)"),
                  .live = true},
         SIZE_PARAM(hipFileParamPropertiesMaxDeviceCacheSizeKB)},
    [HF_SETTING_PER_BUFFER_CACHE_SIZE_KB] =
        {.decl = {HFP_INT_SETTING("properties.per_buffer_cache_size_kb", 4096, 4, 1048576, "KiB",
                                  "size of one staging buffer (the fallback's "
                                  "chunk unless fallback.chunk_size_kb is set)"),
                  .multiple = 4},
         SIZE_PARAM(hipFileParamPropertiesPerBufferCacheSizeKB)},
    [HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB] =
        {.decl = {HFP_INT_SETTING("properties.max_device_pinned_mem_size_kb", 33554432,
                                  1024, MAX_CONFIG_INT, "KiB",
                                  "cap on pinned memory per GPU, staging buffers included; "
                                  "at most an eighth of the memory the process may use, "
                                  "shared by its GPUs"),
                  .live = true},
         SIZE_PARAM(hipFileParamPropertiesMaxDevicePinnedMemSizeKB)},
    [HF_SETTING_ALLOW_SYSTEM_MEMORY] =
        {.decl = {HFP_BOOL_SETTING("properties.allow_system_memory", 0,
                                   "accept host (pinned, pageable, managed) buffers"),
                  .live = true},
         BOOL_PARAM(hipFileParamPropertiesAllowSystemMemory)},
    [HF_SETTING_USE_POLL_MODE] =
        {.decl = {HFP_BOOL_SETTING("properties.use_poll_mode", 0,
                                   "poll for completion of small I/O instead of sleeping"),
                  .live = true},
         BOOL_PARAM(hipFileParamPropertiesUsePollMode),
         .no_effect = "stored and reported in driver_control_flags; "
                      "completions are always waited for"},
    [HF_SETTING_POLL_MODE_MAX_SIZE_KB] =
        {.decl = {HFP_INT_SETTING("properties.poll_mode_max_size_kb", 4, 0, 1048576, "KiB",
                                  "largest I/O that is polled in poll mode"),
                  .live = true},
         SIZE_PARAM(hipFileParamPollthresholdSizeKB),
         .no_effect = "stored and reported as "
                      "nvfs.poll_thresh_size"},
    [HF_SETTING_MAX_BATCH_IO_COUNT] =
        {.decl = {HFP_INT_SETTING("properties.max_batch_io_count", 128, 1, 1024, "entries",
                                  "largest max_nr hipFileBatchIOSetUp accepts"),
                  .env = "HIPFILE_MAX_BATCH_IO_COUNT", .live = true}},
    [HF_SETTING_BATCH_IO_TIMEOUT_MS] =
        {.decl = {HFP_INT_SETTING("properties.batch_io_timeout_ms", 5, 1, 3600000,
                                  "ms", "batch completion timeout reported by the driver"),
                  .live = true},
         SIZE_PARAM(hipFileParamPropertiesBatchIOTimeoutMs),
         .no_effect = "reported as max_batch_io_timeout_msecs; "
                      "hipFileBatchIOGetStatus waits as long as "
                      "its own timeout says"},
    [HF_SETTING_IO_BATCHSIZE] = {.decl = {HFP_INT_SETTING(
                                              "properties.io_batchsize", 128, 1, 1024, "entries",
                                              "most batch entries handed to the executor at once"),
                                          .live = true},
                                 SIZE_PARAM(hipFileParamPropertiesIOBatchsize),
                                 .no_effect = "stored; batch entries go to the executor as they "
                                              "are submitted"},
    [HF_SETTING_USE_PCI_P2PDMA] = {.decl = {HFP_BOOL_SETTING(
                                       "properties.use_pci_p2pdma", 0,
                                       "use the kernel's PCI P2PDMA where a backend can")},
                                   BOOL_PARAM(hipFileParamUsePcip2pdma),
                                   .closed_only = true,
                                   .no_effect = "stored; no backend built here uses P2PDMA"},
    [HF_SETTING_PREFER_IO_URING] = {.decl = {HFP_BOOL_SETTING(
                                                 "properties.prefer_io_uring", 0,
                                                 "prefer io_uring over thread-pool POSIX I/O"),
                                             .live = true},
                                    BOOL_PARAM(hipFileParamPreferIOUring),
                                    .no_effect = "stored; the fallback's thread-pool I/O "
                                                 "measured faster than io_uring"},
    [HF_SETTING_FORCE_ODIRECT_MODE] =
        {.decl = {HFP_BOOL_SETTING("properties.force_odirect_mode", 0,
                                   "read every aligned range with O_DIRECT, cached "
                                   "or not (fallback.direct_io = \"always\")"),
                  .live = true},
         BOOL_PARAM(hipFileParamForceOdirectMode)},
    [HF_SETTING_SKIP_TOPOLOGY_DETECTION] = {.decl = {HFP_BOOL_SETTING(
                                                         "properties.skip_topology_detection", 0,
                                                         "skip PCIe topology discovery"),
                                                     .live = true},
                                            BOOL_PARAM(hipFileParamSkipTopologyDetection),
                                            .no_effect = "stored; no PCIe topology is discovered"},
    [HF_SETTING_STREAM_MEMOPS_BYPASS] = {.decl = {HFP_BOOL_SETTING(
                                                      "properties.stream_memops_bypass", 0,
                                                      "order async I/O without stream memory ops"),
                                                  .live = true},
                                         BOOL_PARAM(hipFileParamStreamMemopsBypass)},
    [HF_SETTING_MAX_IO_THREADS] = {.decl = {HFP_INT_SETTING("execution.max_io_threads", 16, 1, 1024,
                                                            "threads",
                                                            "worker threads of the executor")},
                                   SIZE_PARAM(hipFileParamExecutionMaxIOThreads)},
    [HF_SETTING_MAX_IO_QUEUE_DEPTH] =
        {.decl = {HFP_INT_SETTING("execution.max_io_queue_depth", 128, 1, 65536, "items",
                                  "work items the executor queues before blocking"),
                  .live = true},
         SIZE_PARAM(hipFileParamExecutionMaxIOQueueDepth),
         .no_effect = "stored; the executor's queue has no bound, "
                      "so submitters never block"},
    [HF_SETTING_PARALLEL_IO] = {.decl = {HFP_BOOL_SETTING(
                                             "execution.parallel_io", 1,
                                             "split large requests across the executor's workers"),
                                         .live = true},
                                BOOL_PARAM(hipFileParamExecutionParallelIO)},
    [HF_SETTING_MIN_IO_THRESHOLD_SIZE_KB] =
        {.decl = {HFP_INT_SETTING("execution.min_io_threshold_size_kb", 1024, 4, 1048576, "KiB",
                                  "smallest piece a request is split into"),
                  .multiple = 4, .live = true},
         SIZE_PARAM(hipFileParamExecutionMinIOThresholdSizeKB)},
    [HF_SETTING_MAX_REQUEST_PARALLELISM] =
        {.decl = {HFP_INT_SETTING("execution.max_request_parallelism", 64, 1, 1024, "pieces",
                                  "most pieces one request is split into"),
                  .live = true},
         SIZE_PARAM(hipFileParamExecutionMaxRequestParallelism)},
    [HF_SETTING_STREAM_PREPARE_AT_OPEN] = {.decl = {HFP_BOOL_SETTING(
                                               "execution.stream_prepare_at_open", 1,
                                               "make the current GPU's staging for async "
                                               "I/O when the driver opens")}},
    [HF_SETTING_IDLE_POLLERS] = {.decl = {HFP_INT_SETTING(
                                     "execution.idle_pollers", -1, -1, 1024, "threads",
                                     "idle workers that poll for work before sleeping; -1 = "
                                     "one fewer than the CPUs the process may use (affinity, "
                                     "cgroup quota) where that is 8 or more, else none")}},
    [HF_SETTING_PROFILE_STATS] = {.decl = {HFP_INT_SETTING(
                                               "profile.stats", 1, 0, 3, NULL,
                                               "statistics level: 0 = none, 1-3 = levels L1-L3"),
                                           .env = "HIPFILE_STATS_LEVEL", .live = true},
                                  SIZE_PARAM(hipFileParamProfileStats)},
    [HF_SETTING_PROFILE_NVTX] = {.decl = {HFP_BOOL_SETTING("profile.nvtx", 0,
                                                           "emit profiler range annotations"),
                                          .live = true},
                                 BOOL_PARAM(hipFileParamProfileNvtx),
                                 .no_effect = "stored; no profiler annotations are emitted"},
    [HF_SETTING_PROFILE_STATS_REPORT] =
        {
            .decl = {HFP_STRING_SETTING("profile.stats_report", "", NULL,
                                        "at exit, append the statistics to this file; "
                                        "empty = no report"),
                     .env = "HIPFILE_STATS_REPORT", .live = true},
            .is_path = true},
    [HF_SETTING_API_CHECK_AGGRESSIVE] = {.decl = {HFP_BOOL_SETTING(
                                                      "fs.misc.api_check_aggressive", 0,
                                                      "extra argument checks in every API call"),
                                                  .live = true},
                                         BOOL_PARAM(hipFileParamFsMiscApiCheckAggressive),
                                         .no_effect = "stored; every call already checks all of "
                                                      "its arguments"},
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
        if (strcmp(hf_settings[i].decl.key, key) == 0)
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
        const char *key = hf_settings[i].decl.key;
        if (strncmp(key, prefix, len) == 0 && key[len] == '.')
            return true;
    }
    return false;
}

const char *hf_setting_unit(const struct hf_setting *s)
{
    return s->decl.unit != NULL ? s->decl.unit : "";
}

int hf_setting_parse_enum(const struct hf_setting *s, const char *text)
{
    int count = 0;
    int index = -1;
    for (; s->decl.names[count] != NULL; count++) {
        if (strcasecmp(s->decl.names[count], text) == 0)
            index = count;
    }
    if (s->parse_enum != NULL)
        index = s->parse_enum(text);
    return index >= 0 && index < count ? index : -1;
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
    const struct hf_setting_decl *d = &s->decl;
    return value >= d->min && value <= d->max && (d->multiple <= 1 || value % d->multiple == 0);
}

bool hf_setting_string_ok(const struct hf_setting *s, const char *text)
{
    if (s->check_string != NULL)
        return s->check_string(text) == NULL;
    return true;
}

const char *hf_setting_describe(const struct hf_setting *s, char *buf, size_t size)
{
    const struct hf_setting_decl *d = &s->decl;
    const char *unit = hf_setting_unit(s);
    switch (hf_setting_type(s)) {
    case HF_TYPE_INT:
        if (d->multiple > 1)
            snprintf(buf, size, "a multiple of %lld from %lld to %lld%s%s%s",
                     (long long)d->multiple, (long long)d->min, (long long)d->max,
                     unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
        else
            snprintf(buf, size, "an integer from %lld to %lld%s%s%s", (long long)d->min,
                     (long long)d->max, unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
        return buf;
    case HF_TYPE_BOOL:
        return "true or false";
    case HF_TYPE_STRING: {
        /* A checker's complaint about the empty string is the full list of what it accepts. */
        const char *phrase = s->check_string != NULL ? s->check_string("") : NULL;
        return phrase != NULL ? phrase : "a string";
    }
    case HF_TYPE_ENUM: {
        size_t used = (size_t)snprintf(buf, size, "one of");
        for (int i = 0; d->names[i] != NULL && used < size; i++)
            used +=
                (size_t)snprintf(buf + used, size - used, "%s \"%s\"", i ? "," : "", d->names[i]);
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
