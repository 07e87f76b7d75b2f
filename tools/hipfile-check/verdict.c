/*
 * The verdict: whether device memory I/O can be served and, when it cannot, every problem found,
 * each with its fix (the variable to set, or the file, line and key to change), built from what the
 * core recorded: where each setting came from, the loader's reasons, the manifests.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"

/* Whether the selector could ever hand device memory to @p b (manifest, caps, compat mode). */
static bool serves_device_memory(const struct hf_introspect_backend *b,
                                 enum hf_introspect_compat mode)
{
    uint32_t caps = b->caps;
    if (!(b->mem_types & (1u << HF_MEM_DEVICE)) || !(caps & (HF_CAP_READ | HF_CAP_WRITE)))
        return false;
    if (mode == HF_INTROSPECT_COMPAT_FORCE && !(caps & HF_CAP_COMPAT))
        return false;
    if (mode == HF_INTROSPECT_COMPAT_OFF && (caps & HF_CAP_COMPAT))
        return false;
    return true;
}

bool check_gpu_io_usable(const struct check_setup *s)
{
    struct hf_introspect_runtime rt;
    if (s->config_rc < 0 || !hf_introspect_runtime(&rt) || rt.device_count < 1 || s->loader_rc < 0)
        return false;
    enum hf_introspect_compat mode = hf_introspect_compat_mode();
    for (unsigned i = 0; i < hf_introspect_backend_count(); i++) {
        struct hf_introspect_backend b;
        if (hf_introspect_backend_at(i, &b) == 0 && serves_device_memory(&b, mode))
            return true;
    }
    return false;
}

/* ---- problems and their fixes ------------------------------------------------------------- */

/* Most problems one verdict lists; more manifests than this are summed up in the last. */
#define MAX_PROBLEMS 24

struct problem {
    char text[2048]; /* what is wrong, in the core's words where it has them */
    char fix[2048];  /* what to change: the variable, or the file, line and key */
};

struct problems {
    struct problem item[MAX_PROBLEMS];
    size_t count;
};

static void problem_add(struct problems *p, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem_add(struct problems *p, const char *fix, const char *fmt, ...)
{
    if (p->count >= MAX_PROBLEMS)
        return;
    struct problem *item = &p->item[p->count++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(item->text, sizeof(item->text), fmt, ap);
    va_end(ap);
    snprintf(item->fix, sizeof(item->fix), "%s", fix);
}

/* "<file>:<line>: ..." at the start of a core message: the file and line to correct. */
static bool message_location(const char *message, char *file, size_t file_size, long *line_p)
{
    const char *colon = strstr(message, ": ");
    while (colon != NULL) {
        const char *digits = colon;
        while (digits > message && digits[-1] >= '0' && digits[-1] <= '9')
            digits--;
        if (digits < colon && digits > message && digits[-1] == ':') {
            snprintf(file, file_size, "%.*s", (int)(digits - 1 - message), message);
            *line_p = strtol(digits, NULL, 10);
            return true;
        }
        colon = strstr(colon + 2, ": ");
    }
    return false;
}

static void config_problem(const struct check_setup *s, struct problems *p)
{
    char error[2048];
    char fix[2048];
    char file[1024];
    long line = 0;
    const char *why = log_last_error(s->config_log, error, sizeof(error));
    const char *failure = hf_introspect_config_failure();
    const char *variable = "the environment variable ";
    const char *config = "the config file ";
    if (why == NULL)
        why = strerror(-s->config_rc);
    if (failure != NULL && strncmp(failure, variable, strlen(variable)) == 0)
        snprintf(fix, sizeof(fix),
                 "set %s to a value it accepts (the message says which), or unset it",
                 failure + strlen(variable));
    else if (message_location(why, file, sizeof(file), &line))
        snprintf(fix, sizeof(fix), "correct line %ld of %s", line, file);
    else if (failure != NULL && strncmp(failure, config, strlen(config)) == 0)
        snprintf(fix, sizeof(fix),
                 "make %s a readable libconfig file, or set HIPFILE_CONFIG to another one",
                 failure + strlen(config));
    else
        snprintf(fix, sizeof(fix), "correct the configuration the message names");
    size_t used = strlen(fix);
    snprintf(fix + used, sizeof(fix) - used,
             "; then run hipfile-check again: the runtime and plugin checks need a configuration "
             "that loads");
    problem_add(p, fix, "the configuration does not load: %s", why);
}

static void runtime_problem(const struct check_setup *s, struct problems *p)
{
    char error[2048];
    char origin[1024];
    char fix[1024];
    const char *prefix = "GPU runtime: ";
    const char *why = log_last_error(s->gpu_log, error, sizeof(error));
    if (why != NULL && strncmp(why, prefix, strlen(prefix)) == 0)
        why += strlen(prefix);
    if (why == NULL)
        why = strerror(-s->gpu_rc);
    struct hf_introspect_setting setting;
    hf_introspect_setting_of(HF_INTROSPECT_GPU_RUNTIME, &setting);
    const char *runtime = setting.text;
    const char *where = setting.where;
    enum hf_introspect_origin from = setting.origin;
    if (s->auto_log != NULL) {
        problem_add(p,
                    "build the host runtime (runtimes/host, built by default) or install it "
                    "beside hipfile-check; on a GPU machine, install its runtime (AMD: ROCm's "
                    "libamdhip64; NVIDIA: the driver, used through hipfile's CUDA provider)",
                    "no GPU runtime reports a device, and the host emulation beside "
                    "hipfile-check (%s) cannot be opened: %s",
                    s->host_library, why);
        return;
    }
    if (runtime != NULL && strcasecmp(runtime, "auto") == 0) {
        problem_add(p,
                    "without a GPU, link programs with the host emulation (libhip-host) or set "
                    "HIPFILE_GPU_RUNTIME=host; the plain hipfile-check reports that case",
                    "no GPU runtime reports a device for programs linked like %s: %s",
                    program_invocation_short_name, why);
        return;
    }
    if (from == HF_INTROSPECT_ORIGIN_ENV)
        snprintf(fix, sizeof(fix),
                 "set HIPFILE_GPU_RUNTIME to auto, hip, cuda, host or the path of a HIP runtime "
                 "library, or unset it");
    else if (from == HF_INTROSPECT_ORIGIN_FILE)
        snprintf(fix, sizeof(fix),
                 "change gpu.runtime at %s to auto, hip, cuda, host or the path of a HIP runtime "
                 "library",
                 where);
    else
        snprintf(fix, sizeof(fix), "install the runtime gpu.runtime names");
    problem_add(p, fix, "gpu.runtime = \"%s\" (from %s) cannot be bound: %s",
                runtime != NULL ? runtime : "",
                hf_introspect_origin_text(HF_INTROSPECT_GPU_RUNTIME, origin, sizeof(origin)), why);
}

/* A plugin directory that is missing, unreadable or refused; false when it can be read. */
static bool directory_problem(const struct check_setup *s, struct problems *p)
{
    struct hf_introspect_setting directory;
    hf_introspect_setting_of(HF_INTROSPECT_PLUGINS_DIRECTORY, &directory);
    const char *dir = directory.text;
    char why[HF_INTROSPECT_WHY_SIZE];
    char origin[1024];
    char fix[1024];
    int rc = s->loader_rc < 0 ? s->loader_rc : 0;
    if (s->loader_rc == 1)
        rc = dir != NULL && dir[0] != '\0' ? hf_introspect_trust_directory(dir, why, sizeof(why))
                                           : -ENOENT;
    if (rc == 0)
        return false;
    if (rc == -EPERM) {
        char error[2048];
        const char *text =
            s->loader_rc < 0 ? log_last_error(s->loader_log, error, sizeof(error)) : why;
        problem_add(p,
                    "make that directory writable only by its owner (the message names the "
                    "chmod), or install the plugins in a directory of your own and point "
                    "plugins.directory there",
                    "%s%s", s->loader_rc < 0 ? "" : "plugin directory refused: ",
                    text != NULL ? text : strerror(EPERM));
        return true;
    }
    problem_add(p, hf_introspect_directory_fix(fix, sizeof(fix)),
                "plugin directory %s (from %s): %s", dir != NULL ? dir : "(none)",
                hf_introspect_origin_text(HF_INTROSPECT_PLUGINS_DIRECTORY, origin, sizeof(origin)),
                strerror(-rc));
    return true;
}

/* "a, b, c": the names the valid manifests declare. */
static const char *manifest_names(const struct manifest_result *r, int n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++) {
        if (!r[i].valid)
            continue;
        int k = snprintf(buf + used, size - used, "%s%s", used > 0 ? ", " : "", r[i].m.name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    return buf[0] != '\0' ? buf : "none";
}

/* Where plugins.enable came from, as "HIPFILE_PLUGINS" or "plugins.enable at FILE:LINE". */
static const char *enable_source(char *buf, size_t size)
{
    return hf_introspect_origin_text(HF_INTROSPECT_PLUGINS_ENABLE, buf, size);
}

/* Names of plugins.enable that no manifest has; returns how many problems it added. */
static size_t enable_problems(const struct manifest_result *r, int n, const char *dir,
                              struct problems *p)
{
    size_t before = p->count;
    const char *const *names;
    size_t count = hf_introspect_enable_list(&names);
    char there[1024];
    char source[1024];
    char fix[1536];
    manifest_names(r, n, there, sizeof(there));
    struct hf_introspect_setting enable;
    hf_introspect_setting_of(HF_INTROSPECT_PLUGINS_ENABLE, &enable);
    const char *where = enable.where;
    bool from_env = enable.origin == HF_INTROSPECT_ORIGIN_ENV;
    for (size_t e = 0; e < count; e++) {
        bool found = false;
        for (int i = 0; i < n && !found; i++)
            found = r[i].valid && strcmp(r[i].m.name, names[e]) == 0;
        if (found)
            continue;
        if (from_env)
            snprintf(fix, sizeof(fix),
                     "set HIPFILE_PLUGINS to names from: %s (separated by commas), or unset it to "
                     "allow them all",
                     there);
        else
            snprintf(fix, sizeof(fix),
                     "at %s, list names from: %s, separated by commas (or [] to allow them all)",
                     where != NULL ? where : "plugins.enable", there);
        problem_add(p, fix, "%s names \"%s\", but no manifest in %s has that name",
                    enable_source(source, sizeof(source)), names[e], dir);
    }
    return p->count - before;
}

/* The valid manifests plugins.enable keeps out, as one problem (none when a name above was). */
static void disabled_problem(const struct manifest_result *r, int n, struct problems *p)
{
    char names[1024] = "";
    char source[1024];
    char fix[1536];
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof(names); i++) {
        if (r[i].valid && !r[i].enabled)
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                     used > 0 ? ", " : "", r[i].m.name);
    }
    if (used == 0)
        return;
    struct hf_introspect_setting enable;
    hf_introspect_setting_of(HF_INTROSPECT_PLUGINS_ENABLE, &enable);
    const char *where = enable.where;
    if (enable.origin == HF_INTROSPECT_ORIGIN_ENV)
        snprintf(fix, sizeof(fix), "add the plugins to use to HIPFILE_PLUGINS, or unset it");
    else
        snprintf(fix, sizeof(fix), "add the plugins to use to plugins.enable at %s",
                 where != NULL ? where : "the config file");
    problem_add(p, fix, "%s keeps out %s", enable_source(source, sizeof(source)), names);
}

static void manifest_problem(const struct manifest_result *r, const char *dir, struct problems *p)
{
    char fix[2 * sizeof(r->path) + 256];
    if (!r->valid) {
        snprintf(fix, sizeof(fix), "correct or remove %s", r->path);
        problem_add(p, fix, "%s: invalid manifest: %s", r->file, r->reason);
        return;
    }
    if (!r->enabled)
        return; /* disabled_problem or enable_problems names these */
    if (strstr(r->reason, "ENODEV") != NULL)
        snprintf(fix, sizeof(fix), "none for %s: it serves hardware this machine does not have",
                 r->m.name);
    else
        snprintf(fix, sizeof(fix),
                 "reinstall plugin %s (its manifest and its library belong together in %s), or "
                 "remove %s",
                 r->m.name, dir, r->path);
    problem_add(p, fix, "%s (plugin %s) is not loaded: %s", r->file, r->m.name, r->reason);
}

static void backend_problems(const struct check_setup *s, struct problems *p)
{
    struct hf_introspect_setting directory;
    hf_introspect_setting_of(HF_INTROSPECT_PLUGINS_DIRECTORY, &directory);
    const char *dir = directory.text;
    char fix[1024];
    if (hf_introspect_backend_count() == 0) {
        struct manifest_result *results;
        int n = manifest_results(s, dir, &results);
        if (n < 0) {
            problem_add(p, hf_introspect_directory_fix(fix, sizeof(fix)), "plugin directory %s: %s",
                        dir, strerror(-n));
            return;
        }
        if (n == 0)
            problem_add(p, hf_introspect_directory_fix(fix, sizeof(fix)),
                        "plugin directory %s holds no manifests (*.xml), so no backend loaded",
                        dir);
        if (enable_problems(results, n, dir, p) == 0)
            disabled_problem(results, n, p);
        for (int i = 0; i < n; i++)
            manifest_problem(&results[i], dir, p);
        free(results);
        return;
    }
    enum hf_introspect_compat mode = hf_introspect_compat_mode();
    bool any_device = false;
    for (unsigned i = 0; i < hf_introspect_backend_count(); i++) {
        struct hf_introspect_backend b;
        any_device |= hf_introspect_backend_at(i, &b) == 0 && (b.mem_types & (1u << HF_MEM_DEVICE));
    }
    if (!any_device) {
        problem_add(p,
                    "enable a backend whose manifest accepts device memory, such as fallback "
                    "(plugins.enable, HIPFILE_PLUGINS)",
                    "no loaded backend accepts device memory");
        return;
    }
    struct hf_introspect_setting compat;
    hf_introspect_setting_of(HF_INTROSPECT_COMPAT_MODE, &compat);
    const char *where = compat.where;
    switch (compat.origin) {
    case HF_INTROSPECT_ORIGIN_ENV:
        snprintf(fix, sizeof(fix), "unset %s (or set properties.compat_mode to allow)", where);
        break;
    case HF_INTROSPECT_ORIGIN_FILE:
        snprintf(fix, sizeof(fix), "set properties.compat_mode = \"allow\" at %s", where);
        break;
    default:
        snprintf(fix, sizeof(fix), "set properties.compat_mode to allow");
        break;
    }
    problem_add(p, fix,
                "properties.compat_mode is %s and no loaded backend that accepts device memory "
                "is admitted by it",
                compat_mode_name(mode));
}

static void problems_collect(const struct check_setup *s, struct problems *p)
{
    p->count = 0;
    if (s->config_rc < 0) {
        config_problem(s, p);
        return;
    }
    struct hf_introspect_runtime rt;
    if (!hf_introspect_runtime(&rt) || rt.device_count < 1) {
        runtime_problem(s, p);
        /* The plugins load only with a runtime, but their directory can be checked now. */
        directory_problem(s, p);
        return;
    }
    if (directory_problem(s, p))
        return;
    backend_problems(s, p);
}

/* Warning lines of the setup: mistakes that do not stop I/O but change what it does. */
static int warning_count(const struct check_setup *s)
{
    const char *logs[] = {s->config_log, s->gpu_log, s->loader_log};
    int count = 0;
    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
        const char *cursor = logs[i];
        struct log_line line;
        while (log_line_next(&cursor, &line))
            count += line.level == HF_LOG_WARN;
    }
    return count;
}

int report_verdict(struct emit *e, const struct check_setup *s)
{
    bool usable = check_gpu_io_usable(s);
    char reason[4096];
    char names[1024] = "";
    size_t used = 0;
    enum hf_introspect_compat mode = hf_introspect_compat_mode();
    static struct problems problems;

    emit_section(e, "verdict", "Verdict");
    emit_bool(e, "usable", NULL, usable);
    emit_bool(e, "host_fallback", NULL, usable && s->host_fallback);
    emit_list(e, "device_memory_backends", NULL);
    for (unsigned i = 0; usable && i < hf_introspect_backend_count(); i++) {
        struct hf_introspect_backend b;
        if (hf_introspect_backend_at(i, &b) < 0 || !serves_device_memory(&b, mode))
            continue;
        emit_elem(e, b.name);
        if (used < sizeof(names))
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
                                     b.name);
    }
    emit_end(e);
    problems.count = 0;
    if (!usable)
        problems_collect(s, &problems);
    if (usable) {
        struct hf_introspect_runtime rt;
        (void)hf_introspect_runtime(&rt);
        snprintf(reason, sizeof(reason),
                 "GPU I/O is usable: runtime %s with %d device%s%s; backends for device "
                 "memory: %s; %s",
                 rt.name, rt.device_count, rt.device_count == 1 ? "" : "s",
                 rt.host_emulated ? " (host emulation)" : "", names,
                 hf_introspect_has_direct_backend()
                     ? "a direct path is available"
                     : "no direct path (data goes through host memory)");
        emit_str(e, "reason", NULL, NULL);
    } else {
        size_t at = (size_t)snprintf(reason, sizeof(reason), "GPU I/O is NOT usable: ");
        for (size_t i = 0; i < problems.count && at < sizeof(reason); i++)
            at += (size_t)snprintf(reason + at, sizeof(reason) - at, "%s%s", i > 0 ? "; " : "",
                                   problems.item[i].text);
        emit_str(e, "reason", NULL, problems.count > 0 ? problems.item[0].text : "unknown");
    }
    emit_list(e, "problems", NULL);
    for (size_t i = 0; i < problems.count; i++) {
        emit_item(e, "%s", problems.item[i].text);
        emit_str(e, "problem", NULL, problems.item[i].text);
        emit_str(e, "fix", NULL, problems.item[i].fix);
        emit_end(e);
    }
    emit_end(e);
    emit_str(e, "summary", NULL, reason);
    if (usable) {
        emit_text(e, "%s", reason);
        if (s->host_fallback)
            emit_text(e,
                      "no GPU is used: gpu.runtime is auto and no GPU runtime reports a device, "
                      "so hipfile-check took the host emulation (%s); programs get the same "
                      "by linking libhip-host, as the examples and tools built without a "
                      "suffix do, or with HIPFILE_GPU_RUNTIME=host",
                      s->host_library);
    } else {
        emit_text(e, "GPU I/O is NOT usable (%zu problem%s):", problems.count,
                  problems.count == 1 ? "" : "s");
        for (size_t i = 0; i < problems.count; i++) {
            emit_text(e, "%zu. %s", i + 1, problems.item[i].text);
            emit_text(e, "   fix: %s", problems.item[i].fix);
        }
    }
    int warnings = warning_count(s);
    emit_int(e, "warnings", NULL, warnings);
    if (warnings > 0)
        emit_text(e, "%d warning%s above name%s settings or plugins that were ignored", warnings,
                  warnings == 1 ? "" : "s", warnings == 1 ? "s" : "");
    emit_end(e);
    return usable ? CHECK_EXIT_USABLE : CHECK_EXIT_UNUSABLE;
}
