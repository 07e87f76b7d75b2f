/*
 * The nvme-passthru backend's mechanism choice driven from C++: the backend's state holds C11
 * atomics, which C++ test code cannot declare, so this C fixture builds the state around a fake
 * host, runs the choice and reports what it did.
 */
#ifndef HF_TEST_NVME_MECHANISM_FIXTURE_H
#define HF_TEST_NVME_MECHANISM_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What nvme_mechanism_pick did. */
struct mechanism_outcome {
    int mechanism;           /**< enum nvme_mechanism chosen */
    bool probed;             /**< a ring was made to probe io_uring */
    pid_t probe_tid;         /**< the thread that made it, 0 when none did or it failed */
    unsigned long rings;     /**< rings made in this process during the choice */
    size_t idle_queues;      /**< queues the backend kept for requests */
    pid_t idle_queue_thread; /**< the ring thread of the first of them, 0 when none */
};

/**
 * Run the choice for a backend configured with @p configured (enum nvme_mechanism) whose device
 * directory is @p dev_root, then free the backend's queues. Returns 0 or -errno.
 */
int mechanism_fixture_pick(const char *dev_root, int configured, struct mechanism_outcome *out_p);

#ifdef __cplusplus
}
#endif

#endif
