/*
 * Loading the configuration: built-in defaults, then the libconfig file, then the environment,
 * each value checked against the table in settings.c, handed to config_store.c to publish. A load
 * that fails anywhere publishes nothing.
 */
#include "config.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "config_store.h"
#include "install_paths.h"
#include "log.h"

/* The installation's config file when the core cannot find where it is installed. */
#ifndef HF_DEFAULT_CONFIG_PATH
#define HF_DEFAULT_CONFIG_PATH "/etc/hipfile.conf"
#endif
/* The system-wide file, read when the installation has none of its own. */
#define SYSTEM_CONFIG_PATH "/etc/hipfile.conf"

static _Atomic(const char *) last_path;
static atomic_bool env_assume_secure;
static atomic_bool load_done;
static atomic_int load_result;
static pthread_mutex_t ensure_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t search_once = PTHREAD_ONCE_INIT;
static const char *search_path[3];

/* ---- the environment, read in one place ---------------------------------------------------- */

/*
 * A set-user-ID or set-group-ID program runs with privileges its caller does not have; letting the
 * caller's environment pick the config file, the plugin directory or the runtime library would
 * hand those privileges over. AT_SECURE is what secure_getenv itself consults.
 */
static bool env_is_untrusted(void)
{
    return atomic_load(&env_assume_secure) || getauxval(AT_SECURE) != 0;
}

const char *hf_env_get(const char *name)
{
    if (name == NULL)
        return NULL;
    if (!env_is_untrusted())
        return getenv(name);
    if (getenv(name) != NULL)
        hf_warn("ignoring %s: set-user-ID and set-group-ID programs take no settings from the "
                "environment",
                name);
    return NULL;
}

void hf_env_assume_secure(bool on)
{
    atomic_store(&env_assume_secure, on);
}

/* ---- the config file ----------------------------------------------------------------------- */

/* A relative path in the file names a place beside the file, never one in the current directory. */
static const char *file_path_resolve(const struct hf_config_state *state, const char *value)
{
    char joined[PATH_MAX];
    if (snprintf(joined, sizeof(joined), "%s/%s", state->dir != NULL ? state->dir : "", value) >=
        (int)sizeof(joined))
        return NULL;
    return hf_config_keep_string(joined);
}

static int file_type_error(const struct hf_setting *s, const config_setting_t *cs,
                           const struct hf_config_state *state)
{
    struct hf_config_where w;
    char allowed[256];
    hf_error("%s: %s is %s; expected %s", hf_config_where(cs, state, &w), s->key,
             hf_config_type_phrase(config_setting_type(cs)),
             hf_setting_describe(s, allowed, sizeof(allowed)));
    return -EINVAL;
}

static int file_value_error(const struct hf_setting *s, const config_setting_t *cs,
                            const struct hf_config_state *state)
{
    struct hf_config_where w;
    char allowed[256];
    char value[128];
    if (config_setting_type(cs) == CONFIG_TYPE_STRING)
        snprintf(value, sizeof(value), "\"%s\"", config_setting_get_string(cs));
    else
        snprintf(value, sizeof(value), "%lld", config_setting_get_int64(cs));
    hf_error("%s: %s = %s is out of range; expected %s", hf_config_where(cs, state, &w), s->key,
             value, hf_setting_describe(s, allowed, sizeof(allowed)));
    return -EINVAL;
}

static int stage_enable_list(const struct hf_setting *s, const config_setting_t *cs,
                             struct hf_config_state *state)
{
    int type = config_setting_type(cs);
    if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
        return file_type_error(s, cs, state);
    int count = config_setting_length(cs);
    const char **names = calloc((size_t)count + 1, sizeof(*names));
    if (names == NULL)
        return -ENOMEM;
    for (int i = 0; i < count; i++) {
        const config_setting_t *elem = config_setting_get_elem(cs, (unsigned)i);
        if (config_setting_type(elem) != CONFIG_TYPE_STRING ||
            !config_setting_get_string(elem)[0]) {
            free(names);
            return file_type_error(s, cs, state);
        }
        names[i] = config_setting_get_string(elem);
    }
    free(state->enable);
    state->enable = names;
    state->enable_count = (size_t)count;
    return 0;
}

static int stage_priority_map(const struct hf_setting *s, const config_setting_t *cs,
                              struct hf_config_state *state)
{
    struct hf_config_where w;
    if (!config_setting_is_group(cs))
        return file_type_error(s, cs, state);
    size_t count = (size_t)config_setting_length(cs);
    const char **names = calloc(count + 1, sizeof(*names));
    int *values = calloc(count + 1, sizeof(*values));
    if (names == NULL || values == NULL) {
        free(names);
        free(values);
        return -ENOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        const config_setting_t *elem = config_setting_get_elem(cs, (unsigned)i);
        int type = config_setting_type(elem);
        long long v = config_setting_get_int64(elem);
        if ((type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64) || v < s->min || v > s->max) {
            char allowed[128];
            hf_error("%s: %s.%s must be an integer from %lld to %lld (got %s)",
                     hf_config_where(elem, state, &w), s->key, config_setting_name(elem),
                     (long long)s->min, (long long)s->max,
                     type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64
                         ? (snprintf(allowed, sizeof(allowed), "%lld", v), allowed)
                         : hf_config_type_phrase(type));
            free(names);
            free(values);
            return -EINVAL;
        }
        names[i] = config_setting_name(elem);
        values[i] = (int)v;
    }
    state->priority_name = names;
    state->priority_value = values;
    state->priority_count = count;
    return 0;
}

static int stage_from_file(struct hf_config_staged *st, struct hf_config_state *state,
                           const struct hf_setting *s, const config_setting_t *cs)
{
    enum hf_setting_id id = hf_setting_id_of(s);
    int type = config_setting_type(cs);
    switch (s->type) {
    case HF_TYPE_INT: {
        if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
            return file_type_error(s, cs, state);
        long long v = config_setting_get_int64(cs);
        if (!hf_setting_int_ok(s, v))
            return file_value_error(s, cs, state);
        st->num[id] = v;
        return 0;
    }
    case HF_TYPE_BOOL: {
        if (type != CONFIG_TYPE_BOOL)
            return file_type_error(s, cs, state);
        bool on = config_setting_get_bool(cs);
        if (s->view != HF_VIEW_NONE)
            st->num[HF_SETTING_COMPAT_MODE] =
                hf_setting_compat_after_view(st->num[HF_SETTING_COMPAT_MODE], s->view, on);
        else
            st->num[id] = on;
        return 0;
    }
    case HF_TYPE_STRING:
        if (type != CONFIG_TYPE_STRING)
            return file_type_error(s, cs, state);
        if (!hf_setting_string_ok(s, config_setting_get_string(cs)))
            return file_value_error(s, cs, state);
        st->text[id] = config_setting_get_string(cs);
        if (hf_setting_path_is_relative(s, st->text[id])) {
            st->text[id] = file_path_resolve(state, st->text[id]);
            if (st->text[id] == NULL) {
                struct hf_config_where w;
                hf_error("%s: %s: the path is too long once joined to %s",
                         hf_config_where(cs, state, &w), s->key, state->dir);
                return -ENAMETOOLONG;
            }
        }
        return 0;
    case HF_TYPE_ENUM: {
        if (type != CONFIG_TYPE_STRING)
            return file_type_error(s, cs, state);
        int index = hf_setting_parse_enum(s, config_setting_get_string(cs));
        if (index < 0)
            return file_value_error(s, cs, state);
        st->num[id] = index;
        return 0;
    }
    case HF_TYPE_LIST:
        return stage_enable_list(s, cs, state);
    case HF_TYPE_MAP:
        return stage_priority_map(s, cs, state);
    }
    return -EINVAL;
}

/* Apply every table key inside @p group; other keys are warned about (@p strict) or kept. */
static int stage_group(struct hf_config_staged *st, struct hf_config_state *state,
                       const config_setting_t *group, const char *prefix, bool strict)
{
    struct hf_config_where w;
    int count = config_setting_length(group);
    for (int i = 0; i < count; i++) {
        const config_setting_t *cs = config_setting_get_elem(group, (unsigned)i);
        char key[HF_SETTING_KEY_MAX];
        int n = snprintf(key, sizeof(key), "%s.%s", prefix, config_setting_name(cs));
        const struct hf_setting *s = n < (int)sizeof(key) ? hf_setting_find(key) : NULL;
        int rc = 0;
        if (s != NULL)
            rc = stage_from_file(st, state, s, cs);
        else if (config_setting_is_group(cs) && hf_setting_is_group(key))
            rc = stage_group(st, state, cs, key, strict);
        else if (strict)
            hf_warn("%s: unknown key %s ignored", hf_config_where(cs, state, &w), key);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int stage_root(struct hf_config_staged *st, struct hf_config_state *state)
{
    struct hf_config_where w;
    const config_setting_t *root = config_root_setting(&state->cfg);
    int count = config_setting_length(root);
    for (int i = 0; i < count; i++) {
        const config_setting_t *cs = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(cs);
        bool core = hf_setting_group_is_core(name);
        int rc = 0;
        if (core && !config_setting_is_group(cs)) {
            hf_error("%s: %s is %s; expected a group: %s = { ... };",
                     hf_config_where(cs, state, &w), name,
                     hf_config_type_phrase(config_setting_type(cs)), name);
            return -EINVAL;
        }
        if (config_setting_is_group(cs))
            rc = stage_group(st, state, cs, name, core);
        else
            hf_warn("%s: unknown top-level key %s ignored (settings belong in a group)",
                    hf_config_where(cs, state, &w), name);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/*
 * The installation's own file first, so an install under any prefix (or a moved one) reads the file
 * installed with it; then the system-wide /etc/hipfile.conf, which is also the own file of an
 * installation configured for the prefix /usr.
 */
static void search_path_find(void)
{
    const char *own = hf_install_config_path();
    size_t n = 0;
    search_path[n++] = own != NULL ? own : HF_DEFAULT_CONFIG_PATH;
    if (strcmp(search_path[0], SYSTEM_CONFIG_PATH) != 0)
        search_path[n++] = SYSTEM_CONFIG_PATH;
    search_path[n] = NULL;
}

const char *const *hf_config_search_path(void)
{
    pthread_once(&search_once, search_path_find);
    return search_path;
}

/* Open the first of @p paths that exists; NULL with errno ENOENT when none does. */
static FILE *config_open(const char *const *paths, const char **path_p)
{
    for (const char *const *path = paths; *path != NULL; path++) {
        FILE *fp = fopen(*path, "re");
        *path_p = *path;
        if (fp != NULL || errno != ENOENT)
            return fp;
    }
    errno = ENOENT;
    return NULL;
}

static int stage_file(struct hf_config_staged *st, struct hf_config_state *state)
{
    const char *env = hf_env_get("HIPFILE_CONFIG");
    const char *from_env[] = {env, NULL};
    const char *const *paths = hf_config_search_path();
    if (env != NULL && env[0] != '\0') {
        if (env[0] != '/') {
            /* The current directory is whatever the program happened to start in. */
            atomic_store(&last_path, NULL);
            hf_error("HIPFILE_CONFIG=\"%s\" is a relative path; give the config file's absolute "
                     "path",
                     env);
            return -EINVAL;
        }
        paths = from_env;
    }
    const char *path = NULL;
    FILE *fp = config_open(paths, &path);
    if (fp == NULL) {
        int err = errno;
        if (err == ENOENT) {
            atomic_store(&last_path, NULL);
            hf_info("no config file at %s%s%s; using built-in defaults", paths[0],
                    paths[1] != NULL ? " or " : "", paths[1] != NULL ? paths[1] : "");
            return 0;
        }
        atomic_store(&last_path, hf_config_keep_string(path));
        hf_error("cannot open config file %s: %s", path, strerror(err));
        return -err;
    }
    state->path = hf_config_keep_string(path);
    atomic_store(&last_path, state->path);
    int rc = 0;
    struct stat st_buf;
    if (state->path == NULL) {
        rc = -ENOMEM;
        goto out_close;
    }
    if (fstat(fileno(fp), &st_buf) != 0 || !S_ISREG(st_buf.st_mode)) {
        hf_error("config file %s is not a regular file", path);
        rc = -EINVAL;
        goto out_close;
    }
    /* @include paths in the file are relative to the file, not to the program's directory. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        slash[slash == dir ? 1 : 0] = '\0';
        config_set_include_dir(&state->cfg, dir);
        state->dir = hf_config_keep_string(dir);
    }
    if (!config_read(&state->cfg, fp)) {
        char included[PATH_MAX];
        hf_error(
            "%s:%d: %s",
            hf_config_join_dir(state, config_error_file(&state->cfg), included, sizeof(included)),
            config_error_line(&state->cfg), config_error_text(&state->cfg));
        rc = -EINVAL;
        goto out_close;
    }
    state->parsed = true;
    rc = stage_root(st, state);
out_close:
    fclose(fp);
    return rc;
}

/* ---- the environment ----------------------------------------------------------------------- */

static int env_error(const struct hf_setting *s, const char *value)
{
    char allowed[256];
    hf_error("environment %s=\"%s\" is not valid for %s; expected %s", s->env, value, s->key,
             hf_setting_describe(s, allowed, sizeof(allowed)));
    return -EINVAL;
}

static int stage_env_list(const struct hf_setting *s, const char *value,
                          struct hf_config_state *state)
{
    size_t count = 1;
    for (const char *p = value; *p; p++)
        count += *p == ',';
    const char **names = calloc(count + 1, sizeof(*names));
    char *copy = strdup(value);
    if (names == NULL || copy == NULL) {
        free(names);
        free(copy);
        return -ENOMEM;
    }
    size_t used = 0;
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", \t", &save); tok != NULL;
         tok = strtok_r(NULL, ", \t", &save)) {
        names[used] = hf_config_keep_string(tok);
        if (names[used++] == NULL) {
            rc = -ENOMEM;
            break;
        }
    }
    free(copy);
    if (rc == 0 && used == 0)
        rc = env_error(s, value);
    if (rc < 0) {
        free(names);
        return rc;
    }
    free(state->enable);
    state->enable = names;
    state->enable_count = used;
    return 0;
}

static int stage_from_env(struct hf_config_staged *st, struct hf_config_state *state,
                          const struct hf_setting *s, const char *value)
{
    enum hf_setting_id id = hf_setting_id_of(s);
    switch (s->type) {
    case HF_TYPE_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 0);
        if (errno != 0 || end == value || *end != '\0' || !hf_setting_int_ok(s, v))
            return env_error(s, value);
        st->num[id] = v;
        return 0;
    }
    case HF_TYPE_BOOL: {
        int on = hf_setting_parse_bool(value);
        if (on < 0)
            return env_error(s, value);
        if (s->view != HF_VIEW_NONE)
            st->num[HF_SETTING_COMPAT_MODE] =
                hf_setting_compat_after_view(st->num[HF_SETTING_COMPAT_MODE], s->view, on);
        else
            st->num[id] = on;
        return 0;
    }
    case HF_TYPE_STRING:
        if (!hf_setting_string_ok(s, value))
            return env_error(s, value);
        if (hf_setting_path_is_relative(s, value)) {
            hf_error("environment %s=\"%s\" is a relative path; %s needs an absolute one", s->env,
                     value, s->key);
            return -EINVAL;
        }
        st->text[id] = hf_config_keep_string(value);
        return st->text[id] != NULL ? 0 : -ENOMEM;
    case HF_TYPE_ENUM: {
        int index = hf_setting_parse_enum(s, value);
        if (index < 0)
            return env_error(s, value);
        st->num[id] = index;
        return 0;
    }
    case HF_TYPE_LIST:
        return stage_env_list(s, value, state);
    case HF_TYPE_MAP:
        break;
    }
    return -EINVAL;
}

static int stage_env(struct hf_config_staged *st, struct hf_config_state *state)
{
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        const struct hf_setting *s = &hf_settings[i];
        const char *value = s->env != NULL ? hf_env_get(s->env) : NULL;
        /* An empty variable counts as unset, as in `HIPFILE_LOG_LEVEL= program`. */
        if (value == NULL || value[0] == '\0')
            continue;
        int rc = stage_from_env(st, state, s, value);
        if (rc < 0)
            return rc;
    }
    const char *allow = hf_env_get("HIPFILE_ALLOW_COMPAT_MODE");
    const char *force = hf_env_get("HIPFILE_FORCE_COMPAT_MODE");
    if (allow != NULL && hf_setting_parse_bool(allow) == 0 && force != NULL &&
        hf_setting_parse_bool(force) == 1)
        hf_warn("HIPFILE_FORCE_COMPAT_MODE=%s overrides HIPFILE_ALLOW_COMPAT_MODE=%s: all I/O goes "
                "through the compatibility path",
                force, allow);
    return 0;
}

/* ---- loading ------------------------------------------------------------------------------- */

static void state_discard(struct hf_config_state *state)
{
    config_destroy(&state->cfg);
    free(state->enable);
    free(state->priority_name);
    free(state->priority_value);
    free(state);
}

int hf_config_load(void)
{
    hf_config_store_lock();
    int rc;
    struct hf_config_staged st;
    hf_config_stage_defaults(&st);
    struct hf_config_state *state = calloc(1, sizeof(*state));
    if (state == NULL) {
        rc = -ENOMEM;
        hf_error("cannot load the configuration: out of memory");
        goto out_unlock;
    }
    config_init(&state->cfg);
    rc = stage_file(&st, state);
    if (rc == 0)
        rc = stage_env(&st, state);
    if (rc < 0)
        goto out_discard;
    hf_config_store_publish(&st, state);
    goto out_unlock;
out_discard:
    state_discard(state);
out_unlock:
    atomic_store(&load_result, rc);
    atomic_store(&load_done, true);
    hf_config_store_unlock();
    return rc;
}

int hf_config_ensure_loaded(void)
{
    if (atomic_load(&load_done))
        return atomic_load(&load_result);
    pthread_mutex_lock(&ensure_lock);
    int rc = atomic_load(&load_done) ? atomic_load(&load_result) : hf_config_load();
    pthread_mutex_unlock(&ensure_lock);
    return rc;
}

void hf_config_reset(void)
{
    pthread_mutex_lock(&ensure_lock);
    hf_config_store_lock();
    struct hf_config_staged st;
    hf_config_stage_defaults(&st);
    hf_config_store_forget_overrides();
    hf_config_store_publish(&st, NULL);
    atomic_store(&last_path, NULL);
    atomic_store(&load_done, false);
    atomic_store(&load_result, 0);
    hf_config_store_unlock();
    pthread_mutex_unlock(&ensure_lock);
}

const char *hf_config_path(void)
{
    return atomic_load(&last_path);
}
