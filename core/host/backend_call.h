/*
 * The one door to the backends: every call of a backend op in the core goes through these
 * wrappers, over the complete ops copy in struct hf_backend. Optional ops a plugin lacks (its
 * negotiated minor predates them, or it left them NULL) were replaced once at load by the core's
 * defaults, so no caller tests the ABI minor or a NULL member. The per-request wrappers are
 * inline: one direct call through the copy, no lock.
 */
#ifndef HF_CORE_BACKEND_CALL_H
#define HF_CORE_BACKEND_CALL_H

#include <stdint.h>
#include <sys/types.h>

#include "hipfile/backend.h"
#include "host/loaded_backend.h"

/**
 * Fill @p b->complete from @p ops, the plugin's table checked at negotiated minor @p minor: the
 * members that minor defines and the plugin set, and the core's default for every other optional
 * op (file and buffer registration accept with a NULL context, deregistration does nothing,
 * submit_many serves the requests one by one, stream_prepare has nothing to do and every GPU
 * counts as prepared). Mandatory ops are copied as they are (the loader checked them).
 */
void hf_call_complete(struct hf_backend *b, const struct hf_backend_ops *ops, uint32_t minor);

/** init: set up the plugin's process-wide state into b->state. 0 or -errno. */
int hf_call_init(struct hf_backend *b);
/** fini: tear down what init set up. */
void hf_call_fini(struct hf_backend *b);
/** probe: 0 when usable on this machine, -ENODEV when not, else -errno. */
int hf_call_probe(struct hf_backend *b);
/** file_register: accept @p file (context in *ctx_p) or decline it (-EOPNOTSUPP). */
int hf_call_file_register(struct hf_backend *b, const struct hf_file_info *file, void **ctx_p);
/** file_deregister: release what file_register kept in @p ctx. */
void hf_call_file_deregister(struct hf_backend *b, void *ctx);
/** buf_register: accept @p buf (context in *ctx_p) or decline it (-EOPNOTSUPP). */
int hf_call_buf_register(struct hf_backend *b, const struct hf_buf_info *buf, void **ctx_p);
/** buf_deregister: release what buf_register kept in @p ctx. */
void hf_call_buf_deregister(struct hf_backend *b, void *ctx);
/** file_size: the size of the file @p ctx stands for, or -EOPNOTSUPP where the backend lacks it. */
int hf_call_file_size(struct hf_backend *b, void *ctx, uint64_t *size_p);
/** stream_prepare: get ready for stream-ordered requests on GPU @p device. 0 or -errno. */
int hf_call_stream_prepare(struct hf_backend *b, int device);

/** score: how well @p b serves @p req (negative refuses); *reason_p may get a static string. */
static inline int hf_call_score(const struct hf_backend *b, const struct hf_io_request *req,
                                const char **reason_p)
{
    return b->complete.score(b->state, req, reason_p);
}

/**
 * Whether @p ops, at the negotiated ABI minor @p minor, has a transfer op (minor 7), which then
 * serves both directions in place of read and write. The one test of it, for the loader's check
 * and for hf_call_complete.
 */
static inline bool hf_call_has_transfer(const struct hf_backend_ops *ops, uint32_t minor)
{
    return minor >= 7 && ops->transfer != NULL;
}

/** read or write, as req->op says: bytes moved or -errno. */
static inline ssize_t hf_call_transfer(const struct hf_backend *b, const struct hf_io_request *req)
{
    return req->op == HF_IO_READ ? b->complete.read(b->state, req)
                                 : b->complete.write(b->state, req);
}

/** submit_many: serve @p n requests at once, results[i] being what transfer returns for reqs[i]. */
static inline void hf_call_submit_many(const struct hf_backend *b,
                                       const struct hf_io_request *const *reqs, unsigned n,
                                       ssize_t *results)
{
    b->complete.submit_many(b->submit_many_arg, reqs, n, results);
}

#endif
