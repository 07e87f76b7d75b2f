// Pins the binary interfaces at compile time: every public struct's size, field offsets and field
// types (API.md 5.8 and 7.6, x86-64 LP64), every public enumerator and flag value, and the layout
// of every struct in the plugin ABI header. A change to any of them fails this build; the plugin
// ABI pins say what has to happen before the change may go in.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <hipfile.h>

#include "hipfile/backend.h"

static_assert(sizeof(void *) == 8 && sizeof(long) == 8 && sizeof(off_t) == 8,
              "the layouts below are for LP64 with a 64-bit off_t");

#define PIN_SIZE(type, size) static_assert(sizeof(type) == (size), "size of " #type " changed")
#define PIN_OFFSET(type, member, offset)                                                           \
    static_assert(offsetof(type, member) == (offset), #type "." #member " moved")
#define PIN_TYPE(type, member, member_type)                                                        \
    static_assert(std::is_same<decltype(type::member), member_type>::value,                        \
                  #type "." #member " changed type")
#define PIN_VALUE(name, value) static_assert((name) == (value), #name " changed value")

// ---- Public types (API.md 1.5, 5.8) -----------------------------------------------------------

static_assert(std::is_same<hoff_t, off_t>::value, "hoff_t is off_t");
static_assert(std::is_same<hipFileHandle_t, void *>::value, "hipFileHandle_t is void *");
static_assert(std::is_same<hipFileBatchHandle_t, void *>::value, "hipFileBatchHandle_t is void *");

// Every public enum is a plain C enum, int-sized, so struct fields of enum type keep their offsets.
PIN_SIZE(hipFileOpError_t, 4);
PIN_SIZE(hipFileFileHandleType_t, 4);
PIN_SIZE(hipFileOpcode_t, 4);
PIN_SIZE(hipFileStatus_t, 4);
PIN_SIZE(hipFileBatchMode_t, 4);

PIN_SIZE(hipFileError_t, 8);
PIN_OFFSET(hipFileError_t, err, 0);
PIN_OFFSET(hipFileError_t, hip_drv_err, 4);
PIN_TYPE(hipFileError_t, err, hipFileOpError_t);
PIN_TYPE(hipFileError_t, hip_drv_err, hipError_t);

using hf_nvfs_t = decltype(hipFileDriverProps_t::nvfs);
PIN_SIZE(hipFileDriverProps_t, 72);
PIN_OFFSET(hipFileDriverProps_t, nvfs, 0);
PIN_OFFSET(hipFileDriverProps_t, nvfs.major_version, 0);
PIN_OFFSET(hipFileDriverProps_t, nvfs.minor_version, 4);
PIN_OFFSET(hipFileDriverProps_t, nvfs.poll_thresh_size, 8);
PIN_OFFSET(hipFileDriverProps_t, nvfs.max_direct_io_size, 16);
PIN_OFFSET(hipFileDriverProps_t, nvfs.driver_status_flags, 24);
PIN_OFFSET(hipFileDriverProps_t, nvfs.driver_control_flags, 28);
PIN_OFFSET(hipFileDriverProps_t, feature_flags, 32);
PIN_OFFSET(hipFileDriverProps_t, max_device_cache_size, 40);
PIN_OFFSET(hipFileDriverProps_t, per_buffer_cache_size, 48);
PIN_OFFSET(hipFileDriverProps_t, max_device_pinned_mem_size, 56);
PIN_OFFSET(hipFileDriverProps_t, max_batch_io_count, 64);
PIN_OFFSET(hipFileDriverProps_t, max_batch_io_timeout_msecs, 68);
PIN_TYPE(hf_nvfs_t, major_version, unsigned);
PIN_TYPE(hf_nvfs_t, minor_version, unsigned);
PIN_TYPE(hf_nvfs_t, poll_thresh_size, uint64_t);
PIN_TYPE(hf_nvfs_t, max_direct_io_size, uint64_t);
PIN_TYPE(hf_nvfs_t, driver_status_flags, unsigned);
PIN_TYPE(hf_nvfs_t, driver_control_flags, unsigned);
PIN_TYPE(hipFileDriverProps_t, feature_flags, unsigned);
PIN_TYPE(hipFileDriverProps_t, max_device_cache_size, uint64_t);
PIN_TYPE(hipFileDriverProps_t, per_buffer_cache_size, uint64_t);
PIN_TYPE(hipFileDriverProps_t, max_device_pinned_mem_size, uint64_t);
PIN_TYPE(hipFileDriverProps_t, max_batch_io_count, unsigned);
PIN_TYPE(hipFileDriverProps_t, max_batch_io_timeout_msecs, unsigned);

PIN_SIZE(hipFileRDMAInfo_t, 16);
PIN_OFFSET(hipFileRDMAInfo_t, version, 0);
PIN_OFFSET(hipFileRDMAInfo_t, desc_len, 4);
PIN_OFFSET(hipFileRDMAInfo_t, desc_str, 8);
PIN_TYPE(hipFileRDMAInfo_t, version, int);
PIN_TYPE(hipFileRDMAInfo_t, desc_len, int);
PIN_TYPE(hipFileRDMAInfo_t, desc_str, const char *);

PIN_SIZE(hipFileFSOps_t, 40);
PIN_OFFSET(hipFileFSOps_t, fs_type, 0);
PIN_OFFSET(hipFileFSOps_t, getRDMADeviceList, 8);
PIN_OFFSET(hipFileFSOps_t, getRDMADevicePriority, 16);
PIN_OFFSET(hipFileFSOps_t, read, 24);
PIN_OFFSET(hipFileFSOps_t, write, 32);
PIN_TYPE(hipFileFSOps_t, fs_type, const char *(*)(void *));
PIN_TYPE(hipFileFSOps_t, getRDMADeviceList, int (*)(void *, struct sockaddr **));
PIN_TYPE(hipFileFSOps_t, getRDMADevicePriority,
         int (*)(void *, char *, size_t, hoff_t, struct sockaddr *));
PIN_TYPE(hipFileFSOps_t, read, ssize_t (*)(void *, char *, size_t, hoff_t, hipFileRDMAInfo_t *));
PIN_TYPE(hipFileFSOps_t, write,
         ssize_t (*)(void *, const char *, size_t, hoff_t, hipFileRDMAInfo_t *));

using hf_handle_t = decltype(hipFileDescr_t::handle);
PIN_SIZE(hipFileDescr_t, 24);
PIN_OFFSET(hipFileDescr_t, type, 0);
PIN_OFFSET(hipFileDescr_t, handle, 8);
PIN_OFFSET(hipFileDescr_t, handle.fd, 8);
PIN_OFFSET(hipFileDescr_t, handle.hFile, 8);
PIN_OFFSET(hipFileDescr_t, fs_ops, 16);
PIN_TYPE(hipFileDescr_t, type, hipFileFileHandleType_t);
PIN_TYPE(hf_handle_t, fd, int);
PIN_TYPE(hf_handle_t, hFile, void *);
PIN_TYPE(hipFileDescr_t, fs_ops, const hipFileFSOps_t *);
static_assert(std::is_union<hf_handle_t>::value, "hipFileDescr_t.handle is a union");

using hf_batch_t = decltype(hipFileIOParams_t::u.batch);
PIN_SIZE(hipFileIOParams_t, 64);
PIN_OFFSET(hipFileIOParams_t, mode, 0);
PIN_OFFSET(hipFileIOParams_t, u, 8);
PIN_OFFSET(hipFileIOParams_t, u.batch.devPtr_base, 8);
PIN_OFFSET(hipFileIOParams_t, u.batch.file_offset, 16);
PIN_OFFSET(hipFileIOParams_t, u.batch.devPtr_offset, 24);
PIN_OFFSET(hipFileIOParams_t, u.batch.size, 32);
PIN_OFFSET(hipFileIOParams_t, fh, 40);
PIN_OFFSET(hipFileIOParams_t, opcode, 48);
PIN_OFFSET(hipFileIOParams_t, cookie, 56);
PIN_TYPE(hipFileIOParams_t, mode, hipFileBatchMode_t);
PIN_TYPE(hf_batch_t, devPtr_base, void *);
PIN_TYPE(hf_batch_t, file_offset, int64_t);
PIN_TYPE(hf_batch_t, devPtr_offset, int64_t);
PIN_TYPE(hf_batch_t, size, size_t);
PIN_TYPE(hipFileIOParams_t, fh, hipFileHandle_t);
PIN_TYPE(hipFileIOParams_t, opcode, hipFileOpcode_t);
PIN_TYPE(hipFileIOParams_t, cookie, void *);
static_assert(std::is_union<decltype(hipFileIOParams_t::u)>::value,
              "hipFileIOParams_t.u is a union");

PIN_SIZE(hipFileIOEvents_t, 24);
PIN_OFFSET(hipFileIOEvents_t, cookie, 0);
PIN_OFFSET(hipFileIOEvents_t, status, 8);
PIN_OFFSET(hipFileIOEvents_t, ret, 16);
PIN_TYPE(hipFileIOEvents_t, cookie, void *);
PIN_TYPE(hipFileIOEvents_t, status, hipFileStatus_t);
PIN_TYPE(hipFileIOEvents_t, ret, size_t);

// ---- Statistics (API.md 7.1-7.6) ----------------------------------------------------------------

PIN_VALUE(HIPFILE_MAX_GPUS, 16);
PIN_VALUE(HIPFILE_GPU_UUID_LEN, 16);

PIN_SIZE(hipFileOpCounter_t, 16);
PIN_OFFSET(hipFileOpCounter_t, ok, 0);
PIN_OFFSET(hipFileOpCounter_t, err, 8);
PIN_TYPE(hipFileOpCounter_t, ok, uint64_t);
PIN_TYPE(hipFileOpCounter_t, err, uint64_t);

// Level 1: four runs of fields; counters are 16 bytes, plain fields 8.
#define PIN_L1_COUNTER(member, offset)                                                             \
    PIN_OFFSET(hipFileStatsLevel1_t, member, offset);                                              \
    PIN_TYPE(hipFileStatsLevel1_t, member, hipFileOpCounter_t)
#define PIN_L1_U64(member, offset)                                                                 \
    PIN_OFFSET(hipFileStatsLevel1_t, member, offset);                                              \
    PIN_TYPE(hipFileStatsLevel1_t, member, uint64_t)
PIN_SIZE(hipFileStatsLevel1_t, 512);
PIN_L1_COUNTER(read_ops, 0);
PIN_L1_COUNTER(write_ops, 16);
PIN_L1_COUNTER(hdl_register_ops, 32);
PIN_L1_COUNTER(hdl_deregister_ops, 48);
PIN_L1_COUNTER(buf_register_ops, 64);
PIN_L1_COUNTER(buf_deregister_ops, 80);
PIN_L1_U64(read_bytes, 96);
PIN_L1_U64(write_bytes, 104);
PIN_L1_U64(read_bw_bytes_per_sec, 112);
PIN_L1_U64(write_bw_bytes_per_sec, 120);
PIN_L1_U64(read_lat_avg_us, 128);
PIN_L1_U64(write_lat_avg_us, 136);
PIN_L1_U64(read_ops_per_sec, 144);
PIN_L1_U64(write_ops_per_sec, 152);
PIN_L1_U64(read_lat_sum_us, 160);
PIN_L1_U64(write_lat_sum_us, 168);
PIN_L1_COUNTER(batch_submit_ops, 176);
PIN_L1_COUNTER(batch_complete_ops, 192);
PIN_L1_COUNTER(batch_setup_ops, 208);
PIN_L1_COUNTER(batch_cancel_ops, 224);
PIN_L1_COUNTER(batch_destroy_ops, 240);
PIN_L1_COUNTER(batch_enqueued_ops, 256);
PIN_L1_COUNTER(batch_posix_enqueued_ops, 272);
PIN_L1_COUNTER(batch_processed_ops, 288);
PIN_L1_COUNTER(batch_posix_processed_ops, 304);
PIN_L1_COUNTER(batch_nvfs_submit_ops, 320);
PIN_L1_COUNTER(batch_p2p_submit_ops, 336);
PIN_L1_COUNTER(batch_aio_submit_ops, 352);
PIN_L1_COUNTER(batch_iouring_submit_ops, 368);
PIN_L1_COUNTER(batch_mixed_io_submit_ops, 384);
PIN_L1_COUNTER(batch_total_submit_ops, 400);
PIN_L1_U64(batch_read_bytes, 416);
PIN_L1_U64(batch_write_bytes, 424);
PIN_L1_U64(batch_read_bw_bytes, 432);
PIN_L1_U64(batch_write_bw_bytes, 440);
PIN_L1_U64(batch_submit_lat_avg_us, 448);
PIN_L1_U64(batch_completion_lat_avg_us, 456);
PIN_L1_U64(batch_submit_ops_per_sec, 464);
PIN_L1_U64(batch_complete_ops_per_sec, 472);
PIN_L1_U64(batch_submit_lat_sum_us, 480);
PIN_L1_U64(batch_completion_lat_sum_us, 488);
PIN_L1_U64(last_batch_read_bytes, 496);
PIN_L1_U64(last_batch_write_bytes, 504);

PIN_SIZE(hipFileStatsLevel2_t, 1024);
PIN_OFFSET(hipFileStatsLevel2_t, basic, 0);
PIN_OFFSET(hipFileStatsLevel2_t, read_size_kb_hist, 512);
PIN_OFFSET(hipFileStatsLevel2_t, write_size_kb_hist, 768);
PIN_TYPE(hipFileStatsLevel2_t, basic, hipFileStatsLevel1_t);
PIN_TYPE(hipFileStatsLevel2_t, read_size_kb_hist, uint64_t[32]);
PIN_TYPE(hipFileStatsLevel2_t, write_size_kb_hist, uint64_t[32]);

// Per GPU: the uuid bytes, then 29 plain fields of 8 bytes each.
#define PIN_GPU_U64(member, index)                                                                 \
    PIN_OFFSET(hipFilePerGpuStats_t, member, 16 + 8 * (index));                                    \
    PIN_TYPE(hipFilePerGpuStats_t, member, uint64_t)
PIN_SIZE(hipFilePerGpuStats_t, 248);
PIN_OFFSET(hipFilePerGpuStats_t, uuid, 0);
PIN_TYPE(hipFilePerGpuStats_t, uuid, char[HIPFILE_GPU_UUID_LEN]);
PIN_GPU_U64(read_bytes, 0);
PIN_GPU_U64(read_bw_bytes_per_sec, 1);
PIN_GPU_U64(read_utilization, 2);
PIN_GPU_U64(read_duration_us, 3);
PIN_GPU_U64(n_total_reads, 4);
PIN_GPU_U64(n_p2p_reads, 5);
PIN_GPU_U64(n_nvfs_reads, 6);
PIN_GPU_U64(n_posix_reads, 7);
PIN_GPU_U64(n_unaligned_reads, 8);
PIN_GPU_U64(n_dr_reads, 9);
PIN_GPU_U64(n_sparse_regions, 10);
PIN_GPU_U64(n_inline_regions, 11);
PIN_GPU_U64(n_reads_err, 12);
PIN_GPU_U64(write_bytes, 13);
PIN_GPU_U64(write_bw_bytes_per_sec, 14);
PIN_GPU_U64(write_utilization, 15);
PIN_GPU_U64(write_duration_us, 16);
PIN_GPU_U64(n_total_writes, 17);
PIN_GPU_U64(n_p2p_writes, 18);
PIN_GPU_U64(n_nvfs_writes, 19);
PIN_GPU_U64(n_posix_writes, 20);
PIN_GPU_U64(n_unaligned_writes, 21);
PIN_GPU_U64(n_dr_writes, 22);
PIN_GPU_U64(n_writes_err, 23);
PIN_GPU_U64(n_mmap, 24);
PIN_GPU_U64(n_mmap_ok, 25);
PIN_GPU_U64(n_mmap_err, 26);
PIN_GPU_U64(n_mmap_free, 27);
PIN_GPU_U64(reg_bytes, 28);

PIN_SIZE(hipFileStatsLevel3_t, 5000);
PIN_OFFSET(hipFileStatsLevel3_t, detailed, 0);
PIN_OFFSET(hipFileStatsLevel3_t, num_gpus, 1024);
PIN_OFFSET(hipFileStatsLevel3_t, per_gpu_stats, 1032);
PIN_TYPE(hipFileStatsLevel3_t, detailed, hipFileStatsLevel2_t);
PIN_TYPE(hipFileStatsLevel3_t, num_gpus, uint32_t);
PIN_TYPE(hipFileStatsLevel3_t, per_gpu_stats, hipFilePerGpuStats_t[HIPFILE_MAX_GPUS]);

// ---- Public values (API.md 2-4) -----------------------------------------------------------------

PIN_VALUE(HIPFILE_BASE_ERR, 5000);
PIN_VALUE(hipFileSuccess, 0);
PIN_VALUE(hipFileDriverNotInitialized, 5001);
PIN_VALUE(hipFileDriverInvalidProps, 5002);
PIN_VALUE(hipFileDriverUnsupportedLimit, 5003);
PIN_VALUE(hipFileDriverVersionMismatch, 5004);
PIN_VALUE(hipFileDriverVersionReadError, 5005);
PIN_VALUE(hipFileDriverClosing, 5006);
PIN_VALUE(hipFilePlatformNotSupported, 5007);
PIN_VALUE(hipFileIONotSupported, 5008);
PIN_VALUE(hipFileDeviceNotSupported, 5009);
PIN_VALUE(hipFileDriverError, 5010);
PIN_VALUE(hipFileHipDriverError, 5011);
PIN_VALUE(hipFileHipPointerInvalid, 5012);
PIN_VALUE(hipFileHipMemoryTypeInvalid, 5013);
PIN_VALUE(hipFileHipPointerRangeError, 5014);
PIN_VALUE(hipFileHipContextMismatch, 5015);
PIN_VALUE(hipFileInvalidMappingSize, 5016);
PIN_VALUE(hipFileInvalidMappingRange, 5017);
PIN_VALUE(hipFileInvalidFileType, 5018);
PIN_VALUE(hipFileInvalidFileOpenFlag, 5019);
PIN_VALUE(hipFileDIONotSet, 5020);
PIN_VALUE(hipFileInvalidValue, 5022);
PIN_VALUE(hipFileMemoryAlreadyRegistered, 5023);
PIN_VALUE(hipFileMemoryNotRegistered, 5024);
PIN_VALUE(hipFilePermissionDenied, 5025);
PIN_VALUE(hipFileDriverAlreadyOpen, 5026);
PIN_VALUE(hipFileHandleNotRegistered, 5027);
PIN_VALUE(hipFileHandleAlreadyRegistered, 5028);
PIN_VALUE(hipFileDeviceNotFound, 5029);
PIN_VALUE(hipFileInternalError, 5030);
PIN_VALUE(hipFileGetNewFDFailed, 5031);
PIN_VALUE(hipFileDriverSetupError, 5033);
PIN_VALUE(hipFileIODisabled, 5034);
PIN_VALUE(hipFileBatchSubmitFailed, 5035);
PIN_VALUE(hipFileGPUMemoryPinningFailed, 5036);
PIN_VALUE(hipFileBatchFull, 5037);
PIN_VALUE(hipFileAsyncNotSupported, 5038);
PIN_VALUE(hipFileIOMaxError, 5039);

PIN_VALUE(hipFileLustreSupported, 0);
PIN_VALUE(hipFileWekaFSSupported, 1);
PIN_VALUE(hipFileNFSSupported, 2);
PIN_VALUE(hipFileGPFSSupported, 3);
PIN_VALUE(hipFileNVMeSupported, 4);
PIN_VALUE(hipFileNVMeoFSupported, 5);
PIN_VALUE(hipFileSCSISupported, 6);
PIN_VALUE(hipFileScaleFluxCSDSupported, 7);
PIN_VALUE(hipFileNVMeshSupported, 8);
PIN_VALUE(hipFileBeeGFSSupported, 9);
PIN_VALUE(hipFileNVMeP2PSupported, 11);
PIN_VALUE(hipFileScatefsSupported, 12);

PIN_VALUE(hipFileUsePollMode, 0);
PIN_VALUE(hipFileAllowCompatMode, 1);

PIN_VALUE(hipFileDynRoutingSupported, 0);
PIN_VALUE(hipFileBatchIOSupported, 1);
PIN_VALUE(hipFileStreamsSupported, 2);
PIN_VALUE(hipFileParallelIOSupported, 3);

PIN_VALUE(hipFileHandleTypeOpaqueFD, 1);
PIN_VALUE(hipFileHandleTypeOpaqueWin32, 2);
PIN_VALUE(hipFileHandleTypeUserspaceFS, 3);

PIN_VALUE(hipFileBatchRead, 0);
PIN_VALUE(hipFileBatchWrite, 1);

PIN_VALUE(hipFileWaiting, 1);
PIN_VALUE(hipFilePending, 2);
PIN_VALUE(hipFileInvalid, 4);
PIN_VALUE(hipFileCanceled, 8);
PIN_VALUE(hipFileComplete, 16);
PIN_VALUE(hipFileTimeout, 32);
PIN_VALUE(hipFileFailed, 64);

PIN_VALUE(hipFileBatch, 1);

PIN_VALUE(hipFileParamProfileStats, 0);
PIN_VALUE(hipFileParamExecutionMaxIOQueueDepth, 1);
PIN_VALUE(hipFileParamExecutionMaxIOThreads, 2);
PIN_VALUE(hipFileParamExecutionMinIOThresholdSizeKB, 3);
PIN_VALUE(hipFileParamExecutionMaxRequestParallelism, 4);
PIN_VALUE(hipFileParamPropertiesMaxDirectIOSizeKB, 5);
PIN_VALUE(hipFileParamPropertiesMaxDeviceCacheSizeKB, 6);
PIN_VALUE(hipFileParamPropertiesPerBufferCacheSizeKB, 7);
PIN_VALUE(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 8);
PIN_VALUE(hipFileParamPropertiesIOBatchsize, 9);
PIN_VALUE(hipFileParamPollthresholdSizeKB, 10);
PIN_VALUE(hipFileParamPropertiesBatchIOTimeoutMs, 11);

PIN_VALUE(hipFileParamPropertiesUsePollMode, 0);
PIN_VALUE(hipFileParamPropertiesAllowCompatMode, 1);
PIN_VALUE(hipFileParamForceCompatMode, 2);
PIN_VALUE(hipFileParamFsMiscApiCheckAggressive, 3);
PIN_VALUE(hipFileParamExecutionParallelIO, 4);
PIN_VALUE(hipFileParamProfileNvtx, 5);
PIN_VALUE(hipFileParamPropertiesAllowSystemMemory, 6);
PIN_VALUE(hipFileParamUsePcip2pdma, 7);
PIN_VALUE(hipFileParamPreferIOUring, 8);
PIN_VALUE(hipFileParamForceOdirectMode, 9);
PIN_VALUE(hipFileParamSkipTopologyDetection, 10);
PIN_VALUE(hipFileParamStreamMemopsBypass, 11);

PIN_VALUE(hipFileParamLoggingLevel, 0);
PIN_VALUE(hipFileParamEnvLogfilePath, 1);
PIN_VALUE(hipFileParamLogDir, 2);

PIN_VALUE(HIPFILE_RDMA_REGISTER, 1);
PIN_VALUE(HIPFILE_RDMA_RELAXED_ORDERING, 2);
PIN_VALUE(HIPFILE_STREAM_FIXED_BUF_OFFSET, 1);
PIN_VALUE(HIPFILE_STREAM_FIXED_FILE_OFFSET, 2);
PIN_VALUE(HIPFILE_STREAM_FIXED_FILE_SIZE, 4);
PIN_VALUE(HIPFILE_STREAM_PAGE_ALIGNED_INPUTS, 8);
PIN_VALUE(HIPFILE_STREAM_FLAGS_MASK, 0xf);

// ---- Plugin ABI (include/hipfile/backend.h) ----------------------------------------------------
//
// Offsets of existing members never change: members are only ever appended. Sizes are pinned for
// the current minor; appending a member must bump HF_BACKEND_ABI_MINOR, and then the size pins
// below are updated for the new minor.

PIN_VALUE(HF_BACKEND_MAGIC, 0x48464245u);
PIN_VALUE(HF_BACKEND_ABI_MAJOR, 1u);
static_assert(HF_BACKEND_ABI_MINOR == 11u,
              "the plugin ABI minor changed: update the size pins below for the new minor");
PIN_VALUE(HF_EGPU, 4096);

PIN_VALUE(HF_LOG_ERROR, 0);
PIN_VALUE(HF_LOG_WARN, 1);
PIN_VALUE(HF_LOG_INFO, 2);
PIN_VALUE(HF_LOG_DEBUG, 3);
PIN_VALUE(HF_IO_READ, 0);
PIN_VALUE(HF_IO_WRITE, 1);
PIN_VALUE(HF_FILE_REGULAR, 1);
PIN_VALUE(HF_FILE_BLOCK, 2);
PIN_VALUE(HF_FILE_USERSPACE_FS, 3);
PIN_VALUE(HF_FILE_REMOTE, 4);
PIN_VALUE(HF_MEM_UNKNOWN, 0);
PIN_VALUE(HF_MEM_DEVICE, 1);
PIN_VALUE(HF_MEM_HOST_PINNED, 2);
PIN_VALUE(HF_MEM_MANAGED, 3);
PIN_VALUE(HF_MEM_ARRAY, 4);
PIN_VALUE(HF_CAP_READ, 1u << 0);
PIN_VALUE(HF_CAP_WRITE, 1u << 1);
PIN_VALUE(HF_CAP_RESERVED_2, 1u << 2);
PIN_VALUE(HF_CAP_RESERVED_3, 1u << 3);
PIN_VALUE(HF_CAP_DEVICE_MEM, HF_CAP_RESERVED_2); // the bits' first names still build
PIN_VALUE(HF_CAP_HOST_MEM, HF_CAP_RESERVED_3);
PIN_VALUE(HF_CAP_DIRECT, 1u << 4);
PIN_VALUE(HF_CAP_COMPAT, 1u << 5);

PIN_SIZE(struct hf_file_info, 144);
PIN_OFFSET(struct hf_file_info, struct_size, 0);
PIN_OFFSET(struct hf_file_info, fd, 4);
PIN_OFFSET(struct hf_file_info, direct_fd, 8);
PIN_OFFSET(struct hf_file_info, kind, 12);
PIN_OFFSET(struct hf_file_info, mode, 16);
PIN_OFFSET(struct hf_file_info, status_flags, 20);
PIN_OFFSET(struct hf_file_info, dio_mem_align, 24);
PIN_OFFSET(struct hf_file_info, dio_offset_align, 28);
PIN_OFFSET(struct hf_file_info, fs_magic, 32);
PIN_OFFSET(struct hf_file_info, fs_name, 40);
PIN_OFFSET(struct hf_file_info, ext4_data_mode, 56);
PIN_OFFSET(struct hf_file_info, dev, 72);
PIN_OFFSET(struct hf_file_info, ino, 80);
PIN_OFFSET(struct hf_file_info, size_at_register, 88);
PIN_OFFSET(struct hf_file_info, fs_handle, 96);
PIN_OFFSET(struct hf_file_info, fs_read, 104);
PIN_OFFSET(struct hf_file_info, fs_write, 112);
PIN_OFFSET(struct hf_file_info, url, 120);
PIN_OFFSET(struct hf_file_info, remote_options, 128);
PIN_OFFSET(struct hf_file_info, remote_writable, 136);

PIN_SIZE(struct hf_buf_info, 40);
PIN_OFFSET(struct hf_buf_info, struct_size, 0);
PIN_OFFSET(struct hf_buf_info, mem_type, 4);
PIN_OFFSET(struct hf_buf_info, base, 8);
PIN_OFFSET(struct hf_buf_info, length, 16);
PIN_OFFSET(struct hf_buf_info, device, 24);
PIN_OFFSET(struct hf_buf_info, host_accessible, 28);
PIN_OFFSET(struct hf_buf_info, registered, 29);
PIN_OFFSET(struct hf_buf_info, flags, 32);

PIN_SIZE(struct hf_io_request, 80);
PIN_OFFSET(struct hf_io_request, struct_size, 0);
PIN_OFFSET(struct hf_io_request, op, 4);
PIN_OFFSET(struct hf_io_request, file, 8);
PIN_OFFSET(struct hf_io_request, buf, 16);
PIN_OFFSET(struct hf_io_request, file_ctx, 24);
PIN_OFFSET(struct hf_io_request, buf_ctx, 32);
PIN_OFFSET(struct hf_io_request, size, 40);
PIN_OFFSET(struct hf_io_request, file_offset, 48);
PIN_OFFSET(struct hf_io_request, buf_offset, 56);
PIN_OFFSET(struct hf_io_request, flags, 64);
PIN_OFFSET(struct hf_io_request, gpu_error_p, 72);

PIN_SIZE(struct hf_gpu_pointer_info, 32);
PIN_OFFSET(struct hf_gpu_pointer_info, mem_type, 0);
PIN_OFFSET(struct hf_gpu_pointer_info, device, 4);
PIN_OFFSET(struct hf_gpu_pointer_info, alloc_base, 8);
PIN_OFFSET(struct hf_gpu_pointer_info, alloc_size, 16);
PIN_OFFSET(struct hf_gpu_pointer_info, host_accessible, 24);

PIN_SIZE(struct hf_gpu_ops, 160);
PIN_OFFSET(struct hf_gpu_ops, struct_size, 0);
PIN_OFFSET(struct hf_gpu_ops, name, 8);
PIN_OFFSET(struct hf_gpu_ops, runtime_version, 16);
PIN_OFFSET(struct hf_gpu_ops, pointer_info, 24);
PIN_OFFSET(struct hf_gpu_ops, device_count, 32);
PIN_OFFSET(struct hf_gpu_ops, get_device, 40);
PIN_OFFSET(struct hf_gpu_ops, set_device, 48);
PIN_OFFSET(struct hf_gpu_ops, host_alloc_pinned, 56);
PIN_OFFSET(struct hf_gpu_ops, host_free_pinned, 64);
PIN_OFFSET(struct hf_gpu_ops, memcpy_sync, 72);
PIN_OFFSET(struct hf_gpu_ops, memcpy_async, 80);
PIN_OFFSET(struct hf_gpu_ops, stream_create, 88);
PIN_OFFSET(struct hf_gpu_ops, stream_destroy, 96);
PIN_OFFSET(struct hf_gpu_ops, stream_synchronize, 104);
PIN_OFFSET(struct hf_gpu_ops, error_string, 112);
PIN_OFFSET(struct hf_gpu_ops, device_attribute, 120);
PIN_OFFSET(struct hf_gpu_ops, get_proc_address, 128);
PIN_OFFSET(struct hf_gpu_ops, host_register, 136);
PIN_OFFSET(struct hf_gpu_ops, host_unregister, 144);
PIN_OFFSET(struct hf_gpu_ops, host_register_read_only, 152); // minor 10
PIN_VALUE(HF_GPU_ATTR_INTEGRATED, 1);
PIN_VALUE(HF_GPU_ATTR_HOST_NATIVE_ATOMICS, 2);
PIN_VALUE(HF_GPU_ATTR_PAGEABLE_MEMORY_ACCESS, 3);
PIN_VALUE(HF_GPU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES, 4);
PIN_VALUE(HF_GPU_ATTR_HOST_NUMA_NODE, 5);

PIN_SIZE(struct hf_sys_ops, 64);
PIN_OFFSET(struct hf_sys_ops, struct_size, 0);
PIN_OFFSET(struct hf_sys_ops, pread, 8);
PIN_OFFSET(struct hf_sys_ops, pwrite, 16);
PIN_OFFSET(struct hf_sys_ops, fstat, 24);
PIN_OFFSET(struct hf_sys_ops, fdatasync, 32);
PIN_OFFSET(struct hf_sys_ops, ioctl, 40);
PIN_OFFSET(struct hf_sys_ops, preadv2, 48);      // minor 1
PIN_OFFSET(struct hf_sys_ops, cached_bytes, 56); // minor 8

PIN_SIZE(struct hf_host_api, 88);
PIN_OFFSET(struct hf_host_api, struct_size, 0);
PIN_OFFSET(struct hf_host_api, abi_minor, 4);
PIN_OFFSET(struct hf_host_api, core_private, 8);
PIN_OFFSET(struct hf_host_api, log, 16);
PIN_OFFSET(struct hf_host_api, config_int, 24);
PIN_OFFSET(struct hf_host_api, config_bool, 32);
PIN_OFFSET(struct hf_host_api, config_string, 40);
PIN_OFFSET(struct hf_host_api, gpu, 48);
PIN_OFFSET(struct hf_host_api, sys, 56);
PIN_OFFSET(struct hf_host_api, parallel_run, 64);   // minor 1
PIN_OFFSET(struct hf_host_api, parallel_width, 72); // minor 1
PIN_OFFSET(struct hf_host_api, core_limits, 80);    // minor 5

PIN_SIZE(struct hf_backend_ops, 160);
PIN_OFFSET(struct hf_backend_ops, magic, 0);
PIN_OFFSET(struct hf_backend_ops, abi_major, 4);
PIN_OFFSET(struct hf_backend_ops, abi_minor, 8);
PIN_OFFSET(struct hf_backend_ops, struct_size, 12);
PIN_OFFSET(struct hf_backend_ops, name, 16);
PIN_OFFSET(struct hf_backend_ops, caps, 24);
PIN_OFFSET(struct hf_backend_ops, init, 32);
PIN_OFFSET(struct hf_backend_ops, fini, 40);
PIN_OFFSET(struct hf_backend_ops, probe, 48);
PIN_OFFSET(struct hf_backend_ops, file_register, 56);
PIN_OFFSET(struct hf_backend_ops, file_deregister, 64);
PIN_OFFSET(struct hf_backend_ops, buf_register, 72);
PIN_OFFSET(struct hf_backend_ops, buf_deregister, 80);
PIN_OFFSET(struct hf_backend_ops, score, 88);
PIN_OFFSET(struct hf_backend_ops, read, 96);
PIN_OFFSET(struct hf_backend_ops, write, 104);
PIN_OFFSET(struct hf_backend_ops, submit_many, 112);
PIN_OFFSET(struct hf_backend_ops, stream_prepare, 120);
PIN_OFFSET(struct hf_backend_ops, settings, 128);      // minor 5
PIN_OFFSET(struct hf_backend_ops, setting_count, 136); // minor 5
PIN_OFFSET(struct hf_backend_ops, transfer, 144);      // minor 7
PIN_OFFSET(struct hf_backend_ops, file_size, 152);     // minor 9

PIN_SIZE(struct hf_core_limits, 56);
PIN_OFFSET(struct hf_core_limits, struct_size, 0);
PIN_OFFSET(struct hf_core_limits, parallel_io, 4);
PIN_OFFSET(struct hf_core_limits, force_odirect_mode, 5);
PIN_OFFSET(struct hf_core_limits, max_request_parallelism, 8);
PIN_OFFSET(struct hf_core_limits, min_io_threshold_size_kb, 16);
PIN_OFFSET(struct hf_core_limits, per_buffer_cache_size_kb, 24);
PIN_OFFSET(struct hf_core_limits, max_device_cache_size_kb, 32);
PIN_OFFSET(struct hf_core_limits, max_device_pinned_mem_size_kb, 40);
PIN_OFFSET(struct hf_core_limits, cpu_budget, 48); // minor 11

PIN_SIZE(struct hf_setting_decl, 96);
PIN_OFFSET(struct hf_setting_decl, key, 0);
PIN_OFFSET(struct hf_setting_decl, type, 8);
PIN_OFFSET(struct hf_setting_decl, unit, 16);
PIN_OFFSET(struct hf_setting_decl, default_int, 24);
PIN_OFFSET(struct hf_setting_decl, default_string, 32);
PIN_OFFSET(struct hf_setting_decl, min, 40);
PIN_OFFSET(struct hf_setting_decl, max, 48);
PIN_OFFSET(struct hf_setting_decl, multiple, 56);
PIN_OFFSET(struct hf_setting_decl, names, 64);
PIN_OFFSET(struct hf_setting_decl, env, 72);
PIN_OFFSET(struct hf_setting_decl, live, 80);
PIN_OFFSET(struct hf_setting_decl, help, 88);

static_assert(std::is_same<hf_backend_entry_fn, decltype(&hf_backend_entry_v1)>::value,
              "hf_backend_entry_fn matches the declared entry point");

// ---- Run-time checks of what a static_assert cannot say -----------------------------------------

TEST(AbiLayout, BatchStatusValuesAreDistinctBits)
{
    const unsigned statuses[] = {hipFileWaiting,  hipFilePending, hipFileInvalid, hipFileCanceled,
                                 hipFileComplete, hipFileTimeout, hipFileFailed};
    unsigned seen = 0;
    for (unsigned status : statuses) {
        EXPECT_EQ(status & (status - 1), 0u) << status << " is not a single bit";
        EXPECT_EQ(seen & status, 0u) << status << " repeats an earlier bit";
        seen |= status;
    }
    EXPECT_EQ(seen, 0x7fu);
}

TEST(AbiLayout, StreamFlagsMaskIsUnionOfStreamFlags)
{
    EXPECT_EQ(HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                  HIPFILE_STREAM_FIXED_FILE_SIZE | HIPFILE_STREAM_PAGE_ALIGNED_INPUTS,
              HIPFILE_STREAM_FLAGS_MASK);
}

TEST(AbiLayout, DescrHandleMembersShareStorage)
{
    hipFileDescr_t descr;
    std::memset(&descr, 0, sizeof(descr));
    descr.handle.fd = 42;
    int fd_via_handle;
    std::memcpy(&fd_via_handle, &descr.handle, sizeof(fd_via_handle));
    EXPECT_EQ(fd_via_handle, 42);
}

TEST(AbiLayout, EntrySymbolNameCarriesAbiMajor)
{
    EXPECT_EQ(std::string(HF_BACKEND_ENTRY_SYMBOL),
              "hf_backend_entry_v" + std::to_string(HF_BACKEND_ABI_MAJOR));
}

TEST(AbiLayout, BackendMagicSpellsHfbe)
{
    const uint32_t magic = HF_BACKEND_MAGIC;
    const char expected[] = {'H', 'F', 'B', 'E'};
    for (int i = 0; i < 4; i++)
        EXPECT_EQ((magic >> (8 * (3 - i))) & 0xffu, static_cast<unsigned char>(expected[i]));
}
