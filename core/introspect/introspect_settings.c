/*
 * hipfile-check's view of the settings (introspect_settings.h): the core's table with each value
 * and where it came from, the plugins' declared keys, and where the configuration was read from.
 */
#include "introspect/introspect_settings.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"

_Static_assert((int)HF_INTROSPECT_ORIGIN_FILE == (int)HF_ORIGIN_FILE &&
                   (int)HF_INTROSPECT_ORIGIN_ENV == (int)HF_ORIGIN_ENV &&
                   (int)HF_INTROSPECT_ORIGIN_API == (int)HF_ORIGIN_API,
               "origins are the config's");
_Static_assert((int)HF_INTROSPECT_COMPAT_FORCE == (int)HF_COMPAT_FORCE &&
                   (int)HF_INTROSPECT_COMPAT_OFF == (int)HF_COMPAT_OFF,
               "compat modes are the config's");

const char *hf_introspect_env(const char *name)
{
    return hf_env_get(name);
}

const char *hf_introspect_config_path(void)
{
    return hf_config_path();
}

const char *hf_introspect_config_failure(void)
{
    return hf_config_failure();
}

const char *const *hf_introspect_config_search_path(void)
{
    return hf_config_search_path();
}

unsigned hf_introspect_setting_count(void)
{
    return HF_SETTING_COUNT;
}

static enum hf_introspect_kind kind_of(enum hf_setting_type type)
{
    switch (type) {
    case HF_TYPE_INT:
        return HF_INTROSPECT_INT;
    case HF_TYPE_BOOL:
        return HF_INTROSPECT_BOOL;
    case HF_TYPE_STRING:
    case HF_TYPE_ENUM:
        return HF_INTROSPECT_STRING;
    case HF_TYPE_LIST:
        return HF_INTROSPECT_LIST;
    case HF_TYPE_MAP:
        break;
    }
    return HF_INTROSPECT_MAP;
}

int hf_introspect_setting_at(unsigned index, struct hf_introspect_setting *out)
{
    if (index >= HF_SETTING_COUNT)
        return -ENOENT;
    enum hf_setting_id id = (enum hf_setting_id)index;
    const struct hf_setting *s = &hf_settings[id];
    const char *where = NULL;
    enum hf_setting_origin origin = hf_setting_origin(id, &where);
    *out = (struct hf_introspect_setting){
        .key = s->decl.key,
        .kind = kind_of(hf_setting_type(s)),
        .unit = hf_setting_unit(s),
        .num = hf_setting_int(id),
        .text = hf_setting_string(id),
        .view = s->view != HF_VIEW_NONE,
        .live = s->decl.live,
        .acts = s->no_effect == NULL,
        .help = s->decl.help,
        .origin = (enum hf_introspect_origin)origin,
        .where = where,
    };
    return 0;
}

static enum hf_setting_id known_id(enum hf_introspect_known which)
{
    switch (which) {
    case HF_INTROSPECT_GPU_RUNTIME:
        return HF_SETTING_GPU_RUNTIME;
    case HF_INTROSPECT_PLUGINS_DIRECTORY:
        return HF_SETTING_PLUGINS_DIRECTORY;
    case HF_INTROSPECT_PLUGINS_ENABLE:
        return HF_SETTING_PLUGINS_ENABLE;
    case HF_INTROSPECT_COMPAT_MODE:
        return HF_SETTING_COMPAT_MODE;
    case HF_INTROSPECT_ALLOW_SYSTEM_MEMORY:
        break;
    }
    return HF_SETTING_ALLOW_SYSTEM_MEMORY;
}

void hf_introspect_setting_of(enum hf_introspect_known which, struct hf_introspect_setting *out)
{
    (void)hf_introspect_setting_at((unsigned)known_id(which), out);
}

const char *hf_introspect_origin_text(enum hf_introspect_known which, char *buf, size_t size)
{
    return hf_setting_origin_text(known_id(which), buf, size);
}

enum hf_introspect_compat hf_introspect_compat_mode(void)
{
    return (enum hf_introspect_compat)hf_config_compat_mode();
}

size_t hf_introspect_enable_list(const char *const **names_p)
{
    return hf_config_plugin_enable_list(names_p);
}

bool hf_introspect_plugin_enabled(const char *name)
{
    return hf_config_plugin_enabled(name);
}

size_t hf_introspect_priorities(const char *const **names_p, const int **values_p)
{
    return hf_config_plugin_priorities(names_p, values_p);
}

int hf_introspect_plugin_key_at(const char *plugin, unsigned index,
                                struct hf_introspect_plugin_key *out)
{
    struct hf_config_declared_setting d;
    int rc = hf_config_declared_at(plugin, index, &d);
    if (rc < 0)
        return rc;
    memset(out, 0, sizeof(*out));
    out->key = d.row->decl.key;
    out->unit = hf_setting_unit(d.row);
    out->num = d.num;
    out->text = d.text;
    out->origin = (enum hf_introspect_origin)d.origin;
    out->where = d.where;
    out->env = d.row->decl.env;
    out->live = d.row->decl.live;
    out->help = d.row->decl.help;
    /* The same words the core's error messages use for what the key accepts. */
    const char *accepts = hf_setting_describe(d.row, out->accepts, sizeof(out->accepts));
    if (accepts != out->accepts)
        snprintf(out->accepts, sizeof(out->accepts), "%s", accepts);
    switch (hf_setting_type(d.row)) {
    case HF_TYPE_INT:
        out->kind = HF_INTROSPECT_INT;
        out->type = "integer";
        snprintf(out->value, sizeof(out->value), "%lld", (long long)d.num);
        break;
    case HF_TYPE_BOOL:
        out->kind = HF_INTROSPECT_BOOL;
        out->type = "boolean";
        snprintf(out->value, sizeof(out->value), "%s", d.num ? "true" : "false");
        break;
    default:
        out->kind = HF_INTROSPECT_STRING;
        out->type = "string";
        if (d.text != NULL)
            snprintf(out->value, sizeof(out->value), "\"%s\"", d.text);
        else
            snprintf(out->value, sizeof(out->value), "(none)");
        break;
    }
    return 0;
}
