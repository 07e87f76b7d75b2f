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

#endif
