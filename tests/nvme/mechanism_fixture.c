/*
 * A backend state around a host that only logs (to standard error, for the test's output) and
 * forwards ioctl, enough for nvme_mechanism_pick.
 */
#include "mechanism_fixture.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "nvme_backend.h"

static void fixture_log(const struct hf_host_api *host, int level, const char *fmt, ...)
{
    (void)host;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nvme-passthru[%d]: ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int fixture_ioctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}

static const struct hf_sys_ops fixture_sys = {
    .struct_size = sizeof(struct hf_sys_ops),
    .ioctl = fixture_ioctl,
};

static const struct hf_host_api fixture_host = {
    .struct_size = sizeof(struct hf_host_api),
    .log = fixture_log,
    .sys = &fixture_sys,
};

int mechanism_fixture_pick(const char *dev_root, int configured, struct mechanism_outcome *out_p)
{
    struct nvme_passthru np;
    memset(&np, 0, sizeof(np));
    np.host = &fixture_host;
    np.sysfs_root = "/nonexistent";
    np.dev_root = dev_root;
    np.set.mechanism = configured;
    np.set.queue_depth = 4;
    if (pthread_mutex_init(&np.lock, NULL) != 0)
        return -ENOMEM;
    unsigned long rings_before = nvme_rings_made();
    nvme_mechanism_pick(&np);
    struct mechanism_outcome out = {
        .mechanism = np.mechanism,
        .probed = np.uring_probed,
        .probe_tid = np.uring_probe_tid,
        .rings = nvme_rings_made() - rings_before,
        .idle_queues = np.idle_count,
        .idle_queue_thread = np.idle_count > 0 ? nvme_queue_thread_id(np.idle_queues[0]) : 0,
    };
    for (size_t i = 0; i < np.idle_count; i++)
        nvme_queue_destroy(np.idle_queues[i]);
    free(np.idle_queues);
    pthread_mutex_destroy(&np.lock);
    *out_p = out;
    return 0;
}
