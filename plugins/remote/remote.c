/*
 * The remote backend: objects named by URLs (HF_FILE_REMOTE), opened with hipFileRemoteOpen.
 * Registration opens the object (HEAD) and pins its size and ETag; reads are parallel ranged GETs
 * (remote_read.c), signed for s3:// objects. http(s):// objects are read-only; s3:// objects
 * opened for writing are written whole by one hipFileWrite (remote_write.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hipfile/plugin_kit.h"
#include "common/request_check.h"
#include "remote_internal.h"
#include "s3_url.h"

/* Minor 6 brought HF_FILE_REMOTE and hf_file_info.url. */
#define REMOTE_ABI_MINOR 6

static int remote_init(const struct hf_host_api *host, void **backend_p)
{
    struct remote *rb;
    int rc = hfp_state_new(host, REMOTE_ABI_MINOR, sizeof(*rb), (void **)&rb);
    if (rc != 0)
        return rc;
    rb->host = host;
    /* Thread-safe in the libcurl of Debian 12 (7.84 and later); a process calls it once. */
    if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
        host->log(host, HF_LOG_ERROR, "libcurl failed to initialise");
        free(rb);
        return -ENOMEM;
    }
    if (remote_pool_create(&rb->pool) != 0) {
        host->log(host, HF_LOG_ERROR, "out of memory for the connection pool");
        curl_global_cleanup();
        free(rb);
        return -ENOMEM;
    }
    pthread_mutex_init(&rb->staging_lock, NULL);
    *backend_p = rb;
    return 0;
}

static void remote_fini(void *backend)
{
    struct remote *rb = backend;
    for (size_t i = 0; i < sizeof(rb->staging) / sizeof(rb->staging[0]); i++)
        hfp_staging_pool_destroy(rb->staging[i]);
    remote_pool_destroy(rb->pool);
    pthread_mutex_destroy(&rb->staging_lock);
    curl_global_cleanup();
    free(rb);
}

/* Usable wherever libcurl speaks HTTP; whether a server answers is each open's business. */
static int remote_probe(void *backend)
{
    struct remote *rb = backend;
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    for (const char *const *p = v->protocols; p != NULL && *p != NULL; p++) {
        if (strcmp(*p, "http") == 0)
            return 0;
    }
    rb->host->log(rb->host, HF_LOG_INFO, "libcurl %s has no HTTP support", v->version);
    return -ENODEV;
}

static bool url_is_http(const char *url)
{
    return strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0;
}

static void object_free(struct remote_object *obj)
{
    if (obj == NULL)
        return;
    free(obj->url);
    free(obj);
}

/*
 * An s3:// object: bucket and key from the URL, region, endpoint and addressing from the options
 * left over by the remote settings (then the environment and the AWS config file), credentials
 * in the AWS SDK order, and the http(s):// URL its requests go to.
 */
static int s3_object_resolve(const struct hf_host_api *host, const char *s3_url,
                             const char *s3_options, struct remote_object *obj)
{
    char err[512];
    struct s3_location loc;
    int rc = s3_parse_url(s3_url, &loc, err, sizeof(err));
    if (rc == 0)
        rc = s3_settings_resolve(s3_options, &obj->s3_set, err, sizeof(err));
    if (rc != 0) {
        host->log(host, HF_LOG_ERROR, "%s: %s", s3_url, err);
        return rc;
    }
    rc = s3_credentials_resolve(obj->s3_set.profile_from_options ? obj->s3_set.profile : NULL,
                                &obj->cred, err, sizeof(err));
    if (rc != 0) {
        host->log(host, HF_LOG_ERROR, "%s: no usable S3 credentials: %s", s3_url, err);
        /* Nothing found is a refusal to sign, not a missing object. */
        return rc == -ENOENT ? -EACCES : rc;
    }
    char url[4096], host_header[512];
    rc = s3_request_url(&obj->s3_set, &loc, NULL, url, sizeof(url), host_header,
                        sizeof(host_header));
    if (rc != 0) {
        host->log(host, HF_LOG_ERROR, "%s: cannot build the request URL: %s", s3_url,
                  strerror(-rc));
        return rc;
    }
    obj->s3 = true;
    obj->loc = loc;
    obj->url = strdup(url);
    host->log(host, HF_LOG_DEBUG, "%s: %s, region %s, credentials from %s", s3_url, url,
              obj->s3_set.region, obj->cred.source);
    return obj->url != NULL ? 0 : -ENOMEM;
}

static int remote_file_register(void *backend, const struct hf_file_info *file, void **ctx_p)
{
    struct remote *rb = backend;
    const struct hf_host_api *host = rb->host;
    if (file->kind != HF_FILE_REMOTE || file->url == NULL)
        return -EOPNOTSUPP;
    bool http = url_is_http(file->url);
    if (http && file->remote_writable) {
        host->log(host, HF_LOG_ERROR,
                  "%s: http(s) objects are read-only; only s3:// objects can be written",
                  file->url);
        return -EROFS;
    }
    struct remote_object *obj = calloc(1, sizeof(*obj));
    if (obj == NULL)
        return -ENOMEM;
    remote_settings_read(host, &obj->set);
    obj->writable = file->remote_writable;
    char s3_options[1024];
    int rc = remote_settings_apply_options(host, file->remote_options, &obj->set,
                                           http ? NULL : s3_options, sizeof(s3_options));
    if (rc == 0 && http) {
        obj->url = strdup(file->url);
        rc = obj->url == NULL ? -ENOMEM : 0;
    } else if (rc == 0) {
        rc = s3_object_resolve(host, file->url, s3_options, obj);
    }
    if (rc == 0 && file->remote_writable)
        rc = remote_write_open(rb, obj);
    else if (rc == 0)
        rc = remote_http_head(rb, obj);
    if (rc == 0 && !file->remote_writable)
        remote_staging_prepare(rb);
    if (rc != 0) {
        object_free(obj);
        return rc;
    }
    *ctx_p = obj;
    return 0;
}

static void remote_file_deregister(void *backend, void *ctx)
{
    (void)backend;
    object_free(ctx);
}

/* A readable object's size is the Content-Length its open pinned; a written one has none yet. */
static int remote_file_size(void *backend, void *ctx, uint64_t *size_p)
{
    (void)backend;
    const struct remote_object *obj = ctx;
    if (obj == NULL || obj->writable)
        return -EOPNOTSUPP;
    *size_p = obj->size;
    return 0;
}

/* The manifest routes only remote objects here, and no other backend takes them. */
static int remote_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    (void)backend;
    if (req->file_ctx == NULL) {
        if (reason_p != NULL)
            *reason_p = "the object was not opened by this backend";
        return -1;
    }
    if (reason_p != NULL)
        *reason_p = "remote object: ranged GETs";
    return 100;
}

/* The kit's request check, plus the one thing only this backend can tell: the object is its own. */
static int remote_request_check(const struct remote *rb, const struct hf_io_request *req)
{
    return hfp_request_check(rb->host, req,
                             req->file_ctx == NULL ? "a file this backend did not open" : NULL);
}

static ssize_t remote_transfer_read(void *backend, const struct hf_io_request *req)
{
    struct remote *rb = backend;
    int rc = remote_request_check(rb, req);
    if (rc != 0)
        return rc;
    if (req->size == 0)
        return 0;
    return remote_read(rb, req);
}

static ssize_t remote_transfer_write(void *backend, const struct hf_io_request *req)
{
    struct remote *rb = backend;
    int rc = remote_request_check(rb, req);
    if (rc != 0)
        return rc;
    return remote_write(rb, req);
}

static const struct hf_backend_ops remote_ops = {
    HFP_OPS_HEADER("remote"),
    .caps = HF_CAP_READ | HF_CAP_WRITE,
    .init = remote_init,
    .fini = remote_fini,
    .probe = remote_probe,
    .file_register = remote_file_register,
    .file_deregister = remote_file_deregister,
    .file_size = remote_file_size,
    .score = remote_score,
    .read = remote_transfer_read,
    .write = remote_transfer_write,
    HFP_OPS_SETTINGS(remote_setting_decls),
};

HFP_BACKEND_ENTRY(remote_ops, REMOTE_ABI_MINOR)
