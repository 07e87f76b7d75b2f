/*
 * Counters behind hipFileGetStatsL1/L2/L3. Every counter is a relaxed atomic: a snapshot may mix
 * values from a moment apart, which reports tolerate, and no request ever waits on a lock here.
 * Level 1 needs profile.stats >= 1, level 2 >= 2, level 3 >= 3 (AMD's HIPFILE_STATS_LEVEL rule);
 * everything is counted whenever profile.stats >= 1, so raising the level shows the whole history.
 */
#include "services/stats.h"

#include <hipfile/stats.h>

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "config/settings.h"
#include "services/gpu.h"

#define HIST_BUCKETS 32

typedef atomic_uint_fast64_t counter_t;

struct op_counts {
    counter_t ok;
    counter_t err;
};

struct gpu_counts {
    counter_t bytes[2];
    counter_t duration_ns[2];
    counter_t total[2];
    counter_t direct[2];
    counter_t compat[2];
    counter_t unaligned[2];
    counter_t errors[2];
    counter_t buf_register;
    counter_t buf_register_ok;
    counter_t buf_register_err;
    counter_t buf_deregister;
    atomic_int_fast64_t registered_bytes;
};

static struct {
    struct op_counts io[2];
    struct op_counts file_register, file_deregister, buf_register, buf_deregister;
    counter_t bytes[2];
    counter_t latency_ns[2];
    counter_t hist[2][HIST_BUCKETS];
    struct op_counts batch_setup, batch_submit, batch_cancel, batch_destroy, batch_complete;
    counter_t batch_entries, batch_bytes[2], batch_last_bytes[2];
    counter_t batch_submit_ns, batch_wait_ns;
    struct gpu_counts gpu[HIPFILE_MAX_GPUS];
    counter_t backend_served[HF_STATS_MAX_BACKENDS][2];
    atomic_uint_fast64_t start_ns;
} S;

#define ADD(c, v) atomic_fetch_add_explicit(&(c), (v), memory_order_relaxed)
#define GET(c) atomic_load_explicit(&(c), memory_order_relaxed)

uint64_t hf_stats_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool counting(void)
{
    if (hf_setting_int(HF_SETTING_PROFILE_STATS) < 1)
        return false;
    uint_fast64_t zero = 0;
    if (GET(S.start_ns) == 0)
        atomic_compare_exchange_strong(&S.start_ns, &zero, hf_stats_now_ns());
    return true;
}

static void count_op(struct op_counts *c, bool ok)
{
    if (ok)
        ADD(c->ok, 1);
    else
        ADD(c->err, 1);
}

/* Size buckets of the level-2 histograms: bucket i holds sizes of [2^i, 2^(i+1)) KiB, bucket 0
 * also everything under 2 KiB, the last one everything above. */
static unsigned hist_bucket(size_t size)
{
    size_t kib = size >> 10;
    unsigned b = 0;
    while (kib > 1 && b < HIST_BUCKETS - 1) {
        kib >>= 1;
        b++;
    }
    return b;
}

void hf_stats_io(const struct hf_stats_io_record *rec)
{
    if (!counting())
        return;
    int op = rec->op == HF_IO_WRITE ? 1 : 0;
    bool ok = rec->result >= 0;
    count_op(&S.io[op], ok);
    ADD(S.latency_ns[op], rec->latency_ns);
    ADD(S.hist[op][hist_bucket(rec->size)], 1);
    if (ok)
        ADD(S.bytes[op], (uint64_t)rec->result);
    if (rec->served >= 0 && rec->served < HF_STATS_MAX_BACKENDS)
        ADD(S.backend_served[rec->served][op], 1);
    if (rec->device < 0 || rec->device >= HIPFILE_MAX_GPUS)
        return;
    struct gpu_counts *g = &S.gpu[rec->device];
    ADD(g->total[op], 1);
    ADD(g->duration_ns[op], rec->latency_ns);
    if (!ok) {
        ADD(g->errors[op], 1);
        return;
    }
    ADD(g->bytes[op], (uint64_t)rec->result);
    if (rec->unaligned)
        ADD(g->unaligned[op], 1);
    if (rec->served >= 0 && rec->served_direct)
        ADD(g->direct[op], 1);
    else if (rec->served >= 0)
        ADD(g->compat[op], 1);
}

void hf_stats_file_register(bool ok)
{
    if (counting())
        count_op(&S.file_register, ok);
}

void hf_stats_file_deregister(void)
{
    if (counting())
        count_op(&S.file_deregister, true);
}

void hf_stats_buf_register(bool ok, int device, size_t bytes)
{
    if (!counting())
        return;
    count_op(&S.buf_register, ok);
    if (device < 0 || device >= HIPFILE_MAX_GPUS)
        return;
    struct gpu_counts *g = &S.gpu[device];
    ADD(g->buf_register, 1);
    if (ok) {
        ADD(g->buf_register_ok, 1);
        atomic_fetch_add_explicit(&g->registered_bytes, (int_fast64_t)bytes, memory_order_relaxed);
    } else {
        ADD(g->buf_register_err, 1);
    }
}

void hf_stats_buf_deregister(bool ok, int device, size_t bytes)
{
    if (!counting())
        return;
    count_op(&S.buf_deregister, ok);
    if (!ok || device < 0 || device >= HIPFILE_MAX_GPUS)
        return;
    ADD(S.gpu[device].buf_deregister, 1);
    atomic_fetch_sub_explicit(&S.gpu[device].registered_bytes, (int_fast64_t)bytes,
                              memory_order_relaxed);
}

void hf_stats_batch(enum hf_stats_batch_event event, bool ok)
{
    if (!counting())
        return;
    switch (event) {
    case HF_STATS_BATCH_SETUP:
        count_op(&S.batch_setup, ok);
        break;
    case HF_STATS_BATCH_SUBMIT:
        count_op(&S.batch_submit, ok);
        break;
    case HF_STATS_BATCH_CANCEL:
        count_op(&S.batch_cancel, ok);
        break;
    case HF_STATS_BATCH_DESTROY:
        count_op(&S.batch_destroy, ok);
        break;
    }
}

void hf_stats_batch_entries(unsigned entries, uint64_t read_bytes, uint64_t write_bytes,
                            uint64_t submit_ns)
{
    if (!counting())
        return;
    ADD(S.batch_entries, entries);
    ADD(S.batch_bytes[0], read_bytes);
    ADD(S.batch_bytes[1], write_bytes);
    atomic_store_explicit(&S.batch_last_bytes[0], read_bytes, memory_order_relaxed);
    atomic_store_explicit(&S.batch_last_bytes[1], write_bytes, memory_order_relaxed);
    ADD(S.batch_submit_ns, submit_ns);
}

void hf_stats_batch_completed(unsigned events, uint64_t wait_ns)
{
    if (!counting())
        return;
    ADD(S.batch_complete.ok, events);
    ADD(S.batch_wait_ns, wait_ns);
}

uint64_t hf_stats_backend_served(unsigned backend_index, int op)
{
    if (backend_index >= HF_STATS_MAX_BACKENDS)
        return 0;
    return GET(S.backend_served[backend_index][op == HF_IO_WRITE ? 1 : 0]);
}

/* ---- snapshots ---- */

static hipFileOpCounter_t op_snapshot(struct op_counts *c)
{
    return (hipFileOpCounter_t){.ok = GET(c->ok), .err = GET(c->err)};
}

static uint64_t per_sec(uint64_t count, uint64_t ns)
{
    return ns == 0 ? 0 : (uint64_t)((double)count * 1e9 / (double)ns);
}

static hipFileError_t stats_check(const void *stats, int level, const char *what)
{
    if (stats == NULL) {
        hf_error("%s: stats is NULL", what);
        return hf_status(hipFileInvalidValue);
    }
    int64_t have = hf_setting_int(HF_SETTING_PROFILE_STATS);
    if (have < level) {
        hf_error("%s: needs statistics level %d, but profile.stats is %lld "
                 "(HIPFILE_STATS_LEVEL, hipFileParamProfileStats)",
                 what, level, (long long)have);
        return hf_status(hipFileInternalError);
    }
    return hf_status(hipFileSuccess);
}

static void fill_level1(hipFileStatsLevel1_t *s)
{
    memset(s, 0, sizeof(*s));
    uint64_t start = GET(S.start_ns);
    uint64_t elapsed = start != 0 ? hf_stats_now_ns() - start : 0;
    s->read_ops = op_snapshot(&S.io[0]);
    s->write_ops = op_snapshot(&S.io[1]);
    s->hdl_register_ops = op_snapshot(&S.file_register);
    s->hdl_deregister_ops = op_snapshot(&S.file_deregister);
    s->buf_register_ops = op_snapshot(&S.buf_register);
    s->buf_deregister_ops = op_snapshot(&S.buf_deregister);
    s->read_bytes = GET(S.bytes[0]);
    s->write_bytes = GET(S.bytes[1]);
    uint64_t read_ns = GET(S.latency_ns[0]), write_ns = GET(S.latency_ns[1]);
    /* Bandwidth while requests were in the library, not averaged over idle time. */
    s->read_bw_bytes_per_sec = per_sec(s->read_bytes, read_ns);
    s->write_bw_bytes_per_sec = per_sec(s->write_bytes, write_ns);
    s->read_lat_sum_us = read_ns / 1000;
    s->write_lat_sum_us = write_ns / 1000;
    uint64_t reads = s->read_ops.ok + s->read_ops.err;
    uint64_t writes = s->write_ops.ok + s->write_ops.err;
    s->read_lat_avg_us = reads ? s->read_lat_sum_us / reads : 0;
    s->write_lat_avg_us = writes ? s->write_lat_sum_us / writes : 0;
    s->read_ops_per_sec = per_sec(reads, elapsed);
    s->write_ops_per_sec = per_sec(writes, elapsed);

    s->batch_submit_ops = op_snapshot(&S.batch_submit);
    s->batch_complete_ops = op_snapshot(&S.batch_complete);
    s->batch_setup_ops = op_snapshot(&S.batch_setup);
    s->batch_cancel_ops = op_snapshot(&S.batch_cancel);
    s->batch_destroy_ops = op_snapshot(&S.batch_destroy);
    uint64_t entries = GET(S.batch_entries);
    /* Batch entries run through the same POSIX-capable data path as synchronous I/O. */
    s->batch_enqueued_ops.ok = entries;
    s->batch_posix_enqueued_ops.ok = entries;
    s->batch_processed_ops.ok = s->batch_complete_ops.ok;
    s->batch_posix_processed_ops.ok = s->batch_complete_ops.ok;
    s->batch_total_submit_ops = s->batch_submit_ops;
    s->batch_read_bytes = GET(S.batch_bytes[0]);
    s->batch_write_bytes = GET(S.batch_bytes[1]);
    uint64_t submit_ns = GET(S.batch_submit_ns), wait_ns = GET(S.batch_wait_ns);
    s->batch_read_bw_bytes = per_sec(s->batch_read_bytes, submit_ns);
    s->batch_write_bw_bytes = per_sec(s->batch_write_bytes, submit_ns);
    s->batch_submit_lat_sum_us = submit_ns / 1000;
    s->batch_completion_lat_sum_us = wait_ns / 1000;
    uint64_t submits = s->batch_submit_ops.ok + s->batch_submit_ops.err;
    s->batch_submit_lat_avg_us = submits ? s->batch_submit_lat_sum_us / submits : 0;
    s->batch_completion_lat_avg_us =
        s->batch_complete_ops.ok ? s->batch_completion_lat_sum_us / s->batch_complete_ops.ok : 0;
    s->batch_submit_ops_per_sec = per_sec(submits, elapsed);
    s->batch_complete_ops_per_sec = per_sec(s->batch_complete_ops.ok, elapsed);
    s->last_batch_read_bytes = GET(S.batch_last_bytes[0]);
    s->last_batch_write_bytes = GET(S.batch_last_bytes[1]);
}

static void fill_level2(hipFileStatsLevel2_t *s)
{
    fill_level1(&s->basic);
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        s->read_size_kb_hist[i] = GET(S.hist[0][i]);
        s->write_size_kb_hist[i] = GET(S.hist[1][i]);
    }
}

static void fill_gpu(hipFilePerGpuStats_t *out, struct gpu_counts *g, uint64_t elapsed)
{
    memset(out, 0, sizeof(*out));
    out->read_bytes = GET(g->bytes[0]);
    out->read_duration_us = GET(g->duration_ns[0]) / 1000;
    out->read_bw_bytes_per_sec = per_sec(out->read_bytes, GET(g->duration_ns[0]));
    out->read_utilization = elapsed ? GET(g->duration_ns[0]) * 100 / elapsed : 0;
    out->n_total_reads = GET(g->total[0]);
    out->n_nvfs_reads = GET(g->direct[0]);
    out->n_posix_reads = GET(g->compat[0]);
    out->n_unaligned_reads = GET(g->unaligned[0]);
    out->n_reads_err = GET(g->errors[0]);
    out->write_bytes = GET(g->bytes[1]);
    out->write_duration_us = GET(g->duration_ns[1]) / 1000;
    out->write_bw_bytes_per_sec = per_sec(out->write_bytes, GET(g->duration_ns[1]));
    out->write_utilization = elapsed ? GET(g->duration_ns[1]) * 100 / elapsed : 0;
    out->n_total_writes = GET(g->total[1]);
    out->n_nvfs_writes = GET(g->direct[1]);
    out->n_posix_writes = GET(g->compat[1]);
    out->n_unaligned_writes = GET(g->unaligned[1]);
    out->n_writes_err = GET(g->errors[1]);
    out->n_mmap = GET(g->buf_register);
    out->n_mmap_ok = GET(g->buf_register_ok);
    out->n_mmap_err = GET(g->buf_register_err);
    out->n_mmap_free = GET(g->buf_deregister);
    int_fast64_t reg = atomic_load_explicit(&g->registered_bytes, memory_order_relaxed);
    out->reg_bytes = reg > 0 ? (uint64_t)reg : 0;
}

HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t *stats)
{
    hipFileError_t e = stats_check(stats, 1, "hipFileGetStatsL1");
    if (e.err == hipFileSuccess)
        fill_level1(stats);
    return e;
}

HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t *stats)
{
    hipFileError_t e = stats_check(stats, 2, "hipFileGetStatsL2");
    if (e.err == hipFileSuccess)
        fill_level2(stats);
    return e;
}

void hf_stats_snapshot(hipFileStatsLevel3_t *stats)
{
    fill_level2(&stats->detailed);
    uint64_t start = GET(S.start_ns);
    uint64_t elapsed = start != 0 ? hf_stats_now_ns() - start : 0;
    int devices = 0;
    const struct hf_gpu_ops *gpu = hf_gpu();
    if (gpu == NULL || gpu->device_count(&devices) != 0 || devices < 0)
        devices = 0;
    if (devices > HIPFILE_MAX_GPUS)
        devices = HIPFILE_MAX_GPUS;
    stats->num_gpus = (uint32_t)devices;
    for (int i = 0; i < HIPFILE_MAX_GPUS; i++)
        fill_gpu(&stats->per_gpu_stats[i], &S.gpu[i], elapsed);
}

/* Every member of S is one 64-bit atomic, so S is an array of them as far as zeroing goes. */
_Static_assert(sizeof(S) % sizeof(counter_t) == 0 && sizeof(counter_t) == sizeof(uint64_t) &&
                   sizeof(atomic_int_fast64_t) == sizeof(counter_t),
               "the counters are 64-bit atomics only");

/* Whether @p c is the registered_bytes gauge of some GPU, which describes now, not the past. */
static bool is_gauge(const counter_t *c)
{
    const char *p = (const char *)c;
    const char *gpus = (const char *)&S.gpu[0];
    if (p < gpus || p >= (const char *)&S.gpu[HIPFILE_MAX_GPUS])
        return false;
    return (size_t)(p - gpus) % sizeof(struct gpu_counts) ==
           offsetof(struct gpu_counts, registered_bytes);
}

HIPFILE_API hipFileError_t hipFileStatsReset(void)
{
    counter_t *c = (counter_t *)(void *)&S;
    for (size_t i = 0; i < sizeof(S) / sizeof(counter_t); i++)
        if (!is_gauge(&c[i]))
            atomic_store_explicit(&c[i], 0, memory_order_relaxed);
    if (hf_setting_int(HF_SETTING_PROFILE_STATS) >= 1)
        atomic_store_explicit(&S.start_ns, hf_stats_now_ns(), memory_order_relaxed);
    hf_debug("statistics reset");
    return hf_status(hipFileSuccess);
}

bool hf_stats_started(void)
{
    return GET(S.start_ns) != 0;
}

HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t *stats)
{
    hipFileError_t e = stats_check(stats, 3, "hipFileGetStatsL3");
    if (e.err == hipFileSuccess)
        hf_stats_snapshot(stats);
    return e;
}
