/*
 * Reading a backend's declared config keys through the host API, checked against their
 * declarations (plugin_kit.h). A bad value is logged and replaced by the declared default rather
 * than failing init: a tuning mistake should not take a backend away.
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
 * The integer key @p decl declares, or its default when it is unset, not an integer, outside
 * [decl->min, decl->max] or not a multiple of decl->multiple (each logged as a warning).
 */
int64_t hfp_setting_int(const struct hf_host_api *host, const struct hf_setting_decl *decl);

/** The boolean key @p decl declares, or its default when unset or not true/false (logged). */
bool hfp_setting_bool(const struct hf_host_api *host, const struct hf_setting_decl *decl);

/**
 * The index in decl->names of the string key @p decl declares, or that of its default when the
 * value is none of the names (logged). @p decl must list names and have one of them as default.
 */
int hfp_setting_choice(const struct hf_host_api *host, const struct hf_setting_decl *decl);

/** The string key @p decl declares, or its default when unset or empty (logged). */
const char *hfp_setting_string(const struct hf_host_api *host, const struct hf_setting_decl *decl);

#ifdef __cplusplus
}
#endif

#endif
