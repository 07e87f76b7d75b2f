/*
 * The selector: for each request, the candidates are the loaded backends that accepted the file
 * and the buffer and whose manifest allows the memory type and file kind; they are ordered by
 * score(), then configured priority, then manifest priority, then name. The first candidate serves
 * the request; on a retryable errno with nothing moved (and compat mode not off) the next one does.
 */
#ifndef HF_CORE_SELECTOR_H
#define HF_CORE_SELECTOR_H

#include <stddef.h>
#include <sys/types.h>

#include "hipfile/backend.h"
#include "loader.h"

/** One candidate's verdict for a request (hipfile-check --explain). */
struct hf_candidate {
    struct hf_backend *backend; /**< the backend */
    int score;                  /**< its score; negative = refused */
    const char *reason;         /**< why (static string), never NULL */
};

/**
 * Rank every loaded backend for @p req. @p declined_by[i] true means backend i declined the file
 * or buffer at registration (may be NULL). Fills up to @p max entries of @p out, usable ones first
 * in serving order, then the refused ones; returns the number filled.
 */
size_t hf_selector_rank(const struct hf_io_request *req, void *const *file_ctx,
                        void *const *buf_ctx, const bool *declined_by, struct hf_candidate *out,
                        size_t max);

/**
 * Serve @p req: the best candidate first, then the next on a retryable error with nothing moved.
 * @p file_ctx and @p buf_ctx are per-backend context arrays (index = backend index, may be NULL);
 * @p declined_by as in hf_selector_rank. Returns bytes or -errno (-ENODEV when no backend can
 * serve).
 */
ssize_t hf_selector_submit(struct hf_io_request *req, void *const *file_ctx, void *const *buf_ctx,
                           const bool *declined_by);

#endif
