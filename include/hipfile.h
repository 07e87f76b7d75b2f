/**
 * @file hipfile.h
 * hipfile public API: moves data between files and GPU memory.
 *
 * Source-compatible with AMD's hipFile interface: every name, value and struct layout below is part
 * of that contract, so programs written for AMD's header compile and link against this library
 * unchanged. Valid C99 and later, and C++11 and later.
 *
 * Functions that return hipFileError_t report success as {hipFileSuccess, hipSuccess}; a HIP
 * runtime failure as {hipFileHipDriverError, the runtime's hipError_t}; anything else as {the
 * hipFileOpError_t code, hipSuccess}. hipFileRead and hipFileWrite return a byte count, -1 with
 * errno set, or a negated hipFileOpError_t (test with IS_HIPFILE_ERR).
 */
#ifndef HIPFILE_H
#define HIPFILE_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Strict C99 modes of glibc's <time.h> leave struct timespec undefined; declaring the tag here
 * keeps hipFileBatchIOGetStatus's parameter a file-scope type in every language mode.
 */
struct timespec;

/** Marks the functions the library exports; usable by applications too. */
#if defined(__GNUC__)
#define HIPFILE_API __attribute__((visibility("default")))
#else
#define HIPFILE_API
#endif

/*
 * Where the language has a standard nodiscard attribute, hipFileError_t carries it, so a status
 * that is silently dropped draws a warning. Undefined again at the end of this header.
 */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define __HIPFILE_NODISCARD [[nodiscard]]
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 202311L
#define __HIPFILE_NODISCARD [[nodiscard]]
#else
#define __HIPFILE_NODISCARD
#endif

/** Major part of the library version that hipFileGetVersion reports. */
#define HIPFILE_VERSION_MAJOR 0
/** Minor part of the library version that hipFileGetVersion reports. */
#define HIPFILE_VERSION_MINOR 1
/** Patch part of the library version that hipFileGetVersion reports. */
#define HIPFILE_VERSION_PATCH 0

/** Byte offset in a file or a buffer. This library targets LP64 Linux, where it is 64 bits. */
typedef off_t hoff_t;

/** Opaque handle of a registered file; compare only for equality. */
typedef void *hipFileHandle_t;

/** Opaque handle of a batch context; compare only for equality. */
typedef void *hipFileBatchHandle_t;

/* ---- Errors ---------------------------------------------------------------------------------- */

/** Every library error code is this base plus a small positive number. */
#define HIPFILE_BASE_ERR 5000

/** Status codes of the library. 5021 and 5032 are left unused on purpose. */
typedef enum hipFileOpError {
    hipFileSuccess = 0,                    /**< the call succeeded */
    hipFileDriverNotInitialized = 5001,    /**< the driver is not open */
    hipFileDriverInvalidProps = 5002,      /**< a driver property is invalid */
    hipFileDriverUnsupportedLimit = 5003,  /**< a driver property value cannot be honoured */
    hipFileDriverVersionMismatch = 5004,   /**< library and I/O driver versions differ */
    hipFileDriverVersionReadError = 5005,  /**< the I/O driver version could not be read */
    hipFileDriverClosing = 5006,           /**< the driver is shutting down */
    hipFilePlatformNotSupported = 5007,    /**< this platform cannot run the library */
    hipFileIONotSupported = 5008,          /**< GPU I/O is not possible for this file */
    hipFileDeviceNotSupported = 5009,      /**< the GPU cannot be used */
    hipFileDriverError = 5010,             /**< the I/O driver failed */
    hipFileHipDriverError = 5011,          /**< a HIP runtime call failed; see hip_drv_err */
    hipFileHipPointerInvalid = 5012,       /**< the pointer is not a valid GPU pointer */
    hipFileHipMemoryTypeInvalid = 5013,    /**< the memory's type cannot be used */
    hipFileHipPointerRangeError = 5014,    /**< the range runs past its allocation */
    hipFileHipContextMismatch = 5015,      /**< the memory belongs to another GPU context */
    hipFileInvalidMappingSize = 5016,      /**< the access runs past the pinned buffer */
    hipFileInvalidMappingRange = 5017,     /**< the access runs past the mapped region */
    hipFileInvalidFileType = 5018,         /**< the kind of file is not supported */
    hipFileInvalidFileOpenFlag = 5019,     /**< the file's open flags are not supported */
    hipFileDIONotSet = 5020,               /**< the file was not opened with O_DIRECT */
    hipFileInvalidValue = 5022,            /**< an argument is invalid */
    hipFileMemoryAlreadyRegistered = 5023, /**< the buffer is already registered */
    hipFileMemoryNotRegistered = 5024,     /**< the buffer is not registered */
    hipFilePermissionDenied = 5025,        /**< the device or file refused access */
    hipFileDriverAlreadyOpen = 5026,       /**< the driver is already open */
    hipFileHandleNotRegistered = 5027,     /**< the file handle is not registered */
    hipFileHandleAlreadyRegistered = 5028, /**< the file is already registered */
    hipFileDeviceNotFound = 5029,          /**< no such device */
    hipFileInternalError = 5030,           /**< the library failed internally */
    hipFileGetNewFDFailed = 5031,          /**< no new file descriptor could be opened */
    hipFileDriverSetupError = 5033,        /**< driver setup failed */
    hipFileIODisabled = 5034,              /**< configuration disables GPU I/O for this file */
    hipFileBatchSubmitFailed = 5035,       /**< a batch could not be submitted */
    hipFileGPUMemoryPinningFailed = 5036,  /**< GPU memory could not be pinned */
    hipFileBatchFull = 5037,               /**< the batch has no room for more entries */
    hipFileAsyncNotSupported = 5038,       /**< asynchronous I/O is not available */
    hipFileIOMaxError = 5039               /**< one past the highest real code; never returned */
} hipFileOpError_t;

/** Result of the functions that report a status: library code plus HIP runtime code. */
typedef struct __HIPFILE_NODISCARD hipFileError {
    hipFileOpError_t err;   /**< library status */
    hipError_t hip_drv_err; /**< HIP status when err is hipFileHipDriverError, else hipSuccess */
} hipFileError_t;

/*
 * The two macros below take a positive code or a negative ssize_t result. They use llabs on a
 * long long rather than abs, so an ssize_t argument is neither truncated nor, in C, warned about
 * (-Wabsolute-value).
 */

/**
 * Nonzero when |@p x| is above HIPFILE_BASE_ERR. Test a hipFileRead/hipFileWrite result only once
 * it is negative: a byte count above 5000 passes this test too.
 */
#define IS_HIPFILE_ERR(x) (llabs((long long)(x)) > HIPFILE_BASE_ERR)

/** Message text for @p x, a library code or its negation. */
#define HIPFILE_ERRSTR(x) hipFileGetOpErrorString((hipFileOpError_t)llabs((long long)(x)))

#ifndef IS_HIP_DRV_ERR
/** Nonzero when the hipFileError_t value @p e reports a HIP runtime failure. */
#define IS_HIP_DRV_ERR(e) ((e).err == hipFileHipDriverError)
#endif

#ifndef HIP_DRV_ERR
/** The HIP runtime status held in the hipFileError_t value @p e. */
#define HIP_DRV_ERR(e) ((e).hip_drv_err)
#endif

/* ---- Enumerations ---------------------------------------------------------------------------- */

/** Bit positions in hipFileDriverProps_t.nvfs.driver_status_flags: storage the driver supports. */
typedef enum hipFileDriverStatusFlags {
    hipFileLustreSupported = 0,       /**< Lustre */
    hipFileWekaFSSupported = 1,       /**< WekaFS */
    hipFileNFSSupported = 2,          /**< NFS */
    hipFileGPFSSupported = 3,         /**< GPFS (IBM Storage Scale) */
    hipFileNVMeSupported = 4,         /**< local NVMe */
    hipFileNVMeoFSupported = 5,       /**< NVMe over Fabrics */
    hipFileSCSISupported = 6,         /**< SCSI */
    hipFileScaleFluxCSDSupported = 7, /**< ScaleFlux computational storage */
    hipFileNVMeshSupported = 8,       /**< NVMesh */
    hipFileBeeGFSSupported = 9,       /**< BeeGFS; bit 10 is reserved */
    hipFileNVMeP2PSupported = 11,     /**< NVMe peer-to-peer */
    hipFileScatefsSupported = 12      /**< ScateFS */
} hipFileDriverStatusFlags_t;

/** Bit positions in hipFileDriverProps_t.nvfs.driver_control_flags. */
typedef enum hipFileDriverControlFlags {
    hipFileUsePollMode = 0,    /**< completions are polled rather than waited for */
    hipFileAllowCompatMode = 1 /**< I/O may fall back to the POSIX path */
} hipFileDriverControlFlags_t;

/** Bit positions in hipFileDriverProps_t.feature_flags. */
typedef enum hipFileFeatureFlags {
    hipFileDynRoutingSupported = 0, /**< dynamic RDMA routing */
    hipFileBatchIOSupported = 1,    /**< the batch API */
    hipFileStreamsSupported = 2,    /**< the stream-ordered API */
    hipFileParallelIOSupported = 3  /**< large requests are split and run in parallel */
} hipFileFeatureFlags_t;

/** Which member of hipFileDescr_t.handle identifies the file. */
typedef enum hipFileFileHandleType {
    hipFileHandleTypeOpaqueFD = 1,    /**< a POSIX file descriptor in handle.fd */
    hipFileHandleTypeOpaqueWin32 = 2, /**< a Windows HANDLE in handle.hFile */
    hipFileHandleTypeUserspaceFS = 3  /**< a user-space filesystem reached through fs_ops */
} hipFileFileHandleType_t;

/** Direction of a batch entry. */
typedef enum hipFileOpcode {
    hipFileBatchRead = 0, /**< file to GPU buffer */
    hipFileBatchWrite = 1 /**< GPU buffer to file */
} hipFileOpcode_t;

/** State of a batch entry; each value is its own bit. */
typedef enum hipFileStatus {
    hipFileWaiting = 1,   /**< submitted, not yet accepted */
    hipFilePending = 2,   /**< accepted and queued */
    hipFileInvalid = 4,   /**< rejected, or could not be queued */
    hipFileCanceled = 8,  /**< cancelled before it ran */
    hipFileComplete = 16, /**< finished successfully */
    hipFileTimeout = 32,  /**< timed out */
    hipFileFailed = 64    /**< finished with an error */
} hipFileStatus_t;

/** Kind of a batch entry. */
typedef enum hipFileBatchMode {
    hipFileBatch = 1 /**< an ordinary batch entry, the only kind */
} hipFileBatchMode_t;

/**
 * Numeric settings read and written with hipFileGet/SetParameterSizeT. Each is the configuration
 * key named in its comment, with that key's unit, range and default; "stored only" marks a key
 * kept for cuFile programs that nothing in this library acts on.
 */
typedef enum hipFileSizeTConfigParameter_t {
    hipFileParamProfileStats,                   /**< profile.stats: statistics level, 0 to 3 */
    hipFileParamExecutionMaxIOQueueDepth,       /**< execution.max_io_queue_depth; stored only */
    hipFileParamExecutionMaxIOThreads,          /**< execution.max_io_threads: I/O threads */
    hipFileParamExecutionMinIOThresholdSizeKB,  /**< execution.min_io_threshold_size_kb */
    hipFileParamExecutionMaxRequestParallelism, /**< execution.max_request_parallelism */
    hipFileParamPropertiesMaxDirectIOSizeKB, /**< properties.max_direct_io_size_kb; stored only */
    hipFileParamPropertiesMaxDeviceCacheSizeKB,     /**< properties.max_device_cache_size_kb */
    hipFileParamPropertiesPerBufferCacheSizeKB,     /**< properties.per_buffer_cache_size_kb */
    hipFileParamPropertiesMaxDevicePinnedMemSizeKB, /**< properties.max_device_pinned_mem_size_kb */
    hipFileParamPropertiesIOBatchsize,              /**< properties.io_batchsize; stored only */
    hipFileParamPollthresholdSizeKB,       /**< properties.poll_mode_max_size_kb; stored only */
    hipFileParamPropertiesBatchIOTimeoutMs /**< properties.batch_io_timeout_ms; stored only */
} hipFileSizeTConfigParameter_t;

/**
 * On/off settings read and written with hipFileGet/SetParameterBool, each the configuration key
 * named in its comment.
 */
typedef enum hipFileBoolConfigParameter_t {
    hipFileParamPropertiesUsePollMode,       /**< properties.use_poll_mode; stored only */
    hipFileParamPropertiesAllowCompatMode,   /**< properties.allow_compat_mode */
    hipFileParamForceCompatMode,             /**< properties.force_compat_mode */
    hipFileParamFsMiscApiCheckAggressive,    /**< fs.misc.api_check_aggressive; stored only */
    hipFileParamExecutionParallelIO,         /**< execution.parallel_io: split large requests */
    hipFileParamProfileNvtx,                 /**< profile.nvtx; stored only */
    hipFileParamPropertiesAllowSystemMemory, /**< properties.allow_system_memory */
    hipFileParamUsePcip2pdma,                /**< properties.use_pci_p2pdma; stored only */
    hipFileParamPreferIOUring,               /**< properties.prefer_io_uring; stored only */
    hipFileParamForceOdirectMode,            /**< properties.force_odirect_mode */
    hipFileParamSkipTopologyDetection,       /**< properties.skip_topology_detection; stored only */
    hipFileParamStreamMemopsBypass           /**< properties.stream_memops_bypass */
} hipFileBoolConfigParameter_t;

/**
 * Text settings read and written with hipFileGet/SetParameterString, each the configuration key
 * named in its comment.
 */
typedef enum hipFileStringConfigParameter_t {
    hipFileParamLoggingLevel,   /**< log.level: "error", "warn", "info" or "debug" */
    hipFileParamEnvLogfilePath, /**< log.file: absolute path log lines are appended to */
    hipFileParamLogDir          /**< log.dir: directory for hipfile_PID.log files */
} hipFileStringConfigParameter_t;

/* ---- Flags ----------------------------------------------------------------------------------- */

/** hipFileBufRegister flag: register the buffer for RDMA (accepted, no effect here). */
#define HIPFILE_RDMA_REGISTER 1
/** hipFileBufRegister flag: allow PCIe relaxed ordering (accepted, no effect here). */
#define HIPFILE_RDMA_RELAXED_ORDERING (1 << 1)

/** hipFileStreamRegister flag: read *buffer_offset_p at submission instead of execution. */
#define HIPFILE_STREAM_FIXED_BUF_OFFSET 1
/** hipFileStreamRegister flag: read *file_offset_p at submission instead of execution. */
#define HIPFILE_STREAM_FIXED_FILE_OFFSET (1 << 1)
/** hipFileStreamRegister flag: read *size_p at submission instead of execution. */
#define HIPFILE_STREAM_FIXED_FILE_SIZE (1 << 2)
/** hipFileStreamRegister flag: the caller promises page-aligned sizes and offsets. */
#define HIPFILE_STREAM_PAGE_ALIGNED_INPUTS (1 << 3)
/** Every valid hipFileStreamRegister flag. */
#define HIPFILE_STREAM_FLAGS_MASK 0xf

/* ---- Structures ------------------------------------------------------------------------------ */

/**
 * What the driver supports and the limits in force, as hipFileDriverGetProperties reports them.
 * Each limit is the properties key of the same name (with _kb for sizes, which are in KiB), or
 * the key its comment names.
 */
typedef struct hipFileDriverProps {
    /** The kernel-side I/O path. */
    struct {
        unsigned major_version;        /**< driver version, major part (0 without a direct path) */
        unsigned minor_version;        /**< driver version, minor part */
        uint64_t poll_thresh_size;     /**< properties.poll_mode_max_size_kb, KiB */
        uint64_t max_direct_io_size;   /**< properties.max_direct_io_size_kb, KiB */
        unsigned driver_status_flags;  /**< bits at hipFileDriverStatusFlags_t positions */
        unsigned driver_control_flags; /**< bits at hipFileDriverControlFlags_t positions */
    } nvfs;
    unsigned feature_flags;              /**< bits at hipFileFeatureFlags_t positions */
    uint64_t max_device_cache_size;      /**< staging memory per GPU, KiB */
    uint64_t per_buffer_cache_size;      /**< size of one staging buffer, KiB */
    uint64_t max_device_pinned_mem_size; /**< cap on pinned memory per GPU, KiB */
    unsigned max_batch_io_count;         /**< largest max_nr hipFileBatchIOSetUp accepts */
    unsigned max_batch_io_timeout_msecs; /**< properties.batch_io_timeout_ms, ms */
} hipFileDriverProps_t;

/** Description of an RDMA transfer, passed to user-space filesystem callbacks. */
typedef struct hipFileRDMAInfo {
    int version;          /**< format version of desc_str */
    int desc_len;         /**< length of desc_str */
    const char *desc_str; /**< the descriptor text */
} hipFileRDMAInfo_t;

/**
 * Callbacks of a user-space filesystem (hipFileHandleTypeUserspaceFS). hipfile calls read and
 * write with host memory, from several threads at once, for pieces of a request; the last
 * argument is always NULL, and the RDMA callbacks are never called (docs/userspace-fs.rst).
 */
typedef struct hipFileFSOps {
    /** Name of the filesystem. */
    const char *(*fs_type)(void *handle);
    /** Fill *hostaddrs with the RDMA devices the filesystem uses; returns their count. */
    int (*getRDMADeviceList)(void *handle, struct sockaddr **hostaddrs);
    /** Priority of the RDMA device at @p hostaddr for the given buffer, size and offset. */
    int (*getRDMADevicePriority)(void *handle, char *, size_t, hoff_t, struct sockaddr *hostaddr);
    /** Read into a buffer; returns bytes read (0 at end of file) or -errno. Required. */
    ssize_t (*read)(void *handle, char *, size_t, hoff_t, hipFileRDMAInfo_t *);
    /** Write from a buffer; returns bytes written or -errno. NULL: the file is read-only. */
    ssize_t (*write)(void *handle, const char *, size_t, hoff_t, hipFileRDMAInfo_t *);
} hipFileFSOps_t;

/** An open file to register with hipFileHandleRegister. */
typedef struct hipFileDescr {
    hipFileFileHandleType_t type; /**< which member of handle is valid */
    /** The file itself. */
    union {
        int fd;      /**< POSIX file descriptor */
        void *hFile; /**< Windows HANDLE */
    } handle;
    const hipFileFSOps_t *fs_ops; /**< callbacks for hipFileHandleTypeUserspaceFS, else ignored */
} hipFileDescr_t;

/** One entry of a batch. */
typedef struct hipFileIOParams {
    hipFileBatchMode_t mode; /**< must be hipFileBatch */
    /** The transfer; batch is the only member. */
    union {
        /** Buffer, offsets and size of one transfer. */
        struct {
            void *devPtr_base;     /**< base address of the GPU buffer */
            int64_t file_offset;   /**< byte offset in the file */
            int64_t devPtr_offset; /**< byte offset from devPtr_base */
            size_t size;           /**< bytes to transfer */
        } batch;
    } u;
    hipFileHandle_t fh;     /**< the registered file */
    hipFileOpcode_t opcode; /**< read or write */
    void *cookie;           /**< returned unchanged in the entry's event */
} hipFileIOParams_t;

/** Completion of one batch entry. */
typedef struct hipFileIOEvents {
    void *cookie;           /**< the cookie of the entry */
    hipFileStatus_t status; /**< final state */
    size_t ret;             /**< bytes moved, or a negative result: read it as ssize_t */
} hipFileIOEvents_t;

/* ---- Statistics ------------------------------------------------------------------------------ */

/** Number of per-GPU entries in hipFileStatsLevel3_t. */
#define HIPFILE_MAX_GPUS 16
/** Bytes in hipFilePerGpuStats_t.uuid. */
#define HIPFILE_GPU_UUID_LEN 16

/** A pair of operation counts. */
typedef struct hipFileOpCounter {
    uint64_t ok;  /**< operations that succeeded */
    uint64_t err; /**< operations that failed */
} hipFileOpCounter_t;

/** Level-1 statistics: process-wide counters. Latencies in microseconds, rates per second. */
typedef struct hipFileStatsLevel1 {
    hipFileOpCounter_t read_ops;                  /**< hipFileRead calls */
    hipFileOpCounter_t write_ops;                 /**< hipFileWrite calls */
    hipFileOpCounter_t hdl_register_ops;          /**< file registrations */
    hipFileOpCounter_t hdl_deregister_ops;        /**< file deregistrations */
    hipFileOpCounter_t buf_register_ops;          /**< buffer registrations */
    hipFileOpCounter_t buf_deregister_ops;        /**< buffer deregistrations */
    uint64_t read_bytes;                          /**< bytes read */
    uint64_t write_bytes;                         /**< bytes written */
    uint64_t read_bw_bytes_per_sec;               /**< read bandwidth */
    uint64_t write_bw_bytes_per_sec;              /**< write bandwidth */
    uint64_t read_lat_avg_us;                     /**< mean read latency */
    uint64_t write_lat_avg_us;                    /**< mean write latency */
    uint64_t read_ops_per_sec;                    /**< read rate */
    uint64_t write_ops_per_sec;                   /**< write rate */
    uint64_t read_lat_sum_us;                     /**< summed read latency */
    uint64_t write_lat_sum_us;                    /**< summed write latency */
    hipFileOpCounter_t batch_submit_ops;          /**< batch submissions */
    hipFileOpCounter_t batch_complete_ops;        /**< batch entries completed */
    hipFileOpCounter_t batch_setup_ops;           /**< batch contexts created */
    hipFileOpCounter_t batch_cancel_ops;          /**< batch cancellations */
    hipFileOpCounter_t batch_destroy_ops;         /**< batch contexts destroyed */
    hipFileOpCounter_t batch_enqueued_ops;        /**< batch entries queued */
    hipFileOpCounter_t batch_posix_enqueued_ops;  /**< entries queued on the POSIX path */
    hipFileOpCounter_t batch_processed_ops;       /**< entries processed */
    hipFileOpCounter_t batch_posix_processed_ops; /**< entries processed on the POSIX path */
    hipFileOpCounter_t batch_nvfs_submit_ops;     /**< entries submitted to the direct path */
    hipFileOpCounter_t batch_p2p_submit_ops;      /**< entries submitted peer-to-peer */
    hipFileOpCounter_t batch_aio_submit_ops;      /**< entries submitted through AIO */
    hipFileOpCounter_t batch_iouring_submit_ops;  /**< entries submitted through io_uring */
    hipFileOpCounter_t batch_mixed_io_submit_ops; /**< submissions mixing reads and writes */
    hipFileOpCounter_t batch_total_submit_ops;    /**< all batch submissions */
    uint64_t batch_read_bytes;                    /**< bytes read by batches */
    uint64_t batch_write_bytes;                   /**< bytes written by batches */
    uint64_t batch_read_bw_bytes;                 /**< batch read bandwidth */
    uint64_t batch_write_bw_bytes;                /**< batch write bandwidth */
    uint64_t batch_submit_lat_avg_us;             /**< mean submission latency */
    uint64_t batch_completion_lat_avg_us;         /**< mean completion latency */
    uint64_t batch_submit_ops_per_sec;            /**< submission rate */
    uint64_t batch_complete_ops_per_sec;          /**< completion rate */
    uint64_t batch_submit_lat_sum_us;             /**< summed submission latency */
    uint64_t batch_completion_lat_sum_us;         /**< summed completion latency */
    uint64_t last_batch_read_bytes;               /**< bytes read by the latest batch */
    uint64_t last_batch_write_bytes;              /**< bytes written by the latest batch */
} hipFileStatsLevel1_t;

/** Level-2 statistics: level 1 plus request-size histograms. */
typedef struct hipFileStatsLevel2 {
    hipFileStatsLevel1_t basic;      /**< the level-1 counters */
    uint64_t read_size_kb_hist[32];  /**< read counts by size bucket (KiB) */
    uint64_t write_size_kb_hist[32]; /**< write counts by size bucket (KiB) */
} hipFileStatsLevel2_t;

/** Counters of one GPU. */
typedef struct hipFilePerGpuStats {
    char uuid[HIPFILE_GPU_UUID_LEN]; /**< the GPU's UUID bytes */
    uint64_t read_bytes;             /**< bytes read */
    uint64_t read_bw_bytes_per_sec;  /**< read bandwidth */
    uint64_t read_utilization;       /**< read utilisation, percent */
    uint64_t read_duration_us;       /**< time spent reading */
    uint64_t n_total_reads;          /**< reads */
    uint64_t n_p2p_reads;            /**< peer-to-peer reads */
    uint64_t n_nvfs_reads;           /**< reads on the direct path */
    uint64_t n_posix_reads;          /**< reads on the fallback path */
    uint64_t n_unaligned_reads;      /**< reads with unaligned offset or size */
    uint64_t n_dr_reads;             /**< dynamically routed reads */
    uint64_t n_sparse_regions;       /**< holes met while reading */
    uint64_t n_inline_regions;       /**< inline extents met while reading */
    uint64_t n_reads_err;            /**< failed reads */
    uint64_t write_bytes;            /**< bytes written */
    uint64_t write_bw_bytes_per_sec; /**< write bandwidth */
    uint64_t write_utilization;      /**< write utilisation, percent */
    uint64_t write_duration_us;      /**< time spent writing */
    uint64_t n_total_writes;         /**< writes */
    uint64_t n_p2p_writes;           /**< peer-to-peer writes */
    uint64_t n_nvfs_writes;          /**< writes on the direct path */
    uint64_t n_posix_writes;         /**< writes on the fallback path */
    uint64_t n_unaligned_writes;     /**< writes with unaligned offset or size */
    uint64_t n_dr_writes;            /**< dynamically routed writes */
    uint64_t n_writes_err;           /**< failed writes */
    uint64_t n_mmap;                 /**< buffer registrations */
    uint64_t n_mmap_ok;              /**< successful buffer registrations */
    uint64_t n_mmap_err;             /**< failed buffer registrations */
    uint64_t n_mmap_free;            /**< buffer deregistrations */
    uint64_t reg_bytes;              /**< bytes currently registered */
} hipFilePerGpuStats_t;

/** Level-3 statistics: level 2 plus per-GPU counters. */
typedef struct hipFileStatsLevel3 {
    hipFileStatsLevel2_t detailed;                        /**< the level-2 counters */
    uint32_t num_gpus;                                    /**< valid entries in per_gpu_stats */
    hipFilePerGpuStats_t per_gpu_stats[HIPFILE_MAX_GPUS]; /**< one entry per GPU index */
} hipFileStatsLevel3_t;

/* ---- Functions ------------------------------------------------------------------------------- */

/*
 * Each function's comment says what it does, its parameters, what it returns and, for a
 * hipFileError_t, each code it puts in err and when. Every failure is also logged with the
 * argument at fault (HIPFILE_LOG_LEVEL). The pages of docs/ build a reference from these comments.
 */

/**
 * Message text of a status code.
 *
 * Needs no driver and never fails. HIPFILE_ERRSTR calls it with the code of a negative
 * hipFileRead or hipFileWrite result.
 *
 * @param status a hipFileOpError_t value; any other number is accepted too
 * @return a static string, never NULL: the code's message, or a text saying the code is unknown
 *         for a number that is not a code (5021, 5032 and hipFileIOMaxError among them)
 */
HIPFILE_API const char *hipFileGetOpErrorString(hipFileOpError_t status);

/**
 * Register an open file for GPU I/O and return its handle.
 *
 * Opens the driver first when its use count is 0 (the count becomes 1). The library opens
 * descriptors of its own for the file (a buffered one and an O_DIRECT one, through
 * /proc/self/fd) and never closes the caller's. Every loaded backend whose manifest accepts the
 * file's kind is offered the file and may decline it. A file system that refuses O_DIRECT (tmpfs)
 * is registered without a direct path. A user-space file system's file (type
 * hipFileHandleTypeUserspaceFS) has no descriptor: its reads and writes call @c fs_ops->read and
 * @c fs_ops->write with host memory and a NULL RDMA descriptor (docs/userspace-fs.rst); AMD's
 * hipFile refuses this type.
 *
 * @param[out] fh    receives the handle that the read, write, async and batch calls take
 * @param[in]  descr the file: @c type hipFileHandleTypeOpaqueFD and @c handle.fd an open
 *                   descriptor of a regular file or a block device, opened for reading, writing
 *                   or both, with or without O_DIRECT; or @c type hipFileHandleTypeUserspaceFS,
 *                   @c handle.hFile the file system's pointer for the file and @c fs_ops its
 *                   callbacks (read required, write optional), both valid until deregistration
 * @return {hipFileSuccess, hipSuccess} with *fh set, or a status whose err is one of
 *         the codes listed
 * @retval hipFileInvalidValue            @p fh or @p descr is NULL, @c handle.fd is not an open
 *                                        descriptor, or a user-space file system comes without
 *                                        @c fs_ops or @c fs_ops->read
 * @retval hipFileIONotSupported          @c descr->type is neither hipFileHandleTypeOpaqueFD nor
 *                                        hipFileHandleTypeUserspaceFS
 * @retval hipFileInvalidFileType         the descriptor is a directory, pipe, socket or character
 *                                        device
 * @retval hipFileHandleAlreadyRegistered the same descriptor, or the same fs_ops and handle.hFile,
 *                                        is registered already
 * @retval hipFileDriverSetupError        the implicit driver open failed (see hipFileDriverOpen)
 * @retval hipFilePlatformNotSupported    the implicit driver open found no GPU runtime with a
 *                                        device
 * @retval hipFilePermissionDenied        reopening the file was refused (EACCES, EPERM, EROFS)
 * @retval hipFileGetNewFDFailed          no descriptor was left to reopen the file (EMFILE, ENFILE)
 * @retval hipFileInternalError           out of memory, or reopening failed for another reason
 */
HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t *fh, hipFileDescr_t *descr);

/**
 * Forget a registered file and close the library's own descriptors of it.
 *
 * The caller's descriptor stays open. Does nothing for NULL, for a handle that is not registered,
 * and while the driver's use count is 0 (the last hipFileDriverClose released every
 * registration). A file with I/O still in flight stays registered, with a warning in the log,
 * since this function cannot report an error.
 *
 * @param fh a handle from hipFileHandleRegister
 */
HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh);

/**
 * Register GPU memory for repeated I/O.
 *
 * Optional: hipFileRead and hipFileWrite take any device pointer. Registering lets backends
 * prepare the buffer once (pin it, map it, find its GPU) instead of on every call. Opens the
 * driver when its use count is 0. A registered buffer is found by its exact base address only;
 * a pointer inside it is treated as unregistered memory.
 *
 * @param buffer_base start of the buffer: device memory, or host memory (pinned, pageable,
 *                    managed) when properties.allow_system_memory is true
 * @param length      bytes to register, more than 0, all inside one allocation
 * @param flags       HIPFILE_RDMA_REGISTER and HIPFILE_RDMA_RELAXED_ORDERING bits; stored, no
 *                    effect in this library
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileInvalidValue            @p buffer_base is NULL, @p length is 0, or the GPU
 *                                        runtime does not know the pointer (pageable memory from
 *                                        malloc, unless properties.allow_system_memory)
 * @retval hipFileHipMemoryTypeInvalid    the runtime knows the memory but it is not device
 *                                        memory: pinned host, managed memory or an array
 * @retval hipFileHipPointerRangeError    the range runs past the end of its allocation, or wraps
 *                                        around the address space
 * @retval hipFileMemoryAlreadyRegistered the base is registered already, or the range overlaps a
 *                                        registered buffer
 * @retval hipFileHipDriverError          the runtime's pointer query failed; hip_drv_err holds
 *                                        its code
 * @retval hipFileDriverSetupError        the implicit driver open failed (see hipFileDriverOpen)
 * @retval hipFilePlatformNotSupported    the implicit driver open found no GPU runtime with a
 *                                        device
 * @retval hipFileInternalError           out of memory
 */
HIPFILE_API hipFileError_t hipFileBufRegister(const void *buffer_base, size_t length, int flags);

/**
 * Remove a buffer registration.
 *
 * Deregister before freeing the memory: a buffer freed while registered leaves the library
 * holding an address that the runtime may hand out again.
 *
 * @param buffer_base the base address given to hipFileBufRegister, exactly
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileDriverClosing       the driver's use count is 0; the last hipFileDriverClose
 *                                    already released every registration
 * @retval hipFileMemoryNotRegistered @p buffer_base is not the base of a registered buffer
 * @retval hipFileInternalError       I/O on the buffer is still in flight; it stays registered
 */
HIPFILE_API hipFileError_t hipFileBufDeregister(const void *buffer_base);

/**
 * Read from a registered file into GPU memory, and wait until the data is there.
 *
 * Moves @p size bytes from @p file_offset in the file to buffer_base + buffer_offset. The
 * request is served whole, whatever its size (larger than 0x7ffff000 bytes too): the result is
 * short only at the end of the file or after an error. A backend chosen per request moves the
 * data; when one fails before moving anything with an error another may retry after, the next
 * serves the same request.
 *
 * @param fh            a handle from hipFileHandleRegister, of a file opened for reading
 * @param buffer_base   device memory, registered or not; unregistered memory is taken to run
 *                      from @p buffer_base to the end of its allocation
 * @param size          bytes to read; 0 returns 0 at once
 * @param file_offset   byte offset in the file, 0 or more
 * @param buffer_offset byte offset from @p buffer_base, 0 or more
 * @return the bytes read: @p size, fewer at the end of the file (0 at or past it), or the bytes
 *         moved before an error stopped the transfer (the error is logged); -1 with errno set
 *         for a system error (EINVAL: a negative offset, or the driver is not open; EBADF: the
 *         file was opened write-only; else the errno of the failed read); or a negated
 *         hipFileOpError_t, one of those listed, for which IS_HIPFILE_ERR is true
 * @retval -hipFileHandleNotRegistered  @p fh is not a registered handle
 * @retval -hipFileInvalidValue         @p buffer_base is NULL or not memory the runtime knows,
 *                                      the range runs past the buffer, or the file range
 *                                      overflows
 * @retval -hipFileHipMemoryTypeInvalid the memory is not device memory (pinned host memory,
 *                                      say) and properties.allow_system_memory is false
 * @retval -hipFileHipDriverError       the GPU runtime failed: its pointer query, or a copy
 * @retval -hipFileIONotSupported       no backend can serve the request: none is loaded, each
 *                                      refused the file, the memory or the compat mode, or the
 *                                      last one able to reported it cannot; the log says which,
 *                                      and hipfile-check --explain FILE shows each one's reason
 */
HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void *buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset);

/**
 * Write from GPU memory to a registered file, and wait until the file has the data.
 *
 * The mirror of hipFileRead: moves @p size bytes from buffer_base + buffer_offset to
 * @p file_offset in the file, whole, extending the file when the range ends past it. The data
 * is as durable as a pwrite on the same descriptor: O_SYNC or O_DSYNC on the file make it
 * synchronous, otherwise call fsync.
 *
 * @param fh            a handle from hipFileHandleRegister, of a file opened for writing
 * @param buffer_base   device memory, registered or not
 * @param size          bytes to write; 0 returns 0 at once
 * @param file_offset   byte offset in the file, 0 or more
 * @param buffer_offset byte offset from @p buffer_base, 0 or more
 * @return the bytes written: @p size, or the bytes moved before an error stopped the transfer
 *         (the error is logged); -1 with errno set for a system error (EINVAL: a negative
 *         offset, or the driver is not open; EBADF: the file was opened read-only; ENOSPC, EIO
 *         and the like from the failed write); or a negated hipFileOpError_t, one of those
 *         listed
 * @retval -hipFileHandleNotRegistered  @p fh is not a registered handle
 * @retval -hipFileInvalidValue         @p buffer_base is NULL or not memory the runtime knows,
 *                                      the range runs past the buffer, or the file range
 *                                      overflows
 * @retval -hipFileHipMemoryTypeInvalid the memory is not device memory and
 *                                      properties.allow_system_memory is false
 * @retval -hipFileHipDriverError       the GPU runtime failed: its pointer query, or a copy
 * @retval -hipFileIONotSupported       no backend can serve the request, as for hipFileRead
 */
HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void *buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset);

/**
 * Take a reference on the driver, setting the library up on first use.
 *
 * The first open (use count 0 to 1, or the next open after one that failed) reads the
 * configuration, binds the GPU runtime and loads the plugins; later opens add 1 to the count.
 * Registering a file or a buffer opens the driver implicitly, so calling this is optional.
 * Settings read only at the first open (execution.max_io_threads among them) cannot change
 * after it. An open that finds no usable plugin still succeeds, with a warning saying why; reads
 * and writes then fail with hipFileIONotSupported.
 *
 * @return {hipFileSuccess, hipSuccess} with the use count raised by 1, or a status whose err
 *         is one of the codes listed, with the count unchanged
 * @retval hipFileDriverSetupError     the configuration does not load (the log names the file
 *                                     and line), gpu.runtime names a runtime that cannot be
 *                                     loaded, or the plugin directory cannot be read
 * @retval hipFilePlatformNotSupported no GPU runtime with at least one device was found;
 *                                     without a GPU, link the host emulation (libhip-host)
 *                                     and set HIPFILE_GPU_RUNTIME=host
 */
HIPFILE_API hipFileError_t hipFileDriverOpen(void);

/**
 * Drop a reference on the driver.
 *
 * When the use count reaches 0, every file registration, buffer registration and batch context
 * is released; the caller's descriptors stay open, and the runtime and plugins stay loaded for
 * the next open.
 *
 * @return {hipFileSuccess, hipSuccess} with the count lowered by 1, or a status whose
 *         err is the code listed
 * @retval hipFileDriverNotInitialized the count was 0 already
 */
HIPFILE_API hipFileError_t hipFileDriverClose(void);

/**
 * The driver's use count.
 *
 * @return the opens not yet closed, implicit opens by registration included: 0 before the first
 *         open and after the last close. AMD's interface reserves -1 for an internal error,
 *         which this library never reports.
 */
HIPFILE_API int64_t hipFileUseCount(void);

/**
 * Report what the driver supports and the limits in force.
 *
 * Works before the driver opens: the configuration is loaded if nothing has loaded it, and
 * nvfs.major_version and nvfs.minor_version stay 0 until a backend with a direct path is
 * loaded. Sizes are in KiB.
 *
 * @param[out] props filled completely on success
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue @p props is NULL
 */
HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t *props);

/**
 * Set properties.use_poll_mode and properties.poll_mode_max_size_kb together.
 *
 * Both are accepted for compatibility: stored and reported by hipFileDriverGetProperties, while
 * completions are always waited for.
 *
 * @param poll                true to ask for polled completions
 * @param poll_threshold_size largest I/O to poll, in KiB
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes
 *         listed, with neither setting changed
 * @retval hipFileDriverUnsupportedLimit @p poll_threshold_size is outside the key's range
 * @retval hipFileInternalError          the setting could not be stored
 */
HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size);

/**
 * Set properties.max_direct_io_size_kb, the largest single direct transfer.
 *
 * Accepted for compatibility: stored and reported as nvfs.max_direct_io_size; no backend bounds
 * its direct transfers by it.
 *
 * @param max_direct_io_size the size in KiB
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileDriverUnsupportedLimit the size is outside the key's range (the log gives it)
 * @retval hipFileInternalError          the setting could not be stored
 */
HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);

/**
 * Set properties.max_device_cache_size_kb, the staging memory per GPU.
 *
 * Takes effect at once: the fallback backend holds at most this much pinned staging memory per
 * GPU (slots of two buffers each), freeing slots as they are given back when the limit falls.
 *
 * @param max_cache_size the size in KiB
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileDriverUnsupportedLimit the size is outside the key's range (the log gives it)
 * @retval hipFileInternalError          the setting could not be stored
 */
HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size);

/**
 * Set properties.max_device_pinned_mem_size_kb, the cap on pinned memory per GPU.
 *
 * Takes effect at once, like hipFileDriverSetMaxCacheSize; the staging buffers count against it.
 *
 * @param max_pinned_size the size in KiB
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileDriverUnsupportedLimit the size is outside the key's range (the log gives it)
 * @retval hipFileInternalError          the setting could not be stored
 */
HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);

/**
 * Create a batch context, which runs many reads and writes at once.
 *
 * Leaves the driver's use count as it is (AMD's rule) but loads the configuration, for the
 * limit: the files the entries name open the driver when they are registered.
 *
 * @param[out] batch_idp receives the batch handle
 * @param      max_nr    most entries the batch holds at once (pending, running, or finished and
 *                       not yet collected): 1 to properties.max_batch_io_count (default 128)
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileInvalidValue     @p batch_idp is NULL, @p max_nr is 0, or @p max_nr is above
 *                                 properties.max_batch_io_count
 * @retval hipFileDriverSetupError the configuration does not load
 * @retval hipFileInternalError    out of memory
 */
HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t *batch_idp, unsigned max_nr);

/**
 * Queue entries on a batch: all of them, or none.
 *
 * Every entry is checked before any is queued: mode hipFileBatch, opcode hipFileBatchRead or
 * hipFileBatchWrite, offsets not negative, a registered file handle, a buffer the runtime knows
 * with the range inside it. Entries then run on the library's I/O threads, each as
 * hipFileRead or hipFileWrite would run it; hipFileBatchIOGetStatus collects the results.
 *
 * @param batch_idp a handle from hipFileBatchIOSetUp
 * @param nr        entries in @p iocbp; 0 queues nothing and succeeds
 * @param iocbp     the entries, read during the call only
 * @param flags     reserved; ignored, as by AMD's library
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes
 *         listed, with nothing queued
 * @retval hipFileInvalidValue  @p iocbp is NULL while @p nr is not 0, the batch handle is not
 *                              known, or an entry is invalid (the log names the entry and why)
 * @retval hipFileBatchFull     @p nr is more than the room left: max_nr less the entries
 *                              pending, running, or finished and not yet collected
 * @retval hipFileInternalError out of memory, or the I/O threads could not take the entries
 */
HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t *iocbp, unsigned flags);

/**
 * Wait for entries of a batch to finish and collect their events.
 *
 * Waits until @p min_nr entries have finished (fewer when fewer are outstanding) or @p timeout
 * has passed, then moves up to *nr events, oldest first, into @p iocbp. A timeout that passes is
 * not an error: the call returns what has finished, possibly nothing. Each event holds the
 * entry's cookie, its status (hipFileComplete, hipFileFailed or hipFileCanceled) and in @c ret
 * the bytes moved or a negative result (-errno, or a negated hipFileOpError_t), to be read as
 * ssize_t.
 *
 * @param         batch_idp a handle from hipFileBatchIOSetUp
 * @param         min_nr    finished entries to wait for, at most *nr; 0 does not wait
 * @param[in,out] nr        in: room in @p iocbp, at least 1; out: events stored
 * @param[out]    iocbp     receives the events
 * @param         timeout   the longest wait, relative; NULL waits for @p min_nr entries; {0, 0}
 *                          only collects what has finished
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue @p iocbp or @p nr is NULL, *nr is 0, @p min_nr is more than *nr,
 *                             @p timeout is malformed (negative, or tv_nsec of a second or
 *                             more), or the batch handle is not known
 */
HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned *nr, hipFileIOEvents_t *iocbp,
                                                   struct timespec *timeout);

/**
 * Cancel the entries of a batch that have not started, and wait for the running ones.
 *
 * Canceled entries report hipFileCanceled through hipFileBatchIOGetStatus; running entries
 * finish normally. The batch stays usable.
 *
 * @param batch_idp a handle from hipFileBatchIOSetUp
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue the batch handle is not known
 */
HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp);

/**
 * Free a batch context.
 *
 * Cancels the entries that have not started, waits for the running ones and for threads waiting
 * in hipFileBatchIOGetStatus or hipFileBatchIOCancel on it, then frees it; events not collected
 * are dropped. A handle that is not known is ignored, with a warning in the log.
 *
 * @param batch_idp a handle from hipFileBatchIOSetUp
 */
HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp);

/**
 * Queue a read on a HIP stream, ordered with the stream's other work.
 *
 * Returns at once. When the stream reaches the operation, a library I/O thread reads *size_p,
 * *file_offset_p and *buffer_offset_p (those that the stream's HIPFILE_STREAM_FIXED_* flags did
 * not fix at submission), moves the data as hipFileRead would and stores the result in
 * *bytes_read_p; work queued on the stream after the operation starts only then. A size of 0 at
 * submission succeeds at once, queuing nothing.
 *
 * @param      fh              a handle from hipFileHandleRegister
 * @param      buffer_base     device memory, registered or not
 * @param      size_p          bytes to read; a size larger when the stream reaches the operation
 *                             than at submission fails the operation
 * @param      file_offset_p   byte offset in the file
 * @param      buffer_offset_p byte offset from @p buffer_base
 * @param[out] bytes_read_p    set to 0 at submission, then to the result: bytes read, -errno
 *                             for a system error, or a negated hipFileOpError_t. This and the
 *                             three pointers above must stay valid until the stream has passed
 *                             the operation
 * @param      stream          the stream, the null stream included
 * @return {hipFileSuccess, hipSuccess} when the operation is queued, or a status whose err is
 *         one of the codes listed, with nothing queued and nothing written to *bytes_read_p
 * @retval hipFileInvalidValue   the driver was not open (it is opened now, AMD's rule), a
 *                               pointer argument is NULL, the buffer is on another GPU than the
 *                               stream, or a value the stream's flags fix is already invalid
 * @retval hipFileHipDriverError the runtime refused to queue the operation (an invalid stream,
 *                               say) or to pin memory for it; hip_drv_err holds its code
 * @retval hipFileInternalError  out of memory for the operation
 */
HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                            hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                            ssize_t *bytes_read_p, hipStream_t stream);

/**
 * Queue a write on a HIP stream, ordered with the stream's other work.
 *
 * The mirror of hipFileReadAsync: the data moves as hipFileWrite would move it, when the stream
 * reaches the operation.
 *
 * @param      fh              a handle from hipFileHandleRegister, of a file opened for writing
 * @param      buffer_base     device memory, registered or not
 * @param      size_p          bytes to write; a size larger when the stream reaches the
 *                             operation than at submission fails the operation
 * @param      file_offset_p   byte offset in the file
 * @param      buffer_offset_p byte offset from @p buffer_base
 * @param[out] bytes_written_p set to 0 at submission, then to the result: bytes written, -errno
 *                             for a system error, or a negated hipFileOpError_t. This and the
 *                             three pointers above must stay valid until the stream has passed
 *                             the operation
 * @param      stream          the stream, the null stream included
 * @return {hipFileSuccess, hipSuccess} when the operation is queued, or a status whose err is
 *         one of the codes listed, with nothing queued and nothing written to *bytes_written_p
 * @retval hipFileInvalidValue   the driver was not open (it is opened now, AMD's rule), a
 *                               pointer argument is NULL, the buffer is on another GPU than the
 *                               stream, or a value the stream's flags fix is already invalid
 * @retval hipFileHipDriverError the runtime refused to queue the operation or to pin memory for
 *                               it; hip_drv_err holds its code
 * @retval hipFileInternalError  out of memory for the operation
 */
HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                             hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                             ssize_t *bytes_written_p, hipStream_t stream);

/**
 * Declare which parameters of a stream's async operations are final at submission.
 *
 * Needs no driver and never calls the runtime: the flags are recorded under the stream's handle
 * value. Deregister the stream before destroying it.
 *
 * @param stream the stream
 * @param flags  HIPFILE_STREAM_* bits, within HIPFILE_STREAM_FLAGS_MASK; 0 fixes nothing
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileInvalidValue  @p flags has bits outside HIPFILE_STREAM_FLAGS_MASK, or the
 *                              stream is registered already
 * @retval hipFileInternalError out of memory
 */
HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags);

/**
 * Remove a stream registration.
 *
 * Operations submitted before keep the values their flags fixed; this call does not wait for
 * them.
 *
 * @param stream a stream given to hipFileStreamRegister
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue the stream is not registered
 */
HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream);

/**
 * The library's version: the HIPFILE_VERSION_* numbers it was built with.
 *
 * Needs no driver, configuration or GPU.
 *
 * @param[out] major receives the major version, unless NULL
 * @param[out] minor receives the minor version, unless NULL
 * @param[out] patch receives the patch version, unless NULL
 * @return {hipFileSuccess, hipSuccess}, always
 */
HIPFILE_API hipFileError_t hipFileGetVersion(unsigned *major, unsigned *minor, unsigned *patch);

/**
 * Read a numeric setting.
 *
 * Gives the value in force: set through this API, else by the environment, else by the
 * configuration file, else the built-in default. The configuration is loaded if nothing has
 * loaded it, so the call works before the driver opens.
 *
 * @param      param which setting; each is one key of the configuration
 * @param[out] value receives the value
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue @p param is not a hipFileSizeTConfigParameter_t value, or
 *                             @p value is NULL
 */
HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t *value);

/**
 * Read an on/off setting, as hipFileGetParameterSizeT reads a numeric one.
 *
 * @param      param which setting
 * @param[out] value receives the value
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue @p param is not a hipFileBoolConfigParameter_t value, or @p value
 *                             is NULL
 */
HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param, bool *value);

/**
 * Copy a text setting, as hipFileGetParameterSizeT reads a numeric one.
 *
 * The log level comes back as its name in lower case ("info"), whatever spelling set it.
 *
 * @param      param    which setting
 * @param[out] desc_str receives the text and its terminating NUL; not touched on failure
 * @param      len      bytes at @p desc_str
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed
 * @retval hipFileInvalidValue @p param is not a hipFileStringConfigParameter_t value,
 *                             @p desc_str is NULL, or @p len is smaller than the text plus its
 *                             NUL (or not positive)
 */
HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param,
                                                     char *desc_str, int len);

/**
 * Change a numeric setting.
 *
 * The value outlives later reloads of the configuration file, so a program may set parameters
 * before it opens the driver. Settings read only at the first driver open
 * (hipFileParamExecutionMaxIOThreads, hipFileParamPropertiesPerBufferCacheSizeKB) can be changed
 * only before it; the others act from the next request on.
 *
 * @param param which setting
 * @param value the new value, in the key's unit (KiB for the *SizeKB settings)
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes
 *         listed, with the setting unchanged
 * @retval hipFileInvalidValue      @p param is not a hipFileSizeTConfigParameter_t value, or
 *                                  @p value is outside the key's range or not a multiple of its
 *                                  granule (the log gives both)
 * @retval hipFileDriverAlreadyOpen the setting is read at the first driver open, which has
 *                                  happened
 */
HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t value);

/**
 * Change an on/off setting, as hipFileSetParameterSizeT changes a numeric one.
 *
 * Every on/off setting may change while the driver is open. hipFileParamPropertiesAllowCompatMode
 * and hipFileParamForceCompatMode are views of one setting, properties.compat_mode: allow false
 * sets "off" and true turns "off" into "allow"; force true sets "force" and false turns "force"
 * into "allow".
 *
 * @param param which setting
 * @param value the new value
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed, with the
 *         setting unchanged
 * @retval hipFileInvalidValue @p param is not a hipFileBoolConfigParameter_t value
 */
HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value);

/**
 * Change a text setting, as hipFileSetParameterSizeT changes a numeric one.
 *
 * @param param    which setting
 * @param desc_str the new text: for the log level "error", "warn", "info" or "debug" (or "0" to
 *                 "3"); for the log file and directory an absolute path, or "" for none
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is the code listed, with the
 *         setting unchanged
 * @retval hipFileInvalidValue @p param is not a hipFileStringConfigParameter_t value,
 *                             @p desc_str is NULL, a level name is not known, a path is
 *                             relative, or the log file cannot be opened
 */
HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param,
                                                     const char *desc_str);

/**
 * Copy a snapshot of the level-1 statistics: process-wide operation and byte counts.
 *
 * Counted while profile.stats (HIPFILE_STATS_LEVEL, hipFileParamProfileStats) is 1 or more,
 * which is the default.
 *
 * @param[out] stats receives the counters
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileInvalidValue  @p stats is NULL
 * @retval hipFileInternalError profile.stats is 0
 */
HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t *stats);

/**
 * Copy a snapshot of the level-2 statistics: level 1 and request-size histograms.
 *
 * @param[out] stats receives the counters
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileInvalidValue  @p stats is NULL
 * @retval hipFileInternalError profile.stats is below 2
 */
HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t *stats);

/**
 * Copy a snapshot of the level-3 statistics: level 2 and per-GPU counters, including how many
 * requests the direct and the compatibility paths served.
 *
 * @param[out] stats receives the counters
 * @return {hipFileSuccess, hipSuccess}, or a status whose err is one of the codes listed
 * @retval hipFileInvalidValue  @p stats is NULL
 * @retval hipFileInternalError profile.stats is below 3
 */
HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t *stats);

#ifdef __cplusplus
}
#endif

#undef __HIPFILE_NODISCARD

#endif /* HIPFILE_H */
