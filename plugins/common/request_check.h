/*
 * The checks every backend makes on a request before touching memory or a file. The core
 * validates requests first; these keep a core bug or a direct caller from turning into memory
 * corruption, and word the refusal the same way in every backend's log.
 */
#ifndef HF_PLUGIN_COMMON_REQUEST_CHECK_H
#define HF_PLUGIN_COMMON_REQUEST_CHECK_H

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * What is wrong with the offsets, size and buffer range of @p req, which must have a file and a
 * buffer: a phrase for the log ("a negative offset"), or NULL when they are sound.
 */
const char *hfp_request_range_problem(const struct hf_io_request *req);

/**
 * Whether the file's open flags allow the direction of @p req: 0, or -EBADF (read of a write-only
 * or write to a read-only descriptor) or -EINVAL (a positioned write under O_APPEND, which Linux
 * would append elsewhere), with the phrase for the log in *what_p.
 */
int hfp_request_access_problem(const struct hf_io_request *req, const char **what_p);

/**
 * Every check a backend makes before it serves @p req, logged through host->log as all backends
 * word them: first @p own_problem, the phrase of a check of the backend's own that failed (NULL
 * when none; a backend must report here a request without file or buffer), then the range, then
 * the access mode. Returns 0, -EINVAL or -EBADF.
 */
int hfp_request_check(const struct hf_host_api *host, const struct hf_io_request *req,
                      const char *own_problem);

#ifdef __cplusplus
}
#endif

#endif
