/*
 * The plugin kit: what every backend needs around its own code, written once. The entry point
 * (HFP_BACKEND_ENTRY), the ops table's header (HFP_OPS_HEADER) and its settings table
 * (HFP_OPS_SETTINGS), the host table check and the state of init (hfp_host_require,
 * hfp_state_new), declared settings
 * (HFP_INT_SETTING, HFP_BOOL_SETTING, HFP_STRING_SETTING) read with their declared defaults
 * (hfp_config_int, hfp_config_bool, hfp_config_string), and the core's limits
 * (hfp_core_limits).
 *
 * Header-only, so that a backend built outside this tree needs nothing but this file and
 * hipfile/backend.h; it is installed beside that header as hipfile/plugin_kit.h. Everything here
 * is static inline or a macro: nothing is exported, as a plugin exports only its entry point.
 */
#ifndef HIPFILE_PLUGIN_KIT_H
#define HIPFILE_PLUGIN_KIT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of @p type up to and including @p member: the size a table needs to hold it. */
#define HFP_SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/** Size a struct hf_host_api has at ABI minor @p minor (members appended by later minors left out).
 */
static inline size_t hfp_host_api_size(uint32_t minor)
{
    if (minor >= 5)
        return HFP_SIZE_THROUGH(struct hf_host_api, core_limits);
    if (minor >= 1)
        return HFP_SIZE_THROUGH(struct hf_host_api, parallel_width);
    return HFP_SIZE_THROUGH(struct hf_host_api, sys);
}

/** Size a struct hf_gpu_ops has at ABI minor @p minor. */
static inline size_t hfp_gpu_ops_size(uint32_t minor)
{
    if (minor >= 10)
        return HFP_SIZE_THROUGH(struct hf_gpu_ops, host_register_read_only);
    if (minor >= 3)
        return HFP_SIZE_THROUGH(struct hf_gpu_ops, host_unregister);
    if (minor >= 2)
        return HFP_SIZE_THROUGH(struct hf_gpu_ops, get_proc_address);
    return HFP_SIZE_THROUGH(struct hf_gpu_ops, error_string);
}

/** Size a struct hf_sys_ops has at ABI minor @p minor. */
static inline size_t hfp_sys_ops_size(uint32_t minor)
{
    if (minor >= 1)
        return HFP_SIZE_THROUGH(struct hf_sys_ops, preadv2);
    return HFP_SIZE_THROUGH(struct hf_sys_ops, ioctl);
}

/**
 * Whether @p host offers everything ABI minor @p minor defines: the core says that minor or a
 * later one, and the host, GPU and system call tables are all there and large enough. The core
 * fills every member up to its minor (backend.h), so this is the only check a backend makes.
 */
static inline bool hfp_host_offers(const struct hf_host_api *host, uint32_t minor)
{
    return host != NULL && host->struct_size >= hfp_host_api_size(minor) &&
           host->abi_minor >= minor && host->log != NULL && host->gpu != NULL &&
           host->sys != NULL && host->gpu->struct_size >= hfp_gpu_ops_size(minor) &&
           host->sys->struct_size >= hfp_sys_ops_size(minor);
}

/**
 * 0 when @p host offers ABI minor @p minor (hfp_host_offers); otherwise logs why through the host
 * when it can and returns -EINVAL. Backends call it from the entry point (HFP_BACKEND_ENTRY does)
 * and from init, which a test or another core may call with a table of its own.
 */
static inline int hfp_host_require(const struct hf_host_api *host, uint32_t minor)
{
    if (hfp_host_offers(host, minor))
        return 0;
    if (host != NULL && host->struct_size >= HFP_SIZE_THROUGH(struct hf_host_api, log) &&
        host->log != NULL)
        host->log(host, HF_LOG_ERROR,
                  "the core's host table (ABI minor %u, %u bytes) lacks what ABI minor %u defines",
                  host->abi_minor, host->struct_size, minor);
    return -EINVAL;
}

/**
 * The start of an init: checks @p host for ABI minor @p minor (hfp_host_require) and allocates the
 * backend's state, @p size zeroed bytes, in *state_p. Returns 0, -EINVAL for an incomplete host
 * or -ENOMEM (both logged when the host can log).
 */
static inline int hfp_state_new(const struct hf_host_api *host, uint32_t minor, size_t size,
                                void **state_p)
{
    int rc = hfp_host_require(host, minor);
    if (rc != 0)
        return rc;
    *state_p = calloc(1, size);
    if (*state_p == NULL) {
        host->log(host, HF_LOG_ERROR, "out of memory for the backend state");
        return -ENOMEM;
    }
    return 0;
}

/**
 * The body of hf_backend_entry_v1 for @p ops, a backend that needs ABI minor @p min_minor:
 * refuses a core below that minor or an incomplete host table (-EINVAL), lowers *minor_inout to
 * the minor @p ops was built with, and hands @p ops over. Use HFP_BACKEND_ENTRY rather than
 * calling it.
 */
static inline int hfp_backend_entry(const struct hf_host_api *host, uint32_t *minor_inout,
                                    const struct hf_backend_ops **ops_p,
                                    const struct hf_backend_ops *ops, uint32_t min_minor)
{
    if (minor_inout == NULL || ops_p == NULL || ops == NULL)
        return -EINVAL;
    uint32_t minor = *minor_inout < ops->abi_minor ? *minor_inout : ops->abi_minor;
    if (minor < min_minor) {
        if (hfp_host_offers(host, 0))
            host->log(host, HF_LOG_ERROR, "the core offers plugin ABI minor %u; %u is needed",
                      *minor_inout, min_minor);
        return -EINVAL;
    }
    int rc = hfp_host_require(host, minor);
    if (rc != 0)
        return rc;
    *minor_inout = minor;
    *ops_p = ops;
    return 0;
}

/**
 * Defines the plugin's one exported symbol, hf_backend_entry_v1, handing over the ops table
 * @p ops (an object, not a pointer) to cores that offer ABI minor @p min_minor or later. The
 * manifest's <abi minor="..."/> should say the same minor.
 */
#define HFP_BACKEND_ENTRY(ops, min_minor)                                                          \
    HF_BACKEND_EXPORT int hf_backend_entry_v1(const struct hf_host_api *host,                      \
                                              uint32_t *minor_inout,                               \
                                              const struct hf_backend_ops **ops_p)                 \
    {                                                                                              \
        return hfp_backend_entry(host, minor_inout, ops_p, &(ops), (min_minor));                   \
    }

/**
 * The first members of a struct hf_backend_ops initializer: magic, ABI major and minor of this
 * header, struct size, and @p backend_name (the manifest's name).
 */
#define HFP_OPS_HEADER(backend_name)                                                               \
    .magic = HF_BACKEND_MAGIC, .abi_major = HF_BACKEND_ABI_MAJOR,                                  \
    .abi_minor = HF_BACKEND_ABI_MINOR, .struct_size = sizeof(struct hf_backend_ops),               \
    .name = (backend_name)

/** Hangs the array @p decls (struct hf_setting_decl, its size known here) on an ops table. */
#define HFP_OPS_SETTINGS(decls)                                                                    \
    .settings = (decls), .setting_count = (unsigned)(sizeof(decls) / sizeof((decls)[0]))

/**
 * Members of a struct hf_setting_decl initializer for an integer key: write
 * {HFP_INT_SETTING(...)} and add .multiple, .env or .live after it when the key has them.
 */
#define HFP_INT_SETTING(key_, default_, min_, max_, unit_, help_)                                  \
    .key = (key_), .type = HF_DECL_INT, .unit = (unit_), .default_int = (default_), .min = (min_), \
    .max = (max_), .help = (help_)

/** Members of a struct hf_setting_decl initializer for a boolean key (see HFP_INT_SETTING). */
#define HFP_BOOL_SETTING(key_, default_, help_)                                                    \
    .key = (key_), .type = HF_DECL_BOOL, .default_int = (default_) ? 1 : 0, .min = 0, .max = 1,    \
    .help = (help_)

/**
 * Members of a struct hf_setting_decl initializer for a string key; @p names_ is a
 * NULL-terminated list of the values accepted, or NULL for any text (see HFP_INT_SETTING).
 */
#define HFP_STRING_SETTING(key_, default_, names_, help_)                                          \
    .key = (key_), .type = HF_DECL_STRING, .default_string = (default_), .names = (names_),        \
    .help = (help_)

/**
 * The integer key @p decl declares: the host's answer, or the declared default when the key is
 * unset (-ENOENT). Returns 0, or the host's -errno for a value that is not an integer.
 */
static inline int hfp_config_int(const struct hf_host_api *host, const struct hf_setting_decl *decl,
                                 int64_t *value_p)
{
    int rc = host->config_int(host, decl->key, value_p);
    if (rc == -ENOENT) {
        *value_p = decl->default_int;
        return 0;
    }
    return rc;
}

/** The boolean key @p decl declares, or its declared default when unset (see hfp_config_int). */
static inline int hfp_config_bool(const struct hf_host_api *host,
                                  const struct hf_setting_decl *decl, bool *value_p)
{
    int rc = host->config_bool(host, decl->key, value_p);
    if (rc == -ENOENT) {
        *value_p = decl->default_int != 0;
        return 0;
    }
    return rc;
}

/** The string key @p decl declares, or its declared default when unset (see hfp_config_int). */
static inline int hfp_config_string(const struct hf_host_api *host,
                                    const struct hf_setting_decl *decl, const char **value_p)
{
    int rc = host->config_string(host, decl->key, value_p);
    if (rc == -ENOENT) {
        *value_p = decl->default_string;
        return 0;
    }
    return rc;
}

/**
 * The core settings a backend obeys, as they are now (host->core_limits, which every core of ABI
 * minor 5 fills and HFP_BACKEND_ENTRY requires). Members a core's struct lacks read as no limit:
 * parallel_io true, force_odirect_mode false, max_request_parallelism 0, the two device caps
 * UINT64_MAX, min_io_threshold_size_kb and per_buffer_cache_size_kb 0 (the backend's own
 * default applies), and cpu_budget 0 (unknown; cores before minor 11).
 */
static inline void hfp_core_limits(const struct hf_host_api *host, struct hf_core_limits *lim_p)
{
    /* Member by member rather than designated: the header is for C++ backends too. */
    struct hf_core_limits lim;
    memset(&lim, 0, sizeof(lim));
    lim.struct_size = sizeof(struct hf_core_limits);
    lim.parallel_io = true;
    lim.max_device_cache_size_kb = UINT64_MAX;
    lim.max_device_pinned_mem_size_kb = UINT64_MAX;
    host->core_limits(host, &lim);
    *lim_p = lim;
}

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_PLUGIN_KIT_H */
