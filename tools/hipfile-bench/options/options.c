/*
 * hipfile-bench's command line: the defaults, each option taken by the group --help lists it in,
 * then the checks of the whole line. Values are parsed in option_values.c and option_lists.c,
 * combinations checked in option_checks.c; the text is in help.c.
 */
#include <getopt.h>
#include <stdio.h>

#include "bench.h"
#include "common/cmdline.h"
#include "options/option_checks.h"
#include "options/option_lists.h"
#include "options/option_values.h"

const struct bench_workload bench_workloads[4] = {
    {"seq-read", BENCH_READ, false},
    {"seq-write", BENCH_WRITE, false},
    {"rand-read", BENCH_READ, true},
    {"rand-write", BENCH_WRITE, true},
};

enum long_only {
    OPT_REGISTER = 256,
    OPT_FILE,
    OPT_KEEP,
    OPT_DIRECT,
    OPT_WARMUP,
    OPT_DROP_CACHE,
    OPT_BASELINE_THREADS,
    OPT_COPY_CHUNK,
    OPT_COPY_STREAMS,
    OPT_IO_THREADS,
    OPT_DEVICE,
    OPT_VERIFY,
    OPT_SEED,
    OPT_JSON,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_VERSION,
    OPT_API,
    OPT_BATCH_ENTRIES,
    OPT_BACKENDS,
    OPT_DEVICES,
    OPT_BACKEND_WORKER,
    OPT_SWEEP,
    OPT_ASYNC_WAIT,
};

static const struct option long_options[] = {
    {"workload", required_argument, NULL, 'w'},
    {"io-size", required_argument, NULL, 's'},
    {"file-size", required_argument, NULL, 'f'},
    {"threads", required_argument, NULL, 't'},
    {"mem", required_argument, NULL, 'm'},
    {"register", no_argument, NULL, OPT_REGISTER},
    {"file", required_argument, NULL, OPT_FILE},
    {"keep", no_argument, NULL, OPT_KEEP},
    {"direct", no_argument, NULL, OPT_DIRECT},
    {"time", required_argument, NULL, 'T'},
    {"passes", required_argument, NULL, 'p'},
    {"iterations", required_argument, NULL, 'n'},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"drop-cache", no_argument, NULL, OPT_DROP_CACHE},
    {"baselines", required_argument, NULL, 'b'},
    {"baseline-threads", required_argument, NULL, OPT_BASELINE_THREADS},
    {"copy-chunk", required_argument, NULL, OPT_COPY_CHUNK},
    {"copy-streams", required_argument, NULL, OPT_COPY_STREAMS},
    {"io-threads", required_argument, NULL, OPT_IO_THREADS},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"seed", required_argument, NULL, OPT_SEED},
    {"json", no_argument, NULL, OPT_JSON},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"api", required_argument, NULL, OPT_API},
    {"batch-entries", required_argument, NULL, OPT_BATCH_ENTRIES},
    {"async-wait", required_argument, NULL, OPT_ASYNC_WAIT},
    {"backends", required_argument, NULL, OPT_BACKENDS},
    {"devices", required_argument, NULL, OPT_DEVICES},
    {"sweep", required_argument, NULL, OPT_SWEEP},
    /* Not in --help: how this program starts its own --backends workers. */
    {"backend-worker", required_argument, NULL, OPT_BACKEND_WORKER},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* What the command line gave, for the defaults and checks that depend on it. */
struct options_given {
    bool time;
    bool passes;
    bool iterations;
    bool io_size;
    bool file_size;
};

/*
 * What taking one option came to: 0 taken, -1 refused (printed), 1 --help or --version printed,
 * or OPTION_NOT_IN_GROUP for an option the group does not own.
 */
#define OPTION_NOT_IN_GROUP 2

static struct bench_options default_options(void)
{
    return (struct bench_options){
        .workloads = 1u,
        .io_size = 16u << 20,
        .file_size = 1ull << 30,
        .threads = 1,
        .passes = 1,
        .warmup_s = 0.5,
        .mem = BENCH_MEM_DEVICE,
        .baselines = BENCH_BL_ALL,
        .copy_chunk = 64u << 20,
        .copy_streams = 4,
        .seed = 1,
        .progress = -1,
        .apis = BENCH_API_SYNC,
        .batch_entries = 128,
        .async_wait = BENCH_ASYNC_WAIT_SYNC,
        .worker_fds = {-1, -1},
    };
}

/* "Workload:" in --help: what is read or written, in which calls, through which API. */
static int take_workload_option(int c, const char *value, struct bench_options *o,
                                struct options_given *given)
{
    uint64_t v = 0;
    int rc = 0;
    switch (c) {
    case 'w':
        return bench_parse_workloads(value, &o->workloads);
    case 's':
        rc = bench_parse_size("io-size", value, &v);
        o->io_size = (size_t)v;
        given->io_size = true;
        return rc;
    case OPT_SWEEP:
        return bench_parse_sweep(value, o);
    case 'f':
        given->file_size = true;
        return bench_parse_size("file-size", value, &o->file_size);
    case 't':
        return bench_parse_unsigned("threads", value, 1, 1024, &o->threads);
    case 'm':
        return bench_parse_mem(value, &o->mem);
    case OPT_REGISTER:
        o->buf_register = true;
        return 0;
    case OPT_FILE:
        return bench_parse_file(value, &o->file);
    case OPT_KEEP:
        o->keep = true;
        return 0;
    case OPT_DIRECT:
        o->direct = true;
        return 0;
    case OPT_API:
        return bench_parse_apis(value, &o->apis);
    case OPT_BATCH_ENTRIES:
        return bench_parse_unsigned("batch-entries", value, 1, 1024, &o->batch_entries);
    case OPT_ASYNC_WAIT:
        return bench_parse_async_wait(value, &o->async_wait);
    default:
        return OPTION_NOT_IN_GROUP;
    }
}

/* "Duration": how long and how often each method is measured. */
static int take_duration_option(int c, const char *value, struct bench_options *o,
                                struct options_given *given)
{
    switch (c) {
    case 'T':
        given->time = true;
        return bench_parse_seconds("time", value, false, &o->time_s);
    case 'p':
        given->passes = true;
        return bench_parse_unsigned("passes", value, 1, 1000000, &o->passes);
    case 'n':
        given->iterations = true;
        return bench_parse_count("iterations", value, 1, UINT64_MAX / 2, &o->iterations);
    case OPT_WARMUP:
        return bench_parse_seconds("warmup", value, true, &o->warmup_s);
    case OPT_DROP_CACHE:
        o->drop_cache = true;
        return 0;
    default:
        return OPTION_NOT_IN_GROUP;
    }
}

/* "Baselines": which baselines run, and the threads and copies they run with. */
static int take_baseline_option(int c, const char *value, struct bench_options *o)
{
    uint64_t v = 0;
    int rc = 0;
    switch (c) {
    case 'b':
        o->baselines_explicit = true;
        return bench_parse_baselines(value, &o->baselines);
    case OPT_BASELINE_THREADS:
        return bench_parse_unsigned("baseline-threads", value, 1, 1024, &o->baseline_threads);
    case OPT_COPY_CHUNK:
        rc = bench_parse_size("copy-chunk", value, &v);
        o->copy_chunk = (size_t)v;
        return rc;
    case OPT_COPY_STREAMS:
        return bench_parse_unsigned("copy-streams", value, 1, 64, &o->copy_streams);
    default:
        return OPTION_NOT_IN_GROUP;
    }
}

/* "Library and device": the library's threads, and which backends and devices serve it. */
static int take_library_option(int c, const char *value, struct bench_options *o)
{
    uint64_t v = 0;
    int rc = 0;
    switch (c) {
    case OPT_IO_THREADS:
        return bench_parse_unsigned("io-threads", value, 1, 1024, &o->io_threads);
    case OPT_DEVICE:
        rc = bench_parse_count("device", value, 0, 1023, &v);
        o->device = (int)v;
        o->device_given = true;
        return rc;
    case OPT_BACKENDS:
        return bench_parse_backends(value, o);
    case OPT_DEVICES:
        return bench_parse_devices(value, o);
    default:
        return OPTION_NOT_IN_GROUP;
    }
}

/* "Checking and output": --verify and its seed, and what is printed where. */
static int take_output_option(int c, const char *value, struct bench_options *o)
{
    switch (c) {
    case OPT_VERIFY:
        o->verify = true;
        return 0;
    case OPT_SEED:
        return bench_parse_count("seed", value, 0, UINT64_MAX, &o->seed);
    case OPT_JSON:
        o->json = true;
        return 0;
    case OPT_PROGRESS:
        o->progress = 1;
        return 0;
    case OPT_NO_PROGRESS:
        o->progress = 0;
        return 0;
    default:
        return OPTION_NOT_IN_GROUP;
    }
}

/* --help, --version, the hidden --backend-worker, and what getopt could not match. */
static int take_program_option(int c, const char *value, char **argv, struct bench_options *o)
{
    switch (c) {
    case 'h':
        bench_print_usage();
        return 1;
    case OPT_VERSION:
        tool_print_version(BENCH_NAME);
        return 1;
    case OPT_BACKEND_WORKER:
        return bench_parse_worker_fds(value, o->worker_fds);
    case ':':
        fprintf(stderr, BENCH_NAME ": %s needs a value (see --help)\n", argv[optind - 1]);
        return -1;
    default:
        fprintf(stderr, BENCH_NAME ": unknown option '%s' (see --help)\n", argv[optind - 1]);
        return -1;
    }
}

/* The groups in --help's order; the one that owns the option takes it. */
static int take_option(int c, char **argv, struct bench_options *o, struct options_given *given)
{
    int rc = take_workload_option(c, optarg, o, given);
    if (rc == OPTION_NOT_IN_GROUP)
        rc = take_duration_option(c, optarg, o, given);
    if (rc == OPTION_NOT_IN_GROUP)
        rc = take_baseline_option(c, optarg, o);
    if (rc == OPTION_NOT_IN_GROUP)
        rc = take_library_option(c, optarg, o);
    if (rc == OPTION_NOT_IN_GROUP)
        rc = take_output_option(c, optarg, o);
    if (rc == OPTION_NOT_IN_GROUP)
        rc = take_program_option(c, optarg, argv, o);
    return rc;
}

int bench_options_parse(int argc, char **argv, struct bench_options *opts_p)
{
    struct bench_options o = default_options();
    struct options_given given = {0};
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":w:s:f:t:m:T:p:n:b:h", long_options, NULL)) != -1) {
        int rc = take_option(c, argv, &o, &given);
        if (rc != 0)
            return rc > 0 ? 1 : -1;
    }
    if (optind < argc) {
        fprintf(stderr, BENCH_NAME ": unexpected argument '%s' (see --help)\n", argv[optind]);
        return -1;
    }
    if (!given.time && !given.passes && !given.iterations)
        o.time_s = 3;
    if (o.n_sweep != 0)
        bench_sweep_file_size(&o, given.file_size);
    if (bench_check_combination(&o, given.time, given.passes, given.io_size) != 0)
        return -1;
    *opts_p = o;
    return 0;
}
