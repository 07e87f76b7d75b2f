/*
 * Facts about a GPU as storage sees it: an extension of hipfile's own (AMD's hipFile has none;
 * cuFile's cuFileGetBARSizeInKB, which libcufile.so.0 serves through this, does).
 */
#ifndef HIPFILE_DEVICE_H
#define HIPFILE_DEVICE_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Size in KiB of the memory aperture of GPU @p device (its largest PCI memory BAR: NVIDIA's BAR1,
 * AMD's BAR0), the window through which storage and peers reach its memory by DMA. hipfile's own
 * paths never map GPU memory through it; the figure is for programs that size their buffers by
 * it. Returns hipFileSuccess; hipFileDriverNotInitialized when the driver is not open;
 * hipFileInvalidValue for a NULL @p bar_size_kb or a @p device the runtime does not have;
 * hipFileDeviceNotSupported when the device has no PCI function to read it from (the host
 * runtime's devices, or a container without /sys); hipFileHipDriverError when the runtime cannot
 * give the device's PCI address.
 */
hipFileError_t hipFileGetBARSizeInKB(int device, size_t *bar_size_kb);

#ifdef __cplusplus
}
#endif

#endif
