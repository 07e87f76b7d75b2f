// Faults injected through the fault-injecting HIP runtime: pinned allocation, copies, stream and
// event calls failing at every position of a request that stages device memory through the
// fallback plugin's pinned chunks.
#include <cerrno>

#include "fault_test.h"

namespace fault_test
{
namespace
{

constexpr int kHipErrorOutOfMemory = 2;
constexpr int kHipErrorUnknown = 999;

class RuntimeFaultTest : public FaultTest
{
  protected:
    static FaultSite Site(const char *name, fault_hip_call call, int hip_error)
    {
        return FaultSite{
            name,
            [call, hip_error](int n) {
                Hip().disarm_all();
                Hip().arm(call, n, 1, hip_error);
            },
            [call] { return Hip().failed(call); },
            [] { Hip().disarm_all(); },
        };
    }
    // A GPU failure before any byte moved is -hipFileHipDriverError (docs/backends/fallback.rst).
    static bool HipDriverError(ssize_t result, int)
    {
        return result == -(ssize_t)hipFileHipDriverError;
    }
};

TEST_F(RuntimeFaultTest, PinnedAllocationFailureOnRead)
{
    SweepCounts c =
        Sweep(Op::kRead, Site("hipHostMalloc", FAULT_HIP_HOST_MALLOC, kHipErrorOutOfMemory),
              HipDriverError);
    EXPECT_GT(c.injected, 0);
}

TEST_F(RuntimeFaultTest, PinnedAllocationFailureOnWrite)
{
    SweepCounts c =
        Sweep(Op::kWrite, Site("hipHostMalloc", FAULT_HIP_HOST_MALLOC, kHipErrorOutOfMemory),
              HipDriverError);
    EXPECT_GT(c.injected, 0);
}

TEST_F(RuntimeFaultTest, CopyFailureOnRead)
{
    SweepCounts c =
        Sweep(Op::kRead, Site("hipMemcpyAsync", FAULT_HIP_MEMCPY_ASYNC, kHipErrorUnknown),
              HipDriverError);
    EXPECT_GT(c.injected, 1);
    EXPECT_EQ(c.completed, 0) << "a failed copy cannot be reported as moved";
}

TEST_F(RuntimeFaultTest, CopyFailureOnWrite)
{
    SweepCounts c =
        Sweep(Op::kWrite, Site("hipMemcpyAsync", FAULT_HIP_MEMCPY_ASYNC, kHipErrorUnknown),
              HipDriverError);
    EXPECT_GT(c.injected, 1);
    EXPECT_EQ(c.completed, 0) << "a failed copy cannot be reported as moved";
}

TEST_F(RuntimeFaultTest, StreamCreationFailure)
{
    SweepCounts r = Sweep(
        Op::kRead, Site("hipStreamCreateWithFlags", FAULT_HIP_STREAM_CREATE, kHipErrorOutOfMemory),
        HipDriverError);
    SweepCounts w = Sweep(
        Op::kWrite, Site("hipStreamCreateWithFlags", FAULT_HIP_STREAM_CREATE, kHipErrorOutOfMemory),
        HipDriverError);
    EXPECT_GT(r.injected + w.injected, 0);
}

// After a failed hipStreamSynchronize the fallback discards the staging slot while copies queued
// on its streams may still run: freeing the slot's pinned memory must wait for them, as HIP's
// hipHostFree does, even though the streams were destroyed first.
TEST_F(RuntimeFaultTest, StreamSynchronizeFailure)
{
    SweepCounts r = Sweep(
        Op::kRead, Site("hipStreamSynchronize", FAULT_HIP_STREAM_SYNCHRONIZE, kHipErrorUnknown),
        HipDriverError);
    SweepCounts w = Sweep(
        Op::kWrite, Site("hipStreamSynchronize", FAULT_HIP_STREAM_SYNCHRONIZE, kHipErrorUnknown),
        HipDriverError);
    EXPECT_GT(r.injected + w.injected, 0);
    EXPECT_EQ(r.completed + w.completed, 0) << "an unconfirmed copy cannot be reported as moved";
}

TEST_F(RuntimeFaultTest, EventFailure)
{
    Sweep(Op::kRead, Site("hipEvent*", FAULT_HIP_EVENT, kHipErrorUnknown), HipDriverError);
    Sweep(Op::kWrite, Site("hipEvent*", FAULT_HIP_EVENT, kHipErrorUnknown), HipDriverError);
}

TEST_F(RuntimeFaultTest, DeviceSwitchFailure)
{
    Sweep(Op::kRead, Site("hipSetDevice", FAULT_HIP_SET_DEVICE, kHipErrorUnknown), HipDriverError);
    Sweep(Op::kWrite, Site("hipSetDevice", FAULT_HIP_SET_DEVICE, kHipErrorUnknown), HipDriverError);
}

// Resolving the buffer asks the runtime what the pointer is; when it cannot say, the request is
// refused before any backend runs.
TEST_F(RuntimeFaultTest, PointerQueryFailureIsRefusedUpFront)
{
    SweepCounts c = Sweep(
        Op::kRead, Site("hipPointerGetAttributes", FAULT_HIP_POINTER_ATTRIBUTES, kHipErrorUnknown),
        [](ssize_t result, int) {
            return result == -(ssize_t)hipFileHipDriverError ||
                   result == -(ssize_t)hipFileInvalidValue;
        });
    EXPECT_EQ(c.injected, 1);
    EXPECT_EQ(c.errors, 1);
}

} // namespace
} // namespace fault_test
