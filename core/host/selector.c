/*
 * The selector: filters the loaded backends by what each request needs (capability, manifest
 * requirements, registration declines, compat mode), ranks the rest by score and priority, and
 * walks the fallback chain when a backend says another one may succeed.
 */
#include "host/selector.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "base/log.h"
#include "config/config.h"
#include "host/backend_call.h"

static atomic_uint_fast64_t selector_fallbacks;

uint64_t hf_selector_fallback_count(void)
{
    return atomic_load(&selector_fallbacks);
}

/* Reasons are static strings (hipfile-check prints them), so each memory type has its own. */
static const char *const mem_refusals[] = {
    [HF_MEM_UNKNOWN] = "manifest does not accept pageable host memory",
    [HF_MEM_DEVICE] = "manifest does not accept device memory",
    [HF_MEM_HOST_PINNED] = "manifest does not accept pinned host memory",
    [HF_MEM_MANAGED] = "manifest does not accept managed memory",
    [HF_MEM_ARRAY] = "array memory cannot take part in I/O",
};

/* Static too, one per file kind (enum hf_file_kind) the manifest grammar names. */
static const char *const kind_refusals[] = {
    [HF_FILE_REGULAR] = "manifest does not accept regular files",
    [HF_FILE_BLOCK] = "manifest does not accept block devices",
    [HF_FILE_USERSPACE_FS] = "manifest does not accept userspace-fs files",
    [HF_FILE_REMOTE] = "manifest does not accept remote files",
};

static const char *op_name(int op)
{
    return op == HF_IO_READ ? "read" : "write";
}

/* Why @p b cannot serve @p req before it is even asked, or NULL when it may be asked. */
static const char *filter_refusal(const struct hf_backend *b, const struct hf_io_request *req,
                                  bool declined, enum hf_compat_mode mode)
{
    uint32_t caps = b->complete.caps;
    /* First: a backend whose manifest lacks the file's kind is not even offered it (file.c). */
    int kind = req->file->kind;
    if (kind < 0 || kind >= 32 || !(b->file_kinds & (1u << kind))) {
        if (kind >= 0 && (size_t)kind < sizeof(kind_refusals) / sizeof(kind_refusals[0]) &&
            kind_refusals[kind] != NULL)
            return kind_refusals[kind];
        return "manifest does not accept this kind of file";
    }
    if (declined)
        return "declined the file or buffer at registration";
    if (req->op == HF_IO_READ && !(caps & HF_CAP_READ))
        return "does not serve reads";
    if (req->op == HF_IO_WRITE && !(caps & HF_CAP_WRITE))
        return "does not serve writes";
    int mem = req->buf->mem_type;
    if (mem < 0 || mem >= 32 || !(b->mem_types & (1u << mem))) {
        if (mem >= 0 && (size_t)mem < sizeof(mem_refusals) / sizeof(mem_refusals[0]))
            return mem_refusals[mem];
        return "unknown memory type";
    }
    if (mode == HF_COMPAT_FORCE && !(caps & HF_CAP_COMPAT))
        return "compat mode is force and this is not a compat backend";
    if (mode == HF_COMPAT_OFF && (caps & HF_CAP_COMPAT))
        return "compat mode is off and this is a compat backend";
    return NULL;
}

/* Serving order: higher score, then higher effective and manifest priority, then name. */
static bool candidate_before(const struct hf_candidate *a, const struct hf_candidate *b)
{
    if (a->score != b->score)
        return a->score > b->score;
    if (a->backend->priority != b->backend->priority)
        return a->backend->priority > b->backend->priority;
    if (a->backend->manifest_priority != b->backend->manifest_priority)
        return a->backend->manifest_priority > b->backend->manifest_priority;
    return strcmp(a->backend->name, b->backend->name) < 0;
}

static bool request_usable(const struct hf_io_request *req)
{
    return req != NULL && req->file != NULL && req->buf != NULL &&
           (req->op == HF_IO_READ || req->op == HF_IO_WRITE);
}

static size_t rank_with_mode(const struct hf_io_request *req, void *const *file_ctx,
                             void *const *buf_ctx, const bool *declined_by,
                             enum hf_compat_mode mode, struct hf_candidate *out, size_t max)
{
    if (!request_usable(req) || out == NULL)
        return 0;
    struct hf_candidate usable[HF_MAX_BACKENDS];
    struct hf_candidate refused[HF_MAX_BACKENDS];
    size_t usable_count = 0;
    size_t refused_count = 0;
    unsigned count = hf_backend_count();
    bool debug = hf_log_level() >= HF_LOG_DEBUG;

    for (unsigned i = 0; i < count; i++) {
        struct hf_backend *b = hf_backend_at(i);
        struct hf_candidate c = {.backend = b, .score = -1, .reason = NULL};
        c.reason = filter_refusal(b, req, declined_by != NULL && declined_by[i], mode);
        if (c.reason == NULL) {
            struct hf_io_request view = *req;
            view.file_ctx = file_ctx != NULL ? file_ctx[i] : NULL;
            view.buf_ctx = buf_ctx != NULL ? buf_ctx[i] : NULL;
            c.score = hf_call_score(b, &view, &c.reason);
            if (c.reason == NULL)
                c.reason = c.score < 0 ? "refused without a reason" : "no reason given";
        }
        if (debug)
            hf_debug("select %s of %zu bytes at %lld: %s %s with score %d (%s)", op_name(req->op),
                     req->size, (long long)req->file_offset, b->name,
                     c.score < 0 ? "refuses" : "offers", c.score, c.reason);
        if (c.score < 0) {
            refused[refused_count++] = c;
            continue;
        }
        /* Insertion sort: at most HF_MAX_BACKENDS entries, and ties keep a stable order. */
        size_t at = usable_count++;
        while (at > 0 && candidate_before(&c, &usable[at - 1])) {
            usable[at] = usable[at - 1];
            at--;
        }
        usable[at] = c;
    }

    size_t filled = 0;
    for (size_t i = 0; i < usable_count && filled < max; i++)
        out[filled++] = usable[i];
    for (size_t i = 0; i < refused_count && filled < max; i++)
        out[filled++] = refused[i];
    return filled;
}

size_t hf_selector_rank(const struct hf_io_request *req, void *const *file_ctx,
                        void *const *buf_ctx, const bool *declined_by, struct hf_candidate *out,
                        size_t max)
{
    return rank_with_mode(req, file_ctx, buf_ctx, declined_by, hf_config_compat_mode(), out, max);
}

size_t hf_selector_chain(const struct hf_io_request *req, void *const *file_ctx,
                         void *const *buf_ctx, const bool *declined_by, struct hf_chain *chain)
{
    chain->usable = 0;
    if (!request_usable(req)) {
        hf_error("selector: request without file, buffer or valid op");
        return 0;
    }
    chain->mode = hf_config_compat_mode();
    size_t n = rank_with_mode(req, file_ctx, buf_ctx, declined_by, chain->mode, chain->at,
                              HF_MAX_BACKENDS);
    while (chain->usable < n && chain->at[chain->usable].score >= 0)
        chain->usable++;
    if (chain->usable > 0)
        return chain->usable;
    if (n == 0)
        hf_error("no backend can serve a %s of %zu bytes: no backend is loaded; run "
                 "hipfile-check to see why each plugin was skipped and what to do",
                 op_name(req->op), req->size);
    else if (n == 1)
        hf_error("no backend can serve a %s of %zu bytes (%s file, %s memory): the one loaded "
                 "refused; hipfile-check --explain FILE shows its reason",
                 op_name(req->op), req->size, hf_manifest_file_kind_name(req->file->kind),
                 hf_manifest_mem_name(req->buf->mem_type));
    else
        hf_error("no backend can serve a %s of %zu bytes (%s file, %s memory): all %zu loaded "
                 "refused; hipfile-check --explain FILE shows each one's reason",
                 op_name(req->op), req->size, hf_manifest_file_kind_name(req->file->kind),
                 hf_manifest_mem_name(req->buf->mem_type), n);
    return 0;
}

bool hf_selector_next(const struct hf_chain *chain, size_t at, const struct hf_io_request *req,
                      ssize_t *rc_p)
{
    const struct hf_backend *b = chain->at[at].backend;
    if (*rc_p > (ssize_t)req->size) {
        hf_error("backend %s claims %zd bytes for a %s of %zu", b->name, *rc_p, op_name(req->op),
                 req->size);
        *rc_p = -EIO;
        return false;
    }
    if (*rc_p >= 0)
        return false;
    int err = (int)-*rc_p;
    if (!hf_backend_retryable(b, err))
        return false;
    const char *err_name = hf_manifest_errno_name(err);
    if (at + 1 >= chain->usable) {
        hf_debug("backend %s: %s with nothing moved, and no other candidate", b->name,
                 err_name ? err_name : strerror(err));
        return false;
    }
    if (chain->mode == HF_COMPAT_OFF) {
        hf_debug("backend %s: %s with nothing moved; compat mode is off, so no fallback", b->name,
                 err_name ? err_name : strerror(err));
        return false;
    }
    atomic_fetch_add(&selector_fallbacks, 1);
    hf_debug("backend %s: %s with nothing moved; falling back to %s", b->name,
             err_name ? err_name : strerror(err), chain->at[at + 1].backend->name);
    return true;
}

ssize_t hf_selector_serve(const struct hf_chain *chain, size_t from, struct hf_io_request *req,
                          void *const *file_ctx, void *const *buf_ctx, struct hf_backend **served_p)
{
    if (served_p != NULL)
        *served_p = NULL;
    void *saved_file_ctx = req->file_ctx;
    void *saved_buf_ctx = req->buf_ctx;
    ssize_t rc = -HF_ENOBACKEND;
    for (size_t i = from; i < chain->usable; i++) {
        struct hf_backend *b = chain->at[i].backend;
        req->file_ctx = file_ctx != NULL ? file_ctx[b->index] : NULL;
        req->buf_ctx = buf_ctx != NULL ? buf_ctx[b->index] : NULL;
        rc = hf_call_transfer(b, req);
        if (served_p != NULL)
            *served_p = b;
        if (!hf_selector_next(chain, i, req, &rc))
            break;
    }
    req->file_ctx = saved_file_ctx;
    req->buf_ctx = saved_buf_ctx;
    return rc;
}

ssize_t hf_selector_submit(struct hf_io_request *req, void *const *file_ctx, void *const *buf_ctx,
                           const bool *declined_by, struct hf_backend **served_p)
{
    if (served_p != NULL)
        *served_p = NULL;
    struct hf_chain chain;
    if (hf_selector_chain(req, file_ctx, buf_ctx, declined_by, &chain) == 0)
        return request_usable(req) ? -HF_ENOBACKEND : -EINVAL;
    return hf_selector_serve(&chain, 0, req, file_ctx, buf_ctx, served_p);
}
