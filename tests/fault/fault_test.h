/*
 * Shared by the fault-injection suites: a process-wide setup that binds the fault-injecting HIP
 * runtime (tests/fixtures/fault_hip) with a small-chunk fallback config, system-call tables that
 * fail the n-th call on command, and the checks every injected fault must pass: the documented
 * result, no descriptor or pinned memory left behind, and a library that still serves requests.
 */
#ifndef HF_TEST_FAULT_TEST_H
#define HF_TEST_FAULT_TEST_H

#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "fault_hip.h"

namespace fault_test
{

// Small chunks and split thresholds, so a 256 KiB request takes many system and GPU calls.
constexpr size_t kChunkSize = 64 * 1024;
constexpr size_t kFileSize = 256 * 1024;
// A sweep stops once a request completes with the fault armed, or after this many positions.
constexpr int kMaxSweep = 96;

// Which system call a SysFaults entry stands for; the first seven are the plugin table's, the
// last three the core's own (struct hf_core_sys_ops).
enum SysCall {
    kPread,
    kPwrite,
    kFstat,
    kFdatasync,
    kIoctl,
    kPreadv2,
    kCachedBytes,
    kCoreOpen,
    kCoreFstat,
    kCoreStatx,
    kSysCallCount
};
const char *SysCallName(SysCall call);

// Installs replacement system-call tables for as long as it lives: each call counts, and an
// armed call lets `skip` calls through and then fails `times` of them (-1: all) with `err`.
class SysFaults
{
  public:
    SysFaults();
    ~SysFaults();
    void Arm(SysCall call, int skip, int times, int err);
    void DisarmAll();
    long Calls(SysCall call) const;
    long Failed(SysCall call) const;
    // True (once per armed call) when the call should fail; sets errno.
    static bool Fire(SysCall call);

  private:
    struct Plan {
        std::atomic<int> skip{0};
        std::atomic<int> times{0};
        std::atomic<int> err{0};
        std::atomic<long> calls{0};
        std::atomic<long> failed{0};
    };
    static Plan plans_[kSysCallCount];
};

// The controls of the fault-injecting runtime, resolved from the library the core bound.
struct FaultHip {
    fault_hip_arm_fn arm = nullptr;
    fault_hip_disarm_all_fn disarm_all = nullptr;
    fault_hip_calls_fn calls = nullptr;
    fault_hip_failed_fn failed = nullptr;
    fault_hip_live_pinned_fn live_pinned = nullptr;
    fault_hip_live_streams_fn live_streams = nullptr;
};
// Resolved after the first hipFileDriverOpen; fails the test when the runtime is not bound.
const FaultHip &Hip();

// The number of descriptors this process has open.
int OpenDescriptors();

enum class Op { kRead, kWrite };

// How one fault position after another went: a sweep moves the armed fault one call further each
// round until a request completes without reaching it.
struct SweepCounts {
    int injected = 0;    // rounds in which the fault fired
    int completed = 0;   // ... and the request still moved every byte (the path recovered)
    int short_count = 0; // ... and it reported the bytes before the failure
    int errors = 0;      // ... and it returned the documented error
};

// The fault a sweep moves: arm it at call position n, count how often it fired, disarm it.
struct FaultSite {
    std::string name;
    std::function<void(int)> arm;
    std::function<long()> fired;
    std::function<void()> disarm;
};

// Every test starts and ends with the driver closed and no fault armed.
class FaultTest : public ::testing::Test
{
  protected:
    void SetUp() override;
    void TearDown() override;
    static void CloseDriverFully();
    std::string ScratchPath(const char *suffix) const;
    // Open @p path with @p flags and register it; the descriptor in *fd_p.
    hipFileHandle_t OpenRegistered(const std::string &path, int flags, int *fd_p);
    // A full read of the pattern file into @p buffer, checked byte for byte.
    void ExpectCleanRead(hipFileHandle_t fh, void *buffer, uint32_t seed);
    // Unload the plugins (their fini gives back pinned memory and streams) and check that nothing
    // taken from the runtime is left; the next open loads them again.
    void ExpectRuntimeBalanced();
    // Sweep @p site over @p op of kFileSize bytes between a fresh pattern file and a device
    // buffer: every round must give all bytes, a correct prefix, or the error @p error_ok accepts
    // (given the result and errno); then an unfaulted request must succeed, and no descriptor,
    // pinned allocation or stream may be left. Prints one summary line for docs/reliability.rst.
    SweepCounts Sweep(Op op, const FaultSite &site,
                      const std::function<bool(ssize_t, int)> &error_ok);
};

} // namespace fault_test

#endif
