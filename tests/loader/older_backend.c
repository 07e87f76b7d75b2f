/*
 * A backend that reports an older ABI minor (OLDER_MINOR) at the handshake, for the loader tests:
 * a manifest that states a newer minor than this is refused, and the optional ops it sets that
 * its minor does not define yet (submit_many, stream_prepare) are never used.
 */
#include <errno.h>

#include "hipfile/backend.h"

#ifndef OLDER_MINOR
#error "OLDER_MINOR must give the minor the backend reports"
#endif

static int older_init(const struct hf_host_api *host, void **backend_p)
{
    (void)host;
    static int state;
    *backend_p = &state;
    return 0;
}

static void older_fini(void *backend)
{
    (void)backend;
}

static int older_probe(void *backend)
{
    (void)backend;
    return 0;
}

static int older_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    (void)backend;
    (void)req;
    if (reason_p != NULL)
        *reason_p = "older";
    return 1;
}

static ssize_t older_transfer(void *backend, const struct hf_io_request *req)
{
    (void)backend;
    (void)req;
    return -EIO;
}

/* Set, but newer than OLDER_MINOR: the core must not call these. */
static void older_submit_many(void *backend, const struct hf_io_request *const *reqs, unsigned n,
                              ssize_t *results)
{
    (void)backend;
    (void)reqs;
    for (unsigned i = 0; i < n; i++)
        results[i] = -ENOTSUP;
}

static int older_stream_prepare(void *backend, int device)
{
    (void)backend;
    (void)device;
    return -ENOTSUP;
}

static const struct hf_backend_ops older_ops = {
    .magic = HF_BACKEND_MAGIC,
    .abi_major = HF_BACKEND_ABI_MAJOR,
    .abi_minor = OLDER_MINOR,
    .struct_size = sizeof(struct hf_backend_ops),
    .name = "older-abi",
    .caps = HF_CAP_READ | HF_CAP_WRITE,
    .init = older_init,
    .fini = older_fini,
    .probe = older_probe,
    .score = older_score,
    .read = older_transfer,
    .write = older_transfer,
    .submit_many = older_submit_many,
    .stream_prepare = older_stream_prepare,
};

HF_BACKEND_EXPORT int hf_backend_entry_v1(const struct hf_host_api *host, uint32_t *minor_inout,
                                          const struct hf_backend_ops **ops_p)
{
    (void)host;
    if (*minor_inout > OLDER_MINOR)
        *minor_inout = OLDER_MINOR;
    *ops_p = &older_ops;
    return 0;
}
