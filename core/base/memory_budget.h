/*
 * How much memory this process may actually use: the machine's physical memory, bounded by the
 * memory limit of its cgroup (v2 memory.max, or v1 memory.limit_in_bytes), which a container or a
 * systemd unit sets while the machine still reports all its memory.
 */
#ifndef HF_CORE_MEMORY_BUDGET_H
#define HF_CORE_MEMORY_BUDGET_H

#include <stdint.h>

/** Bytes this process may use, at least one page: hf_memory_budget_at on the live system, read
 * once. */
uint64_t hf_memory_budget(void);

/** The machine's physical memory in bytes, 0 when it cannot be read. */
uint64_t hf_physical_memory(void);

/**
 * The bytes a process may use given @p physical bytes of memory, the file @p proc_cgroup (what
 * /proc/self/cgroup holds) and the cgroup file system mounted at @p cgroup_root
 * (/sys/fs/cgroup): the smallest memory limit on the process's cgroup path when below
 * @p physical. Files missing or malformed bound nothing. For tests.
 */
uint64_t hf_memory_budget_at(uint64_t physical, const char *proc_cgroup, const char *cgroup_root);

#endif
