/*
 * The remote backend's settings: the declaration of its config group's keys, reading them, and
 * per-object overrides from hipFileRemoteOpen's options string, which name the same keys and obey
 * the same ranges, so a setting is documented and checked once whichever way it is given.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipfile/plugin_kit.h"
#include "common/plugin_settings.h"
#include "remote_internal.h"

/*
 * 8 MiB pieces and 8 connections: on loopback, fewer or smaller pieces leave curl waiting on
 * request round trips, and a piece of a few MiB is what one staging buffer copies to the GPU at
 * once (docs/performance.rst has the measurement).
 */
#define PIECE_KIB_DEFAULT 8192
#define PIECE_KIB_MAX (1024 * 1024)
#define CONNECTIONS_DEFAULT 8
#define CONNECTIONS_MAX 256
/* Four retries 100 ms apart, doubling: 1.5 s in all, long enough for a throttled S3 prefix. */
#define RETRIES_DEFAULT 4
#define BACKOFF_MS_DEFAULT 100

/*
 * S3 takes parts of 5 MiB to 5 GiB (the last may be smaller). 16 MiB parts above a 32 MiB
 * threshold: large enough that a part's request costs little next to its transfer, small enough
 * that a checkpoint of a few hundred MiB still uploads on several connections at once.
 */
#define PART_KIB_MIN (5 * 1024)
#define PART_KIB_MAX (5 * 1024 * 1024)
#define PART_KIB_DEFAULT (16 * 1024)
#define MULTIPART_THRESHOLD_KIB_DEFAULT (32 * 1024)

const struct hf_setting_decl remote_setting_decls[REMOTE_SETTING_COUNT] = {
    [REMOTE_SET_PIECE_SIZE] = {HFP_INT_SETTING("piece_size_kb", PIECE_KIB_DEFAULT, 4, PIECE_KIB_MAX,
                                               "KiB", "bytes per ranged GET of a read"),
                               .multiple = 4},
    [REMOTE_SET_CONNECTIONS] = {HFP_INT_SETTING("connections", CONNECTIONS_DEFAULT, 1,
                                                CONNECTIONS_MAX, "connections",
                                                "ranged GETs in flight for one read")},
    [REMOTE_SET_RETRIES] = {HFP_INT_SETTING("retries", RETRIES_DEFAULT, 0, 100, "retries",
                                            "further attempts after a 5xx, 429 or broken "
                                            "connection")},
    [REMOTE_SET_BACKOFF_BASE] = {HFP_INT_SETTING(
        "backoff_base_ms", BACKOFF_MS_DEFAULT, 0, 60000, "ms",
        "wait before the first retry; doubles each retry")},
    [REMOTE_SET_CONNECT_TIMEOUT] = {HFP_INT_SETTING("connect_timeout_ms", 10000, 1, 600000, "ms",
                                                    "limit on connecting to the server")},
    [REMOTE_SET_STALL_TIMEOUT] = {HFP_INT_SETTING("stall_timeout_s", 30, 1, 3600, "s",
                                                  "a transfer that receives nothing this long "
                                                  "fails")},
    [REMOTE_SET_REQUEST_TIMEOUT] = {HFP_INT_SETTING("request_timeout_ms", 0, 0, 86400000, "ms",
                                                    "limit on one HTTP request; 0 = none")},
    [REMOTE_SET_TLS_VERIFY] = {HFP_BOOL_SETTING("tls_verify", true,
                                                "verify the server's TLS certificate and name")},
    [REMOTE_SET_BOUNCE_HOST_ACCESSIBLE] = {HFP_BOOL_SETTING(
        "bounce_host_accessible", false, "stage device memory even when the CPU can address it")},
    [REMOTE_SET_MULTIPART_THRESHOLD] = {HFP_INT_SETTING(
        "multipart_threshold_kb", MULTIPART_THRESHOLD_KIB_DEFAULT, 0, PART_KIB_MAX, "KiB",
        "larger S3 writes are multipart uploads")},
    [REMOTE_SET_PART_SIZE] = {HFP_INT_SETTING("part_size_kb", PART_KIB_DEFAULT, PART_KIB_MIN,
                                              PART_KIB_MAX, "KiB",
                                              "bytes per part of an S3 multipart upload")},
};

static void settings_set(struct remote_settings *s, enum remote_setting key, int64_t v)
{
    switch (key) {
    case REMOTE_SET_PIECE_SIZE:
        s->piece_size = (uint64_t)v * 1024;
        break;
    case REMOTE_SET_CONNECTIONS:
        s->connections = (unsigned)v;
        break;
    case REMOTE_SET_RETRIES:
        s->retries = (unsigned)v;
        break;
    case REMOTE_SET_BACKOFF_BASE:
        s->backoff_base_ms = (unsigned)v;
        break;
    case REMOTE_SET_CONNECT_TIMEOUT:
        s->connect_timeout_ms = (long)v;
        break;
    case REMOTE_SET_STALL_TIMEOUT:
        s->stall_timeout_s = (long)v;
        break;
    case REMOTE_SET_REQUEST_TIMEOUT:
        s->request_timeout_ms = (long)v;
        break;
    case REMOTE_SET_TLS_VERIFY:
        s->tls_verify = v != 0;
        break;
    case REMOTE_SET_BOUNCE_HOST_ACCESSIBLE:
        s->bounce_host_accessible = v != 0;
        break;
    case REMOTE_SET_MULTIPART_THRESHOLD:
        s->multipart_threshold = (uint64_t)v * 1024;
        break;
    case REMOTE_SET_PART_SIZE:
        s->part_size = (uint64_t)v * 1024;
        break;
    case REMOTE_SETTING_COUNT:
        break;
    }
}

void remote_settings_read(const struct hf_host_api *host, struct remote_settings *s)
{
    for (int k = 0; k < REMOTE_SETTING_COUNT; k++) {
        const struct hf_setting_decl *d = &remote_setting_decls[k];
        int64_t v = d->type == HF_DECL_BOOL ? hfp_setting_bool(host, d) : hfp_setting_int(host, d);
        settings_set(s, (enum remote_setting)k, v);
    }
}

/* Parse @p text as the value of @p d; 0 or -EINVAL with the reason in *why_p. */
static int option_value(const struct hf_setting_decl *d, const char *text, int64_t *v_p,
                        const char **why_p)
{
    if (d->type == HF_DECL_BOOL) {
        if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0) {
            *v_p = 1;
            return 0;
        }
        if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0) {
            *v_p = 0;
            return 0;
        }
        *why_p = "is not true or false";
        return -EINVAL;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0') {
        *why_p = "is not an integer";
        return -EINVAL;
    }
    if (v < d->min || v > d->max) {
        *why_p = "is out of range";
        return -EINVAL;
    }
    if (d->multiple != 0 && v % d->multiple != 0) {
        *why_p = "is not a multiple of the setting's step";
        return -EINVAL;
    }
    *v_p = v;
    return 0;
}

static int option_apply(const struct hf_host_api *host, const char *pair, size_t len,
                        struct remote_settings *s, char *rest, size_t rest_size)
{
    char text[256];
    if (len >= sizeof(text)) {
        host->log(host, HF_LOG_ERROR, "open option \"%.40s...\" is too long", pair);
        return -EINVAL;
    }
    memcpy(text, pair, len);
    text[len] = '\0';
    char *eq = strchr(text, '=');
    if (eq == NULL) {
        host->log(host, HF_LOG_ERROR, "open option \"%s\" is not key=value", text);
        return -EINVAL;
    }
    *eq = '\0';
    for (int k = 0; k < REMOTE_SETTING_COUNT; k++) {
        const struct hf_setting_decl *d = &remote_setting_decls[k];
        if (strcmp(d->key, text) != 0)
            continue;
        int64_t v = 0;
        const char *why = NULL;
        if (option_value(d, eq + 1, &v, &why) != 0) {
            host->log(host, HF_LOG_ERROR,
                      "open option %s=%s %s (%" PRId64 " to %" PRId64 "%s%s, docs: remote "
                      "settings)",
                      text, eq + 1, why, d->min, d->max, d->unit ? " " : "",
                      d->unit ? d->unit : "");
            return -EINVAL;
        }
        settings_set(s, (enum remote_setting)k, v);
        return 0;
    }
    if (rest == NULL) {
        host->log(host, HF_LOG_ERROR, "open option \"%s\" is not a remote setting", text);
        return -EINVAL;
    }
    *eq = '=';
    size_t used = strlen(rest);
    if (used + len + 2 > rest_size) {
        host->log(host, HF_LOG_ERROR, "open options are too long");
        return -EINVAL;
    }
    snprintf(rest + used, rest_size - used, "%s%s", used > 0 ? ";" : "", text);
    return 0;
}

int remote_settings_apply_options(const struct hf_host_api *host, const char *options,
                                  struct remote_settings *s, char *rest, size_t rest_size)
{
    if (rest != NULL && rest_size > 0)
        rest[0] = '\0';
    if (options == NULL)
        return 0;
    const char *p = options;
    while (*p != '\0') {
        size_t len = strcspn(p, ";");
        if (len > 0) {
            int rc = option_apply(host, p, len, s, rest, rest_size);
            if (rc != 0)
                return rc;
        }
        p += len;
        if (*p == ';')
            p++;
    }
    return 0;
}
