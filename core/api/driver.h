/*
 * The driver: the process-wide reference count of hipFileDriverOpen/Close with the rules AMD's
 * library fixes (implicit open on registration, drop of all registrations at zero), and the
 * one-time setup (config, GPU runtime, plugins) that the first open performs.
 */
#ifndef HF_CORE_DRIVER_H
#define HF_CORE_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include <hipfile.h>

/**
 * Make sure the driver is open: at count 0, run setup and set the count to 1 (the implicit open
 * of registration calls). Concurrent callers leave the count at exactly 1. Returns hipFileSuccess
 * or the setup error.
 */
hipFileOpError_t hf_driver_ensure_open(void);
/** Current reference count. */
int64_t hf_driver_count(void);
/** Whether the count is above zero. */
bool hf_driver_is_open(void);
/**
 * Whether setup has succeeded once in this process: from then on the runtime, the plugins and the
 * executor exist, and settings read only by setup no longer change anything.
 */
bool hf_driver_was_set_up(void);
/** Run config, runtime and plugin setup if it has not succeeded yet; the open path calls it. */
hipFileOpError_t hf_driver_setup(void);

/** What the last hipFileDriverClose drops, in the order it drops them (registrations first). */
enum hf_driver_teardown {
    HF_TEARDOWN_FILES,   /**< file registrations */
    HF_TEARDOWN_BUFFERS, /**< buffer registrations */
    HF_TEARDOWN_BATCHES, /**< batch contexts */
    HF_TEARDOWN_COUNT    /**< number of steps */
};

/**
 * Have @p drop run for @p step when the driver count drops to 0 (under the driver's lock, the
 * steps in enum order). The module that owns what is dropped registers on the path that creates
 * its first object, so the driver never calls into it by name. Idempotent and lock-free: calling
 * it again with the same function changes nothing.
 */
void hf_driver_on_last_close(enum hf_driver_teardown step, void (*drop)(void));

#endif
