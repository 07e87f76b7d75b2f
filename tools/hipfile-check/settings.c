/*
 * The configuration part of the report: the file read, every setting of the table and every key
 * the loaded plugins declare, with its value and source (default, config file or environment),
 * the GPU runtime bound or why none was.
 */
#include <errno.h>
#include <hipfile.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- configuration and settings ------------------------------------------------------------ */

/* Where a value came from, in the words of the listing: the core recorded it as it loaded. */
static const char *origin_words(enum hf_introspect_origin origin, const char *where, char *buf,
                                size_t size)
{
    switch (origin) {
    case HF_INTROSPECT_ORIGIN_FILE:
        return "config file";
    case HF_INTROSPECT_ORIGIN_ENV:
        snprintf(buf, size, "environment %s", where != NULL ? where : "");
        return buf;
    case HF_INTROSPECT_ORIGIN_API:
        return "parameter API";
    case HF_INTROSPECT_ORIGIN_DEFAULT:
        break;
    }
    return "default";
}

/* Where the value of @p row came from: environment, config file or default. */
static const char *setting_source(const struct hf_introspect_setting *row, char *buf, size_t size)
{
    if (row->view)
        return "same as properties.compat_mode";
    return origin_words(row->origin, row->where, buf, size);
}

/* plugins.enable as the core read it: the environment's list, else the file's, else empty. */
static void emit_enable_list(struct emit *e, char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "[");
    const char *const *names;
    size_t count = hf_introspect_enable_list(&names);
    emit_list(e, "value", NULL);
    for (size_t i = 0; i < count; i++) {
        emit_elem(e, names[i]);
        if (used < size)
            used += (size_t)snprintf(text + used, size - used, "%s\"%s\"", used > 1 ? ", " : "",
                                     names[i]);
    }
    emit_end(e);
    if (used < size)
        snprintf(text + used, size - used, used > 1 ? "]" : "] (every plugin)");
}

static void emit_priority_map(struct emit *e, char *text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "{");
    const char *const *names;
    const int *values;
    size_t count = hf_introspect_priorities(&names, &values);
    emit_section(e, "value", NULL);
    for (size_t i = 0; i < count; i++) {
        emit_int(e, names[i], NULL, values[i]);
        if (used < size)
            used += (size_t)snprintf(text + used, size - used, "%s%s = %d", used > 1 ? "; " : "",
                                     names[i], values[i]);
    }
    emit_end(e);
    if (used < size)
        snprintf(text + used, size - used, used > 1 ? "}" : "} (manifest priorities)");
}

static void emit_setting(struct emit *e, const struct hf_introspect_setting *row)
{
    char value[1024];
    char source[96];
    const char *from = setting_source(row, source, sizeof(source));

    /* The value goes first into JSON, then the text line is written from the same value. */
    if (e->json) {
        emit_item(e, "%s", row->key);
        emit_str(e, "key", NULL, row->key);
    }
    switch (row->kind) {
    case HF_INTROSPECT_INT:
        snprintf(value, sizeof(value), "%lld%s%s", (long long)row->num, row->unit[0] ? " " : "",
                 row->unit);
        emit_int(e, "value", NULL, (long long)row->num);
        break;
    case HF_INTROSPECT_BOOL:
        snprintf(value, sizeof(value), "%s", row->num ? "true" : "false");
        emit_bool(e, "value", NULL, row->num != 0);
        break;
    case HF_INTROSPECT_STRING:
        snprintf(value, sizeof(value), "\"%s\"", row->text != NULL ? row->text : "");
        emit_str(e, "value", NULL, row->text != NULL ? row->text : "");
        break;
    case HF_INTROSPECT_LIST:
        emit_enable_list(e, value, sizeof(value));
        break;
    case HF_INTROSPECT_MAP:
        emit_priority_map(e, value, sizeof(value));
        break;
    }
    if (e->json) {
        emit_str(e, "unit", NULL, row->unit);
        emit_str(e, "source", NULL, from);
        emit_str(e, "where", NULL, row->view ? NULL : row->where);
        emit_bool(e, "live", NULL, row->live);
        emit_bool(e, "acts", NULL, row->acts);
        emit_str(e, "help", NULL, row->help);
        emit_end(e);
    } else {
        emit_text(e, "%-40s %-20s %s", row->key, value, from);
    }
}

void report_settings(struct emit *e, const struct check_setup *s)
{
    emit_list(e, "settings", "Settings (key, value, where the value came from)");
    if (s->config_rc < 0)
        emit_text(e, "(the configuration did not load; these are the built-in defaults)");
    for (unsigned i = 0; i < hf_introspect_setting_count(); i++) {
        struct hf_introspect_setting row;
        if (hf_introspect_setting_at(i, &row) == 0)
            emit_setting(e, &row);
    }
    emit_end(e);
}

/* One declared key: its value, where it came from (with the file's line), and its help line. */
static void emit_plugin_key(struct emit *e, const struct hf_introspect_plugin_key *k)
{
    char source[4200];
    const char *from = k->origin == HF_INTROSPECT_ORIGIN_FILE && k->where != NULL
                           ? (snprintf(source, sizeof(source), "config file %s", k->where), source)
                           : origin_words(k->origin, k->where, source, sizeof(source));
    char value[300];
    snprintf(value, sizeof(value), "%s%s%s", k->value, k->unit[0] ? " " : "", k->unit);
    if (!e->json) {
        emit_text(e, "%-40s %-20s %s", k->key, value, from);
        emit_text(e, "  %s", k->help);
        return;
    }
    emit_item(e, "%s", k->key);
    emit_str(e, "key", NULL, k->key);
    emit_str(e, "type", NULL, k->type);
    switch (k->kind) {
    case HF_INTROSPECT_INT:
        emit_int(e, "value", NULL, (long long)k->num);
        break;
    case HF_INTROSPECT_BOOL:
        emit_bool(e, "value", NULL, k->num != 0);
        break;
    default:
        emit_str(e, "value", NULL, k->text);
        break;
    }
    emit_str(e, "unit", NULL, k->unit);
    emit_str(e, "source", NULL, from);
    emit_str(e, "where", NULL, k->where);
    emit_str(e, "environment", NULL, k->env);
    emit_str(e, "accepts", NULL, k->accepts);
    emit_bool(e, "live", NULL, k->live);
    emit_str(e, "help", NULL, k->help);
    emit_end(e);
}

void report_plugin_settings(struct emit *e, const struct check_setup *s)
{
    (void)s;
    emit_list(e, "plugin_settings", "Plugin settings (key, value, where the value came from)");
    unsigned count = hf_introspect_backend_count();
    if (count == 0)
        emit_text(e, "none: no backend is loaded");
    for (unsigned i = 0; i < count; i++) {
        struct hf_introspect_backend b;
        if (hf_introspect_backend_at(i, &b) < 0)
            continue;
        struct hf_introspect_plugin_key key;
        int rc = hf_introspect_plugin_key_at(b.name, 0, &key);
        emit_item(e, "%s", b.name);
        emit_str(e, "plugin", NULL, b.name);
        /* Plugins built before ABI minor 5 read their keys without declaring them. */
        emit_bool(e, "declared", NULL, rc != -ESRCH);
        if (rc == -ESRCH)
            emit_text(e, "(declares no keys: its group is read as it is, unknown keys are "
                         "reported once it has started)");
        emit_list(e, "keys", "");
        for (unsigned k = 0; rc == 0; k++) {
            rc = hf_introspect_plugin_key_at(b.name, k, &key);
            if (rc == 0)
                emit_plugin_key(e, &key);
        }
        emit_end(e);
        emit_end(e);
    }
    emit_end(e);
}

/* ---- library, configuration, runtime ------------------------------------------------------- */

static void report_config(struct emit *e, const struct check_setup *s)
{
    const char *env = hf_introspect_env("HIPFILE_CONFIG");
    bool from_env = env != NULL && env[0] != '\0';
    /* Without HIPFILE_CONFIG the library reads the first file of its search path that exists. */
    const char *const *search = hf_introspect_config_search_path();
    const char *path = hf_introspect_config_path();
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
    struct hf_introspect_setting runtime;
    hf_introspect_setting_of(HF_INTROSPECT_GPU_RUNTIME, &runtime);
    const char *requested = runtime.text;
    const char *from = setting_source(&runtime, source, sizeof(source));

    emit_section(e, "runtime", "GPU runtime");
    emit_str(e, "requested", NULL, requested);
    emit_str(e, "requested_source", NULL, from);
    emit_strf(e, NULL, "gpu.runtime", "%s (%s)", requested != NULL ? requested : "", from);

    struct hf_introspect_runtime rt_facts;
    const struct hf_introspect_runtime *rt = hf_introspect_runtime(&rt_facts) ? &rt_facts : NULL;
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
        emit_str(e, "name", "name", rt->name);
        emit_str(e, "library", "library", rt->library);
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
}

/* Bytes in GiB, or MiB below one GiB, for the text report. */
static void size_text(uint64_t bytes, char *buf, size_t size)
{
    if (bytes >= (uint64_t)1 << 30)
        snprintf(buf, size, "%.1f GiB", (double)bytes / (double)((uint64_t)1 << 30));
    else
        snprintf(buf, size, "%.0f MiB", (double)bytes / (double)((uint64_t)1 << 20));
}

/*
 * What the process may use, which a container sets below what the machine reports: the library
 * sizes the lanes of page-cache work by the CPUs and its pinned staging by the memory.
 */
static void report_budgets(struct emit *e)
{
    struct hf_introspect_budgets b;
    hf_introspect_budgets(&b);
    char memory[32], physical[32], staging[32], pinned[32];
    size_text(b.memory_bytes, memory, sizeof(memory));
    size_text(b.physical_bytes, physical, sizeof(physical));
    size_text(b.staging_kb * 1024, staging, sizeof(staging));
    size_text(b.pinned_kb * 1024, pinned, sizeof(pinned));
    emit_section(e, "budgets", "What the process may use");
    emit_int(e, "cpus", NULL, b.cpus);
    emit_int(e, "affinity_cpus", NULL, b.affinity_cpus);
    emit_int(e, "memory_bytes", NULL, (long long)b.memory_bytes);
    emit_int(e, "physical_bytes", NULL, (long long)b.physical_bytes);
    emit_int(e, "staging_kb", NULL, (long long)b.staging_kb);
    emit_int(e, "pinned_kb", NULL, (long long)b.pinned_kb);
    emit_strf(e, NULL, "CPUs", "%u (%u in the affinity mask%s)", b.cpus, b.affinity_cpus,
              b.cpus < b.affinity_cpus ? ", fewer by the cgroup's CPU quota" : "");
    emit_strf(e, NULL, "memory", "%s (%s physical%s)", memory, physical,
              b.memory_bytes < b.physical_bytes ? ", less by the cgroup's memory limit" : "");
    emit_strf(e, NULL, "staging per GPU", "%s, pinned at most %s", staging, pinned);
    emit_end(e);
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
    report_budgets(e);
}
