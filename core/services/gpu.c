/*
 * The GPU runtime binding: finds the HIP provider library gpu.runtime names (sharing the instance
 * the program already loaded), resolves its entry points with dlsym, checks it has a device, and
 * hands it to services/gpu_runtime.c, which publishes it.
 */
#include "services/gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "common/regular_file.h"

/* hipSuccess, alike in every HIP release (hip_runtime_api.h). */
#define HIP_SUCCESS 0

/* One provider name and the sonames it answers to, preferred first. */
struct gpu_provider {
    const char *name;
    const char *const *sonames;
};

static const char *const hip_sonames[] = {"libamdhip64.so.7", "libamdhip64.so.6",
                                          "libamdhip64.so.5", "libamdhip64.so", NULL};
static const char *const cuda_sonames[] = {"libhip-cuda.so.0", NULL};
static const char *const host_sonames[] = {"libhip-host.so.0", NULL};

static const struct gpu_provider provider_hip = {"hip", hip_sonames};
static const struct gpu_provider provider_cuda = {"cuda", cuda_sonames};
static const struct gpu_provider provider_host = {"host", host_sonames};

/* Where each symbol lands in struct hf_gpu_runtime. */
struct gpu_symbol {
    const char *name;
    size_t offset;
    bool mandatory;
};

#define GPU_SYMBOL(hip_name, member, is_mandatory)                                                 \
    {                                                                                              \
        hip_name, offsetof(struct hf_gpu_runtime, member), is_mandatory                            \
    }

static const struct gpu_symbol gpu_symbols[] = {
    GPU_SYMBOL("hipRuntimeGetVersion", runtime_get_version, true),
    GPU_SYMBOL("hipGetDeviceCount", get_device_count, true),
    GPU_SYMBOL("hipGetDevice", get_device, true),
    GPU_SYMBOL("hipSetDevice", set_device, true),
    GPU_SYMBOL("hipPointerGetAttributes", pointer_get_attributes, true),
    GPU_SYMBOL("hipMemGetAddressRange", mem_get_address_range, true),
    GPU_SYMBOL("hipHostMalloc", host_malloc, true),
    GPU_SYMBOL("hipHostFree", host_free, true),
    GPU_SYMBOL("hipMemcpy", memcpy_sync, true),
    GPU_SYMBOL("hipMemcpyAsync", memcpy_async, true),
    GPU_SYMBOL("hipStreamCreateWithFlags", stream_create_with_flags, true),
    GPU_SYMBOL("hipStreamDestroy", stream_destroy, true),
    GPU_SYMBOL("hipStreamSynchronize", stream_synchronize, true),
    GPU_SYMBOL("hipGetErrorString", get_error_string, true),
    GPU_SYMBOL("hipGetProcAddress", get_proc_address, false),
    GPU_SYMBOL("hipLaunchHostFunc", launch_host_func, false),
    GPU_SYMBOL("hipStreamAddCallback", stream_add_callback, false),
    GPU_SYMBOL("hipStreamWaitValue32", stream_wait_value32, false),
    GPU_SYMBOL("hipStreamWaitValue64", stream_wait_value64, false),
    GPU_SYMBOL("hipStreamWriteValue32", stream_write_value32, false),
    GPU_SYMBOL("hipStreamWriteValue64", stream_write_value64, false),
    GPU_SYMBOL("hipEventCreate", event_create, false),
    GPU_SYMBOL("hipEventCreateWithFlags", event_create_with_flags, false),
    GPU_SYMBOL("hipEventRecord", event_record, false),
    GPU_SYMBOL("hipEventQuery", event_query, false),
    GPU_SYMBOL("hipEventSynchronize", event_synchronize, false),
    GPU_SYMBOL("hipEventDestroy", event_destroy, false),
    GPU_SYMBOL("hipDeviceGetAttribute", device_get_attribute, false),
    GPU_SYMBOL("hipStreamGetDevice", stream_get_device, false),
    GPU_SYMBOL("hipStreamQuery", stream_query, false),
    GPU_SYMBOL("hipStreamGetFlags", stream_get_flags, false),
    GPU_SYMBOL("hipHostRegister", host_register, false),
    GPU_SYMBOL("hipHostUnregister", host_unregister, false),
    GPU_SYMBOL("hipGetLastError", get_last_error, false),
    GPU_SYMBOL("hipPeekAtLastError", peek_at_last_error, false),
};

/* dlsym hands back data pointers; storing them as function pointers relies on POSIX's guarantee. */
_Static_assert(sizeof(void *) == sizeof(int (*)(void)), "function pointers must fit a void *");

/* What was tried while binding, for the one failure line. */
struct gpu_attempts {
    char text[768];
    size_t used;
};

static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 2, 3))) static void attempts_add(struct gpu_attempts *tried,
                                                               const char *fmt, ...)
{
    if (tried->used >= sizeof(tried->text) - 1)
        return;
    size_t room = sizeof(tried->text) - tried->used;
    int n = snprintf(tried->text + tried->used, room, "%s", tried->used > 0 ? "; " : "");
    if (n < 0 || (size_t)n >= room) {
        tried->used = sizeof(tried->text) - 1;
        return;
    }
    tried->used += (size_t)n;
    room -= (size_t)n;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(tried->text + tried->used, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room)
        tried->used = sizeof(tried->text) - 1;
    else
        tried->used += (size_t)n;
}

/*
 * Resolve every symbol from @p handle and check the runtime has a device. @p label names the
 * library in the failure text. -ENOENT: a mandatory symbol is missing; -ENODEV: no device.
 */
static int runtime_probe(void *handle, const char *label, struct hf_gpu_runtime *rt_p,
                         struct gpu_attempts *tried)
{
    struct hf_gpu_runtime rt = {.handle = handle};
    for (size_t i = 0; i < sizeof(gpu_symbols) / sizeof(gpu_symbols[0]); i++) {
        void *fn = dlsym(handle, gpu_symbols[i].name);
        if (fn == NULL && gpu_symbols[i].mandatory) {
            attempts_add(tried, "%s lacks %s", label, gpu_symbols[i].name);
            return -ENOENT;
        }
        memcpy((char *)&rt + gpu_symbols[i].offset, &fn, sizeof(fn));
    }
    int err = rt.runtime_get_version(&rt.version);
    if (err != HIP_SUCCESS) {
        attempts_add(tried, "%s: hipRuntimeGetVersion failed (%d, %s)", label, err,
                     hf_gpu_runtime_error_name(&rt, err));
        return -ENODEV;
    }
    int count = 0;
    err = rt.get_device_count(&count);
    if (err != HIP_SUCCESS || count < 1) {
        if (err != HIP_SUCCESS)
            attempts_add(tried, "%s reports no device (hipGetDeviceCount: %s)", label,
                         hf_gpu_runtime_error_name(&rt, err));
        else
            attempts_add(tried, "%s reports no device (0 devices)", label);
        return -ENODEV;
    }
    rt.device_count = count;
    rt.memtype_v6 = rt.version >= HF_GPU_VERSION_MEMTYPE_V6;
    /* Identity, not name: a path to libhip-host.so.0 is the host provider too. */
    void *host = dlopen(host_sonames[0], RTLD_NOW | RTLD_NOLOAD);
    rt.host_emulated = host != NULL && host == handle;
    *rt_p = rt;
    return 0;
}

/* A provider the program already loaded (by linking it), or NULL. */
static void *provider_find_loaded(const struct gpu_provider *provider, const char **soname_p)
{
    for (const char *const *soname = provider->sonames; *soname != NULL; soname++) {
        void *handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        if (handle != NULL) {
            *soname_p = *soname;
            return handle;
        }
    }
    return NULL;
}

/* Open a provider: beside the library holding the core first (installed layout), then by soname. */
static void *provider_open(const struct gpu_provider *provider, const char **soname_p)
{
    char dir[PATH_MAX] = "";
    Dl_info self;
    if (dladdr((void *)hf_gpu_bind, &self) != 0 && self.dli_fname != NULL) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash != NULL && (size_t)(slash - self.dli_fname) < sizeof(dir))
            snprintf(dir, sizeof(dir), "%.*s", (int)(slash - self.dli_fname), self.dli_fname);
    }
    for (const char *const *soname = provider->sonames; *soname != NULL; soname++) {
        char path[PATH_MAX];
        void *handle = NULL;
        if (dir[0] != '\0' &&
            snprintf(path, sizeof(path), "%s/%s", dir, *soname) < (int)sizeof(path))
            handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL)
            handle = dlopen(*soname, RTLD_NOW | RTLD_GLOBAL);
        if (handle != NULL) {
            *soname_p = *soname;
            return handle;
        }
    }
    return NULL;
}

/* @p prefix names the provider in the text, for auto, where several are tried. */
static void attempts_add_not_found(struct gpu_attempts *tried, const struct gpu_provider *provider,
                                   bool prefix)
{
    char names[256] = "";
    size_t used = 0;
    for (const char *const *soname = provider->sonames; *soname != NULL && used < sizeof(names);
         soname++) {
        int n = snprintf(names + used, sizeof(names) - used, "%s%s", used > 0 ? ", " : "", *soname);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    attempts_add(tried, "%s%s%s not found", prefix ? provider->name : "", prefix ? ": " : "",
                 names);
}

/* A named provider: the loaded instance if there is one, else the first soname that opens. */
static int bind_provider(const struct gpu_provider *provider, struct gpu_attempts *tried)
{
    const char *soname = NULL;
    const char *why = "gpu.runtime names it; already loaded by the program";
    void *handle = provider_find_loaded(provider, &soname);
    if (handle == NULL) {
        why = "gpu.runtime names it";
        handle = provider_open(provider, &soname);
    }
    if (handle == NULL) {
        attempts_add_not_found(tried, provider, false);
        return -ENOENT;
    }
    struct hf_gpu_runtime rt;
    int rc = runtime_probe(handle, soname, &rt, tried);
    if (rc != 0)
        return rc;
    hf_gpu_runtime_publish(&rt, provider->name, why);
    return 0;
}

static int bind_path(const char *path, struct gpu_attempts *tried)
{
    /* dlopen opens the path itself, and would wait for ever on a FIFO. */
    char why[HFP_REGULAR_WHY_SIZE];
    int rc = hfp_check_regular(path, why, sizeof(why));
    if (rc == -EINVAL) {
        attempts_add(tried, "%s: %s", path, why);
        return -ENOENT;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) {
        const char *err = dlerror();
        attempts_add(tried, "%s", err != NULL ? err : "cannot be opened");
        return -ENOENT;
    }
    struct hf_gpu_runtime rt;
    rc = runtime_probe(handle, "the library", &rt, tried);
    if (rc != 0)
        return rc;
    hf_gpu_runtime_publish(&rt, path, "gpu.runtime names this library");
    return 0;
}

/* Probe @p handle, found for @p provider under @p soname, labelling failures with both. */
static int provider_probe(const struct gpu_provider *provider, void *handle, const char *soname,
                          struct hf_gpu_runtime *rt_p, struct gpu_attempts *tried)
{
    char label[128];
    snprintf(label, sizeof(label), "%s: %s", provider->name, soname);
    return runtime_probe(handle, label, rt_p, tried);
}

/*
 * auto: a provider the program linked wins (sharing its instance is what makes its pointers
 * known to us); otherwise the first real GPU runtime with a device. Emulation only when linked.
 */
static int bind_auto(struct gpu_attempts *tried)
{
    const struct gpu_provider *const providers[] = {&provider_hip, &provider_cuda, &provider_host};
    enum { PROVIDER_COUNT = sizeof(providers) / sizeof(providers[0]) };
    bool was_loaded[PROVIDER_COUNT] = {false};
    struct hf_gpu_runtime rt;
    const char *soname = NULL;

    for (size_t i = 0; i < PROVIDER_COUNT; i++) {
        void *handle = provider_find_loaded(providers[i], &soname);
        if (handle == NULL)
            continue;
        was_loaded[i] = true;
        if (provider_probe(providers[i], handle, soname, &rt, tried) == 0) {
            hf_gpu_runtime_publish(&rt, providers[i]->name,
                                   "gpu.runtime is auto and the program already loaded it");
            return 0;
        }
    }
    for (size_t i = 0; i < PROVIDER_COUNT; i++) {
        if (was_loaded[i])
            continue;
        if (providers[i] == &provider_host) {
            attempts_add(tried, "host: not loaded by the program (auto never opens emulation)");
            continue;
        }
        void *handle = provider_open(providers[i], &soname);
        if (handle == NULL) {
            attempts_add_not_found(tried, providers[i], true);
            continue;
        }
        if (provider_probe(providers[i], handle, soname, &rt, tried) == 0) {
            hf_gpu_runtime_publish(&rt, providers[i]->name,
                                   "gpu.runtime is auto and it is the first runtime with a device");
            return 0;
        }
    }
    return -ENODEV;
}

int hf_gpu_bind(const char *runtime)
{
    const struct gpu_provider *provider = NULL;
    bool is_auto = false;
    if (runtime == NULL || runtime[0] == '\0') {
        hf_error("GPU runtime: gpu.runtime is %s; expected auto, hip, cuda, host or a library path",
                 runtime == NULL ? "not set" : "empty");
        return -EINVAL;
    }
    if (strchr(runtime, '/') == NULL) {
        if (strcasecmp(runtime, "auto") == 0)
            is_auto = true;
        else if (strcasecmp(runtime, provider_hip.name) == 0)
            provider = &provider_hip;
        else if (strcasecmp(runtime, provider_cuda.name) == 0)
            provider = &provider_cuda;
        else if (strcasecmp(runtime, provider_host.name) == 0)
            provider = &provider_host;
        else {
            hf_error("GPU runtime: gpu.runtime \"%s\" is not auto, hip, cuda, host or a library "
                     "path (a path contains '/')",
                     runtime);
            return -EINVAL;
        }
    } else if (strlen(runtime) >= HF_GPU_NAME_SIZE) {
        hf_error("GPU runtime: gpu.runtime is a library path of %zu bytes, longer than %zu",
                 strlen(runtime), HF_GPU_NAME_SIZE - 1);
        return -EINVAL;
    }

    pthread_mutex_lock(&bind_lock);
    const struct hf_gpu_ops *bound = hf_gpu();
    if (bound != NULL) {
        if (strcasecmp(runtime, bound->name) != 0 && !is_auto)
            hf_debug("GPU runtime: %s already bound; gpu.runtime=%s ignored", bound->name, runtime);
        pthread_mutex_unlock(&bind_lock);
        return 0;
    }
    struct gpu_attempts tried = {.used = 0};
    int rc;
    if (is_auto)
        rc = bind_auto(&tried);
    else if (provider != NULL)
        rc = bind_provider(provider, &tried);
    else
        rc = bind_path(runtime, &tried);
    pthread_mutex_unlock(&bind_lock);
    if (rc != 0)
        hf_error("GPU runtime: cannot bind gpu.runtime=%s: %s", runtime, tried.text);
    return rc;
}

void hf_gpu_reset(void)
{
    pthread_mutex_lock(&bind_lock);
    hf_gpu_runtime_forget();
    pthread_mutex_unlock(&bind_lock);
}
