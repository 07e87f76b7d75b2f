/*
 * The calling thread's GPU around a plugin's work on a buffer (device_switch.h). The current device
 * is read first so a thread already on the buffer's GPU makes no runtime call to switch.
 */
#include "common/device_switch.h"

int hfp_device_enter(const struct hf_host_api *host, int device, int *previous_p, int *gpu_error_p)
{
    const struct hf_gpu_ops *gpu = host->gpu;
    *previous_p = -1;
    if (device < 0)
        return 0;
    int previous = -1;
    int err = gpu->get_device(&previous);
    if (err == 0 && previous == device)
        previous = -1;
    else if (err == 0)
        err = gpu->set_device(device);
    if (err != 0) {
        host->log(host, HF_LOG_ERROR, "cannot make GPU %d current: %s (%d)", device,
                  gpu->error_string(err), err);
        if (gpu_error_p != NULL)
            *gpu_error_p = err;
        return -HF_EGPU;
    }
    *previous_p = previous;
    return 0;
}

void hfp_device_restore(const struct hf_host_api *host, int previous)
{
    if (previous < 0)
        return;
    int err = host->gpu->set_device(previous);
    if (err != 0)
        host->log(host, HF_LOG_WARN, "cannot make GPU %d current again: %s (%d)", previous,
                  host->gpu->error_string(err), err);
}
