/*
 * The plugin loader: scans the plugin directory's manifests in byte order, opens the enabled
 * plugins, runs the ABI handshake, init and probe, and keeps the backends that pass in the table
 * of backends.c; then has the config report what no manifest claimed, and says once when no
 * backend is left. Plugins are never unloaded once their code has run.
 */
#include "host/loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/why.h"
#include "config/config.h"
#include "host/backend_call.h"
#include "host/host_api.h"
#include "host/plugin_trust.h"

static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static bool loader_done;
static int loader_result;

/* Smallest ops table the core accepts per negotiated minor: everything that minor defines. */
static const size_t ops_size_for_minor[] = {
    [0] = offsetof(struct hf_backend_ops, write) + sizeof(((struct hf_backend_ops *)0)->write),
    /* Minor 1 added to the host side only (executor, preadv2): ops tables are unchanged. */
    [1] = offsetof(struct hf_backend_ops, write) + sizeof(((struct hf_backend_ops *)0)->write),
    /* Minor 2 added GPU device attributes and hipGetProcAddress to the host side only. */
    [2] = offsetof(struct hf_backend_ops, write) + sizeof(((struct hf_backend_ops *)0)->write),
    /*
     * Minor 3 added the host NUMA node attribute and host registration to the GPU table, and the
     * optional submit_many to ops tables.
     */
    [3] = offsetof(struct hf_backend_ops, submit_many) +
          sizeof(((struct hf_backend_ops *)0)->submit_many),
    /* Minor 4 added the optional stream_prepare to ops tables. */
    [4] = offsetof(struct hf_backend_ops, stream_prepare) +
          sizeof(((struct hf_backend_ops *)0)->stream_prepare),
    /* Minor 5 added the optional settings declarations to ops tables and core_limits. */
    [5] = offsetof(struct hf_backend_ops, setting_count) +
          sizeof(((struct hf_backend_ops *)0)->setting_count),
    /* Minor 6 added file kinds and hf_file_info members (user-space FS, remote): no ops. */
    [6] = offsetof(struct hf_backend_ops, setting_count) +
          sizeof(((struct hf_backend_ops *)0)->setting_count),
    /* Minor 7 added the optional transfer, one op for both directions. */
    [7] =
        offsetof(struct hf_backend_ops, transfer) + sizeof(((struct hf_backend_ops *)0)->transfer),
    /* Minor 8 added cached_bytes to the system-call table, on the host side only. */
    [8] =
        offsetof(struct hf_backend_ops, transfer) + sizeof(((struct hf_backend_ops *)0)->transfer),
    /* Minor 9 added the optional file_size (a remote object's size). */
    [9] = offsetof(struct hf_backend_ops, file_size) +
          sizeof(((struct hf_backend_ops *)0)->file_size),
    /* Minor 10 added host_register_read_only to the GPU table, on the host side only. */
    [10] = offsetof(struct hf_backend_ops, file_size) +
           sizeof(((struct hf_backend_ops *)0)->file_size),
    /* Minor 11 added cpu_budget to the core limits, on the host side only. */
    [11] = offsetof(struct hf_backend_ops, file_size) +
           sizeof(((struct hf_backend_ops *)0)->file_size),
};
_Static_assert(sizeof(ops_size_for_minor) / sizeof(ops_size_for_minor[0]) ==
                   HF_BACKEND_ABI_MINOR + 1,
               "every ABI minor needs its minimum ops table size");

/* ---- loading one plugin ---- */

static const char *errno_text(int err, char *buf, size_t size)
{
    const char *name = hf_manifest_errno_name(err);
    if (name != NULL)
        snprintf(buf, size, "%s (%s)", name, strerror(err));
    else
        snprintf(buf, size, "%s", strerror(err));
    return buf;
}

/* What the core needs of an ops table at the negotiated minor. */
static int ops_check(const struct hf_backend_ops *ops, uint32_t minor, const char *name, char *why,
                     size_t why_size)
{
    if (ops == NULL) {
        hf_why_set(why, why_size, "the entry point returned no ops table");
        return -EINVAL;
    }
    if (ops->magic != HF_BACKEND_MAGIC) {
        hf_why_set(why, why_size, "bad magic 0x%08x in the ops table (expected 0x%08x)", ops->magic,
                   HF_BACKEND_MAGIC);
        return -EINVAL;
    }
    if (ops->abi_major != HF_BACKEND_ABI_MAJOR) {
        hf_why_set(why, why_size, "ops table is for ABI major %u, the core implements %u",
                   ops->abi_major, HF_BACKEND_ABI_MAJOR);
        return -EINVAL;
    }
    size_t need = ops_size_for_minor[minor];
    if (ops->struct_size < need) {
        hf_why_set(why, why_size, "ops table is %u bytes, ABI %u.%u needs at least %zu",
                   ops->struct_size, HF_BACKEND_ABI_MAJOR, minor, need);
        return -EINVAL;
    }
    if (ops->name == NULL || strcmp(ops->name, name) != 0) {
        hf_why_set(why, why_size, "the library calls itself '%s' but its manifest says '%s'",
                   ops->name != NULL ? ops->name : "(null)", name);
        return -EINVAL;
    }
    if ((ops->caps & (HF_CAP_READ | HF_CAP_WRITE)) == 0) {
        hf_why_set(why, why_size, "caps 0x%x offer neither HF_CAP_READ nor HF_CAP_WRITE",
                   ops->caps);
        return -EINVAL;
    }
    /* transfer is read only where the negotiated minor defines it: an older table ends before. */
    bool has_transfer = hf_call_has_transfer(ops, minor);
    const char *missing = NULL;
    if (ops->init == NULL)
        missing = "init";
    else if (ops->fini == NULL)
        missing = "fini";
    else if (ops->probe == NULL)
        missing = "probe";
    else if (ops->score == NULL)
        missing = "score";
    else if ((ops->caps & HF_CAP_READ) && ops->read == NULL && !has_transfer)
        missing = minor >= 7 ? "read or transfer (caps include HF_CAP_READ)"
                             : "read (caps include HF_CAP_READ)";
    else if ((ops->caps & HF_CAP_WRITE) && ops->write == NULL && !has_transfer)
        missing = minor >= 7 ? "write or transfer (caps include HF_CAP_WRITE)"
                             : "write (caps include HF_CAP_WRITE)";
    if (missing != NULL) {
        hf_why_set(why, why_size, "mandatory member %s is NULL", missing);
        return -EINVAL;
    }
    return 0;
}

/* dlerror's text without the library path it starts with, which the line names already. */
static const char *dlerror_reason(const char *err, const char *library_path)
{
    size_t len = strlen(library_path);
    if (err == NULL)
        return "unknown error";
    if (strncmp(err, library_path, len) == 0 && strncmp(err + len, ": ", 2) == 0)
        return err + len + 2;
    return err;
}

/*
 * Open @p library_path and find its entry point into *entry_p, with the handle that keeps it in
 * *handle_p. Returns 0, or logs the one line that says why and returns -ENOENT.
 */
static int plugin_open(const struct hf_manifest *m, const char *manifest_path,
                       const char *library_path, void **handle_p, hf_backend_entry_fn *entry_p)
{
    void *handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        hf_warn("plugin %s (%s): cannot open %s: %s; skipped", m->name, manifest_path, library_path,
                dlerror_reason(dlerror(), library_path));
        return -ENOENT;
    }
    dlerror();
    hf_backend_entry_fn entry;
    /* POSIX allows converting a dlsym result to a function pointer; ISO C does not say so. */
    *(void **)&entry = dlsym(handle, HF_BACKEND_ENTRY_SYMBOL);
    if (entry == NULL) {
        hf_warn("plugin %s (%s): %s does not export %s; skipped", m->name, manifest_path,
                library_path, HF_BACKEND_ENTRY_SYMBOL);
        dlclose(handle);
        return -ENOENT;
    }
    *handle_p = handle;
    *entry_p = entry;
    return 0;
}

/*
 * The ABI handshake: hand the plugin its host API in @p b through @p entry, settle on the minor
 * both sides speak and check the ops table it answers with against that minor and its manifest.
 * Returns 0 with the table in *ops_p and the minor in *minor_p, or logs why and returns -errno.
 */
static int plugin_handshake(struct hf_backend *b, const struct hf_manifest *m,
                            const char *library_path, hf_backend_entry_fn entry,
                            const struct hf_backend_ops **ops_p, uint32_t *minor_p)
{
    char why[HF_MANIFEST_WHY_SIZE + 256];
    char text[96];
    snprintf(b->name, sizeof(b->name), "%s", m->name);
    hf_host_api_fill(b);
    uint32_t minor = HF_BACKEND_ABI_MINOR;
    const struct hf_backend_ops *ops = NULL;
    int rc = entry(&b->host, &minor, &ops);
    if (rc != 0) {
        hf_warn("plugin %s (%s): entry point failed: %s; skipped", m->name, library_path,
                rc < 0 ? errno_text(-rc, text, sizeof(text)) : "positive return value");
        return rc < 0 ? rc : -EINVAL;
    }
    /* Each side uses the lower minor; a plugin that answers higher than asked is held to ours. */
    if (minor > HF_BACKEND_ABI_MINOR)
        minor = HF_BACKEND_ABI_MINOR;
    if (ops != NULL && ops->magic == HF_BACKEND_MAGIC && ops->abi_minor < minor)
        minor = ops->abi_minor;
    rc = ops_check(ops, minor, m->name, why, sizeof(why));
    if (rc == 0)
        rc = hf_loader_library_abi_refusal(m, minor, why, sizeof(why));
    if (rc < 0) {
        hf_warn("plugin %s (%s): %s; skipped", m->name, library_path, why);
        return rc;
    }
    *ops_p = ops;
    *minor_p = minor;
    return 0;
}

/* Declare the settings the plugin of @p b declares to the config: 0, or logs why and -errno. */
static int plugin_declare_settings(struct hf_backend *b, const struct hf_manifest *m,
                                   const char *library_path)
{
    if (b->complete.settings == NULL)
        return 0;
    int rc =
        hf_config_declare_plugin_settings(b->name, b->complete.settings, b->complete.setting_count);
    if (rc < 0) {
        hf_warn("plugin %s (%s): its config group %s does not match the settings it "
                "declares (see above); skipped",
                m->name, library_path, m->name);
        return rc;
    }
    return 0;
}

/*
 * Init and probe the plugin of @p b. Returns 0 when it is usable; otherwise logs why and returns
 * -errno, with fini called when init had succeeded. *initialised_p says whether init succeeded.
 */
static int plugin_start(struct hf_backend *b, const struct hf_manifest *m, const char *library_path,
                        bool *initialised_p)
{
    char text[96];
    int rc = hf_call_init(b);
    if (rc != 0) {
        hf_warn("plugin %s (%s): init failed: %s; skipped", m->name, library_path,
                rc < 0 ? errno_text(-rc, text, sizeof(text)) : "positive return value");
        return rc < 0 ? rc : -EINVAL;
    }
    *initialised_p = true;
    rc = hf_call_probe(b);
    if (rc == -ENODEV) {
        hf_info("plugin %s (%s): not usable on this machine (probe returned ENODEV); skipped",
                m->name, library_path);
        goto fini;
    }
    if (rc != 0) {
        hf_warn("plugin %s (%s): probe failed: %s; skipped", m->name, library_path,
                rc < 0 ? errno_text(-rc, text, sizeof(text)) : "positive return value");
        rc = rc < 0 ? rc : -EINVAL;
        goto fini;
    }
    return 0;

fini:
    hf_call_fini(b);
    return rc;
}

/* Record in @p b what its manifest, the config and the handshake say of the backend. */
static void backend_describe(struct hf_backend *b, const struct hf_manifest *m,
                             const char *manifest_path, const char *library_path,
                             const struct hf_backend_ops *ops, uint32_t minor)
{
    snprintf(b->manifest_path, sizeof(b->manifest_path), "%s", manifest_path);
    snprintf(b->library_path, sizeof(b->library_path), "%s", library_path);
    snprintf(b->version, sizeof(b->version), "%s", m->version);
    snprintf(b->description, sizeof(b->description), "%s", m->description);
    b->abi_minor = minor;
    b->manifest_priority = m->priority;
    int priority;
    b->priority = hf_config_plugin_priority(m->name, &priority) == 0 ? priority : m->priority;
    b->mem_types = m->mem_types;
    b->file_kinds = m->file_kinds;
    memcpy(b->retry_errnos, m->retry_errnos, sizeof(b->retry_errnos));
    b->retry_errno_count = m->retry_errno_count;
    b->ops = ops;
}

/*
 * Open, handshake, init and probe the plugin described by @p m into @p b (the next free slot).
 * Returns 0 when it is usable; otherwise logs the one line that says why and returns -errno.
 * *initialised_p says whether its init succeeded, that is whether it has read its config keys.
 */
static int plugin_load(struct hf_backend *b, const struct hf_manifest *m, const char *manifest_path,
                       const char *library_path, bool *initialised_p)
{
    void *handle;
    hf_backend_entry_fn entry;
    int rc = plugin_open(m, manifest_path, library_path, &handle, &entry);
    if (rc < 0)
        return rc;
    const struct hf_backend_ops *ops;
    uint32_t minor;
    rc = plugin_handshake(b, m, library_path, entry, &ops, &minor);
    if (rc < 0) {
        dlclose(handle);
        return rc;
    }
    hf_call_complete(b, ops, minor);

    /*
     * The config keeps the declarations by reference, so from here the library stays mapped even
     * when the plugin is skipped.
     */
    rc = plugin_declare_settings(b, m, library_path);
    if (rc < 0)
        return rc;

    /* From here the plugin's own code has run with our host API: it stays mapped for good. */
    rc = plugin_start(b, m, library_path, initialised_p);
    if (rc < 0)
        return rc;

    backend_describe(b, m, manifest_path, library_path, ops, minor);
    hf_info("plugin %s %s loaded from %s (ABI %u.%u, priority %d)", b->name, b->version,
            library_path, HF_BACKEND_ABI_MAJOR, minor, b->priority);
    return 0;
}

int hf_loader_manifest_abi_refusal(const struct hf_manifest *m, char *why, size_t why_size)
{
    if (m->abi_minor <= HF_BACKEND_ABI_MINOR)
        return 0;
    hf_why_set(why, why_size,
               "needs plugin ABI %u.%u; this hipfile provides %u.%u: upgrade hipfile", m->abi_major,
               m->abi_minor, HF_BACKEND_ABI_MAJOR, HF_BACKEND_ABI_MINOR);
    return -ENOTSUP;
}

int hf_loader_library_abi_refusal(const struct hf_manifest *m, uint32_t library_minor, char *why,
                                  size_t why_size)
{
    if (library_minor >= m->abi_minor)
        return 0;
    hf_why_set(why, why_size,
               "manifest says %u.%u, library reports %u.%u: the manifest or the library is out of "
               "date",
               m->abi_major, m->abi_minor, HF_BACKEND_ABI_MAJOR, library_minor);
    return -ENOTSUP;
}

/* ---- the directory scan ---- */

struct seen_manifest {
    char name[HF_MANIFEST_NAME_SIZE];
    char path[4096];
    bool initialised; /* its plugin's init ran and succeeded */
};

static int manifest_filter(const struct dirent *entry)
{
    size_t len = strlen(entry->d_name);
    /* Hidden files are editors' and package managers' leftovers, never manifests. */
    return entry->d_name[0] != '.' && len > 4 && strcmp(entry->d_name + len - 4, ".xml") == 0;
}

/* Byte order, not the locale's collation: the load order must not depend on LANG. */
static int manifest_compare(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * Consider one manifest: returns true when it produced a loaded backend. A valid manifest's name
 * is added to @p seen, with whether its plugin's init ran (its config keys were read).
 */
static bool manifest_consider(const char *dir, const char *path, struct seen_manifest *seen,
                              size_t *seen_count)
{
    char why[HF_MANIFEST_WHY_SIZE + 256];
    struct hf_manifest m;
    if (hf_manifest_read(path, &m, why, sizeof(why)) < 0) {
        hf_warn("manifest %s: %s; skipped", path, why);
        return false;
    }
    for (size_t i = 0; i < *seen_count; i++) {
        if (strcmp(seen[i].name, m.name) == 0) {
            hf_warn("plugin %s (%s): name already taken by %s, which wins; skipped", m.name, path,
                    seen[i].path);
            return false;
        }
    }
    struct seen_manifest *self = &seen[*seen_count];
    snprintf(self->name, sizeof(self->name), "%s", m.name);
    snprintf(self->path, sizeof(self->path), "%s", path);
    self->initialised = false;
    (*seen_count)++;

    if (!hf_config_plugin_enabled(m.name)) {
        hf_info("plugin %s (%s): not in plugins.enable; not opened", m.name, path);
        return false;
    }
    if (m.abi_major != HF_BACKEND_ABI_MAJOR) {
        hf_warn("plugin %s (%s): built for ABI major %u, the core implements %u; skipped", m.name,
                path, m.abi_major, HF_BACKEND_ABI_MAJOR);
        return false;
    }
    if (hf_loader_manifest_abi_refusal(&m, why, sizeof(why)) < 0) {
        hf_warn("plugin %s (%s): %s; skipped", m.name, path, why);
        return false;
    }
    if (hf_backend_count() >= HF_MAX_BACKENDS) {
        hf_warn("plugin %s (%s): %d backends are loaded already, the most one process takes; "
                "skipped",
                m.name, path, HF_MAX_BACKENDS);
        return false;
    }
    char library[4096];
    if (hf_manifest_library_path(&m, dir, library, sizeof(library), why, sizeof(why)) < 0) {
        hf_warn("plugin %s (%s): %s; skipped", m.name, path, why);
        return false;
    }
    struct stat st;
    if (stat(library, &st) != 0) {
        hf_warn("plugin %s (%s): %s: %s; skipped", m.name, path, library, strerror(errno));
        return false;
    }
    if (hf_plugin_trust_stat(library, &st, why, sizeof(why)) < 0) {
        hf_warn("plugin %s (%s): %s; not opened", m.name, path, why);
        return false;
    }
    struct hf_backend *b = hf_backends_next_slot();
    if (plugin_load(b, &m, path, library, &self->initialised) < 0) {
        hf_backends_discard_slot();
        return false;
    }
    hf_backends_publish();
    return true;
}

static const char *plugin_directory(void)
{
    const char *dir = hf_setting_string(HF_SETTING_PLUGINS_DIRECTORY);
#ifdef HF_DEFAULT_PLUGIN_DIR
    if (dir == NULL || dir[0] == '\0')
        dir = HF_DEFAULT_PLUGIN_DIR;
#endif
    return dir;
}

const char *hf_loader_directory_fix(char *buf, size_t size)
{
    const char *where;
    switch (hf_setting_origin(HF_SETTING_PLUGINS_DIRECTORY, &where)) {
    case HF_ORIGIN_ENV:
        snprintf(buf, size,
                 "set HIPFILE_PLUGIN_DIR to the directory that holds the plugin manifests (*.xml)");
        break;
    case HF_ORIGIN_FILE:
        snprintf(buf, size,
                 "set plugins.directory at %s to the directory that holds the plugin manifests "
                 "(*.xml)",
                 where != NULL ? where : "the config file");
        break;
    default:
        snprintf(buf, size,
                 "this is the default, beside the library; install the plugins there, or set "
                 "plugins.directory in the config file (or HIPFILE_PLUGIN_DIR) to where they are");
        break;
    }
    return buf;
}

/* Tell the config which plugin groups and keys exist now that every manifest has been read. */
static void config_report_unused(const char *dir, const struct seen_manifest *seen, size_t count)
{
    struct hf_config_plugin plugins[HF_MAX_BACKENDS * 2];
    size_t n = 0;
    for (size_t i = 0; i < count && n < sizeof(plugins) / sizeof(plugins[0]); i++)
        plugins[n++] = (struct hf_config_plugin){seen[i].name, seen[i].initialised};
    hf_config_warn_unused(plugins, n, dir);
}

static int loader_scan(void)
{
    const char *dir = plugin_directory();
    char fix[PATH_MAX + 160];
    char origin[PATH_MAX + 64];
    if (dir == NULL || dir[0] == '\0') {
        hf_error("no plugin directory configured (plugins.directory)");
        return -ENOENT;
    }
    char why[HF_MANIFEST_WHY_SIZE];
    int rc = hf_plugin_trust_directory(dir, why, sizeof(why));
    if (rc == -EPERM) {
        hf_error("plugin directory refused: %s", why);
        return rc;
    }
    if (rc < 0) {
        hf_error("plugin directory %s (from %s): %s; %s", dir,
                 hf_setting_origin_text(HF_SETTING_PLUGINS_DIRECTORY, origin, sizeof(origin)),
                 strerror(-rc), hf_loader_directory_fix(fix, sizeof(fix)));
        return rc;
    }
    struct dirent **names;
    int n = scandir(dir, &names, manifest_filter, manifest_compare);
    if (n < 0) {
        int err = errno;
        hf_error("plugin directory %s (from %s): %s; %s", dir,
                 hf_setting_origin_text(HF_SETTING_PLUGINS_DIRECTORY, origin, sizeof(origin)),
                 strerror(err), hf_loader_directory_fix(fix, sizeof(fix)));
        return -err;
    }
    if (n == 0) {
        config_report_unused(dir, NULL, 0);
        hf_warn("plugin directory %s holds no manifests (*.xml), so no backend is loaded and every "
                "read and write will fail with hipFileIONotSupported; %s",
                dir, hf_loader_directory_fix(fix, sizeof(fix)));
        free(names);
        return 0;
    }
    struct seen_manifest *seen = calloc((size_t)n, sizeof(*seen));
    if (seen == NULL) {
        hf_error("plugin directory %s: out of memory", dir);
        rc = -ENOMEM;
        goto free_names;
    }
    size_t seen_count = 0;
    unsigned loaded = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) >= (int)sizeof(path)) {
            hf_warn("manifest %s/%s: path too long; skipped", dir, names[i]->d_name);
            continue;
        }
        if (manifest_consider(dir, path, seen, &seen_count))
            loaded++;
    }
    config_report_unused(dir, seen, seen_count);
    char count_text[64];
    if (n == 1)
        snprintf(count_text, sizeof(count_text), "its manifest gave no usable backend");
    else
        snprintf(count_text, sizeof(count_text), "none of its %d manifests gave a usable backend",
                 n);
    if (loaded == 0)
        hf_warn("plugin directory %s: %s, so every read and write will fail with "
                "hipFileIONotSupported; hipfile-check (or HIPFILE_LOG_LEVEL=info) shows why each "
                "plugin was skipped and what to do",
                dir, count_text);
    else
        hf_info("plugin directory %s: %u of %d manifest%s gave a usable backend", dir, loaded, n,
                n == 1 ? "" : "s");
    free(seen);
free_names:
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int hf_loader_load_all(void)
{
    pthread_mutex_lock(&loader_lock);
    if (!loader_done) {
        loader_result = loader_scan();
        loader_done = true;
    }
    int rc = loader_result;
    pthread_mutex_unlock(&loader_lock);
    return rc;
}

void hf_loader_reset(void)
{
    pthread_mutex_lock(&loader_lock);
    hf_backends_clear();
    loader_done = false;
    loader_result = 0;
    pthread_mutex_unlock(&loader_lock);
}
