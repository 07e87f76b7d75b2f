/*
 * The selector: for each request, the candidates are the loaded backends that accepted the file
 * and the buffer and whose manifest allows the memory type and file kind; they are ordered by
 * score(), then configured priority, then manifest priority, then name. The first candidate serves
 * the request; on a retryable errno with nothing moved (and compat mode not off) the next one does.
 */
#ifndef HF_CORE_SELECTOR_H
#define HF_CORE_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "hipfile/backend.h"
#include "host/backends.h"

/**
 * Negative of this value: no loaded backend can serve the request (none loaded, or every one was
 * filtered out or refused it by score). The core reports it as hipFileInternalError (API.md
 * section 8.4). Outside the errno range and distinct from HF_EGPU; backends never return it.
 */
#define HF_ENOBACKEND 4097

/** One candidate's verdict for a request (hipfile-check --explain). */
struct hf_candidate {
    struct hf_backend *backend; /**< the backend */
    int score;                  /**< its score; negative = refused */
    const char *reason;         /**< why (static string), never NULL */
};

/**
 * Rank every loaded backend for @p req. @p file_ctx and @p buf_ctx are per-backend context arrays
 * (index = backend index, either may be NULL) handed to score() in req->file_ctx/buf_ctx.
 * @p declined_by[i] true means backend i declined the file or buffer at registration (may be
 * NULL). A backend is a candidate when it did not decline, has the capability for req->op, its
 * manifest accepts the memory type and file kind, compat mode admits it (force: only
 * HF_CAP_COMPAT backends; off: none of them), and score() is not negative. Candidates are ordered
 * by score, then effective priority, then manifest priority (all descending), then name. Fills up
 * to @p max entries of @p out, candidates first in serving order, then the refused backends in
 * load order; returns the number filled (0 for a request without file or buffer). Logs one debug
 * line per backend.
 */
size_t hf_selector_rank(const struct hf_io_request *req, void *const *file_ctx,
                        void *const *buf_ctx, const bool *declined_by, struct hf_candidate *out,
                        size_t max);

/** The candidates for one request in serving order, as hf_selector_chain ranked them. */
struct hf_chain {
    struct hf_candidate at[HF_MAX_BACKENDS]; /**< candidates first, then the refused backends */
    size_t usable;                           /**< leading entries that may serve, 0 for none */
    enum hf_compat_mode mode; /**< compat mode read once, for the filter and the fallback rule */
};

/**
 * Rank the candidates for @p req into @p chain (arguments as for hf_selector_rank, compat mode
 * read once). Returns chain->usable; when it is 0, the request is logged as one no backend can
 * serve (-HF_ENOBACKEND is its result), or as unusable (-EINVAL) when @p req lacks a file, a
 * buffer or a valid op.
 */
size_t hf_selector_chain(const struct hf_io_request *req, void *const *file_ctx,
                         void *const *buf_ctx, const bool *declined_by, struct hf_chain *chain);

/**
 * The step after chain entry @p at returned *rc_p for @p req. A count over req->size becomes
 * -EIO (logged) and ends the chain. An errno retryable for that backend, with another candidate
 * left and compat mode not off, is a fallback: counted, logged at debug, and true is returned
 * (entry at + 1 serves next). Otherwise false: *rc_p is the result.
 */
bool hf_selector_next(const struct hf_chain *chain, size_t at, const struct hf_io_request *req,
                      ssize_t *rc_p);

/**
 * Serve @p req from chain entry @p from on, each entry with its own contexts from @p file_ctx and
 * @p buf_ctx (restored before returning), stepping by hf_selector_next. Returns what
 * hf_selector_submit returns; *served_p (may be NULL) gets the backend whose result it is, or
 * NULL when none was tried.
 */
ssize_t hf_selector_serve(const struct hf_chain *chain, size_t from, struct hf_io_request *req,
                          void *const *file_ctx, void *const *buf_ctx,
                          struct hf_backend **served_p);

/**
 * Serve @p req with the first candidate of hf_selector_rank. When it fails with an errno that is
 * retryable for it (hf_backend_retryable) - a negative return means it moved nothing - and compat
 * mode is not off, the next candidate serves the same request; each such step is counted. A
 * backend that moved part of the request returns the short count, which is final. req->file_ctx
 * and req->buf_ctx are set per backend and restored before returning. Returns bytes; the -errno
 * of the last backend tried (as the backend returned it, not logged here); or, each with one log
 * line: -HF_ENOBACKEND when there is no candidate, -EINVAL for a request without file, buffer or
 * valid op, -EIO when a backend claims more bytes than were asked. *served_p (may be NULL)
 * gets the backend whose result is returned, or NULL when none was tried.
 */
ssize_t hf_selector_submit(struct hf_io_request *req, void *const *file_ctx, void *const *buf_ctx,
                           const bool *declined_by, struct hf_backend **served_p);

/** Requests handed on to the next candidate since the process started (all threads). */
uint64_t hf_selector_fallback_count(void);

#endif
