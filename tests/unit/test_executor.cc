/*
 * The executor runs every index of a job exactly once, concurrently, with the caller helping;
 * queued (asynchronous) jobs never run on the caller, can be withdrawn, and share the workers
 * with split requests, including requests split from inside a worker. Workers block the signals
 * that belong to the application.
 */
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

extern "C" {
#include "config/config.h"
#include "services/executor.h"
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

/* The configuration the workers start with: HIPFILE_CONFIG's, loaded before any test runs. */
class ConfigEnvironment : public ::testing::Environment
{
  public:
    void SetUp() override
    {
        ASSERT_EQ(hf_config_load(), 0);
    }
};
const ::testing::Environment *const config_environment =
    ::testing::AddGlobalTestEnvironment(new ConfigEnvironment);

} // namespace

/*
 * The suite runs twice: with the automatic count (no pollers on small machines) and with four
 * pollers forced by its own config file, so both hand-offs are exercised everywhere.
 */
TEST(Executor, IdlePollersFollowTheSetting)
{
    int64_t want = hf_setting_int(HF_SETTING_IDLE_POLLERS);
    if (want < 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        want = cpus >= 8 ? cpus - 1 : 0;
    }
    int64_t workers = static_cast<int64_t>(hf_executor_width()) - 1;
    EXPECT_EQ(static_cast<int64_t>(hf_executor_idle_pollers()), std::min(want, workers));
}

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

namespace
{

/* Tasks that hold a worker until the test opens the gate. */
struct Gate {
    std::mutex m;
    std::condition_variable cv;
    bool open = false;
    std::atomic<int> arrived{0};
    std::atomic<int> left{0};

    static void Task(void *arg, unsigned)
    {
        auto *g = static_cast<Gate *>(arg);
        g->arrived++;
        {
            std::unique_lock<std::mutex> lock(g->m);
            g->cv.wait(lock, [g] { return g->open; });
        }
        g->left++; /* the last touch of *g */
    }
    ~Gate()
    {
        Open();
        while (left.load() < arrived.load())
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    /* Occupy every worker; returns once all of them are parked here. */
    void HoldAllWorkers(unsigned workers)
    {
        ASSERT_EQ(hf_executor_submit(workers, Task, this), 0);
        while (arrived.load() < (int)workers)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    void Open()
    {
        std::lock_guard<std::mutex> lock(m);
        open = true;
        cv.notify_all();
    }
};

/* Counts finished tasks and lets the test wait for a number of them, with a deadline. */
struct Finished {
    std::mutex m;
    std::condition_variable cv;
    unsigned count = 0;
    std::vector<std::thread::id> threads;

    static void Task(void *arg, unsigned)
    {
        auto *f = static_cast<Finished *>(arg);
        std::lock_guard<std::mutex> lock(f->m);
        f->count++;
        f->threads.push_back(std::this_thread::get_id());
        f->cv.notify_all();
    }
    bool WaitFor(unsigned n)
    {
        std::unique_lock<std::mutex> lock(m);
        return cv.wait_for(lock, std::chrono::seconds(30), [&] { return count >= n; });
    }
};

unsigned Workers()
{
    return hf_executor_width() - 1;
}

} // namespace

TEST(Executor, SubmitReturnsBeforeTasksRunAndRunsEachOnce)
{
    Gate gate;
    gate.HoldAllWorkers(Workers());
    Finished f;
    ASSERT_EQ(hf_executor_submit(50, Finished::Task, &f), 0);
    {
        std::lock_guard<std::mutex> lock(f.m);
        EXPECT_EQ(f.count, 0u) << "every worker is held, and the caller never runs a task";
    }
    gate.Open();
    ASSERT_TRUE(f.WaitFor(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(f.m);
    EXPECT_EQ(f.count, 50u);
    for (auto id : f.threads)
        EXPECT_NE(id, std::this_thread::get_id());
}

TEST(Executor, SubmitOfNothingAndNullTask)
{
    EXPECT_EQ(hf_executor_submit(0, Finished::Task, nullptr), 0);
    EXPECT_EQ(hf_executor_submit(3, nullptr, nullptr), -EINVAL);
}

TEST(Executor, WithdrawTakesBackOnlyUnclaimedTasksOfThatArgument)
{
    Gate gate;
    gate.HoldAllWorkers(Workers());
    Finished mine, other;
    ASSERT_EQ(hf_executor_submit(10, Finished::Task, &mine), 0);
    ASSERT_EQ(hf_executor_submit(3, Finished::Task, &mine), 0);
    ASSERT_EQ(hf_executor_submit(4, Finished::Task, &other), 0);
    EXPECT_EQ(hf_executor_withdraw(Finished::Task, &mine), 13u);
    EXPECT_EQ(hf_executor_withdraw(Finished::Task, &mine), 0u);
    EXPECT_EQ(hf_executor_withdraw(CountTask, &other), 0u) << "another task function";
    gate.Open();
    ASSERT_TRUE(other.WaitFor(4));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(mine.m);
    EXPECT_EQ(mine.count, 0u);
}

TEST(Executor, WithdrawLeavesTasksAlreadyRunning)
{
    Gate gate;
    unsigned workers = Workers();
    ASSERT_EQ(hf_executor_submit(workers + 5, Gate::Task, &gate), 0);
    while (gate.arrived.load() < (int)workers)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    EXPECT_EQ(hf_executor_withdraw(Gate::Task, &gate), 5u);
    gate.Open();
}

namespace
{

struct Nested {
    std::atomic<int> inner_done{0};
    Finished outer;
    static void Task(void *arg, unsigned)
    {
        auto *n = static_cast<Nested *>(arg);
        Counts c(40);
        if (hf_executor_run(40, CountTask, &c) == 0) {
            bool all = true;
            for (auto &h : c.hits)
                all = all && h.load() == 1;
            if (all)
                n->inner_done++;
        }
        Finished::Task(&n->outer, 0);
    }
};

} // namespace

TEST(Executor, SplitRequestsFromInsideEveryWorkerComplete)
{
    /* Every worker runs a task that itself splits a request: nobody is free to help, and the
     * nested callers must still finish by claiming their own pieces. */
    unsigned tasks = Workers() * 3;
    Nested n;
    ASSERT_EQ(hf_executor_submit(tasks, Nested::Task, &n), 0);
    ASSERT_TRUE(n.outer.WaitFor(tasks)) << "nested split requests deadlocked";
    EXPECT_EQ(n.inner_done.load(), (int)tasks);
}

namespace
{

struct Slow {
    std::atomic<int> on_worker{0};
    std::thread::id caller;
    static void Task(void *arg, unsigned)
    {
        auto *s = static_cast<Slow *>(arg);
        if (std::this_thread::get_id() != s->caller)
            s->on_worker++;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
};

void SleepTask(void *, unsigned)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

} // namespace

TEST(Executor, SplitRequestSharesWorkersWithAQueuedBacklog)
{
    /* A long queue of asynchronous work must not keep the workers from a later split request:
     * they take turns between queued jobs. */
    ASSERT_EQ(hf_executor_submit(2000, SleepTask, nullptr), 0);
    Slow s;
    s.caller = std::this_thread::get_id();
    ASSERT_EQ(hf_executor_run(40, Slow::Task, &s), 0);
    EXPECT_GT(s.on_worker.load(), 0) << "workers served only the backlog";
    EXPECT_GT(hf_executor_withdraw(SleepTask, nullptr), 0u) << "the backlog was still queued";
}

namespace
{

/* The signal mask of the thread each task ran on. */
struct Masks {
    std::mutex m;
    std::condition_variable cv;
    std::vector<sigset_t> masks;
    static void Task(void *arg, unsigned)
    {
        auto *s = static_cast<Masks *>(arg);
        sigset_t mask;
        pthread_sigmask(SIG_BLOCK, nullptr, &mask);
        std::lock_guard<std::mutex> lock(s->m);
        s->masks.push_back(mask);
        s->cv.notify_all();
    }
    bool WaitFor(size_t n)
    {
        std::unique_lock<std::mutex> lock(m);
        return cv.wait_for(lock, std::chrono::seconds(30), [&] { return masks.size() >= n; });
    }
};

} // namespace

TEST(Executor, WorkersTakeNoneOfTheApplicationsSignals)
{
    /* A process-directed signal goes to any thread that does not block it; only faults, which the
     * kernel raises on the faulting thread itself, may reach a worker. */
    Masks s;
    unsigned tasks = Workers() * 4;
    ASSERT_EQ(hf_executor_submit(tasks, Masks::Task, &s), 0);
    ASSERT_TRUE(s.WaitFor(tasks));
    std::lock_guard<std::mutex> lock(s.m);
    for (const sigset_t &mask : s.masks) {
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD, SIGPIPE,
                        SIGALRM, SIGWINCH, SIGRTMIN})
            EXPECT_EQ(sigismember(&mask, sig), 1) << strsignal(sig);
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
            EXPECT_EQ(sigismember(&mask, sig), 0) << strsignal(sig);
    }
}
