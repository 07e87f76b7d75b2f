/*
 * --sweep: the whole measurement once per call size, then one table per workload that sets the
 * library against its baselines size by size; with --json, one document holding every size's run
 * and that table as its "sweep" array, which plot_sweep.py draws.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/figures.h"

/* One method's bandwidth at one call size. */
struct sweep_cell {
    char label[80];
    char name[32];
    bool ran;
    double gbps;
};

/* One workload at one call size. */
struct sweep_row {
    size_t io_size;
    const struct bench_workload *wl;
    unsigned n_cells;
    struct sweep_cell *cells; /* cells[0] is the library's first method, as results[0] is */
    unsigned ceiling_threads; /* 0: the ceiling did not run */
    size_t ceiling_piece_size;
    bool ceiling_streamed;
};

struct bench_sweep {
    const struct bench_options *opts;
    struct sweep_row *rows;
    unsigned n_rows, rows_room;
    unsigned runs; /* runs reported, kept or not */
    bool failed;
};

struct bench_sweep *bench_sweep_begin(const struct bench_options *opts)
{
    struct bench_sweep *sweep = calloc(1, sizeof(*sweep));
    if (sweep == NULL) {
        fprintf(stderr, BENCH_NAME ": no memory for --sweep\n");
        return NULL;
    }
    sweep->opts = opts;
    if (!opts->json)
        return sweep;
    printf("{\"tool\":\"" BENCH_NAME "\",\"version\":\"%d.%d.%d\",\"sweep_sizes\":[",
           HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR, HIPFILE_VERSION_PATCH);
    for (unsigned i = 0; i < opts->n_sweep; i++)
        printf("%s%zu", i ? "," : "", opts->sweep_sizes[i]);
    printf("],\"runs\":[");
    return sweep;
}

/* Keep the figures of one run for the table; false when there is no memory for them. */
static bool keep_row(struct bench_sweep *sweep, const struct bench_ctx *ctx,
                     const struct bench_result *results, unsigned n)
{
    if (sweep->n_rows == sweep->rows_room) {
        unsigned room = sweep->rows_room != 0 ? 2 * sweep->rows_room : 16;
        struct sweep_row *rows = realloc(sweep->rows, room * sizeof(*rows));
        if (rows == NULL)
            return false;
        sweep->rows = rows;
        sweep->rows_room = room;
    }
    struct sweep_row *row = &sweep->rows[sweep->n_rows];
    memset(row, 0, sizeof(*row));
    if (n == 0 || (row->cells = calloc(n, sizeof(*row->cells))) == NULL)
        return n == 0;
    row->io_size = ctx->opts->io_size;
    row->wl = ctx->wl;
    row->n_cells = n;
    for (unsigned i = 0; i < n; i++) {
        struct sweep_cell *cell = &row->cells[i];
        bench_result_label(&results[i], cell->label, sizeof(cell->label));
        snprintf(cell->name, sizeof(cell->name), "%s", results[i].name);
        cell->ran = results[i].ran && !results[i].failed && results[i].bytes > 0;
        cell->gbps = cell->ran ? bench_result_gbps(&results[i]) : 0;
        if (results[i].is_ceiling && cell->ran) {
            row->ceiling_threads = results[i].threads;
            row->ceiling_piece_size = results[i].ceiling_piece_size;
            row->ceiling_streamed = results[i].ceiling_streamed;
        }
    }
    sweep->n_rows++;
    return true;
}

void bench_sweep_add(struct bench_sweep *sweep, const struct bench_ctx *ctx,
                     const struct bench_env *env, const struct bench_result *results,
                     unsigned n_results)
{
    if (ctx->opts->json && sweep->runs > 0)
        putchar(',');
    bench_report(ctx, env, results, n_results);
    sweep->runs++;
    for (unsigned i = 0; i < n_results; i++)
        sweep->failed |= results[i].failed;
    if (!keep_row(sweep, ctx, results, n_results)) {
        fprintf(stderr, BENCH_NAME ": no memory to keep the figures for the sweep table\n");
        sweep->failed = true;
    }
}

/* ---- The table ------------------------------------------------------------------------------ */

/* The cell of @p row labelled @p label, or whose name starts with @p prefix; NULL when none ran. */
static const struct sweep_cell *cell_of(const struct sweep_row *row, const char *label,
                                        const char *prefix)
{
    for (unsigned i = 0; i < row->n_cells; i++) {
        const struct sweep_cell *cell = &row->cells[i];
        bool match = label != NULL
                         ? strcmp(cell->label, label) == 0
                         : prefix != NULL && strncmp(cell->name, prefix, strlen(prefix)) == 0;
        if (match && cell->ran)
            return cell;
    }
    return NULL;
}

/* The library's first method over the baseline named by @p prefix; NaN when either is missing. */
static double library_over(const struct sweep_row *row, const char *prefix)
{
    const struct sweep_cell *base = cell_of(row, NULL, prefix);
    if (row->n_cells == 0 || !row->cells[0].ran || base == NULL || base->gbps <= 0)
        return NAN;
    return row->cells[0].gbps / base->gbps;
}

/* Every label that ran at some size of workload @p wl, in the order the report lists them. */
static unsigned table_columns(const struct bench_sweep *sweep, const struct bench_workload *wl,
                              const char **columns, unsigned room)
{
    unsigned n = 0;
    for (unsigned r = 0; r < sweep->n_rows; r++) {
        const struct sweep_row *row = &sweep->rows[r];
        for (unsigned c = 0; row->wl == wl && c < row->n_cells; c++) {
            unsigned k = 0;
            while (k < n && strcmp(columns[k], row->cells[c].label) != 0)
                k++;
            if (k == n && n < room && row->cells[c].ran)
                columns[n++] = row->cells[c].label;
        }
    }
    return n;
}

static void print_ratio(double ratio, int width)
{
    if (isnan(ratio))
        printf(" %*s", width, "-");
    else
        printf(" %*.2f", width, ratio);
}

static int column_width(const char *header)
{
    return strlen(header) > 10 ? (int)strlen(header) : 10;
}

static void print_table(const struct bench_sweep *sweep, const struct bench_workload *wl)
{
    const struct bench_options *o = sweep->opts;
    const char *columns[64];
    unsigned n_columns = table_columns(sweep, wl, columns, 64);
    char size[32], over_pinned[96], over_ceiling[96];
    const char *library = NULL;
    bool any_pinned = false, any_ceiling = false, any_streamed = false;
    if (n_columns == 0)
        return;
    for (unsigned r = 0; r < sweep->n_rows; r++) {
        if (sweep->rows[r].wl != wl)
            continue;
        library = library != NULL ? library : sweep->rows[r].cells[0].label;
        any_pinned |= cell_of(&sweep->rows[r], NULL, "pinned-") != NULL;
        any_ceiling |= sweep->rows[r].ceiling_threads != 0;
        any_streamed |= sweep->rows[r].ceiling_threads != 0 && sweep->rows[r].ceiling_streamed;
    }
    snprintf(over_pinned, sizeof(over_pinned), "%s/pinned", library);
    snprintf(over_ceiling, sizeof(over_ceiling), "%s/ceiling", library);
    printf("\nsweep %s: GB/s by call size, %u caller thread%s, %s memory\n", wl->name, o->threads,
           o->threads == 1 ? "" : "s", bench_mem_name(o->mem));
    printf("  %10s", "call size");
    for (unsigned c = 0; c < n_columns; c++)
        printf(" %10s", columns[c]);
    if (any_ceiling)
        printf(" %10s", "ceiling at");
    if (any_pinned)
        printf(" %s", over_pinned);
    if (any_ceiling)
        printf(" %s", over_ceiling);
    printf("\n");
    for (unsigned r = 0; r < sweep->n_rows; r++) {
        const struct sweep_row *row = &sweep->rows[r];
        if (row->wl != wl)
            continue;
        printf("  %10s", bench_size_text(row->io_size, size, sizeof(size)));
        for (unsigned c = 0; c < n_columns; c++) {
            const struct sweep_cell *cell = cell_of(row, columns[c], NULL);
            if (cell != NULL)
                printf(" %*.3f", column_width(columns[c]), cell->gbps);
            else
                printf(" %*s", column_width(columns[c]), "-");
        }
        if (any_ceiling) {
            char at[48] = "-";
            if (row->ceiling_threads != 0)
                snprintf(at, sizeof(at), "%ux%s%s", row->ceiling_threads,
                         bench_size_short(row->ceiling_piece_size, size, sizeof(size)),
                         row->ceiling_streamed ? BENCH_STREAMED_MARK : "");
            printf(" %10s", at);
        }
        if (any_pinned)
            print_ratio(library_over(row, "pinned-"), (int)strlen(over_pinned));
        if (any_ceiling)
            print_ratio(library_over(row, "ceiling"), (int)strlen(over_ceiling));
        printf("\n");
    }
    if (any_streamed)
        printf("  ceiling at: threads x piece, " BENCH_STREAMED_MARK ": streaming stores\n");
}

/* ---- The JSON document ---------------------------------------------------------------------- */

static void json_row(const struct sweep_row *row)
{
    printf("{\"workload\":");
    bench_json_string(row->wl->name);
    printf(",\"io_size\":%zu,\"library\":", row->io_size);
    bench_json_string(row->n_cells != 0 ? row->cells[0].label : "");
    printf(",\"gbps\":{");
    for (unsigned c = 0; c < row->n_cells; c++) {
        printf("%s", c ? "," : "");
        bench_json_string(row->cells[c].label);
        putchar(':');
        bench_json_number(row->cells[c].ran ? row->cells[c].gbps : NAN);
    }
    printf("},\"ceiling_threads\":");
    if (row->ceiling_threads != 0)
        printf("%u,\"ceiling_piece_bytes\":%zu,\"ceiling_streamed\":%s", row->ceiling_threads,
               row->ceiling_piece_size, row->ceiling_streamed ? "true" : "false");
    else
        printf("null,\"ceiling_piece_bytes\":null,\"ceiling_streamed\":null");
    printf(",\"library_over_pinned\":");
    bench_json_number(library_over(row, "pinned-"));
    printf(",\"library_over_ceiling\":");
    bench_json_number(library_over(row, "ceiling"));
    printf("}");
}

void bench_sweep_end(struct bench_sweep *sweep)
{
    if (sweep->opts->json) {
        printf("],\"sweep\":[");
        for (unsigned r = 0; r < sweep->n_rows; r++) {
            printf("%s", r ? "," : "");
            json_row(&sweep->rows[r]);
        }
        printf("],\"ok\":%s}\n", sweep->failed ? "false" : "true");
    } else {
        for (unsigned w = 0; w < 4; w++)
            print_table(sweep, &bench_workloads[w]);
    }
    fflush(stdout);
    for (unsigned r = 0; r < sweep->n_rows; r++)
        free(sweep->rows[r].cells);
    free(sweep->rows);
    free(sweep);
}
