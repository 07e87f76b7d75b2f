/*
 * Resetting the statistics: an extension of hipfile's own (AMD's hipFile counts for the life of
 * the process; cuFile's cuFileStatsReset, which libcufile.so.0 serves through this, resets).
 */
#ifndef HIPFILE_STATS_H
#define HIPFILE_STATS_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Zero every counter hipFileGetStatsL1/L2/L3 report, and start their clock (the time rates and
 * utilization are measured over) again. What describes the present rather than the past stays:
 * the bytes of GPU memory registered now. Calls in flight meanwhile are counted before or after
 * the reset, never lost in part. Works whatever the statistics level and whether the driver is
 * open; always returns hipFileSuccess.
 */
hipFileError_t hipFileStatsReset(void);

#ifdef __cplusplus
}
#endif

#endif
