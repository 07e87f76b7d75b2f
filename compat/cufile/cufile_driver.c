/*
 * cuFile's driver calls: lifecycle, properties, limits and the version. Each is hipfile's
 * function of the same role; properties are copied field by field because cuFile's struct keeps
 * the cache and pinned-memory sizes in 32 bits where hipfile's uses 64.
 */
#include "cufile_compat.h"

#include <limits.h>
#include <string.h>

/* The cuFile API level this library implements (cuFile 1.19), in cuFile's encoding:
 * programs such as KvikIO compare it against 1060 (batch) and 1080 (streams). */
#define HF_CUFILE_API_VERSION 1190

HF_CUFILE_API CUfileError_t cuFileDriverOpen(void)
{
    return hf_cufile_status(hipFileDriverOpen());
}

/* cufile.h turns cuFileDriverClose into cuFileDriverClose_v2; programs linked before that
 * rename still bind to the old name, so both are exported, with the same behaviour. */
#undef cuFileDriverClose

HF_CUFILE_API CUfileError_t cuFileDriverClose_v2(void)
{
    return hf_cufile_status(hipFileDriverClose());
}

HF_CUFILE_API CUfileError_t cuFileDriverClose(void)
{
    return cuFileDriverClose_v2();
}

HF_CUFILE_API long cuFileUseCount(void)
{
    return (long)hipFileUseCount();
}

static unsigned int clamp_uint(uint64_t value)
{
    return value > UINT_MAX ? UINT_MAX : (unsigned int)value;
}

HF_CUFILE_API CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t *props)
{
    hipFileDriverProps_t hp;
    hipFileError_t status;

    if (props == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "props is NULL");
    memset(&hp, 0, sizeof(hp));
    status = hipFileDriverGetProperties(&hp);
    if (status.err != hipFileSuccess)
        return hf_cufile_status(status);
    memset(props, 0, sizeof(*props));
    props->nvfs.major_version = hp.nvfs.major_version;
    props->nvfs.minor_version = hp.nvfs.minor_version;
    props->nvfs.poll_thresh_size = (size_t)hp.nvfs.poll_thresh_size;
    props->nvfs.max_direct_io_size = (size_t)hp.nvfs.max_direct_io_size;
    props->nvfs.dstatusflags = hp.nvfs.driver_status_flags;
    props->nvfs.dcontrolflags = hp.nvfs.driver_control_flags;
    props->fflags = hp.feature_flags;
    props->max_device_cache_size = clamp_uint(hp.max_device_cache_size);
    props->per_buffer_cache_size = clamp_uint(hp.per_buffer_cache_size);
    props->max_device_pinned_mem_size = clamp_uint(hp.max_device_pinned_mem_size);
    props->max_batch_io_size = hp.max_batch_io_count;
    props->max_batch_io_timeout_msecs = hp.max_batch_io_timeout_msecs;
    return hf_cufile_error(CU_FILE_SUCCESS);
}

HF_CUFILE_API CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size)
{
    return hf_cufile_status(hipFileDriverSetPollMode(poll, poll_threshold_size));
}

HF_CUFILE_API CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size)
{
    return hf_cufile_status(hipFileDriverSetMaxDirectIOSize(max_direct_io_size));
}

HF_CUFILE_API CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size)
{
    return hf_cufile_status(hipFileDriverSetMaxCacheSize(max_cache_size));
}

HF_CUFILE_API CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size)
{
    return hf_cufile_status(hipFileDriverSetMaxPinnedMemSize(max_pinned_size));
}

HF_CUFILE_API CUfileError_t cuFileGetVersion(int *version)
{
    if (version == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "version is NULL");
    *version = HF_CUFILE_API_VERSION;
    return hf_cufile_error(CU_FILE_SUCCESS);
}

/* The one peer-to-peer mechanism cuFile lets a program choose on this architecture. */
#if defined(__aarch64__)
#define P2P_CHOOSABLE CU_FILE_P2P_FLAG_C2C
#else
#define P2P_CHOOSABLE CU_FILE_P2P_FLAG_PCI_P2PDMA
#endif

/* A storage kind cuFile knows (10 is a hole in its numbering). */
static bool p2p_target_known(CUfileDriverStatusFlags_t status_flag)
{
    return (int)status_flag >= 0 && status_flag < CU_FILE_MAX_TARGET_TYPES &&
           (int)status_flag != 10;
}

/*
 * Choosing a mechanism is checked as cuFile checks it, and then asks for what no backend here has:
 * hipfile reaches GPU memory through host staging or through storage DMA of its own, never
 * through PCI P2PDMA or C2C. cuFile says a chosen mechanism is used "if the system supports it";
 * here it never is, and cuFileDriverGetP2PFlags says so by reporting none in use.
 */
HF_CUFILE_API CUfileError_t cuFileDriverSetP2PFlags(CUfileDriverStatusFlags_t status_flag,
                                                    CUfileP2PFlags_t p2p_flags)
{
    if (hipFileUseCount() == 0)
        return hf_cufile_reject(CU_FILE_DRIVER_NOT_INITIALIZED, __func__, "the driver is not open");
    if (!p2p_target_known(status_flag))
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "unknown storage kind %d",
                                (int)status_flag);
    if (((unsigned)p2p_flags & ~(unsigned)P2P_CHOOSABLE) != 0)
        return hf_cufile_reject(CU_FILE_PLATFORM_NOT_SUPPORTED, __func__,
                                "flags 0x%x: only 0x%x can be chosen on this architecture "
                                "(NVFS and DMABUF are the driver's own)",
                                (unsigned)p2p_flags, (unsigned)P2P_CHOOSABLE);
    return hf_cufile_error(CU_FILE_SUCCESS);
}

HF_CUFILE_API CUfileError_t cuFileDriverGetP2PFlags(CUfileDriverStatusFlags_t status_flag,
                                                    CUfileP2PFlags_t *p2p_flags)
{
    if (hipFileUseCount() == 0)
        return hf_cufile_reject(CU_FILE_DRIVER_NOT_INITIALIZED, __func__, "the driver is not open");
    if (p2p_flags == NULL)
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "p2p_flags is NULL");
    if (!p2p_target_known(status_flag))
        return hf_cufile_reject(CU_FILE_INVALID_VALUE, __func__, "unknown storage kind %d",
                                (int)status_flag);
    *p2p_flags = (CUfileP2PFlags_t)0;
    return hf_cufile_error(CU_FILE_SUCCESS);
}
