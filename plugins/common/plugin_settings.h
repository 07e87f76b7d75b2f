/*
 * Reading a backend's own config keys through the host API. A bad value is logged and replaced by
 * the default rather than failing init: a tuning mistake should not take a backend away.
 */
#ifndef HF_PLUGIN_COMMON_PLUGIN_SETTINGS_H
#define HF_PLUGIN_COMMON_PLUGIN_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The integer @p key of the backend's config group, or @p default_value when it is unset, not an
 * integer, outside [@p min, @p max] or not a multiple of @p multiple (each logged as a warning).
 */
int64_t hf_plugin_setting_int(const struct hf_host_api *host, const char *key,
                              int64_t default_value, int64_t min, int64_t max, int64_t multiple);

/** The boolean @p key, or @p default_value when it is unset or not true/false (logged). */
bool hf_plugin_setting_bool(const struct hf_host_api *host, const char *key, bool default_value);

#ifdef __cplusplus
}
#endif

#endif
