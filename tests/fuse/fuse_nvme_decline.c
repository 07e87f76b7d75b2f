/*
 * The nvme-passthru backend's registration check run on one file's recorded facts, outside a
 * loaded plugin: the backend loads only where the kernel shows NVMe generic devices, but its
 * verdict on a file does not depend on that.
 */
#include "fuse_nvme_decline.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "nvme_backend.h"

static char last_line[512];

static void capture_log(const struct hf_host_api *host, int level, const char *fmt, ...)
{
    (void)host;
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_line, sizeof(last_line), fmt, ap);
    va_end(ap);
}

int fuse_nvme_decline(const struct hf_file_info *file, char *line, size_t line_size)
{
    struct hf_host_api host = {
        .struct_size = sizeof(host),
        .abi_minor = HF_BACKEND_ABI_MINOR,
        .log = capture_log,
    };
    struct nvme_passthru *np = calloc(1, sizeof(*np));
    if (np == NULL)
        return -12;
    np->host = &host;
    np->sysfs_root = "/sys";
    np->dev_root = "/dev";
    pthread_mutex_init(&np->lock, NULL);
    last_line[0] = '\0';
    struct nvme_file nf;
    int rc = nvme_file_open(np, file, &nf);
    if (rc == 0)
        nvme_file_close(np, &nf);
    snprintf(line, line_size, "%s", last_line);
    pthread_mutex_destroy(&np->lock);
    free(np);
    return rc;
}
