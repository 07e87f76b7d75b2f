/*
 * The fallback backend's settings: its config group's keys, their units, defaults and ranges,
 * and the core settings it follows (properties.*, execution.*), read through the same host API.
 * A bad value is logged and replaced by the default rather than failing init: losing the one
 * backend that works everywhere over a typo would turn a tuning mistake into an outage.
 *
 * Its own keys win over the core's: fallback.chunk_size_kb over properties.per_buffer_cache_size_kb
 * and fallback.split_threshold_kb over execution.min_io_threshold_size_kb. The core's limits that
 * may change while the driver is open (staging memory, splitting, O_DIRECT) are read when they are
 * used, not once, so hipFileDriverSet* and hipFileSetParameter* reach running pools and requests.
 * A core too old to answer for its settings leaves the fallback on its own defaults.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "common/plugin_settings.h"
#include "fallback.h"

/*
 * 4 MiB chunks: on the NVIDIA H200 test machine, cached reads staged per thread through two
 * pinned buffers moved 52 GB/s (0.95x of pinned host-to-device copies) at 10-16 threads with
 * 4 MiB chunks, 50 GB/s with 2 MiB, 46-48 with 8 MiB and 36-40 with 16 MiB. Sizes are whole 4 KiB
 * pages so chunk boundaries stay page- and block-aligned for O_DIRECT.
 */
#define CHUNK_KIB_DEFAULT 4096
#define CHUNK_KIB_MAX (1024 * 1024)
#define SIZE_KIB_MULTIPLE 4

/*
 * 16 slots (2 x 4 MiB pinned each: 128 MiB per GPU, the default of
 * properties.max_device_cache_size_kb) cover the 10-16 threads that reached full speed there.
 */
#define SLOTS_DEFAULT 16
#define SLOTS_MAX 1024

/*
 * Requests up to 1 MiB stay on the calling thread: read from the page cache that is some 40 us of
 * copying on one thread, about what waking workers and collecting them costs. Larger ones are cut
 * into pieces of at least 1 MiB, so a piece's fixed costs (taking a slot, the first read and last
 * copy that cannot overlap) stay small against its transfer. docs/backends/fallback.rst has the
 * measurements, and why GPU hosts should settle these two.
 */
#define INLINE_MAX_KIB_DEFAULT 1024
#define SPLIT_THRESHOLD_KIB_DEFAULT 1024

/*
 * Off: on the H200 test machine, one caller's cached 256 MiB reads moved 0.76 and 0.77 of pinned
 * copy bandwidth with 1 MiB tail windows against 0.78 and 0.78 with whole chunks, interleaved in
 * one run (docs/backends/fallback.rst).
 */
#define TAIL_WINDOW_KIB_DEFAULT 0
#define PIPELINE_KIB_MAX (16 * 1024)
/*
 * Staged reads up to 128 MiB run as one pipeline, larger ones in lanes: on the H200 test machine
 * the pipeline moved 0.32 of pinned copy bandwidth at 4 MiB calls (lanes 0.12) and 0.59 at 64 MiB
 * (lanes 0.55), the lanes 0.79 at 256 MiB and 0.89 at 1 GiB (pipeline 0.69 and 0.76), in one run
 * (docs/performance.rst).
 */
#define PIPELINE_MAX_KIB_DEFAULT (128 * 1024)
#define THRESHOLD_KIB_MAX (1024 * 1024)

static const char *const direct_io_names[] = {
    [FALLBACK_DIRECT_AUTO] = "auto",
    [FALLBACK_DIRECT_ALWAYS] = "always",
    [FALLBACK_DIRECT_NEVER] = "never",
};

static int setting_direct_io(const struct hf_host_api *host)
{
    const char *value;
    int rc = host->config_string(host, "direct_io", &value);
    if (rc == -ENOENT)
        return FALLBACK_DIRECT_AUTO;
    for (int i = 0; rc == 0 && i < (int)(sizeof(direct_io_names) / sizeof(direct_io_names[0]));
         i++) {
        if (value != NULL && strcmp(value, direct_io_names[i]) == 0)
            return i;
    }
    host->log(host, HF_LOG_WARN,
              "direct_io must be \"auto\", \"always\" or \"never\"; using the default \"auto\"");
    return FALLBACK_DIRECT_AUTO;
}

/* Keys of the first version: still in old config files, now without effect. */
static void settings_warn_retired(const struct hf_host_api *host)
{
    static const char *const retired[][2] = {
        {"bounce_buffer_size_kb", "chunk_size_kb"},
        {"bounce_buffers", "staging_slots_per_device"},
    };
    for (size_t i = 0; i < sizeof(retired) / sizeof(retired[0]); i++) {
        int64_t value;
        if (host->config_int(host, retired[i][0], &value) != -ENOENT)
            host->log(host, HF_LOG_WARN, "%s is no longer read; set %s instead", retired[i][0],
                      retired[i][1]);
    }
}

void hf_fallback_settings_read(const struct hf_host_api *host, struct fallback_settings *set_p)
{
    settings_warn_retired(host);
    int64_t chunk_kib = hf_plugin_setting_int(
        host, "chunk_size_kb",
        hf_plugin_setting_int(host, "properties.per_buffer_cache_size_kb", CHUNK_KIB_DEFAULT,
                              SIZE_KIB_MULTIPLE, CHUNK_KIB_MAX, SIZE_KIB_MULTIPLE),
        SIZE_KIB_MULTIPLE, CHUNK_KIB_MAX, SIZE_KIB_MULTIPLE);
    int64_t slots =
        hf_plugin_setting_int(host, "staging_slots_per_device", SLOTS_DEFAULT, 1, SLOTS_MAX, 1);
    /* 0: follow execution.min_io_threshold_size_kb on every request. */
    int64_t split_kib = hf_plugin_setting_int(host, "split_threshold_kb", 0, SIZE_KIB_MULTIPLE,
                                              THRESHOLD_KIB_MAX, SIZE_KIB_MULTIPLE);
    int64_t inline_kib = hf_plugin_setting_int(host, "inline_max_kb", INLINE_MAX_KIB_DEFAULT, 0,
                                               THRESHOLD_KIB_MAX, 1);
    int64_t tail_kib = hf_plugin_setting_int(host, "tail_window_kb", TAIL_WINDOW_KIB_DEFAULT, 0,
                                             CHUNK_KIB_MAX, SIZE_KIB_MULTIPLE);
    struct fallback_settings set = {
        .chunk_size = (size_t)chunk_kib * 1024,
        .slots_per_device = (unsigned)slots,
        .split_threshold = (size_t)split_kib * 1024,
        .inline_max = (size_t)inline_kib * 1024,
        .tail_window = (size_t)tail_kib * 1024,
        .direct_io = setting_direct_io(host),
        .bounce_host_accessible = hf_plugin_setting_bool(host, "bounce_host_accessible", false),
        .pipeline_reads = hf_plugin_setting_bool(host, "pipeline_reads", true),
        .pipeline_max =
            (size_t)hf_plugin_setting_int(host, "pipeline_max_kb", PIPELINE_MAX_KIB_DEFAULT, 0,
                                          THRESHOLD_KIB_MAX, SIZE_KIB_MULTIPLE) *
            1024,
        .pipeline_piece = (size_t)hf_plugin_setting_int(host, "pipeline_piece_kb", 0, 0,
                                                        PIPELINE_KIB_MAX, SIZE_KIB_MULTIPLE) *
                          1024,
        .pipeline_block = (size_t)hf_plugin_setting_int(host, "pipeline_block_kb", 0, 0,
                                                        PIPELINE_KIB_MAX, SIZE_KIB_MULTIPLE) *
                          1024,
    };
    host->log(host, HF_LOG_INFO,
              "chunks of %lld KiB; up to %lld staging slots per GPU (2 pinned chunks each), "
              "created on first use; requests over %lld KiB split into pieces of at least %lld "
              "KiB; O_DIRECT reads %s%s",
              (long long)chunk_kib, (long long)slots, (long long)inline_kib,
              (long long)(split_kib != 0 ? split_kib
                                         : hf_plugin_setting_int(
                                               host, "execution.min_io_threshold_size_kb",
                                               SPLIT_THRESHOLD_KIB_DEFAULT, SIZE_KIB_MULTIPLE,
                                               THRESHOLD_KIB_MAX, SIZE_KIB_MULTIPLE)),
              direct_io_names[set.direct_io],
              set.bounce_host_accessible ? "; host-accessible device memory staged" : "");
    *set_p = set;
}

/*
 * The core's live settings are read quietly: a bad value there cannot happen (the core checks
 * every value against its table), and an older core answers -ENOENT.
 */
static int64_t core_int(const struct hf_host_api *host, const char *key, int64_t default_value)
{
    int64_t value;
    return host->config_int(host, key, &value) == 0 ? value : default_value;
}

static bool core_bool(const struct hf_host_api *host, const char *key, bool default_value)
{
    bool value;
    return host->config_bool(host, key, &value) == 0 ? value : default_value;
}

void hf_fallback_limits_read(const struct fallback *fb, struct fallback_limits *lim_p)
{
    const struct hf_host_api *host = fb->host;
    struct fallback_limits lim = {
        .parallel = core_bool(host, "execution.parallel_io", true),
        .max_pieces = UINT_MAX,
        .split_threshold = fb->set.split_threshold,
        .direct_io = fb->set.direct_io,
    };
    int64_t pieces = core_int(host, "execution.max_request_parallelism", 0);
    if (pieces >= 1 && pieces < UINT_MAX)
        lim.max_pieces = (unsigned)pieces;
    if (lim.split_threshold == 0) {
        int64_t kib =
            core_int(host, "execution.min_io_threshold_size_kb", SPLIT_THRESHOLD_KIB_DEFAULT);
        if (kib < SIZE_KIB_MULTIPLE || kib > THRESHOLD_KIB_MAX || kib % SIZE_KIB_MULTIPLE != 0)
            kib = SPLIT_THRESHOLD_KIB_DEFAULT;
        lim.split_threshold = (size_t)kib * 1024;
    }
    if (core_bool(host, "properties.force_odirect_mode", false))
        lim.direct_io = FALLBACK_DIRECT_ALWAYS;
    *lim_p = lim;
}

unsigned hf_fallback_slot_bound(void *backend)
{
    const struct fallback *fb = backend;
    /* A slot pins two chunks; both limits count pinned staging memory per GPU. */
    uint64_t slot_kib = 2 * (uint64_t)(fb->set.chunk_size / 1024);
    uint64_t bound = fb->set.slots_per_device;
    int64_t cache_kib = core_int(fb->host, "properties.max_device_cache_size_kb", -1);
    int64_t pinned_kib = core_int(fb->host, "properties.max_device_pinned_mem_size_kb", -1);
    if (cache_kib >= 0 && (uint64_t)cache_kib / slot_kib < bound)
        bound = (uint64_t)cache_kib / slot_kib;
    if (pinned_kib >= 0 && (uint64_t)pinned_kib / slot_kib < bound)
        bound = (uint64_t)pinned_kib / slot_kib;
    return (unsigned)bound;
}
