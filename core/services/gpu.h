/*
 * The GPU runtime binding: picks the HIP runtime library named by gpu.runtime and resolves the
 * entry points the core and backends need, optional ones included. The bound runtime and the calls
 * made through it, which normalise what differs between HIP ABIs, are in services/gpu_runtime.h,
 * included here for the callers.
 */
#ifndef HF_CORE_GPU_H
#define HF_CORE_GPU_H

#include "services/gpu_runtime.h"

/**
 * Bind the runtime named @p runtime (the gpu.runtime setting: "auto", "hip", "cuda", "host" or a
 * library path, i.e. any name containing '/'; the four names are matched ignoring case). Once
 * bound, later calls with a valid name return 0 and keep the first binding. Returns 0, or -ENODEV
 * when no runtime with a device was found (logged, with what was tried), or -ENOENT when the
 * named library cannot be opened or lacks a mandatory function, or -EINVAL for a NULL, empty,
 * unknown or over-long name.
 */
int hf_gpu_bind(const char *runtime);
/** Forget the binding (libraries stay loaded) so a test can bind another runtime. Tests only. */
void hf_gpu_reset(void);

#endif
