/*
 * The pinned copy baseline: how fast the GPU link moves data between pinned host memory and the
 * device with large copies kept in flight on several streams. No file path can beat it, so the
 * library's read and write bandwidth is quoted as a fraction of it.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct copy_lane {
    void *host;
    void *device;
    hipStream_t stream;
};

static int lanes_create(struct copy_lane *lanes, unsigned n, size_t chunk)
{
    for (unsigned i = 0; i < n; i++) {
        if (bench_alloc(BENCH_MEM_PINNED, chunk, &lanes[i].host) != 0 ||
            bench_alloc(BENCH_MEM_DEVICE, chunk, &lanes[i].device) != 0)
            return -1;
        hipError_t err = hipStreamCreateWithFlags(&lanes[i].stream, hipStreamNonBlocking);
        if (err != hipSuccess)
            return bench_hip_error("hipStreamCreateWithFlags", err);
    }
    return 0;
}

static void lanes_destroy(struct copy_lane *lanes, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (lanes[i].stream != NULL)
            (void)hipStreamDestroy(lanes[i].stream);
        bench_free(BENCH_MEM_DEVICE, lanes[i].device);
        bench_free(BENCH_MEM_PINNED, lanes[i].host);
    }
}

static int copy_on(struct copy_lane *lane, size_t chunk, enum bench_op op)
{
    hipError_t err =
        op == BENCH_READ
            ? hipMemcpyAsync(lane->device, lane->host, chunk, hipMemcpyHostToDevice, lane->stream)
            : hipMemcpyAsync(lane->host, lane->device, chunk, hipMemcpyDeviceToHost, lane->stream);
    return err == hipSuccess ? 0 : bench_hip_error("hipMemcpyAsync", err);
}

static int lanes_drain(struct copy_lane *lanes, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        hipError_t err = hipStreamSynchronize(lanes[i].stream);
        if (err != hipSuccess)
            return bench_hip_error("hipStreamSynchronize", err);
    }
    return 0;
}

/*
 * Each stream has one copy in flight; a new copy goes on a stream once its previous one is done,
 * so the copy engine always has the other streams' copies queued and never waits on this thread.
 */
static int copy_loop(const struct bench_ctx *ctx, struct copy_lane *lanes, enum bench_op op,
                     uint64_t bytes, struct bench_result *result)
{
    const struct bench_options *o = ctx->opts;
    unsigned n = o->copy_streams;
    uint64_t copies = 0;
    struct bench_cpu_mark c0 = bench_cpu_mark_now();
    uint64_t t0 = bench_now_ns();
    uint64_t deadline = o->time_s > 0 ? t0 + (uint64_t)(o->time_s * 1e9) : 0;
    for (;;) {
        struct copy_lane *lane = &lanes[copies % n];
        hipError_t err = hipStreamSynchronize(lane->stream);
        if (err != hipSuccess)
            return bench_hip_error("hipStreamSynchronize", err);
        if (copy_on(lane, o->copy_chunk, op) != 0)
            return -1;
        copies++;
        if (bench_stop ||
            (deadline != 0 ? bench_now_ns() >= deadline : copies * o->copy_chunk >= bytes))
            break;
    }
    if (lanes_drain(lanes, n) != 0)
        return -1;
    result->seconds = (double)(bench_now_ns() - t0) / 1e9;
    bench_cpu_mark_charge(result, &c0);
    result->calls = copies;
    result->bytes = copies * o->copy_chunk;
    return 0;
}

int bench_copy_bandwidth(const struct bench_ctx *ctx, enum bench_op op, uint64_t bytes,
                         struct bench_result *result)
{
    const struct bench_options *o = ctx->opts;
    unsigned n = o->copy_streams;
    int rc = -1;

    bench_result_init(result, op == BENCH_READ ? "pinned-h2d" : "pinned-d2h");
    result->threads = n;
    result->passes = 1;
    /* At least two copies per stream, so the pipeline fills. */
    if (bytes < 2ull * n * o->copy_chunk)
        bytes = 2ull * n * o->copy_chunk;
    struct copy_lane *lanes = calloc(n, sizeof(*lanes));
    if (lanes == NULL) {
        snprintf(result->note, sizeof(result->note), "no memory");
        goto failed;
    }
    if (lanes_create(lanes, n, o->copy_chunk) != 0) {
        snprintf(result->note, sizeof(result->note), "cannot allocate %u pinned and device chunks",
                 n);
        goto destroy_lanes;
    }
    /* Warm-up: one copy per stream, so first-use costs of the runtime are not measured. */
    for (unsigned i = 0; i < n; i++)
        if (copy_on(&lanes[i], o->copy_chunk, op) != 0)
            goto copy_failed;
    if (lanes_drain(lanes, n) != 0 || copy_loop(ctx, lanes, op, bytes, result) != 0)
        goto copy_failed;
    result->ran = true;
    rc = 0;
    goto destroy_lanes;

copy_failed:
    snprintf(result->note, sizeof(result->note), "a copy failed");
destroy_lanes:
    lanes_destroy(lanes, n);
    free(lanes);
failed:
    result->failed = rc != 0;
    return rc;
}
