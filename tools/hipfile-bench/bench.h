/*
 * hipfile-bench: what its parts share, in the order of its folders (main.c has the map): the
 * command line (options/), the loop every method is measured in and what it stands on
 * (measure/), the library's methods (methods/), the baselines they are judged against
 * (baselines/), and the report (report/).
 */
#ifndef HIPFILE_BENCH_H
#define HIPFILE_BENCH_H

#include <hipfile.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/** Program name used in every message. */
#define BENCH_NAME "hipfile-bench"

/** Largest transfer of one call: the most one pread/pwrite or hipFileRead/Write moves on Linux. */
#define BENCH_MAX_IO_SIZE 0x7ffff000ull

/** Size of the pageable bounce buffer AMD's fallback path allocates per call. */
#define BENCH_AMD_BOUNCE_SIZE (16u << 20)

/** Most names --backends takes. */
#define BENCH_MAX_BACKENDS 8

/** Bytes of a backend name, its terminating NUL included. */
#define BENCH_BACKEND_NAME 32

/** Most devices --devices takes: the per-GPU statistics have this many entries. */
#define BENCH_MAX_DEVICES HIPFILE_MAX_GPUS

/** Most call sizes --sweep takes. */
#define BENCH_MAX_SWEEP 32

/**
 * Most configurations the ceiling baseline's calibration tries: worker counts x piece sizes, each
 * with and without streaming stores (baselines/ceiling.c checks that they fit).
 */
#define BENCH_CEILING_MAX_TRIALS 32

/**
 * What the text report and the --sweep table append to a ceiling configuration whose pieces reach
 * staging with streaming stores ("16x512K+s").
 */
#define BENCH_STREAMED_MARK "+s"

/** Set by SIGINT/SIGTERM: every loop stops at its next call and the program cleans up. */
extern volatile sig_atomic_t bench_stop;

/* ---- The command line (options/) ------------------------------------------------------------ */

/** Direction of a workload. */
enum bench_op { BENCH_READ, BENCH_WRITE };

/** Where the library's buffers live (--mem). */
enum bench_mem { BENCH_MEM_DEVICE, BENCH_MEM_PINNED, BENCH_MEM_PAGEABLE };

/** Baseline bits of --baselines. */
enum bench_baseline {
    BENCH_BL_RAW = 1u << 0,        /**< pread/pwrite into host memory */
    BENCH_BL_ODIRECT = 1u << 1,    /**< O_DIRECT pread at the baseline queue depth */
    BENCH_BL_NAIVE = 1u << 2,      /**< pread into pageable memory, then hipMemcpy */
    BENCH_BL_AMD = 1u << 3,        /**< 16 MiB pageable bounce per call, sync copy, fdatasync */
    BENCH_BL_PINNED = 1u << 4,     /**< pinned host<->device copy bandwidth */
    BENCH_BL_PREAD_COPY = 1u << 5, /**< pread + one pinned copy of the same size (latency) */
    BENCH_BL_SYNC_SEQ = 1u << 6,   /**< the library's sync API, sequential, one batch per call */
    BENCH_BL_CEILING = 1u << 7,    /**< the best bare pread + async copy pipeline for one call */
    BENCH_BL_DURABLE = 1u << 8,    /**< pwrite, then fdatasync in the pass's time (writes) */
    /** every baseline "all" selects: each but sync-seq */
    BENCH_BL_ALL = ((1u << 6) - 1) | BENCH_BL_CEILING | BENCH_BL_DURABLE
};

/** How the library method issues its calls (bits of --api). */
enum bench_api {
    BENCH_API_SYNC = 1u << 0,  /**< hipFileRead/hipFileWrite */
    BENCH_API_ASYNC = 1u << 1, /**< hipFileReadAsync/WriteAsync on a registered stream per thread */
    BENCH_API_BATCH = 1u << 2  /**< --batch-entries calls per hipFileBatchIOSubmit */
};

/**
 * How the async method waits for each call's stream (--async-wait). The runtimes' default wait
 * spins a CPU per waiting thread, which the library's I/O threads may need; poll shows the async
 * path when the program leaves its CPUs to them.
 */
enum bench_async_wait {
    BENCH_ASYNC_WAIT_SYNC, /**< hipStreamSynchronize, the runtime's own wait (the default) */
    BENCH_ASYNC_WAIT_POLL  /**< hipStreamQuery until done, sleeping BENCH_ASYNC_POLL_NS between */
};

/** Sleep between two hipStreamQuery calls of --async-wait poll, in nanoseconds. */
#define BENCH_ASYNC_POLL_NS 20000L

/** One workload of --workload. */
struct bench_workload {
    const char *name; /**< as written on the command line and in the report */
    enum bench_op op; /**< read or write */
    bool random;      /**< random offsets instead of a sequential sweep */
};

/** The workloads, in the order they run; --workload selects a subset by bit index. */
extern const struct bench_workload bench_workloads[4];

/** Everything the command line says. */
struct bench_options {
    unsigned workloads;        /**< bits over bench_workloads[] */
    size_t io_size;            /**< bytes per call (with --sweep, the size being measured) */
    uint64_t file_size;        /**< bytes of the file in use */
    unsigned threads;          /**< caller threads issuing hipFileRead/Write */
    double time_s;             /**< measure each method this long (0: count passes) */
    unsigned passes;           /**< measured sweeps of the file per method */
    uint64_t iterations;       /**< calls per thread per pass (0: one sweep of its region) */
    double warmup_s;           /**< untimed run before each method, at most one pass */
    enum bench_mem mem;        /**< memory of the library's buffers */
    const char *file;          /**< --file, or NULL for a temporary file */
    bool keep;                 /**< keep a file this program created */
    bool verify;               /**< check the data of every call */
    bool json;                 /**< JSON lines on stdout instead of the text report */
    bool drop_cache;           /**< drop the page cache before each measured pass */
    bool direct;               /**< open the file with O_DIRECT for the library and raw baseline */
    unsigned baselines;        /**< BENCH_BL_* bits */
    bool baselines_explicit;   /**< --baselines was given (runs pread-copy at any size) */
    unsigned baseline_threads; /**< threads of the raw and O_DIRECT baselines (0: default) */
    unsigned io_threads;       /**< execution.max_io_threads to set (0: leave the config's) */
    size_t copy_chunk;         /**< bytes per copy of the pinned copy baseline */
    unsigned copy_streams;     /**< streams of the pinned copy baseline */
    bool buf_register;         /**< hipFileBufRegister the library's buffers */
    int device;                /**< GPU index */
    uint64_t seed;             /**< seed of the data pattern and the random offsets */
    int progress;              /**< -1: when stderr is a terminal, 0: never, 1: always */
    unsigned apis;             /**< BENCH_API_* bits: the library method once per API */
    unsigned batch_entries;    /**< entries per batch of the batch API */
    bool device_given;         /**< --device was on the command line */
    /** How the async API waits for each call; taken with any --api, used only with async. */
    enum bench_async_wait async_wait;
    /** --backends: each backend, in order, serves the library methods in a process of its own. */
    char backends[BENCH_MAX_BACKENDS][BENCH_BACKEND_NAME];
    unsigned n_backends;            /**< names in backends (0: the library's own choice) */
    int devices[BENCH_MAX_DEVICES]; /**< --devices, resolved ("all" once the runtime answers) */
    unsigned n_devices;             /**< entries in devices (0: one device, --device) */
    bool all_devices;               /**< --devices all: every device the runtime reports */
    int worker_fds[2]; /**< hidden --backend-worker: command and reply descriptors, else -1 */
    /** --sweep: the call sizes in the order given, each measured in turn. */
    size_t sweep_sizes[BENCH_MAX_SWEEP];
    unsigned n_sweep; /**< entries in sweep_sizes (0: no --sweep) */
};

/**
 * Parse the command line into *opts_p. Returns 0 to run, 1 when --help or --version was printed
 * (exit 0), or -1 after printing what was wrong (exit 2).
 */
int bench_options_parse(int argc, char **argv, struct bench_options *opts_p);

/** The word --mem takes for @p mem ("device", "pinned", "pageable"), as the report writes it. */
const char *bench_mem_name(enum bench_mem mem);

/** The word --async-wait takes for @p wait ("sync", "poll"), as the report writes it. */
const char *bench_async_wait_name(enum bench_async_wait wait);

/** Print the --help text on stdout (options/help.c). */
void bench_print_usage(void);

/**
 * Format @p bytes as "64 MiB", "4 KiB" or "1000 B" into @p text (at least 32 bytes)
 * (options/size_text.c).
 */
const char *bench_size_text(uint64_t bytes, char *text, size_t len);

/** Format @p bytes as the command line writes them ("64M", "4K", "1000") into @p text. */
const char *bench_size_short(uint64_t bytes, char *text, size_t len);

/* ---- The benchmark file and its pattern (measure/file.c) ------------------------------------ */

/** Everything a run of one workload shares (below). */
struct bench_ctx;

/** The benchmark file and its descriptors, shared by every method of a run. */
struct bench_file {
    char path[4096]; /**< its path */
    bool created;    /**< this program created it (removed at exit without --keep) */
    int access;      /**< O_RDWR, or O_RDONLY for an existing file this program may not write */
    int fd;          /**< access, plus O_DIRECT with --direct: library and raw baseline */
    int check_fd;    /**< access, buffered: file fill, read-back of writes, cache drop */
    int direct_fd;   /**< access | O_DIRECT, or -1 (direct_error says why) */
    char direct_error[128]; /**< why direct_fd is -1 */
    unsigned dio_align;     /**< offset and size alignment O_DIRECT needs */
    char fs_type[16];       /**< file system name ("ext4", "tmpfs", ...) */
    hipFileHandle_t handle; /**< fd registered with hipfile */
    uint64_t expected_seed; /**< pattern seed the file now holds */
    bool pattern_known;     /**< the file holds the pattern of expected_seed */
};

/**
 * Open or create the file of @p opts, grow and fill it with the pattern where it is missing or too
 * small (refilling it for --verify when its contents are not the pattern), and register it.
 * Returns 0, or -1 after printing why.
 */
int bench_file_open(const struct bench_options *opts, struct bench_file *file);

/** Rewrite the first @p size bytes of the file with the pattern of @p seed. 0 or -1. */
int bench_file_fill(struct bench_file *file, uint64_t size, uint64_t seed, bool progress);

/** Deregister and close the file, and remove it when this program made it and --keep is off. */
void bench_file_close(const struct bench_options *opts, struct bench_file *file);

/**
 * Drop cached pages of the file before a cold pass: the whole page cache as root, otherwise the
 * file's own clean pages. Writes into @p how what was done. Returns 0, or -1 when nothing could be.
 */
int bench_file_drop_cache(const struct bench_file *file, char *how, size_t len);

/** Fill @p buf with the pattern of @p seed for file bytes [offset, offset + size). */
void bench_pattern_fill(void *buf, size_t size, uint64_t offset, uint64_t seed);

/**
 * Compare @p buf with the pattern of @p seed at @p offset. Returns true when it matches; otherwise
 * stores the file offset of the first differing byte in *bad_offset_p.
 */
bool bench_pattern_check(const void *buf, size_t size, uint64_t offset, uint64_t seed,
                         uint64_t *bad_offset_p);

/**
 * pread until @p size bytes are in @p buf. Returns 0, or -1 with errno set (ENODATA at end of
 * file).
 */
int bench_pread_full(int fd, void *buf, size_t size, uint64_t offset);

/**
 * As bench_pread_full, but through @p bounce (HFP_STREAM_BOUNCE_SIZE bytes): pread at most that
 * much into it, then copy it on to @p buf with streaming stores (hfp_stream_copy), until @p size
 * bytes are in @p buf. A device's copy engine then reads @p buf from memory instead of from lines
 * the reading core holds modified, as the library's fallback arranges for its staging. Returns 0,
 * or -1 with errno set (ENODATA at end of file).
 */
int bench_pread_streamed(int fd, void *buf, size_t size, uint64_t offset, void *bounce);

/** pwrite until @p size bytes are in the file. Returns 0, or -1 with errno set. */
int bench_pwrite_full(int fd, const void *buf, size_t size, uint64_t offset);

/** Write data to disk between methods, so none pays for another's writeback. 0 or -1. */
int bench_settle_writes(const struct bench_ctx *ctx);

/* ---- Measuring: the loop every method runs in (measure/) ------------------------------------ */

/** Log-linear latency histogram in nanoseconds: 32 buckets per power of two (about 3% wide). */
struct bench_hist {
    uint64_t count;         /**< samples */
    uint64_t max_ns;        /**< largest sample, exact */
    uint64_t buckets[1920]; /**< samples per bucket */
};

/** Add one sample. */
void bench_hist_add(struct bench_hist *hist, uint64_t ns);

/** Add every sample of @p from to @p into. */
void bench_hist_merge(struct bench_hist *into, const struct bench_hist *from);

/** The @p percent percentile in nanoseconds (the middle of its bucket); 0 when empty. */
double bench_hist_percentile(const struct bench_hist *hist, double percent);

/** Monotonic time in nanoseconds. */
uint64_t bench_now_ns(void);

/** User plus system CPU time of the whole process (every thread, the library's included). */
double bench_cpu_seconds(void);

/** The shape of the ceiling baseline's pipeline being measured (baselines/ceiling.c). */
struct bench_ceiling_shape;

/** --sweep's results, size by size (report/sweep.c). */
struct bench_sweep;

/** Everything a run of one workload shares. */
struct bench_ctx {
    const struct bench_options *opts; /**< the command line */
    const struct bench_workload *wl;  /**< the workload */
    struct bench_file *file;          /**< the file */
    uint64_t chunks;                  /**< io_size-sized chunks in the file */
    uint64_t seed;                    /**< pattern seed writes use and reads expect */
    unsigned executor_threads;        /**< execution.max_io_threads in force */
    unsigned baseline_threads;        /**< threads of the raw and O_DIRECT baselines */
    bool progress;                    /**< print progress on stderr */
    /**
     * Devices the threads are spread over, one group of threads per device, each group on its own
     * part of the file; NULL for one group on --device over the whole file.
     */
    const int *group_devices;
    unsigned n_groups;   /**< entries in group_devices (0 with NULL) */
    bool count_requests; /**< check each pass against the library's statistics */
    /** The ceiling baseline's workers and piece size while it is measured, else NULL. */
    const struct bench_ceiling_shape *ceiling;
    /** With --sweep, where the results of each call size go (NULL: report them at once). */
    struct bench_sweep *sweep;
};

/** One thread of a method: its region of the file, its buffers, its counters. */
struct bench_thread {
    const struct bench_ctx *ctx; /**< the run */
    unsigned index;              /**< 0 .. threads-1 */
    unsigned group;              /**< its group of bench_ctx.group_devices (0 without groups) */
    int device;                  /**< GPU it sets current and allocates on */
    uint64_t first_chunk;        /**< first chunk of its region */
    uint64_t n_chunks;           /**< chunks in its region */
    int fd;                      /**< descriptor the method reads or writes */
    void *buf;                   /**< where the data lands (read) or comes from (write) */
    bool buf_on_device;          /**< buf is device memory */
    void *stage;                 /**< the method's own host staging buffer */
    void *check;                 /**< host buffer for --verify */
    hipStream_t stream;          /**< the method's stream, if it uses one */
    bool registered;             /**< buf is registered with hipFileBufRegister */
    uint64_t rng;                /**< random offset state */
    uint64_t next;               /**< next sequential call within the region */
    struct bench_hist hist;      /**< per-call latency */
    _Atomic uint64_t bytes;      /**< bytes moved (read by the progress line) */
    uint64_t calls;              /**< calls made */
    uint64_t mismatches;         /**< calls whose data was wrong */
    uint64_t end_ns;             /**< when its last pass ended */
    uint64_t active_ns;          /**< time in measured passes, from each pass's start to its end */
    bool failed;                 /**< an I/O error stopped it */
    uint64_t *offsets;           /**< file offsets of one io_many call (methods with entries) */
    void *api;                   /**< the method's own state (stream, batch handle) */
};

/** Whether the workload @p t runs reads (else writes). */
static inline bool bench_thread_reads(const struct bench_thread *t)
{
    return t->ctx->wl->op == BENCH_READ;
}

/** A way to move the workload's data: the library, or one of the baselines. */
struct bench_method {
    const char *name;                     /**< result name ("library", "pread") */
    unsigned threads;                     /**< threads that run it */
    int (*setup)(struct bench_thread *t); /**< buffers; 0 or -1 after printing */
    int (*io)(struct bench_thread *t, uint64_t offset, size_t size); /**< one call; 0 or -1 */
    void (*teardown)(struct bench_thread *t); /**< undo setup (also after a failure) */
    /**
     * Set instead of io by methods that move several calls at once (the batch API): up to
     * --batch-entries calls of @p size bytes at @p offsets, the data of call i at buf + i * size.
     * 0, or -1 after printing. Latency is then per io_many, IOPS per call.
     */
    int (*io_many)(struct bench_thread *t, const uint64_t *offsets, unsigned n, size_t size);
    /**
     * Optional: run by each thread after its last call of a pass, inside the pass's time (a
     * flush that the method's figure must include). 0, or -1 after printing.
     */
    int (*pass_end)(struct bench_thread *t);
};

/** What one device's threads did within a run of several devices at once (--devices). */
struct bench_group_result {
    int device;       /**< the device */
    unsigned threads; /**< its threads */
    uint64_t bytes;   /**< bytes its threads moved while measured */
    uint64_t calls;   /**< their calls */
    double seconds;   /**< measured time until its last thread finished each pass, summed */
};

/** One configuration the ceiling baseline's calibration tried, and what it gave. */
struct bench_ceiling_trial {
    unsigned threads;  /**< worker threads, over every caller thread */
    size_t piece_size; /**< bytes each worker claims at a time */
    bool streamed;     /**< pieces reach staging with streaming stores (bench_pread_streamed) */
    double gbps;       /**< bandwidth in the calibration */
};

/** The figures of one method in one run. */
struct bench_result {
    char name[32];          /**< method name */
    char note[160];         /**< why it was skipped or failed; "" when it ran */
    bool ran;               /**< it was measured */
    bool failed;            /**< an I/O error or a mismatch */
    unsigned threads;       /**< threads (streams for the copy baseline) */
    unsigned passes;        /**< measured passes */
    uint64_t bytes;         /**< bytes moved while measured */
    uint64_t calls;         /**< calls made while measured */
    double seconds;         /**< measured wall time */
    double cpu_s;           /**< user + system CPU time of the process while measured */
    double steal_s;         /**< CPU time the hypervisor took from the machine while measured */
    bool steal_unknown;     /**< the machine gave no steal time (no /proc/stat) */
    bool has_latency;       /**< hist holds per-call latencies */
    uint64_t mismatches;    /**< verify mismatches */
    struct bench_hist hist; /**< per-call latency of every thread */
    /* --backends */
    char backend[BENCH_BACKEND_NAME]; /**< backend that served it, "" outside --backends */
    int backend_index;                /**< its place in --backends, -1 outside */
    uint64_t counted;         /**< measured requests the library's statistics counted as served */
    uint64_t counted_direct;  /**< of those into device memory, served by a direct path */
    uint64_t counted_compat;  /**< ... served by the compatibility path */
    uint64_t worker_requests; /**< every request of the backend's process, warm-up included */
    uint64_t backend_served;  /**< of those, served by the named backend (its stats report) */
    uint64_t others_served;   /**< served by any other backend (must be 0) */
    /* --devices */
    int device;        /**< the one device of a single-device run, -1 otherwise */
    bool aggregate;    /**< every listed device at once; groups holds each one's share */
    unsigned n_groups; /**< entries in groups */
    struct bench_group_result groups[BENCH_MAX_DEVICES]; /**< per device of an aggregate run */
    /* the ceiling baseline */
    bool is_ceiling;                     /**< ceiling_* below describe this result */
    unsigned ceiling_threads_per_caller; /**< worker threads of each caller thread's pipeline */
    size_t ceiling_piece_size;           /**< bytes per piece of the configuration measured */
    bool ceiling_streamed;               /**< its pieces reach staging with streaming stores */
    bool ceiling_workers_spin;           /**< its workers spin for the next call, then sleep */
    bool ceiling_caller_spins;           /**< its callers spin for their call's end, then sleep */
    double ceiling_trial_s;              /**< seconds the calibration gave each configuration */
    unsigned n_ceiling_trials;           /**< entries in ceiling_trials */
    struct bench_ceiling_trial ceiling_trials[BENCH_CEILING_MAX_TRIALS]; /**< the calibration */
};

/** CPU times at one moment, to charge what passes until the next to a result. */
struct bench_cpu_mark {
    double process_s; /**< bench_cpu_seconds() */
    double steal_s;   /**< steal time of all the machine's CPUs (/proc/stat); < 0: unknown */
};

/** The CPU times now. */
struct bench_cpu_mark bench_cpu_mark_now(void);

/**
 * Add the process's CPU time and the machine's steal time since @p since to result->cpu_s and
 * result->steal_s (or set result->steal_unknown).
 */
void bench_cpu_mark_charge(struct bench_result *result, const struct bench_cpu_mark *since);

/** Clear *result and name it: not run yet, no backend, no device. */
void bench_result_init(struct bench_result *result, const char *name);

/**
 * Run @p method over the workload of @p ctx: a warm-up, then the measured passes (dropping the
 * cache before each with --drop-cache), every call timed and, with --verify, checked. Fills
 * *result. Returns 0, or -1 when setup failed or a call failed or mismatched (result->failed).
 */
int bench_measure(const struct bench_ctx *ctx, const struct bench_method *method,
                  struct bench_result *result);

/**
 * bench_measure of @p base under the name @p name on @p threads threads, then its writes settled
 * (bench_settle_writes). Returns 0, or -1 when the method or the settling failed.
 */
int bench_measure_named(const struct bench_ctx *ctx, const struct bench_method *base,
                        const char *name, unsigned threads, struct bench_result *result);

/** A method's threads, set up and warmed up, between measured passes. */
struct bench_session;

/**
 * Set up @p method's threads on the workload of @p ctx and run the warm-up. Fills the name and
 * threads of *result (which it clears). Returns 0 and the session, or -1 with result->note set.
 */
int bench_session_open(const struct bench_ctx *ctx, const struct bench_method *method,
                       struct bench_result *result, struct bench_session **session_p);

/**
 * One measured pass: drop the cache with --drop-cache, run every thread's pass (stopping after
 * @p budget_ns when not 0), and add its time and CPU time to *result. With count_requests, checks
 * the pass against the library's statistics. Stores the pass's wall time in *pass_ns_p. Returns
 * 0, or -1 when a call failed, data mismatched or the statistics disagree (note set).
 */
int bench_session_pass(struct bench_session *s, uint64_t budget_ns, struct bench_result *result,
                       uint64_t *pass_ns_p);

/** Stop and tear down the threads, add their counters to *result and free the session. */
void bench_session_close(struct bench_session *s, struct bench_result *result);

/** Set the note (unless one is set) and the failed flag of *result; returns -1. */
int bench_result_fail(struct bench_result *result, const char *why);

/** What --drop-cache did last (empty when it was not asked for). */
extern char bench_drop_cache_note[160];

/* ---- Buffers and failures (measure/memory.c, measure/errors.c) ------------------------------ */

/** Allocate @p size bytes of --mem memory (device, pinned or pageable). 0 or -1 after printing. */
int bench_alloc(enum bench_mem mem, size_t size, void **ptr_p);

/** Free what bench_alloc returned; NULL is ignored. */
void bench_free(enum bench_mem mem, void *ptr);

/** Print "<what>: <HIP error>" for a failed HIP call; returns -1. */
int bench_hip_error(const char *what, hipError_t err);

/** Print "<what>: <hipfile error>" for a failed hipfile status call; returns -1. */
int bench_status_error(const char *what, hipFileError_t status);

/** Report a failed call of the workload: "<call> at offset N: <why>"; returns -1. */
int bench_call_error(const struct bench_thread *t, const char *call, uint64_t offset,
                     const char *why);

/** bench_call_error with errno as the reason (ENODATA: an unexpected end of file); returns -1. */
int bench_errno_error(const struct bench_thread *t, const char *call, uint64_t offset);

/** Report a call that moved @p moved of @p size bytes (or failed, when negative); returns -1. */
int bench_moved_error(const struct bench_thread *t, const char *call, uint64_t offset,
                      ssize_t moved, size_t size);

/* ---- The library's statistics as a check of each pass (measure/counts.c) -------------------- */

/** Request counters of the library at one moment. */
struct bench_counts {
    uint64_t ops[2][2]; /**< [bench_op][0: served, 1: failed] requests */
    bool per_gpu;       /**< the per-GPU counters below were readable (statistics level 3) */
    uint64_t gpu_total[2][BENCH_MAX_DEVICES];  /**< [bench_op][device] requests */
    uint64_t gpu_direct[2][BENCH_MAX_DEVICES]; /**< of those, served by a direct path */
    uint64_t gpu_compat[2][BENCH_MAX_DEVICES]; /**< ... by the compatibility path */
};

/** Read the library's counters (level 3 where allowed, else level 1). 0, or -1 when neither. */
int bench_counts_take(struct bench_counts *c);

/**
 * Check one pass of @p calls calls (@p group_calls per device group) against the counters before
 * and after it: each call counted as served, none as failed, and with device memory each on its
 * group's device. Adds the served and per-path counts to *result. 0, or -1 with the note set.
 */
int bench_counts_check(const struct bench_ctx *ctx, const struct bench_counts *before,
                       const struct bench_counts *after, uint64_t calls,
                       const uint64_t *group_calls, struct bench_result *result);

/* ---- The library's methods (methods/) ------------------------------------------------------- */

/** The library itself: hipFileRead/hipFileWrite into --mem buffers, on --threads threads. */
extern const struct bench_method bench_method_library;
/** The library through hipFileReadAsync/WriteAsync, one registered stream per thread. */
extern const struct bench_method bench_method_library_async;
/** The library through the batch API, --batch-entries calls per submission. */
extern const struct bench_method bench_method_library_batch;

/** Setup, one call and teardown of the library's sync method, shared by the other APIs. */
int bench_library_setup(struct bench_thread *t, size_t size);
/** Undo bench_library_setup. */
void bench_library_teardown(struct bench_thread *t);

/**
 * Settings that only take effect before the driver opens (host memory, --io-threads, statistics
 * level 3 for --devices), --devices resolved and checked, the main thread's device, the driver.
 * Returns 0, 1 after a runtime or library failure, 2 for a device the runtime does not have.
 */
int bench_library_open(struct bench_options *o);

/** bench_library_method's number of sync-seq; 0, 1 and 2 are the sync, async and batch APIs. */
#define BENCH_METHOD_SYNC_SEQ 3u

/** The library methods a workload runs, in order, into @p which (at most 4). Returns the count. */
unsigned bench_library_methods(const struct bench_options *o, unsigned *which);

/**
 * The library method numbered @p which for @p ctx: *out, run on *out_ctx (a copy of *ctx; for
 * sync-seq one with its own call size, whose options live in *seq_opts).
 */
void bench_library_method(const struct bench_ctx *ctx, unsigned which,
                          struct bench_options *seq_opts, struct bench_ctx *out_ctx,
                          struct bench_method *out);

/* ---- --backends (methods/backends.c; the worker side in methods/worker.c) ------------------- */

/**
 * Before anything else: start the library once with only the --backends names enabled and check
 * that each of them loads. Returns 0, 1 when that could not be found out, 2 for a name that does
 * not load (printed).
 */
int bench_backends_probe(const struct bench_options *o);

/**
 * The library methods @p which, each served by every --backends backend in turn: one worker
 * process per backend whose library loads only that backend, measured passes interleaved across
 * the backends, each pass checked against the worker's statistics, and at the end the worker's
 * per-backend report. Appends one result per method and backend. 0, or -1 when any failed.
 */
int bench_backends_measure(const struct bench_ctx *ctx, const unsigned *which, unsigned n_which,
                           struct bench_result *results, unsigned *n_p);

/* ---- --devices (methods/devices.c) ---------------------------------------------------------- */

/**
 * The library methods @p which on each --devices device alone, then on all of them at once (one
 * group of --threads threads per device, each on its own part of the file). Appends for each
 * method one result per device and one aggregate result. 0, or -1 when any failed.
 */
int bench_devices_measure(const struct bench_ctx *ctx, const unsigned *which, unsigned n_which,
                          struct bench_result *results, unsigned *n_p);

/* ---- Baselines (baselines/) ----------------------------------------------------------------- */

/** Raw pread/pwrite into host memory on the file's own descriptor. */
extern const struct bench_method bench_method_raw;
/** Raw pread on an O_DIRECT descriptor. */
extern const struct bench_method bench_method_odirect;
/** pwrite into host memory, then fdatasync at the end of each thread's pass (writes). */
extern const struct bench_method bench_method_durable;
/** pread into pageable memory and hipMemcpy to the device, per call. */
extern const struct bench_method bench_method_naive;
/** A 16 MiB pageable bounce allocated per call, synchronous copies, fdatasync per written chunk. */
extern const struct bench_method bench_method_amd;
/** pread into pinned memory and one hipMemcpy of the same size to the device. */
extern const struct bench_method bench_method_pread_copy;

/**
 * Pinned host-to-device (@p op read) or device-to-host (write) copy bandwidth: --copy-chunk bytes
 * per copy over --copy-streams streams, for --time seconds or at least @p bytes. Fills *result.
 * Returns 0, or -1 after printing why.
 */
int bench_copy_bandwidth(const struct bench_ctx *ctx, enum bench_op op, uint64_t bytes,
                         struct bench_result *result);

/**
 * The ceiling baseline for a read workload into device memory: the best bare pipeline for one
 * synchronous call of --io-size bytes (persistent workers, pinned double buffers, pieces claimed
 * from a shared counter, pread and hipMemcpyAsync per piece), calibrated over worker counts and
 * piece sizes, each with and without streaming stores, then measured like every method. Fills
 * *result. Returns 0, or -1 after printing.
 */
int bench_ceiling_measure(const struct bench_ctx *ctx, struct bench_result *result);

/**
 * Every baseline --baselines selects for the workload of @p ctx, appended to @p results from
 * *n_p on: measured where it applies, skipped with the reason where it does not. The pinned copy
 * moves at least @p library_bytes, what the library's first method moved. 0, or -1 when any
 * failed.
 */
int bench_baselines_measure(const struct bench_ctx *ctx, uint64_t library_bytes,
                            struct bench_result *results, unsigned *n_p);

/* ---- Report (report/) ----------------------------------------------------------------------- */

/** What the report says about the machine, the runtime and the library, gathered once. */
struct bench_env {
    char hostname[256];        /**< node name */
    char kernel[128];          /**< kernel release */
    char arch[65];             /**< machine architecture */
    char cpu_model[128];       /**< first "model name" of /proc/cpuinfo */
    long cpus;                 /**< online CPUs */
    uint64_t memory_bytes;     /**< physical memory */
    char hipfile_version[32];  /**< hipFileGetVersion */
    char runtime_asked[64];    /**< HIPFILE_GPU_RUNTIME, or "" */
    char runtime_library[128]; /**< file providing hipMalloc in this process */
    int runtime_version;       /**< hipRuntimeGetVersion */
    int devices;               /**< hipGetDeviceCount */
    char device_name[256];     /**< hipDeviceGetName of --device */
    size_t io_threads;         /**< execution.max_io_threads */
    bool parallel_io;          /**< execution.parallel_io */
    size_t min_split_kib;      /**< execution.min_io_threshold_size_kb */
    size_t max_parallelism;    /**< execution.max_request_parallelism */
    size_t bounce_kib;         /**< properties.per_buffer_cache_size_kb */
    size_t bounce_total_kib;   /**< properties.max_device_cache_size_kb */
};

/** Fill *env; call once the driver is open. Missing facts are left empty, never fatal. */
void bench_env_gather(const struct bench_options *opts, struct bench_env *env);

/**
 * Print the results of one workload as text (stdout) or as one JSON line (--json); within --sweep
 * the JSON object ends without a newline, as one element of the sweep document's runs.
 */
void bench_report(const struct bench_ctx *ctx, const struct bench_env *env,
                  const struct bench_result *results, unsigned n_results);

/** bench_report's text form (report/text.c). */
void bench_report_text(const struct bench_ctx *ctx, const struct bench_env *env,
                       const struct bench_result *results, unsigned n);

/** bench_report's JSON form (report/json.c). */
void bench_report_json(const struct bench_ctx *ctx, const struct bench_env *env,
                       const struct bench_result *results, unsigned n);

/** Print @p s as a JSON string. */
void bench_json_string(const char *s);

/** Print @p v as a JSON number, or null where JSON has none (NaN, infinity). */
void bench_json_number(double v);

/* ---- --sweep (report/sweep.c) --------------------------------------------------------------- */

/** Start a sweep: with --json, the head of the one document. NULL after printing why. */
struct bench_sweep *bench_sweep_begin(const struct bench_options *opts);

/** Report one workload at one call size (text, or a run of the document) and keep its figures. */
void bench_sweep_add(struct bench_sweep *sweep, const struct bench_ctx *ctx,
                     const struct bench_env *env, const struct bench_result *results,
                     unsigned n_results);

/** The table of every size (or the end of the document), then free the sweep. */
void bench_sweep_end(struct bench_sweep *sweep);

#endif
