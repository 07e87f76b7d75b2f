/* Declared backend config keys through the host API; see plugin_settings.h. */
#include "common/plugin_settings.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hipfile/plugin_kit.h"

int64_t hfp_setting_int(const struct hf_host_api *host, const struct hf_setting_decl *decl)
{
    int64_t value;
    if (hfp_config_int(host, decl, &value) < 0) {
        host->log(host, HF_LOG_WARN, "%s is not an integer; using the default %lld", decl->key,
                  (long long)decl->default_int);
        return decl->default_int;
    }
    if (value < decl->min || value > decl->max) {
        host->log(host, HF_LOG_WARN, "%s = %lld is outside [%lld, %lld]; using the default %lld",
                  decl->key, (long long)value, (long long)decl->min, (long long)decl->max,
                  (long long)decl->default_int);
        return decl->default_int;
    }
    if (decl->multiple > 1 && value % decl->multiple != 0) {
        host->log(host, HF_LOG_WARN, "%s = %lld is not a multiple of %lld; using the default %lld",
                  decl->key, (long long)value, (long long)decl->multiple,
                  (long long)decl->default_int);
        return decl->default_int;
    }
    return value;
}

bool hfp_setting_bool(const struct hf_host_api *host, const struct hf_setting_decl *decl)
{
    bool value;
    if (hfp_config_bool(host, decl, &value) < 0) {
        host->log(host, HF_LOG_WARN, "%s is not true or false; using the default %s", decl->key,
                  decl->default_int != 0 ? "true" : "false");
        return decl->default_int != 0;
    }
    return value;
}

/* The names a warning lists: "a", "b" or "c", cut short when they do not fit. */
static void names_text(const char *const *names, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; names[i] != NULL && used < size; i++) {
        const char *sep = i == 0 ? "" : names[i + 1] == NULL ? " or " : ", ";
        int n = snprintf(text + used, size - used, "%s\"%s\"", sep, names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

int hfp_setting_choice(const struct hf_host_api *host, const struct hf_setting_decl *decl)
{
    int fallback = 0;
    for (int i = 0; decl->names[i] != NULL; i++) {
        if (decl->default_string != NULL && strcmp(decl->names[i], decl->default_string) == 0)
            fallback = i;
    }
    const char *value;
    if (hfp_config_string(host, decl, &value) == 0 && value != NULL) {
        for (int i = 0; decl->names[i] != NULL; i++) {
            if (strcmp(value, decl->names[i]) == 0)
                return i;
        }
    }
    char names[160];
    names_text(decl->names, names, sizeof(names));
    host->log(host, HF_LOG_WARN, "%s must be %s; using the default \"%s\"", decl->key, names,
              decl->names[fallback]);
    return fallback;
}

const char *hfp_setting_string(const struct hf_host_api *host, const struct hf_setting_decl *decl)
{
    const char *value;
    if (hfp_config_string(host, decl, &value) < 0 || value == NULL || value[0] == '\0') {
        host->log(host, HF_LOG_WARN, "%s is not a non-empty string; using the default \"%s\"",
                  decl->key, decl->default_string);
        return decl->default_string;
    }
    return value;
}
