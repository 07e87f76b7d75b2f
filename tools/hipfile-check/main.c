/*
 * hipfile-check: the command line, then the library set up as hipFileDriverOpen sets it up, then
 * either the platform report or the --explain verdict, in text or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <hipfile.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "common/cmdline.h"

static const char usage_text[] =
    "Usage: " CHECK_NAME " [--json] [--verbose]\n"
    "       " CHECK_NAME " --explain FILE [--size N] [--offset N] [--mem device|host|pinned]\n"
    "                     [--write] [--json] [--verbose]\n"
    "\n"
    "Tells whether GPU file I/O works on this machine through hipfile, and why.\n"
    "\n"
    "Without --explain: the configuration file and every effective setting, the GPU runtime\n"
    "bound, every plugin manifest and whether its plugin loaded (and if not, why), each loaded\n"
    "backend, and whether a direct (no bounce buffer) path exists.\n"
    "\n"
    "  --explain FILE   register FILE and a buffer, and show every backend's score and reason\n"
    "                   for one request, the order backends would be tried in, and which serves\n"
    "  --size N         bytes in the request (default 1M; suffixes K, M, G are powers of 1024)\n"
    "  --offset N       file offset of the request (default 0; same suffixes)\n"
    "  --mem TYPE       buffer memory: device (hipMalloc, default), pinned (hipHostMalloc) or\n"
    "                   host (malloc)\n"
    "  --write          explain a write (FILE is opened read-write, never written)\n"
    "  --json           print the same content as one JSON object\n"
    "  --verbose        include every line the library logged, not only warnings and errors\n"
    "  --help           print this help\n"
    "  --version        print the version\n"
    "\n"
    "hipfile-check links no HIP runtime, so gpu.runtime = \"auto\" finds the machine's first\n"
    "runtime with a device; with none, it takes the host emulation beside it and says so.\n"
    "hipfile-check-cuda and hipfile-check-hip (where built) link the CUDA provider or AMD's\n"
    "runtime and report what programs linked the same way get.\n"
    "\n"
    "Exit status: 0 when GPU I/O is usable (with --explain: a backend would serve the request),\n"
    "1 when it is not (the verdict lists every problem with its fix), 2 for a bad command line\n"
    "or a FILE that cannot be opened.\n"
    "\n" TOOL_HELP_CONFIG_SEARCH " The environment (HIPFILE_GPU_RUNTIME,\n"
    "HIPFILE_PLUGIN_DIR, ...) applies as it does to any program using hipfile.\n";

enum long_only_option {
    OPT_SIZE = 256,
    OPT_OFFSET,
    OPT_MEM,
    OPT_WRITE,
    OPT_JSON,
    OPT_VERSION,
};

static const struct option long_options[] = {
    {"explain", required_argument, NULL, 'e'},
    {"size", required_argument, NULL, OPT_SIZE},
    {"offset", required_argument, NULL, OPT_OFFSET},
    {"mem", required_argument, NULL, OPT_MEM},
    {"write", no_argument, NULL, OPT_WRITE},
    {"json", no_argument, NULL, OPT_JSON},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(CHECK_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry '" CHECK_NAME " --help' for more information.\n", stderr);
    va_end(ap);
    return -EINVAL;
}

/* A byte count, decimal or 0x hex, with K, M or G; at most @p max. 0, or -1 when it is not one. */
static int parse_bytes(const char *text, uint64_t max, uint64_t *value_p)
{
    return tool_parse_size(text, &tool_size_syntax_kmg, max, value_p) == TOOL_SIZE_OK ? 0 : -1;
}

int check_options_parse(int argc, char **argv, struct check_options *opts_p)
{
    struct check_options o = {.size = 1u << 20, .mem = CHECK_MEM_DEVICE};
    bool request_option = false;
    uint64_t value;
    int mem;
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hv", long_options, NULL)) != -1) {
        switch (c) {
        case 'e':
            o.explain = optarg;
            break;
        case OPT_SIZE:
            request_option = true;
            if (parse_bytes(optarg, SIZE_MAX, &value) < 0 || value == 0)
                return usage_error("--size %s: expected a byte count above 0, e.g. 4096 or 16M",
                                   optarg);
            o.size = (size_t)value;
            break;
        case OPT_OFFSET:
            request_option = true;
            if (parse_bytes(optarg, INT64_MAX, &value) < 0)
                return usage_error("--offset %s: expected a byte offset, e.g. 0 or 1G", optarg);
            o.offset = (int64_t)value;
            break;
        case OPT_MEM:
            request_option = true;
            mem = tool_word_index(optarg, check_mem_names, CHECK_MEM_KINDS);
            if (mem < 0)
                return usage_error("--mem %s: expected device, pinned or host", optarg);
            o.mem = (enum check_mem)mem;
            break;
        case OPT_WRITE:
            request_option = true;
            o.write = true;
            break;
        case OPT_JSON:
            o.json = true;
            break;
        case 'v':
            o.verbose = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 1;
        case OPT_VERSION:
            printf("%s %d.%d.%d (HIP provider linked: %s)\n", program_invocation_short_name,
                   HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR, HIPFILE_VERSION_PATCH,
                   HF_CHECK_PROVIDER);
            return 1;
        case ':':
            return usage_error("%s needs a value", argv[optind - 1]);
        default:
            if (optopt != 0)
                return usage_error("unknown option -%c", optopt);
            return usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (request_option && o.explain == NULL)
        return usage_error("--size, --offset, --mem and --write describe the --explain request; "
                           "give --explain FILE too");
    if (o.explain != NULL && o.explain[0] == '\0')
        return usage_error("--explain needs a file name");
    *opts_p = o;
    return 0;
}

int main(int argc, char **argv)
{
    struct check_options opts;
    int rc = check_options_parse(argc, argv, &opts);
    if (rc != 0)
        return rc > 0 ? CHECK_EXIT_USABLE : CHECK_EXIT_USAGE;

    /* A FILE that cannot be opened is the caller's mistake: say so before any report. */
    int fd = -1;
    if (opts.explain != NULL) {
        fd = explain_open(&opts);
        if (fd < 0)
            return CHECK_EXIT_USAGE;
    }

    struct check_setup setup;
    check_setup_run(&setup);

    struct emit e;
    int status;
    emit_begin(&e, stdout, opts.json);
    report_platform(&e, &setup);
    if (opts.explain != NULL) {
        report_backends(&e, &setup);
        status = explain_request(&e, &setup, &opts, fd);
        report_messages(&e, &setup, opts.verbose);
    } else {
        report_settings(&e, &setup);
        report_plugins(&e, &setup);
        report_backends(&e, &setup);
        report_plugin_settings(&e, &setup);
        report_messages(&e, &setup, opts.verbose);
        status = report_verdict(&e, &setup);
    }
    emit_finish(&e);
    check_setup_free(&setup);
    if (fd >= 0)
        close(fd);
    return status;
}
