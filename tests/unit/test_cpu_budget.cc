// The CPU budget: the affinity mask, bounded by the smallest cgroup CPU quota on the process's
// path (v2 cpu.max, v1 cpu.cfs_quota_us over cpu.cfs_period_us), rounded up; files that are
// missing or malformed bound nothing.
#include <gtest/gtest.h>

extern "C" {
#include "base/cpu_budget.h"
}

#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace
{

class CpuBudget : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/hf-cpu-budget-XXXXXX";
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
    unsigned Budget(unsigned affinity)
    {
        return hf_cpu_budget_at(affinity, (root_ + "/proc-cgroup").c_str(),
                                (root_ + "/cg").c_str());
    }
    std::string root_;
};

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

} // namespace
