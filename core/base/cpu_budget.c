/* The CPU budget of the process: its affinity mask, bounded by its cgroups' CPU quotas. */
#include "base/cpu_budget.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cgroup_limit.h"

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
static uint64_t quota_cpus(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return 0;
    long long cpus = (quota + period - 1) / period;
    return cpus > 0x7fffffff ? 0 : (uint64_t)cpus;
}

/* The CPUs the quota of cgroup directory @p dir allows, 0 for none. */
static uint64_t dir_quota_cpus(const char *dir, bool v2)
{
    char file[4096 + 32];
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
    return found ? quota_cpus(quota, period) : 0;
}

unsigned hf_cpu_budget_at(unsigned affinity_cpus, const char *proc_cgroup, const char *cgroup_root)
{
    unsigned budget = affinity_cpus > 0 ? affinity_cpus : 1;
    /* v1 mounts the cpu controller alone or with cpuacct, under either name. */
    static const char *const mounts[] = {"cpu,cpuacct", "cpu", "cpuacct,cpu", NULL};
    uint64_t quota =
        hf_cgroup_smallest_limit(proc_cgroup, cgroup_root, "cpu", mounts, dir_quota_cpus);
    return quota > 0 && quota < budget ? (unsigned)quota : budget;
}

unsigned hf_cpu_affinity(void)
{
    cpu_set_t set;
    unsigned affinity = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        affinity = (unsigned)CPU_COUNT(&set);
    if (affinity == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        affinity = online > 0 ? (unsigned)online : 1;
    }
    return affinity;
}

unsigned hf_cpu_budget(void)
{
    /* Read once: the cgroup walk costs system calls, and quotas change rarely if ever. Threads
     * that race here store the same value. */
    static _Atomic unsigned budget;
    unsigned n = atomic_load_explicit(&budget, memory_order_relaxed);
    if (n == 0) {
        n = hf_cpu_budget_at(hf_cpu_affinity(), "/proc/self/cgroup", "/sys/fs/cgroup");
        atomic_store_explicit(&budget, n, memory_order_relaxed);
    }
    return n;
}
