/*
 * Helpers shared by the example programs: file open + registration with an O_DIRECT attempt,
 * error printing for both hipfile return conventions, and the runtime/path report.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT, dladdr */
#endif

#include "common.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int example_open_registered(const char *path, int flags, mode_t mode, int *fd_p,
                            hipFileHandle_t *handle_p)
{
    /*
     * O_DIRECT lets the direct path use the caller's descriptor as is. Filesystems without direct
     * I/O (tmpfs on older kernels, some FUSE mounts) refuse it with EINVAL; hipfile serves such
     * files through its compat path, so open them without it.
     */
    int fd = open(path, flags | O_DIRECT, mode);
    if (fd < 0 && errno == EINVAL)
        fd = open(path, flags, mode);
    if (fd < 0) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }

    hipFileDescr_t descr;
    memset(&descr, 0, sizeof(descr));
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t handle;
    hipFileError_t status = hipFileHandleRegister(&handle, &descr);
    if (status.err != hipFileSuccess) {
        fprintf(stderr, "cannot register %s: ", path);
        example_print_error("hipFileHandleRegister", status);
        close(fd);
        return -1;
    }
    *fd_p = fd;
    *handle_p = handle;
    return 0;
}

int example_close_registered(const char *path, int fd, hipFileHandle_t handle)
{
    hipFileHandleDeregister(handle);
    if (close(fd) != 0) {
        fprintf(stderr, "cannot close %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

void example_print_error(const char *what, hipFileError_t status)
{
    if (IS_HIP_DRV_ERR(status))
        fprintf(stderr, "%s failed: %s (HIP error %d: %s)\n", what,
                hipFileGetOpErrorString(status.err), (int)HIP_DRV_ERR(status),
                hipGetErrorString(HIP_DRV_ERR(status)));
    else
        fprintf(stderr, "%s failed: %s (%d)\n", what, hipFileGetOpErrorString(status.err),
                (int)status.err);
}

void example_print_io_error(const char *what, ssize_t ret)
{
    /* A read or write reports a negated hipfile code, or -1 with the reason in errno. */
    if (IS_HIPFILE_ERR(ret))
        fprintf(stderr, "%s failed: %s (%zd)\n", what, HIPFILE_ERRSTR(ret), ret);
    else
        fprintf(stderr, "%s failed: %s\n", what, strerror(errno));
}

void example_enable_stats(void)
{
    /* Level 3 keeps per-GPU counters of direct and compat reads and writes. */
    hipFileError_t status = hipFileSetParameterSizeT(hipFileParamProfileStats, 3);
    if (status.err != hipFileSuccess)
        printf("note: per-GPU statistics unavailable (%s); the I/O path will not be reported\n",
               hipFileGetOpErrorString(status.err));
}

/* File name of the library that provides @p symbol in this process, or "unknown". */
static const char *library_providing(void *symbol)
{
    Dl_info info;
    if (dladdr(symbol, &info) == 0 || info.dli_fname == NULL)
        return "unknown";
    const char *slash = strrchr(info.dli_fname, '/');
    return slash != NULL ? slash + 1 : info.dli_fname;
}

void example_report_runtime(void)
{
    unsigned major = 0, minor = 0, patch = 0;
    hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    if (status.err == hipFileSuccess)
        printf("hipfile %u.%u.%u\n", major, minor, patch);
    else
        example_print_error("hipFileGetVersion", status);

    const char *asked = getenv("HIPFILE_GPU_RUNTIME");
    printf("GPU runtime asked for: %s\n",
           asked != NULL && *asked != '\0'
               ? asked
               : "not set (gpu.runtime from the config file; default auto)");

    int version = 0, devices = 0;
    hipError_t hip = hipRuntimeGetVersion(&version);
    if (hip == hipSuccess)
        hip = hipGetDeviceCount(&devices);
    /* ISO C has no conversion from a function pointer to void *; copy the address instead. */
    void *malloc_symbol = NULL;
    hipError_t (*hip_malloc)(void **, size_t) = hipMalloc;
    memcpy(&malloc_symbol, &hip_malloc, sizeof(malloc_symbol));
    if (hip == hipSuccess)
        printf("HIP runtime of this program: %s (version %d, %d device%s)\n",
               library_providing(malloc_symbol), version, devices, devices == 1 ? "" : "s");
    else
        printf("HIP runtime of this program: %s (query failed: %s)\n",
               library_providing(malloc_symbol), hipGetErrorString(hip));

    hipFileDriverProps_t props;
    status = hipFileDriverGetProperties(&props);
    if (status.err != hipFileSuccess)
        example_print_error("hipFileDriverGetProperties", status);
    else if (props.nvfs.major_version != 0 || props.nvfs.minor_version != 0)
        printf("direct storage path: available (%u.%u)\n", props.nvfs.major_version,
               props.nvfs.minor_version);
    else
        printf("direct storage path: not available here; I/O goes through the compat path\n");
}

void example_report_path(void)
{
    static hipFileStatsLevel3_t stats;
    hipFileError_t status = hipFileGetStatsL3(&stats);
    if (status.err != hipFileSuccess) {
        printf("I/O path: unknown (statistics: %s)\n", hipFileGetOpErrorString(status.err));
        return;
    }
    uint64_t direct_reads = 0, compat_reads = 0, direct_writes = 0, compat_writes = 0;
    uint32_t gpus = stats.num_gpus < HIPFILE_MAX_GPUS ? stats.num_gpus : HIPFILE_MAX_GPUS;
    for (uint32_t i = 0; i < gpus; i++) {
        direct_reads += stats.per_gpu_stats[i].n_nvfs_reads;
        compat_reads += stats.per_gpu_stats[i].n_posix_reads;
        direct_writes += stats.per_gpu_stats[i].n_nvfs_writes;
        compat_writes += stats.per_gpu_stats[i].n_posix_writes;
    }
    printf("I/O path: reads %llu direct, %llu compat; writes %llu direct, %llu compat\n",
           (unsigned long long)direct_reads, (unsigned long long)compat_reads,
           (unsigned long long)direct_writes, (unsigned long long)compat_writes);
}

void example_pattern_fill(unsigned char *buf, size_t size, uint64_t file_offset, unsigned seed)
{
    /* A multiplicative hash of the offset: no short period, so a shifted copy never matches. */
    for (size_t i = 0; i < size; i++) {
        uint64_t v = (file_offset + i) * 0x9e3779b97f4a7c15ull + seed;
        v ^= v >> 29;
        buf[i] = (unsigned char)(v >> 56);
    }
}
