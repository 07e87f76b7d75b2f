/*
 * The fallback backend's settings: its config group's keys, their units, defaults and ranges.
 * A bad value is logged and replaced by the default rather than failing init: losing the one
 * backend that works everywhere over a typo would turn a tuning mistake into an outage.
 */
#include <errno.h>
#include <string.h>

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
 * copy that cannot overlap) stay small against its transfer. docs/backends/fallback.md has the
 * measurements, and why GPU hosts should settle these two.
 */
#define INLINE_MAX_KIB_DEFAULT 1024
#define SPLIT_THRESHOLD_KIB_DEFAULT 1024
#define THRESHOLD_KIB_MAX (1024 * 1024)

/* An integer setting: bad values are logged and replaced by the default. */
static int64_t setting_int(const struct hf_host_api *host, const char *key, int64_t default_value,
                           int64_t min, int64_t max, int64_t multiple)
{
    int64_t value;
    int rc = host->config_int(host, key, &value);
    if (rc == -ENOENT)
        return default_value;
    if (rc < 0) {
        host->log(host, HF_LOG_WARN, "%s is not an integer; using the default %lld", key,
                  (long long)default_value);
        return default_value;
    }
    if (value < min || value > max) {
        host->log(host, HF_LOG_WARN, "%s = %lld is outside [%lld, %lld]; using the default %lld",
                  key, (long long)value, (long long)min, (long long)max, (long long)default_value);
        return default_value;
    }
    if (value % multiple != 0) {
        host->log(host, HF_LOG_WARN, "%s = %lld is not a multiple of %lld; using the default %lld",
                  key, (long long)value, (long long)multiple, (long long)default_value);
        return default_value;
    }
    return value;
}

static bool setting_bool(const struct hf_host_api *host, const char *key, bool default_value)
{
    bool value;
    int rc = host->config_bool(host, key, &value);
    if (rc == -ENOENT)
        return default_value;
    if (rc < 0) {
        host->log(host, HF_LOG_WARN, "%s is not true or false; using the default %s", key,
                  default_value ? "true" : "false");
        return default_value;
    }
    return value;
}

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
    int64_t chunk_kib = setting_int(host, "chunk_size_kb", CHUNK_KIB_DEFAULT, SIZE_KIB_MULTIPLE,
                                    CHUNK_KIB_MAX, SIZE_KIB_MULTIPLE);
    int64_t slots = setting_int(host, "staging_slots_per_device", SLOTS_DEFAULT, 1, SLOTS_MAX, 1);
    int64_t split_kib = setting_int(host, "split_threshold_kb", SPLIT_THRESHOLD_KIB_DEFAULT,
                                    SIZE_KIB_MULTIPLE, THRESHOLD_KIB_MAX, SIZE_KIB_MULTIPLE);
    int64_t inline_kib =
        setting_int(host, "inline_max_kb", INLINE_MAX_KIB_DEFAULT, 0, THRESHOLD_KIB_MAX, 1);
    struct fallback_settings set = {
        .chunk_size = (size_t)chunk_kib * 1024,
        .slots_per_device = (unsigned)slots,
        .split_threshold = (size_t)split_kib * 1024,
        .inline_max = (size_t)inline_kib * 1024,
        .direct_io = setting_direct_io(host),
        .bounce_host_accessible = setting_bool(host, "bounce_host_accessible", false),
    };
    host->log(host, HF_LOG_INFO,
              "chunks of %lld KiB; up to %lld staging slots per GPU (2 pinned chunks each), "
              "created on first use; requests over %lld KiB split into pieces of at least %lld "
              "KiB; O_DIRECT reads %s%s",
              (long long)chunk_kib, (long long)slots, (long long)inline_kib, (long long)split_kib,
              direct_io_names[set.direct_io],
              set.bounce_host_accessible ? "; host-accessible device memory staged" : "");
    *set_p = set;
}
