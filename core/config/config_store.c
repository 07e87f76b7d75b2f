/*
 * The settings readers see: atomics per setting of the core's table with where each value came
 * from, the published file (whose plugin groups plugin_keys.c answers from), and the values the
 * parameter API set, which every later load re-applies.
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

static _Atomic int64_t slot_num[HF_SETTING_COUNT];
static _Atomic(const char *) slot_text[HF_SETTING_COUNT];
static _Atomic int slot_origin[HF_SETTING_COUNT];
static _Atomic(const char *) slot_origin_where[HF_SETTING_COUNT];
static _Atomic(struct hf_config_state *) current_state;
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

/* Everything below is guarded by write_lock. */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static struct override overrides[HF_SETTING_COUNT];
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

/* Views and the list/map settings have no slot of their own. */
static bool is_stored(const struct hf_setting *s)
{
    return s->view == HF_VIEW_NONE && hf_setting_type(s) != HF_TYPE_LIST &&
           hf_setting_type(s) != HF_TYPE_MAP;
}

void hf_config_stage_defaults(struct hf_config_staged *st)
{
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        st->num[i] = hf_settings[i].decl.default_int;
        st->text[i] = hf_settings[i].decl.default_string;
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
    if (!is_stored(s) || hf_setting_type(s) == HF_TYPE_STRING)
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
    if (hf_setting_type(s) == HF_TYPE_STRING)
        return atomic_load(&slot_text[id]);
    if (hf_setting_type(s) == HF_TYPE_ENUM)
        return s->decl.names[atomic_load(&slot_num[id])];
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
        snprintf(buf, size, "%s at %s", hf_settings[id].decl.key, where != NULL ? where : "?");
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

struct hf_config_state *hf_config_store_current(void)
{
    return atomic_load(&current_state);
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

/* ---- writes from the parameter API ----------------------------------------------------------- */

static int wrong_kind(const struct hf_setting *s, const char *what)
{
    hf_error("%s cannot be set as %s", s->decl.key, what);
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
    if (hf_setting_type(s) != HF_TYPE_INT)
        return wrong_kind(s, "an integer");
    if (!hf_setting_int_ok(s, value)) {
        char allowed[128];
        hf_error("%s = %lld is out of range; expected %s", s->decl.key, (long long)value,
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
    if (hf_setting_type(s) != HF_TYPE_BOOL)
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
    if (hf_setting_type(s) != HF_TYPE_STRING && hf_setting_type(s) != HF_TYPE_ENUM)
        return wrong_kind(s, "a string");
    char allowed[256];
    if (value == NULL) {
        hf_error("%s cannot be set to NULL; expected %s", s->decl.key,
                 hf_setting_describe(s, allowed, sizeof(allowed)));
        return -EINVAL;
    }
    if (hf_setting_type(s) == HF_TYPE_ENUM) {
        int index = hf_setting_parse_enum(s, value);
        if (index < 0) {
            hf_error("%s = \"%s\" is not valid; expected %s", s->decl.key, value,
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
        hf_error("%s = \"%s\" is not valid; expected %s", s->decl.key, value,
                 hf_setting_describe(s, allowed, sizeof(allowed)));
        return -EINVAL;
    }
    if (hf_setting_path_is_relative(s, value)) {
        hf_error("%s = \"%s\" is a relative path; give an absolute one", s->decl.key, value);
        return -EINVAL;
    }
    int rc = 0;
    hf_config_store_lock();
    const char *text = hf_config_keep_string(value);
    if (text == NULL) {
        rc = -ENOMEM;
        hf_error("cannot set %s: out of memory", s->decl.key);
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
            hf_error("%s = \"%s\": the log file is %s", s->decl.key, value, why);
            goto out_unlock;
        }
        if (rc < 0) {
            hf_error("%s = \"%s\": cannot open the log file: %s", s->decl.key, value,
                     strerror(-rc));
            goto out_unlock;
        }
    }
    override_store(id, 0, text);
out_unlock:
    hf_config_store_unlock();
    return rc;
}
