/*
 * The CPU budget of the process. A quota binds every cgroup below the one that sets it, so each
 * directory from the process's own cgroup up to the root is read and the smallest quota wins.
 */
#include "base/cpu_budget.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A cgroup path of /proc/self/cgroup fits in this; a longer one bounds nothing. */
#define PATH_MAX_LEN 4096

/* Two integers from a small file: "max 100000" gives *quota -1. False when unreadable. */
static bool read_pair(const char *path, long long *quota, long long *period, bool v2)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    char word[32];
    bool ok;
    if (v2) {
        ok = fscanf(f, "%31s %lld", word, period) == 2;
        if (ok && strcmp(word, "max") == 0)
            *quota = -1;
        else if (ok)
            ok = sscanf(word, "%lld", quota) == 1;
    } else {
        ok = fscanf(f, "%lld", quota) == 1;
    }
    fclose(f);
    return ok;
}

/* CPUs the quota of @p quota over @p period allows, rounded up; 0 for no quota. */
static unsigned quota_cpus(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return 0;
    long long cpus = (quota + period - 1) / period;
    return cpus > 0x7fffffff ? 0 : (unsigned)cpus;
}

/* The smallest quota on the path from @p dir up to @p root (inclusive), 0 for none. */
static unsigned smallest_quota(const char *root, const char *cgroup, bool v2)
{
    char dir[PATH_MAX_LEN];
    if (snprintf(dir, sizeof(dir), "%s%s", root, cgroup) >= (int)sizeof(dir))
        return 0;
    size_t root_len = strlen(root);
    unsigned best = 0;
    for (;;) {
        char file[PATH_MAX_LEN + 32];
        long long quota = -1, period = 0;
        bool found;
        if (v2) {
            snprintf(file, sizeof(file), "%s/cpu.max", dir);
            found = read_pair(file, &quota, &period, true);
        } else {
            snprintf(file, sizeof(file), "%s/cpu.cfs_quota_us", dir);
            found = read_pair(file, &quota, &period, false);
            if (found) {
                long long unused;
                snprintf(file, sizeof(file), "%s/cpu.cfs_period_us", dir);
                found = read_pair(file, &period, &unused, false);
            }
        }
        unsigned cpus = found ? quota_cpus(quota, period) : 0;
        if (cpus > 0 && (best == 0 || cpus < best))
            best = cpus;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < root_len)
            break;
        *slash = '\0';
    }
    return best;
}

unsigned hf_cpu_budget_at(unsigned affinity_cpus, const char *proc_cgroup, const char *cgroup_root)
{
    unsigned budget = affinity_cpus > 0 ? affinity_cpus : 1;
    FILE *f = fopen(proc_cgroup, "re");
    if (f == NULL)
        return budget;
    char line[PATH_MAX_LEN + 128];
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        /* hierarchy-ID:controllers:path; v2 is "0::/path". */
        char *first = strchr(line, ':');
        char *second = first != NULL ? strchr(first + 1, ':') : NULL;
        if (second == NULL || second[1] != '/')
            continue;
        *second = '\0';
        const char *controllers = first + 1;
        const char *path = second + 1;
        unsigned quota = 0;
        if (controllers[0] == '\0') {
            quota = smallest_quota(cgroup_root, strcmp(path, "/") == 0 ? "" : path, true);
        } else {
            bool cpu = false;
            char list[256];
            snprintf(list, sizeof(list), "%s", controllers);
            for (char *save = NULL, *c = strtok_r(list, ",", &save); c != NULL;
                 c = strtok_r(NULL, ",", &save))
                cpu = cpu || strcmp(c, "cpu") == 0;
            if (!cpu)
                continue;
            /* v1 mounts the cpu controller alone or with cpuacct, under either name. */
            static const char *const mounts[] = {"cpu,cpuacct", "cpu", "cpuacct,cpu"};
            for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]) && quota == 0; i++) {
                char root[PATH_MAX_LEN];
                if (snprintf(root, sizeof(root), "%s/%s", cgroup_root, mounts[i]) <
                    (int)sizeof(root))
                    quota = smallest_quota(root, strcmp(path, "/") == 0 ? "" : path, false);
            }
        }
        if (quota > 0 && quota < budget)
            budget = quota;
    }
    fclose(f);
    return budget;
}

unsigned hf_cpu_budget(void)
{
    cpu_set_t set;
    unsigned affinity = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        affinity = (unsigned)CPU_COUNT(&set);
    if (affinity == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        affinity = online > 0 ? (unsigned)online : 1;
    }
    return hf_cpu_budget_at(affinity, "/proc/self/cgroup", "/sys/fs/cgroup");
}
