/*
 * The plugin loader: reads every manifest in plugins.directory (sorted), validates it, opens the
 * enabled plugins, performs the ABI handshake, init and probe, and keeps the backends that pass
 * in the table of backends.h (included here for the callers that walk it).
 * A plugin that fails any step is skipped with one log line saying why. Plugins are never unloaded.
 */
#ifndef HF_CORE_LOADER_H
#define HF_CORE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hipfile/backend.h"
#include "host/backends.h"
#include "host/manifest.h"

/**
 * Load every plugin from plugins.directory (HF_SETTING_PLUGINS_DIRECTORY), reading manifests in
 * byte order of their file names. Runs once per process (until hf_loader_reset); later calls return
 * the first result. Returns 0 even when no plugin loaded (that is logged); -errno only when the
 * directory cannot be read at all (logged as an error). Each backend's host API carries hf_gpu()
 * as it is at this call, so bind the GPU runtime first.
 */
int hf_loader_load_all(void);
/**
 * What to do about a plugin directory that is missing or holds no plugins, depending on who chose
 * it (HIPFILE_PLUGIN_DIR, plugins.directory at a file and line, or the default beside the
 * library), as one clause into @p buf.
 */
const char *hf_loader_directory_fix(char *buf, size_t size);
/**
 * Forget every loaded backend (fini is called, libraries stay loaded) so a test can load another
 * directory. Tests only: no I/O and no registration may be in flight.
 */
void hf_loader_reset(void);
/**
 * Why the plugin of manifest @p m cannot load into this core, before its library is opened: its
 * <abi minor> is the least minor it needs, and the core provides HF_BACKEND_ABI_MINOR. Returns 0,
 * or -ENOTSUP with the reason (and what to do) in @p why.
 */
int hf_loader_manifest_abi_refusal(const struct hf_manifest *m, char *why, size_t why_size);
/**
 * Why a library that reports ABI minor @p library_minor at the handshake does not match manifest
 * @p m, which states a higher one: 0, or -ENOTSUP with the reason in @p why.
 */
int hf_loader_library_abi_refusal(const struct hf_manifest *m, uint32_t library_minor, char *why,
                                  size_t why_size);

#endif
