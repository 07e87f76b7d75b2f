/*
 * The configuration part of the report: the file read, every setting of the table with its value
 * and source (default, config file or environment), the GPU runtime bound or why none was.
 */
#include <dlfcn.h>
#include <errno.h>
#include <hipfile.h>
#include <libconfig.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "gpu.h"
#include "log.h"

/* ---- configuration and settings ------------------------------------------------------------ */

/* The config file parsed again, to tell which keys it sets (the core keeps no such record). */
struct config_copy {
    config_t cfg;
    bool parsed;
    bool loaded; /* the core's load succeeded: without it nothing but defaults applies */
};

static void config_copy_read(struct config_copy *c, const struct check_setup *s)
{
    const char *path = hf_config_path();
    config_init(&c->cfg);
    c->parsed = false;
    c->loaded = s->config_rc == 0;
    if (s->config_rc < 0 || path == NULL)
        return;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        slash[slash == dir ? 1 : 0] = '\0';
        config_set_include_dir(&c->cfg, dir);
    }
    c->parsed = config_read_file(&c->cfg, path) == CONFIG_TRUE;
}

static bool env_set(const char *name)
{
    const char *value = name != NULL ? hf_env_get(name) : NULL;
    return value != NULL && value[0] != '\0';
}

/* Where the value of @p row came from: environment, config file or default. */
static const char *setting_source(const struct hf_setting *row, const struct config_copy *c,
                                  char *buf, size_t size)
{
    if (row->view != HF_VIEW_NONE)
        return "same as properties.compat_mode";
    if (!c->loaded)
        return "default";
    const struct hf_setting *allow = &hf_settings[HF_SETTING_ALLOW_COMPAT_MODE];
    const struct hf_setting *force = &hf_settings[HF_SETTING_FORCE_COMPAT_MODE];
    bool compat = row == &hf_settings[HF_SETTING_COMPAT_MODE];
    /* AMD's variables reach compat_mode through its two boolean views. */
    const char *env = row->env;
    if (compat && env_set(force->env))
        env = force->env;
    else if (compat && env_set(allow->env))
        env = allow->env;
    if (env_set(env)) {
        snprintf(buf, size, "environment %s", env);
        return buf;
    }
    if (c->parsed && (config_lookup(&c->cfg, row->key) != NULL ||
                      (compat && (config_lookup(&c->cfg, allow->key) != NULL ||
                                  config_lookup(&c->cfg, force->key) != NULL))))
        return "config file";
    return "default";
}

/* plugins.enable as the core read it: the environment's list, else the file's, else empty. */
static void emit_enable_list(struct emit *e, const struct config_copy *c, char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "[");
    emit_list(e, "value", NULL);
    const char *env = hf_env_get("HIPFILE_PLUGINS");
    if (env != NULL && env[0] != '\0') {
        char *copy = strdup(env);
        char *save = NULL;
        for (char *tok = copy != NULL ? strtok_r(copy, ", \t", &save) : NULL; tok != NULL;
             tok = strtok_r(NULL, ", \t", &save)) {
            emit_elem(e, tok);
            if (used < size)
                used += (size_t)snprintf(text + used, size - used, "%s\"%s\"", used > 1 ? ", " : "",
                                         tok);
        }
        free(copy);
    } else if (c->parsed) {
        config_setting_t *list = config_lookup(&c->cfg, "plugins.enable");
        int n = list != NULL ? config_setting_length(list) : 0;
        for (int i = 0; i < n; i++) {
            const char *name = config_setting_get_string_elem(list, i);
            if (name == NULL)
                continue;
            emit_elem(e, name);
            if (used < size)
                used += (size_t)snprintf(text + used, size - used, "%s\"%s\"", used > 1 ? ", " : "",
                                         name);
        }
    }
    emit_end(e);
    if (used < size)
        snprintf(text + used, size - used, used > 1 ? "]" : "] (every plugin)");
}

static void emit_priority_map(struct emit *e, const struct config_copy *c, char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "{");
    emit_section(e, "value", NULL);
    config_setting_t *group = c->parsed ? config_lookup(&c->cfg, "plugins.priority") : NULL;
    int n = group != NULL && config_setting_is_group(group) ? config_setting_length(group) : 0;
    for (int i = 0; i < n; i++) {
        config_setting_t *entry = config_setting_get_elem(group, (unsigned)i);
        long long priority = config_setting_get_int64(entry);
        emit_int(e, config_setting_name(entry), NULL, priority);
        if (used < size)
            used += (size_t)snprintf(text + used, size - used, "%s%s = %lld", used > 1 ? "; " : "",
                                     config_setting_name(entry), priority);
    }
    emit_end(e);
    if (used < size)
        snprintf(text + used, size - used, used > 1 ? "}" : "} (manifest priorities)");
}

static void emit_setting(struct emit *e, const struct hf_setting *row, const struct config_copy *c)
{
    enum hf_setting_id id = hf_setting_id_of(row);
    char value[1024];
    char source[96];
    const char *from = setting_source(row, c, source, sizeof(source));

    /* The value goes first into JSON, then the text line is written from the same value. */
    if (e->json) {
        emit_item(e, "%s", row->key);
        emit_str(e, "key", NULL, row->key);
    }
    switch (row->type) {
    case HF_TYPE_INT:
        snprintf(value, sizeof(value), "%lld%s%s", (long long)hf_setting_int(id),
                 row->unit[0] ? " " : "", row->unit);
        emit_int(e, "value", NULL, (long long)hf_setting_int(id));
        break;
    case HF_TYPE_BOOL:
        snprintf(value, sizeof(value), "%s", hf_setting_bool(id) ? "true" : "false");
        emit_bool(e, "value", NULL, hf_setting_bool(id));
        break;
    case HF_TYPE_STRING:
    case HF_TYPE_ENUM: {
        const char *text = hf_setting_string(id);
        snprintf(value, sizeof(value), "\"%s\"", text != NULL ? text : "");
        emit_str(e, "value", NULL, text != NULL ? text : "");
        break;
    }
    case HF_TYPE_LIST:
        emit_enable_list(e, c, value, sizeof(value));
        break;
    case HF_TYPE_MAP:
        emit_priority_map(e, c, value, sizeof(value));
        break;
    }
    if (e->json) {
        emit_str(e, "unit", NULL, row->unit);
        emit_str(e, "source", NULL, from);
        emit_bool(e, "live", NULL, row->live);
        emit_bool(e, "acts", NULL, row->no_effect == NULL);
        emit_str(e, "help", NULL, row->help);
        emit_end(e);
    } else {
        emit_text(e, "%-40s %-20s %s", row->key, value, from);
    }
}

void report_settings(struct emit *e, const struct check_setup *s)
{
    struct config_copy c;
    config_copy_read(&c, s);
    emit_list(e, "settings", "Settings (key, value, where the value came from)");
    if (s->config_rc < 0)
        emit_text(e, "(the configuration did not load; these are the built-in defaults)");
    for (size_t i = 0; i < HF_SETTING_COUNT; i++)
        emit_setting(e, &hf_settings[i], &c);
    emit_end(e);
    config_destroy(&c.cfg);
}

/* ---- library, configuration, runtime ------------------------------------------------------- */

static void report_config(struct emit *e, const struct check_setup *s)
{
    const char *env = hf_env_get("HIPFILE_CONFIG");
    bool from_env = env != NULL && env[0] != '\0';
    /* Without HIPFILE_CONFIG the library reads the first file of its search path that exists. */
    const char *const *search = hf_config_search_path();
    const char *path = hf_config_path();
    const char *tried = from_env ? env : path != NULL ? path : search[0];
    char error[1024];

    emit_section(e, "config", "Configuration");
    emit_str(e, "path", NULL, path);
    emit_str(e, "looked_at", NULL, tried);
    emit_str(e, "looked_at_because", NULL,
             from_env ? "HIPFILE_CONFIG" : "the default search path (HIPFILE_CONFIG is not set)");
    if (path != NULL)
        emit_strf(e, NULL, "file", "%s%s", path, from_env ? " (from HIPFILE_CONFIG)" : "");
    else if (s->config_rc == 0 && from_env)
        emit_strf(e, NULL, "file", "none at %s (from HIPFILE_CONFIG): built-in defaults", tried);
    else if (s->config_rc == 0)
        emit_strf(e, NULL, "file", "none at %s%s%s: built-in defaults", search[0],
                  search[1] != NULL ? " or " : "", search[1] != NULL ? search[1] : "");
    emit_bool(e, "loaded", "loaded", s->config_rc == 0);
    const char *why = s->config_rc < 0 ? log_last_error(s->config_log, error, sizeof(error)) : NULL;
    if (s->config_rc < 0 && why == NULL)
        why = strerror(-s->config_rc);
    emit_str(e, "error", s->config_rc < 0 ? "error" : NULL, why);
    emit_end(e);
}

static void report_runtime(struct emit *e, const struct check_setup *s)
{
    char source[96];
    char error[2048];
    struct config_copy c;
    config_copy_read(&c, s);
    const char *requested = hf_config_get_string("gpu.runtime");
    const char *from =
        setting_source(&hf_settings[HF_SETTING_GPU_RUNTIME], &c, source, sizeof(source));

    emit_section(e, "runtime", "GPU runtime");
    emit_str(e, "requested", NULL, requested);
    emit_str(e, "requested_source", NULL, from);
    emit_strf(e, NULL, "gpu.runtime", "%s (%s)", requested != NULL ? requested : "", from);

    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    const struct hf_gpu_ops *ops = hf_gpu();
    emit_bool(e, "bound", "bound", rt != NULL);
    emit_bool(e, "host_fallback", NULL, s->host_fallback);
    if (s->host_fallback) {
        const char *why = log_last_error(s->auto_log, error, sizeof(error));
        const char *prefix = "GPU runtime: ";
        if (why != NULL && strncmp(why, prefix, strlen(prefix)) == 0)
            why += strlen(prefix);
        emit_str(e, "auto_error", "auto", why != NULL ? why : "no GPU runtime with a device");
        emit_text(e, "(no GPU runtime reports a device, so hipfile-check uses the host emulation "
                     "built beside it, as a program linked with libhip-host does; the library "
                     "itself never picks the emulation)");
    }
    if (rt != NULL) {
        Dl_info where;
        const char *library = NULL;
        void *fn;
        /* POSIX lets a function pointer travel as void *; dladdr names the file holding it. */
        memcpy(&fn, &rt->get_device_count, sizeof(fn));
        if (dladdr(fn, &where) != 0)
            library = where.dli_fname;
        emit_str(e, "name", "name", ops->name);
        emit_str(e, "library", "library", library);
        emit_strf(e, "version", "HIP version", "%d.%d.%d", rt->version / 10000000,
                  rt->version / 100000 % 100, rt->version % 100000);
        emit_int(e, "version_code", NULL, rt->version);
        emit_int(e, "devices", "devices", rt->device_count);
        emit_str(e, "memory_type_numbering", "memory types",
                 rt->memtype_v6 ? "ROCm 6 numbering" : "HIP 5 numbering");
        emit_bool(e, "host_emulated", "host emulation", rt->host_emulated);
        if (rt->host_emulated)
            emit_text(e, "(device memory is ordinary host memory: no real GPU is used)");
        emit_str(e, "error", NULL, NULL);
    } else {
        const char *why = NULL;
        if (s->config_rc < 0)
            why = "not attempted: the configuration did not load";
        else
            why = log_last_error(s->gpu_log, error, sizeof(error));
        if (why == NULL)
            why = strerror(-s->gpu_rc);
        emit_str(e, "error", "why not", why);
        if (s->config_rc == 0)
            emit_text(e, "(without a GPU, gpu.runtime = \"host\" or HIPFILE_GPU_RUNTIME=host "
                         "selects the emulation in host memory)");
    }
    emit_end(e);
    config_destroy(&c.cfg);
}

void report_platform(struct emit *e, const struct check_setup *s)
{
    emit_int(e, "format", NULL, 1);
    emit_section(e, "library", "");
    emit_strf(e, "version", NULL, "%d.%d.%d", HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR,
              HIPFILE_VERSION_PATCH);
    emit_str(e, "tool", NULL, program_invocation_short_name);
    emit_str(e, "linked_provider", NULL, HF_CHECK_PROVIDER);
    emit_text(e, "hipfile %d.%d.%d, %s (HIP provider linked: %s)", HIPFILE_VERSION_MAJOR,
              HIPFILE_VERSION_MINOR, HIPFILE_VERSION_PATCH, program_invocation_short_name,
              HF_CHECK_PROVIDER);
    emit_end(e);
    report_config(e, s);
    report_runtime(e, s);
}
