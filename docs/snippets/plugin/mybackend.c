/* mybackend: the smallest useful backend, from plugins.rst and howto/write-a-plugin.rst. */
#include <errno.h>
#include <hipfile/plugin_kit.h>

static const struct hf_setting_decl mine_settings[] = {
    {HFP_INT_SETTING("queue_depth", 32, 1, 1024, "requests", "reads in flight")},
};

struct mine {
    const struct hf_host_api *host;
    int64_t queue_depth;
};
static struct mine mine;

static int mine_init(const struct hf_host_api *host, void **backend_p)
{
    mine.host = host;
    int rc = hfp_config_int(host, &mine_settings[0], &mine.queue_depth);
    *backend_p = &mine;
    return rc;
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
    HFP_OPS_HEADER("mybackend"), /* magic, ABI version, struct size, name */
    .caps = HF_CAP_READ,
    .init = mine_init,
    .fini = mine_fini,
    .probe = mine_probe,
    .score = mine_score,
    .read = mine_read,
    HFP_OPS_SETTINGS(mine_settings),
};

HFP_BACKEND_ENTRY(mine_ops, 5)
