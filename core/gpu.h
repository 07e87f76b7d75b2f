/*
 * The GPU runtime binding: picks the HIP runtime library named by gpu.runtime, resolves the entry
 * points the core and backends need, and normalises what differs between HIP ABIs (memory type
 * numbering, pointer attribute layout, optional functions).
 */
#ifndef HF_CORE_GPU_H
#define HF_CORE_GPU_H

#include "hipfile/backend.h"

/**
 * Bind the runtime named @p runtime (the gpu.runtime setting: "auto", "hip", "cuda", "host" or a
 * library path). Once bound, later calls return 0 and keep the first binding. Returns 0, or
 * -ENODEV when no runtime with a device was found (logged, with what was tried), or -ENOENT when
 * the named library cannot be opened or lacks a mandatory function, or -EINVAL for a bad name.
 */
int hf_gpu_bind(const char *runtime);
/** Forget the binding (libraries stay loaded) so a test can bind another runtime. Tests only. */
void hf_gpu_reset(void);
/** The bound runtime; NULL before a successful hf_gpu_bind. */
const struct hf_gpu_ops *hf_gpu(void);

#endif
