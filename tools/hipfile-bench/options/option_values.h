/*
 * The values of hipfile-bench's options, one option at a time: sizes, counts, seconds and words,
 * each refused with one message that names the option, the value and what is wrong with it.
 */
#ifndef HIPFILE_BENCH_OPTION_VALUES_H
#define HIPFILE_BENCH_OPTION_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

/** Print "--<option> '<value>': <why> (see --help)" on stderr; returns -1. */
int bench_option_refused(const char *option, const char *value, const char *why);

/** A byte count above 0 in powers of 1024: "16M", "4k", "8GiB", "4096". 0, or -1 refused. */
int bench_parse_size(const char *option, const char *text, uint64_t *bytes_p);

/** A whole number from @p min to @p max into *value_p. 0, or -1 refused. */
int bench_parse_count(const char *option, const char *text, uint64_t min, uint64_t max,
                      uint64_t *value_p);

/** bench_parse_count into an unsigned field. 0, or -1 refused. */
int bench_parse_unsigned(const char *option, const char *text, unsigned min, unsigned max,
                         unsigned *value_p);

/** Seconds, at most a day; 0 only when @p zero_ok. 0, or -1 refused. */
int bench_parse_seconds(const char *option, const char *text, bool zero_ok, double *value_p);

/** --mem: device, pinned or pageable. 0, or -1 refused. */
int bench_parse_mem(const char *text, enum bench_mem *mem_p);

/** --async-wait: sync or poll. 0, or -1 refused. */
int bench_parse_async_wait(const char *text, enum bench_async_wait *wait_p);

/** --file: any path but an empty one, kept as given. 0, or -1 refused. */
int bench_parse_file(const char *text, const char **file_p);

/** The hidden --backend-worker: the two descriptors a worker talks to its parent on. */
int bench_parse_worker_fds(const char *text, int *fds);

#endif
