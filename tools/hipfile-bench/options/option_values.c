/*
 * The values of hipfile-bench's options, one option at a time. Each parser prints its own
 * message, so the caller only stops; every message names the option and points at --help.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmdline.h"
#include "options/option_values.h"

int bench_option_refused(const char *option, const char *value, const char *why)
{
    fprintf(stderr, BENCH_NAME ": --%s '%s': %s (see --help)\n", option, value, why);
    return -1;
}

int bench_parse_size(const char *option, const char *text, uint64_t *bytes_p)
{
    static const struct tool_size_syntax syntax = {
        .base = 10, .units = "KMGT", .byte_suffix = true};
    static const char *const why[] = {
        [TOOL_SIZE_NOT_A_NUMBER] = "not a size",
        [TOOL_SIZE_UNKNOWN_UNIT] = "unknown unit (use K, M, G or T)",
        [TOOL_SIZE_TRAILING] = "trailing characters after the size",
        [TOOL_SIZE_TOO_LARGE] = "too large",
    };
    uint64_t bytes;
    enum tool_size_status status = tool_parse_size(text, &syntax, UINT64_MAX, &bytes);
    if (status != TOOL_SIZE_OK)
        return bench_option_refused(option, text, why[status]);
    if (bytes == 0)
        return bench_option_refused(option, text, "must be greater than zero");
    *bytes_p = bytes;
    return 0;
}

int bench_parse_count(const char *option, const char *text, uint64_t min, uint64_t max,
                      uint64_t *value_p)
{
    uint64_t value;
    const char *end;
    if (tool_parse_uint(text, 10, &value, &end) != 0 || *end != '\0')
        return bench_option_refused(option, text, "not a whole number");
    if (value < min || value > max) {
        char why[96];
        snprintf(why, sizeof(why), "must be between %llu and %llu", (unsigned long long)min,
                 (unsigned long long)max);
        return bench_option_refused(option, text, why);
    }
    *value_p = value;
    return 0;
}

int bench_parse_unsigned(const char *option, const char *text, unsigned min, unsigned max,
                         unsigned *value_p)
{
    uint64_t value;
    if (bench_parse_count(option, text, min, max, &value) != 0)
        return -1;
    *value_p = (unsigned)value;
    return 0;
}

int bench_parse_seconds(const char *option, const char *text, bool zero_ok, double *value_p)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(value))
        return bench_option_refused(option, text, "not a number of seconds");
    if (value < 0 || (!zero_ok && value == 0) || value > 86400)
        return bench_option_refused(option, text,
                                    zero_ok ? "must be 0 to 86400 seconds"
                                            : "must be above 0, at most 86400");
    *value_p = value;
    return 0;
}

/* Indexed by enum bench_mem: what --mem takes and the report prints. */
static const char *const mem_names[] = {[BENCH_MEM_DEVICE] = "device",
                                        [BENCH_MEM_PINNED] = "pinned",
                                        [BENCH_MEM_PAGEABLE] = "pageable"};

const char *bench_mem_name(enum bench_mem mem)
{
    return mem_names[mem];
}

int bench_parse_mem(const char *text, enum bench_mem *mem_p)
{
    int mem = tool_word_index(text, mem_names, sizeof(mem_names) / sizeof(mem_names[0]));
    if (mem < 0)
        return bench_option_refused("mem", text, "must be device, pinned or pageable");
    *mem_p = (enum bench_mem)mem;
    return 0;
}

/* Indexed by enum bench_async_wait: what --async-wait takes and the report prints. */
static const char *const async_wait_names[] = {
    [BENCH_ASYNC_WAIT_SYNC] = "sync", [BENCH_ASYNC_WAIT_POLL] = "poll"};

const char *bench_async_wait_name(enum bench_async_wait wait)
{
    return async_wait_names[wait];
}

/* Taken whatever --api says: only the async method waits, the others ignore it. */
int bench_parse_async_wait(const char *text, enum bench_async_wait *wait_p)
{
    int wait = tool_word_index(text, async_wait_names,
                               sizeof(async_wait_names) / sizeof(async_wait_names[0]));
    if (wait < 0)
        return bench_option_refused("async-wait", text, "must be sync or poll");
    *wait_p = (enum bench_async_wait)wait;
    return 0;
}

int bench_parse_file(const char *text, const char **file_p)
{
    *file_p = text;
    return text[0] == '\0' ? bench_option_refused("file", text, "empty path") : 0;
}

int bench_parse_worker_fds(const char *text, int *fds)
{
    if (sscanf(text, "%d,%d", &fds[0], &fds[1]) != 2 || fds[0] < 0 || fds[1] < 0)
        return bench_option_refused("backend-worker", text, "for this program's own use");
    return 0;
}
