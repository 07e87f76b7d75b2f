/*
 * What the configuration names that nothing claims, reported once the plugins are loaded: keys of
 * a plugin's group that the plugin never read, top-level groups that are neither the core's nor a
 * manifest's name, and plugins.enable names no manifest has; each with its file and line and, when
 * a known name is close, the one that was probably meant.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config/config.h"
#include "config/config_store.h"

/* Names a "did you mean" hint chooses among: the core's groups and the manifests' names. */
#define HF_MAX_CONFIG_CANDIDATES 64

/* Leaves under @p group that are plugin keys (not rows of the table), counted or stored. */
static size_t plugin_keys_walk(config_setting_t *group, const char *prefix,
                               struct hf_config_plugin_key *out)
{
    size_t n = 0;
    int count = config_setting_length(group);
    for (int i = 0; i < count; i++) {
        config_setting_t *cs = config_setting_get_elem(group, (unsigned)i);
        char key[HF_SETTING_KEY_MAX];
        if (snprintf(key, sizeof(key), "%s.%s", prefix, config_setting_name(cs)) >=
            (int)sizeof(key))
            continue;
        if (config_setting_is_group(cs)) {
            n += plugin_keys_walk(cs, key, out != NULL ? out + n : NULL);
            continue;
        }
        if (hf_setting_find(key) != NULL)
            continue;
        if (out != NULL) {
            out[n].setting = cs;
            atomic_init(&out[n].read, false);
            config_setting_set_hook(cs, &out[n]);
        }
        n++;
    }
    return n;
}

int hf_config_plugin_keys_collect(struct hf_config_state *state)
{
    config_setting_t *root = config_root_setting(&state->cfg);
    size_t total = 0;
    int count = config_setting_length(root);
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
        for (int i = 0; i < count; i++) {
            config_setting_t *cs = config_setting_get_elem(root, (unsigned)i);
            const char *name = config_setting_name(cs);
            if (!config_setting_is_group(cs) || hf_setting_group_is_core(name))
                continue;
            n += plugin_keys_walk(cs, name, pass == 1 ? state->plugin_keys + n : NULL);
        }
        if (pass == 0) {
            total = n;
            if (total == 0)
                return 0;
            state->plugin_keys = calloc(total, sizeof(*state->plugin_keys));
            if (state->plugin_keys == NULL)
                return -ENOMEM;
        }
    }
    state->plugin_key_count = total;
    return 0;
}

/* Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *hf_config_suggest(const char *word, const char *const *candidates, size_t count)
{
    /* A few edits for long names, fewer for short ones, where a few edits make any other word. */
    size_t len = strlen(word);
    size_t limit = len >= 8 ? 3 : len >= 4 ? 2 : 1;
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        size_t distance = edit_distance(word, candidates[i]);
        if (distance > 0 && distance <= limit && distance < best_distance) {
            best = candidates[i];
            best_distance = distance;
        }
    }
    return best;
}

static const struct hf_config_plugin *plugin_named(const struct hf_config_plugin *plugins,
                                                   size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(plugins[i].name, name) == 0)
            return &plugins[i];
    }
    return NULL;
}

/* "fallback, fastpath, nvme-passthru" into @p buf, or "none". */
static const char *plugin_list_text(const struct hf_config_plugin *plugins, size_t count, char *buf,
                                    size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < count && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", used > 0 ? ", " : "", plugins[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf[0] != '\0' ? buf : "none";
}

/* A top-level group that neither the core nor any plugin of the directory owns. */
static void warn_unknown_group(const struct hf_config_state *state, const config_setting_t *cs,
                               const struct hf_config_plugin *plugins, size_t count,
                               const char *dir)
{
    static const char *const core_groups[] = {"log",       "gpu",     "plugins", "properties",
                                              "execution", "profile", "fs"};
    const char *candidates[HF_MAX_CONFIG_CANDIDATES];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(core_groups) / sizeof(core_groups[0]); i++)
        candidates[n++] = core_groups[i];
    for (size_t i = 0; i < count && n < HF_MAX_CONFIG_CANDIDATES; i++)
        candidates[n++] = plugins[i].name;
    const char *name = config_setting_name(cs);
    const char *hint = hf_config_suggest(name, candidates, n);
    struct hf_config_where w;
    char names[512];
    hf_warn("%s: unknown group %s ignored: it is not a core group (log, gpu, plugins, properties, "
            "execution, profile, fs) and no plugin in %s has that name (there: %s)%s%s%s",
            hf_config_where(cs, state, &w), name, dir,
            plugin_list_text(plugins, count, names, sizeof(names)), hint ? "; did you mean " : "",
            hint ? hint : "", hint ? "?" : "");
}

/* Keys of @p plugin's group that no look-up found, with the key it did look for when close. */
static void warn_unread_keys(struct hf_config_state *state, const char *plugin)
{
    size_t prefix_len = strlen(plugin);
    for (size_t i = 0; i < state->plugin_key_count; i++) {
        struct hf_config_plugin_key *key = &state->plugin_keys[i];
        if (atomic_load(&key->read))
            continue;
        char dotted[HF_SETTING_KEY_MAX];
        const config_setting_t *top = key->setting;
        size_t used = 0;
        /* Rebuild "group.sub.key" from the setting up to the top-level group. */
        const char *parts[16];
        size_t depth = 0;
        while (top != NULL && config_setting_name(top) != NULL && depth < 16) {
            parts[depth++] = config_setting_name(top);
            top = config_setting_parent(top);
        }
        if (depth == 0 || strcmp(parts[depth - 1], plugin) != 0)
            continue;
        dotted[0] = '\0';
        for (size_t d = depth; d-- > 0 && used < sizeof(dotted);)
            used += (size_t)snprintf(dotted + used, sizeof(dotted) - used, "%s%s",
                                     used > 0 ? "." : "", parts[d]);
        const char *hint = NULL;
        const char *same_plugin[HF_CONFIG_MISSES_MAX];
        size_t n = 0;
        for (size_t m = 0; m < state->miss_count; m++) {
            if (strncmp(state->misses[m], plugin, prefix_len) == 0 &&
                state->misses[m][prefix_len] == '.')
                same_plugin[n++] = state->misses[m];
        }
        hint = hf_config_suggest(dotted, same_plugin, n);
        struct hf_config_where w;
        hf_warn("%s: unknown key %s ignored: plugin %s does not read it%s%s%s",
                hf_config_where(key->setting, state, &w), dotted, plugin,
                hint ? "; did you mean " : "", hint ? hint : "", hint ? "?" : "");
    }
}

/* Names of plugins.enable that no manifest has: a typo, or two names run together. */
static void warn_enable_names(const struct hf_config_state *state,
                              const struct hf_config_plugin *plugins, size_t count, const char *dir)
{
    const char *where = NULL;
    enum hf_setting_origin origin = hf_setting_origin(HF_SETTING_PLUGINS_ENABLE, &where);
    char source[PATH_MAX + 64];
    if (origin == HF_ORIGIN_ENV)
        snprintf(source, sizeof(source), "%s", where != NULL ? where : "HIPFILE_PLUGINS");
    else
        snprintf(source, sizeof(source), "%s: plugins.enable", where != NULL ? where : "?");
    const char *candidates[HF_MAX_CONFIG_CANDIDATES];
    size_t n = 0;
    for (size_t i = 0; i < count && n < HF_MAX_CONFIG_CANDIDATES; i++)
        candidates[n++] = plugins[i].name;
    char names[512];
    plugin_list_text(plugins, count, names, sizeof(names));
    for (size_t e = 0; e < state->enable_count; e++) {
        const char *name = state->enable[e];
        if (plugin_named(plugins, count, name) != NULL)
            continue;
        /* libconfig joins adjacent strings: ["fallback" "fastpath"] is one name. */
        char hint[256] = "";
        for (size_t i = 0; i < count && hint[0] == '\0'; i++) {
            size_t len = strlen(plugins[i].name);
            if (strncmp(name, plugins[i].name, len) == 0 &&
                plugin_named(plugins, count, name + len) != NULL)
                snprintf(hint, sizeof(hint), "; is a comma missing between \"%s\" and \"%s\"?",
                         plugins[i].name, name + len);
        }
        const char *close = hint[0] == '\0' ? hf_config_suggest(name, candidates, n) : NULL;
        if (close != NULL)
            snprintf(hint, sizeof(hint), "; did you mean \"%s\"?", close);
        hf_warn("%s names \"%s\", but no manifest in %s has that name (there: %s)%s", source, name,
                dir, names, hint);
    }
}

void hf_config_warn_unused(const struct hf_config_plugin *plugins, size_t count, const char *dir)
{
    struct hf_config_state *state = hf_config_store_current();
    if (state == NULL || !hf_config_state_check_once(state))
        return;
    warn_enable_names(state, plugins, count, dir != NULL ? dir : "the plugin directory");
    if (state->parsed) {
        config_setting_t *root = config_root_setting(&state->cfg);
        int n = config_setting_length(root);
        for (int i = 0; i < n; i++) {
            config_setting_t *cs = config_setting_get_elem(root, (unsigned)i);
            const char *name = config_setting_name(cs);
            if (!config_setting_is_group(cs) || hf_setting_group_is_core(name))
                continue;
            const struct hf_config_plugin *p = plugin_named(plugins, count, name);
            if (p == NULL)
                warn_unknown_group(state, cs, plugins, count,
                                   dir != NULL ? dir : "the plugin directory");
            /* A plugin with a table had its group checked against it when it declared it. */
            else if (p != NULL && p->initialised && !hf_config_plugin_is_declared(name))
                warn_unread_keys(state, name);
        }
    }
}
