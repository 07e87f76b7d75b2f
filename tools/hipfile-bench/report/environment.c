/*
 * What the report says about where it ran, gathered once the driver is open: the machine, the
 * HIP runtime that provides hipMalloc in this process, and the library's version and settings.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

static void read_cpu_model(char *model, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(model, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* File name of the library that provides hipMalloc in this process. */
static void read_runtime_library(char *name, size_t len)
{
    Dl_info info;
    void *symbol = NULL;
    hipError_t (*hip_malloc)(void **, size_t) = hipMalloc;
    /* ISO C has no conversion from a function pointer to void *; copy the address instead. */
    memcpy(&symbol, &hip_malloc, sizeof(symbol));
    snprintf(name, len, "unknown");
    if (dladdr(symbol, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        snprintf(name, len, "%s", slash != NULL ? slash + 1 : info.dli_fname);
    }
}

static size_t size_param(hipFileSizeTConfigParameter_t param)
{
    size_t value = 0;
    hipFileError_t status = hipFileGetParameterSizeT(param, &value);
    return status.err == hipFileSuccess ? value : 0;
}

void bench_env_gather(const struct bench_options *opts, struct bench_env *env)
{
    struct utsname u;
    memset(env, 0, sizeof(*env));
    if (uname(&u) == 0) {
        snprintf(env->hostname, sizeof(env->hostname), "%s", u.nodename);
        snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
        snprintf(env->arch, sizeof(env->arch), "%s", u.machine);
    }
    read_cpu_model(env->cpu_model, sizeof(env->cpu_model));
    env->cpus = sysconf(_SC_NPROCESSORS_ONLN);
    env->memory_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);

    unsigned major = 0, minor = 0, patch = 0;
    if (hipFileGetVersion(&major, &minor, &patch).err == hipFileSuccess)
        snprintf(env->hipfile_version, sizeof(env->hipfile_version), "%u.%u.%u", major, minor,
                 patch);
    const char *asked = getenv("HIPFILE_GPU_RUNTIME");
    snprintf(env->runtime_asked, sizeof(env->runtime_asked), "%s", asked != NULL ? asked : "");
    read_runtime_library(env->runtime_library, sizeof(env->runtime_library));
    if (hipRuntimeGetVersion(&env->runtime_version) != hipSuccess)
        env->runtime_version = 0;
    if (hipGetDeviceCount(&env->devices) != hipSuccess)
        env->devices = 0;
    if (hipDeviceGetName(env->device_name, (int)sizeof(env->device_name), opts->device) !=
        hipSuccess)
        env->device_name[0] = '\0';

    env->io_threads = size_param(hipFileParamExecutionMaxIOThreads);
    env->min_split_kib = size_param(hipFileParamExecutionMinIOThresholdSizeKB);
    env->max_parallelism = size_param(hipFileParamExecutionMaxRequestParallelism);
    env->bounce_kib = size_param(hipFileParamPropertiesPerBufferCacheSizeKB);
    env->bounce_total_kib = size_param(hipFileParamPropertiesMaxDeviceCacheSizeKB);
    bool parallel = false;
    if (hipFileGetParameterBool(hipFileParamExecutionParallelIO, &parallel).err == hipFileSuccess)
        env->parallel_io = parallel;
}
