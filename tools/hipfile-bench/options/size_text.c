/*
 * Sizes written for people: "64 MiB" in the report and the messages, and "64M" where the text
 * stands for what the command line would take.
 */
#include <stdio.h>

#include "bench.h"

/*
 * Divide *bytes_p by the largest power of 1024 that leaves a whole number, up to TiB, and return
 * that power: a size is written in the largest unit that loses nothing.
 */
static unsigned whole_unit(uint64_t *bytes_p)
{
    unsigned unit = 0;
    while (unit < 4 && *bytes_p >= 1024 && *bytes_p % 1024 == 0) {
        *bytes_p /= 1024;
        unit++;
    }
    return unit;
}

const char *bench_size_text(uint64_t bytes, char *text, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned unit = whole_unit(&bytes);
    snprintf(text, len, "%llu %s", (unsigned long long)bytes, units[unit]);
    return text;
}

const char *bench_size_short(uint64_t bytes, char *text, size_t len)
{
    static const char units[] = "KMGT";
    unsigned unit = whole_unit(&bytes);
    if (unit == 0)
        snprintf(text, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(text, len, "%llu%c", (unsigned long long)bytes, units[unit - 1]);
    return text;
}
