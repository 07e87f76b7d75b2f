// Strict holds of the host-emulation HIP provider (HIP_HOST_STRICT_HOLDS=1): while a stream is
// held by an unmet stream wait-value, the calls the CUDA driver blocks wait until it moves, and a
// wait past HIP_HOST_STRICT_HOLDS_TIMEOUT_MS aborts the process, naming the call.
#include <gtest/gtest.h>

#include <hip/hip_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace
{

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr char kChildVar[] = "HF_RUNTIME_HOST_STRICT_CHILD";
constexpr char kTimeoutMs[] = "2000";
// What the death tests' children use, so each abort comes quickly.
constexpr char kDeathTimeoutMs[] = "200";
constexpr char kAbortMessage[] =
    "HIP_HOST_STRICT_HOLDS: %s called while a stream is held by an unmet stream wait-value .*the "
    "CUDA driver would have blocked here for as long as the stream is held";

// The suite runs in strict mode, except in the child of CreateDoesNotWaitWithoutStrictMode. The
// provider reads the variables at its first call, which comes after static initialisation.
const bool strict_set = [] {
    if (getenv(kChildVar) == nullptr) {
        setenv("HIP_HOST_STRICT_HOLDS", "1", 1);
        setenv("HIP_HOST_STRICT_HOLDS_TIMEOUT_MS", kTimeoutMs, 0);
    }
    return true;
}();

// Whole milliseconds since @p start.
long long MsSince(Clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string AbortMessage(const char *call)
{
    char text[256];
    snprintf(text, sizeof(text), kAbortMessage, call);
    return text;
}

// A stream held by a wait-value on a word nobody sets until Release (or never).
class HeldStream
{
  public:
    HeldStream()
    {
        EXPECT_EQ(hipStreamCreate(&stream_), hipSuccess);
        EXPECT_EQ(hipStreamWaitValue32(stream_, &word_, 1, hipStreamWaitValueEq, ~0u), hipSuccess);
    }
    ~HeldStream()
    {
        Release();
        EXPECT_EQ(hipStreamSynchronize(stream_), hipSuccess);
        EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
    }
    void Release()
    {
        __atomic_store_n(&word_, 1u, __ATOMIC_RELEASE);
    }
    bool Released() const
    {
        return __atomic_load_n(&word_, __ATOMIC_ACQUIRE) == 1u;
    }
    uint32_t *Word()
    {
        return &word_;
    }

  private:
    hipStream_t stream_ = nullptr;
    alignas(8) uint32_t word_ = 0;
};

// Held far past the death tests' timeout: their child should abort inside the gated call. The
// late release only lets a child whose call does not abort finish (and the test fail) instead of
// hanging in the calls that drain streams.
void HoldPastTheTimeout()
{
    hipStream_t s = nullptr;
    alignas(4) static uint32_t word;
    if (hipStreamCreate(&s) != hipSuccess ||
        hipStreamWaitValue32(s, &word, 1, hipStreamWaitValueEq, ~0u) != hipSuccess)
        _exit(3); // not the abort the death test expects
    std::thread([] {
        std::this_thread::sleep_for(5s);
        __atomic_store_n(&word, 1u, __ATOMIC_RELEASE);
    }).detach();
}

TEST(StrictHolds, StreamCreateWaitsUntilTheWaitValueIsMet)
{
    HeldStream held;
    std::thread setter([&] {
        std::this_thread::sleep_for(100ms);
        held.Release();
    });
    auto start = Clock::now();
    hipStream_t s = nullptr;
    hipError_t err = hipStreamCreate(&s);
    bool released_before_return = held.Released();
    long long waited_ms = MsSince(start);
    setter.join();
    ASSERT_EQ(err, hipSuccess);
    EXPECT_TRUE(released_before_return) << "hipStreamCreate returned while the stream was held";
    EXPECT_GE(waited_ms, 90);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST(StrictHolds, HostMallocDoesNotWait)
{
    HeldStream held;
    void *p = nullptr;
    auto start = Clock::now();
    ASSERT_EQ(hipHostMalloc(&p, 4096, 0), hipSuccess);
    EXPECT_LT(MsSince(start), 500);
    EXPECT_FALSE(held.Released());
    held.Release();
    EXPECT_EQ(hipHostFree(p), hipSuccess);
}

TEST(StrictHolds, StreamsHeldByHostFunctionsDoNotCount)
{
    hipStream_t held = nullptr;
    ASSERT_EQ(hipStreamCreate(&held), hipSuccess);
    std::atomic<bool> open{false}, entered{false};
    struct Gate {
        std::atomic<bool> *open, *entered;
    } gate{&open, &entered};
    ASSERT_EQ(hipLaunchHostFunc(
                  held,
                  [](void *arg) {
                      auto *g = static_cast<Gate *>(arg);
                      g->entered->store(true);
                      while (!g->open->load())
                          std::this_thread::sleep_for(1ms);
                  },
                  &gate),
              hipSuccess);
    while (!entered.load())
        std::this_thread::sleep_for(1ms);
    // A wait-value behind the host function is not the stream's next operation yet.
    alignas(4) static uint32_t word;
    word = 0;
    ASSERT_EQ(hipStreamWaitValue32(held, &word, 1, hipStreamWaitValueEq, ~0u), hipSuccess);

    hipStream_t s = nullptr;
    auto start = Clock::now();
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    EXPECT_LT(MsSince(start), 500);
    EXPECT_FALSE(open.load());
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    __atomic_store_n(&word, 1u, __ATOMIC_RELEASE);
    open = true;
    EXPECT_EQ(hipStreamSynchronize(held), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(held), hipSuccess);
}

TEST(StrictHolds, MetWaitValuesDoNotHold)
{
    hipStream_t waiter = nullptr;
    ASSERT_EQ(hipStreamCreate(&waiter), hipSuccess);
    alignas(4) static uint32_t word;
    word = 7;
    ASSERT_EQ(hipStreamWaitValue32(waiter, &word, 7, hipStreamWaitValueEq, ~0u), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(waiter), hipSuccess);
    auto start = Clock::now();
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    EXPECT_LT(MsSince(start), 500);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(waiter), hipSuccess);
}

// One call the CUDA driver was seen to block: @p run makes what the call needs, calls @p hold,
// then makes the call.
struct GatedCall {
    const char *name;
    void (*run)(void (*hold)());
};

void PrintTo(const GatedCall &c, std::ostream *os)
{
    *os << c.name;
}

class StrictHoldsAbort : public ::testing::TestWithParam<GatedCall>
{
};

TEST_P(StrictHoldsAbort, CallWhileAStreamIsHeldPastTheTimeoutAborts)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // The child re-runs this test from the start in a new process, whose provider reads this.
    setenv("HIP_HOST_STRICT_HOLDS_TIMEOUT_MS", kDeathTimeoutMs, 1);
    const GatedCall &call = GetParam();
    EXPECT_DEATH(call.run(HoldPastTheTimeout), AbortMessage(call.name));
}

INSTANTIATE_TEST_SUITE_P(
    Calls, StrictHoldsAbort,
    ::testing::Values(GatedCall{"hipStreamCreate",
                                [](void (*hold)()) {
                                    hipStream_t s;
                                    hold();
                                    (void)hipStreamCreate(&s);
                                }},
                      GatedCall{"hipStreamCreateWithFlags",
                                [](void (*hold)()) {
                                    hipStream_t s;
                                    hold();
                                    (void)hipStreamCreateWithFlags(&s, hipStreamNonBlocking);
                                }},
                      GatedCall{"hipStreamDestroy",
                                [](void (*hold)()) {
                                    hipStream_t s;
                                    (void)hipStreamCreate(&s);
                                    hold();
                                    (void)hipStreamDestroy(s);
                                }},
                      GatedCall{"hipHostRegister",
                                [](void (*hold)()) {
                                    static char buffer[8192];
                                    hold();
                                    (void)hipHostRegister(buffer, sizeof(buffer), 0);
                                }},
                      GatedCall{"hipHostUnregister",
                                [](void (*hold)()) {
                                    static char buffer[8192];
                                    (void)hipHostRegister(buffer, sizeof(buffer), 0);
                                    hold();
                                    (void)hipHostUnregister(buffer);
                                }},
                      GatedCall{"hipHostFree",
                                [](void (*hold)()) {
                                    void *p = nullptr;
                                    (void)hipHostMalloc(&p, 4096, 0);
                                    hold();
                                    (void)hipHostFree(p);
                                }},
                      GatedCall{"hipFree",
                                [](void (*hold)()) {
                                    void *p = nullptr;
                                    (void)hipMalloc(&p, 4096);
                                    hold();
                                    (void)hipFree(p);
                                }},
                      GatedCall{"hipMalloc",
                                [](void (*hold)()) {
                                    void *p = nullptr;
                                    hold();
                                    (void)hipMalloc(&p, 4096);
                                }}),
    [](const ::testing::TestParamInfo<GatedCall> &info) { return std::string(info.param.name); });

// Without strict mode (run in a child whose environment lacks HIP_HOST_STRICT_HOLDS).
TEST(StrictHoldsChild, CreateDoesNotWaitWithoutStrictMode)
{
    if (getenv(kChildVar) == nullptr)
        GTEST_SKIP() << "runs as the child of CreateDoesNotWaitWithoutStrictMode";
    HeldStream held;
    auto start = Clock::now();
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    EXPECT_LT(MsSince(start), 500);
    EXPECT_FALSE(held.Released());
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess); // held: the gate would wait here too
}

TEST(StrictHolds, CreateDoesNotWaitWithoutStrictMode)
{
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        unsetenv("HIP_HOST_STRICT_HOLDS");
        setenv(kChildVar, "1", 1);
        if (freopen("/dev/null", "w", stdout) == nullptr)
            _exit(126);
        execl("/proc/self/exe", "test_runtime_host_strict",
              "--gtest_filter=StrictHoldsChild.CreateDoesNotWaitWithoutStrictMode",
              static_cast<char *>(nullptr));
        _exit(127);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

} // namespace
