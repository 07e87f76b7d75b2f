/*
 * hipfile-check's view of the core (introspect.h) but its settings (introspect_settings.c): setting
 * up step by step, the bound runtime, manifests and backends, and the selector's verdict, answered
 * from the core's own functions so the
 * report cannot drift from what the library does. When the core's internals move, this file is
 * the one that follows them.
 */
#include "introspect/introspect.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/driver.h"
#include "api/io.h"
#include "api/registry.h"
#include "base/cpu_budget.h"
#include "base/log.h"
#include "base/memory_budget.h"
#include "config/config.h"
#include "host/host_api.h"
#include "host/loader.h"
#include "host/manifest.h"
#include "host/plugin_trust.h"
#include "host/selector.h"
#include "services/gpu.h"

_Static_assert(HF_INTROSPECT_NAME_SIZE == HF_MANIFEST_NAME_SIZE, "plugin names fit");
_Static_assert(HF_INTROSPECT_WHY_SIZE == HF_MANIFEST_WHY_SIZE, "manifest reasons fit");
_Static_assert(HF_INTROSPECT_MAX_BACKENDS == HF_MAX_BACKENDS, "every backend is listed");
_Static_assert(HF_INTROSPECT_IO_MAX_BYTES == HF_IO_MAX_BYTES, "one backend call's limit");

/* ---- setting up ------------------------------------------------------------------------------ */

int hf_introspect_config_load(void)
{
    return hf_config_load();
}

int hf_introspect_gpu_bind(const char *runtime)
{
    return hf_gpu_bind(runtime);
}

int hf_introspect_plugins_load(void)
{
    return hf_loader_load_all();
}

hipFileOpError_t hf_introspect_driver_open(void)
{
    return hf_driver_ensure_open();
}

int hf_introspect_log_to(const char *path)
{
    return hf_log_set_file(path);
}

void hf_introspect_log_level(int level)
{
    hf_log_set_level(level);
}

/* ---- the GPU runtime ------------------------------------------------------------------------- */

bool hf_introspect_runtime(struct hf_introspect_runtime *out)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    const struct hf_gpu_ops *ops = hf_gpu();
    memset(out, 0, sizeof(*out));
    if (rt == NULL || ops == NULL)
        return false;
    Dl_info where;
    void *fn;
    /* POSIX lets a function pointer travel as void *; dladdr names the file holding it. */
    memcpy(&fn, &rt->get_device_count, sizeof(fn));
    if (dladdr(fn, &where) != 0)
        out->library = where.dli_fname;
    out->name = ops->name;
    out->version = rt->version;
    out->device_count = rt->device_count;
    out->memtype_v6 = rt->memtype_v6;
    out->host_emulated = rt->host_emulated;
    return true;
}

void hf_introspect_budgets(struct hf_introspect_budgets *out)
{
    struct hf_core_limits limits;
    hf_host_core_limits(&limits);
    *out = (struct hf_introspect_budgets){
        .cpus = limits.cpu_budget,
        .affinity_cpus = hf_cpu_affinity(),
        .memory_bytes = hf_memory_budget(),
        .physical_bytes = hf_physical_memory(),
        .pinned_kb = limits.max_device_pinned_mem_size_kb,
        .staging_kb = limits.max_device_cache_size_kb,
    };
}

const char *hf_introspect_runtime_error(int code)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    return rt != NULL ? rt->get_error_string(code) : strerror(code);
}

void *hf_introspect_runtime_symbol(const char *name)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    return rt != NULL ? dlsym(rt->handle, name) : NULL;
}

int hf_introspect_host_malloc(void **ptr_p, size_t size)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    return rt != NULL ? rt->host_malloc(ptr_p, size, 0) : ENOSYS;
}

void hf_introspect_host_free(void *ptr)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    if (rt != NULL)
        rt->host_free(ptr);
}

/* ---- manifests and backends ------------------------------------------------------------------ */

int hf_introspect_manifest_read(const char *path, const char *dir,
                                struct hf_introspect_manifest *out, char *why, size_t why_size)
{
    struct hf_manifest m;
    memset(out, 0, sizeof(*out));
    int rc = hf_manifest_read(path, &m, why, why_size);
    if (rc < 0)
        return rc;
    snprintf(out->name, sizeof(out->name), "%s", m.name);
    snprintf(out->version, sizeof(out->version), "%s", m.version);
    char ignored[HF_MANIFEST_WHY_SIZE];
    if (hf_manifest_library_path(&m, dir, out->library_path, sizeof(out->library_path), ignored,
                                 sizeof(ignored)) != 0)
        out->library_path[0] = '\0';
    return 0;
}

bool hf_introspect_loaded_from(const char *name, const char *manifest_path)
{
    const struct hf_backend *b = hf_backend_find(name);
    return b != NULL && strcmp(b->manifest_path, manifest_path) == 0;
}

int hf_introspect_trust_directory(const char *dir, char *why, size_t why_size)
{
    return hf_plugin_trust_directory(dir, why, why_size);
}

const char *hf_introspect_directory_fix(char *buf, size_t size)
{
    return hf_loader_directory_fix(buf, size);
}

bool hf_introspect_has_direct_backend(void)
{
    return hf_loader_has_direct_backend();
}

unsigned hf_introspect_backend_count(void)
{
    return hf_backend_count();
}

int hf_introspect_backend_at(unsigned index, struct hf_introspect_backend *out)
{
    const struct hf_backend *b = index < hf_backend_count() ? hf_backend_at(index) : NULL;
    if (b == NULL)
        return -ENOENT;
    *out = (struct hf_introspect_backend){
        .index = b->index,
        .name = b->name,
        .version = b->version,
        .description = b->description,
        .library_path = b->library_path,
        .manifest_path = b->manifest_path,
        .abi_minor = b->abi_minor,
        .priority = b->priority,
        .manifest_priority = b->manifest_priority,
        .caps = b->ops->caps,
        .mem_types = b->mem_types,
        .file_kinds = b->file_kinds,
        .retry_errnos = b->retry_errnos,
        .retry_errno_count = b->retry_errno_count,
    };
    return 0;
}

const char *hf_introspect_mem_name(int bit)
{
    return hf_manifest_mem_name(bit);
}

const char *hf_introspect_file_kind_name(int bit)
{
    return hf_manifest_file_kind_name(bit);
}

const char *hf_introspect_errno_name(int err)
{
    return hf_manifest_errno_name(err);
}

const char *hf_introspect_buffer_mem_name(int mem_type)
{
    return hf_buffer_mem_type_name(mem_type);
}

/* ---- the selector's verdict ------------------------------------------------------------------ */

struct hf_introspect_file {
    hipFileHandle_t handle;
    struct hf_file *file;
};

struct hf_introspect_buffer {
    void *base;
    struct hf_buffer *buffer;
};

hipFileError_t hf_introspect_file_register(int fd, struct hf_introspect_file **file_p)
{
    *file_p = NULL;
    hipFileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t fh = NULL;
    hipFileError_t status = hf_file_register(&fh, &descr);
    if (status.err != hipFileSuccess)
        return status;
    struct hf_introspect_file *f = calloc(1, sizeof(*f));
    struct hf_file *file = hf_file_acquire(fh);
    if (f == NULL || file == NULL) {
        if (file != NULL)
            hf_file_release(file);
        free(f);
        hf_file_deregister(fh);
        return (hipFileError_t){.err = hipFileInternalError};
    }
    *f = (struct hf_introspect_file){.handle = fh, .file = file};
    *file_p = f;
    return status;
}

const struct hf_file_info *hf_introspect_file_info(const struct hf_introspect_file *file)
{
    return &file->file->info;
}

void hf_introspect_file_release(struct hf_introspect_file *file)
{
    if (file == NULL)
        return;
    hf_file_release(file->file);
    hf_file_deregister(file->handle);
    free(file);
}

hipFileError_t hf_introspect_buffer_register(void *base, size_t size,
                                             struct hf_introspect_buffer **buffer_p)
{
    *buffer_p = NULL;
    hipFileError_t status = hf_buffer_register(base, size, 0);
    if (status.err != hipFileSuccess)
        return status;
    struct hf_buf_info view;
    int hip_err = 0;
    struct hf_buffer *buffer = NULL;
    struct hf_introspect_buffer *b = calloc(1, sizeof(*b));
    if (b == NULL || hf_buffer_resolve(base, &buffer, &view, &hip_err) != hipFileSuccess ||
        buffer == NULL) {
        free(b);
        (void)hf_buffer_deregister(base);
        return status;
    }
    *b = (struct hf_introspect_buffer){.base = base, .buffer = buffer};
    *buffer_p = b;
    return status;
}

const struct hf_buf_info *hf_introspect_buffer_info(const struct hf_introspect_buffer *buffer)
{
    return &buffer->buffer->info;
}

void hf_introspect_buffer_release(struct hf_introspect_buffer *buffer)
{
    if (buffer == NULL)
        return;
    hf_buffer_release(buffer->buffer);
    (void)hf_buffer_deregister(buffer->base);
    free(buffer);
}

size_t hf_introspect_rank(const struct hf_introspect_file *file,
                          const struct hf_introspect_buffer *buffer, bool write, size_t size,
                          int64_t offset, struct hf_introspect_candidate *out, size_t max)
{
    const struct hf_file *f = file->file;
    const struct hf_buffer *b = buffer->buffer;
    /* Built as io.c builds it for hipFileRead/hipFileWrite. */
    bool declined[HF_MAX_BACKENDS];
    for (unsigned i = 0; i < HF_MAX_BACKENDS; i++)
        declined[i] = f->declined[i] || b->declined[i];
    int gpu_err = 0;
    struct hf_io_request req = {
        .struct_size = sizeof(req),
        .op = write ? HF_IO_WRITE : HF_IO_READ,
        .file = &f->info,
        .buf = &b->info,
        .size = size,
        .file_offset = offset,
        .buf_offset = 0,
        .gpu_error_p = &gpu_err,
    };
    struct hf_candidate candidates[HF_MAX_BACKENDS];
    size_t n = hf_selector_rank(&req, f->backend_ctx, b->backend_ctx, declined, candidates,
                                HF_MAX_BACKENDS);
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++) {
        unsigned index = candidates[i].backend->index;
        out[i] = (struct hf_introspect_candidate){
            .name = candidates[i].backend->name,
            .score = candidates[i].score,
            .reason = candidates[i].reason,
            .declined_file = f->declined[index],
            .declined_buffer = b->declined[index],
            .priority = candidates[i].backend->priority,
        };
    }
    return n;
}
