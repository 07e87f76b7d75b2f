/*
 * The plugin part of the report: every manifest in the plugin directory and why its plugin did not
 * load (in the loader's own words), each loaded backend, and the library's warnings.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- names --------------------------------------------------------------------------------- */

static const struct {
    uint32_t bit;
    const char *name;
} cap_names[] = {
    {HF_CAP_READ, "read"},
    {HF_CAP_WRITE, "write"},
    {HF_CAP_RESERVED_2, "reserved-2"},
    {HF_CAP_RESERVED_3, "reserved-3"},
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

const char *compat_mode_name(enum hf_introspect_compat mode)
{
    switch (mode) {
    case HF_INTROSPECT_COMPAT_OFF:
        return "off";
    case HF_INTROSPECT_COMPAT_ALLOW:
        return "allow";
    case HF_INTROSPECT_COMPAT_FORCE:
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
    char prefix[HF_INTROSPECT_NAME_SIZE + 16];
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
    char name[HF_INTROSPECT_NAME_SIZE];
};

static void manifest_result(const struct check_setup *s, const char *dir, const char *file,
                            struct seen_name *seen, size_t *seen_count, struct manifest_result *r)
{
    char why[HF_INTROSPECT_WHY_SIZE + 256];
    const char *reason = NULL;
    bool duplicate = false;

    memset(r, 0, sizeof(*r));
    snprintf(r->file, sizeof(r->file), "%s", file);
    snprintf(r->path, sizeof(r->path), "%s/%s", dir, file);
    if (hf_introspect_manifest_read(r->path, dir, &r->m, why, sizeof(why)) < 0) {
        snprintf(r->reason, sizeof(r->reason), "%s", why);
        return;
    }
    r->valid = true;
    r->enabled = hf_introspect_plugin_enabled(r->m.name);
    for (size_t i = 0; i < *seen_count; i++)
        duplicate |= strcmp(seen[i].name, r->m.name) == 0;
    if (!duplicate) {
        snprintf(seen[*seen_count].name, sizeof(seen[*seen_count].name), "%s", r->m.name);
        (*seen_count)++;
    }
    r->loaded = hf_introspect_loaded_from(r->m.name, r->path);
    const char *library_path = r->m.library_path[0] != '\0' ? r->m.library_path : NULL;
    if (r->loaded)
        return;
    if (s->loader_rc == 1)
        reason = "not opened: plugins are loaded only once a GPU runtime is bound";
    else
        reason = loader_reason(s->loader_log, r->m.name, r->path, library_path, why, sizeof(why));
    if (reason == NULL)
        reason = duplicate ? "another manifest already uses this name"
                           : "not loaded (the library logged no reason)";
    snprintf(r->reason, sizeof(r->reason), "%s", reason);
}

int manifest_results(const struct check_setup *s, const char *dir,
                     struct manifest_result **results_p)
{
    struct dirent **names = NULL;
    *results_p = NULL;
    if (dir == NULL || dir[0] == '\0')
        return -ENOENT;
    int n = scandir(dir, &names, manifest_filter, manifest_compare);
    if (n < 0)
        return -errno;
    struct manifest_result *results = calloc((size_t)n + 1, sizeof(*results));
    struct seen_name *seen = calloc((size_t)n + 1, sizeof(*seen));
    size_t seen_count = 0;
    for (int i = 0; i < n; i++) {
        if (results != NULL && seen != NULL)
            manifest_result(s, dir, names[i]->d_name, seen, &seen_count, &results[i]);
        free(names[i]);
    }
    free(names);
    free(seen);
    if (results == NULL || seen == NULL) {
        free(results);
        return -ENOMEM;
    }
    *results_p = results;
    return n;
}

static void report_manifest(struct emit *e, const struct manifest_result *r)
{
    if (r->loaded)
        emit_item(e, "%s: %s %s: loaded", r->file, r->m.name, r->m.version);
    else if (r->valid)
        emit_item(e, "%s: %s %s: not loaded: %s", r->file, r->m.name, r->m.version, r->reason);
    else
        emit_item(e, "%s: invalid manifest: %s", r->file, r->reason);
    emit_str(e, "file", NULL, r->file);
    emit_str(e, "path", NULL, r->path);
    emit_bool(e, "valid", NULL, r->valid);
    emit_str(e, "name", NULL, r->valid ? r->m.name : NULL);
    emit_str(e, "version", NULL, r->valid ? r->m.version : NULL);
    emit_bool(e, "enabled", NULL, r->valid && r->enabled);
    emit_bool(e, "loaded", NULL, r->loaded);
    emit_str(e, "reason", NULL, r->loaded ? NULL : r->reason);
    emit_end(e);
}

void report_plugins(struct emit *e, const struct check_setup *s)
{
    struct hf_introspect_setting directory;
    hf_introspect_setting_of(HF_INTROSPECT_PLUGINS_DIRECTORY, &directory);
    const char *dir = directory.text;
    emit_section(e, "plugins", "Plugin directory");
    emit_str(e, "directory", "directory", dir);
    struct manifest_result *results;
    int n = manifest_results(s, dir, &results);
    if (n < 0) {
        emit_strf(e, "error", "error", "cannot read the directory: %s", strerror(-n));
        emit_list(e, "manifests", NULL);
        emit_end(e);
        emit_end(e);
        return;
    }
    emit_str(e, "error", NULL, NULL);
    emit_list(e, "manifests", "manifests");
    if (n == 0)
        emit_text(e, "none (no *.xml file): no backend can load");
    for (int i = 0; i < n; i++)
        report_manifest(e, &results[i]);
    free(results);
    emit_end(e);
    emit_end(e);
}

void report_backends(struct emit *e, const struct check_setup *s)
{
    (void)s;
    char text[256];
    emit_list(e, "backends", "Loaded backends");
    unsigned count = hf_introspect_backend_count();
    if (count == 0)
        emit_text(e, "none");
    for (unsigned i = 0; i < count; i++) {
        struct hf_introspect_backend backend;
        if (hf_introspect_backend_at(i, &backend) < 0)
            continue;
        const struct hf_introspect_backend *b = &backend;
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
        emit_bits(e, "caps", "caps", b->caps, cap_name);
        emit_bits(e, "memory", "memory (manifest)", b->mem_types, hf_introspect_mem_name);
        emit_bits(e, "files", "files (manifest)", b->file_kinds, hf_introspect_file_kind_name);
        emit_list(e, "retry_errnos", NULL);
        size_t used = 0;
        text[0] = '\0';
        for (unsigned r = 0; r < b->retry_errno_count; r++) {
            const char *name = hf_introspect_errno_name(b->retry_errnos[r]);
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
    emit_bool(e, "available", NULL, hf_introspect_has_direct_backend());
    emit_list(e, "backends", NULL);
    for (unsigned i = 0; i < count; i++) {
        struct hf_introspect_backend b;
        if (hf_introspect_backend_at(i, &b) == 0 && (b.caps & HF_CAP_DIRECT))
            emit_elem(e, b.name);
    }
    emit_end(e);
    if (hf_introspect_has_direct_backend())
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
