/* A method's result row: made empty under a name, or marked failed with its reason. */
#include <string.h>

#include "bench.h"

void bench_result_init(struct bench_result *result, const char *name)
{
    memset(result, 0, sizeof(*result));
    snprintf(result->name, sizeof(result->name), "%s", name);
    result->backend_index = -1;
    result->device = -1;
}

int bench_result_fail(struct bench_result *result, const char *why)
{
    if (result->note[0] == '\0')
        snprintf(result->note, sizeof(result->note), "%s", why);
    result->failed = true;
    return -1;
}
