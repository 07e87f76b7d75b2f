/*
 * The nvme-passthru backend's face to the core: entry point, ops table, init and teardown,
 * registration, scoring and the checks every request passes before nvme_io.c serves it. It reads
 * (and, when enabled, overwrites) file data with NVMe commands on the file's extents, skipping the
 * filesystem and block layers on the data path; anything it cannot do safely goes to the next
 * backend.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipfile/plugin_kit.h"
#include "common/request_check.h"
#include "nvme_backend.h"

/* Above the fallback's 10: a direct path that accepts a request should win it. */
#define NVME_SCORE 40

static int pools_setup(struct nvme_passthru *np)
{
    int devices = 0;
    int err = np->host->gpu->device_count(&devices);
    if (err != 0 || devices < 0) {
        nvme_log(np, HF_LOG_WARN, "cannot count GPUs (%s); staging only memory no GPU owns",
                 np->host->gpu->error_string(err));
        devices = 0;
    }
    np->pool_count = (unsigned)devices + 1;
    np->pools = calloc(np->pool_count, sizeof(*np->pools));
    if (np->pools == NULL)
        return -ENOMEM;
    for (unsigned i = 0; i < np->pool_count; i++)
        atomic_init(&np->pools[i], NULL);
    return 0;
}

static int nvme_init(const struct hf_host_api *host, void **backend_p)
{
    void *state;
    int rc = hfp_state_new(host, NVME_ABI_MINOR, sizeof(struct nvme_passthru), &state);
    if (rc != 0)
        return rc;
    struct nvme_passthru *np = state;
    np->host = host;
    np->sysfs_root = "/sys";
    np->dev_root = "/dev";
    nvme_settings_read(host, &np->set);
    np->mechanism = NVME_MECH_IOCTL;
    if (pthread_mutex_init(&np->lock, NULL) != 0 || pools_setup(np) != 0) {
        host->log(host, HF_LOG_ERROR, "out of memory for the backend state");
        free(np);
        return -ENOMEM;
    }
    *backend_p = np;
    return 0;
}

/* The core calls fini only when no request is in flight and every file is deregistered. */
static void nvme_fini(void *backend)
{
    struct nvme_passthru *np = backend;
    if (np == NULL)
        return;
    for (unsigned i = 0; i < np->pool_count; i++)
        hfp_staging_pool_destroy(atomic_load(&np->pools[i]));
    /* fini runs on whichever thread the core tears down from; each ring closes on its own. */
    for (size_t i = 0; i < np->idle_count; i++)
        nvme_queue_destroy(np->idle_queues[i]);
    nvme_namespaces_close(np);
    pthread_mutex_destroy(&np->lock);
    free(np->idle_queues);
    free(np->pools);
    free(np);
}

/*
 * Usable where the kernel shows at least one NVMe generic char device; only then is the submission
 * mechanism probed, which may make an io_uring ring (on a thread of the backend's own).
 */
static int nvme_probe(void *backend)
{
    struct nvme_passthru *np = backend;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/class/nvme-generic", np->sysfs_root);
    DIR *dir = opendir(path);
    bool found = false;
    if (dir != NULL) {
        const struct dirent *de;
        while (!found && (de = readdir(dir)) != NULL)
            found = strncmp(de->d_name, "ng", 2) == 0;
        closedir(dir);
    }
    if (!found) {
        nvme_log(np, HF_LOG_INFO, "no NVMe generic char devices (%s is empty or missing)", path);
        return -ENODEV;
    }
    nvme_mechanism_pick(np);
    nvme_log(np, HF_LOG_INFO, "%s, queue depth %u, %zu KiB staging buffers, writes %s",
             nvme_mechanism_name(np->mechanism), np->set.queue_depth, np->set.chunk_size / 1024,
             np->set.writes ? "on" : "off");
    return 0;
}

static int nvme_file_register(void *backend, const struct hf_file_info *file, void **ctx_p)
{
    struct nvme_passthru *np = backend;
    if (file == NULL || ctx_p == NULL || file->fd < 0)
        return -EINVAL;
    struct nvme_file *nf = calloc(1, sizeof(*nf));
    if (nf == NULL)
        return -ENOMEM;
    int rc = nvme_file_open(np, file, nf);
    if (rc < 0) {
        free(nf);
        return rc;
    }
    *ctx_p = nf;
    return 0;
}

static void nvme_file_deregister(void *backend, void *ctx)
{
    if (ctx == NULL)
        return;
    nvme_file_close(backend, ctx);
    free(ctx);
}

/* The kinds of memory the manifest lists: the ones the CPU or a GPU copy can reach by address. */
static bool mem_type_is_servable(int mem_type)
{
    return mem_type == HF_MEM_UNKNOWN || mem_type == HF_MEM_DEVICE ||
           mem_type == HF_MEM_HOST_PINNED || mem_type == HF_MEM_MANAGED;
}

/* The selector offers only the memory and files the manifest lists; score judges the rest. */
static int nvme_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    const struct nvme_passthru *np = backend;
    const struct nvme_file *nf = req->file_ctx;
    int score = -1;
    const char *reason;
    if (nf == NULL)
        reason = "the file is not on an NVMe namespace this backend can use";
    else if (req->op == HF_IO_WRITE && !np->set.writes)
        reason = "writes are off (nvme-passthru.writes)";
    else if (req->op == HF_IO_WRITE && !nf->ns->writable)
        reason = "the namespace is open for reading only";
    else {
        score = NVME_SCORE;
        reason = req->op == HF_IO_READ ? "NVMe Read commands on the file's extents"
                                       : "NVMe Write commands over the file's written extents";
    }
    if (reason_p != NULL)
        *reason_p = reason;
    return score;
}

/*
 * The core validates requests; these checks keep a core bug from corrupting memory. The access
 * check matters more here than elsewhere: the backend opens the device node itself, so without it
 * a read-only registration could write the file.
 */
static int request_check(struct nvme_passthru *np, const struct hf_io_request *req)
{
    const char *own = NULL;
    if (req->file == NULL || req->buf == NULL || req->file_ctx == NULL)
        own = "no file, buffer or registration";
    else if (!mem_type_is_servable(req->buf->mem_type))
        own = "memory that cannot be addressed";
    int rc = hfp_request_check(np->host, req, own);
    if (rc < 0)
        return rc;
    if (req->op == HF_IO_WRITE && !np->set.writes)
        return -ENODEV;
    return 0;
}

static ssize_t nvme_transfer(void *backend, const struct hf_io_request *req)
{
    struct nvme_passthru *np = backend;
    int rc = request_check(np, req);
    if (rc < 0)
        return rc;
    if (req->size == 0)
        return 0;
    return nvme_io_transfer(np, req->file_ctx, req);
}

static int nvme_stream_prepare(void *backend, int device)
{
    return nvme_io_stream_prepare(backend, device);
}

static const struct hf_backend_ops nvme_ops = {
    HFP_OPS_HEADER("nvme-passthru"),
    .caps = HF_CAP_READ | HF_CAP_WRITE,
    .init = nvme_init,
    .fini = nvme_fini,
    .probe = nvme_probe,
    .file_register = nvme_file_register,
    .file_deregister = nvme_file_deregister,
    .score = nvme_score,
    .transfer = nvme_transfer,
    .stream_prepare = nvme_stream_prepare,
    HFP_OPS_SETTINGS(nvme_setting_decls),
};

HFP_BACKEND_ENTRY(nvme_ops, NVME_ABI_MINOR)
