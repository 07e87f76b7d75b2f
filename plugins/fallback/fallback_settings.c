/*
 * The fallback backend's settings: the declaration of its config group's keys (units, defaults,
 * ranges), reading them, and the core's limits it follows (hf_core_limits). A bad value is logged
 * and replaced by the declared default rather than failing init: losing the one backend that works
 * everywhere over a typo would turn a tuning mistake into an outage.
 *
 * Its own keys win over the core's: fallback.chunk_size_kb over properties.per_buffer_cache_size_kb
 * and fallback.split_threshold_kb over execution.min_io_threshold_size_kb. Each is declared with
 * the default 0, which follows the core's value: a core that answers unset declared keys with
 * their default (ABI minor 5) must read the same as one that answers -ENOENT. The core's limits
 * that may change while the driver is open (staging memory, splitting, O_DIRECT) are read when they
 * are used, not once, so hipFileDriverSet* and hipFileSetParameter* reach running pools and
 * requests.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "hipfile/plugin_kit.h"
#include "common/plugin_settings.h"
#include "fallback_internal.h"

/*
 * 4 MiB chunks: on the NVIDIA H200 test machine, cached reads staged per thread through two
 * pinned buffers moved 52 GB/s (0.95x of pinned host-to-device copies) at 10-16 threads with
 * 4 MiB chunks, 50 GB/s with 2 MiB, 46-48 with 8 MiB and 36-40 with 16 MiB. Sizes are whole 4 KiB
 * pages so chunk boundaries stay page- and block-aligned for O_DIRECT.
 */
#define CHUNK_KIB_DEFAULT 4096
#define CHUNK_KIB_MAX (1024 * 1024)
#define SIZE_KIB_MULTIPLE 4

/*
 * 16 slots (2 x 4 MiB pinned each: 128 MiB per GPU, the default of
 * properties.max_device_cache_size_kb) cover the 10-16 threads that reached full speed there.
 */
#define SLOTS_DEFAULT 16
#define SLOTS_MAX 1024

/*
 * Requests up to 1 MiB stay on the calling thread: read from the page cache that is some 40 us of
 * copying on one thread, about what waking workers and collecting them costs. Larger ones are cut
 * into pieces of at least 1 MiB, so a piece's fixed costs (taking a slot, the first read and last
 * copy that cannot overlap) stay small against its transfer. docs/backends/fallback.rst has the
 * measurements, and why GPU hosts should settle these two.
 */
#define INLINE_MAX_KIB_DEFAULT 1024
#define SPLIT_THRESHOLD_KIB_DEFAULT 1024

/*
 * Off: on the H200 test machine, one caller's cached 256 MiB reads moved 0.76 and 0.77 of pinned
 * copy bandwidth with 1 MiB tail windows against 0.78 and 0.78 with whole chunks, interleaved in
 * one run (docs/backends/fallback.rst).
 */
#define TAIL_WINDOW_KIB_DEFAULT 0
#define PIPELINE_KIB_MAX (16 * 1024)
/*
 * Staged reads up to 128 MiB run as one pipeline, larger ones in lanes: on the H200 test machine
 * the pipeline moved 0.32 of pinned copy bandwidth at 4 MiB calls (lanes 0.12) and 0.59 at 64 MiB
 * (lanes 0.55), the lanes 0.79 at 256 MiB and 0.89 at 1 GiB (pipeline 0.69 and 0.76), in one run
 * (docs/performance.rst).
 */
#define PIPELINE_MAX_KIB_DEFAULT (128 * 1024)
#define THRESHOLD_KIB_MAX (1024 * 1024)
/*
 * Reads from the page cache's own pages are off unless asked for: on an H100 machine one process's
 * cached reads moved 0.20-0.44 of pinned host-to-device that way against 0.48-0.75 through staging
 * (4 MiB-1 GiB calls), because the driver serializes locking and unlocking within a process; four
 * processes at once moved 48.5-50 GB/s together against 43, at 0.05 CPU s/GB against 0.29
 * (docs/performance.rst). From 64 MiB on when asked for: below it, locking costs more still.
 */
#define MAPPED_READS_DEFAULT false
#define MAPPED_MIN_KIB_DEFAULT (64 * 1024)
#define MAPPED_BLOCK_KIB_MAX (1024 * 1024)

static const char *const direct_io_names[] = {
    [FALLBACK_DIRECT_AUTO] = "auto",
    [FALLBACK_DIRECT_ALWAYS] = "always",
    [FALLBACK_DIRECT_NEVER] = "never",
    NULL,
};

/* Indices of fallback_setting_decls, so that each read names its declaration. */
enum {
    SET_CHUNK_SIZE,
    SET_SLOTS,
    SET_SPLIT_THRESHOLD,
    SET_INLINE_MAX,
    SET_TAIL_WINDOW,
    SET_DIRECT_IO,
    SET_BOUNCE_HOST_ACCESSIBLE,
    SET_PIPELINE_READS,
    SET_PIPELINE_MAX,
    SET_PIPELINE_PIECE,
    SET_PIPELINE_BLOCK,
    SET_STREAMING_STORES,
    SET_MAPPED_READS,
    SET_MAPPED_MIN,
    SET_MAPPED_BLOCK,
};

const struct hf_setting_decl fallback_setting_decls[FALLBACK_SETTING_COUNT] = {
    [SET_CHUNK_SIZE] = {HFP_INT_SETTING("chunk_size_kb", 0, 0, CHUNK_KIB_MAX, "KiB",
                                        "bytes per staging buffer and file I/O window; 0 follows "
                                        "properties.per_buffer_cache_size_kb"),
                        .multiple = SIZE_KIB_MULTIPLE},
    [SET_SLOTS] = {HFP_INT_SETTING("staging_slots_per_device", SLOTS_DEFAULT, 1, SLOTS_MAX, "slots",
                                   "most staging slots (two pinned chunks each) per GPU")},
    [SET_SPLIT_THRESHOLD] = {HFP_INT_SETTING("split_threshold_kb", 0, 0, THRESHOLD_KIB_MAX, "KiB",
                                             "smallest piece of a split request; 0 follows "
                                             "execution.min_io_threshold_size_kb"),
                             .multiple = SIZE_KIB_MULTIPLE},
    [SET_INLINE_MAX] = {HFP_INT_SETTING("inline_max_kb", INLINE_MAX_KIB_DEFAULT, 0,
                                        THRESHOLD_KIB_MAX, "KiB",
                                        "largest request always served whole on the caller")},
    [SET_TAIL_WINDOW] = {HFP_INT_SETTING("tail_window_kb", TAIL_WINDOW_KIB_DEFAULT, 0,
                                         CHUNK_KIB_MAX, "KiB",
                                         "smallest window the tail of a request in lanes is cut "
                                         "into; 0 keeps whole chunks"),
                         .multiple = SIZE_KIB_MULTIPLE},
    [SET_DIRECT_IO] = {HFP_STRING_SETTING(
        "direct_io", "auto", direct_io_names,
        "when reads, and writes to a file opened O_DIRECT, may go "
        "through O_DIRECT")},
    [SET_BOUNCE_HOST_ACCESSIBLE] = {HFP_BOOL_SETTING(
        "bounce_host_accessible", false, "stage device memory even when the CPU can address it")},
    [SET_PIPELINE_READS] = {HFP_BOOL_SETTING("pipeline_reads", true,
                                             "staged reads run as one pipeline")},
    [SET_PIPELINE_MAX] = {HFP_INT_SETTING("pipeline_max_kb", PIPELINE_MAX_KIB_DEFAULT, 0,
                                          THRESHOLD_KIB_MAX, "KiB",
                                          "larger staged reads run in lanes; 0 = no limit"),
                          .multiple = SIZE_KIB_MULTIPLE},
    [SET_PIPELINE_PIECE] = {HFP_INT_SETTING("pipeline_piece_kb", 0, 0, PIPELINE_KIB_MAX, "KiB",
                                            "bytes per file read of a pipeline; 0 = chosen per "
                                            "request"),
                            .multiple = SIZE_KIB_MULTIPLE},
    [SET_PIPELINE_BLOCK] = {HFP_INT_SETTING("pipeline_block_kb", 0, 0, PIPELINE_KIB_MAX, "KiB",
                                            "bytes per GPU copy of a pipeline; 0 = chosen per "
                                            "request"),
                            .multiple = SIZE_KIB_MULTIPLE},
    [SET_STREAMING_STORES] = {HFP_BOOL_SETTING("streaming_stores", true,
                                               "staged reads from the page cache reach staging "
                                               "with non-temporal stores")},
    [SET_MAPPED_READS] = {HFP_BOOL_SETTING("mapped_reads", MAPPED_READS_DEFAULT,
                                           "reads the page cache holds go to GPU memory straight "
                                           "from its pages, locked for the copy engine")},
    [SET_MAPPED_MIN] = {HFP_INT_SETTING("mapped_min_kb", MAPPED_MIN_KIB_DEFAULT, 0,
                                        THRESHOLD_KIB_MAX, "KiB",
                                        "smallest read served from the page cache's pages")},
    [SET_MAPPED_BLOCK] = {HFP_INT_SETTING("mapped_block_kb", 0, 0, MAPPED_BLOCK_KIB_MAX, "KiB",
                                          "bytes locked and copied at once by a mapped read; 0 "
                                          "= chosen per request"),
                          .multiple = SIZE_KIB_MULTIPLE},
};

/* A core value in KiB for a size this backend also bounds, or @p default_kib when it does not fit.
 */
static int64_t core_kib_or(uint64_t kib, int64_t max_kib, int64_t default_kib)
{
    if (kib < SIZE_KIB_MULTIPLE || kib > (uint64_t)max_kib || kib % SIZE_KIB_MULTIPLE != 0)
        return default_kib;
    return (int64_t)kib;
}

static size_t kib_setting(const struct hf_host_api *host, int index)
{
    return (size_t)hfp_setting_int(host, &fallback_setting_decls[index]) * 1024;
}

void fallback_settings_read(const struct hf_host_api *host, struct fallback_settings *set_p)
{
    struct hf_core_limits core;
    hfp_core_limits(host, &core);
    int64_t chunk_kib = hfp_setting_int(host, &fallback_setting_decls[SET_CHUNK_SIZE]);
    if (chunk_kib == 0)
        chunk_kib = core_kib_or(core.per_buffer_cache_size_kb, CHUNK_KIB_MAX, CHUNK_KIB_DEFAULT);
    int64_t slots = hfp_setting_int(host, &fallback_setting_decls[SET_SLOTS]);
    struct fallback_settings set = {
        .chunk_size = (size_t)chunk_kib * 1024,
        .slots_per_device = (unsigned)slots,
        .split_threshold = kib_setting(host, SET_SPLIT_THRESHOLD),
        .inline_max = kib_setting(host, SET_INLINE_MAX),
        .tail_window = kib_setting(host, SET_TAIL_WINDOW),
        .direct_io = hfp_setting_choice(host, &fallback_setting_decls[SET_DIRECT_IO]),
        .bounce_host_accessible =
            hfp_setting_bool(host, &fallback_setting_decls[SET_BOUNCE_HOST_ACCESSIBLE]),
        .pipeline_reads = hfp_setting_bool(host, &fallback_setting_decls[SET_PIPELINE_READS]),
        .pipeline_max = kib_setting(host, SET_PIPELINE_MAX),
        .pipeline_piece = kib_setting(host, SET_PIPELINE_PIECE),
        .pipeline_block = kib_setting(host, SET_PIPELINE_BLOCK),
        .streaming_stores = hfp_setting_bool(host, &fallback_setting_decls[SET_STREAMING_STORES]),
        .mapped_reads = hfp_setting_bool(host, &fallback_setting_decls[SET_MAPPED_READS]),
        .mapped_min = kib_setting(host, SET_MAPPED_MIN),
        .mapped_block = kib_setting(host, SET_MAPPED_BLOCK),
    };
    size_t split = set.split_threshold != 0
                       ? set.split_threshold
                       : (size_t)core_kib_or(core.min_io_threshold_size_kb, THRESHOLD_KIB_MAX,
                                             SPLIT_THRESHOLD_KIB_DEFAULT) *
                             1024;
    host->log(host, HF_LOG_INFO,
              "chunks of %lld KiB; up to %lld staging slots per GPU (2 pinned chunks each), "
              "created on first use; requests over %zu KiB split into pieces of at least %zu "
              "KiB; O_DIRECT reads %s%s",
              (long long)chunk_kib, (long long)slots, set.inline_max / 1024, split / 1024,
              direct_io_names[set.direct_io],
              set.bounce_host_accessible ? "; host-accessible device memory staged" : "");
    *set_p = set;
}

void fallback_limits_read(const struct fallback *fb, struct fallback_limits *lim_p)
{
    struct hf_core_limits core;
    hfp_core_limits(fb->host, &core);
    struct fallback_limits lim = {
        .parallel = core.parallel_io,
        .max_pieces = UINT_MAX,
        .split_threshold = fb->set.split_threshold,
        .direct_io = core.force_odirect_mode ? FALLBACK_DIRECT_ALWAYS : fb->set.direct_io,
        .cpu_lanes =
            core.cpu_budget > 0 && core.cpu_budget < UINT_MAX ? core.cpu_budget + 1 : UINT_MAX,
    };
    if (core.max_request_parallelism >= 1 && core.max_request_parallelism < UINT_MAX)
        lim.max_pieces = core.max_request_parallelism;
    if (lim.split_threshold == 0)
        lim.split_threshold = (size_t)core_kib_or(core.min_io_threshold_size_kb, THRESHOLD_KIB_MAX,
                                                  SPLIT_THRESHOLD_KIB_DEFAULT) *
                              1024;
    *lim_p = lim;
}

unsigned fallback_slot_bound(void *backend)
{
    const struct fallback *fb = backend;
    struct hf_core_limits core;
    hfp_core_limits(fb->host, &core);
    /* A slot pins two chunks; both limits count pinned staging memory per GPU. */
    uint64_t slot_kib = 2 * (uint64_t)(fb->set.chunk_size / 1024);
    uint64_t bound = fb->set.slots_per_device;
    if (core.max_device_cache_size_kb / slot_kib < bound)
        bound = core.max_device_cache_size_kb / slot_kib;
    if (core.max_device_pinned_mem_size_kb / slot_kib < bound)
        bound = core.max_device_pinned_mem_size_kb / slot_kib;
    return (unsigned)bound;
}
