/* mybackend: the smallest useful backend, from plugins.rst and howto/write-a-plugin.rst. */
#include <errno.h>
#include <hipfile/backend.h>

struct mine {
    const struct hf_host_api *host;
};
static struct mine mine;

static int mine_init(const struct hf_host_api *host, void **backend_p)
{
    mine.host = host;
    *backend_p = &mine;
    return 0;
}

static void mine_fini(void *backend)
{
    (void)backend;
}

static int mine_probe(void *backend)
{
    (void)backend;
    return 0; /* -ENODEV when the hardware this backend drives is absent */
}

static int mine_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    (void)backend;
    if (!req->buf->host_accessible) {
        *reason_p = "needs memory the CPU can address";
        return -1;
    }
    *reason_p = "pread into host-addressable memory";
    return 10;
}

static ssize_t mine_read(void *backend, const struct hf_io_request *req)
{
    struct mine *m = backend;
    ssize_t n = m->host->sys->pread(req->file->fd, (char *)req->buf->base + req->buf_offset,
                                    req->size, req->file_offset);
    return n < 0 ? -errno : n;
}

static const struct hf_backend_ops mine_ops = {
    .magic = HF_BACKEND_MAGIC,
    .abi_major = HF_BACKEND_ABI_MAJOR,
    .abi_minor = HF_BACKEND_ABI_MINOR,
    .struct_size = sizeof(struct hf_backend_ops),
    .name = "mybackend",
    .caps = HF_CAP_READ | HF_CAP_HOST_MEM,
    .init = mine_init,
    .fini = mine_fini,
    .probe = mine_probe,
    .score = mine_score,
    .read = mine_read,
};

HF_BACKEND_EXPORT int hf_backend_entry_v1(const struct hf_host_api *host, uint32_t *minor_inout,
                                          const struct hf_backend_ops **ops_p)
{
    (void)host;
    if (*minor_inout > HF_BACKEND_ABI_MINOR)
        *minor_inout = HF_BACKEND_ABI_MINOR;
    *ops_p = &mine_ops;
    return 0;
}
