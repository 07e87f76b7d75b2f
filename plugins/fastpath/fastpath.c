/*
 * The fastpath backend's face to the core: entry point, ops table, init and teardown, and the one
 * rule that picks an engine for a request (AIS, then GDS, then coherent memory), used alike by
 * score() and by the data path so that what hipfile-check explains is what runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/align.h"
#include "hipfile/plugin_kit.h"
#include "common/request_check.h"
#include "fastpath_internal.h"

/*
 * One line per GPU that no engine can serve, naming each engine's reason: the text score() gives
 * for that GPU's memory, so hipfile-check --explain says exactly what is missing.
 */
static int no_engine_texts_build(struct fastpath *fp)
{
    for (int d = 0; d < fp->device_count; d++) {
        if (fp->ais_absent == NULL || fp->gds_absent == NULL || fp->coherent[d])
            continue;
        const char *coherent_why =
            fp->set.coherent ? "the CPU cannot address this GPU's memory (the runtime reports "
                               "neither an integrated GPU nor a coherent host link)"
                             : "off (fastpath.coherent = false)";
        char text[512];
        int n = snprintf(text, sizeof(text), "no engine for GPU %d: AIS: %s; GDS: %s; coherent: %s",
                         d, fp->ais_absent, fp->gds_absent, coherent_why);
        if (n < 0)
            return -EINVAL;
        fp->no_engine[d] = strdup(text);
        if (fp->no_engine[d] == NULL)
            return -ENOMEM;
    }
    return 0;
}

static void fastpath_fini(void *backend)
{
    struct fastpath *fp = backend;
    if (fp == NULL)
        return;
    fastpath_gds_teardown(fp);
    for (int d = 0; d < FASTPATH_MAX_DEVICES; d++)
        free(fp->no_engine[d]);
    free(fp);
}

static int fastpath_init(const struct hf_host_api *host, void **backend_p)
{
    void *state;
    int rc = hfp_state_new(host, FASTPATH_ABI_MINOR, sizeof(struct fastpath), &state);
    if (rc != 0)
        return rc;
    struct fastpath *fp = state;
    fp->host = host;
    fastpath_settings_read(host, &fp->set);
    int devices = 0;
    int err = host->gpu->device_count(&devices);
    if (err != 0 || devices < 0) {
        host->log(host, HF_LOG_WARN, "cannot count GPUs (%s); no engine can serve",
                  host->gpu->error_string(err));
        devices = 0;
    }
    if (devices > FASTPATH_MAX_DEVICES) {
        host->log(host, HF_LOG_WARN, "%d GPUs; only the first %d are served", devices,
                  FASTPATH_MAX_DEVICES);
        devices = FASTPATH_MAX_DEVICES;
    }
    fp->device_count = devices;
    for (int d = 0; d < FASTPATH_MAX_DEVICES; d++) {
        atomic_init(&fp->ais_off[d], NULL);
        atomic_init(&fp->coherent_off[d], NULL);
    }
    fastpath_ais_setup(fp);
    fastpath_gds_setup(fp);
    fastpath_coherent_setup(fp);
    rc = no_engine_texts_build(fp);
    if (rc < 0) {
        host->log(host, HF_LOG_ERROR, "out of memory for the backend state");
        fastpath_fini(fp);
        return rc;
    }
    for (int d = 0; d < devices; d++) {
        if (fp->no_engine[d] != NULL)
            host->log(host, HF_LOG_INFO, "%s", fp->no_engine[d]);
        else
            host->log(host, HF_LOG_INFO, "GPU %d: AIS %s, GDS %s, coherent memory %s", d,
                      fp->ais_absent == NULL ? "available" : "absent",
                      fp->gds_absent == NULL ? "available" : "absent",
                      fp->coherent[d] ? "available" : "absent");
    }
    *backend_p = fp;
    return 0;
}

/*
 * The backend stays loaded even where no engine can serve: each request is then declined with the
 * reason (hipfile-check --explain shows it), which says more than one load-time log line.
 */
static int fastpath_probe(void *backend)
{
    (void)backend;
    return 0;
}

static int fastpath_file_register(void *backend, const struct hf_file_info *file, void **ctx_p)
{
    return fastpath_gds_file_register(backend, file, ctx_p);
}

static void fastpath_file_deregister(void *backend, void *ctx)
{
    fastpath_gds_file_deregister(backend, ctx);
}

static const int engine_scores[FASTPATH_ENGINE_COUNT] = {
    [FASTPATH_ENGINE_AIS] = FASTPATH_SCORE_AIS,
    [FASTPATH_ENGINE_GDS] = FASTPATH_SCORE_GDS,
    [FASTPATH_ENGINE_COHERENT] = FASTPATH_SCORE_COHERENT,
};

static const char *const engine_offers[FASTPATH_ENGINE_COUNT] = {
    [FASTPATH_ENGINE_AIS] = "AMD AIS: storage DMA straight into GPU memory",
    [FASTPATH_ENGINE_GDS] = "NVIDIA GDS: storage DMA straight into GPU memory through cuFile",
    /* One string split over two lines; the parentheses say so to clang -Wstring-concatenation. */
    [FASTPATH_ENGINE_COHERENT] = ("coherent memory: page cache or O_DIRECT straight into "
                                  "CPU-addressable GPU memory, no bounce buffer"),
};

/* Whether engine @p e exists for the buffer's GPU at all (settings, runtime, earlier failures). */
static bool engine_present(const struct fastpath *fp, int e, int device)
{
    switch (e) {
    case FASTPATH_ENGINE_AIS:
        return fp->ais_absent == NULL && atomic_load(&fp->ais_off[device]) == NULL;
    case FASTPATH_ENGINE_GDS:
        return fp->gds_absent == NULL;
    default:
        return fp->coherent[device] && atomic_load(&fp->coherent_off[device]) == NULL;
    }
}

static const char *engine_refusal(const struct fastpath *fp, int e, const struct hf_io_request *req)
{
    switch (e) {
    case FASTPATH_ENGINE_AIS:
        return fastpath_ais_refusal(fp, req);
    case FASTPATH_ENGINE_GDS:
        return fastpath_gds_refusal(fp, req);
    default:
        return fastpath_coherent_refusal(fp, req);
    }
}

/* Why an engine that served this GPU before no longer does, for the decline text. */
static const char *engine_off_reason(const struct fastpath *fp, int device)
{
    const char *why = atomic_load(&fp->ais_off[device]);
    if (why == NULL)
        why = atomic_load(&fp->coherent_off[device]);
    return why;
}

/*
 * The engine that serves @p req (its index), or -1 with *reason_p saying why none can: the
 * refusal of the first engine present for the buffer's GPU, which names what the request lacks.
 */
static int engine_pick(const struct fastpath *fp, const struct hf_io_request *req,
                       const char **reason_p)
{
    const struct hf_buf_info *buf = req->buf;
    if (buf == NULL || buf->device < 0 || buf->device >= fp->device_count) {
        *reason_p = "memory of no GPU the runtime reported at start";
        return -1;
    }
    if (req->file == NULL || req->file->direct_fd < 0) {
        *reason_p = "the file has no O_DIRECT descriptor (its filesystem refuses O_DIRECT)";
        return -1;
    }
    const char *first_refusal = NULL;
    for (int e = 0; e < FASTPATH_ENGINE_COUNT; e++) {
        if (!engine_present(fp, e, buf->device))
            continue;
        const char *refusal = engine_refusal(fp, e, req);
        if (refusal == NULL) {
            *reason_p = engine_offers[e];
            return e;
        }
        if (first_refusal == NULL)
            first_refusal = refusal;
    }
    if (first_refusal == NULL)
        first_refusal = engine_off_reason(fp, buf->device);
    if (first_refusal == NULL)
        first_refusal = fp->no_engine[buf->device];
    *reason_p = first_refusal != NULL ? first_refusal : "no engine serves this GPU";
    return -1;
}

static int fastpath_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    const char *reason = NULL;
    int e = engine_pick(backend, req, &reason);
    if (reason_p != NULL)
        *reason_p = reason;
    return e < 0 ? -1 : engine_scores[e];
}

/*
 * The core validates requests before they get here, and offers only the device memory the manifest
 * lists; these checks keep a core bug or a direct caller from turning into memory corruption or a
 * DMA to the wrong place.
 */
static int request_check(struct fastpath *fp, const struct hf_io_request *req)
{
    const char *own = NULL;
    if (req->file == NULL || req->file->fd < 0 || req->buf == NULL)
        own = "no file descriptor or no buffer";
    else if (req->buf->mem_type != HF_MEM_DEVICE)
        own = "not device memory";
    return hfp_request_check(fp->host, req, own);
}

static ssize_t fastpath_transfer(void *backend, const struct hf_io_request *req)
{
    struct fastpath *fp = backend;
    int rc = request_check(fp, req);
    if (rc < 0)
        return rc;
    if (req->size == 0)
        return 0;
    const char *reason = NULL;
    int e = engine_pick(fp, req, &reason);
    if (e < 0) {
        /* Declined between score() and now (an engine switched itself off): let the next try. */
        fastpath_log(fp, HF_LOG_DEBUG, "declining a request of %zu bytes: %s", req->size, reason);
        return -ENODEV;
    }
    switch (e) {
    case FASTPATH_ENGINE_AIS:
        return fastpath_ais_transfer(fp, req);
    case FASTPATH_ENGINE_GDS:
        return fastpath_gds_transfer(fp, req);
    default:
        return fastpath_coherent_transfer(fp, req);
    }
}

static const struct hf_backend_ops fastpath_ops = {
    HFP_OPS_HEADER("fastpath"),
    .caps = HF_CAP_READ | HF_CAP_WRITE | HF_CAP_DIRECT,
    .init = fastpath_init,
    .fini = fastpath_fini,
    .probe = fastpath_probe,
    .file_register = fastpath_file_register,
    .file_deregister = fastpath_file_deregister,
    .score = fastpath_score,
    .transfer = fastpath_transfer,
    HFP_OPS_SETTINGS(fastpath_setting_decls),
};

HFP_BACKEND_ENTRY(fastpath_ops, FASTPATH_ABI_MINOR)
