/*
 * hipfile-cp's command line: options, sizes with K/M/G suffixes, --help and --version.
 */
#include <getopt.h>
#include <stdio.h>

#include "common/cmdline.h"
#include "cp.h"

static const char usage_text[] =
    "usage: " CP_NAME " [options] SOURCE DEST\n"
    "\n"
    "Copies SOURCE to DEST through GPU memory: hipFileRead from SOURCE into a registered GPU\n"
    "buffer, hipFileWrite from that buffer to DEST, one chunk at a time. DEST is created or\n"
    "truncated; when DEST is a directory the copy is DEST/<name of SOURCE>. The copy is the size\n"
    "SOURCE had when it was opened.\n"
    "\n"
    "  -c, --chunk SIZE   bytes per read and write, and the GPU buffer size (default 64M, at most\n"
    "                     1G; rounded up to 4K); K, M, G suffixes are powers of 1024\n"
    "      --verify       compare DEST with SOURCE afterwards, reading both with pread\n"
    "      --device N     GPU index of the buffer (default 0)\n"
    "      --progress, --no-progress\n"
    "                     progress line on standard error (default: when it is a terminal)\n"
    "  -q, --quiet        no summary line\n"
    "  -h, --help         this text\n"
    "      --version      versions of this program and of the hipfile library\n"
    "\n"
    "Exit status: 0 copied (and verified), 1 the copy or the verification failed, 2 bad command\n"
    "line. Sizes are in MiB (2^20 bytes), rates in GB/s (10^9 bytes per second).\n"
    "\n" TOOL_HELP_CONFIG;

static int parse_size(const char *text, uint64_t *out)
{
    return tool_parse_size(text, &tool_size_syntax_kmg, UINT64_MAX, out) == TOOL_SIZE_OK ? 0 : -1;
}

int cp_parse_options(int argc, char **argv, struct cp_options *opts)
{
    enum { OPT_VERIFY = 256, OPT_DEVICE, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_VERSION };
    static const struct option long_options[] = {
        {"chunk", required_argument, NULL, 'c'},
        {"verify", no_argument, NULL, OPT_VERIFY},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    *opts = (struct cp_options){.chunk = CP_DEFAULT_CHUNK, .progress = -1};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "c:qh", long_options, NULL)) != -1) {
        uint64_t n;
        switch (c) {
        case 'c':
            if (parse_size(optarg, &n) != 0 || n == 0 || n > CP_MAX_CHUNK) {
                fprintf(stderr, CP_NAME ": --chunk must be a size from 1 to 1G, not '%s'\n",
                        optarg);
                return -1;
            }
            opts->chunk = (n + 4095) / 4096 * 4096;
            break;
        case OPT_VERIFY:
            opts->verify = true;
            break;
        case OPT_DEVICE:
            if (parse_size(optarg, &n) != 0 || n > 1024) {
                fprintf(stderr, CP_NAME ": --device must be a GPU index, not '%s'\n", optarg);
                return -1;
            }
            opts->device = (int)n;
            break;
        case OPT_PROGRESS:
            opts->progress = 1;
            break;
        case OPT_NO_PROGRESS:
            opts->progress = 0;
            break;
        case 'q':
            opts->quiet = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 1;
        case OPT_VERSION:
            tool_print_version(CP_NAME);
            return 1;
        default:
            if (optopt != 0 && optopt < 256)
                fprintf(stderr, CP_NAME ": bad option '-%c' or missing value\n", optopt);
            else
                fprintf(stderr, CP_NAME ": bad option '%s' or missing value\n", argv[optind - 1]);
            fprintf(stderr, "Try '" CP_NAME " --help'.\n");
            return -1;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, CP_NAME ": expected SOURCE and DEST, got %d path%s\n", argc - optind,
                argc - optind == 1 ? "" : "s");
        fprintf(stderr, "Try '" CP_NAME " --help'.\n");
        return -1;
    }
    opts->src = argv[optind];
    opts->dst = argv[optind + 1];
    return 0;
}
