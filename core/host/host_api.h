/*
 * The host API the core hands each backend (struct hf_host_api): logging under the backend's
 * name, its config group, the GPU runtime and system calls, the I/O workers and the core limits,
 * complete up to the core's ABI minor.
 */
#ifndef HF_CORE_HOST_API_H
#define HF_CORE_HOST_API_H

#include "hipfile/backend.h"
#include "host/loaded_backend.h"

/**
 * Fill @p backend->host with every member up to HF_BACKEND_ABI_MINOR, core_private pointing back
 * at @p backend (whose name must be set: log lines and config look-ups use it). The GPU table is
 * hf_gpu() as it is at this call.
 */
void hf_host_api_fill(struct hf_backend *backend);

/**
 * What hf_host_api.core_limits answers: the current values of the core settings it names, the
 * pinned memory per GPU bounded by an eighth of the memory the process may use, shared by its
 * GPUs, and the CPUs the process may use.
 */
void hf_host_core_limits(struct hf_core_limits *limits_p);

#endif
