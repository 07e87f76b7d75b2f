/*
 * Prints the size and field offsets of every cuFile struct and the value of every enumerator, one
 * per line. Built against hipfile's cufile.h always, and against NVIDIA's cufile.h where the CUDA
 * toolkit is installed; the test compares the two outputs line by line.
 */
#include <stddef.h>
#include <stdio.h>

#include <cufile.h>

#define SIZE(type) printf("sizeof %s %zu\n", #type, sizeof(type))
#define OFFSET(type, field) printf("offsetof %s.%s %zu\n", #type, #field, offsetof(type, field))
#define VALUE(name) printf("value %s %lld\n", #name, (long long)(name))

int main(void)
{
    SIZE(CUfileError_t);
    OFFSET(CUfileError_t, err);
    OFFSET(CUfileError_t, cu_err);
    SIZE(CUfileDrvProps_t);
    OFFSET(CUfileDrvProps_t, nvfs.major_version);
    OFFSET(CUfileDrvProps_t, nvfs.minor_version);
    OFFSET(CUfileDrvProps_t, nvfs.poll_thresh_size);
    OFFSET(CUfileDrvProps_t, nvfs.max_direct_io_size);
    OFFSET(CUfileDrvProps_t, nvfs.dstatusflags);
    OFFSET(CUfileDrvProps_t, nvfs.dcontrolflags);
    OFFSET(CUfileDrvProps_t, fflags);
    OFFSET(CUfileDrvProps_t, max_device_cache_size);
    OFFSET(CUfileDrvProps_t, per_buffer_cache_size);
    OFFSET(CUfileDrvProps_t, max_device_pinned_mem_size);
    OFFSET(CUfileDrvProps_t, max_batch_io_size);
    OFFSET(CUfileDrvProps_t, max_batch_io_timeout_msecs);
    SIZE(cufileRDMAInfo_t);
    OFFSET(cufileRDMAInfo_t, desc_len);
    OFFSET(cufileRDMAInfo_t, desc_str);
    SIZE(CUfileFSOps_t);
    OFFSET(CUfileFSOps_t, write);
    SIZE(CUfileDescr_t);
    OFFSET(CUfileDescr_t, type);
    OFFSET(CUfileDescr_t, handle.fd);
    OFFSET(CUfileDescr_t, handle.handle);
    OFFSET(CUfileDescr_t, fs_ops);
    SIZE(CUfileIOParams_t);
    OFFSET(CUfileIOParams_t, mode);
    OFFSET(CUfileIOParams_t, u.batch.devPtr_base);
    OFFSET(CUfileIOParams_t, u.batch.file_offset);
    OFFSET(CUfileIOParams_t, u.batch.devPtr_offset);
    OFFSET(CUfileIOParams_t, u.batch.size);
    OFFSET(CUfileIOParams_t, fh);
    OFFSET(CUfileIOParams_t, opcode);
    OFFSET(CUfileIOParams_t, cookie);
    SIZE(CUfileIOEvents_t);
    OFFSET(CUfileIOEvents_t, status);
    OFFSET(CUfileIOEvents_t, ret);
    SIZE(CUfileOpCounter_t);
    SIZE(CUfileStatsLevel1_t);
    OFFSET(CUfileStatsLevel1_t, read_bytes);
    OFFSET(CUfileStatsLevel1_t, batch_submit_ops);
    OFFSET(CUfileStatsLevel1_t, batch_read_bytes);
    OFFSET(CUfileStatsLevel1_t, last_batch_write_bytes);
    SIZE(CUfileStatsLevel2_t);
    OFFSET(CUfileStatsLevel2_t, read_size_kb_hist);
    OFFSET(CUfileStatsLevel2_t, write_size_kb_hist);
    SIZE(CUfilePerGpuStats_t);
    OFFSET(CUfilePerGpuStats_t, read_bytes);
    OFFSET(CUfilePerGpuStats_t, writes_bytes);
    OFFSET(CUfilePerGpuStats_t, reg_bytes);
    SIZE(CUfileStatsLevel3_t);
    OFFSET(CUfileStatsLevel3_t, num_gpus);
    OFFSET(CUfileStatsLevel3_t, per_gpu_stats);

    VALUE(CUFILEOP_BASE_ERR);
    VALUE(CU_FILE_SUCCESS);
    VALUE(CU_FILE_DRIVER_NOT_INITIALIZED);
    VALUE(CU_FILE_DRIVER_INVALID_PROPS);
    VALUE(CU_FILE_DRIVER_UNSUPPORTED_LIMIT);
    VALUE(CU_FILE_DRIVER_VERSION_MISMATCH);
    VALUE(CU_FILE_DRIVER_VERSION_READ_ERROR);
    VALUE(CU_FILE_DRIVER_CLOSING);
    VALUE(CU_FILE_PLATFORM_NOT_SUPPORTED);
    VALUE(CU_FILE_IO_NOT_SUPPORTED);
    VALUE(CU_FILE_DEVICE_NOT_SUPPORTED);
    VALUE(CU_FILE_NVFS_DRIVER_ERROR);
    VALUE(CU_FILE_CUDA_DRIVER_ERROR);
    VALUE(CU_FILE_CUDA_POINTER_INVALID);
    VALUE(CU_FILE_CUDA_MEMORY_TYPE_INVALID);
    VALUE(CU_FILE_CUDA_POINTER_RANGE_ERROR);
    VALUE(CU_FILE_CUDA_CONTEXT_MISMATCH);
    VALUE(CU_FILE_INVALID_MAPPING_SIZE);
    VALUE(CU_FILE_INVALID_MAPPING_RANGE);
    VALUE(CU_FILE_INVALID_FILE_TYPE);
    VALUE(CU_FILE_INVALID_FILE_OPEN_FLAG);
    VALUE(CU_FILE_DIO_NOT_SET);
    VALUE(CU_FILE_INVALID_VALUE);
    VALUE(CU_FILE_MEMORY_ALREADY_REGISTERED);
    VALUE(CU_FILE_MEMORY_NOT_REGISTERED);
    VALUE(CU_FILE_PERMISSION_DENIED);
    VALUE(CU_FILE_DRIVER_ALREADY_OPEN);
    VALUE(CU_FILE_HANDLE_NOT_REGISTERED);
    VALUE(CU_FILE_HANDLE_ALREADY_REGISTERED);
    VALUE(CU_FILE_DEVICE_NOT_FOUND);
    VALUE(CU_FILE_INTERNAL_ERROR);
    VALUE(CU_FILE_GETNEWFD_FAILED);
    VALUE(CU_FILE_NVFS_SETUP_ERROR);
    VALUE(CU_FILE_IO_DISABLED);
    VALUE(CU_FILE_BATCH_SUBMIT_FAILED);
    VALUE(CU_FILE_GPU_MEMORY_PINNING_FAILED);
    VALUE(CU_FILE_BATCH_FULL);
    VALUE(CU_FILE_ASYNC_NOT_SUPPORTED);
    VALUE(CU_FILE_INTERNAL_BATCH_SETUP_ERROR);
    VALUE(CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR);
    VALUE(CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR);
    VALUE(CU_FILE_INTERNAL_BATCH_CANCEL_ERROR);
    VALUE(CU_FILE_NOMEM_ERROR);
    VALUE(CU_FILE_IO_ERROR);
    VALUE(CU_FILE_INTERNAL_BUF_REGISTER_ERROR);
    VALUE(CU_FILE_HASH_OPR_ERROR);
    VALUE(CU_FILE_INVALID_CONTEXT_ERROR);
    VALUE(CU_FILE_NVFS_INTERNAL_DRIVER_ERROR);
    VALUE(CU_FILE_BATCH_NOCOMPAT_ERROR);
    VALUE(CU_FILE_IO_MAX_ERROR);
    VALUE(CU_FILE_LUSTRE_SUPPORTED);
    VALUE(CU_FILE_BEEGFS_SUPPORTED);
    VALUE(CU_FILE_NVME_P2P_SUPPORTED);
    VALUE(CU_FILE_SCATEFS_SUPPORTED);
    VALUE(CU_FILE_USE_POLL_MODE);
    VALUE(CU_FILE_ALLOW_COMPAT_MODE);
    VALUE(CU_FILE_DYN_ROUTING_SUPPORTED);
    VALUE(CU_FILE_PARALLEL_IO_SUPPORTED);
    VALUE(CU_FILE_HANDLE_TYPE_OPAQUE_FD);
    VALUE(CU_FILE_HANDLE_TYPE_OPAQUE_WIN32);
    VALUE(CU_FILE_HANDLE_TYPE_USERSPACE_FS);
    VALUE(CUFILE_READ);
    VALUE(CUFILE_WRITE);
    VALUE(CUFILE_WAITING);
    VALUE(CUFILE_PENDING);
    VALUE(CUFILE_INVALID);
    VALUE(CUFILE_CANCELED);
    VALUE(CUFILE_COMPLETE);
    VALUE(CUFILE_TIMEOUT);
    VALUE(CUFILE_FAILED);
    VALUE(CUFILE_BATCH);
    VALUE(CU_FILE_RDMA_REGISTER);
    VALUE(CU_FILE_RDMA_RELAXED_ORDERING);
    VALUE(CU_FILE_STREAM_FIXED_BUF_OFFSET);
    VALUE(CU_FILE_STREAM_FIXED_FILE_OFFSET);
    VALUE(CU_FILE_STREAM_FIXED_FILE_SIZE);
    VALUE(CU_FILE_STREAM_PAGE_ALIGNED_INPUTS);
    VALUE(CUFILE_PARAM_PROFILE_STATS);
    VALUE(CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS);
    VALUE(CUFILE_PARAM_PROPERTIES_USE_POLL_MODE);
    VALUE(CUFILE_PARAM_STREAM_MEMOPS_BYPASS);
    VALUE(CUFILE_PARAM_LOGGING_LEVEL);
    VALUE(CUFILE_PARAM_LOG_DIR);
    VALUE(CUFILE_PARAM_POSIX_POOL_SLAB_SIZE_KB);
    VALUE(CUFILE_PARAM_POSIX_POOL_SLAB_COUNT);
    return 0;
}
