/*
 * How many CPUs this process may actually use: its affinity mask, bounded by the CPU quota of
 * its cgroup (v2 cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us), which a container or a
 * systemd unit sets while the machine still reports all its CPUs as online.
 */
#ifndef HF_CORE_CPU_BUDGET_H
#define HF_CORE_CPU_BUDGET_H

/** CPUs this process may use, at least 1: hf_cpu_budget_at on the live system, read once. */
unsigned hf_cpu_budget(void);

/** CPUs in this process's affinity mask (the CPUs online where the mask cannot be read). */
unsigned hf_cpu_affinity(void);

/**
 * The CPUs a process may use given @p affinity_cpus CPUs in its affinity mask, the file
 * @p proc_cgroup (what /proc/self/cgroup holds) and the cgroup file system mounted at
 * @p cgroup_root (/sys/fs/cgroup): the smallest quota on the process's cgroup path, rounded up,
 * when below @p affinity_cpus. Files missing or malformed bound nothing. For tests.
 */
unsigned hf_cpu_budget_at(unsigned affinity_cpus, const char *proc_cgroup, const char *cgroup_root);

#endif
