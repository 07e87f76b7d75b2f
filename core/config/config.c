/*
 * Loading the configuration: built-in defaults, then the libconfig file, then the environment,
 * each value checked against the table in settings.c and recorded with where it came from, handed
 * to config_store.c to publish. A load that fails anywhere publishes nothing, and says whether the
 * file or a variable was at fault.
 */
#include "config/config.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/install_paths.h"
#include "base/log.h"
#include "common/regular_file.h"
#include "config/config_store.h"
#include "config/env.h"
#include "config/plugin_keys.h"
#include "config/value_parse.h"

/* The installation's config file when the core cannot find where it is installed. */
#ifndef HF_DEFAULT_CONFIG_PATH
#define HF_DEFAULT_CONFIG_PATH "/etc/hipfile.conf"
#endif
/* The system-wide file, read when the installation has none of its own. */
#define SYSTEM_CONFIG_PATH "/etc/hipfile.conf"

static _Atomic(const char *) last_path;
static atomic_bool load_done;
static atomic_int load_result;
static pthread_mutex_t ensure_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t search_once = PTHREAD_ONCE_INIT;
static const char *search_path[3];

/* ---- the config file ----------------------------------------------------------------------- */

static int stage_enable_list(const struct hf_setting *s, const config_setting_t *cs,
                             struct hf_config_state *state)
{
    int type = config_setting_type(cs);
    if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
        return hf_setting_file_type_error(s, cs, &state->file);
    int count = config_setting_length(cs);
    const char **names = calloc((size_t)count + 1, sizeof(*names));
    if (names == NULL)
        return -ENOMEM;
    for (int i = 0; i < count; i++) {
        const config_setting_t *elem = config_setting_get_elem(cs, (unsigned)i);
        if (config_setting_type(elem) != CONFIG_TYPE_STRING ||
            !config_setting_get_string(elem)[0]) {
            free(names);
            return hf_setting_file_type_error(s, cs, &state->file);
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
        return hf_setting_file_type_error(s, cs, &state->file);
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
        if ((type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64) || v < s->decl.min ||
            v > s->decl.max) {
            char allowed[128];
            hf_error("%s: %s.%s must be an integer from %lld to %lld (got %s)",
                     hf_config_where(elem, &state->file, &w), s->decl.key,
                     config_setting_name(elem), (long long)s->decl.min, (long long)s->decl.max,
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

/* The value of @p s now comes from the file, at @p cs. */
static void origin_file(struct hf_config_staged *st, const struct hf_config_state *state,
                        const struct hf_setting *s, const config_setting_t *cs)
{
    enum hf_setting_id id = s->view != HF_VIEW_NONE ? HF_SETTING_COMPAT_MODE : hf_setting_id_of(s);
    struct hf_config_where w;
    st->origin[id] = HF_ORIGIN_FILE;
    st->origin_where[id] = hf_config_keep_string(hf_config_where(cs, &state->file, &w));
}

/* Stage a checked value of @p s; a view of compat_mode changes compat_mode. */
static void stage_value(struct hf_config_staged *st, const struct hf_setting *s, int64_t num,
                        const char *text)
{
    enum hf_setting_id id = hf_setting_id_of(s);
    if (s->view != HF_VIEW_NONE)
        st->num[HF_SETTING_COMPAT_MODE] =
            hf_setting_compat_after_view(st->num[HF_SETTING_COMPAT_MODE], s->view, num != 0);
    else if (hf_setting_type(s) == HF_TYPE_STRING)
        st->text[id] = text;
    else
        st->num[id] = num;
}

static int stage_value_from_file(struct hf_config_staged *st, struct hf_config_state *state,
                                 const struct hf_setting *s, const config_setting_t *cs)
{
    if (hf_setting_type(s) == HF_TYPE_LIST)
        return stage_enable_list(s, cs, state);
    if (hf_setting_type(s) == HF_TYPE_MAP)
        return stage_priority_map(s, cs, state);
    int64_t num = 0;
    const char *text = NULL;
    int rc = hf_setting_value_from_file(s, cs, &state->file, &num, &text);
    if (rc == 0)
        stage_value(st, s, num, text);
    return rc;
}

static int stage_from_file(struct hf_config_staged *st, struct hf_config_state *state,
                           const struct hf_setting *s, const config_setting_t *cs)
{
    int rc = stage_value_from_file(st, state, s, cs);
    if (rc == 0)
        origin_file(st, state, s, cs);
    return rc;
}

/* "; did you mean <key>?" for an unknown @p key close to a key of the table, into @p buf. */
static const char *key_hint(const char *key, char *buf, size_t size)
{
    const char *keys[HF_SETTING_COUNT];
    for (size_t i = 0; i < HF_SETTING_COUNT; i++)
        keys[i] = hf_settings[i].decl.key;
    const char *close = hf_config_suggest(key, keys, HF_SETTING_COUNT);
    if (close == NULL)
        return "";
    snprintf(buf, size, "; did you mean %s?", close);
    return buf;
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
        else if (strict) {
            char hint[HF_SETTING_KEY_MAX + 32];
            hf_warn("%s: unknown key %s ignored%s", hf_config_where(cs, &state->file, &w), key,
                    key_hint(key, hint, sizeof(hint)));
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int stage_root(struct hf_config_staged *st, struct hf_config_state *state)
{
    struct hf_config_where w;
    const config_setting_t *root = config_root_setting(&state->file.cfg);
    int count = config_setting_length(root);
    for (int i = 0; i < count; i++) {
        const config_setting_t *cs = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(cs);
        bool core = hf_setting_group_is_core(name);
        int rc = 0;
        if (core && !config_setting_is_group(cs)) {
            hf_error("%s: %s is %s; expected a group: %s = { ... };",
                     hf_config_where(cs, &state->file, &w), name,
                     hf_config_type_phrase(config_setting_type(cs)), name);
            return -EINVAL;
        }
        if (config_setting_is_group(cs))
            rc = stage_group(st, state, cs, name, core);
        else
            hf_warn("%s: unknown top-level key %s ignored (settings belong in a group)",
                    hf_config_where(cs, &state->file, &w), name);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* @p a and @p b name the same directory (both exist). */
static bool same_directory(const char *a, const char *b)
{
    char real_a[PATH_MAX];
    char real_b[PATH_MAX];
    return a != NULL && b != NULL && realpath(a, real_a) != NULL && realpath(b, real_b) != NULL &&
           strcmp(real_a, real_b) == 0;
}

/*
 * Whether this core runs from the build tree it was built in: libhipfile.so.0 in the build's lib
 * directory, or a program with the core linked in (hipfile-check) in its bin directory. The build
 * tree is then the installation, and its own file is the build's hipfile.conf, which names the
 * plugins just built: what was built runs as built, with no variable to set.
 */
static bool running_from_build_tree(void)
{
#if defined(HF_BUILD_LIBDIR) && defined(HF_BUILD_BINDIR) && defined(HF_BUILD_CONFIG)
    const char *libdir = hf_install_libdir();
    if (libdir != NULL)
        return same_directory(libdir, HF_BUILD_LIBDIR);
    /* A program whose bin-to-lib relation is the installed one (lib/<multiarch>), not the build's.
     */
    char exe[PATH_MAX];
    if (realpath("/proc/self/exe", exe) == NULL)
        return false;
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    return same_directory(exe, HF_BUILD_BINDIR);
#else
    return false;
#endif
}

/*
 * The installation's own file first, so an install under any prefix (or a moved one) reads the file
 * installed with it, and the build tree reads its own; then the system-wide /etc/hipfile.conf,
 * which is also the own file of an installation configured for the prefix /usr.
 */
static void search_path_find(void)
{
    const char *own = hf_install_config_path();
#ifdef HF_BUILD_CONFIG
    if (running_from_build_tree())
        own = HF_BUILD_CONFIG;
#endif
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

/*
 * Open the first of @p paths that exists; NULL with errno ENOENT when none does, or EINVAL with
 * @p why saying what the file is when it is not a regular file (a FIFO would block the open).
 */
static FILE *config_open(const char *const *paths, const char **path_p, char *why, size_t why_size)
{
    for (const char *const *path = paths; *path != NULL; path++) {
        FILE *fp = hfp_fopen_regular(*path, why, why_size);
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
            hf_config_failure_set("the environment variable", "HIPFILE_CONFIG");
            hf_error("HIPFILE_CONFIG=\"%s\" is a relative path; give the config file's absolute "
                     "path",
                     env);
            return -EINVAL;
        }
        paths = from_env;
    }
    const char *path = NULL;
    char why[HFP_REGULAR_WHY_SIZE];
    FILE *fp = config_open(paths, &path, why, sizeof(why));
    if (fp == NULL) {
        int err = errno;
        if (err == ENOENT) {
            atomic_store(&last_path, NULL);
            /* A file the user named and that is not there is a mistake; a default file need not
             * exist. */
            if (paths == from_env)
                hf_warn("HIPFILE_CONFIG names %s, which does not exist; using built-in defaults "
                        "(unset HIPFILE_CONFIG to read the default file, or correct the path)",
                        env);
            else
                hf_info("no config file at %s%s%s; using built-in defaults", paths[0],
                        paths[1] != NULL ? " or " : "", paths[1] != NULL ? paths[1] : "");
            return 0;
        }
        atomic_store(&last_path, hf_config_keep_string(path));
        hf_config_failure_set("the config file", path);
        if (err == EINVAL)
            hf_error("config file %s is %s", path, why);
        else
            hf_error("cannot open config file %s: %s", path, strerror(err));
        return -err;
    }
    state->file.path = hf_config_keep_string(path);
    atomic_store(&last_path, state->file.path);
    int rc = 0;
    if (state->file.path == NULL) {
        rc = -ENOMEM;
        goto out_close;
    }
    /* @include paths in the file are relative to the file, not to the program's directory. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        slash[slash == dir ? 1 : 0] = '\0';
        config_set_include_dir(&state->file.cfg, dir);
        state->file.dir = hf_config_keep_string(dir);
    }
    if (!config_read(&state->file.cfg, fp)) {
        char included[PATH_MAX];
        hf_error("%s:%d: %s",
                 hf_config_join_dir(&state->file, config_error_file(&state->file.cfg), included,
                                    sizeof(included)),
                 config_error_line(&state->file.cfg), config_error_text(&state->file.cfg));
        rc = -EINVAL;
        goto out_close;
    }
    state->file.parsed = true;
    rc = stage_root(st, state);
    if (rc == 0)
        rc = hf_config_plugin_keys_collect(state);
out_close:
    if (rc < 0)
        hf_config_failure_set("the config file", path);
    fclose(fp);
    return rc;
}

/* ---- the environment ----------------------------------------------------------------------- */

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
        rc = hf_setting_env_error(s, value);
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
    if (hf_setting_type(s) == HF_TYPE_LIST)
        return stage_env_list(s, value, state);
    if (hf_setting_type(s) == HF_TYPE_MAP)
        return -EINVAL;
    int64_t num = 0;
    const char *text = NULL;
    int rc = hf_setting_value_from_env(s, value, &num, &text);
    if (rc == 0)
        stage_value(st, s, num, text);
    return rc;
}

static int stage_env(struct hf_config_staged *st, struct hf_config_state *state)
{
    for (size_t i = 0; i < HF_SETTING_COUNT; i++) {
        const struct hf_setting *s = &hf_settings[i];
        const char *value = s->decl.env != NULL ? hf_env_get(s->decl.env) : NULL;
        /* An empty variable counts as unset, as in `HIPFILE_LOG_LEVEL= program`. */
        if (value == NULL || value[0] == '\0')
            continue;
        int rc = stage_from_env(st, state, s, value);
        if (rc < 0)
            return rc;
        enum hf_setting_id id =
            s->view != HF_VIEW_NONE ? HF_SETTING_COMPAT_MODE : hf_setting_id_of(s);
        st->origin[id] = HF_ORIGIN_ENV;
        st->origin_where[id] = s->decl.env;
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
    config_destroy(&state->file.cfg);
    free(state->plugin_keys);
    free(state->enable);
    free(state->priority_name);
    free(state->priority_value);
    free(state);
}

int hf_config_load(void)
{
    /* The load sets the log level: its own lines wait for it, so log.level = "debug" (or
     * HIPFILE_LOG_LEVEL=info) shows what the load said about the file. */
    hf_log_hold();
    hf_config_store_lock();
    hf_config_failure_clear();
    int rc;
    struct hf_config_staged st;
    hf_config_stage_defaults(&st);
    struct hf_config_state *state = calloc(1, sizeof(*state));
    if (state == NULL) {
        rc = -ENOMEM;
        hf_error("cannot load the configuration: out of memory");
        goto out_unlock;
    }
    config_init(&state->file.cfg);
    rc = stage_file(&st, state);
    if (rc == 0)
        rc = stage_env(&st, state);
    /* Plugins that declared their keys have them checked against this file before it counts. */
    struct hf_config_declared_staged declared;
    if (rc == 0) {
        rc = hf_config_declared_stage(state, &declared);
        if (rc < 0 && hf_config_failure() == NULL && state->file.path != NULL)
            hf_config_failure_set("the config file", state->file.path);
    }
    if (rc < 0)
        goto out_discard;
    hf_config_store_publish(&st, state);
    hf_config_declared_publish(&declared);
    goto out_unlock;
out_discard:
    state_discard(state);
out_unlock:
    atomic_store(&load_result, rc);
    atomic_store(&load_done, true);
    hf_config_store_unlock();
    hf_log_release();
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
    hf_config_declared_forget();
    hf_config_store_publish(&st, NULL);
    atomic_store(&last_path, NULL);
    hf_config_failure_clear();
    atomic_store(&load_done, false);
    atomic_store(&load_result, 0);
    hf_config_store_unlock();
    pthread_mutex_unlock(&ensure_lock);
}

const char *hf_config_path(void)
{
    return atomic_load(&last_path);
}
