/*
 * The settings readers see: atomics per setting with where each value came from, the published
 * file for plugin groups (with a mark on every plugin key a look-up found, so the keys no plugin
 * read can be reported), and the values the parameter API set, which every later load re-applies.
 * Writers serialise on one mutex; nothing a reader was handed is ever freed, so reads never lock.
 */
#include "config/config_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/install_paths.h"
#include "base/log.h"
#include "common/regular_file.h"
#include "config/setting_values.h"

/* What a parameter-API call set, re-applied on top of every later load. */
struct override {
    bool set;
    int64_t num;
    const char *text;
};

struct kept_string {
    struct kept_string *next;
    char text[];
};

static _Atomic int64_t slot_num[HF_SETTING_COUNT];
static _Atomic(const char *) slot_text[HF_SETTING_COUNT];
static _Atomic int slot_origin[HF_SETTING_COUNT];
static _Atomic(const char *) slot_origin_where[HF_SETTING_COUNT];
static _Atomic(struct hf_config_state *) current_state;
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

/* Everything below is guarded by write_lock. */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static struct override overrides[HF_SETTING_COUNT];
static struct kept_string *kept_strings;
static struct hf_config_state *kept_states; /* every state ever published */
static const char *log_target; /* the file this module pointed the log at, NULL = not ours */
/* What the last publish stored before the overrides went over it; all zero before any. */
static struct hf_config_staged published_loaded;
static bool published_loaded_set;

void hf_config_store_lock(void)
{
    pthread_mutex_lock(&write_lock);
}

void hf_config_store_unlock(void)
{
    pthread_mutex_unlock(&write_lock);
}

/* Readers may hold any string ever published, so every copy lives as long as the process. */
const char *hf_config_keep_string(const char *text)
{
    size_t len = strlen(text) + 1;
    struct kept_string *kept = malloc(sizeof(*kept) + len);
    if (kept == NULL)
        return NULL;
    memcpy(kept->text, text, len);
    kept->next = kept_strings;
    kept_strings = kept;
    return kept->text;
}

/* Views and the list/map settings have no slot of their own. */
static bool is_stored(const struct hf_setting *s)
{
    return s->view == HF_VIEW_NONE && s->type != HF_TYPE_LIST && s->type != HF_TYPE_MAP;
}

void hf_config_stage_defaults(struct hf_config_staged *st)
{
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        st->num[i] = hf_settings[i].default_int;
        st->text[i] = hf_settings[i].default_string;
        st->origin[i] = HF_ORIGIN_DEFAULT;
        st->origin_where[i] = NULL;
    }
    /*
     * The plugins installed with this library, wherever it was installed or moved to; the table's
     * compiled-in directory only when the core cannot tell where it lives.
     */
    const char *plugin_dir = hf_install_plugin_dir();
    if (plugin_dir != NULL)
        st->text[HF_SETTING_PLUGINS_DIRECTORY] = plugin_dir;
}

static void slots_store(const struct hf_config_staged *st)
{
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        atomic_store(&slot_origin[i], (int)st->origin[i]);
        atomic_store(&slot_origin_where[i], st->origin_where[i]);
        if (!is_stored(&hf_settings[i]))
            continue;
        atomic_store(&slot_num[i], st->num[i]);
        atomic_store(&slot_text[i], st->text[i]);
    }
}

static void slots_fill_defaults(void)
{
    struct hf_config_staged st;
    hf_config_stage_defaults(&st);
    slots_store(&st);
}

/* Settings read before any load see the built-in defaults. */
static void slots_init(void)
{
    pthread_once(&slots_once, slots_fill_defaults);
}

const char *hf_config_type_phrase(int config_type)
{
    switch (config_type) {
    case CONFIG_TYPE_GROUP:
        return "a group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        return "an integer";
    case CONFIG_TYPE_FLOAT:
        return "a floating-point number";
    case CONFIG_TYPE_STRING:
        return "a string";
    case CONFIG_TYPE_BOOL:
        return "a boolean";
    case CONFIG_TYPE_ARRAY:
        return "an array";
    case CONFIG_TYPE_LIST:
        return "a list";
    }
    return "empty";
}

/*
 * libconfig records an included file by the name written after @include, which is relative to the
 * config file's directory; messages name the path it actually opened.
 */
const char *hf_config_join_dir(const struct hf_config_state *state, const char *file, char *buf,
                               size_t size)
{
    if (file == NULL)
        return state->path;
    if (file[0] == '/' || state->dir == NULL)
        return file;
    snprintf(buf, size, "%s/%s", state->dir, file);
    return buf;
}

const char *hf_config_where(const config_setting_t *cs, const struct hf_config_state *state,
                            struct hf_config_where *where)
{
    char path[PATH_MAX];
    const char *file =
        hf_config_join_dir(state, config_setting_source_file(cs), path, sizeof(path));
    snprintf(where->text, sizeof(where->text), "%s:%u", file, config_setting_source_line(cs));
    return where->text;
}

/* ---- the log ------------------------------------------------------------------------------- */

/*
 * Point the log at log.file, or at log.dir/hipfile_<pid>.log; leave a sink we did not set alone.
 * A refusal is described in @p why (HFP_REGULAR_WHY_SIZE bytes).
 */
static int log_redirect(const char *file, const char *dir, char *why)
{
    why[0] = '\0';
    char path[PATH_MAX];
    const char *target = NULL;
    if (file != NULL && file[0] != '\0') {
        target = file;
    } else if (dir != NULL && dir[0] != '\0') {
        snprintf(path, sizeof(path), "%s/hipfile_%d.log", dir, (int)getpid());
        target = path;
    }
    if (target == NULL) {
        if (log_target != NULL)
            hf_log_set_file(NULL);
        log_target = NULL;
        return 0;
    }
    if (log_target != NULL && strcmp(log_target, target) == 0)
        return 0;
    int rc = hf_log_set_file_why(target, why, HFP_REGULAR_WHY_SIZE);
    if (rc < 0)
        return rc;
    log_target = hf_config_keep_string(target);
    return 0;
}

static void log_apply_loaded(void)
{
    hf_log_set_level((int)atomic_load(&slot_num[HF_SETTING_LOG_LEVEL]));
    const char *file = atomic_load(&slot_text[HF_SETTING_LOG_FILE]);
    const char *dir = atomic_load(&slot_text[HF_SETTING_LOG_DIR]);
    char why[HFP_REGULAR_WHY_SIZE];
    int rc = log_redirect(file, dir, why);
    /* A log file that cannot be opened must not stop I/O; lines keep going to the old sink. */
    if (rc == -EINVAL)
        hf_warn("log file %s%s is %s; logging continues where it went before", file[0] ? file : dir,
                file[0] ? "" : "/hipfile_<pid>.log", why);
    else if (rc < 0)
        hf_warn("cannot open log file %s%s: %s; logging continues where it went before",
                file[0] ? file : dir, file[0] ? "" : "/hipfile_<pid>.log", strerror(-rc));
}

void hf_config_store_publish(struct hf_config_staged *st, struct hf_config_state *state)
{
    slots_init();
    published_loaded = *st;
    published_loaded_set = true;
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        if (overrides[i].set) {
            st->num[i] = overrides[i].num;
            st->text[i] = overrides[i].text;
            st->origin[i] = HF_ORIGIN_API;
            st->origin_where[i] = NULL;
        }
    }
    slots_store(st);
    if (state != NULL) {
        state->older = kept_states;
        kept_states = state;
    }
    atomic_store(&current_state, state);
    log_apply_loaded();
}

void hf_config_store_forget_overrides(void)
{
    memset(overrides, 0, sizeof(overrides));
}

void hf_config_drop_api_values(void)
{
    slots_init();
    hf_config_store_lock();
    bool any = false;
    for (size_t i = 0; i < HF_SETTING_COUNT; i++)
        any = any || overrides[i].set;
    if (any) {
        if (!published_loaded_set)
            hf_config_stage_defaults(&published_loaded);
        hf_config_store_forget_overrides();
        /* The load's own values, not a new read of the file: close must not fail or change them. */
        slots_store(&published_loaded);
        log_apply_loaded();
    }
    hf_config_store_unlock();
}

/* ---- reads --------------------------------------------------------------------------------- */

int64_t hf_setting_int(enum hf_setting_id id)
{
    if ((unsigned)id >= HF_SETTING_COUNT)
        return 0;
    slots_init();
    const struct hf_setting *s = &hf_settings[id];
    if (s->view == HF_VIEW_COMPAT_ALLOW)
        return atomic_load(&slot_num[HF_SETTING_COMPAT_MODE]) != HF_COMPAT_OFF;
    if (s->view == HF_VIEW_COMPAT_FORCE)
        return atomic_load(&slot_num[HF_SETTING_COMPAT_MODE]) == HF_COMPAT_FORCE;
    if (!is_stored(s) || s->type == HF_TYPE_STRING)
        return 0;
    return atomic_load(&slot_num[id]);
}

bool hf_setting_bool(enum hf_setting_id id)
{
    return hf_setting_int(id) != 0;
}

const char *hf_setting_string(enum hf_setting_id id)
{
    if ((unsigned)id >= HF_SETTING_COUNT)
        return NULL;
    slots_init();
    const struct hf_setting *s = &hf_settings[id];
    if (s->type == HF_TYPE_STRING)
        return atomic_load(&slot_text[id]);
    if (s->type == HF_TYPE_ENUM)
        return s->names[atomic_load(&slot_num[id])];
    return NULL;
}

enum hf_compat_mode hf_config_compat_mode(void)
{
    return (enum hf_compat_mode)hf_setting_int(HF_SETTING_COMPAT_MODE);
}

enum hf_setting_origin hf_setting_origin(enum hf_setting_id id, const char **where_p)
{
    if (where_p != NULL)
        *where_p = NULL;
    if ((unsigned)id >= HF_SETTING_COUNT)
        return HF_ORIGIN_DEFAULT;
    slots_init();
    if (hf_settings[id].view != HF_VIEW_NONE)
        id = HF_SETTING_COMPAT_MODE;
    if (where_p != NULL)
        *where_p = atomic_load(&slot_origin_where[id]);
    return (enum hf_setting_origin)atomic_load(&slot_origin[id]);
}

const char *hf_setting_origin_text(enum hf_setting_id id, char *buf, size_t size)
{
    const char *where;
    switch (hf_setting_origin(id, &where)) {
    case HF_ORIGIN_FILE:
        snprintf(buf, size, "%s at %s", hf_settings[id].key, where != NULL ? where : "?");
        break;
    case HF_ORIGIN_ENV:
        snprintf(buf, size, "%s", where != NULL ? where : "the environment");
        break;
    case HF_ORIGIN_API:
        snprintf(buf, size, "the parameter API");
        break;
    default:
        snprintf(buf, size, "the built-in default");
        break;
    }
    return buf;
}

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
    struct hf_config_state *state = atomic_load(&current_state);
    if (state == NULL || !state->parsed || plugin == NULL || key == NULL)
        return NULL;
    config_setting_t *group = config_setting_get_member(config_root_setting(&state->cfg), plugin);
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

struct hf_config_state *hf_config_store_current(void)
{
    return atomic_load(&current_state);
}

bool hf_config_state_check_once(struct hf_config_state *state)
{
    /* From here no look-up records a miss, so the list may be read without the lock. */
    pthread_mutex_lock(&misses_lock);
    bool checked = atomic_exchange(&state->checked, true);
    pthread_mutex_unlock(&misses_lock);
    return !checked;
}

size_t hf_config_plugin_enable_list(const char *const **names_p)
{
    const struct hf_config_state *state = atomic_load(&current_state);
    *names_p = state != NULL ? state->enable : NULL;
    return state != NULL ? state->enable_count : 0;
}

bool hf_config_plugin_enabled(const char *name)
{
    const struct hf_config_state *state = atomic_load(&current_state);
    if (state == NULL || state->enable_count == 0)
        return true;
    for (size_t i = 0; i < state->enable_count; i++) {
        if (name != NULL && strcmp(state->enable[i], name) == 0)
            return true;
    }
    return false;
}

size_t hf_config_plugin_priorities(const char *const **names_p, const int **values_p)
{
    const struct hf_config_state *state = atomic_load(&current_state);
    *names_p = state != NULL ? state->priority_name : NULL;
    *values_p = state != NULL ? state->priority_value : NULL;
    return state != NULL ? state->priority_count : 0;
}

int hf_config_plugin_priority(const char *name, int *priority_p)
{
    const struct hf_config_state *state = atomic_load(&current_state);
    if (state == NULL || name == NULL)
        return -ENOENT;
    for (size_t i = 0; i < state->priority_count; i++) {
        if (strcmp(state->priority_name[i], name) == 0) {
            *priority_p = state->priority_value[i];
            return 0;
        }
    }
    return -ENOENT;
}

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
    return s != NULL && s->type != HF_TYPE_LIST && s->type != HF_TYPE_MAP ? s : NULL;
}

/* A plugin read its own declared key with the wrong function: its table and code disagree. */
static int declared_type_error(const struct hf_setting *row, const char *expected)
{
    char declared[256];
    hf_error("%s is declared as %s; it cannot be read as %s", row->key,
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
    int rc = hf_config_declared_find(plugin, key, &row, value_p);
    if (rc == -ESRCH)
        return 1;
    if (rc < 0)
        return rc;
    bool fits = row->type == type || (type == HF_TYPE_STRING && row->type == HF_TYPE_ENUM);
    return fits ? 0 : declared_type_error(row, expected);
}

static int plugin_type_error(const char *plugin, const char *key, const config_setting_t *cs,
                             const struct hf_config_state *state, const char *expected)
{
    struct hf_config_where w;
    if (cs == NULL)
        hf_error("%s.%s is a built-in setting of another type; expected %s", plugin, key, expected);
    else
        hf_error("%s: %s.%s is %s; expected %s", hf_config_where(cs, state, &w), plugin, key,
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
        if (!core_row_fits(s->type, want))
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

int hf_config_plugin_int(const char *plugin, const char *key, int64_t *value_p)
{
    int64_t num = 0;
    const char *text = NULL;
    int rc = plugin_read(plugin, key, HF_TYPE_INT, "an integer", &num, &text);
    if (rc == 0)
        *value_p = num;
    return rc;
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
    int64_t num = 0;
    const char *text = NULL;
    int rc = plugin_read(plugin, key, HF_TYPE_STRING, "a string", &num, &text);
    if (rc == 0)
        *value_p = text;
    return rc;
}

/* ---- writes from the parameter API ----------------------------------------------------------- */

static int wrong_kind(const struct hf_setting *s, const char *what)
{
    hf_error("%s cannot be set as %s", s->key, what);
    return -EINVAL;
}

static void override_store(enum hf_setting_id id, int64_t num, const char *text)
{
    overrides[id] = (struct override){.set = true, .num = num, .text = text};
    atomic_store(&slot_num[id], num);
    atomic_store(&slot_text[id], text);
    atomic_store(&slot_origin[id], (int)HF_ORIGIN_API);
    atomic_store(&slot_origin_where[id], NULL);
}

int hf_setting_set_int(enum hf_setting_id id, int64_t value)
{
    if ((unsigned)id >= HF_SETTING_COUNT)
        return -EINVAL;
    slots_init();
    const struct hf_setting *s = &hf_settings[id];
    if (s->type != HF_TYPE_INT)
        return wrong_kind(s, "an integer");
    if (!hf_setting_int_ok(s, value)) {
        char allowed[128];
        hf_error("%s = %lld is out of range; expected %s", s->key, (long long)value,
                 hf_setting_describe(s, allowed, sizeof(allowed)));
        return -ERANGE;
    }
    hf_config_store_lock();
    override_store(id, value, NULL);
    hf_config_store_unlock();
    return 0;
}

int hf_setting_set_bool(enum hf_setting_id id, bool value)
{
    if ((unsigned)id >= HF_SETTING_COUNT)
        return -EINVAL;
    slots_init();
    const struct hf_setting *s = &hf_settings[id];
    if (s->type != HF_TYPE_BOOL)
        return wrong_kind(s, "a boolean");
    hf_config_store_lock();
    if (s->view != HF_VIEW_NONE) {
        int64_t mode = atomic_load(&slot_num[HF_SETTING_COMPAT_MODE]);
        override_store(HF_SETTING_COMPAT_MODE, hf_setting_compat_after_view(mode, s->view, value),
                       NULL);
    } else {
        override_store(id, value, NULL);
    }
    hf_config_store_unlock();
    return 0;
}

int hf_setting_set_string(enum hf_setting_id id, const char *value)
{
    if ((unsigned)id >= HF_SETTING_COUNT)
        return -EINVAL;
    slots_init();
    const struct hf_setting *s = &hf_settings[id];
    if (s->type != HF_TYPE_STRING && s->type != HF_TYPE_ENUM)
        return wrong_kind(s, "a string");
    char allowed[256];
    if (value == NULL) {
        hf_error("%s cannot be set to NULL; expected %s", s->key,
                 hf_setting_describe(s, allowed, sizeof(allowed)));
        return -EINVAL;
    }
    if (s->type == HF_TYPE_ENUM) {
        int index = hf_setting_parse_enum(s, value);
        if (index < 0) {
            hf_error("%s = \"%s\" is not valid; expected %s", s->key, value,
                     hf_setting_describe(s, allowed, sizeof(allowed)));
            return -EINVAL;
        }
        hf_config_store_lock();
        override_store(id, index, NULL);
        if (id == HF_SETTING_LOG_LEVEL)
            hf_log_set_level(index);
        hf_config_store_unlock();
        return 0;
    }
    if (!hf_setting_string_ok(s, value)) {
        hf_error("%s = \"%s\" is not valid; expected %s", s->key, value,
                 hf_setting_describe(s, allowed, sizeof(allowed)));
        return -EINVAL;
    }
    if (hf_setting_path_is_relative(s, value)) {
        hf_error("%s = \"%s\" is a relative path; give an absolute one", s->key, value);
        return -EINVAL;
    }
    int rc = 0;
    hf_config_store_lock();
    const char *text = hf_config_keep_string(value);
    if (text == NULL) {
        rc = -ENOMEM;
        hf_error("cannot set %s: out of memory", s->key);
        goto out_unlock;
    }
    if (id == HF_SETTING_LOG_FILE || id == HF_SETTING_LOG_DIR) {
        const char *file =
            id == HF_SETTING_LOG_FILE ? text : atomic_load(&slot_text[HF_SETTING_LOG_FILE]);
        const char *dir =
            id == HF_SETTING_LOG_DIR ? text : atomic_load(&slot_text[HF_SETTING_LOG_DIR]);
        char why[HFP_REGULAR_WHY_SIZE];
        rc = log_redirect(file, dir, why);
        if (rc == -EINVAL) {
            hf_error("%s = \"%s\": the log file is %s", s->key, value, why);
            goto out_unlock;
        }
        if (rc < 0) {
            hf_error("%s = \"%s\": cannot open the log file: %s", s->key, value, strerror(-rc));
            goto out_unlock;
        }
    }
    override_store(id, 0, text);
out_unlock:
    hf_config_store_unlock();
    return rc;
}
