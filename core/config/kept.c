/*
 * Strings readers may hold for as long as the process runs, and what the last load failed on.
 */
#include "config/kept.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kept_string {
    struct kept_string *next;
    char text[];
};

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept_string *kept_strings;
static _Atomic(const char *) last_failure;

/* Readers may hold any string ever published, so every copy lives as long as the process. */
const char *hf_config_keep_string(const char *text)
{
    size_t len = strlen(text) + 1;
    struct kept_string *kept = malloc(sizeof(*kept) + len);
    if (kept == NULL)
        return NULL;
    memcpy(kept->text, text, len);
    pthread_mutex_lock(&kept_lock);
    kept->next = kept_strings;
    kept_strings = kept;
    pthread_mutex_unlock(&kept_lock);
    return kept->text;
}

void hf_config_failure_set(const char *what, const char *name)
{
    char text[PATH_MAX + 64];
    snprintf(text, sizeof(text), "%s %s", what, name);
    atomic_store(&last_failure, hf_config_keep_string(text));
}

const char *hf_config_failure(void)
{
    return atomic_load(&last_failure);
}

void hf_config_failure_clear(void)
{
    atomic_store(&last_failure, NULL);
}
