// The process's budgets, each bounded by the smallest cgroup limit on its path; files that are
// missing or malformed bound nothing. CPUs: the affinity mask and the CPU quota (v2 cpu.max, v1
// cpu.cfs_quota_us over cpu.cfs_period_us), rounded up. Memory: physical memory and the memory
// limit (v2 memory.max, v1 memory.limit_in_bytes).
#include <gtest/gtest.h>

extern "C" {
#include "base/cpu_budget.h"
#include "base/memory_budget.h"
}

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace
{

class CgroupTree : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/hf-cgroup-budget-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        root_ = tmpl;
    }
    void TearDown() override
    {
        std::string cmd = "rm -rf '" + root_ + "'";
        ASSERT_EQ(system(cmd.c_str()), 0);
    }
    // Writes @p text to @p rel under the temporary root, making its directories.
    void Write(const std::string &rel, const std::string &text)
    {
        std::string path = root_ + "/" + rel;
        for (size_t at = path.find('/', root_.size() + 1); at != std::string::npos;
             at = path.find('/', at + 1))
            mkdir(path.substr(0, at).c_str(), 0755);
        FILE *f = fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr) << path;
        fputs(text.c_str(), f);
        fclose(f);
    }
    std::string root_;
};

class CpuBudget : public CgroupTree
{
  protected:
    unsigned Budget(unsigned affinity)
    {
        return hf_cpu_budget_at(affinity, (root_ + "/proc-cgroup").c_str(),
                                (root_ + "/cg").c_str());
    }
};

class MemoryBudget : public CgroupTree
{
  protected:
    uint64_t Budget(uint64_t physical)
    {
        return hf_memory_budget_at(physical, (root_ + "/proc-cgroup").c_str(),
                                   (root_ + "/cg").c_str());
    }
};

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST_F(CpuBudget, V2QuotaRoundsUpAndTheSmallestOnThePathWins)
{
    Write("proc-cgroup", "0::/kubepods/pod1/ctr\n");
    Write("cg/cpu.max", "max 100000\n");
    Write("cg/kubepods/cpu.max", "800000 100000\n");
    Write("cg/kubepods/pod1/cpu.max", "250000 100000\n");
    Write("cg/kubepods/pod1/ctr/cpu.max", "max 100000\n");
    EXPECT_EQ(Budget(64), 3u); // 2.5 CPUs of quota: 3 may run at once
    EXPECT_EQ(Budget(2), 2u);  // the affinity mask is smaller still
}

TEST_F(CpuBudget, V2WithoutQuotaIsTheAffinity)
{
    Write("proc-cgroup", "0::/user.slice\n");
    Write("cg/user.slice/cpu.max", "max 100000\n");
    EXPECT_EQ(Budget(16), 16u);
    Write("proc-cgroup", "0::/\n");
    EXPECT_EQ(Budget(16), 16u);
}

TEST_F(CpuBudget, V2QuotaAtTheNamespaceRoot)
{
    // Inside a container's cgroup namespace the process sits at "/" and the limit is the root's.
    Write("proc-cgroup", "0::/\n");
    Write("cg/cpu.max", "400000 100000\n");
    EXPECT_EQ(Budget(96), 4u);
}

TEST_F(CpuBudget, V1CpuControllerUnderEitherMountName)
{
    Write("proc-cgroup", "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/x\n");
    Write("cg/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "150000\n");
    Write("cg/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(Budget(32), 2u);
    // Unlimited (-1) there, limited higher up.
    Write("cg/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    Write("cg/cpu,cpuacct/docker/cpu.cfs_quota_us", "600000\n");
    Write("cg/cpu,cpuacct/docker/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(Budget(32), 6u);
}

TEST_F(CpuBudget, MissingOrMalformedFilesBoundNothing)
{
    EXPECT_EQ(Budget(8), 8u); // no /proc/self/cgroup at all
    Write("proc-cgroup", "garbage\n0::relative\n0::/a\n");
    Write("cg/a/cpu.max", "lots 100000\n");
    EXPECT_EQ(Budget(8), 8u);
    Write("cg/a/cpu.max", "0 100000\n");
    EXPECT_EQ(Budget(8), 8u);
    EXPECT_EQ(Budget(0), 1u); // never less than one
}

TEST_F(CpuBudget, LiveSystemGivesAtLeastOneAndNoMoreThanOnline)
{
    unsigned cpus = hf_cpu_budget();
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    EXPECT_GE(cpus, 1u);
    EXPECT_LE(static_cast<long>(cpus), online > 0 ? online : 1);
}

TEST_F(MemoryBudget, V2TheSmallestLimitOnThePathWins)
{
    Write("proc-cgroup", "0::/kubepods/pod1/ctr\n");
    Write("cg/kubepods/memory.max", "68719476736\n"); // 64 GiB for all pods
    Write("cg/kubepods/pod1/memory.max", "4294967296\n");
    Write("cg/kubepods/pod1/ctr/memory.max", "max\n");
    EXPECT_EQ(Budget(256 * kGiB), 4 * kGiB);
    EXPECT_EQ(Budget(2 * kGiB), 2 * kGiB); // the machine has less than the limit
}

TEST_F(MemoryBudget, V2WithoutLimitIsPhysicalMemory)
{
    Write("proc-cgroup", "0::/user.slice/user-0.slice\n");
    Write("cg/user.slice/memory.max", "max\n");
    EXPECT_EQ(Budget(24 * kGiB), 24 * kGiB);
    // Inside a container's cgroup namespace the process sits at "/" and the root has the limit.
    Write("proc-cgroup", "0::/\n");
    Write("cg/memory.max", "1073741824\n");
    EXPECT_EQ(Budget(24 * kGiB), kGiB);
}

TEST_F(MemoryBudget, V1LimitAndItsUnlimitedValue)
{
    Write("proc-cgroup", "4:cpu,cpuacct:/docker/abc\n9:memory:/docker/abc\n");
    Write("cg/memory/docker/abc/memory.limit_in_bytes", "536870912\n");
    EXPECT_EQ(Budget(64 * kGiB), kGiB / 2);
    // v1 says "no limit" with its largest page count, which is more than any machine has.
    Write("cg/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
    EXPECT_EQ(Budget(64 * kGiB), 64 * kGiB);
    // A memory limit in the cpu hierarchy's files is not the memory controller's.
    Write("proc-cgroup", "4:cpu,cpuacct:/docker/abc\n");
    Write("cg/cpu,cpuacct/docker/abc/memory.limit_in_bytes", "1048576\n");
    EXPECT_EQ(Budget(64 * kGiB), 64 * kGiB);
}

TEST_F(MemoryBudget, MissingOrMalformedFilesBoundNothing)
{
    EXPECT_EQ(Budget(8 * kGiB), 8 * kGiB); // no /proc/self/cgroup at all
    Write("proc-cgroup", "0::/a\n");
    Write("cg/a/memory.max", "lots\n");
    EXPECT_EQ(Budget(8 * kGiB), 8 * kGiB);
    Write("cg/a/memory.max", "0\n");
    EXPECT_EQ(Budget(8 * kGiB), 8 * kGiB);
    // Physical memory unknown: only a limit bounds the budget.
    EXPECT_EQ(Budget(0), UINT64_MAX);
    Write("cg/a/memory.max", "2147483648\n");
    EXPECT_EQ(Budget(0), 2 * kGiB);
    // A limit below a page still leaves a page, so that shares of it never reach zero.
    Write("cg/a/memory.max", "100\n");
    EXPECT_EQ(Budget(8 * kGiB), 4096u);
}

TEST_F(MemoryBudget, LiveSystemGivesNoMoreThanPhysicalMemory)
{
    uint64_t budget = hf_memory_budget();
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    ASSERT_GT(pages, 0);
    EXPECT_GE(budget, 4096u);
    EXPECT_LE(budget, static_cast<uint64_t>(pages) * static_cast<uint64_t>(page));
}

} // namespace
