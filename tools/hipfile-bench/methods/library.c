/*
 * The library as the bench drives it: the driver opened with the settings the options ask for,
 * and the library's methods (one per --api, then sync-seq) ready to measure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* --devices all becomes the runtime's devices; every listed one must exist. 0 or 2. */
static int resolve_devices(struct bench_options *o, int devices)
{
    if (o->all_devices) {
        o->n_devices = devices < BENCH_MAX_DEVICES ? (unsigned)devices : BENCH_MAX_DEVICES;
        for (unsigned i = 0; i < o->n_devices; i++)
            o->devices[i] = (int)i;
    }
    for (unsigned i = 0; i < o->n_devices; i++) {
        if (o->devices[i] >= devices) {
            fprintf(stderr,
                    BENCH_NAME ": --devices: device %d: the HIP runtime reports %d device%s\n",
                    o->devices[i], devices, devices == 1 ? "" : "s");
            return 2;
        }
    }
    if (o->n_devices == 0)
        return 0;
    /* Baselines and the main thread's copies use the first listed device, as --device would. */
    o->device = o->devices[0];
    if (o->file_size / o->io_size < (uint64_t)o->n_devices * o->threads) {
        fprintf(stderr,
                BENCH_NAME ": --file-size holds fewer than %u calls: every thread of every device "
                           "in --devices needs a region of at least one call\n",
                o->n_devices * o->threads);
        return 2;
    }
    return 0;
}

/*
 * A batch bigger than properties.max_batch_io_count's default would fail at set-up with the
 * default configuration, so the bench raises the limit for its own process, through the setting's
 * environment variable, unless the user set that variable.
 */
static int raise_batch_limit(const struct bench_options *o)
{
    if (!(o->apis & BENCH_API_BATCH) || getenv("HIPFILE_MAX_BATCH_IO_COUNT") != NULL)
        return 0;
    char value[16];
    snprintf(value, sizeof(value), "%u", o->batch_entries);
    if (setenv("HIPFILE_MAX_BATCH_IO_COUNT", value, 1) != 0) {
        fprintf(stderr, BENCH_NAME ": setting HIPFILE_MAX_BATCH_IO_COUNT: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

int bench_library_open(struct bench_options *o)
{
    hipFileError_t status;
    if (raise_batch_limit(o) != 0)
        return -1;
    if (o->mem != BENCH_MEM_DEVICE) {
        status = hipFileSetParameterBool(hipFileParamPropertiesAllowSystemMemory, true);
        if (status.err != hipFileSuccess)
            return -bench_status_error("setting properties.allow_system_memory for --mem", status);
    }
    if (o->io_threads != 0) {
        status = hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, o->io_threads);
        if (status.err != hipFileSuccess)
            return -bench_status_error("setting execution.max_io_threads (--io-threads)", status);
    }
    /* The per-GPU counters prove each device's requests were counted on that device. */
    if (o->n_devices != 0 || o->all_devices) {
        status = hipFileSetParameterSizeT(hipFileParamProfileStats, 3);
        if (status.err != hipFileSuccess)
            fprintf(stderr, BENCH_NAME ": warning: statistics level 3 refused; the per-device "
                                       "request counts are not checked\n");
    }
    int devices = 0;
    hipError_t err = hipGetDeviceCount(&devices);
    if (err != hipSuccess)
        return -bench_hip_error("hipGetDeviceCount", err);
    if (o->device >= devices) {
        fprintf(stderr, BENCH_NAME ": --device %d: the HIP runtime reports %d device%s\n",
                o->device, devices, devices == 1 ? "" : "s");
        return 2;
    }
    int rc = resolve_devices(o, devices);
    if (rc != 0)
        return rc;
    err = hipSetDevice(o->device);
    if (err != hipSuccess)
        return -bench_hip_error("hipSetDevice", err);
    status = hipFileDriverOpen();
    if (status.err != hipFileSuccess)
        return -bench_status_error("hipFileDriverOpen", status);
    return 0;
}

/* The library's APIs in the order they run, by --api bit. */
static const struct {
    unsigned bit;
    const struct bench_method *method;
} library_apis[] = {
    {BENCH_API_SYNC, &bench_method_library},
    {BENCH_API_ASYNC, &bench_method_library_async},
    {BENCH_API_BATCH, &bench_method_library_batch},
};

unsigned bench_library_methods(const struct bench_options *o, unsigned *which)
{
    unsigned n = 0;
    for (unsigned i = 0; i < sizeof(library_apis) / sizeof(library_apis[0]); i++)
        if (o->apis & library_apis[i].bit)
            which[n++] = i;
    if ((o->baselines & BENCH_BL_SYNC_SEQ) ||
        (!o->baselines_explicit && (o->apis & BENCH_API_BATCH)))
        which[n++] = BENCH_METHOD_SYNC_SEQ;
    return n;
}

/*
 * sync-seq is the library's sync API sweeping the file in order, each call moving what one batch
 * moves: the throughput a batch of scattered calls is judged against.
 */
void bench_library_method(const struct bench_ctx *ctx, unsigned which,
                          struct bench_options *seq_opts, struct bench_ctx *out_ctx,
                          struct bench_method *out)
{
    const struct bench_options *o = ctx->opts;
    *out_ctx = *ctx;
    if (which != BENCH_METHOD_SYNC_SEQ) {
        *out = *library_apis[which].method;
        out->threads = o->threads;
        return;
    }
    uint64_t call = (uint64_t)o->batch_entries * o->io_size;
    uint64_t file_bytes = ctx->chunks * o->io_size;
    unsigned threads = o->threads * (ctx->n_groups != 0 ? ctx->n_groups : 1);
    if (call > BENCH_MAX_IO_SIZE)
        call = BENCH_MAX_IO_SIZE / o->io_size * o->io_size;
    if (call > file_bytes / threads)
        call = file_bytes / threads / o->io_size * o->io_size;
    *seq_opts = *o;
    seq_opts->io_size = (size_t)call;
    seq_opts->iterations = 0;
    out_ctx->opts = seq_opts;
    out_ctx->chunks = file_bytes / call;
    out_ctx->wl = &bench_workloads[ctx->wl->op == BENCH_READ ? 0 : 1];
    *out = bench_method_library;
    out->name = "sync-seq";
    out->threads = o->threads;
}
