/*
 * The checks that need the whole command line: combinations no single option can refuse, and the
 * file size a --sweep needs.
 */
#ifndef HIPFILE_BENCH_OPTION_CHECKS_H
#define HIPFILE_BENCH_OPTION_CHECKS_H

#include <stdbool.h>

#include "bench.h"

/**
 * With --sweep: set io_size to the largest size (what checks made before the sweep loop judge),
 * and, unless --file-size was given, grow the file to hold every thread's call of that size.
 */
void bench_sweep_file_size(struct bench_options *o, bool file_size_given);

/**
 * Refuse combinations of options that cannot run, after printing why: --time with --passes,
 * --io-size with --sweep, a call size the file or the batch buffer cannot hold, --backends with
 * --devices, --device with --devices, a --copy-chunk one call cannot move. 0, or -1.
 */
int bench_check_combination(const struct bench_options *o, bool time_given, bool passes_given,
                            bool io_size_given);

#endif
