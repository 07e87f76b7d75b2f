/*
 * Plugin trust: the loader runs code from the plugin directory with the process's privileges,
 * so the directory, the manifests and the libraries must be changeable by nobody but the process's
 * own user or root, in the manner of OpenSSH's StrictModes.
 */
#include "host/plugin_trust.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/why.h"

int hf_plugin_trust_stat(const char *path, const struct stat *st, char *why, size_t why_size)
{
    uid_t euid = geteuid();
    /* The owner can always chmod, so another owner is as bad as a writable mode. */
    if (st->st_uid != 0 && st->st_uid != euid) {
        hf_why_set(why, why_size, "%s is owned by uid %u, neither root nor this process's uid %u",
                   path, (unsigned)st->st_uid, (unsigned)euid);
        return -EPERM;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        hf_why_set(why, why_size, "%s is writable by %s (mode %04o); run chmod go-w on it", path,
                   (st->st_mode & S_IWOTH) ? "other users" : "its group",
                   (unsigned)(st->st_mode & 07777));
        return -EPERM;
    }
    return 0;
}

int hf_plugin_trust_directory(const char *dir, char *why, size_t why_size)
{
    if (dir[0] != '/') {
        hf_why_set(why, why_size,
                   "%s is a relative path; plugins are never taken from the current directory",
                   dir);
        return -EPERM;
    }
    char real[PATH_MAX];
    if (realpath(dir, real) == NULL) {
        int err = errno;
        hf_why_set(why, why_size, "%s: %s", dir, strerror(err));
        return -err;
    }
    struct stat st;
    if (stat(real, &st) != 0) {
        int err = errno;
        hf_why_set(why, why_size, "%s: %s", real, strerror(err));
        return -err;
    }
    int rc = hf_plugin_trust_stat(real, &st, why, why_size);
    if (rc < 0)
        return rc;
    /*
     * Above the directory only world-writable parents without the sticky bit are refused: they
     * let anyone rename the plugin directory away. Ownership of parents is not checked, since
     * build trees commonly sit inside checkouts that another account owns.
     */
    char parent[PATH_MAX];
    snprintf(parent, sizeof(parent), "%s", real);
    for (;;) {
        char *slash = strrchr(parent, '/');
        if (slash == NULL)
            break;
        if (slash == parent)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (stat(parent, &st) != 0) {
            int err = errno;
            hf_why_set(why, why_size, "%s: %s", parent, strerror(err));
            return -err;
        }
        if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
            hf_why_set(
                why, why_size,
                "%s, above %s, is writable by other users without the sticky bit (mode %04o)",
                parent, real, (unsigned)(st.st_mode & 07777));
            return -EPERM;
        }
        if (strcmp(parent, "/") == 0)
            break;
    }
    return 0;
}
