/*
 * The fastpath backend's settings: its config group's keys, their units, defaults and ranges. A
 * bad value is logged and replaced by the default, as in the fallback: a typo should cost speed,
 * never the backend.
 */
#include <errno.h>

#include "common/plugin_settings.h"
#include "fastpath.h"

/*
 * Coherent-engine requests up to 1 MiB stay on the calling thread, larger ones are cut into
 * pieces of at least 1 MiB across the core's workers: the same trade as the fallback's (waking
 * workers costs about what one thread moves in that time), and NVMe needs several O_DIRECT
 * requests in flight to reach its bandwidth.
 */
#define INLINE_MAX_KIB_DEFAULT 1024
#define SPLIT_THRESHOLD_KIB_DEFAULT 1024
#define THRESHOLD_KIB_MAX (1024 * 1024)
#define SIZE_KIB_MULTIPLE 4

static const char *setting_string(const struct hf_host_api *host, const char *key,
                                  const char *default_value)
{
    const char *value;
    int rc = host->config_string(host, key, &value);
    if (rc == -ENOENT)
        return default_value;
    if (rc < 0 || value == NULL || value[0] == '\0') {
        host->log(host, HF_LOG_WARN, "%s is not a non-empty string; using the default \"%s\"", key,
                  default_value);
        return default_value;
    }
    return value;
}

void hf_fastpath_settings_read(const struct hf_host_api *host, struct fastpath_settings *set_p)
{
    int64_t inline_kib = hf_plugin_setting_int(host, "inline_max_kb", INLINE_MAX_KIB_DEFAULT, 0,
                                               THRESHOLD_KIB_MAX, 1);
    int64_t split_kib =
        hf_plugin_setting_int(host, "split_threshold_kb", SPLIT_THRESHOLD_KIB_DEFAULT,
                              SIZE_KIB_MULTIPLE, THRESHOLD_KIB_MAX, SIZE_KIB_MULTIPLE);
    struct fastpath_settings set = {
        .ais = hf_plugin_setting_bool(host, "ais", true),
        .coherent = hf_plugin_setting_bool(host, "coherent", true),
        .gds = hf_plugin_setting_bool(host, "gds", false),
        .unsupported_file_systems = hf_plugin_setting_bool(host, "unsupported_file_systems", false),
        .gds_library = setting_string(host, "gds_library", "libcufile.so.0"),
        .split_threshold = (size_t)split_kib * 1024,
        .inline_max = (size_t)inline_kib * 1024,
    };
    host->log(host, HF_LOG_INFO,
              "engines: AIS %s, GDS %s, coherent memory %s; AIS on other file systems %s; "
              "coherent requests over %lld KiB split into pieces of at least %lld KiB",
              set.ais ? "on" : "off", set.gds ? "on" : "off", set.coherent ? "on" : "off",
              set.unsupported_file_systems ? "allowed" : "refused", (long long)inline_kib,
              (long long)split_kib);
    *set_p = set;
}
