/*
 * The synchronous data path shared by hipFileRead/Write and the async and batch front ends:
 * validation, buffer resolution, selection and the mapping of backend errors to the public
 * return convention (API.md section 8.4).
 */
#ifndef HF_CORE_IO_H
#define HF_CORE_IO_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <hipfile.h>

#include "api/registry.h"
#include "hipfile/backend.h"
#include "host/backends.h"
#include "host/selector.h"
#include "services/stats.h"

/**
 * Most bytes one backend call moves: INT_MAX rounded down to the 4 KiB page, as Linux read(2)
 * does. Larger requests are served in pieces of this size and still move whole.
 */
#define HF_IO_MAX_BYTES ((size_t)0x7ffff000)

/**
 * Run one request with the public conventions: returns bytes (>= 0), -1 with errno set, or a
 * negated hipFileOpError_t. @p what names the caller in log lines.
 */
ssize_t hf_io_run(int op, hipFileHandle_t fh, void *buffer_base, size_t size, int64_t file_offset,
                  int64_t buffer_offset, const char *what);

/** One call on its way through the data path: checked, resolved, then handed to a backend. */
struct hf_io_call {
    struct hf_stats_io_record rec;  /**< what the statistics count; rec.result is the outcome */
    uint64_t start_ns;              /**< when the call began */
    const char *what;               /**< the caller's name for log lines */
    struct hf_file *file;           /**< held from hf_io_prepare until hf_io_finish */
    struct hf_buffer *buffer;       /**< held likewise; NULL for unregistered memory */
    struct hf_buf_info view;        /**< the memory's facts when it is not registered */
    bool declined[HF_MAX_BACKENDS]; /**< backends that declined the file or buffer */
    size_t size;                    /**< the whole request; req.size is the piece in flight */
    int gpu_err;                    /**< the runtime's code behind -HF_EGPU */
    struct hf_io_request req;       /**< the request backends see */
    struct hf_write_undo_call undo; /**< a write's part in cutting back a failed extension */
};

/**
 * Check a call's arguments and resolve its file and memory: @p held when the caller holds a
 * reference on it already (a batch entry), else the file registered as @p fh. Returns true when
 * call->req is ready for a backend (references held until hf_io_finish); false when the call
 * already has its result in call->rec.result (errno set for -1), counted in the statistics, nothing
 * held.
 */
bool hf_io_prepare(struct hf_io_call *call, int op, hipFileHandle_t fh, struct hf_file *held,
                   void *buffer_base, size_t size, int64_t file_offset, int64_t buffer_offset,
                   const char *what);

/**
 * Rank the candidates for a prepared call into @p chain (hf_selector_chain, which logs a request
 * no backend can serve) and set call->req's contexts for the first. Returns that first backend,
 * or NULL when every backend refuses.
 */
struct hf_backend *hf_io_chain(struct hf_io_call *call, struct hf_chain *chain);

/**
 * Serve a prepared call from entry @p from of the chain hf_io_chain ranked for it, and finish it
 * (hf_io_finish).
 */
ssize_t hf_io_serve(struct hf_io_call *call, const struct hf_chain *chain, size_t from);

/** Serve a prepared call through the selector's chain and finish it (hf_io_finish). */
ssize_t hf_io_submit(struct hf_io_call *call);

/**
 * Finish a prepared call with backend result @p rc (of the first piece, req.size bytes) from
 * @p served: serve the pieces left of a request over HF_IO_MAX_BYTES, translate the result to the
 * public convention (errno set for -1), count it, release the references. Returns the public
 * result.
 */
ssize_t hf_io_finish(struct hf_io_call *call, ssize_t rc, struct hf_backend *served);

/**
 * A public result as the stream-ordered calls, batch events and
 * groups carry it: bytes, or a negative errno (for -1, read
 * from errno right after the call) or negated hipFileOpError_t.
 */
static inline ssize_t hf_io_event_result(ssize_t r)
{
    return r == -1 ? -errno : r;
}

/** Count a finished call in the statistics (errno preserved). */
void hf_io_record(struct hf_io_call *call);

#endif
