/*
 * Keys a plugin declares for its own group (struct hf_setting_decl, plugin ABI minor 5). Each
 * declaration becomes a row of the same shape as the core's table, so the file and the environment
 * are checked, and mistakes worded, by the very code that checks the core's keys (config.c); the
 * values resolved from the file, the declaration's variable and its default are kept with where
 * each came from. A plugin that declares a table is answered from it alone: keys of its group that
 * no declaration names are reported when it declares, instead of when nothing has read them.
 *
 * Values are resolved again on every load and swapped in whole, and nothing a reader was handed is
 * freed, so reads never lock.
 */
#include <errno.h>
#include <hipfile/backend.h>
#include <libconfig.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "config/config.h"
#include "config/config_store.h"

/* A plugin's declarations, their rows and their values, immutable once published. */
struct hf_config_declared_block {
    const struct hf_setting_decl *decls;     /* the plugin's table, kept by reference */
    unsigned count;                          /* entries in decls, rows and values */
    struct hf_setting *rows;                 /* each declaration as a row of the core's shape */
    struct hf_config_declared_value *values; /* what each key resolved to */
    struct hf_config_declared_block *retired_next; /* the block retired before this one */
};

struct declared_plugin {
    const char *name;                                 /* kept string */
    _Atomic(struct hf_config_declared_block *) block; /* NULL once forgotten */
};

/* Entries are only appended (under the store lock); readers see a count that covers them. */
static struct declared_plugin declared[HF_CONFIG_DECLARED_MAX];
static atomic_size_t declared_count;

/*
 * Blocks replaced by a reload or forgotten by a reset. A reader may still hold one, so they are
 * never freed; the list keeps them reachable, as the store keeps its older states.
 */
static struct hf_config_declared_block *retired;

/* Publish @p block (NULL: forget) for @p p and retire the one it replaces. Store lock held. */
static void block_replace(struct declared_plugin *p, struct hf_config_declared_block *block)
{
    struct hf_config_declared_block *old = atomic_exchange(&p->block, block);
    if (old != NULL) {
        old->retired_next = retired;
        retired = old;
    }
}

/* A declared string without a list of names takes any text, the empty string included. */
static const char *check_any_text(const char *value)
{
    (void)value;
    return NULL;
}

static size_t names_count(const char *const *names)
{
    size_t n = 0;
    while (names[n] != NULL)
        n++;
    return n;
}

/* The row the core's checks and messages run on for @p decl, keyed "plugin.key". Lock held. */
static int row_from_decl(const char *plugin, const struct hf_setting_decl *decl,
                         struct hf_setting *row)
{
    char key[HF_SETTING_KEY_MAX];
    if (decl->key == NULL || decl->key[0] == '\0' ||
        snprintf(key, sizeof(key), "%s.%s", plugin, decl->key) >= (int)sizeof(key)) {
        hf_error("plugin %s declares a setting without a usable key", plugin);
        return -EINVAL;
    }
    *row = (struct hf_setting){.unit = decl->unit != NULL ? decl->unit : "",
                               .default_int = decl->default_int,
                               .default_string = decl->default_string,
                               .env = decl->env,
                               .live = decl->live,
                               .help = decl->help != NULL ? decl->help : ""};
    switch (decl->type) {
    case HF_DECL_INT:
        row->type = HF_TYPE_INT;
        row->min = decl->min;
        row->max = decl->max;
        row->multiple = decl->multiple;
        break;
    case HF_DECL_BOOL:
        row->type = HF_TYPE_BOOL;
        row->max = 1;
        break;
    case HF_DECL_STRING:
        if (decl->names != NULL && decl->names[0] != NULL) {
            row->type = HF_TYPE_ENUM;
            row->names = decl->names;
            row->max = (int64_t)names_count(decl->names) - 1;
        } else {
            row->type = HF_TYPE_STRING;
            row->check_string = check_any_text;
        }
        break;
    default:
        hf_error("plugin %s declares %s with unknown type %d", plugin, key, decl->type);
        return -EINVAL;
    }
    row->key = hf_config_keep_string(key);
    return row->key != NULL ? 0 : -ENOMEM;
}

static void block_free(struct hf_config_declared_block *block)
{
    if (block == NULL)
        return;
    free(block->rows);
    free(block->values);
    free(block);
}

/* Rows for @p count declarations, values not yet resolved. NULL (logged) on a bad table. */
static struct hf_config_declared_block *
block_new(const char *plugin, const struct hf_setting_decl *decls, unsigned count)
{
    struct hf_config_declared_block *block = calloc(1, sizeof(*block));
    if (block == NULL)
        return NULL;
    block->decls = decls;
    block->count = count;
    block->rows = calloc(count + 1, sizeof(*block->rows));
    block->values = calloc(count + 1, sizeof(*block->values));
    if (block->rows == NULL || block->values == NULL) {
        block_free(block);
        return NULL;
    }
    for (unsigned i = 0; i < count; i++) {
        if (row_from_decl(plugin, &decls[i], &block->rows[i]) < 0) {
            block_free(block);
            return NULL;
        }
    }
    return block;
}

/* A copy of @p old's table with fresh values, for a load that resolves them again. */
static struct hf_config_declared_block *block_copy(const struct hf_config_declared_block *old)
{
    struct hf_config_declared_block *block = calloc(1, sizeof(*block));
    if (block == NULL)
        return NULL;
    *block = (struct hf_config_declared_block){.decls = old->decls, .count = old->count};
    block->rows = calloc(old->count + 1, sizeof(*block->rows));
    block->values = calloc(old->count + 1, sizeof(*block->values));
    if (block->rows == NULL || block->values == NULL) {
        block_free(block);
        return NULL;
    }
    memcpy(block->rows, old->rows, old->count * sizeof(*block->rows));
    return block;
}

static int declared_index(const struct hf_config_declared_block *block, const char *key)
{
    for (unsigned i = 0; i < block->count; i++) {
        if (strcmp(block->decls[i].key, key) == 0)
            return (int)i;
    }
    return -1;
}

/* Whether some declared key lives under subgroup @p prefix ("cache" for "cache.size"). */
static bool declared_under(const struct hf_config_declared_block *block, const char *prefix)
{
    size_t len = strlen(prefix);
    for (unsigned i = 0; i < block->count; i++) {
        if (strncmp(block->decls[i].key, prefix, len) == 0 && block->decls[i].key[len] == '.')
            return true;
    }
    return false;
}

/* "; did you mean plugin.key?" for the declared key nearest @p key, or the keys it declares. */
static const char *undeclared_hint(const char *plugin, const struct hf_config_declared_block *block,
                                   const char *key, char *buf, size_t size)
{
    const char **keys = calloc(block->count + 1, sizeof(*keys));
    if (keys == NULL)
        return "";
    for (unsigned i = 0; i < block->count; i++)
        keys[i] = block->decls[i].key;
    const char *close = hf_config_suggest(key, keys, block->count);
    if (close != NULL) {
        snprintf(buf, size, "; did you mean %s.%s?", plugin, close);
    } else {
        size_t used = (size_t)snprintf(buf, size, " (it declares:");
        for (unsigned i = 0; i < block->count && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "%s %s", i > 0 ? "," : "", keys[i]);
        if (block->count == 0 && used < size)
            used += (size_t)snprintf(buf + used, size - used, " no keys");
        if (used < size)
            snprintf(buf + used, size - used, ")");
    }
    free(keys);
    return buf;
}

/* Keys under @p group ("sub." prefix @p rel) that no declaration names, each with file:line. */
static void warn_undeclared(const char *plugin, const struct hf_config_declared_block *block,
                            const config_setting_t *group, const char *rel,
                            const struct hf_config_state *state)
{
    int count = config_setting_length(group);
    for (int i = 0; i < count; i++) {
        const config_setting_t *cs = config_setting_get_elem(group, (unsigned)i);
        char key[HF_SETTING_KEY_MAX];
        if (snprintf(key, sizeof(key), "%s%s%s", rel != NULL ? rel : "", rel != NULL ? "." : "",
                     config_setting_name(cs)) >= (int)sizeof(key))
            continue;
        if (declared_index(block, key) >= 0)
            continue;
        if (config_setting_is_group(cs) && declared_under(block, key)) {
            warn_undeclared(plugin, block, cs, key, state);
            continue;
        }
        struct hf_config_where w;
        char hint[HF_SETTING_KEY_MAX * 4];
        hf_warn("%s: unknown key %s.%s ignored: plugin %s declares no such key%s",
                hf_config_where(cs, state, &w), plugin, key, plugin,
                undeclared_hint(plugin, block, key, hint, sizeof(hint)));
    }
}

/* The group named @p plugin in @p state's file, or NULL. */
static const config_setting_t *plugin_group(const struct hf_config_state *state, const char *plugin)
{
    if (state == NULL || !state->parsed)
        return NULL;
    const config_setting_t *group =
        config_setting_get_member(config_root_setting(&state->cfg), plugin);
    return group != NULL && config_setting_is_group(group) ? group : NULL;
}

/* A resolved string: the canonical name of a named value, else the text itself. */
static const char *resolved_text(const struct hf_setting *row, int64_t num, const char *text)
{
    return row->type == HF_TYPE_ENUM ? row->names[num] : text;
}

/*
 * The value of every key of @p block: its default, then the file's value, then its variable's.
 * Every mistake is reported before returning the first one's error, so one run shows them all.
 * Lock held.
 */
static int block_resolve(const char *plugin, struct hf_config_declared_block *block,
                         const struct hf_config_state *state)
{
    const config_setting_t *group = plugin_group(state, plugin);
    int rc = 0;
    for (unsigned i = 0; i < block->count; i++) {
        const struct hf_setting *row = &block->rows[i];
        struct hf_config_declared_value *v = &block->values[i];
        *v = (struct hf_config_declared_value){
            .num = row->default_int, .text = row->default_string, .origin = HF_ORIGIN_DEFAULT};
        int64_t num = 0;
        const char *text = NULL;
        const config_setting_t *cs =
            group != NULL ? config_setting_lookup((config_setting_t *)group, block->decls[i].key)
                          : NULL;
        if (cs != NULL) {
            int err = hf_config_value_from_file(row, cs, state, &num, &text);
            if (err < 0) {
                rc = rc < 0 ? rc : err;
            } else {
                struct hf_config_where w;
                v->num = num;
                v->text = resolved_text(row, num, text);
                v->origin = HF_ORIGIN_FILE;
                v->where = hf_config_keep_string(hf_config_where(cs, state, &w));
            }
        }
        /* An empty variable counts as unset, as for the core's own variables. */
        const char *env = row->env != NULL ? hf_env_get(row->env) : NULL;
        if (env != NULL && env[0] != '\0') {
            int err = hf_config_value_from_env(row, env, &num, &text);
            if (err < 0) {
                rc = rc < 0 ? rc : err;
            } else {
                v->num = num;
                v->text = resolved_text(row, num, text);
                v->origin = HF_ORIGIN_ENV;
                v->where = row->env;
            }
        }
    }
    if (group != NULL)
        warn_undeclared(plugin, block, group, NULL, state);
    return rc;
}

static struct declared_plugin *declared_find(const char *plugin)
{
    size_t count = atomic_load(&declared_count);
    for (size_t i = 0; plugin != NULL && i < count; i++) {
        if (strcmp(declared[i].name, plugin) == 0)
            return &declared[i];
    }
    return NULL;
}

static const struct hf_config_declared_block *block_of(const char *plugin)
{
    struct declared_plugin *p = declared_find(plugin);
    return p != NULL ? atomic_load(&p->block) : NULL;
}

int hf_config_declare_plugin_settings(const char *plugin, const struct hf_setting_decl *decls,
                                      unsigned count)
{
    if (plugin == NULL || plugin[0] == '\0' || (decls == NULL && count > 0))
        return -EINVAL;
    int rc = 0;
    hf_config_store_lock();
    struct hf_config_declared_block *block = block_new(plugin, decls, count);
    if (block == NULL) {
        rc = -EINVAL;
        goto out_unlock;
    }
    rc = block_resolve(plugin, block, hf_config_store_current());
    if (rc < 0)
        goto out_free;
    struct declared_plugin *p = declared_find(plugin);
    if (p == NULL) {
        size_t n = atomic_load(&declared_count);
        const char *name = hf_config_keep_string(plugin);
        if (n >= HF_CONFIG_DECLARED_MAX || name == NULL) {
            hf_error("cannot record the settings plugin %s declares: too many plugins", plugin);
            rc = -ENOMEM;
            goto out_free;
        }
        declared[n].name = name;
        atomic_store(&declared[n].block, NULL);
        atomic_store(&declared_count, n + 1);
        p = &declared[n];
    }
    block_replace(p, block);
    goto out_unlock;
out_free:
    block_free(block);
out_unlock:
    hf_config_store_unlock();
    return rc;
}

int hf_config_declared_stage(const struct hf_config_state *state,
                             struct hf_config_declared_staged *staged)
{
    memset(staged, 0, sizeof(*staged));
    size_t count = atomic_load(&declared_count);
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        const struct hf_config_declared_block *old = atomic_load(&declared[i].block);
        if (old == NULL)
            continue;
        struct hf_config_declared_block *block = block_copy(old);
        if (block == NULL) {
            rc = -ENOMEM;
            break;
        }
        staged->blocks[i] = block;
        int err = block_resolve(declared[i].name, block, state);
        rc = rc < 0 ? rc : err;
    }
    staged->count = count;
    if (rc < 0)
        hf_config_declared_discard(staged);
    return rc;
}

void hf_config_declared_publish(struct hf_config_declared_staged *staged)
{
    for (size_t i = 0; i < staged->count; i++) {
        if (staged->blocks[i] != NULL)
            block_replace(&declared[i], staged->blocks[i]);
        staged->blocks[i] = NULL;
    }
}

void hf_config_declared_discard(struct hf_config_declared_staged *staged)
{
    for (size_t i = 0; i < staged->count; i++) {
        block_free(staged->blocks[i]);
        staged->blocks[i] = NULL;
    }
}

void hf_config_declared_forget(void)
{
    size_t count = atomic_load(&declared_count);
    for (size_t i = 0; i < count; i++)
        block_replace(&declared[i], NULL);
}

bool hf_config_plugin_is_declared(const char *plugin)
{
    return block_of(plugin) != NULL;
}

int hf_config_declared_find(const char *plugin, const char *key, const struct hf_setting **row_p,
                            const struct hf_config_declared_value **value_p)
{
    const struct hf_config_declared_block *block = block_of(plugin);
    if (block == NULL)
        return -ESRCH;
    int i = key != NULL ? declared_index(block, key) : -1;
    if (i < 0)
        return -ENOENT;
    *row_p = &block->rows[i];
    *value_p = &block->values[i];
    return 0;
}

int hf_config_declared_at(const char *plugin, unsigned index,
                          struct hf_config_declared_setting *out)
{
    const struct hf_config_declared_block *block = block_of(plugin);
    if (block == NULL)
        return -ESRCH;
    if (index >= block->count)
        return -ENOENT;
    const struct hf_config_declared_value *v = &block->values[index];
    *out = (struct hf_config_declared_setting){.decl = &block->decls[index],
                                               .row = &block->rows[index],
                                               .num = v->num,
                                               .text = v->text,
                                               .origin = v->origin,
                                               .where = v->where};
    return 0;
}
