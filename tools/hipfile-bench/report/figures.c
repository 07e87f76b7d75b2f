/*
 * The figures the report gives for each result, and the rules that decide which results are set
 * against which: every library method against every baseline, the async and batch methods
 * against the sync one, each backend against the first, and an aggregate of several devices
 * against the sum of its single-device runs.
 */
#include <string.h>
#include <unistd.h>

#include "report/figures.h"

double bench_result_gbps(const struct bench_result *r)
{
    return r->seconds > 0 ? (double)r->bytes / r->seconds / 1e9 : 0;
}

double bench_result_iops(const struct bench_result *r)
{
    return r->seconds > 0 ? (double)r->calls / r->seconds : 0;
}

double bench_result_latency_us(const struct bench_result *r, double percent)
{
    return bench_hist_percentile(&r->hist, percent) / 1e3;
}

double bench_result_cpu_per_gb(const struct bench_result *r)
{
    return r->bytes > 0 ? r->cpu_s / ((double)r->bytes / 1e9) : 0;
}

double bench_result_steal_share(const struct bench_result *r)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (r->steal_unknown || r->seconds <= 0 || cpus < 1)
        return -1;
    double share = r->steal_s / (r->seconds * (double)cpus);
    return share < 0 ? 0 : share;
}

double bench_group_gbps(const struct bench_group_result *g)
{
    return g->seconds > 0 ? (double)g->bytes / g->seconds / 1e9 : 0;
}

bool bench_result_measured(const struct bench_result *r)
{
    return r->ran && r->bytes > 0 && r->seconds > 0;
}

bool bench_result_is_latency_floor(const struct bench_result *r)
{
    return strcmp(r->name, "pread+copy") == 0;
}

static bool is_library(const struct bench_result *r)
{
    return strncmp(r->name, "library", 7) == 0;
}

/* A result of one backend (--backends) or of one device or all of them (--devices). */
static bool per_run(const struct bench_result *r)
{
    return r->backend_index >= 0 || r->device >= 0 || r->aggregate;
}

const char *bench_result_label(const struct bench_result *r, char *text, size_t len)
{
    if (r->backend_index >= 0)
        snprintf(text, len, "%s@%s", r->name, r->backend);
    else if (r->device >= 0)
        snprintf(text, len, "%s@dev%d", r->name, r->device);
    else if (r->aggregate)
        snprintf(text, len, "%s@all", r->name);
    else
        snprintf(text, len, "%s", r->name);
    return text;
}

const char *bench_baseline_threads_reason(const struct bench_ctx *ctx)
{
    if (ctx->opts->baseline_threads != 0)
        return "--baseline-threads";
    return ctx->opts->threads == 1 ? "executor threads + 1" : "caller threads";
}

/*
 * Every library method to every baseline, and the async and batch methods to the sync one. With
 * --backends each backend's method also to the first backend's same method; the methods of one
 * backend or one device are compared among themselves only. An aggregate of several devices is
 * set against the sum of the single-device runs instead (bench_single_runs). Latency ratios need
 * per-call latency, which a batch does not have.
 */
bool bench_ratio_wanted(const struct bench_result *l, const struct bench_result *b)
{
    if (l == b || !is_library(l) || !bench_result_measured(l) || !bench_result_measured(b) ||
        l->aggregate)
        return false;
    if (per_run(b)) {
        if (b->aggregate)
            return false;
        if (l->backend_index != b->backend_index)
            return b->backend_index == 0 && strcmp(l->name, b->name) == 0;
        if (l->device != b->device)
            return false;
        return !is_library(b) || strcmp(b->name, "library") == 0;
    }
    if (is_library(b))
        return strcmp(b->name, "library") == 0;
    if (bench_result_is_latency_floor(b))
        return strcmp(l->name, "library-batch") != 0;
    return true;
}

unsigned bench_single_runs(const struct bench_result *results, unsigned n,
                           const struct bench_result *agg, double *sum_p)
{
    unsigned found = 0;
    *sum_p = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *r = &results[i];
        if (r->device >= 0 && strcmp(r->name, agg->name) == 0 && bench_result_measured(r)) {
            *sum_p += bench_result_gbps(r);
            found++;
        }
    }
    return found;
}

const struct bench_result *bench_single_run_of(const struct bench_result *results, unsigned n,
                                               const char *name, int device)
{
    for (unsigned i = 0; i < n; i++)
        if (results[i].device == device && strcmp(results[i].name, name) == 0)
            return &results[i];
    return NULL;
}
