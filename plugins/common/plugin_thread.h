/*
 * Threads a plugin starts for itself. They live in the application's process, so they must not
 * take signals meant for the application's threads.
 */
#ifndef HF_PLUGIN_COMMON_PLUGIN_THREAD_H
#define HF_PLUGIN_COMMON_PLUGIN_THREAD_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Start a joinable thread running @p main_fn(@p arg) with every signal blocked but the ones a fault
 * raises. The caller's own signal mask is not touched, not even for a moment. Returns 0 or -errno.
 */
int hfp_thread_start(pthread_t *thread_p, void *(*main_fn)(void *), void *arg);

#ifdef __cplusplus
}
#endif

#endif
