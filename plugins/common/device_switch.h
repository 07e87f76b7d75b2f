/*
 * Switching the calling thread to the GPU that owns a buffer and back, as every plugin does around
 * staged copies and engine calls: the thread may belong to the application, whose own HIP calls
 * depend on its current device.
 */
#ifndef HF_PLUGIN_COMMON_DEVICE_SWITCH_H
#define HF_PLUGIN_COMMON_DEVICE_SWITCH_H

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Make GPU @p device current for the calling thread (nothing for a negative @p device), leaving in
 * *previous_p the device to put back, -1 when nothing changed. Returns 0, or -HF_EGPU with the
 * runtime's code in *gpu_error_p (when not NULL) and one error line through host->log.
 */
int hfp_device_enter(const struct hf_host_api *host, int device, int *previous_p, int *gpu_error_p);

/** Make @p previous current again (nothing when it is -1); a failure is only logged. */
void hfp_device_restore(const struct hf_host_api *host, int previous);

#ifdef __cplusplus
}
#endif

#endif
