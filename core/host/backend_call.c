/*
 * The calls into backends that are not on the per-request path, and the core's defaults for the
 * optional ops a plugin lacks, chosen once per backend when it loads.
 */
#include "host/backend_call.h"

#include <errno.h>
#include <stddef.h>

/* Registration a backend does not take part in: accepted, with no context to keep. */
static int default_file_register(void *backend, const struct hf_file_info *file, void **ctx_p)
{
    (void)backend;
    (void)file;
    *ctx_p = NULL;
    return 0;
}

static int default_buf_register(void *backend, const struct hf_buf_info *buf, void **ctx_p)
{
    (void)backend;
    (void)buf;
    *ctx_p = NULL;
    return 0;
}

static void default_deregister(void *backend, void *ctx)
{
    (void)backend;
    (void)ctx;
}

/* A backend without stream_prepare allocates nothing for stream-ordered requests. */
static int default_stream_prepare(void *backend, int device)
{
    (void)backend;
    (void)device;
    return 0;
}

/* A direction the backend's caps leave out: the selector never asks for it. */
static ssize_t default_transfer(void *backend, const struct hf_io_request *req)
{
    (void)backend;
    (void)req;
    return -EOPNOTSUPP;
}

/* A backend without file_size knows no file's size beyond what the core does. */
static int default_file_size(void *backend, void *file_ctx, uint64_t *size_p)
{
    (void)backend;
    (void)file_ctx;
    (void)size_p;
    return -EOPNOTSUPP;
}

/* Receives the struct hf_backend (submit_many_arg), since it serves through that backend's ops. */
static void default_submit_many(void *backend, const struct hf_io_request *const *reqs, unsigned n,
                                ssize_t *results)
{
    const struct hf_backend *b = backend;
    for (unsigned i = 0; i < n; i++)
        results[i] = hf_call_transfer(b, reqs[i]);
}

/* A member of the plugin's table that minor @p minor defines, where one exists at all. */
#define OPS_HAS(ops, minor, since, member) ((minor) >= (since) && (ops)->member != NULL)

void hf_call_complete(struct hf_backend *b, const struct hf_backend_ops *ops, uint32_t minor)
{
    /* Only the members the negotiated minor defines are read: an older table may end before. */
    bool has_transfer = hf_call_has_transfer(ops, minor);
    /*
     * A backend's transfer serves both directions and wins over its read and write; the copy's
     * read and write both point at it, so a request still costs one indirect call
     * (hf_call_transfer).
     */
    b->complete = (struct hf_backend_ops){
        .magic = ops->magic,
        .abi_major = ops->abi_major,
        .abi_minor = ops->abi_minor,
        .struct_size = sizeof(struct hf_backend_ops),
        .name = ops->name,
        .caps = ops->caps,
        .init = ops->init,
        .fini = ops->fini,
        .probe = ops->probe,
        .file_register = ops->file_register != NULL ? ops->file_register : default_file_register,
        .file_deregister = ops->file_deregister != NULL ? ops->file_deregister : default_deregister,
        .buf_register = ops->buf_register != NULL ? ops->buf_register : default_buf_register,
        .buf_deregister = ops->buf_deregister != NULL ? ops->buf_deregister : default_deregister,
        .score = ops->score,
        .read = has_transfer        ? ops->transfer
                : ops->read != NULL ? ops->read
                                    : default_transfer,
        .write = has_transfer         ? ops->transfer
                 : ops->write != NULL ? ops->write
                                      : default_transfer,
        .submit_many = OPS_HAS(ops, minor, 3, submit_many) ? ops->submit_many : default_submit_many,
        .stream_prepare =
            OPS_HAS(ops, minor, 4, stream_prepare) ? ops->stream_prepare : default_stream_prepare,
        .settings = minor >= 5 ? ops->settings : NULL,
        .setting_count = minor >= 5 && ops->settings != NULL ? ops->setting_count : 0,
        .transfer = has_transfer ? ops->transfer : NULL,
        .file_size = OPS_HAS(ops, minor, 9, file_size) ? ops->file_size : default_file_size,
    };
    /* Nothing to prepare: every GPU the bookkeeping tracks counts as done. */
    if (!OPS_HAS(ops, minor, 4, stream_prepare))
        b->stream_prepared = UINT64_MAX;
}

int hf_call_init(struct hf_backend *b)
{
    int rc = b->complete.init(&b->host, &b->state);
    /* The plugin's own submit_many wants the state init just made. */
    b->submit_many_arg = b->complete.submit_many == default_submit_many ? (void *)b : b->state;
    return rc;
}

void hf_call_fini(struct hf_backend *b)
{
    b->complete.fini(b->state);
}

int hf_call_probe(struct hf_backend *b)
{
    return b->complete.probe(b->state);
}

int hf_call_file_register(struct hf_backend *b, const struct hf_file_info *file, void **ctx_p)
{
    return b->complete.file_register(b->state, file, ctx_p);
}

void hf_call_file_deregister(struct hf_backend *b, void *ctx)
{
    b->complete.file_deregister(b->state, ctx);
}

int hf_call_buf_register(struct hf_backend *b, const struct hf_buf_info *buf, void **ctx_p)
{
    return b->complete.buf_register(b->state, buf, ctx_p);
}

void hf_call_buf_deregister(struct hf_backend *b, void *ctx)
{
    b->complete.buf_deregister(b->state, ctx);
}

int hf_call_file_size(struct hf_backend *b, void *ctx, uint64_t *size_p)
{
    return b->complete.file_size(b->state, ctx, size_p);
}

int hf_call_stream_prepare(struct hf_backend *b, int device)
{
    return b->complete.stream_prepare(b->state, device);
}
