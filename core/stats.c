/*
 * hipFileGetStatsL1/L2/L3. No counters are collected yet, so these report statistics as
 * unavailable, the way AMD's library does when its stats level is 0.
 */
#include "error.h"
#include "log.h"

static hipFileError_t stats_unavailable(const void *stats, const char *what)
{
    if (stats == NULL) {
        hf_error("%s: stats is NULL", what);
        return hf_status(hipFileInvalidValue);
    }
    hf_warn("%s: statistics are not collected by this build", what);
    return hf_status(hipFileInternalError);
}

HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t *stats)
{
    return stats_unavailable(stats, "hipFileGetStatsL1");
}

HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t *stats)
{
    return stats_unavailable(stats, "hipFileGetStatsL2");
}

HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t *stats)
{
    return stats_unavailable(stats, "hipFileGetStatsL3");
}
