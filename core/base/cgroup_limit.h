/*
 * Limits the cgroups of this process set. A limit binds every cgroup below the one that sets it,
 * so each directory from the process's own cgroup up to the root of its hierarchy is read and the
 * smallest limit wins.
 */
#ifndef HF_CORE_CGROUP_LIMIT_H
#define HF_CORE_CGROUP_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

/** The limit the cgroup directory @p dir sets (v2 or v1 files as @p v2 says); 0 when none. */
typedef uint64_t (*hf_cgroup_reader)(const char *dir, bool v2);

/**
 * The smallest limit @p read finds on the process's paths that @p proc_cgroup lists (what
 * /proc/self/cgroup holds), under the cgroup file system mounted at @p cgroup_root: the unified
 * (v2) hierarchy, and the v1 hierarchy of @p controller, mounted under any of the names in
 * @p v1_mounts (NULL-terminated). 0 when no file sets one or none can be read.
 */
uint64_t hf_cgroup_smallest_limit(const char *proc_cgroup, const char *cgroup_root,
                                  const char *controller, const char *const *v1_mounts,
                                  hf_cgroup_reader read);

#endif
