/*
 * The environment, as every setting read from it gets it: the one place the library reads its
 * variables.
 */
#ifndef HF_CORE_ENV_H
#define HF_CORE_ENV_H

#include <stdbool.h>

/**
 * The environment variable @p name: NULL in a set-user-ID or set-group-ID process (AT_SECURE),
 * with a warning naming the variable when it is set.
 */
const char *hf_env_get(const char *name);
/** Treat the process as set-user-ID from now on (@p on) or not. Tests only. */
void hf_env_assume_secure(bool on);

#endif
