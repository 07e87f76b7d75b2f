/*
 * The plugin part of the report and the verdict: every manifest in the plugin directory and why
 * its plugin did not load (in the loader's own words), each loaded backend, the library's
 * warnings, and whether device memory I/O can be served.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "gpu.h"
#include "loader.h"
#include "log.h"
#include "manifest.h"

/* ---- names --------------------------------------------------------------------------------- */

static const struct {
    uint32_t bit;
    const char *name;
} cap_names[] = {
    {HF_CAP_READ, "read"},
    {HF_CAP_WRITE, "write"},
    {HF_CAP_DEVICE_MEM, "device-memory"},
    {HF_CAP_HOST_MEM, "host-memory"},
    {HF_CAP_DIRECT, "direct"},
    {HF_CAP_COMPAT, "compat"},
};

/* Names of the set bits of @p bits, space separated; @p name_of names bit i. */
static const char *bits_text(uint32_t bits, const char *(*name_of)(int bit), char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < 32 && used < size; i++) {
        if (!(bits & (1u << i)))
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used > 0 ? " " : "", name_of(i));
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return buf[0] != '\0' ? buf : "none";
}

static const char *cap_name(int bit)
{
    for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
        if (cap_names[i].bit == 1u << bit)
            return cap_names[i].name;
    }
    return "unknown";
}

/* A list member in JSON, the same names on one line in text. */
static void emit_bits(struct emit *e, const char *key, const char *label, uint32_t bits,
                      const char *(*name_of)(int bit))
{
    emit_list(e, key, NULL);
    for (int i = 0; i < 32; i++) {
        if (bits & (1u << i))
            emit_elem(e, name_of(i));
    }
    emit_end(e);
    char text[256];
    emit_str(e, NULL, label, bits_text(bits, name_of, text, sizeof(text)));
}

static const char *compat_mode_name(enum hf_compat_mode mode)
{
    switch (mode) {
    case HF_COMPAT_OFF:
        return "off";
    case HF_COMPAT_ALLOW:
        return "allow";
    case HF_COMPAT_FORCE:
        return "force";
    }
    return "?";
}

/* ---- plugins and backends ------------------------------------------------------------------ */

static int manifest_filter(const struct dirent *entry)
{
    size_t len = strlen(entry->d_name);
    return entry->d_name[0] != '.' && len > 4 && strcmp(entry->d_name + len - 4, ".xml") == 0;
}

/* The loader's order: bytes of the file names, not the locale's collation. */
static int manifest_compare(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * The loader's one line about plugin @p name from @p manifest_path: "plugin <name> (<path>):
 * <reason>; skipped", where <path> is the manifest or the library. Copies <reason> to @p buf.
 */
static const char *loader_reason(const char *log, const char *name, const char *manifest_path,
                                 const char *library_path, char *buf, size_t size)
{
    char prefix[HF_MANIFEST_NAME_SIZE + 16];
    snprintf(prefix, sizeof(prefix), "plugin %s (", name);
    size_t prefix_len = strlen(prefix);
    const char *cursor = log;
    struct log_line line;
    while (log_line_next(&cursor, &line)) {
        if (line.level < 0 || line.message_len <= prefix_len ||
            strncmp(line.message, prefix, prefix_len) != 0)
            continue;
        const char *path = line.message + prefix_len;
        const char *end = line.message + line.message_len;
        size_t path_len = strlen(manifest_path);
        bool ours = (size_t)(end - path) > path_len + 3 &&
                    strncmp(path, manifest_path, path_len) == 0 &&
                    strncmp(path + path_len, "): ", 3) == 0;
        if (!ours && library_path != NULL) {
            path_len = strlen(library_path);
            ours = (size_t)(end - path) > path_len + 3 &&
                   strncmp(path, library_path, path_len) == 0 &&
                   strncmp(path + path_len, "): ", 3) == 0;
        }
        if (!ours)
            continue;
        const char *reason = path + path_len + 3;
        size_t len = (size_t)(end - reason);
        static const char *const tails[] = {"; skipped", "; not opened"};
        for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
            size_t tail = strlen(tails[i]);
            if (len > tail && strncmp(reason + len - tail, tails[i], tail) == 0)
                len -= tail;
        }
        snprintf(buf, size, "%.*s", (int)len, reason);
        return buf;
    }
    return NULL;
}

struct seen_name {
    char name[HF_MANIFEST_NAME_SIZE];
};

static void report_manifest(struct emit *e, const struct check_setup *s, const char *dir,
                            const char *file, struct seen_name *seen, size_t *seen_count)
{
    char path[4096];
    char why[HF_MANIFEST_WHY_SIZE + 256];
    char library[4096];
    struct hf_manifest m;
    const char *reason = NULL;
    bool loaded = false;
    bool valid = false;
    bool enabled = false;
    bool duplicate = false;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (hf_manifest_read(path, &m, why, sizeof(why)) < 0) {
        reason = why;
    } else {
        valid = true;
        enabled = hf_config_plugin_enabled(m.name);
        for (size_t i = 0; i < *seen_count; i++)
            duplicate |= strcmp(seen[i].name, m.name) == 0;
        if (!duplicate) {
            snprintf(seen[*seen_count].name, sizeof(seen[*seen_count].name), "%s", m.name);
            (*seen_count)++;
        }
        const struct hf_backend *b = hf_backend_find(m.name);
        loaded = b != NULL && strcmp(b->manifest_path, path) == 0;
        const char *library_path = NULL;
        char ignored[HF_MANIFEST_WHY_SIZE];
        if (hf_manifest_library_path(&m, dir, library, sizeof(library), ignored, sizeof(ignored)) ==
            0)
            library_path = library;
        if (loaded)
            reason = NULL;
        else if (s->loader_rc == 1)
            reason = "not opened: plugins are loaded only once a GPU runtime is bound";
        else
            reason = loader_reason(s->loader_log, m.name, path, library_path, why, sizeof(why));
        if (!loaded && reason == NULL)
            reason = duplicate ? "another manifest already uses this name"
                               : "not loaded (the library logged no reason)";
    }

    if (loaded)
        emit_item(e, "%s: %s %s: loaded", file, m.name, m.version);
    else if (valid)
        emit_item(e, "%s: %s %s: not loaded: %s", file, m.name, m.version, reason);
    else
        emit_item(e, "%s: invalid manifest: %s", file, reason);
    emit_str(e, "file", NULL, file);
    emit_str(e, "path", NULL, path);
    emit_bool(e, "valid", NULL, valid);
    emit_str(e, "name", NULL, valid ? m.name : NULL);
    emit_str(e, "version", NULL, valid ? m.version : NULL);
    emit_bool(e, "enabled", NULL, valid && enabled);
    emit_bool(e, "loaded", NULL, loaded);
    emit_str(e, "reason", NULL, reason);
    emit_end(e);
}

void report_plugins(struct emit *e, const struct check_setup *s)
{
    const char *dir = hf_config_get_string("plugins.directory");
    emit_section(e, "plugins", "Plugin directory");
    emit_str(e, "directory", "directory", dir);
    struct dirent **names = NULL;
    int n = dir != NULL && dir[0] != '\0' ? scandir(dir, &names, manifest_filter, manifest_compare)
                                          : -1;
    if (n < 0) {
        int err = dir != NULL && dir[0] != '\0' ? errno : ENOENT;
        emit_strf(e, "error", "error", "cannot read the directory: %s", strerror(err));
        emit_list(e, "manifests", NULL);
        emit_end(e);
        emit_end(e);
        return;
    }
    emit_str(e, "error", NULL, NULL);
    emit_list(e, "manifests", "manifests");
    if (n == 0)
        emit_text(e, "none (no *.xml file): no backend can load");
    struct seen_name *seen = calloc((size_t)n + 1, sizeof(*seen));
    size_t seen_count = 0;
    for (int i = 0; i < n; i++) {
        if (seen != NULL)
            report_manifest(e, s, dir, names[i]->d_name, seen, &seen_count);
        free(names[i]);
    }
    free(names);
    free(seen);
    emit_end(e);
    emit_end(e);
}

void report_backends(struct emit *e, const struct check_setup *s)
{
    (void)s;
    char text[256];
    emit_list(e, "backends", "Loaded backends");
    unsigned count = hf_backend_count();
    if (count == 0)
        emit_text(e, "none");
    for (unsigned i = 0; i < count; i++) {
        const struct hf_backend *b = hf_backend_at(i);
        emit_item(e, "%s %s", b->name, b->version);
        emit_str(e, "name", NULL, b->name);
        emit_str(e, "version", NULL, b->version);
        emit_str(e, "description", b->description[0] ? "description" : NULL, b->description);
        emit_str(e, "library", "library", b->library_path);
        emit_str(e, "manifest", NULL, b->manifest_path);
        emit_strf(e, "abi", "ABI", "%u.%u", HF_BACKEND_ABI_MAJOR, b->abi_minor);
        emit_int(e, "abi_minor", NULL, b->abi_minor);
        emit_int(e, "priority", NULL, b->priority);
        emit_int(e, "manifest_priority", NULL, b->manifest_priority);
        if (b->priority != b->manifest_priority)
            emit_strf(e, NULL, "priority", "%d (plugins.priority; manifest says %d)", b->priority,
                      b->manifest_priority);
        else
            emit_strf(e, NULL, "priority", "%d (manifest)", b->priority);
        emit_bits(e, "caps", "caps", b->ops->caps, cap_name);
        emit_bits(e, "memory", "memory (manifest)", b->mem_types, hf_manifest_mem_name);
        emit_bits(e, "files", "files (manifest)", b->file_kinds, hf_manifest_file_kind_name);
        emit_list(e, "retry_errnos", NULL);
        size_t used = 0;
        text[0] = '\0';
        for (unsigned r = 0; r < b->retry_errno_count; r++) {
            const char *name = hf_manifest_errno_name(b->retry_errnos[r]);
            emit_elem(e, name != NULL ? name : "?");
            /* The core retries after these two for every backend; the text names them once. */
            if (b->retry_errnos[r] == ENODEV || b->retry_errnos[r] == EREMOTEIO)
                continue;
            if (used < sizeof(text))
                used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", used ? " " : "",
                                         name != NULL ? name : "?");
        }
        emit_end(e);
        emit_strf(e, NULL, "retry after", "ENODEV EREMOTEIO%s%s", text[0] ? " " : "", text);
        /* A loaded backend passed its probe: the loader keeps no other. */
        emit_str(e, "probe", "probe", "usable on this machine (probe returned 0)");
        emit_end(e);
    }
    emit_end(e);

    emit_section(e, "direct_path", "Direct path");
    emit_bool(e, "available", NULL, hf_loader_has_direct_backend());
    emit_list(e, "backends", NULL);
    for (unsigned i = 0; i < count; i++) {
        if (hf_backend_at(i)->ops->caps & HF_CAP_DIRECT)
            emit_elem(e, hf_backend_at(i)->name);
    }
    emit_end(e);
    if (hf_loader_has_direct_backend())
        emit_text(e, "yes: at least one loaded backend moves data without a host bounce buffer");
    else
        emit_text(e, "none: every loaded backend goes through host memory");
    emit_end(e);
}

void report_messages(struct emit *e, const struct check_setup *s, bool verbose)
{
    const char *logs[] = {s->config_log, s->gpu_log, s->loader_log, s->explain_log};
    emit_list(e, "messages", verbose ? "Library log" : "Warnings and errors the library logged");
    bool any = false;
    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
        const char *cursor = logs[i];
        struct log_line line;
        while (log_line_next(&cursor, &line)) {
            if (!verbose && (line.level < 0 || line.level > HF_LOG_WARN))
                continue;
            char text[1100];
            snprintf(text, sizeof(text), "%.*s", (int)line.text_len, line.text);
            emit_elem(e, text);
            any = true;
        }
    }
    if (!any)
        emit_text(e, "none");
    emit_end(e);
}

/* ---- the verdict --------------------------------------------------------------------------- */

/* Whether the selector could ever hand device memory to @p b (manifest, caps, compat mode). */
static bool serves_device_memory(const struct hf_backend *b, enum hf_compat_mode mode)
{
    uint32_t caps = b->ops->caps;
    if (!(b->mem_types & (1u << HF_MEM_DEVICE)) || !(caps & (HF_CAP_READ | HF_CAP_WRITE)))
        return false;
    if (mode == HF_COMPAT_FORCE && !(caps & HF_CAP_COMPAT))
        return false;
    if (mode == HF_COMPAT_OFF && (caps & HF_CAP_COMPAT))
        return false;
    return true;
}

bool check_gpu_io_usable(const struct check_setup *s)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    if (s->config_rc < 0 || rt == NULL || rt->device_count < 1 || s->loader_rc < 0)
        return false;
    enum hf_compat_mode mode = hf_config_compat_mode();
    for (unsigned i = 0; i < hf_backend_count(); i++) {
        if (serves_device_memory(hf_backend_at(i), mode))
            return true;
    }
    return false;
}

/* Why GPU I/O is not usable, in one sentence, into @p buf. */
static const char *unusable_reason(const struct check_setup *s, char *buf, size_t size)
{
    if (check_setup_problem(s, buf, size) != NULL)
        return buf;
    if (hf_backend_count() == 0) {
        snprintf(buf, size, "no backend loaded from %s (see the plugin directory above)",
                 hf_config_get_string("plugins.directory"));
        return buf;
    }
    enum hf_compat_mode mode = hf_config_compat_mode();
    bool any_device = false;
    for (unsigned i = 0; i < hf_backend_count(); i++)
        any_device |= (hf_backend_at(i)->mem_types & (1u << HF_MEM_DEVICE)) != 0;
    if (!any_device)
        snprintf(buf, size, "no loaded backend accepts device memory");
    else
        snprintf(buf, size,
                 "properties.compat_mode is %s and no loaded backend that accepts device memory "
                 "is admitted by it",
                 compat_mode_name(mode));
    return buf;
}

int report_verdict(struct emit *e, const struct check_setup *s)
{
    bool usable = check_gpu_io_usable(s);
    char reason[4096];
    char names[1024] = "";
    size_t used = 0;
    enum hf_compat_mode mode = hf_config_compat_mode();

    emit_section(e, "verdict", "Verdict");
    emit_bool(e, "usable", NULL, usable);
    emit_list(e, "device_memory_backends", NULL);
    for (unsigned i = 0; usable && i < hf_backend_count(); i++) {
        const struct hf_backend *b = hf_backend_at(i);
        if (!serves_device_memory(b, mode))
            continue;
        emit_elem(e, b->name);
        if (used < sizeof(names))
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
                                     b->name);
    }
    emit_end(e);
    if (usable) {
        const struct hf_gpu_runtime *rt = hf_gpu_runtime();
        snprintf(reason, sizeof(reason),
                 "GPU I/O is usable: runtime %s with %d device%s%s; backends for device "
                 "memory: %s; %s",
                 hf_gpu()->name, rt->device_count, rt->device_count == 1 ? "" : "s",
                 rt->host_emulated ? " (host emulation)" : "", names,
                 hf_loader_has_direct_backend() ? "a direct path is available"
                                                : "no direct path (data goes through host memory)");
        emit_str(e, "reason", NULL, NULL);
    } else {
        char why[3072];
        unusable_reason(s, why, sizeof(why));
        snprintf(reason, sizeof(reason), "GPU I/O is NOT usable: %s", why);
        emit_str(e, "reason", NULL, why);
    }
    emit_str(e, "summary", NULL, reason);
    emit_text(e, "%s", reason);
    emit_end(e);
    return usable ? CHECK_EXIT_USABLE : CHECK_EXIT_UNUSABLE;
}
