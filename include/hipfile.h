/*
 * hipfile public API: moves data between files and GPU memory.
 *
 * Source-compatible with AMD's hipFile interface: every name, value and struct layout below is part
 * of that contract, so programs written for AMD's header compile and link against this library
 * unchanged. Valid C99 and later, and C++11 and later.
 *
 * Functions that return hipFileError_t report success as {hipFileSuccess, hipSuccess}; a HIP
 * runtime failure as {hipFileHipDriverError, <the hipError_t>}; anything else as {<code>,
 * hipSuccess}. hipFileRead and hipFileWrite return a byte count, -1 with errno set, or a negated
 * hipFileOpError_t (test with IS_HIPFILE_ERR).
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

/** Numeric settings read and written with hipFileGet/SetParameterSizeT. */
typedef enum hipFileSizeTConfigParameter_t {
    hipFileParamProfileStats,                   /**< statistics level */
    hipFileParamExecutionMaxIOQueueDepth,       /**< depth of the internal I/O queue */
    hipFileParamExecutionMaxIOThreads,          /**< number of internal I/O threads */
    hipFileParamExecutionMinIOThresholdSizeKB,  /**< smallest piece a request splits into, KiB */
    hipFileParamExecutionMaxRequestParallelism, /**< most pieces of one request in flight */
    hipFileParamPropertiesMaxDirectIOSizeKB,    /**< largest single direct transfer, KiB */
    hipFileParamPropertiesMaxDeviceCacheSizeKB, /**< total GPU bounce-buffer memory, KiB */
    hipFileParamPropertiesPerBufferCacheSizeKB, /**< size of one bounce buffer, KiB */
    hipFileParamPropertiesMaxDevicePinnedMemSizeKB, /**< cap on pinned GPU memory, KiB */
    hipFileParamPropertiesIOBatchsize,              /**< most entries in one batch */
    hipFileParamPollthresholdSizeKB,                /**< largest polled I/O in poll mode, KiB */
    hipFileParamPropertiesBatchIOTimeoutMs          /**< batch timeout, ms */
} hipFileSizeTConfigParameter_t;

/** On/off settings read and written with hipFileGet/SetParameterBool. */
typedef enum hipFileBoolConfigParameter_t {
    hipFileParamPropertiesUsePollMode,       /**< poll for completions */
    hipFileParamPropertiesAllowCompatMode,   /**< allow the compatibility (POSIX) path */
    hipFileParamForceCompatMode,             /**< send all I/O through the compatibility path */
    hipFileParamFsMiscApiCheckAggressive,    /**< check API arguments more thoroughly */
    hipFileParamExecutionParallelIO,         /**< allow parallel execution of one request */
    hipFileParamProfileNvtx,                 /**< emit profiler range annotations */
    hipFileParamPropertiesAllowSystemMemory, /**< accept host memory buffers */
    hipFileParamUsePcip2pdma,                /**< use the kernel's PCI P2PDMA */
    hipFileParamPreferIOUring,               /**< prefer io_uring for host-side I/O */
    hipFileParamForceOdirectMode,            /**< force O_DIRECT */
    hipFileParamSkipTopologyDetection,       /**< skip PCIe topology discovery */
    hipFileParamStreamMemopsBypass           /**< bypass stream memory operations */
} hipFileBoolConfigParameter_t;

/** Text settings read and written with hipFileGet/SetParameterString. */
typedef enum hipFileStringConfigParameter_t {
    hipFileParamLoggingLevel,   /**< log level */
    hipFileParamEnvLogfilePath, /**< log file path */
    hipFileParamLogDir          /**< log directory */
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

/** What the driver supports and the limits in force (sizes in KiB). */
typedef struct hipFileDriverProps {
    /** The kernel-side I/O path. */
    struct {
        unsigned major_version;        /**< driver version, major part (0 without a direct path) */
        unsigned minor_version;        /**< driver version, minor part */
        uint64_t poll_thresh_size;     /**< largest I/O that is polled in poll mode, KiB */
        uint64_t max_direct_io_size;   /**< largest single direct transfer, KiB */
        unsigned driver_status_flags;  /**< bits at hipFileDriverStatusFlags_t positions */
        unsigned driver_control_flags; /**< bits at hipFileDriverControlFlags_t positions */
    } nvfs;
    unsigned feature_flags;              /**< bits at hipFileFeatureFlags_t positions */
    uint64_t max_device_cache_size;      /**< total GPU bounce-buffer memory, KiB */
    uint64_t per_buffer_cache_size;      /**< size of one bounce buffer, KiB */
    uint64_t max_device_pinned_mem_size; /**< cap on pinned GPU memory, KiB */
    unsigned max_batch_io_count;         /**< most entries one batch may hold */
    unsigned max_batch_io_timeout_msecs; /**< batch completion timeout, ms */
} hipFileDriverProps_t;

/** Description of an RDMA transfer, passed to user-space filesystem callbacks. */
typedef struct hipFileRDMAInfo {
    int version;          /**< format version of desc_str */
    int desc_len;         /**< length of desc_str */
    const char *desc_str; /**< the descriptor text */
} hipFileRDMAInfo_t;

/** Callbacks of a user-space filesystem (hipFileHandleTypeUserspaceFS; not supported here). */
typedef struct hipFileFSOps {
    /** Name of the filesystem. */
    const char *(*fs_type)(void *handle);
    /** Fill *hostaddrs with the RDMA devices the filesystem uses; returns their count. */
    int (*getRDMADeviceList)(void *handle, struct sockaddr **hostaddrs);
    /** Priority of the RDMA device at @p hostaddr for the given buffer, size and offset. */
    int (*getRDMADevicePriority)(void *handle, char *, size_t, hoff_t, struct sockaddr *hostaddr);
    /** Read into a buffer; returns bytes read or a negative error. */
    ssize_t (*read)(void *handle, char *, size_t, hoff_t, hipFileRDMAInfo_t *);
    /** Write from a buffer; returns bytes written or a negative error. */
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

/** Message for @p status; never NULL, "unknown hipFile error" for values that are not codes. */
HIPFILE_API const char *hipFileGetOpErrorString(hipFileOpError_t status);

/** Register the open file @p descr and store its handle in *fh; opens the driver if needed. */
HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t *fh, hipFileDescr_t *descr);

/** Release a registered file; never closes the caller's descriptor. NULL is ignored. */
HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh);

/** Register @p length bytes of GPU memory at @p buffer_base for repeated I/O. */
HIPFILE_API hipFileError_t hipFileBufRegister(const void *buffer_base, size_t length, int flags);

/** Remove the buffer registration whose base is exactly @p buffer_base. */
HIPFILE_API hipFileError_t hipFileBufDeregister(const void *buffer_base);

/** Read @p size bytes at @p file_offset into buffer_base + buffer_offset; returns bytes read. */
HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void *buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset);

/** Write @p size bytes from buffer_base + buffer_offset to @p file_offset; the mirror of read. */
HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void *buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset);

/** Take a reference on the driver, setting it up on first use. */
HIPFILE_API hipFileError_t hipFileDriverOpen(void);

/** Drop a reference; at zero every file and buffer registration is released. */
HIPFILE_API hipFileError_t hipFileDriverClose(void);

/** Current driver reference count, or -1 on an internal error. */
HIPFILE_API int64_t hipFileUseCount(void);

/** Fill *props with the driver's capabilities and the limits in force. */
HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t *props);

/** Turn poll mode on or off; I/O up to @p poll_threshold_size KiB is polled. */
HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size);

/** Set the largest single direct transfer, in KiB. */
HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);

/** Set the total GPU bounce-buffer memory, in KiB. */
HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size);

/** Set the cap on pinned GPU memory, in KiB. */
HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);

/** Create a batch context for up to @p max_nr outstanding entries (1..128). */
HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t *batch_idp, unsigned max_nr);

/** Queue @p nr entries on a batch, all or none; @p flags is unused. */
HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t *iocbp, unsigned flags);

/**
 * Wait until @p min_nr entries are finished or @p timeout passes (NULL: forever), then collect up
 * to *nr events into @p iocbp and store how many in *nr.
 */
HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned *nr, hipFileIOEvents_t *iocbp,
                                                   struct timespec *timeout);

/** Cancel the entries of a batch that have not started and wait for the running ones. */
HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp);

/** Cancel what is outstanding on a batch, then free it. */
HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp);

/**
 * Queue a read on @p stream. Sizes and offsets are read when the stream reaches the operation
 * (unless fixed by stream flags); the result lands in *bytes_read_p.
 */
HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                            hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                            ssize_t *bytes_read_p, hipStream_t stream);

/** Queue a write on @p stream; the mirror of hipFileReadAsync. */
HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                             hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                             ssize_t *bytes_written_p, hipStream_t stream);

/** Register @p stream with HIPFILE_STREAM_* @p flags. */
HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags);

/** Remove a stream registration. */
HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream);

/** Store the library version in each non-NULL pointer; always succeeds. */
HIPFILE_API hipFileError_t hipFileGetVersion(unsigned *major, unsigned *minor, unsigned *patch);

/** Read the numeric setting @p param into *value. */
HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t *value);

/** Read the on/off setting @p param into *value. */
HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param, bool *value);

/** Copy the text setting @p param into @p desc_str, which holds @p len bytes. */
HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param,
                                                     char *desc_str, int len);

/** Change the numeric setting @p param. */
HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t value);

/** Change the on/off setting @p param. */
HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value);

/** Change the text setting @p param. */
HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param,
                                                     const char *desc_str);

/** Copy a snapshot of the level-1 statistics into *stats. */
HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t *stats);

/** Copy a snapshot of the level-2 statistics into *stats. */
HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t *stats);

/** Copy a snapshot of the level-3 statistics into *stats. */
HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t *stats);

#ifdef __cplusplus
}
#endif

#undef __HIPFILE_NODISCARD

#endif /* HIPFILE_H */
