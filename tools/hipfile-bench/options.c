/*
 * hipfile-bench's command line: parsing of sizes, counts and lists, and the checks that turn a
 * bad combination into one clear message before anything is allocated. The text is in help.c.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <hipfile.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"

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

static int bad_value(const char *option, const char *value, const char *why)
{
    fprintf(stderr, BENCH_NAME ": --%s '%s': %s (see --help)\n", option, value, why);
    return -1;
}

/* "16M", "4k", "8GiB", "4096": a positive byte count in powers of 1024. */
static int parse_size(const char *option, const char *text, uint64_t *bytes_p)
{
    char *end;
    errno = 0;
    if (text[0] == '-')
        return bad_value(option, text, "not a size");
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || errno != 0)
        return bad_value(option, text, "not a size");
    unsigned shift = 0;
    if (*end != '\0') {
        const char *units = "KMGT";
        const char *unit = strchr(units, toupper((unsigned char)*end));
        if (unit == NULL)
            return bad_value(option, text, "unknown unit (use K, M, G or T)");
        shift = 10u * (unsigned)(unit - units + 1);
        end++;
        if (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0)
            end += strlen(end);
    }
    if (*end != '\0')
        return bad_value(option, text, "trailing characters after the size");
    if (value == 0)
        return bad_value(option, text, "must be greater than zero");
    if (value > (UINT64_MAX >> shift))
        return bad_value(option, text, "too large");
    *bytes_p = (uint64_t)value << shift;
    return 0;
}

static int parse_count(const char *option, const char *text, uint64_t min, uint64_t max,
                       uint64_t *value_p)
{
    char *end;
    errno = 0;
    if (text[0] == '-')
        return bad_value(option, text, "not a whole number");
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0)
        return bad_value(option, text, "not a whole number");
    if (value < min || value > max) {
        char why[96];
        snprintf(why, sizeof(why), "must be between %llu and %llu", (unsigned long long)min,
                 (unsigned long long)max);
        return bad_value(option, text, why);
    }
    *value_p = value;
    return 0;
}

static int parse_seconds(const char *option, const char *text, bool zero_ok, double *value_p)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(value))
        return bad_value(option, text, "not a number of seconds");
    if (value < 0 || (!zero_ok && value == 0) || value > 86400)
        return bad_value(option, text,
                         zero_ok ? "must be 0 to 86400 seconds" : "must be above 0, at most 86400");
    *value_p = value;
    return 0;
}

/* Comma-separated names, each a bit of the result; "all" and "none" where allowed. */
static int parse_workloads(const char *text, unsigned *bits_p)
{
    char copy[256];
    if (strlen(text) >= sizeof(copy))
        return bad_value("workload", text, "too long");
    strcpy(copy, text);
    unsigned bits = 0;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        unsigned found = 0;
        if (strcmp(name, "all") == 0)
            found = (1u << 4) - 1;
        for (unsigned i = 0; i < 4; i++)
            if (strcmp(name, bench_workloads[i].name) == 0)
                found = 1u << i;
        if (found == 0)
            return bad_value("workload", name,
                             "unknown workload (seq-read, seq-write, rand-read, rand-write, all)");
        bits |= found;
    }
    if (bits == 0)
        return bad_value("workload", text, "names no workload");
    *bits_p = bits;
    return 0;
}

/* One word of a comma-separated option and the bits it stands for. */
struct name_bits {
    const char *name;
    unsigned bits;
};

/*
 * Comma-separated words of @p names into the union of their bits; @p known lists the words for
 * the message. An empty result is refused unless @p empty_ok ("none").
 */
static int parse_name_list(const char *option, const char *text, const struct name_bits *names,
                           size_t n_names, const char *known, bool empty_ok, unsigned *bits_p)
{
    char copy[256];
    if (strlen(text) >= sizeof(copy))
        return bad_value(option, text, "too long");
    strcpy(copy, text);
    unsigned bits = 0;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < n_names; i++)
            if (strcmp(name, names[i].name) == 0)
                break;
        if (i == n_names)
            return bad_value(option, name, known);
        bits |= names[i].bits;
    }
    if (bits == 0 && !empty_ok)
        return bad_value(option, text, "names nothing");
    *bits_p = bits;
    return 0;
}

static int parse_baselines(const char *text, unsigned *bits_p)
{
    static const struct name_bits names[] = {
        {"raw", BENCH_BL_RAW},
        {"pread", BENCH_BL_RAW},
        {"pwrite", BENCH_BL_RAW},
        {"odirect", BENCH_BL_ODIRECT},
        {"naive", BENCH_BL_NAIVE},
        {"amd", BENCH_BL_AMD},
        {"pinned", BENCH_BL_PINNED},
        {"pread-copy", BENCH_BL_PREAD_COPY},
        {"ceiling", BENCH_BL_CEILING},
        {"sync-seq", BENCH_BL_SYNC_SEQ},
        {"all", BENCH_BL_ALL}, /* every one but sync-seq, which only a batch is judged by */
        {"none", 0},
    };
    return parse_name_list("baselines", text, names, sizeof(names) / sizeof(names[0]),
                           "unknown baseline (raw, odirect, naive, amd, pinned, ceiling, "
                           "pread-copy, sync-seq, all, none)",
                           true, bits_p);
}

static int parse_apis(const char *text, unsigned *bits_p)
{
    static const struct name_bits names[] = {
        {"sync", BENCH_API_SYNC},
        {"async", BENCH_API_ASYNC},
        {"batch", BENCH_API_BATCH},
        {"all", BENCH_API_SYNC | BENCH_API_ASYNC | BENCH_API_BATCH},
    };
    return parse_name_list("api", text, names, sizeof(names) / sizeof(names[0]),
                           "unknown API (sync, async, batch, all)", false, bits_p);
}

/* Backend names as plugins.enable takes them; each at most once. */
static int parse_backends(const char *text, struct bench_options *o)
{
    char copy[BENCH_MAX_BACKENDS * BENCH_BACKEND_NAME];
    if (strlen(text) >= sizeof(copy))
        return bad_value("backends", text, "too long");
    strcpy(copy, text);
    o->n_backends = 0;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (strlen(name) >= BENCH_BACKEND_NAME)
            return bad_value("backends", name, "name too long");
        if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
            strlen(name))
            return bad_value("backends", name, "not a backend name (letters, digits, . _ -)");
        for (unsigned i = 0; i < o->n_backends; i++)
            if (strcmp(o->backends[i], name) == 0)
                return bad_value("backends", name, "named twice");
        if (o->n_backends == BENCH_MAX_BACKENDS)
            return bad_value("backends", text, "more than 8 backends");
        strcpy(o->backends[o->n_backends++], name);
    }
    if (o->n_backends == 0)
        return bad_value("backends", text, "names no backend");
    return 0;
}

/* Device indexes, each at most once, or "all" (resolved once the runtime is up). */
static int parse_devices(const char *text, struct bench_options *o)
{
    char copy[256];
    if (strlen(text) >= sizeof(copy))
        return bad_value("devices", text, "too long");
    strcpy(copy, text);
    o->n_devices = 0;
    o->all_devices = strcmp(text, "all") == 0;
    if (o->all_devices)
        return 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (parse_count("devices", item, 0, BENCH_MAX_DEVICES - 1, &v) != 0)
            return -1;
        for (unsigned i = 0; i < o->n_devices; i++)
            if (o->devices[i] == (int)v)
                return bad_value("devices", item, "named twice");
        o->devices[o->n_devices++] = (int)v;
    }
    if (o->n_devices == 0)
        return bad_value("devices", text, "names no device (give indexes, or all)");
    return 0;
}

/* Call sizes, each at most once; an empty item is a mistake, not a size to skip. */
static int parse_sweep(const char *text, struct bench_options *o)
{
    const char *item = text;
    o->n_sweep = 0;
    for (;;) {
        size_t len = strcspn(item, ",");
        char size_text[64];
        uint64_t size;
        if (len == 0)
            return bad_value("sweep", text, "an empty call size (give sizes such as 4M,16M,64M)");
        if (len >= sizeof(size_text))
            return bad_value("sweep", text, "a size is too long");
        memcpy(size_text, item, len);
        size_text[len] = '\0';
        if (parse_size("sweep", size_text, &size) != 0)
            return -1;
        for (unsigned i = 0; i < o->n_sweep; i++)
            if (o->sweep_sizes[i] == size)
                return bad_value("sweep", size_text, "named twice");
        if (o->n_sweep == BENCH_MAX_SWEEP)
            return bad_value("sweep", text, "more than 32 sizes");
        o->sweep_sizes[o->n_sweep++] = (size_t)size;
        if (item[len] == '\0')
            return 0;
        item += len + 1;
    }
}

static int parse_worker_fds(const char *text, int *fds)
{
    if (sscanf(text, "%d,%d", &fds[0], &fds[1]) != 2 || fds[0] < 0 || fds[1] < 0)
        return bad_value("backend-worker", text, "for this program's own use");
    return 0;
}

static int parse_mem(const char *text, enum bench_mem *mem_p)
{
    if (strcmp(text, "device") == 0)
        *mem_p = BENCH_MEM_DEVICE;
    else if (strcmp(text, "pinned") == 0)
        *mem_p = BENCH_MEM_PINNED;
    else if (strcmp(text, "pageable") == 0)
        *mem_p = BENCH_MEM_PAGEABLE;
    else
        return bad_value("mem", text, "must be device, pinned or pageable");
    return 0;
}

/* Indexed by enum bench_async_wait: what --async-wait takes and the report prints. */
static const char *const async_wait_names[] = {"sync", "poll"};

const char *bench_async_wait_name(enum bench_async_wait wait)
{
    return async_wait_names[wait];
}

/* Taken whatever --api says: only the async method waits, the others ignore it. */
static int parse_async_wait(const char *text, enum bench_async_wait *wait_p)
{
    if (strcmp(text, async_wait_names[BENCH_ASYNC_WAIT_SYNC]) == 0)
        *wait_p = BENCH_ASYNC_WAIT_SYNC;
    else if (strcmp(text, async_wait_names[BENCH_ASYNC_WAIT_POLL]) == 0)
        *wait_p = BENCH_ASYNC_WAIT_POLL;
    else
        return bad_value("async-wait", text, "must be sync or poll");
    return 0;
}

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
static void sweep_file_size(struct bench_options *o, bool file_size_given)
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

/* Combinations that no single option can reject. */
static int check_combination(const struct bench_options *o, bool time_given, bool passes_given,
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

int bench_options_parse(int argc, char **argv, struct bench_options *opts_p)
{
    struct bench_options o = {
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
    bool time_given = false, passes_given = false, iterations_given = false;
    bool io_size_given = false, file_size_given = false;
    uint64_t v;
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":w:s:f:t:m:T:p:n:b:h", long_options, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'w':
            rc = parse_workloads(optarg, &o.workloads);
            break;
        case 's':
            rc = parse_size("io-size", optarg, &v);
            o.io_size = (size_t)v;
            io_size_given = true;
            break;
        case 'f':
            rc = parse_size("file-size", optarg, &o.file_size);
            file_size_given = true;
            break;
        case 't':
            rc = parse_count("threads", optarg, 1, 1024, &v);
            o.threads = (unsigned)v;
            break;
        case 'm':
            rc = parse_mem(optarg, &o.mem);
            break;
        case OPT_REGISTER:
            o.buf_register = true;
            break;
        case OPT_FILE:
            if (optarg[0] == '\0')
                rc = bad_value("file", optarg, "empty path");
            o.file = optarg;
            break;
        case OPT_KEEP:
            o.keep = true;
            break;
        case OPT_DIRECT:
            o.direct = true;
            break;
        case 'T':
            rc = parse_seconds("time", optarg, false, &o.time_s);
            time_given = true;
            break;
        case 'p':
            rc = parse_count("passes", optarg, 1, 1000000, &v);
            o.passes = (unsigned)v;
            passes_given = true;
            break;
        case 'n':
            rc = parse_count("iterations", optarg, 1, UINT64_MAX / 2, &o.iterations);
            iterations_given = true;
            break;
        case OPT_WARMUP:
            rc = parse_seconds("warmup", optarg, true, &o.warmup_s);
            break;
        case OPT_DROP_CACHE:
            o.drop_cache = true;
            break;
        case 'b':
            rc = parse_baselines(optarg, &o.baselines);
            o.baselines_explicit = true;
            break;
        case OPT_BASELINE_THREADS:
            rc = parse_count("baseline-threads", optarg, 1, 1024, &v);
            o.baseline_threads = (unsigned)v;
            break;
        case OPT_COPY_CHUNK:
            rc = parse_size("copy-chunk", optarg, &v);
            o.copy_chunk = (size_t)v;
            break;
        case OPT_COPY_STREAMS:
            rc = parse_count("copy-streams", optarg, 1, 64, &v);
            o.copy_streams = (unsigned)v;
            break;
        case OPT_IO_THREADS:
            rc = parse_count("io-threads", optarg, 1, 1024, &v);
            o.io_threads = (unsigned)v;
            break;
        case OPT_DEVICE:
            rc = parse_count("device", optarg, 0, 1023, &v);
            o.device = (int)v;
            o.device_given = true;
            break;
        case OPT_BACKENDS:
            rc = parse_backends(optarg, &o);
            break;
        case OPT_DEVICES:
            rc = parse_devices(optarg, &o);
            break;
        case OPT_SWEEP:
            rc = parse_sweep(optarg, &o);
            break;
        case OPT_BACKEND_WORKER:
            rc = parse_worker_fds(optarg, o.worker_fds);
            break;
        case OPT_VERIFY:
            o.verify = true;
            break;
        case OPT_SEED:
            rc = parse_count("seed", optarg, 0, UINT64_MAX, &o.seed);
            break;
        case OPT_JSON:
            o.json = true;
            break;
        case OPT_PROGRESS:
            o.progress = 1;
            break;
        case OPT_NO_PROGRESS:
            o.progress = 0;
            break;
        case OPT_API:
            rc = parse_apis(optarg, &o.apis);
            break;
        case OPT_BATCH_ENTRIES:
            rc = parse_count("batch-entries", optarg, 1, 1024, &v);
            o.batch_entries = (unsigned)v;
            break;
        case OPT_ASYNC_WAIT:
            rc = parse_async_wait(optarg, &o.async_wait);
            break;
        case 'h':
            bench_print_usage();
            return 1;
        case OPT_VERSION:
            bench_print_version();
            return 1;
        case ':':
            fprintf(stderr, BENCH_NAME ": %s needs a value (see --help)\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, BENCH_NAME ": unknown option '%s' (see --help)\n", argv[optind - 1]);
            return -1;
        }
        if (rc != 0)
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, BENCH_NAME ": unexpected argument '%s' (see --help)\n", argv[optind]);
        return -1;
    }
    if (!time_given && !passes_given && !iterations_given)
        o.time_s = 3;
    if (o.n_sweep != 0)
        sweep_file_size(&o, file_size_given);
    if (check_combination(&o, time_given, passes_given, io_size_given) != 0)
        return -1;
    *opts_p = o;
    return 0;
}

const char *bench_size_text(uint64_t bytes, char *text, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned unit = 0;
    while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        unit++;
    }
    snprintf(text, len, "%llu %s", (unsigned long long)bytes, units[unit]);
    return text;
}

const char *bench_size_short(uint64_t bytes, char *text, size_t len)
{
    static const char units[] = "KMGT";
    unsigned unit = 0;
    while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        unit++;
    }
    if (unit == 0)
        snprintf(text, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(text, len, "%llu%c", (unsigned long long)bytes, units[unit - 1]);
    return text;
}
