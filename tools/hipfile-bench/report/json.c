/*
 * The JSON report of one workload: one object with the machine, runtime and library, the
 * configuration, every result with its figures, the ratios the text report gives, and each
 * aggregate of --devices set against its single-device runs. Within --sweep the object is one
 * element of the document's runs.
 */
#include <math.h>
#include <stdio.h>

#include "report/figures.h"

void bench_json_string(const char *s)
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
void bench_json_number(double v)
{
    if (isfinite(v))
        printf("%.6g", v);
    else
        printf("null");
}

static void json_key_string(const char *key, const char *value, bool comma)
{
    printf("\"%s\":", key);
    bench_json_string(value);
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
    json_key_string("baseline_threads_from", bench_baseline_threads_reason(ctx), true);
    json_key_string("mem", bench_mem_name(o->mem), true);
    json_key_string("file", ctx->file->path, true);
    json_key_string("fs_type", ctx->file->fs_type, true);
    printf("\"direct\":%s,\"verify\":%s,\"buf_register\":%s,\"drop_cache\":%s,",
           o->direct ? "true" : "false", o->verify ? "true" : "false",
           o->buf_register ? "true" : "false", o->drop_cache ? "true" : "false");
    json_key_string("drop_cache_how", o->drop_cache ? bench_drop_cache_note : "", true);
    printf("\"time_s\":");
    bench_json_number(o->time_s);
    printf(",\"passes\":%u,\"iterations\":%llu,\"warmup_s\":", o->passes,
           (unsigned long long)o->iterations);
    bench_json_number(o->warmup_s);
    printf(",\"copy_chunk\":%zu,\"copy_streams\":%u,\"device\":%d,\"seed\":%llu,", o->copy_chunk,
           o->copy_streams, o->device, (unsigned long long)o->seed);
    printf("\"backends\":[");
    for (unsigned i = 0; i < o->n_backends; i++) {
        if (i > 0)
            putchar(',');
        bench_json_string(o->backends[i]);
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
    bench_json_string(r->backend);
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
        bench_json_number(d->seconds);
        printf(",\"gbps\":");
        bench_json_number(bench_group_gbps(d));
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
    bench_json_number(r->ceiling_trial_s);
    printf(",\"trials\":[");
    for (unsigned k = 0; k < r->n_ceiling_trials; k++) {
        const struct bench_ceiling_trial *trial = &r->ceiling_trials[k];
        printf("%s{\"threads\":%u,\"piece_bytes\":%zu,\"streamed\":%s,\"gbps\":", k ? "," : "",
               trial->threads, trial->piece_size, trial->streamed ? "true" : "false");
        bench_json_number(trial->gbps);
        printf("}");
    }
    printf("]}");
}

static void json_result(const struct bench_result *r)
{
    char name[80];
    printf("{");
    json_key_string("name", r->name, true);
    json_key_string("label", bench_result_label(r, name, sizeof(name)), true);
    printf("\"ran\":%s,\"failed\":%s,", r->ran ? "true" : "false", r->failed ? "true" : "false");
    json_key_string("note", r->note, true);
    printf("\"threads\":%u,\"passes\":%u,\"bytes\":%llu,\"calls\":%llu,\"seconds\":", r->threads,
           r->passes, (unsigned long long)r->bytes, (unsigned long long)r->calls);
    bench_json_number(r->seconds);
    printf(",\"gbps\":");
    bench_json_number(bench_result_gbps(r));
    printf(",\"iops\":");
    bench_json_number(bench_result_iops(r));
    printf(",\"cpu_s\":");
    bench_json_number(r->cpu_s);
    printf(",\"cpu_s_per_gb\":");
    bench_json_number(bench_result_cpu_per_gb(r));
    double steal = bench_result_steal_share(r);
    printf(",\"steal_share\":");
    if (steal < 0)
        printf("null");
    else
        bench_json_number(steal);
    json_served(r);
    json_devices(r);
    json_ceiling(r);
    printf(",\"mismatches\":%llu,\"latency_us\":", (unsigned long long)r->mismatches);
    if (!r->has_latency) {
        printf("null}");
        return;
    }
    printf("{\"p50\":");
    bench_json_number(bench_result_latency_us(r, 50));
    printf(",\"p90\":");
    bench_json_number(bench_result_latency_us(r, 90));
    printf(",\"p99\":");
    bench_json_number(bench_result_latency_us(r, 99));
    printf(",\"max\":");
    bench_json_number((double)r->hist.max_ns / 1e3);
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
            if (!bench_ratio_wanted(lib, b))
                continue;
            bool latency = bench_result_is_latency_floor(b);
            char ln[80], bn[80];
            printf("%s{\"name\":\"%s/%s\",\"by\":\"%s\",\"value\":", first ? "" : ",",
                   bench_result_label(lib, ln, sizeof(ln)), bench_result_label(b, bn, sizeof(bn)),
                   latency ? "p50_latency" : "gbps");
            first = false;
            bench_json_number(latency ? bench_result_latency_us(lib, 50) /
                                            bench_result_latency_us(b, 50)
                                      : bench_result_gbps(lib) / bench_result_gbps(b));
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
        bool complete =
            bench_single_runs(results, n, agg, &sum) == agg->n_groups && bench_result_measured(agg);
        printf("%s{", first ? "" : ",");
        first = false;
        json_key_string("method", agg->name, true);
        printf("\"aggregate_gbps\":");
        bench_json_number(bench_result_measured(agg) ? bench_result_gbps(agg) : NAN);
        printf(",\"sum_single_gbps\":");
        bench_json_number(complete ? sum : NAN);
        printf(",\"ratio\":");
        bench_json_number(complete && sum > 0 ? bench_result_gbps(agg) / sum : NAN);
        printf(",\"per_device\":[");
        for (unsigned g = 0; g < agg->n_groups; g++) {
            const struct bench_result *one =
                bench_single_run_of(results, n, agg->name, agg->groups[g].device);
            printf("%s{\"device\":%d,\"single_gbps\":", g ? "," : "", agg->groups[g].device);
            bench_json_number(one != NULL && bench_result_measured(one) ? bench_result_gbps(one)
                                                                        : NAN);
            printf(",\"aggregate_gbps\":");
            bench_json_number(bench_group_gbps(&agg->groups[g]));
            printf("}");
        }
        printf("]}");
    }
    printf("]");
}

void bench_report_json(const struct bench_ctx *ctx, const struct bench_env *env,
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
