/*
 * Per-call latency histograms: fixed size, cheap enough to update on every call, mergeable across
 * threads, and precise to a few percent at any percentile from nanoseconds to hours.
 */
#include <math.h>

#include "bench.h"

/*
 * Below 64 ns every value has its own bucket; above, a power of two [2^k, 2^(k+1)) is cut into 32
 * buckets, so a bucket is at most 1/32 of its values wide: percentiles are within about 1.6%.
 */
static unsigned hist_index(uint64_t ns)
{
    if (ns < 64)
        return (unsigned)ns;
    unsigned shift = 63u - (unsigned)__builtin_clzll(ns) - 5u;
    return shift * 32u + (unsigned)(ns >> shift);
}

/* The smallest value that lands in bucket @p index. */
static double hist_low(unsigned index)
{
    if (index < 64)
        return index;
    return ldexp((double)(index % 32u + 32u), (int)(index / 32u) - 1);
}

void bench_hist_add(struct bench_hist *hist, uint64_t ns)
{
    hist->buckets[hist_index(ns)]++;
    hist->count++;
    if (ns > hist->max_ns)
        hist->max_ns = ns;
}

void bench_hist_merge(struct bench_hist *into, const struct bench_hist *from)
{
    for (size_t i = 0; i < sizeof(into->buckets) / sizeof(into->buckets[0]); i++)
        into->buckets[i] += from->buckets[i];
    into->count += from->count;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
}

double bench_hist_percentile(const struct bench_hist *hist, double percent)
{
    if (hist->count == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(percent / 100.0 * (double)hist->count);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < sizeof(hist->buckets) / sizeof(hist->buckets[0]); i++) {
        if (seen + hist->buckets[i] < rank) {
            seen += hist->buckets[i];
            continue;
        }
        /* Spread the bucket's samples evenly over its width rather than report one value. */
        double low = hist_low(i), width = hist_low(i + 1) - low;
        double v = low + width * ((double)(rank - seen) - 0.5) / (double)hist->buckets[i];
        return v > (double)hist->max_ns ? (double)hist->max_ns : v;
    }
    return (double)hist->max_ns;
}
