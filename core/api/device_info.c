/*
 * hipFileGetBARSizeInKB (include/hipfile/device.h): the GPU runtime names the device's PCI
 * function and sysfs gives the size of its memory aperture.
 */
#include <hipfile/device.h>

#include <errno.h>
#include <stddef.h>

#include "api/driver.h"
#include "base/error.h"
#include "base/log.h"
#include "services/gpu_runtime.h"

HIPFILE_API hipFileError_t hipFileGetBARSizeInKB(int device, size_t *bar_size_kb)
{
    if (!hf_driver_is_open()) {
        hf_error("hipFileGetBARSizeInKB: driver is not open");
        return hf_status(hipFileDriverNotInitialized);
    }
    if (bar_size_kb == NULL) {
        hf_error("hipFileGetBARSizeInKB: bar_size_kb is NULL");
        return hf_status(hipFileInvalidValue);
    }
    const struct hf_gpu_ops *gpu = hf_gpu();
    int devices = 0;
    if (gpu == NULL || gpu->device_count(&devices) != 0 || device < 0 || device >= devices) {
        hf_error("hipFileGetBARSizeInKB: no device %d (the runtime has %d)", device, devices);
        return hf_status(hipFileInvalidValue);
    }
    uint64_t kb = 0;
    int rc = hf_gpu_bar_size_kb(device, &kb);
    switch (rc) {
    case 0:
        *bar_size_kb = (size_t)kb;
        return hf_status(hipFileSuccess);
    case -EIO:
        hf_error("hipFileGetBARSizeInKB: the GPU runtime cannot give device %d's PCI address",
                 device);
        return hf_status(hipFileHipDriverError);
    case -ENOENT:
        hf_error("hipFileGetBARSizeInKB: sysfs does not list device %d's PCI function", device);
        return hf_status(hipFileDeviceNotSupported);
    default:
        hf_error("hipFileGetBARSizeInKB: device %d is host-emulated and has no PCI BAR", device);
        return hf_status(hipFileDeviceNotSupported);
    }
}
