/*
 * cuFile's statistics calls. The level is hipfile's profile.stats setting. Stop freezes a snapshot
 * and turns counting off, so the figures a program reads after Stop are the ones it stopped at;
 * Start turns counting back on at the level in force before (level 1 if there was none). Reset
 * zeroes hipfile's counters and, while stopped, the frozen snapshot too. The statistics structs
 * have hipfile's layouts (pinned below) and are copied whole.
 */
#include "cufile_compat.h"

#include <hipfile/device.h>
#include <hipfile/stats.h>

#include <pthread.h>
#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(CUfileStatsLevel1_t) == sizeof(hipFileStatsLevel1_t) &&
                   offsetof(CUfileStatsLevel1_t, read_bytes) ==
                       offsetof(hipFileStatsLevel1_t, read_bytes) &&
                   offsetof(CUfileStatsLevel1_t, batch_submit_ops) ==
                       offsetof(hipFileStatsLevel1_t, batch_submit_ops) &&
                   offsetof(CUfileStatsLevel1_t, last_batch_write_bytes) ==
                       offsetof(hipFileStatsLevel1_t, last_batch_write_bytes),
               "CUfileStatsLevel1_t is hipFileStatsLevel1_t");
_Static_assert(sizeof(CUfileStatsLevel2_t) == sizeof(hipFileStatsLevel2_t) &&
                   offsetof(CUfileStatsLevel2_t, write_size_kb_hist) ==
                       offsetof(hipFileStatsLevel2_t, write_size_kb_hist),
               "CUfileStatsLevel2_t is hipFileStatsLevel2_t");
_Static_assert(sizeof(CUfilePerGpuStats_t) == sizeof(hipFilePerGpuStats_t) &&
                   offsetof(CUfilePerGpuStats_t, writes_bytes) ==
                       offsetof(hipFilePerGpuStats_t, write_bytes) &&
                   offsetof(CUfilePerGpuStats_t, reg_bytes) ==
                       offsetof(hipFilePerGpuStats_t, reg_bytes),
               "CUfilePerGpuStats_t is hipFilePerGpuStats_t");
_Static_assert(sizeof(CUfileStatsLevel3_t) == sizeof(hipFileStatsLevel3_t) &&
                   offsetof(CUfileStatsLevel3_t, num_gpus) ==
                       offsetof(hipFileStatsLevel3_t, num_gpus) &&
                   offsetof(CUfileStatsLevel3_t, per_gpu_stats) ==
                       offsetof(hipFileStatsLevel3_t, per_gpu_stats) &&
                   CUFILE_MAX_GPUS == HIPFILE_MAX_GPUS,
               "CUfileStatsLevel3_t is hipFileStatsLevel3_t");

#define STATS_LEVEL_MAX 3

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set by Stop, cleared by Start and by SetStatsLevel. */
static bool stopped;
static int level_before_stop;
static int frozen_level;
static hipFileStatsLevel3_t frozen;

static hipFileError_t level_get(int *level_p)
{
    size_t value = 0;
    hipFileError_t status = hipFileGetParameterSizeT(hipFileParamProfileStats, &value);

    if (status.err == hipFileSuccess)
        *level_p = (int)value;
    return status;
}

HF_CUFILE_API CUfileError_t cuFileSetStatsLevel(int level)
{
    hipFileError_t status;

    if (level < 0 || level > STATS_LEVEL_MAX)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "level %d is outside 0..%d", level,
                                STATS_LEVEL_MAX);
    pthread_mutex_lock(&stats_lock);
    status = hipFileSetParameterSizeT(hipFileParamProfileStats, (size_t)level);
    if (status.err == hipFileSuccess)
        stopped = false;
    pthread_mutex_unlock(&stats_lock);
    return hf_cufile_status(status);
}

HF_CUFILE_API CUfileError_t cuFileGetStatsLevel(int *level)
{
    if (level == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "level is NULL");
    return hf_cufile_status(level_get(level));
}

HF_CUFILE_API CUfileError_t cuFileStatsStart(void)
{
    hipFileError_t status;
    int level = 0;

    pthread_mutex_lock(&stats_lock);
    if (stopped)
        level = level_before_stop;
    else if (level_get(&level).err != hipFileSuccess)
        level = 0;
    if (level == 0)
        level = 1;
    status = hipFileSetParameterSizeT(hipFileParamProfileStats, (size_t)level);
    if (status.err == hipFileSuccess)
        stopped = false;
    pthread_mutex_unlock(&stats_lock);
    return hf_cufile_status(status);
}

HF_CUFILE_API CUfileError_t cuFileStatsStop(void)
{
    hipFileError_t status;
    int level = 0;

    pthread_mutex_lock(&stats_lock);
    if (stopped) {
        pthread_mutex_unlock(&stats_lock);
        return hf_cufile_error(CU_FILE_SUCCESS);
    }
    status = level_get(&level);
    if (status.err == hipFileSuccess && level > 0) {
        memset(&frozen, 0, sizeof(frozen));
        if (level >= 3)
            status = hipFileGetStatsL3(&frozen);
        else if (level == 2)
            status = hipFileGetStatsL2(&frozen.detailed);
        else
            status = hipFileGetStatsL1(&frozen.detailed.basic);
    }
    if (status.err == hipFileSuccess)
        status = hipFileSetParameterSizeT(hipFileParamProfileStats, 0);
    if (status.err == hipFileSuccess) {
        stopped = true;
        level_before_stop = level;
        frozen_level = level;
    }
    pthread_mutex_unlock(&stats_lock);
    return hf_cufile_status(status);
}

HF_CUFILE_API CUfileError_t cuFileStatsReset(void)
{
    if (hipFileUseCount() == 0)
        return hf_cufile_reject(CU_FILE_DRIVER_NOT_INITIALIZED, __func__, "the driver is not open");
    pthread_mutex_lock(&stats_lock);
    hipFileError_t status = hipFileStatsReset();
    /* What a stopped program reads next is the reset, not what it stopped at. */
    if (stopped)
        memset(&frozen, 0, sizeof(frozen));
    pthread_mutex_unlock(&stats_lock);
    return hf_cufile_status(status);
}

/* The frozen snapshot while stopped, else hipfile's live counters. */
static CUfileError_t stats_copy(int level, void *out, size_t size, const char *function)
{
    hipFileStatsLevel3_t live;
    hipFileError_t status = {hipFileSuccess, hipSuccess};
    const void *from = &live;

    if (out == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, function, "stats is NULL");
    pthread_mutex_lock(&stats_lock);
    if (stopped) {
        if (frozen_level < level) {
            pthread_mutex_unlock(&stats_lock);
            return hf_cufile_reject(CU_FILE_INTERNAL_ERROR, function,
                                    "statistics were stopped at level %d; level %d asked",
                                    frozen_level, level);
        }
        from = &frozen;
    } else if (level == 3) {
        status = hipFileGetStatsL3(&live);
    } else if (level == 2) {
        status = hipFileGetStatsL2(&live.detailed);
    } else {
        status = hipFileGetStatsL1(&live.detailed.basic);
    }
    if (status.err == hipFileSuccess)
        memcpy(out, from, size);
    pthread_mutex_unlock(&stats_lock);
    return hf_cufile_status(status);
}

HF_CUFILE_API CUfileError_t cuFileGetStatsL1(CUfileStatsLevel1_t *stats)
{
    return stats_copy(1, stats, sizeof(*stats), __func__);
}

HF_CUFILE_API CUfileError_t cuFileGetStatsL2(CUfileStatsLevel2_t *stats)
{
    return stats_copy(2, stats, sizeof(*stats), __func__);
}

HF_CUFILE_API CUfileError_t cuFileGetStatsL3(CUfileStatsLevel3_t *stats)
{
    return stats_copy(3, stats, sizeof(*stats), __func__);
}

HF_CUFILE_API CUfileError_t cuFileGetBARSizeInKB(int gpuIndex, size_t *barSize)
{
    return hf_cufile_status(hipFileGetBARSizeInKB(gpuIndex, barSize));
}
