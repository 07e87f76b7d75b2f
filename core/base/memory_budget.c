/* The memory budget of the process: physical memory, bounded by its cgroups' memory limits. */
#include "base/memory_budget.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cgroup_limit.h"

/* Smallest budget reported, so that callers dividing it never reach zero. */
#define BUDGET_MIN ((uint64_t)4096)

/* The limit memory.max (v2) or memory.limit_in_bytes (v1) of @p dir sets, 0 for none. */
static uint64_t dir_memory_limit(const char *dir, bool v2)
{
    char file[4096 + 32];
    snprintf(file, sizeof(file), "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
    FILE *f = fopen(file, "re");
    if (f == NULL)
        return 0;
    char word[32];
    uint64_t limit = 0;
    /* "max" (v2) and v1's largest page count, which is how v1 says none, both bound nothing. */
    if (fscanf(f, "%31s", word) == 1 && strcmp(word, "max") != 0 &&
        sscanf(word, "%" SCNu64, &limit) != 1)
        limit = 0;
    fclose(f);
    return limit;
}

uint64_t hf_memory_budget_at(uint64_t physical, const char *proc_cgroup, const char *cgroup_root)
{
    /* Physical memory unknown: only a cgroup bounds the budget. */
    uint64_t budget = physical == 0 ? UINT64_MAX : physical > BUDGET_MIN ? physical : BUDGET_MIN;
    static const char *const mounts[] = {"memory", NULL};
    uint64_t limit =
        hf_cgroup_smallest_limit(proc_cgroup, cgroup_root, "memory", mounts, dir_memory_limit);
    if (limit > 0 && limit < budget)
        budget = limit > BUDGET_MIN ? limit : BUDGET_MIN;
    return budget;
}

uint64_t hf_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

uint64_t hf_memory_budget(void)
{
    /* Read once, as the CPU budget is. */
    static _Atomic uint64_t budget;
    uint64_t bytes = atomic_load_explicit(&budget, memory_order_relaxed);
    if (bytes == 0) {
        bytes = hf_memory_budget_at(hf_physical_memory(), "/proc/self/cgroup", "/sys/fs/cgroup");
        atomic_store_explicit(&budget, bytes, memory_order_relaxed);
    }
    return bytes;
}
