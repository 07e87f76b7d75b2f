/*
 * What the report's forms (text.c, json.c) and the --sweep table (sweep.c) compute from results
 * alike: the figures of one result, its label, and which results are set against which.
 */
#ifndef HIPFILE_BENCH_REPORT_FIGURES_H
#define HIPFILE_BENCH_REPORT_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

/** GB/s (10^9 bytes per second) of a result; 0 when it has no measured time. */
double bench_result_gbps(const struct bench_result *r);

/** Calls per second of a result; 0 when it has no measured time. */
double bench_result_iops(const struct bench_result *r);

/** The @p percent percentile of a result's per-call latency, in microseconds. */
double bench_result_latency_us(const struct bench_result *r, double percent);

/** CPU seconds the process spent per GB a result moved; 0 when it moved nothing. */
double bench_result_cpu_per_gb(const struct bench_result *r);

/**
 * The part of the machine's CPU time (all its online CPUs over the result's measured time) that
 * the hypervisor took while the result was measured; -1 when unknown.
 */
double bench_result_steal_share(const struct bench_result *r);

/** Steal shares from this one up are named in the text report: figures taken then compare less. */
#define BENCH_STEAL_NOTE_SHARE 0.01

/** GB/s of one device's share of a run of several devices at once. */
double bench_group_gbps(const struct bench_group_result *g);

/** A result that ran and moved data in measured time. */
bool bench_result_measured(const struct bench_result *r);

/** The pread+copy baseline, a latency floor: compared by p50 latency, not bandwidth. */
bool bench_result_is_latency_floor(const struct bench_result *r);

/** A result's name in the report: "library", "library@fastpath", "library-async@dev2". */
const char *bench_result_label(const struct bench_result *r, char *text, size_t len);

/** What chose the raw and O_DIRECT baselines' thread count, as the report says it. */
const char *bench_baseline_threads_reason(const struct bench_ctx *ctx);

/**
 * Whether the report gives the ratio of library method @p l to result @p b: to every baseline, to
 * the sync method, to the first backend's same method; never for an aggregate of devices, which
 * is set against its single-device runs instead.
 */
bool bench_ratio_wanted(const struct bench_result *l, const struct bench_result *b);

/**
 * The single-device runs of aggregate @p agg's method among @p results: how many, and the sum of
 * their GB/s in *sum_p.
 */
unsigned bench_single_runs(const struct bench_result *results, unsigned n,
                           const struct bench_result *agg, double *sum_p);

/** The single-device run of method @p name on @p device among @p results, or NULL. */
const struct bench_result *bench_single_run_of(const struct bench_result *results, unsigned n,
                                               const char *name, int device);

#endif
