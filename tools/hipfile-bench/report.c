/*
 * What a run reports: facts about the machine, the HIP runtime and the library's settings, then
 * each method's figures and the library's ratio to every baseline, as text or as one JSON object
 * per workload. With --backends each library result names its backend and what the statistics
 * say served it; with --devices the run of all devices at once is set against the sum of the
 * single-device runs; the ceiling baseline says which configuration its calibration chose.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

/* ---- Facts gathered once -------------------------------------------------------------------- */

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

/* ---- Figures -------------------------------------------------------------------------------- */

static double gbps(const struct bench_result *r)
{
    return r->seconds > 0 ? (double)r->bytes / r->seconds / 1e9 : 0;
}

static double iops(const struct bench_result *r)
{
    return r->seconds > 0 ? (double)r->calls / r->seconds : 0;
}

static double latency_us(const struct bench_result *r, double percent)
{
    return bench_hist_percentile(&r->hist, percent) / 1e3;
}

static double cpu_per_gb(const struct bench_result *r)
{
    return r->bytes > 0 ? r->cpu_s / ((double)r->bytes / 1e9) : 0;
}

static const char *mem_name(enum bench_mem mem)
{
    return mem == BENCH_MEM_DEVICE ? "device" : mem == BENCH_MEM_PINNED ? "pinned" : "pageable";
}

static const char *baseline_threads_reason(const struct bench_ctx *ctx)
{
    if (ctx->opts->baseline_threads != 0)
        return "--baseline-threads";
    return ctx->opts->threads == 1 ? "executor threads + 1" : "caller threads";
}

/* The pread+copy baseline is a latency floor; every other one is compared by bandwidth. */
static bool latency_baseline(const struct bench_result *r)
{
    return strcmp(r->name, "pread+copy") == 0;
}

static bool is_library(const struct bench_result *r)
{
    return strncmp(r->name, "library", 7) == 0;
}

static bool measured(const struct bench_result *r)
{
    return r->ran && r->bytes > 0 && r->seconds > 0;
}

/* A result of one backend (--backends) or of one device or all of them (--devices). */
static bool per_run(const struct bench_result *r)
{
    return r->backend_index >= 0 || r->device >= 0 || r->aggregate;
}

/* "library", "library@fastpath", "library-async@dev2", "sync-seq@all". */
static const char *label(const struct bench_result *r, char *text, size_t len)
{
    if (r->backend_index >= 0)
        snprintf(text, len, "%s@%s", r->name, r->backend);
    else if (r->device >= 0)
        snprintf(text, len, "%s@dev%d", r->name, r->device);
    else if (r->aggregate)
        snprintf(text, len, "%s@all", r->name);
    else
        snprintf(text, len, "%s", r->name);
    return text;
}

/*
 * Whether the report gives the ratio of library method @p l to result @p b: every library method
 * to every baseline, and the async and batch methods to the sync one. With --backends each
 * backend's method also to the first backend's same method; the methods of one backend or one
 * device are compared among themselves only. An aggregate of several devices is set against the
 * sum of the single-device runs instead (multi_device). Latency ratios need per-call latency,
 * which a batch does not have.
 */
static bool ratio_wanted(const struct bench_result *l, const struct bench_result *b)
{
    if (l == b || !is_library(l) || !measured(l) || !measured(b) || l->aggregate)
        return false;
    if (per_run(b)) {
        if (b->aggregate)
            return false;
        if (l->backend_index != b->backend_index)
            return b->backend_index == 0 && strcmp(l->name, b->name) == 0;
        if (l->device != b->device)
            return false;
        return !is_library(b) || strcmp(b->name, "library") == 0;
    }
    if (is_library(b))
        return strcmp(b->name, "library") == 0;
    if (latency_baseline(b))
        return strcmp(l->name, "library-batch") != 0;
    return true;
}

/* The single-device runs of @p agg's method: how many, and the sum of their GB/s. */
static unsigned single_runs(const struct bench_result *results, unsigned n,
                            const struct bench_result *agg, double *sum_p)
{
    unsigned found = 0;
    *sum_p = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *r = &results[i];
        if (r->device >= 0 && strcmp(r->name, agg->name) == 0 && measured(r)) {
            *sum_p += gbps(r);
            found++;
        }
    }
    return found;
}

static const struct bench_result *single_run_of(const struct bench_result *results, unsigned n,
                                                const char *name, int device)
{
    for (unsigned i = 0; i < n; i++)
        if (results[i].device == device && strcmp(results[i].name, name) == 0)
            return &results[i];
    return NULL;
}

const char *bench_result_label(const struct bench_result *r, char *text, size_t len)
{
    return label(r, text, len);
}

static double group_gbps(const struct bench_group_result *g)
{
    return g->seconds > 0 ? (double)g->bytes / g->seconds / 1e9 : 0;
}

/* ---- Text ----------------------------------------------------------------------------------- */

static void print_env_once(const struct bench_env *env)
{
    static bool printed;
    if (printed)
        return;
    printed = true;
    printf("machine  %s: %ld CPUs%s%s, %.1f GiB, Linux %s %s\n", env->hostname, env->cpus,
           env->cpu_model[0] ? " " : "", env->cpu_model,
           (double)env->memory_bytes / (1024.0 * 1024 * 1024), env->kernel, env->arch);
    printf("runtime  %s: %s (version %d), %d device%s%s%s\n",
           env->runtime_asked[0] ? env->runtime_asked : "auto", env->runtime_library,
           env->runtime_version, env->devices, env->devices == 1 ? "" : "s",
           env->device_name[0] ? ", " : "", env->device_name);
    /* Only the thread count is shown: the split and staging sizes that shape a run are the serving
     * backend's own settings (the fallback's group), which the public API cannot read. */
    printf("library  hipfile %s: %zu I/O threads, parallel I/O %s\n", env->hipfile_version,
           env->io_threads, env->parallel_io ? "on" : "off");
}

static void print_result_row(const struct bench_result *r, int width)
{
    char name[80];
    label(r, name, sizeof(name));
    if (!r->ran) {
        printf("  %-*s %s: %s\n", width, name, r->failed ? "failed" : "skipped", r->note);
        return;
    }
    printf("  %-*s %7u %6u %9.3f %10.1f", width, name, r->threads, r->passes, gbps(r), iops(r));
    if (r->has_latency)
        printf(" %9.1f %9.1f %9.1f %9.1f", latency_us(r, 50), latency_us(r, 90), latency_us(r, 99),
               (double)r->hist.max_ns / 1e3);
    else
        printf(" %9s %9s %9s %9s", "-", "-", "-", "-");
    printf(" %9.3f%s%s\n", cpu_per_gb(r), r->failed ? "  FAILED: " : "", r->failed ? r->note : "");
}

static void print_ratios(const struct bench_result *results, unsigned n)
{
    for (unsigned l = 0; l < n; l++) {
        const struct bench_result *lib = &results[l];
        for (unsigned i = 0; i < n; i++) {
            const struct bench_result *b = &results[i];
            char ln[80], bn[80];
            if (!ratio_wanted(lib, b))
                continue;
            label(lib, ln, sizeof(ln));
            label(b, bn, sizeof(bn));
            if (latency_baseline(b))
                printf("  %s p50 latency / %s p50 latency = %.2f\n", ln, bn,
                       latency_us(lib, 50) / latency_us(b, 50));
            else
                printf("  %s/%s = %.2f\n", ln, bn, gbps(lib) / gbps(b));
        }
    }
}

/* What the statistics of each backend's process say served its requests. */
static void print_served(const struct bench_result *results, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *r = &results[i];
        char name[80];
        if (r->backend_index < 0 || !r->ran)
            continue;
        printf("  %s: %llu measured requests counted as served (direct path %llu, compat %llu); "
               "its process: %llu of %llu requests served by %s, %llu by others\n",
               label(r, name, sizeof(name)), (unsigned long long)r->counted,
               (unsigned long long)r->counted_direct, (unsigned long long)r->counted_compat,
               (unsigned long long)r->backend_served, (unsigned long long)r->worker_requests,
               r->backend, (unsigned long long)r->others_served);
    }
}

/* Each aggregate against the sum of its method's single-device runs. */
static void print_multi_device(const struct bench_result *results, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *agg = &results[i];
        double sum;
        char name[80];
        if (!agg->aggregate || !measured(agg))
            continue;
        printf("  %s, each device at once:", label(agg, name, sizeof(name)));
        for (unsigned g = 0; g < agg->n_groups; g++) {
            const struct bench_result *one =
                single_run_of(results, n, agg->name, agg->groups[g].device);
            printf("%s device %d %.3f GB/s", g ? ";" : "", agg->groups[g].device,
                   group_gbps(&agg->groups[g]));
            if (one != NULL && measured(one))
                printf(" (alone %.3f)", gbps(one));
        }
        printf("\n");
        if (single_runs(results, n, agg, &sum) == agg->n_groups && sum > 0)
            printf("  %s = %.3f GB/s; sum of single-device runs = %.3f GB/s; aggregate/sum = "
                   "%.2f\n",
                   name, gbps(agg), sum, gbps(agg) / sum);
    }
}

/* The ceiling's configuration and every one its calibration tried, with what each gave. */
static void print_ceiling(const struct bench_result *results, unsigned n)
{
    /* A worker count's configurations share a line, the plain and streamed ones of a piece too. */
    const unsigned trials_per_line = 6;
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *r = &results[i];
        char piece[32];
        if (!r->is_ceiling || !r->ran)
            continue;
        printf("  ceiling: %u worker thread%s", r->threads, r->threads == 1 ? "" : "s");
        if (r->threads != r->ceiling_threads_per_caller)
            printf(" (%u per caller thread)", r->ceiling_threads_per_caller);
        printf(", %s pieces%s; workers %s, caller %s; best of %u configurations tried %.1f s each "
               "(threads x piece GB/s, " BENCH_STREAMED_MARK ": streaming stores):",
               bench_size_text(r->ceiling_piece_size, piece, sizeof(piece)),
               r->ceiling_streamed ? ", streaming stores" : "",
               r->ceiling_workers_spin ? "spin, then sleep" : "sleep",
               r->ceiling_caller_spins ? "spins, then sleeps" : "sleeps", r->n_ceiling_trials,
               r->ceiling_trial_s);
        unsigned on_line = 0;
        for (unsigned k = 0; k < r->n_ceiling_trials; k++) {
            const struct bench_ceiling_trial *trial = &r->ceiling_trials[k];
            bool new_line = k == 0 || on_line == trials_per_line ||
                            trial->threads != r->ceiling_trials[k - 1].threads;
            on_line = new_line ? 1 : on_line + 1;
            printf("%s%ux%s%s %.3f", new_line ? "\n    " : ", ", trial->threads,
                   bench_size_short(trial->piece_size, piece, sizeof(piece)),
                   trial->streamed ? BENCH_STREAMED_MARK : "", trial->gbps);
        }
        printf("\n");
    }
}

static void print_text(const struct bench_ctx *ctx, const struct bench_env *env,
                       const struct bench_result *results, unsigned n)
{
    const struct bench_options *o = ctx->opts;
    char io[32], file[32];
    print_env_once(env);
    printf("\n%s: %s calls over %s, %u caller thread%s, %s memory%s%s\n", ctx->wl->name,
           bench_size_text(o->io_size, io, sizeof(io)),
           bench_size_text(ctx->chunks * o->io_size, file, sizeof(file)), o->threads,
           o->threads == 1 ? "" : "s", mem_name(o->mem), o->direct ? ", O_DIRECT" : "",
           o->verify ? ", verified" : "");
    printf("  file %s (%s)%s%s\n", ctx->file->path, ctx->file->fs_type,
           o->drop_cache ? "; cache dropped before each pass: " : "",
           o->drop_cache ? bench_drop_cache_note : "");
    /* Every method runs at most one thread per call of a pass (measure.c): say what runs. */
    unsigned running =
        ctx->baseline_threads < ctx->chunks ? ctx->baseline_threads : (unsigned)ctx->chunks;
    if (running < ctx->baseline_threads)
        printf("  raw and O_DIRECT baselines at %u threads (%s: %u, at most one per call of a "
               "pass)\n",
               running, baseline_threads_reason(ctx), ctx->baseline_threads);
    else
        printf("  raw and O_DIRECT baselines at %u threads (%s)\n", running,
               baseline_threads_reason(ctx));
    if (o->apis & BENCH_API_ASYNC) {
        if (o->async_wait == BENCH_ASYNC_WAIT_POLL)
            printf("  library-async waits by polling hipStreamQuery, %ld us sleeps between "
                   "(--async-wait poll)\n",
                   BENCH_ASYNC_POLL_NS / 1000);
        else
            printf("  library-async waits in hipStreamSynchronize (--async-wait sync)\n");
    }
    if (o->n_backends != 0)
        printf("  library methods served by each of --backends in its own process, passes "
               "interleaved\n");
    if (o->n_devices != 0)
        printf("  library methods on each of --devices alone, then on all %u at once (%u "
               "thread%s per device)\n",
               o->n_devices, o->threads, o->threads == 1 ? "" : "s");
    int width = 14;
    for (unsigned i = 0; i < n; i++) {
        char name[80];
        int len = (int)strlen(label(&results[i], name, sizeof(name)));
        if (len > width)
            width = len;
    }
    printf("  %-*s %7s %6s %9s %10s %9s %9s %9s %9s %9s\n", width, "method", "threads", "passes",
           "GB/s", "IOPS", "p50 us", "p90 us", "p99 us", "max us", "CPU s/GB");
    for (unsigned i = 0; i < n; i++)
        print_result_row(&results[i], width);
    print_ratios(results, n);
    print_ceiling(results, n);
    print_served(results, n);
    print_multi_device(results, n);
    fflush(stdout);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void json_string(const char *s)
{
    putchar('"');
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* JSON has no NaN or infinity. */
static void json_number(double v)
{
    if (isfinite(v))
        printf("%.6g", v);
    else
        printf("null");
}

void bench_json_string(const char *s)
{
    json_string(s);
}

void bench_json_number(double v)
{
    json_number(v);
}

static void json_key_string(const char *key, const char *value, bool comma)
{
    printf("\"%s\":", key);
    json_string(value);
    if (comma)
        putchar(',');
}

static void json_env(const struct bench_env *env)
{
    printf("\"machine\":{");
    json_key_string("hostname", env->hostname, true);
    json_key_string("kernel", env->kernel, true);
    json_key_string("arch", env->arch, true);
    json_key_string("cpu_model", env->cpu_model, true);
    printf("\"cpus\":%ld,\"memory_bytes\":%llu},", env->cpus,
           (unsigned long long)env->memory_bytes);
    printf("\"runtime\":{");
    json_key_string("requested", env->runtime_asked, true);
    json_key_string("library", env->runtime_library, true);
    printf("\"version\":%d,\"devices\":%d,", env->runtime_version, env->devices);
    json_key_string("device_name", env->device_name, false);
    printf("},\"hipfile\":{");
    json_key_string("version", env->hipfile_version, true);
    printf("\"executor_threads\":%zu,\"parallel_io\":%s,\"min_io_threshold_size_kb\":%zu,"
           "\"max_request_parallelism\":%zu,\"per_buffer_cache_size_kb\":%zu,"
           "\"max_device_cache_size_kb\":%zu},",
           env->io_threads, env->parallel_io ? "true" : "false", env->min_split_kib,
           env->max_parallelism, env->bounce_kib, env->bounce_total_kib);
}

static void json_config(const struct bench_ctx *ctx)
{
    const struct bench_options *o = ctx->opts;
    printf("\"config\":{");
    json_key_string("workload", ctx->wl->name, true);
    printf("\"io_size\":%zu,\"file_size\":%llu,\"threads\":%u,\"executor_threads\":%u,"
           "\"baseline_threads\":%u,",
           o->io_size, (unsigned long long)(ctx->chunks * o->io_size), o->threads,
           ctx->executor_threads, ctx->baseline_threads);
    json_key_string("baseline_threads_from", baseline_threads_reason(ctx), true);
    json_key_string("mem", mem_name(o->mem), true);
    json_key_string("file", ctx->file->path, true);
    json_key_string("fs_type", ctx->file->fs_type, true);
    printf("\"direct\":%s,\"verify\":%s,\"buf_register\":%s,\"drop_cache\":%s,",
           o->direct ? "true" : "false", o->verify ? "true" : "false",
           o->buf_register ? "true" : "false", o->drop_cache ? "true" : "false");
    json_key_string("drop_cache_how", o->drop_cache ? bench_drop_cache_note : "", true);
    printf("\"time_s\":");
    json_number(o->time_s);
    printf(",\"passes\":%u,\"iterations\":%llu,\"warmup_s\":", o->passes,
           (unsigned long long)o->iterations);
    json_number(o->warmup_s);
    printf(",\"copy_chunk\":%zu,\"copy_streams\":%u,\"device\":%d,\"seed\":%llu,", o->copy_chunk,
           o->copy_streams, o->device, (unsigned long long)o->seed);
    printf("\"backends\":[");
    for (unsigned i = 0; i < o->n_backends; i++) {
        if (i > 0)
            putchar(',');
        json_string(o->backends[i]);
    }
    printf("],\"devices\":[");
    for (unsigned i = 0; i < o->n_devices; i++)
        printf("%s%d", i ? "," : "", o->devices[i]);
    printf("],");
    printf("\"apis\":[%s%s%s%s%s],\"batch_entries\":%u,",
           (o->apis & BENCH_API_SYNC) ? "\"sync\"" : "",
           (o->apis & BENCH_API_SYNC) && (o->apis & ~BENCH_API_SYNC) ? "," : "",
           (o->apis & BENCH_API_ASYNC) ? "\"async\"" : "",
           (o->apis & BENCH_API_ASYNC) && (o->apis & BENCH_API_BATCH) ? "," : "",
           (o->apis & BENCH_API_BATCH) ? "\"batch\"" : "", o->batch_entries);
    /* Always present, so that a document says the mode whichever APIs ran. */
    json_key_string("async_wait", bench_async_wait_name(o->async_wait), false);
    printf("},");
}

/* --backends: what the statistics of the backend's process say served it. */
static void json_served(const struct bench_result *r)
{
    printf(",\"backend\":");
    if (r->backend_index < 0) {
        printf("null");
        return;
    }
    json_string(r->backend);
    printf(",\"served\":{\"counted\":%llu,\"direct\":%llu,\"compat\":%llu,"
           "\"process_requests\":%llu,\"by_backend\":%llu,\"by_others\":%llu}",
           (unsigned long long)r->counted, (unsigned long long)r->counted_direct,
           (unsigned long long)r->counted_compat, (unsigned long long)r->worker_requests,
           (unsigned long long)r->backend_served, (unsigned long long)r->others_served);
}

/* --devices: the one device, or each device's share of the run of all at once. */
static void json_devices(const struct bench_result *r)
{
    printf(",\"device\":");
    if (r->device >= 0)
        printf("%d", r->device);
    else
        printf("null");
    printf(",\"aggregate\":%s", r->aggregate ? "true" : "false");
    if (!r->aggregate)
        return;
    printf(",\"per_device\":[");
    for (unsigned g = 0; g < r->n_groups; g++) {
        const struct bench_group_result *d = &r->groups[g];
        printf("%s{\"device\":%d,\"threads\":%u,\"bytes\":%llu,\"calls\":%llu,\"seconds\":",
               g ? "," : "", d->device, d->threads, (unsigned long long)d->bytes,
               (unsigned long long)d->calls);
        json_number(d->seconds);
        printf(",\"gbps\":");
        json_number(group_gbps(d));
        printf("}");
    }
    printf("]");
}

/* The ceiling's configuration and its calibration. */
static void json_ceiling(const struct bench_result *r)
{
    if (!r->is_ceiling)
        return;
    printf(",\"ceiling\":{\"threads\":%u,\"threads_per_caller\":%u,\"piece_bytes\":%zu,"
           "\"streamed\":%s,\"workers_spin\":%s,\"caller_spins\":%s,\"trial_seconds\":",
           r->threads, r->ceiling_threads_per_caller, r->ceiling_piece_size,
           r->ceiling_streamed ? "true" : "false", r->ceiling_workers_spin ? "true" : "false",
           r->ceiling_caller_spins ? "true" : "false");
    json_number(r->ceiling_trial_s);
    printf(",\"trials\":[");
    for (unsigned k = 0; k < r->n_ceiling_trials; k++) {
        const struct bench_ceiling_trial *trial = &r->ceiling_trials[k];
        printf("%s{\"threads\":%u,\"piece_bytes\":%zu,\"streamed\":%s,\"gbps\":", k ? "," : "",
               trial->threads, trial->piece_size, trial->streamed ? "true" : "false");
        json_number(trial->gbps);
        printf("}");
    }
    printf("]}");
}

static void json_result(const struct bench_result *r)
{
    char name[80];
    printf("{");
    json_key_string("name", r->name, true);
    json_key_string("label", label(r, name, sizeof(name)), true);
    printf("\"ran\":%s,\"failed\":%s,", r->ran ? "true" : "false", r->failed ? "true" : "false");
    json_key_string("note", r->note, true);
    printf("\"threads\":%u,\"passes\":%u,\"bytes\":%llu,\"calls\":%llu,\"seconds\":", r->threads,
           r->passes, (unsigned long long)r->bytes, (unsigned long long)r->calls);
    json_number(r->seconds);
    printf(",\"gbps\":");
    json_number(gbps(r));
    printf(",\"iops\":");
    json_number(iops(r));
    printf(",\"cpu_s\":");
    json_number(r->cpu_s);
    printf(",\"cpu_s_per_gb\":");
    json_number(cpu_per_gb(r));
    json_served(r);
    json_devices(r);
    json_ceiling(r);
    printf(",\"mismatches\":%llu,\"latency_us\":", (unsigned long long)r->mismatches);
    if (!r->has_latency) {
        printf("null}");
        return;
    }
    printf("{\"p50\":");
    json_number(latency_us(r, 50));
    printf(",\"p90\":");
    json_number(latency_us(r, 90));
    printf(",\"p99\":");
    json_number(latency_us(r, 99));
    printf(",\"max\":");
    json_number((double)r->hist.max_ns / 1e3);
    printf("}}");
}

/* Bandwidth ratios, and the p50 latency ratio for the latency baseline. */
static void json_ratios(const struct bench_result *results, unsigned n)
{
    bool first = true;
    printf("\"ratios\":[");
    for (unsigned l = 0; l < n; l++) {
        const struct bench_result *lib = &results[l];
        for (unsigned i = 0; i < n; i++) {
            const struct bench_result *b = &results[i];
            if (!ratio_wanted(lib, b))
                continue;
            bool latency = latency_baseline(b);
            char ln[80], bn[80];
            printf("%s{\"name\":\"%s/%s\",\"by\":\"%s\",\"value\":", first ? "" : ",",
                   label(lib, ln, sizeof(ln)), label(b, bn, sizeof(bn)),
                   latency ? "p50_latency" : "gbps");
            first = false;
            json_number(latency ? latency_us(lib, 50) / latency_us(b, 50) : gbps(lib) / gbps(b));
            printf("}");
        }
    }
    printf("]");
}

/* Each aggregate of --devices against the sum of its method's single-device runs. */
static void json_multi_device(const struct bench_result *results, unsigned n)
{
    bool first = true;
    printf(",\"multi_device\":[");
    for (unsigned i = 0; i < n; i++) {
        const struct bench_result *agg = &results[i];
        double sum;
        if (!agg->aggregate)
            continue;
        bool complete = single_runs(results, n, agg, &sum) == agg->n_groups && measured(agg);
        printf("%s{", first ? "" : ",");
        first = false;
        json_key_string("method", agg->name, true);
        printf("\"aggregate_gbps\":");
        json_number(measured(agg) ? gbps(agg) : NAN);
        printf(",\"sum_single_gbps\":");
        json_number(complete ? sum : NAN);
        printf(",\"ratio\":");
        json_number(complete && sum > 0 ? gbps(agg) / sum : NAN);
        printf(",\"per_device\":[");
        for (unsigned g = 0; g < agg->n_groups; g++) {
            const struct bench_result *one =
                single_run_of(results, n, agg->name, agg->groups[g].device);
            printf("%s{\"device\":%d,\"single_gbps\":", g ? "," : "", agg->groups[g].device);
            json_number(one != NULL && measured(one) ? gbps(one) : NAN);
            printf(",\"aggregate_gbps\":");
            json_number(group_gbps(&agg->groups[g]));
            printf("}");
        }
        printf("]}");
    }
    printf("]");
}

static void print_json(const struct bench_ctx *ctx, const struct bench_env *env,
                       const struct bench_result *results, unsigned n)
{
    bool failed = false;
    printf("{\"tool\":\"" BENCH_NAME "\",\"version\":\"%d.%d.%d\",", HIPFILE_VERSION_MAJOR,
           HIPFILE_VERSION_MINOR, HIPFILE_VERSION_PATCH);
    json_env(env);
    json_config(ctx);
    printf("\"results\":[");
    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            putchar(',');
        json_result(&results[i]);
        failed |= results[i].failed;
    }
    printf("],");
    json_ratios(results, n);
    json_multi_device(results, n);
    printf(",\"ok\":%s}%s", failed ? "false" : "true", ctx->sweep != NULL ? "" : "\n");
    fflush(stdout);
}

void bench_report(const struct bench_ctx *ctx, const struct bench_env *env,
                  const struct bench_result *results, unsigned n_results)
{
    if (ctx->opts->json)
        print_json(ctx, env, results, n_results);
    else
        print_text(ctx, env, results, n_results);
}
