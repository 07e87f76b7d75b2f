/*
 * The statistics as text: what hipfile-check-style readers and the at-exit report
 * (profile.stats_report, HIPFILE_STATS_REPORT) print. The numbers are hipFileGetStatsL3's, plus
 * which loaded backend served how many requests, which the public structs have no room for.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "common/regular_file.h"
#include "config/config.h"
#include "config/settings.h"
#include "host/loader.h"
#include "services/stats.h"

#define HIST_BUCKETS 32

static void write_ops(FILE *out, const char *name, hipFileOpCounter_t c)
{
    fprintf(out, "  %-22s ok %" PRIu64 ", failed %" PRIu64 "\n", name, c.ok, c.err);
}

/* Bucket i of the level-2 histograms holds sizes of [2^i, 2^(i+1)) KiB; bucket 0 also below. */
static void write_histogram(FILE *out, const char *name, const uint64_t *hist)
{
    bool any = false;
    for (int i = 0; i < HIST_BUCKETS; i++)
        any |= hist[i] != 0;
    if (!any)
        return;
    fprintf(out, "  %s sizes (KiB from: count):", name);
    for (int i = 0; i < HIST_BUCKETS; i++) {
        if (hist[i] != 0)
            fprintf(out, " %s%" PRIu64 ": %" PRIu64, i == HIST_BUCKETS - 1 ? ">=" : "",
                    i == 0 ? 0 : (uint64_t)1 << i, hist[i]);
    }
    fputc('\n', out);
}

static void write_gpu(FILE *out, int index, const hipFilePerGpuStats_t *g)
{
    if (g->n_total_reads == 0 && g->n_total_writes == 0 && g->n_mmap == 0)
        return;
    fprintf(out,
            "  GPU %d: reads %" PRIu64 " (direct %" PRIu64 ", compat %" PRIu64 ", failed %" PRIu64
            ", unaligned %" PRIu64 "), %" PRIu64 " bytes, %" PRIu64 " B/s\n",
            index, g->n_total_reads, g->n_nvfs_reads, g->n_posix_reads, g->n_reads_err,
            g->n_unaligned_reads, g->read_bytes, g->read_bw_bytes_per_sec);
    fprintf(out,
            "         writes %" PRIu64 " (direct %" PRIu64 ", compat %" PRIu64 ", failed %" PRIu64
            ", unaligned %" PRIu64 "), %" PRIu64 " bytes, %" PRIu64 " B/s\n",
            g->n_total_writes, g->n_nvfs_writes, g->n_posix_writes, g->n_writes_err,
            g->n_unaligned_writes, g->write_bytes, g->write_bw_bytes_per_sec);
    fprintf(out,
            "         buffer registrations %" PRIu64 " (ok %" PRIu64 ", failed %" PRIu64
            "), deregistrations %" PRIu64 ", %" PRIu64 " bytes registered now\n",
            g->n_mmap, g->n_mmap_ok, g->n_mmap_err, g->n_mmap_free, g->reg_bytes);
}

/*
 * The level-1 counters, the size histograms' non-empty buckets, each GPU that saw I/O and how
 * many requests each loaded backend served.
 */
static void stats_report_write(FILE *out)
{
    hipFileStatsLevel3_t s;
    hf_stats_snapshot(&s);
    const hipFileStatsLevel1_t *b = &s.detailed.basic;
    fprintf(out, "hipfile statistics (process %d, profile.stats = %lld)\n", (int)getpid(),
            (long long)hf_setting_int(HF_SETTING_PROFILE_STATS));
    write_ops(out, "reads", b->read_ops);
    write_ops(out, "writes", b->write_ops);
    fprintf(out,
            "  %-22s read %" PRIu64 ", written %" PRIu64 "\n"
            "  %-22s read %" PRIu64 " us, write %" PRIu64 " us (average)\n"
            "  %-22s read %" PRIu64 ", write %" PRIu64 " (while requests were in the library)\n",
            "bytes", b->read_bytes, b->write_bytes, "latency", b->read_lat_avg_us,
            b->write_lat_avg_us, "bandwidth B/s", b->read_bw_bytes_per_sec,
            b->write_bw_bytes_per_sec);
    write_ops(out, "file registrations", b->hdl_register_ops);
    write_ops(out, "file deregistrations", b->hdl_deregister_ops);
    write_ops(out, "buffer registrations", b->buf_register_ops);
    write_ops(out, "buffer deregistrations", b->buf_deregister_ops);
    write_ops(out, "batch setups", b->batch_setup_ops);
    write_ops(out, "batch submissions", b->batch_submit_ops);
    write_ops(out, "batch completions", b->batch_complete_ops);
    write_ops(out, "batch cancels", b->batch_cancel_ops);
    write_ops(out, "batch destroys", b->batch_destroy_ops);
    fprintf(out, "  %-22s read %" PRIu64 ", written %" PRIu64 "\n", "batch bytes",
            b->batch_read_bytes, b->batch_write_bytes);
    write_histogram(out, "read", s.detailed.read_size_kb_hist);
    write_histogram(out, "write", s.detailed.write_size_kb_hist);
    for (int i = 0; i < HIPFILE_MAX_GPUS; i++)
        write_gpu(out, i, &s.per_gpu_stats[i]);
    unsigned count = hf_backend_count();
    for (unsigned i = 0; i < count; i++) {
        const struct hf_backend *backend = hf_backend_at(i);
        fprintf(out, "  backend %s served: reads %" PRIu64 ", writes %" PRIu64 "\n", backend->name,
                hf_stats_backend_served(i, HF_IO_READ), hf_stats_backend_served(i, HF_IO_WRITE));
    }
}

/*
 * At exit, when profile.stats_report names a file and anything was counted. Appending (and never
 * creating the directory) keeps several processes' reports side by side. Nothing GPU-related
 * happens here; only counters and configuration strings that are never freed are read.
 */
__attribute__((destructor)) static void stats_report_at_exit(void)
{
    const char *path = hf_setting_string(HF_SETTING_PROFILE_STATS_REPORT);
    if (path == NULL || path[0] == '\0' || hf_setting_int(HF_SETTING_PROFILE_STATS) < 1 ||
        !hf_stats_started())
        return;
    /* A FIFO nobody reads would hold the program's exit for ever. */
    char why[HFP_REGULAR_WHY_SIZE];
    int fd = hfp_open_regular(path, O_WRONLY | O_CREAT | O_APPEND, 0644, NULL, why, sizeof(why));
    FILE *out = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (out == NULL) {
        if (fd >= 0)
            snprintf(why, sizeof(why), "%s", strerror(errno));
        hf_warn("cannot write the statistics report to %s: %s", path, why);
        if (fd >= 0)
            close(fd);
        return;
    }
    stats_report_write(out);
    fclose(out);
}
