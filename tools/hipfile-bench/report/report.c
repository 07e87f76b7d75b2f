/* The report of one workload, in the form the command line asks for. */
#include "bench.h"

void bench_report(const struct bench_ctx *ctx, const struct bench_env *env,
                  const struct bench_result *results, unsigned n_results)
{
    if (ctx->opts->json)
        bench_report_json(ctx, env, results, n_results);
    else
        bench_report_text(ctx, env, results, n_results);
}
