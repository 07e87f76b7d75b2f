/*
 * hipfile-cp's progress line: percentage, bar, MiB (2^20 bytes) and rate in GB/s (10^9 bytes per
 * second, as in the summary line and hipfile-bench), redrawn in place on standard error. Drawn only
 * when asked for, which by default means only on a terminal, so logs and pipes never receive
 * carriage returns.
 */
#include <stdio.h>
#include <time.h>

#include "cp.h"

#define CP_BAR_WIDTH 30
#define CP_REDRAW_SECONDS 0.2

double cp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cp_progress_start(struct cp_progress *p, bool enabled, const char *what, uint64_t total)
{
    *p = (struct cp_progress){
        .enabled = enabled, .total = total, .started = cp_now(), .last_draw = 0, .what = what};
}

static void draw(struct cp_progress *p, uint64_t done, double now)
{
    double fraction = p->total ? (double)done / (double)p->total : 1.0;
    int filled = (int)(fraction * CP_BAR_WIDTH);
    char bar[CP_BAR_WIDTH + 1];
    for (int i = 0; i < CP_BAR_WIDTH; i++)
        bar[i] = i < filled ? '=' : (i == filled ? '>' : ' ');
    bar[CP_BAR_WIDTH] = '\0';
    double elapsed = now - p->started;
    double rate = elapsed > 0 ? (double)done / elapsed / 1e9 : 0.0;
    fprintf(stderr, "\r%-6s %3d%% [%s] %8.1f / %.1f MiB  %6.2f GB/s", p->what,
            (int)(fraction * 100.0), bar, (double)done / 1048576.0, (double)p->total / 1048576.0,
            rate);
    fflush(stderr);
    p->last_draw = now;
}

void cp_progress_update(struct cp_progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    double now = cp_now();
    if (now - p->last_draw >= CP_REDRAW_SECONDS || done == p->total)
        draw(p, done, now);
}

void cp_progress_finish(struct cp_progress *p)
{
    if (!p->enabled || p->last_draw == 0)
        return;
    fprintf(stderr, "\r%*s\r", 100, "");
    fflush(stderr);
}
