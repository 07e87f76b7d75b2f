/*
 * How the backend's commands reach the kernel, settled once when the backend is probed. Asking
 * whether io_uring takes NVMe passthrough means making a ring, and a ring ties the thread that
 * makes it to kernel state (nvme_queue.c says what that costs the thread). So the question is put
 * by a queue's own thread, never the caller's, and only where a generic char device exists to send
 * commands to: on every other machine the backend makes no ring at all.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nvme_backend.h"

/* "ng<controller>n<namespace>", as the kernel names NVMe generic char devices. */
static bool is_generic_name(const char *name)
{
    if (strncmp(name, "ng", 2) != 0 || !isdigit((unsigned char)name[2]))
        return false;
    name += 2;
    while (isdigit((unsigned char)*name))
        name++;
    if (*name++ != 'n' || !isdigit((unsigned char)*name))
        return false;
    while (isdigit((unsigned char)*name))
        name++;
    return *name == '\0';
}

static bool generic_device_present(const char *dev_root)
{
    DIR *dir = opendir(dev_root);
    if (dir == NULL)
        return false;
    bool found = false;
    const struct dirent *de;
    while (!found && (de = readdir(dir)) != NULL) {
        if (!is_generic_name(de->d_name))
            continue;
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dev_root, de->d_name);
        found = stat(path, &st) == 0 && S_ISCHR(st.st_mode);
    }
    closedir(dir);
    return found;
}

void nvme_mechanism_pick(struct nvme_passthru *np)
{
    int wanted = np->set.mechanism;
    np->mechanism = NVME_MECH_IOCTL;
    if (wanted == NVME_MECH_IOCTL)
        return;
    if (!generic_device_present(np->dev_root)) {
        nvme_log(np, HF_LOG_INFO, "no NVMe generic char device in %s; io_uring not probed",
                 np->dev_root);
        return;
    }
    /* The probe is a queue of the depth requests use: it serves the first of them. */
    struct nvme_queue *queue = NULL;
    np->uring_probed = true;
    int rc = nvme_queue_create(NVME_MECH_URING, np->set.queue_depth, np->host->sys->ioctl, &queue);
    if (rc < 0) {
        nvme_log(np, wanted == NVME_MECH_URING ? HF_LOG_WARN : HF_LOG_INFO,
                 "io_uring passthrough is not available here (%s); commands go through the ioctl",
                 strerror(-rc));
        return;
    }
    np->uring_probe_tid = nvme_queue_thread_id(queue);
    np->mechanism = NVME_MECH_URING;
    nvme_queue_give(np, queue);
}
