/*
 * A set-user-ID or set-group-ID program runs with privileges its caller does not have; letting the
 * caller's environment pick the config file, the plugin directory or the runtime library would
 * hand those privileges over. AT_SECURE is what secure_getenv itself consults.
 */
#include "config/env.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "base/log.h"

static atomic_bool env_assume_secure;

static bool env_is_untrusted(void)
{
    return atomic_load(&env_assume_secure) || getauxval(AT_SECURE) != 0;
}

const char *hf_env_get(const char *name)
{
    if (name == NULL)
        return NULL;
    if (!env_is_untrusted())
        return getenv(name);
    if (getenv(name) != NULL)
        hf_warn("ignoring %s: set-user-ID and set-group-ID programs take no settings from the "
                "environment",
                name);
    return NULL;
}

void hf_env_assume_secure(bool on)
{
    atomic_store(&env_assume_secure, on);
}
