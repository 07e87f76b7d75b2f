/* Backend config keys through the host API; see plugin_settings.h. */
#include "common/plugin_settings.h"

#include <errno.h>

int64_t hf_plugin_setting_int(const struct hf_host_api *host, const char *key,
                              int64_t default_value, int64_t min, int64_t max, int64_t multiple)
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
    if (multiple > 1 && value % multiple != 0) {
        host->log(host, HF_LOG_WARN, "%s = %lld is not a multiple of %lld; using the default %lld",
                  key, (long long)value, (long long)multiple, (long long)default_value);
        return default_value;
    }
    return value;
}

bool hf_plugin_setting_bool(const struct hf_host_api *host, const char *key, bool default_value)
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
