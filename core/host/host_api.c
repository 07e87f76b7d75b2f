/*
 * The host API each backend is handed. Every function finds its backend through core_private,
 * so one table per backend carries the backend's name into log lines and config look-ups.
 */
#include "host/host_api.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <stdarg.h>

#include "base/cpu_budget.h"
#include "base/log.h"
#include "base/memory_budget.h"
#include "base/sys.h"
#include "config/config.h"
#include "services/executor.h"
#include "services/gpu.h"
#include "services/gpu_runtime.h"

static struct hf_backend *host_backend(const struct hf_host_api *host)
{
    return host != NULL ? host->core_private : NULL;
}

static void host_log(const struct hf_host_api *host, int level, const char *fmt, ...)
{
    const struct hf_backend *backend = host_backend(host);
    va_list ap;
    va_start(ap, fmt);
    hf_logv(level, backend != NULL ? backend->name : "plugin", fmt, ap);
    va_end(ap);
}

static int host_config_int(const struct hf_host_api *host, const char *key, int64_t *value_p)
{
    const struct hf_backend *backend = host_backend(host);
    if (backend == NULL || key == NULL || value_p == NULL)
        return -EINVAL;
    return hf_config_plugin_int(backend->name, key, value_p);
}

static int host_config_bool(const struct hf_host_api *host, const char *key, bool *value_p)
{
    const struct hf_backend *backend = host_backend(host);
    if (backend == NULL || key == NULL || value_p == NULL)
        return -EINVAL;
    return hf_config_plugin_bool(backend->name, key, value_p);
}

/* Config strings live as long as the process, which covers "valid until unload". */
static int host_config_string(const struct hf_host_api *host, const char *key, const char **value_p)
{
    const struct hf_backend *backend = host_backend(host);
    if (backend == NULL || key == NULL || value_p == NULL)
        return -EINVAL;
    return hf_config_plugin_string(backend->name, key, value_p);
}

static int host_parallel_run(const struct hf_host_api *host, unsigned n,
                             void (*task)(void *arg, unsigned index), void *arg)
{
    (void)host;
    return hf_executor_run(n, task, arg);
}

static unsigned host_parallel_width(const struct hf_host_api *host)
{
    (void)host;
    return hf_executor_width();
}

/* Negative values cannot come from the settings table; they are clamped all the same. */
static uint64_t kib(int64_t value)
{
    return value > 0 ? (uint64_t)value : 0;
}

/*
 * Pinned staging memory of all GPUs together takes at most this part of the memory the process
 * may use: a container's memory limit counts pages the GPU driver locks, and a staging pool that
 * fills a small container would have the process killed.
 */
#define PINNED_SHARE_OF_MEMORY 8

/* KiB of pinned memory one GPU's staging may take from the memory budget. */
static uint64_t pinned_share_kb(void)
{
    uint64_t bytes = hf_memory_budget();
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    uint64_t gpus = rt != NULL && rt->device_count > 0 ? (uint64_t)rt->device_count : 1;
    return bytes / PINNED_SHARE_OF_MEMORY / gpus / 1024;
}

void hf_host_core_limits(struct hf_core_limits *limits_p)
{
    uint64_t pinned_kb = kib(hf_setting_int(HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB));
    uint64_t share_kb = pinned_share_kb();
    int64_t parallelism = hf_setting_int(HF_SETTING_MAX_REQUEST_PARALLELISM);
    *limits_p = (struct hf_core_limits){
        .struct_size = sizeof(struct hf_core_limits),
        .parallel_io = hf_setting_bool(HF_SETTING_PARALLEL_IO),
        .force_odirect_mode = hf_setting_bool(HF_SETTING_FORCE_ODIRECT_MODE),
        .max_request_parallelism =
            parallelism > 0 ? (parallelism > UINT32_MAX ? UINT32_MAX : (uint32_t)parallelism) : 0,
        .min_io_threshold_size_kb = kib(hf_setting_int(HF_SETTING_MIN_IO_THRESHOLD_SIZE_KB)),
        .per_buffer_cache_size_kb = kib(hf_setting_int(HF_SETTING_PER_BUFFER_CACHE_SIZE_KB)),
        .max_device_cache_size_kb = kib(hf_setting_int(HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB)),
        .max_device_pinned_mem_size_kb = pinned_kb < share_kb ? pinned_kb : share_kb,
        .cpu_budget = hf_cpu_budget(),
    };
}

/*
 * A backend built before a member was appended passes a smaller struct: only that much is filled.
 * Every caller's struct holds the members of minor 5, whatever its struct_size says: cores before
 * minor 11 filled them without reading it, so a backend may never have set it.
 */
static void host_core_limits(const struct hf_host_api *host, struct hf_core_limits *limits_p)
{
    (void)host;
    if (limits_p == NULL)
        return;
    struct hf_core_limits limits;
    hf_host_core_limits(&limits);
    size_t size = limits_p->struct_size;
    if (size < offsetof(struct hf_core_limits, cpu_budget))
        size = offsetof(struct hf_core_limits, cpu_budget);
    if (size > sizeof(limits))
        size = sizeof(limits);
    limits.struct_size = (uint32_t)size;
    memcpy(limits_p, &limits, size);
}

void hf_host_api_fill(struct hf_backend *backend)
{
    backend->host = (struct hf_host_api){
        .struct_size = sizeof(struct hf_host_api),
        .abi_minor = HF_BACKEND_ABI_MINOR,
        .core_private = backend,
        .log = host_log,
        .config_int = host_config_int,
        .config_bool = host_config_bool,
        .config_string = host_config_string,
        .gpu = hf_gpu(),
        .sys = hf_sys(),
        .parallel_run = host_parallel_run,
        .parallel_width = host_parallel_width,
        .core_limits = host_core_limits,
    };
}

/* A new host member must be filled above before the minor that brings it is reported. */
/*
 * Minor 6 added file kinds and hf_file_info members only, minor 7 the ops table's transfer, minor 8
 * the system-call table's cached_bytes (base/sys.c), minor 9 the ops table's file_size, minor 10
 * the GPU table's host_register_read_only (services/gpu_runtime.c), minor 11 the core limits'
 * cpu_budget (hf_host_core_limits): the host table is complete at 5.
 */
_Static_assert(HF_BACKEND_ABI_MINOR == 11, "hf_host_api_fill fills the host table up to minor 11");
