/*
 * hipfile-bench's checks of the whole command line, made before anything is allocated so that a
 * bad combination is one clear message instead of a failure half way through a run.
 */
#include <stdio.h>

#include "options/option_checks.h"

/*
 * What one call size needs of the other options; @p option names where it came from ("--io-size",
 * or "a --sweep size").
 */
static int check_call_size(const struct bench_options *o, size_t io_size, const char *option)
{
    char a[32], b[32];
    if (io_size > BENCH_MAX_IO_SIZE) {
        fprintf(stderr, BENCH_NAME ": %s %s is above the %s one call can move\n", option,
                bench_size_text(io_size, a, sizeof(a)),
                bench_size_text(BENCH_MAX_IO_SIZE, b, sizeof(b)));
        return -1;
    }
    if (o->file_size / io_size < o->threads) {
        fprintf(stderr,
                BENCH_NAME ": --file-size %s holds fewer than --threads (%u) calls of %s %s; every "
                           "thread needs a region of at least one call%s\n",
                bench_size_text(o->file_size, a, sizeof(a)), o->threads, option,
                bench_size_text(io_size, b, sizeof(b)),
                o->n_sweep != 0 ? " (without --file-size, a sweep's file grows to fit)" : "");
        return -1;
    }
    if ((o->apis & BENCH_API_BATCH) &&
        (uint64_t)o->batch_entries * io_size > (o->mem == BENCH_MEM_DEVICE ? 64ull : 16ull) << 30) {
        fprintf(stderr,
                BENCH_NAME ": --batch-entries %u of %s %s need more than %s of buffer per "
                           "thread\n",
                o->batch_entries, option, bench_size_text(io_size, a, sizeof(a)),
                o->mem == BENCH_MEM_DEVICE ? "64 GiB" : "16 GiB");
        return -1;
    }
    return 0;
}

/*
 * A sweep's file must hold every thread's call of the largest size. A --file-size given is what
 * the user wants measured (its cache footprint, its disk space), so it is checked, not changed;
 * the default grows to fit.
 */
void bench_sweep_file_size(struct bench_options *o, bool file_size_given)
{
    size_t largest = 0;
    for (unsigned i = 0; i < o->n_sweep; i++)
        if (o->sweep_sizes[i] > largest)
            largest = o->sweep_sizes[i];
    /* Checks made before the sweep loop (--devices) judge the most demanding size. */
    o->io_size = largest;
    uint64_t needed = (uint64_t)largest * o->threads * (o->n_devices != 0 ? o->n_devices : 1);
    if (!file_size_given && needed > o->file_size)
        o->file_size = needed;
}

int bench_check_combination(const struct bench_options *o, bool time_given, bool passes_given,
                            bool io_size_given)
{
    char a[32];
    if (time_given && passes_given) {
        fprintf(stderr, BENCH_NAME ": give --time or --passes, not both\n");
        return -1;
    }
    if (o->n_sweep != 0 && io_size_given) {
        fprintf(stderr, BENCH_NAME ": give --io-size or --sweep, not both\n");
        return -1;
    }
    for (unsigned i = 0; i < o->n_sweep; i++)
        if (check_call_size(o, o->sweep_sizes[i], "a --sweep size") != 0)
            return -1;
    if (o->n_sweep == 0 && check_call_size(o, o->io_size, "--io-size") != 0)
        return -1;
    if (o->n_backends != 0 && (o->n_devices != 0 || o->all_devices)) {
        fprintf(stderr, BENCH_NAME ": give --backends or --devices, not both\n");
        return -1;
    }
    if ((o->n_devices != 0 || o->all_devices) && o->device_given) {
        fprintf(stderr, BENCH_NAME ": give --device or --devices, not both\n");
        return -1;
    }
    if (o->copy_chunk > BENCH_MAX_IO_SIZE) {
        fprintf(stderr, BENCH_NAME ": --copy-chunk %s is too large\n",
                bench_size_text(o->copy_chunk, a, sizeof(a)));
        return -1;
    }
    return 0;
}
