/*
 * The table of loaded backends: what the loader kept, in load order, for the selector, the
 * registries and the tools to walk, with each backend's stream-prepare bookkeeping.
 */
#ifndef HF_CORE_BACKENDS_H
#define HF_CORE_BACKENDS_H

#include <stdbool.h>

#include "host/loaded_backend.h"

/** Number of loaded backends. */
unsigned hf_backend_count(void);
/** Backend @p index (0..count-1), or NULL. */
struct hf_backend *hf_backend_at(unsigned index);
/** Backend named @p name, or NULL. */
struct hf_backend *hf_backend_find(const char *name);
/** Whether a loaded backend offers a direct (no bounce buffer) path, HF_CAP_DIRECT. */
bool hf_loader_has_direct_backend(void);
/** Whether @p err (positive errno) is retryable for @p backend (ENODEV, EREMOTEIO, manifest list).
 */
bool hf_backend_retryable(const struct hf_backend *backend, int err);
/**
 * Let every backend get ready for stream-ordered requests on GPU @p device (stream_prepare, ABI
 * minor 4; one without it has nothing to do and is never asked), before the first such request
 * for it is queued; afterwards a call costs one load per backend. Serialized, so no caller queues a
 * request while another is still preparing. A failure is logged once and not retried; the requests
 * run anyway (the backend then makes what it needs on demand).
 */
void hf_backends_stream_prepare(int device);

/**
 * The slot the next loaded backend fills (index hf_backend_count()), zeroed; NULL when
 * HF_MAX_BACKENDS are loaded. Only the loader writes it, under its own lock.
 */
struct hf_backend *hf_backends_next_slot(void);
/** Make the slot from hf_backends_next_slot visible to every reader as the last backend. */
void hf_backends_publish(void);
/** Let the next slot go unused after a failed load (zeroed again). */
void hf_backends_discard_slot(void);
/** Forget every backend, last loaded first, running each one's fini (hf_loader_reset). */
void hf_backends_clear(void);

#endif
