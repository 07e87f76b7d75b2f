/*
 * hipfile-bench's options that take a comma-separated list: workloads, baselines, APIs, backends,
 * devices and --sweep's call sizes.
 */
#ifndef HIPFILE_BENCH_OPTION_LISTS_H
#define HIPFILE_BENCH_OPTION_LISTS_H

#include "bench.h"

/** --workload: names of bench_workloads[], or all, into bits by index. 0, or -1 refused. */
int bench_parse_workloads(const char *text, unsigned *bits_p);

/** --baselines: BENCH_BL_* names, all or none. 0, or -1 refused. */
int bench_parse_baselines(const char *text, unsigned *bits_p);

/** --api: sync, async, batch or all, into BENCH_API_* bits. 0, or -1 refused. */
int bench_parse_apis(const char *text, unsigned *bits_p);

/** --backends: backend names as plugins.enable takes them, each once, into o->backends. */
int bench_parse_backends(const char *text, struct bench_options *o);

/** --devices: device indexes, each once, or all (resolved once the runtime answers). */
int bench_parse_devices(const char *text, struct bench_options *o);

/** --sweep: call sizes, each once, into o->sweep_sizes in the order given. 0, or -1 refused. */
int bench_parse_sweep(const char *text, struct bench_options *o);

#endif
