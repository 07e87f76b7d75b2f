/*
 * The keys of the plugins' groups. A plugin that declares its keys (struct hf_setting_decl, ABI
 * minor 5) has each declaration kept as a row of the core's own type, keyed "plugin.key", so the
 * file and the environment are checked, and mistakes worded, by the code that checks the core's
 * keys (value_parse.c); its group is checked when it declares and on every load, and keys no
 * declaration names are reported then. A plugin without a table is answered from its group as
 * parsed: each look-up marks the key it found, and once the plugins are loaded the keys nothing
 * read are reported, with the key a look-up missed when one is close. So are top-level groups no
 * plugin owns and plugins.enable names no manifest has.
 *
 * Values are resolved again on every load and swapped in whole, and nothing a reader was handed is
 * freed, so reads never lock.
 */
#include "config/plugin_keys.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config/config_store.h"
#include "config/env.h"
#include "config/value_parse.h"

/* The value of one declared key and where it came from. Never freed once published. */
struct hf_config_declared_value {
    int64_t num;                   /* int or bool (0/1) value */
    const char *text;              /* string value (a declared name's canonical spelling) */
    enum hf_setting_origin origin; /* default, file or environment */
    const char *where;             /* "file:line" or the variable; NULL for the default */
};

/* A plugin's declarations, their rows and their values, immutable once published. */
struct hf_config_declared_block {
    const struct hf_setting_decl *decls;     /* the plugin's table, kept by reference */
    unsigned count;                          /* entries in decls, rows and values */
    struct hf_setting *rows;                 /* each declaration as a row, keyed "plugin.key" */
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

/* @p decl as a row, keyed "plugin.key" so that messages name the key as the file spells it. */
static int row_from_decl(const char *plugin, const struct hf_setting_decl *decl,
                         struct hf_setting *row)
{
    char key[HF_SETTING_KEY_MAX];
    if (decl->key == NULL || decl->key[0] == '\0' ||
        snprintf(key, sizeof(key), "%s.%s", plugin, decl->key) >= (int)sizeof(key)) {
        hf_error("plugin %s declares a setting without a usable key", plugin);
        return -EINVAL;
    }
    if (decl->type != HF_DECL_INT && decl->type != HF_DECL_BOOL && decl->type != HF_DECL_STRING) {
        hf_error("plugin %s declares %s with unknown type %d", plugin, key, decl->type);
        return -EINVAL;
    }
    *row = (struct hf_setting){.decl = *decl};
    row->decl.unit = decl->unit != NULL ? decl->unit : "";
    row->decl.help = decl->help != NULL ? decl->help : "";
    row->decl.key = hf_config_keep_string(key);
    return row->decl.key != NULL ? 0 : -ENOMEM;
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
                hf_config_where(cs, &state->file, &w), plugin, key, plugin,
                undeclared_hint(plugin, block, key, hint, sizeof(hint)));
    }
}

/* The group named @p plugin in @p state's file, or NULL. */
static const config_setting_t *plugin_group(const struct hf_config_state *state, const char *plugin)
{
    if (state == NULL || !state->file.parsed)
        return NULL;
    const config_setting_t *group =
        config_setting_get_member(config_root_setting(&state->file.cfg), plugin);
    return group != NULL && config_setting_is_group(group) ? group : NULL;
}

/* A resolved string: the canonical name of a named value, else the text itself. */
static const char *resolved_text(const struct hf_setting *row, int64_t num, const char *text)
{
    return hf_setting_type(row) == HF_TYPE_ENUM ? row->decl.names[num] : text;
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
        *v = (struct hf_config_declared_value){.num = row->decl.default_int,
                                               .text = row->decl.default_string,
                                               .origin = HF_ORIGIN_DEFAULT};
        int64_t num = 0;
        const char *text = NULL;
        const config_setting_t *cs =
            group != NULL ? config_setting_lookup((config_setting_t *)group, block->decls[i].key)
                          : NULL;
        if (cs != NULL) {
            int err = hf_setting_value_from_file(row, cs, &state->file, &num, &text);
            if (err < 0) {
                rc = rc < 0 ? rc : err;
            } else {
                struct hf_config_where w;
                v->num = num;
                v->text = resolved_text(row, num, text);
                v->origin = HF_ORIGIN_FILE;
                v->where = hf_config_keep_string(hf_config_where(cs, &state->file, &w));
            }
        }
        /* An empty variable counts as unset, as for the core's own variables. */
        const char *env = row->decl.env != NULL ? hf_env_get(row->decl.env) : NULL;
        if (env != NULL && env[0] != '\0') {
            int err = hf_setting_value_from_env(row, env, &num, &text);
            if (err < 0) {
                rc = rc < 0 ? rc : err;
            } else {
                v->num = num;
                v->text = resolved_text(row, num, text);
                v->origin = HF_ORIGIN_ENV;
                v->where = row->decl.env;
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

static void declared_discard(struct hf_config_declared_staged *staged)
{
    for (size_t i = 0; i < staged->count; i++) {
        block_free(staged->blocks[i]);
        staged->blocks[i] = NULL;
    }
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
        struct hf_config_declared_block *block =
            block_new(declared[i].name, old->decls, old->count);
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
        declared_discard(staged);
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

void hf_config_declared_forget(void)
{
    size_t count = atomic_load(&declared_count);
    for (size_t i = 0; i < count; i++)
        block_replace(&declared[i], NULL);
}

static bool plugin_is_declared(const char *plugin)
{
    return block_of(plugin) != NULL;
}

static int declared_find_key(const char *plugin, const char *key, const struct hf_setting **row_p,
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

/* ---- keys of plugins without a table ---- */

/* Misses are recorded from any thread that looks a key up, until the check has run. */
static pthread_mutex_t misses_lock = PTHREAD_MUTEX_INITIALIZER;

/* Remember that @p plugin looked for @p key and found nothing: what a misspelling was meant as. */
static void miss_record(struct hf_config_state *state, const char *plugin, const char *key)
{
    char dotted[HF_SETTING_KEY_MAX];
    if (snprintf(dotted, sizeof(dotted), "%s.%s", plugin, key) >= (int)sizeof(dotted))
        return;
    pthread_mutex_lock(&misses_lock);
    bool known = atomic_load(&state->checked) || state->miss_count >= HF_CONFIG_MISSES_MAX;
    for (size_t i = 0; !known && i < state->miss_count; i++)
        known = strcmp(state->misses[i], dotted) == 0;
    if (!known) {
        char *copy = strdup(dotted);
        if (copy != NULL)
            state->misses[state->miss_count++] = copy;
    }
    pthread_mutex_unlock(&misses_lock);
}

/* A key of a plugin's group ("fallback.bounce_buffers"), in the published file; NULL if absent. */
static const config_setting_t *plugin_lookup(const char *plugin, const char *key,
                                             const struct hf_config_state **state_p)
{
    struct hf_config_state *state = hf_config_store_current();
    if (state == NULL || !state->file.parsed || plugin == NULL || key == NULL)
        return NULL;
    config_setting_t *group =
        config_setting_get_member(config_root_setting(&state->file.cfg), plugin);
    config_setting_t *cs = NULL;
    if (group != NULL && config_setting_is_group(group))
        cs = config_setting_lookup(group, key);
    if (cs == NULL) {
        if (!atomic_load(&state->checked))
            miss_record(state, plugin, key);
        return NULL;
    }
    /* The hook was set before the state was published, so reading it here is safe. */
    struct hf_config_plugin_key *entry = config_setting_get_hook(cs);
    if (entry != NULL)
        atomic_store(&entry->read, true);
    *state_p = state;
    return cs;
}

static bool state_check_once(struct hf_config_state *state)
{
    /* From here no look-up records a miss, so the list may be read without the lock. */
    pthread_mutex_lock(&misses_lock);
    bool checked = atomic_exchange(&state->checked, true);
    pthread_mutex_unlock(&misses_lock);
    return !checked;
}

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
    config_setting_t *root = config_root_setting(&state->file.cfg);
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

/* ---- reads ---- */

/*
 * A core setting a backend may read through its host API: the key starts with a core group
 * ("properties.max_device_cache_size_kb"), so it can never name a key of the backend's own group.
 * Backends read these on use rather than once, which is how a limit changed while the driver is
 * open reaches them.
 */
static const struct hf_setting *core_row(const char *key)
{
    const char *dot = key != NULL ? strchr(key, '.') : NULL;
    char group[HF_SETTING_KEY_MAX];
    if (dot == NULL || (size_t)(dot - key) >= sizeof(group))
        return NULL;
    memcpy(group, key, (size_t)(dot - key));
    group[dot - key] = '\0';
    if (!hf_setting_group_is_core(group))
        return NULL;
    const struct hf_setting *s = hf_setting_find(key);
    return s != NULL && hf_setting_type(s) != HF_TYPE_LIST && hf_setting_type(s) != HF_TYPE_MAP
               ? s
               : NULL;
}

/* A plugin read its own declared key with the wrong function: its table and code disagree. */
static int declared_type_error(const struct hf_setting *row, const char *expected)
{
    char declared[256];
    hf_error("%s is declared as %s; it cannot be read as %s", row->decl.key,
             hf_setting_describe(row, declared, sizeof(declared)), expected);
    return -EINVAL;
}

/*
 * Plugin @p plugin's declared key @p key read as a value of @p type (a string read also takes a
 * named value): 0 with *value_p, -ENOENT for a key its table does not declare, -EINVAL (logged)
 * for another type, or 1 when the plugin declares no table and its group is read as parsed.
 */
static int declared_read(const char *plugin, const char *key, enum hf_setting_type type,
                         const char *expected, const struct hf_config_declared_value **value_p)
{
    const struct hf_setting *row;
    int rc = declared_find_key(plugin, key, &row, value_p);
    if (rc == -ESRCH)
        return 1;
    if (rc < 0)
        return rc;
    enum hf_setting_type have = hf_setting_type(row);
    bool fits = have == type || (type == HF_TYPE_STRING && have == HF_TYPE_ENUM);
    return fits ? 0 : declared_type_error(row, expected);
}

static int plugin_type_error(const char *plugin, const char *key, const config_setting_t *cs,
                             const struct hf_config_state *state, const char *expected)
{
    struct hf_config_where w;
    if (cs == NULL)
        hf_error("%s.%s is a built-in setting of another type; expected %s", plugin, key, expected);
    else
        hf_error("%s: %s.%s is %s; expected %s", hf_config_where(cs, &state->file, &w), plugin, key,
                 hf_config_type_phrase(config_setting_type(cs)), expected);
    return -EINVAL;
}

/* Whether a core row of type @p have answers a plugin's read of type @p want. */
static bool core_row_fits(enum hf_setting_type have, enum hf_setting_type want)
{
    switch (want) {
    case HF_TYPE_INT:
        return have == HF_TYPE_INT || have == HF_TYPE_ENUM;
    case HF_TYPE_BOOL:
        return have == HF_TYPE_BOOL;
    default:
        return have == HF_TYPE_STRING || have == HF_TYPE_ENUM;
    }
}

/* Whether a value the file gives as libconfig type @p have answers a read of type @p want. */
static bool file_value_fits(int have, enum hf_setting_type want)
{
    switch (want) {
    case HF_TYPE_INT:
        return have == CONFIG_TYPE_INT || have == CONFIG_TYPE_INT64;
    case HF_TYPE_BOOL:
        return have == CONFIG_TYPE_BOOL;
    default:
        return have == CONFIG_TYPE_STRING;
    }
}

/*
 * The one reader behind hf_config_plugin_int, _bool and _string. A key lives in one of three
 * places, tried in this order: a core setting named by its dotted key (older plugins read core
 * limits that way), a key the plugin declared, or a key of the plugin's group as the file gives
 * it. @p want is HF_TYPE_INT, HF_TYPE_BOOL or HF_TYPE_STRING; the value goes to *num_p (int and
 * bool, 0/1) or *text_p (string).
 */
static int plugin_read(const char *plugin, const char *key, enum hf_setting_type want,
                       const char *expected, int64_t *num_p, const char **text_p)
{
    const struct hf_setting *s = core_row(key);
    if (s != NULL) {
        if (!core_row_fits(hf_setting_type(s), want))
            return plugin_type_error(plugin, key, NULL, NULL, expected);
        enum hf_setting_id id = hf_setting_id_of(s);
        if (want == HF_TYPE_STRING)
            *text_p = hf_setting_string(id);
        else
            *num_p = want == HF_TYPE_BOOL ? hf_setting_bool(id) : hf_setting_int(id);
        return 0;
    }
    const struct hf_config_declared_value *v;
    int declared = declared_read(plugin, key, want, expected, &v);
    if (declared <= 0) {
        if (declared == 0) {
            *num_p = want == HF_TYPE_BOOL ? v->num != 0 : v->num;
            *text_p = v->text;
        }
        return declared;
    }
    const struct hf_config_state *state;
    const config_setting_t *cs = plugin_lookup(plugin, key, &state);
    if (cs == NULL)
        return -ENOENT;
    if (!file_value_fits(config_setting_type(cs), want))
        return plugin_type_error(plugin, key, cs, state, expected);
    if (want == HF_TYPE_STRING)
        *text_p = config_setting_get_string(cs);
    else
        *num_p = want == HF_TYPE_BOOL ? config_setting_get_bool(cs) : config_setting_get_int64(cs);
    return 0;
}

/* plugin_read writes its outputs only on success, so a failed read leaves the caller's value. */
int hf_config_plugin_int(const char *plugin, const char *key, int64_t *value_p)
{
    const char *text;
    return plugin_read(plugin, key, HF_TYPE_INT, "an integer", value_p, &text);
}

int hf_config_plugin_bool(const char *plugin, const char *key, bool *value_p)
{
    int64_t num = 0;
    const char *text = NULL;
    int rc = plugin_read(plugin, key, HF_TYPE_BOOL, "true or false", &num, &text);
    if (rc == 0)
        *value_p = num != 0;
    return rc;
}

int hf_config_plugin_string(const char *plugin, const char *key, const char **value_p)
{
    int64_t num;
    return plugin_read(plugin, key, HF_TYPE_STRING, "a string", &num, value_p);
}

/* ---- what nothing claimed ---- */

/* Names a "did you mean" hint chooses among: the core's groups and the manifests' names. */
#define HF_MAX_CONFIG_CANDIDATES 64

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
            hf_config_where(cs, &state->file, &w), name, dir,
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
                hf_config_where(key->setting, &state->file, &w), dotted, plugin,
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
    if (state == NULL || !state_check_once(state))
        return;
    warn_enable_names(state, plugins, count, dir != NULL ? dir : "the plugin directory");
    if (state->file.parsed) {
        config_setting_t *root = config_root_setting(&state->file.cfg);
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
            else if (p != NULL && p->initialised && !plugin_is_declared(name))
                warn_unread_keys(state, name);
        }
    }
}
