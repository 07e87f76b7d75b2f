/*
 * hipfile-bench's --help and --version text: every option, what each baseline measures, and the
 * exit status. docs/tools/hipfile-bench.md says the same at length.
 */
#include <hipfile.h>
#include <stdio.h>

#include "bench.h"

static const char usage_text[] =
    "usage: " BENCH_NAME " [options]\n"
    "\n"
    "Measures hipFileRead/hipFileWrite and, in the same run, the baselines they should be judged\n"
    "against; prints GB/s (10^9 bytes/s), IOPS, per-call latency, CPU time per GB and ratios\n"
    "(each library method to every baseline, and the async and batch APIs to the sync one).\n"
    "Sizes take K, M, G or T suffixes (powers of 1024: 4K, 16M, 8G).\n"
    "\n"
    "Workload:\n"
    "  -w, --workload LIST      seq-read, seq-write, rand-read, rand-write, or all (default "
    "seq-read)\n"
    "  -s, --io-size SIZE       bytes per call (default 16M)\n"
    "      --sweep LIST         call sizes (e.g. 4M,16M,64M,256M,1G): the whole measurement once\n"
    "                           per size, then a table of GB/s by size (library, each baseline,\n"
    "                           library/pinned, library/ceiling); with --json one document of\n"
    "                           every run plus a \"sweep\" array, which plot_sweep.py draws.\n"
    "                           Not with --io-size\n"
    "  -f, --file-size SIZE     bytes of the file used (default 1G; with --sweep at least the\n"
    "                           largest size times --threads; a --file-size given must hold it)\n"
    "  -t, --threads N          caller threads issuing hipFileRead/Write (default 1); each owns a\n"
    "                           disjoint region of the file, swept in order or at random offsets\n"
    "                           aligned to --io-size\n"
    "  -m, --mem KIND           library buffers: device (hipMalloc, default), pinned "
    "(hipHostMalloc)\n"
    "                           or pageable; host memory turns on properties.allow_system_memory\n"
    "      --register           hipFileBufRegister the library's buffers\n"
    "      --file PATH          file to use; created and filled with the pattern when missing or\n"
    "                           too small (default: a temporary file in $TMPDIR)\n"
    "      --keep               keep a file this program created\n"
    "      --direct             open the file with O_DIRECT for the library and the raw baseline\n"
    "      --api LIST           how the library is called, each measured as its own method: sync\n"
    "                           (hipFileRead/Write, 'library', default), async (hipFileReadAsync/\n"
    "                           WriteAsync on one registered stream per thread, synchronized per\n"
    "                           call, 'library-async'), batch (--batch-entries calls per\n"
    "                           hipFileBatchIOSubmit, 'library-batch'; latency is per batch), all\n"
    "      --batch-entries N    calls per batch of the batch API (default 128; the library "
    "accepts\n"
    "                           up to properties.max_batch_io_count)\n"
    "\n"
    "Duration (each method is measured on its own):\n"
    "  -T, --time SECONDS       repeat passes until SECONDS of measuring (default 3 when no\n"
    "                           --passes or --iterations is given)\n"
    "  -p, --passes N           measured passes over the file (default 1)\n"
    "  -n, --iterations N       calls per thread in a pass instead of one sweep of its region\n"
    "      --warmup SECONDS     untimed run first, at most one pass (default 0.5; 0: none)\n"
    "      --drop-cache         drop the page cache before each measured pass (root: sync and\n"
    "                           drop_caches; otherwise only this file's clean pages)\n"
    "\n"
    "Baselines (measured in the same run, each with its ratio to the library):\n"
    "  -b, --baselines LIST     any of raw, odirect, naive, amd, pinned, ceiling, pread-copy; all\n"
    "                           (default) or none\n"
    "        raw         pread/pwrite into host memory at --baseline-threads threads\n"
    "        odirect     O_DIRECT pread at --baseline-threads (queue depth); reads only\n"
    "        naive       pread into pageable memory, then hipMemcpy, per call; device memory\n"
    "        amd         16 MiB pageable bounce per call, synchronous hipMemcpy per chunk,\n"
    "                    fdatasync after every written chunk; device memory\n"
    "        pinned      pinned host-to-device (reads) or device-to-host (writes) copy bandwidth\n"
    "                    at --copy-chunk over --copy-streams streams; device memory\n"
    "        ceiling     the best bare pipeline for one call of --io-size: persistent workers\n"
    "                    (8, 12, 16, at most the CPUs) claim pieces (256K to 4M) of each call,\n"
    "                    pread them into pinned double buffers and hipMemcpyAsync them on their\n"
    "                    own streams; the best of a 0.1 s-per-configuration calibration is\n"
    "                    measured and named; device-memory reads\n"
    "        pread-copy  latency of pread into pinned memory plus one copy of the same size;\n"
    "                    device-memory reads, in 'all' only for --io-size up to 1M\n"
    "        sync-seq    the library's sync API sweeping the file in order with calls of one\n"
    "                    batch's bytes (--batch-entries x --io-size); not in 'all', but run with\n"
    "                    --api batch unless --baselines is given\n"
    "      --baseline-threads N threads of raw and odirect (default: executor threads + 1 with\n"
    "                           one caller thread, else --threads)\n"
    "      --copy-chunk SIZE    bytes per copy of the pinned baseline (default 64M)\n"
    "      --copy-streams N     streams of the pinned baseline (default 4)\n"
    "\n"
    "Library and device:\n"
    "      --io-threads N       set execution.max_io_threads before the driver opens\n"
    "      --device N           GPU index (default 0)\n"
    "\n"
    "Comparisons (one of the two):\n"
    "      --backends LIST      library methods served by each named backend in turn (e.g.\n"
    "                           fastpath,fallback): one process per backend whose library loads\n"
    "                           that backend alone, passes interleaved, the same file and\n"
    "                           baselines; each pass checked against the library's statistics,\n"
    "                           the run failed when any request was served by another backend.\n"
    "                           Ratios to the baselines and to the first backend\n"
    "      --devices LIST       device indexes (0,1,2,3) or all: library methods on each device\n"
    "                           alone, then on all at once (--threads threads per device, each\n"
    "                           device on its own part of the file); reports each device, the\n"
    "                           aggregate, the sum of single-device runs and aggregate/sum. Not\n"
    "                           with --device; baselines use the first device\n"
    "\n"
    "Checking and output:\n"
    "      --verify             check every read against the file's pattern and read back every\n"
    "                           write (slows every method; figures are for checking, not quoting)\n"
    "      --seed N             seed of the pattern and the random offsets (default 1)\n"
    "      --json               one JSON object per workload on stdout instead of the text report\n"
    "                           (with --sweep, one document)\n"
    "      --progress, --no-progress  progress on stderr (default: when it is a terminal)\n"
    "  -h, --help               this text\n"
    "      --version            versions of this program and of the hipfile library\n"
    "\n"
    "Exit status: 0 when every method ran without error, 1 after an I/O error or a --verify\n"
    "mismatch, 2 for a bad command line. The configuration comes from HIPFILE_CONFIG (or\n"
    "/etc/hipfile.conf) and the GPU runtime from HIPFILE_GPU_RUNTIME, as for any hipfile "
    "program.\n";

void bench_print_usage(void)
{
    fputs(usage_text, stdout);
}

void bench_print_version(void)
{
    unsigned major = 0, minor = 0, patch = 0;
    hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    printf(BENCH_NAME " %d.%d.%d\n", HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR,
           HIPFILE_VERSION_PATCH);
    if (status.err == hipFileSuccess)
        printf("hipfile library %u.%u.%u\n", major, minor, patch);
}
