/* The executor runs every index of a job exactly once, concurrently, with the caller helping. */
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

extern "C" {
#include "executor.h"
}

namespace
{

struct Counts {
    std::vector<std::atomic<int>> hits;
    std::atomic<int> running{0};
    std::atomic<int> peak{0};
    explicit Counts(unsigned n) : hits(n) {}
};

void CountTask(void *arg, unsigned index)
{
    auto *c = static_cast<Counts *>(arg);
    int now = ++c->running;
    int seen = c->peak.load();
    while (now > seen && !c->peak.compare_exchange_weak(seen, now)) {
    }
    c->hits[index]++;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    c->running--;
}

} // namespace

TEST(Executor, EveryIndexRunsExactlyOnce)
{
    for (unsigned n : {0u, 1u, 2u, 7u, 100u, 1000u}) {
        Counts c(n);
        ASSERT_EQ(hf_executor_run(n, CountTask, &c), 0);
        for (unsigned i = 0; i < n; i++)
            ASSERT_EQ(c.hits[i].load(), 1) << "n " << n << " index " << i;
        EXPECT_EQ(c.running.load(), 0);
    }
}

TEST(Executor, TasksRunConcurrentlyUpToTheWidth)
{
    unsigned width = hf_executor_width();
    ASSERT_GE(width, 2u) << "workers plus the caller";
    Counts c(200);
    ASSERT_EQ(hf_executor_run(200, CountTask, &c), 0);
    EXPECT_GT(c.peak.load(), 1);
    EXPECT_LE((unsigned)c.peak.load(), width);
}

TEST(Executor, ConcurrentSubmittersAllComplete)
{
    std::vector<std::thread> submitters;
    std::atomic<int> bad{0};
    for (int t = 0; t < 6; t++) {
        submitters.emplace_back([&] {
            for (int round = 0; round < 20; round++) {
                Counts c(37);
                if (hf_executor_run(37, CountTask, &c) != 0)
                    bad++;
                for (auto &h : c.hits)
                    if (h.load() != 1)
                        bad++;
            }
        });
    }
    for (auto &s : submitters)
        s.join();
    EXPECT_EQ(bad.load(), 0);
}

TEST(Executor, NullTaskIsRejected)
{
    EXPECT_EQ(hf_executor_run(3, nullptr, nullptr), -EINVAL);
}
