/*
 * hipFileDriverGetProperties: the effective settings and what the loaded backends can do, in the
 * layout cuFile-era programs read. Kept apart from params.c so config tests need no loader.
 */
#include <hipfile.h>
#include <string.h>

#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "host/loader.h"

HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t *props)
{
    if (props == NULL) {
        hf_error("hipFileDriverGetProperties: props is NULL");
        return hf_status(hipFileInvalidValue);
    }
    (void)hf_config_ensure_loaded(); /* a failed load was logged; defaults are reported */

    hipFileDriverProps_t out;
    memset(&out, 0, sizeof(out));
    /*
     * Programs (KvikIO-style "is GDS available" checks) read a 0.0 driver version as "no direct
     * storage path", so a version is reported only while a direct backend is loaded: the plugin
     * ABI version, the closest thing this library has to a kernel driver interface. Before the
     * driver opens, no backend is loaded and the version stays 0.0.
     */
    if (hf_loader_has_direct_backend()) {
        out.nvfs.major_version = HF_BACKEND_ABI_MAJOR;
        out.nvfs.minor_version = HF_BACKEND_ABI_MINOR;
    }
    out.nvfs.poll_thresh_size = (uint64_t)hf_setting_int(HF_SETTING_POLL_MODE_MAX_SIZE_KB);
    out.nvfs.max_direct_io_size = (uint64_t)hf_setting_int(HF_SETTING_MAX_DIRECT_IO_SIZE_KB);
    /* Which storage types a direct path supports is not tracked per backend yet; reported as 0. */
    out.nvfs.driver_status_flags = 0;
    if (hf_setting_bool(HF_SETTING_USE_POLL_MODE))
        out.nvfs.driver_control_flags |= 1u << hipFileUsePollMode;
    if (hf_config_compat_mode() != HF_COMPAT_OFF)
        out.nvfs.driver_control_flags |= 1u << hipFileAllowCompatMode;

    out.feature_flags = (1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported);
    if (hf_setting_bool(HF_SETTING_PARALLEL_IO))
        out.feature_flags |= 1u << hipFileParallelIOSupported;
    out.max_device_cache_size = (uint64_t)hf_setting_int(HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB);
    out.per_buffer_cache_size = (uint64_t)hf_setting_int(HF_SETTING_PER_BUFFER_CACHE_SIZE_KB);
    out.max_device_pinned_mem_size =
        (uint64_t)hf_setting_int(HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB);
    out.max_batch_io_count = (unsigned)hf_setting_int(HF_SETTING_MAX_BATCH_IO_COUNT);
    out.max_batch_io_timeout_msecs = (unsigned)hf_setting_int(HF_SETTING_BATCH_IO_TIMEOUT_MS);
    *props = out;
    return hf_status(hipFileSuccess);
}
