/*
 * The cuFile API as hipfile's compatibility library (libcufile.so.0) provides it.
 *
 * Declares the cuFile interface of cuFile 1.15 (CUDA 13.0) with the names, values, struct layouts
 * and signatures of NVIDIA's published API reference, so a program written against NVIDIA's
 * cufile.h compiles against this header, and a program built against either runs on either
 * library. Written from the public documentation; valid C99 and later, and C++11 and later.
 *
 * CUresult and CUstream come from <cuda.h> when the compiler can find it; otherwise this header
 * declares the two types itself with the same ABI (define HIPFILE_CUFILE_NO_CUDA_H to force that).
 */
#ifndef HIPFILE_CUFILE_H
#define HIPFILE_CUFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#if !defined(HIPFILE_CUFILE_NO_CUDA_H) && defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CUDA_VERSION
/**
 * Status of a CUDA driver call; 0 (CUDA_SUCCESS) is success. Same ABI as <cuda.h>'s. Only the
 * two ends are named here, but the enum holds every CUDA result: its range must reach 999, or a
 * C++ program loading, say, CUDA_ERROR_OUT_OF_MEMORY (2) from it would be undefined behaviour.
 */
typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,        /**< the call succeeded */
    CUDA_ERROR_UNKNOWN = 999 /**< the largest CUDA result */
} CUresult;
/** A CUDA stream; NULL is the legacy default stream. Same ABI as <cuda.h>'s. */
typedef struct CUstream_st *CUstream;
#endif

/* Strict C99 modes of glibc's <time.h> leave struct timespec undeclared; declare the tag. */
struct timespec;

/** Base of the cuFile status codes: every error is CUFILEOP_BASE_ERR plus a small number. */
#define CUFILEOP_BASE_ERR 5000

/** cuFile status codes. 5021 and 5032 are unused. */
typedef enum CUfileOpError {
    CU_FILE_SUCCESS = 0,                                          /**< success */
    CU_FILE_DRIVER_NOT_INITIALIZED = CUFILEOP_BASE_ERR + 1,       /**< driver not open */
    CU_FILE_DRIVER_INVALID_PROPS = CUFILEOP_BASE_ERR + 2,         /**< invalid driver property */
    CU_FILE_DRIVER_UNSUPPORTED_LIMIT = CUFILEOP_BASE_ERR + 3,     /**< property value refused */
    CU_FILE_DRIVER_VERSION_MISMATCH = CUFILEOP_BASE_ERR + 4,      /**< library/driver versions */
    CU_FILE_DRIVER_VERSION_READ_ERROR = CUFILEOP_BASE_ERR + 5,    /**< driver version unreadable */
    CU_FILE_DRIVER_CLOSING = CUFILEOP_BASE_ERR + 6,               /**< driver is closing */
    CU_FILE_PLATFORM_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 7,       /**< not supported here */
    CU_FILE_IO_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 8,             /**< file not supported */
    CU_FILE_DEVICE_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 9,         /**< GPU not supported */
    CU_FILE_NVFS_DRIVER_ERROR = CUFILEOP_BASE_ERR + 10,           /**< kernel driver error */
    CU_FILE_CUDA_DRIVER_ERROR = CUFILEOP_BASE_ERR + 11,           /**< CUDA error, see cu_err */
    CU_FILE_CUDA_POINTER_INVALID = CUFILEOP_BASE_ERR + 12,        /**< invalid device pointer */
    CU_FILE_CUDA_MEMORY_TYPE_INVALID = CUFILEOP_BASE_ERR + 13,    /**< unusable memory type */
    CU_FILE_CUDA_POINTER_RANGE_ERROR = CUFILEOP_BASE_ERR + 14,    /**< range past allocation */
    CU_FILE_CUDA_CONTEXT_MISMATCH = CUFILEOP_BASE_ERR + 15,       /**< wrong CUDA context */
    CU_FILE_INVALID_MAPPING_SIZE = CUFILEOP_BASE_ERR + 16,        /**< beyond pinned buffer */
    CU_FILE_INVALID_MAPPING_RANGE = CUFILEOP_BASE_ERR + 17,       /**< beyond mapped region */
    CU_FILE_INVALID_FILE_TYPE = CUFILEOP_BASE_ERR + 18,           /**< file type refused */
    CU_FILE_INVALID_FILE_OPEN_FLAG = CUFILEOP_BASE_ERR + 19,      /**< open flags refused */
    CU_FILE_DIO_NOT_SET = CUFILEOP_BASE_ERR + 20,                 /**< O_DIRECT missing */
    CU_FILE_INVALID_VALUE = CUFILEOP_BASE_ERR + 22,               /**< invalid argument */
    CU_FILE_MEMORY_ALREADY_REGISTERED = CUFILEOP_BASE_ERR + 23,   /**< buffer registered */
    CU_FILE_MEMORY_NOT_REGISTERED = CUFILEOP_BASE_ERR + 24,       /**< buffer not registered */
    CU_FILE_PERMISSION_DENIED = CUFILEOP_BASE_ERR + 25,           /**< permission denied */
    CU_FILE_DRIVER_ALREADY_OPEN = CUFILEOP_BASE_ERR + 26,         /**< driver already open */
    CU_FILE_HANDLE_NOT_REGISTERED = CUFILEOP_BASE_ERR + 27,       /**< file not registered */
    CU_FILE_HANDLE_ALREADY_REGISTERED = CUFILEOP_BASE_ERR + 28,   /**< file registered */
    CU_FILE_DEVICE_NOT_FOUND = CUFILEOP_BASE_ERR + 29,            /**< device not found */
    CU_FILE_INTERNAL_ERROR = CUFILEOP_BASE_ERR + 30,              /**< internal error */
    CU_FILE_GETNEWFD_FAILED = CUFILEOP_BASE_ERR + 31,             /**< no new descriptor */
    CU_FILE_NVFS_SETUP_ERROR = CUFILEOP_BASE_ERR + 33,            /**< driver setup failed */
    CU_FILE_IO_DISABLED = CUFILEOP_BASE_ERR + 34,                 /**< I/O disabled by config */
    CU_FILE_BATCH_SUBMIT_FAILED = CUFILEOP_BASE_ERR + 35,         /**< batch submit failed */
    CU_FILE_GPU_MEMORY_PINNING_FAILED = CUFILEOP_BASE_ERR + 36,   /**< pinning failed */
    CU_FILE_BATCH_FULL = CUFILEOP_BASE_ERR + 37,                  /**< batch queue full */
    CU_FILE_ASYNC_NOT_SUPPORTED = CUFILEOP_BASE_ERR + 38,         /**< async I/O refused */
    CU_FILE_INTERNAL_BATCH_SETUP_ERROR = CUFILEOP_BASE_ERR + 39,  /**< batch setup failed */
    CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR = CUFILEOP_BASE_ERR + 40, /**< batch submit failed */
    CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR = CUFILEOP_BASE_ERR + 41, /**< batch status failed */
    CU_FILE_INTERNAL_BATCH_CANCEL_ERROR = CUFILEOP_BASE_ERR + 42,    /**< batch cancel failed */
    CU_FILE_NOMEM_ERROR = CUFILEOP_BASE_ERR + 43,                    /**< out of memory */
    CU_FILE_IO_ERROR = CUFILEOP_BASE_ERR + 44,                       /**< I/O error */
    CU_FILE_INTERNAL_BUF_REGISTER_ERROR = CUFILEOP_BASE_ERR + 45,    /**< buffer setup failed */
    CU_FILE_HASH_OPR_ERROR = CUFILEOP_BASE_ERR + 46,                 /**< internal table error */
    CU_FILE_INVALID_CONTEXT_ERROR = CUFILEOP_BASE_ERR + 47,          /**< invalid CUDA context */
    CU_FILE_NVFS_INTERNAL_DRIVER_ERROR = CUFILEOP_BASE_ERR + 48,     /**< kernel driver error */
    CU_FILE_BATCH_NOCOMPAT_ERROR = CUFILEOP_BASE_ERR + 49, /**< batch needs the direct path */
    CU_FILE_IO_MAX_ERROR = CUFILEOP_BASE_ERR + 50          /**< highest code; never returned */
} CUfileOpError;

/** Status of a cuFile call: cuFile's code, and the CUDA result when err is CUDA_DRIVER_ERROR. */
typedef struct CUfileError {
    CUfileOpError err; /**< cuFile status */
    CUresult cu_err;   /**< CUDA driver status; CUDA_SUCCESS unless err is a CUDA error */
} CUfileError_t;

/*
 * The two macros below take a CUfileOpError or a read/write result (ssize_t). They widen to long
 * long first, so an enum (unsigned in C) or a 64-bit result is measured without warning or
 * truncation.
 */
/** True for a cuFile error code, positive or negated (the read/write return convention). */
#define IS_CUFILE_ERR(err) (llabs((long long)(err)) > CUFILEOP_BASE_ERR)
/** Message for a cuFile code, positive or negated. */
#define CUFILE_ERRSTR(err) cufileop_status_error((CUfileOpError)llabs((long long)(err)))
/** True when a CUfileError_t carries a CUDA driver error. */
#define IS_CUDA_ERR(status) ((status).err == CU_FILE_CUDA_DRIVER_ERROR)
/** The CUDA driver error a CUfileError_t carries. */
#define CU_FILE_CUDA_ERR(status) ((status).cu_err)

/** Bit positions in CUfileDrvProps_t.nvfs.dstatusflags: storage kinds with a direct path. */
typedef enum CUfileDriverStatusFlags {
    CU_FILE_LUSTRE_SUPPORTED = 0,        /**< Lustre */
    CU_FILE_WEKAFS_SUPPORTED = 1,        /**< WekaFS */
    CU_FILE_NFS_SUPPORTED = 2,           /**< NFS */
    CU_FILE_GPFS_SUPPORTED = 3,          /**< GPFS */
    CU_FILE_NVME_SUPPORTED = 4,          /**< local NVMe */
    CU_FILE_NVMEOF_SUPPORTED = 5,        /**< NVMe over Fabrics */
    CU_FILE_SCSI_SUPPORTED = 6,          /**< SCSI */
    CU_FILE_SCALEFLUX_CSD_SUPPORTED = 7, /**< ScaleFlux CSD */
    CU_FILE_NVMESH_SUPPORTED = 8,        /**< NVMesh */
    CU_FILE_BEEGFS_SUPPORTED = 9,        /**< BeeGFS */
    CU_FILE_NVME_P2P_SUPPORTED = 11,     /**< NVMe peer-to-peer */
    CU_FILE_SCATEFS_SUPPORTED = 12,      /**< ScateFS */
    CU_FILE_VIRTIOFS_SUPPORTED = 13,     /**< virtiofs */
    CU_FILE_MAX_TARGET_TYPES = 14        /**< one past the last kind */
} CUfileDriverStatusFlags_t;

/** Peer-to-peer mechanisms, as bit positions of cuFileDriverSetP2PFlags' mask (cuFile 1.16). */
typedef enum CUfileP2PFlags {
    CUFILE_P2PDMA = 0,        /**< the kernel's PCI P2PDMA */
    CUFILE_NVFS = 1,          /**< the nvidia-fs driver */
    CUFILE_DMABUF = 2,        /**< DMA buffers */
    CUFILE_C2C = 3,           /**< chip to chip (Grace systems) */
    CUFILE_NVIDIA_PEERMEM = 4 /**< nvidia-peermem (Spectrum Scale, WekaFS) */
} CUfileP2PFlags_t;

/** cuFileDriverSetP2PFlags mask bit: the kernel's PCI P2PDMA (x86_64). */
#define CU_FILE_P2P_FLAG_PCI_P2PDMA ((CUfileP2PFlags_t)(1 << CUFILE_P2PDMA))
/** Mask bit of nvidia-fs; the driver manages it, it cannot be set. */
#define CU_FILE_P2P_FLAG_NVFS ((CUfileP2PFlags_t)(1 << CUFILE_NVFS))
/** Mask bit of DMA buffers; the driver manages it, it cannot be set. */
#define CU_FILE_P2P_FLAG_DMABUF ((CUfileP2PFlags_t)(1 << CUFILE_DMABUF))
/** cuFileDriverSetP2PFlags mask bit: chip to chip (aarch64). */
#define CU_FILE_P2P_FLAG_C2C ((CUfileP2PFlags_t)(1 << CUFILE_C2C))

/** One memory range of cuFileReadv/cuFileWritev (cuFile 1.19). */
typedef struct CUfileIOVec {
    void *base; /**< device or host memory */
    size_t len; /**< bytes */
} CUfileIOVec_t;

/** Bit positions in CUfileDrvProps_t.nvfs.dcontrolflags. */
typedef enum CUfileDriverControlFlags {
    CU_FILE_USE_POLL_MODE = 0,    /**< completions are polled */
    CU_FILE_ALLOW_COMPAT_MODE = 1 /**< I/O may use the compatibility path */
} CUfileDriverControlFlags_t;

/** Bit positions in CUfileDrvProps_t.fflags. */
typedef enum CUfileFeatureFlags {
    CU_FILE_DYN_ROUTING_SUPPORTED = 0, /**< dynamic routing */
    CU_FILE_BATCH_IO_SUPPORTED = 1,    /**< batch API */
    CU_FILE_STREAMS_SUPPORTED = 2,     /**< stream-ordered API */
    CU_FILE_PARALLEL_IO_SUPPORTED = 3  /**< internal parallel I/O */
} CUfileFeatureFlags_t;

/** Driver properties and limits (sizes in KiB). */
typedef struct CUfileDrvProps {
    /** The kernel-side I/O path. */
    struct {
        unsigned int major_version; /**< direct-path driver version, major (0: none) */
        unsigned int minor_version; /**< direct-path driver version, minor */
        size_t poll_thresh_size;    /**< largest polled I/O in poll mode, KiB */
        size_t max_direct_io_size;  /**< largest single direct transfer, KiB */
        unsigned int dstatusflags;  /**< bits at CUfileDriverStatusFlags_t positions */
        unsigned int dcontrolflags; /**< bits at CUfileDriverControlFlags_t positions */
    } nvfs;
    unsigned int fflags;                     /**< bits at CUfileFeatureFlags_t positions */
    unsigned int max_device_cache_size;      /**< GPU bounce-buffer memory, KiB */
    unsigned int per_buffer_cache_size;      /**< one bounce buffer, KiB */
    unsigned int max_device_pinned_mem_size; /**< cap on pinned GPU memory, KiB */
    unsigned int max_batch_io_size;          /**< most entries in one batch */
    unsigned int max_batch_io_timeout_msecs; /**< batch timeout, ms */
} CUfileDrvProps_t;

/** struct sockaddr under the name the file system callbacks use. */
typedef struct sockaddr sockaddr_t;

/** Description of an RDMA transfer for user-space file system callbacks. */
typedef struct cufileRDMAInfo {
    int version;          /**< format version of desc_str */
    int desc_len;         /**< length of desc_str */
    const char *desc_str; /**< the descriptor */
} cufileRDMAInfo_t;

/** cuFileBufRegister flag: register the buffer for RDMA. */
#define CU_FILE_RDMA_REGISTER 1
/** cuFileBufRegister flag: allow PCIe relaxed ordering. */
#define CU_FILE_RDMA_RELAXED_ORDERING (1 << 1)

/** Callbacks of a user-space file system (CU_FILE_HANDLE_TYPE_USERSPACE_FS). */
typedef struct CUfileFSOps {
    /** Name of the file system. */
    const char *(*fs_type)(void *handle);
    /** Fill *hostaddrs with the RDMA devices in use; returns their count. */
    int (*getRDMADeviceList)(void *handle, sockaddr_t **hostaddrs);
    /** Priority of the RDMA device at hostaddr for a transfer. */
    int (*getRDMADevicePriority)(void *handle, char *, size_t, __loff_t, sockaddr_t *hostaddr);
    /** Read; returns bytes or a negative error. */
    ssize_t (*read)(void *handle, char *, size_t, __loff_t, cufileRDMAInfo_t *);
    /** Write; returns bytes or a negative error. */
    ssize_t (*write)(void *handle, const char *, size_t, __loff_t, cufileRDMAInfo_t *);
} CUfileFSOps_t;

/** Which member of CUfileDescr_t.handle is valid. */
enum CUfileFileHandleType {
    CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1,    /**< POSIX file descriptor */
    CU_FILE_HANDLE_TYPE_OPAQUE_WIN32 = 2, /**< Windows HANDLE */
    CU_FILE_HANDLE_TYPE_USERSPACE_FS = 3  /**< user-space file system through fs_ops */
};

/** An open file to register with cuFileHandleRegister. */
typedef struct CUfileDescr_t {
    enum CUfileFileHandleType type; /**< which member of handle is valid */
    /** The file. */
    union {
        int fd;       /**< POSIX file descriptor */
        void *handle; /**< Windows HANDLE */
    } handle;
    const CUfileFSOps_t *fs_ops; /**< callbacks for CU_FILE_HANDLE_TYPE_USERSPACE_FS */
} CUfileDescr_t;

/** A registered file. */
typedef void *CUfileHandle_t;
/** A batch context. */
typedef void *CUfileBatchHandle_t;

/** Batch entry direction. */
typedef enum CUfileOpcode {
    CUFILE_READ = 0, /**< file to GPU memory */
    CUFILE_WRITE = 1 /**< GPU memory to file */
} CUfileOpcode_t;

/** State of a batch entry (distinct bits). */
typedef enum CUFILEStatus_enum {
    CUFILE_WAITING = 0x000001,  /**< submitted, not yet accepted */
    CUFILE_PENDING = 0x000002,  /**< queued */
    CUFILE_INVALID = 0x000004,  /**< rejected */
    CUFILE_CANCELED = 0x000008, /**< cancelled */
    CUFILE_COMPLETE = 0x000010, /**< finished */
    CUFILE_TIMEOUT = 0x000020,  /**< timed out */
    CUFILE_FAILED = 0x000040    /**< finished with an error */
} CUfileStatus_t;

/** Kind of a batch entry. */
typedef enum cufileBatchMode {
    CUFILE_BATCH = 1 /**< an ordinary entry */
} CUfileBatchMode_t;

/** One batch entry. */
typedef struct CUfileIOParams {
    CUfileBatchMode_t mode; /**< CUFILE_BATCH */
    /** The transfer. */
    union {
        /** Buffer, offsets and size. */
        struct {
            void *devPtr_base;   /**< base of the GPU buffer */
            off_t file_offset;   /**< byte offset in the file */
            off_t devPtr_offset; /**< byte offset from devPtr_base */
            size_t size;         /**< bytes to move */
        } batch;
    } u;
    CUfileHandle_t fh;     /**< the registered file */
    CUfileOpcode_t opcode; /**< read or write */
    void *cookie;          /**< returned in the entry's event */
} CUfileIOParams_t;

/** Completion of one batch entry. */
typedef struct CUfileIOEvents {
    void *cookie;          /**< the entry's cookie */
    CUfileStatus_t status; /**< final state */
    size_t ret;            /**< bytes moved, or a negative result (read as ssize_t) */
} CUfileIOEvents_t;

/** cuFileStreamRegister flag: the buffer offset is read at submission. */
#define CU_FILE_STREAM_FIXED_BUF_OFFSET 1
/** cuFileStreamRegister flag: the file offset is read at submission. */
#define CU_FILE_STREAM_FIXED_FILE_OFFSET 2
/** cuFileStreamRegister flag: the size is read at submission. */
#define CU_FILE_STREAM_FIXED_FILE_SIZE 4
/** cuFileStreamRegister flag: sizes and offsets are page aligned. */
#define CU_FILE_STREAM_PAGE_ALIGNED_INPUTS 8

/** Numeric settings (declaration order is the value). */
typedef enum CUFileSizeTConfigParameter_t {
    CUFILE_PARAM_PROFILE_STATS,                            /**< statistics level */
    CUFILE_PARAM_EXECUTION_MAX_IO_QUEUE_DEPTH,             /**< I/O queue depth */
    CUFILE_PARAM_EXECUTION_MAX_IO_THREADS,                 /**< I/O threads */
    CUFILE_PARAM_EXECUTION_MIN_IO_THRESHOLD_SIZE_KB,       /**< smallest split piece, KiB */
    CUFILE_PARAM_EXECUTION_MAX_REQUEST_PARALLELISM,        /**< pieces in flight per request */
    CUFILE_PARAM_PROPERTIES_MAX_DIRECT_IO_SIZE_KB,         /**< largest direct transfer, KiB */
    CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB,      /**< bounce memory, KiB */
    CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB,      /**< one bounce buffer, KiB */
    CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB, /**< pinned GPU memory cap, KiB */
    CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE,                  /**< most entries in a batch */
    CUFILE_PARAM_POLLTHRESHOLD_SIZE_KB,                    /**< largest polled I/O, KiB */
    CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS            /**< batch timeout, ms */
} CUFileSizeTConfigParameter_t;

/** On/off settings (declaration order is the value). */
typedef enum CUFileBoolConfigParameter_t {
    CUFILE_PARAM_PROPERTIES_USE_POLL_MODE,       /**< poll for completions */
    CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE,   /**< allow the compatibility path */
    CUFILE_PARAM_FORCE_COMPAT_MODE,              /**< always use the compatibility path */
    CUFILE_PARAM_FS_MISC_API_CHECK_AGGRESSIVE,   /**< extra argument checks */
    CUFILE_PARAM_EXECUTION_PARALLEL_IO,          /**< split requests internally */
    CUFILE_PARAM_PROFILE_NVTX,                   /**< profiler annotations */
    CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY, /**< accept host memory buffers */
    CUFILE_PARAM_USE_PCIP2PDMA,                  /**< use kernel PCI P2PDMA */
    CUFILE_PARAM_PREFER_IO_URING,                /**< prefer io_uring */
    CUFILE_PARAM_FORCE_ODIRECT_MODE,             /**< force O_DIRECT */
    CUFILE_PARAM_SKIP_TOPOLOGY_DETECTION,        /**< skip PCIe topology discovery */
    CUFILE_PARAM_STREAM_MEMOPS_BYPASS            /**< no stream memory operations */
} CUFileBoolConfigParameter_t;

/** Text settings (declaration order is the value). */
typedef enum CUFileStringConfigParameter_t {
    CUFILE_PARAM_LOGGING_LEVEL,    /**< log level */
    CUFILE_PARAM_ENV_LOGFILE_PATH, /**< log file */
    CUFILE_PARAM_LOG_DIR           /**< log directory */
} CUFileStringConfigParameter_t;

/** Array settings of the POSIX bounce pool (declaration order is the value). */
typedef enum CUFileArrayConfigParameter_t {
    CUFILE_PARAM_POSIX_POOL_SLAB_SIZE_KB, /**< slab sizes, KiB */
    CUFILE_PARAM_POSIX_POOL_SLAB_COUNT    /**< slab counts */
} CUFileArrayConfigParameter_t;

/** Number of per-GPU entries in CUfileStatsLevel3_t. */
#define CUFILE_MAX_GPUS 16
/** Bytes in CUfilePerGpuStats_t.uuid. */
#define CUFILE_GPU_UUID_LEN 16

/** A pair of operation counts. */
typedef struct CUfileOpCounter {
    uint64_t ok;  /**< succeeded */
    uint64_t err; /**< failed */
} CUfileOpCounter_t;

/** Level-1 statistics (latencies in microseconds, rates per second). */
typedef struct CUfileStatsLevel1 {
    CUfileOpCounter_t read_ops;                  /**< cuFileRead calls */
    CUfileOpCounter_t write_ops;                 /**< cuFileWrite calls */
    CUfileOpCounter_t hdl_register_ops;          /**< file registrations */
    CUfileOpCounter_t hdl_deregister_ops;        /**< file deregistrations */
    CUfileOpCounter_t buf_register_ops;          /**< buffer registrations */
    CUfileOpCounter_t buf_deregister_ops;        /**< buffer deregistrations */
    uint64_t read_bytes;                         /**< bytes read */
    uint64_t write_bytes;                        /**< bytes written */
    uint64_t read_bw_bytes_per_sec;              /**< read bandwidth */
    uint64_t write_bw_bytes_per_sec;             /**< write bandwidth */
    uint64_t read_lat_avg_us;                    /**< mean read latency */
    uint64_t write_lat_avg_us;                   /**< mean write latency */
    uint64_t read_ops_per_sec;                   /**< read rate */
    uint64_t write_ops_per_sec;                  /**< write rate */
    uint64_t read_lat_sum_us;                    /**< summed read latency */
    uint64_t write_lat_sum_us;                   /**< summed write latency */
    CUfileOpCounter_t batch_submit_ops;          /**< batch submissions */
    CUfileOpCounter_t batch_complete_ops;        /**< batch entries completed */
    CUfileOpCounter_t batch_setup_ops;           /**< batch set-ups */
    CUfileOpCounter_t batch_cancel_ops;          /**< batch cancels */
    CUfileOpCounter_t batch_destroy_ops;         /**< batch destroys */
    CUfileOpCounter_t batch_enqueued_ops;        /**< entries queued */
    CUfileOpCounter_t batch_posix_enqueued_ops;  /**< entries queued for POSIX I/O */
    CUfileOpCounter_t batch_processed_ops;       /**< entries processed */
    CUfileOpCounter_t batch_posix_processed_ops; /**< entries processed with POSIX I/O */
    CUfileOpCounter_t batch_nvfs_submit_ops;     /**< entries on the direct path */
    CUfileOpCounter_t batch_p2p_submit_ops;      /**< entries through P2P */
    CUfileOpCounter_t batch_aio_submit_ops;      /**< entries through AIO */
    CUfileOpCounter_t batch_iouring_submit_ops;  /**< entries through io_uring */
    CUfileOpCounter_t batch_mixed_io_submit_ops; /**< submissions mixing paths */
    CUfileOpCounter_t batch_total_submit_ops;    /**< all submissions */
    uint64_t batch_read_bytes;                   /**< bytes read by batches */
    uint64_t batch_write_bytes;                  /**< bytes written by batches */
    uint64_t batch_read_bw_bytes;                /**< batch read bandwidth */
    uint64_t batch_write_bw_bytes;               /**< batch write bandwidth */
    uint64_t batch_submit_lat_avg_us;            /**< mean submission latency */
    uint64_t batch_completion_lat_avg_us;        /**< mean completion latency */
    uint64_t batch_submit_ops_per_sec;           /**< submission rate */
    uint64_t batch_complete_ops_per_sec;         /**< completion rate */
    uint64_t batch_submit_lat_sum_us;            /**< summed submission latency */
    uint64_t batch_completion_lat_sum_us;        /**< summed completion latency */
    uint64_t last_batch_read_bytes;              /**< bytes read by the last batch */
    uint64_t last_batch_write_bytes;             /**< bytes written by the last batch */
} CUfileStatsLevel1_t;

/** Level-2 statistics: level 1 plus size histograms. */
typedef struct CUfileStatsLevel2 {
    CUfileStatsLevel1_t basic;       /**< level-1 block */
    uint64_t read_size_kb_hist[32];  /**< read sizes, KiB buckets */
    uint64_t write_size_kb_hist[32]; /**< write sizes, KiB buckets */
} CUfileStatsLevel2_t;

/** Statistics of one GPU. */
typedef struct CUfilePerGpuStats {
    char uuid[CUFILE_GPU_UUID_LEN];  /**< GPU identifier */
    uint64_t read_bytes;             /**< bytes read */
    uint64_t read_bw_bytes_per_sec;  /**< read bandwidth */
    uint64_t read_utilization;       /**< read utilisation */
    uint64_t read_duration_us;       /**< time spent reading */
    uint64_t n_total_reads;          /**< reads */
    uint64_t n_p2p_reads;            /**< P2P reads */
    uint64_t n_nvfs_reads;           /**< direct-path reads */
    uint64_t n_posix_reads;          /**< compatibility-path reads */
    uint64_t n_unaligned_reads;      /**< unaligned reads */
    uint64_t n_dr_reads;             /**< dynamic-routing reads */
    uint64_t n_sparse_regions;       /**< sparse regions read */
    uint64_t n_inline_regions;       /**< inline regions read */
    uint64_t n_reads_err;            /**< failed reads */
    uint64_t writes_bytes;           /**< bytes written */
    uint64_t write_bw_bytes_per_sec; /**< write bandwidth */
    uint64_t write_utilization;      /**< write utilisation */
    uint64_t write_duration_us;      /**< time spent writing */
    uint64_t n_total_writes;         /**< writes */
    uint64_t n_p2p_writes;           /**< P2P writes */
    uint64_t n_nvfs_writes;          /**< direct-path writes */
    uint64_t n_posix_writes;         /**< compatibility-path writes */
    uint64_t n_unaligned_writes;     /**< unaligned writes */
    uint64_t n_dr_writes;            /**< dynamic-routing writes */
    uint64_t n_writes_err;           /**< failed writes */
    uint64_t n_mmap;                 /**< buffer registrations */
    uint64_t n_mmap_ok;              /**< successful registrations */
    uint64_t n_mmap_err;             /**< failed registrations */
    uint64_t n_mmap_free;            /**< deregistrations */
    uint64_t reg_bytes;              /**< bytes registered */
} CUfilePerGpuStats_t;

/** Level-3 statistics: level 2 plus one block per GPU. */
typedef struct CUfileStatsLevel3 {
    CUfileStatsLevel2_t detailed;                       /**< level-2 block */
    uint32_t num_gpus;                                  /**< valid per_gpu_stats entries */
    CUfilePerGpuStats_t per_gpu_stats[CUFILE_MAX_GPUS]; /**< per GPU index */
} CUfileStatsLevel3_t;

/** Message for a cuFile status code; never NULL. Defined here, as in NVIDIA's header. */
static inline const char *cufileop_status_error(CUfileOpError status)
{
    switch (status) {
    case CU_FILE_SUCCESS:
        return "cufile success";
    case CU_FILE_DRIVER_NOT_INITIALIZED:
        return "driver not open";
    case CU_FILE_DRIVER_INVALID_PROPS:
        return "invalid driver property";
    case CU_FILE_DRIVER_UNSUPPORTED_LIMIT:
        return "driver property value not supported";
    case CU_FILE_DRIVER_VERSION_MISMATCH:
        return "library and driver versions differ";
    case CU_FILE_DRIVER_VERSION_READ_ERROR:
        return "driver version unreadable";
    case CU_FILE_DRIVER_CLOSING:
        return "driver is closing";
    case CU_FILE_PLATFORM_NOT_SUPPORTED:
        return "not supported on this platform";
    case CU_FILE_IO_NOT_SUPPORTED:
        return "GPU I/O not supported for this file";
    case CU_FILE_DEVICE_NOT_SUPPORTED:
        return "GPU not supported";
    case CU_FILE_NVFS_DRIVER_ERROR:
        return "I/O driver error";
    case CU_FILE_CUDA_DRIVER_ERROR:
        return "CUDA driver error";
    case CU_FILE_CUDA_POINTER_INVALID:
        return "invalid device pointer";
    case CU_FILE_CUDA_MEMORY_TYPE_INVALID:
        return "memory type not usable";
    case CU_FILE_CUDA_POINTER_RANGE_ERROR:
        return "range extends past the allocation";
    case CU_FILE_CUDA_CONTEXT_MISMATCH:
        return "CUDA context mismatch";
    case CU_FILE_INVALID_MAPPING_SIZE:
        return "access beyond the pinned buffer";
    case CU_FILE_INVALID_MAPPING_RANGE:
        return "access beyond the mapped region";
    case CU_FILE_INVALID_FILE_TYPE:
        return "file type not supported";
    case CU_FILE_INVALID_FILE_OPEN_FLAG:
        return "file open flags not supported";
    case CU_FILE_DIO_NOT_SET:
        return "file not opened with O_DIRECT";
    case CU_FILE_INVALID_VALUE:
        return "invalid argument";
    case CU_FILE_MEMORY_ALREADY_REGISTERED:
        return "buffer already registered";
    case CU_FILE_MEMORY_NOT_REGISTERED:
        return "buffer not registered";
    case CU_FILE_PERMISSION_DENIED:
        return "permission denied";
    case CU_FILE_DRIVER_ALREADY_OPEN:
        return "driver already open";
    case CU_FILE_HANDLE_NOT_REGISTERED:
        return "file handle not registered";
    case CU_FILE_HANDLE_ALREADY_REGISTERED:
        return "file handle already registered";
    case CU_FILE_DEVICE_NOT_FOUND:
        return "device not found";
    case CU_FILE_INTERNAL_ERROR:
        return "internal error";
    case CU_FILE_GETNEWFD_FAILED:
        return "could not get a new file descriptor";
    case CU_FILE_NVFS_SETUP_ERROR:
        return "driver initialization failed";
    case CU_FILE_IO_DISABLED:
        return "GPU I/O disabled by configuration";
    case CU_FILE_BATCH_SUBMIT_FAILED:
        return "batch submission failed";
    case CU_FILE_GPU_MEMORY_PINNING_FAILED:
        return "could not pin GPU memory";
    case CU_FILE_BATCH_FULL:
        return "batch queue full";
    case CU_FILE_ASYNC_NOT_SUPPORTED:
        return "asynchronous I/O not supported";
    case CU_FILE_INTERNAL_BATCH_SETUP_ERROR:
        return "batch set-up failed";
    case CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR:
        return "batch submission failed internally";
    case CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR:
        return "batch status failed";
    case CU_FILE_INTERNAL_BATCH_CANCEL_ERROR:
        return "batch cancel failed";
    case CU_FILE_NOMEM_ERROR:
        return "out of memory";
    case CU_FILE_IO_ERROR:
        return "I/O error";
    case CU_FILE_INTERNAL_BUF_REGISTER_ERROR:
        return "buffer registration failed internally";
    case CU_FILE_HASH_OPR_ERROR:
        return "internal table error";
    case CU_FILE_INVALID_CONTEXT_ERROR:
        return "invalid CUDA context";
    case CU_FILE_NVFS_INTERNAL_DRIVER_ERROR:
        return "I/O driver internal error";
    case CU_FILE_BATCH_NOCOMPAT_ERROR:
        return "batch I/O needs the direct path";
    default:
        return "unknown cufile error";
    }
}

/** Register an open file; writes the handle to *fh. */
CUfileError_t cuFileHandleRegister(CUfileHandle_t *fh, CUfileDescr_t *descr);
/** Release a registered file; the caller's descriptor stays open. */
void cuFileHandleDeregister(CUfileHandle_t fh);
/** Register GPU memory for repeated I/O. */
CUfileError_t cuFileBufRegister(const void *bufPtr_base, size_t length, int flags);
/** Remove the registration whose base is bufPtr_base. */
CUfileError_t cuFileBufDeregister(const void *bufPtr_base);

/** Read size bytes at file_offset into bufPtr_base + bufPtr_offset; bytes, -1/errno or -code. */
ssize_t cuFileRead(CUfileHandle_t fh, void *bufPtr_base, size_t size, off_t file_offset,
                   off_t bufPtr_offset);
/** Write size bytes from bufPtr_base + bufPtr_offset at file_offset; as cuFileRead. */
ssize_t cuFileWrite(CUfileHandle_t fh, const void *bufPtr_base, size_t size, off_t file_offset,
                    off_t bufPtr_offset);

/** Open the driver (reference counted). */
CUfileError_t cuFileDriverOpen(void);
/** Close the driver: one reference less; the name programs built before cuFile 1.6 bind to. */
CUfileError_t cuFileDriverClose(void);
/** Close the driver: one reference less. cuFileDriverClose in source means this function. */
CUfileError_t cuFileDriverClose_v2(void);
#define cuFileDriverClose cuFileDriverClose_v2
/** The driver's reference count. */
long cuFileUseCount(void);
/** Fill *props with the driver's properties. */
CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t *props);
/** Turn poll mode on or off; threshold in KiB. */
CUfileError_t cuFileDriverSetPollMode(bool poll, size_t poll_threshold_size);
/** Set the largest direct transfer, KiB. */
CUfileError_t cuFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);
/**
 * Choose the peer-to-peer mechanisms (CU_FILE_P2P_FLAG_* mask) for storage kind status_flag:
 * CU_FILE_P2P_FLAG_PCI_P2PDMA on x86_64, CU_FILE_P2P_FLAG_C2C on aarch64, or 0 (docs/cufile.rst).
 */
CUfileError_t cuFileDriverSetP2PFlags(CUfileDriverStatusFlags_t status_flag,
                                      CUfileP2PFlags_t p2p_flags);
/** The peer-to-peer mechanisms chosen for storage kind status_flag, as a mask. */
CUfileError_t cuFileDriverGetP2PFlags(CUfileDriverStatusFlags_t status_flag,
                                      CUfileP2PFlags_t *p2p_flags);
/** Set the GPU bounce-buffer memory, KiB. */
CUfileError_t cuFileDriverSetMaxCacheSize(size_t max_cache_size);
/** Set the cap on pinned GPU memory, KiB. */
CUfileError_t cuFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);

/** Create a batch context for up to nr outstanding entries. */
CUfileError_t cuFileBatchIOSetUp(CUfileBatchHandle_t *batch_idp, unsigned nr);
/** Queue nr entries; all or nothing. */
CUfileError_t cuFileBatchIOSubmit(CUfileBatchHandle_t batch_idp, unsigned nr,
                                  CUfileIOParams_t *iocbp, unsigned int flags);
/** Collect finished entries: at least min_nr, at most *nr, within timeout (NULL: forever). */
CUfileError_t cuFileBatchIOGetStatus(CUfileBatchHandle_t batch_idp, unsigned min_nr, unsigned *nr,
                                     CUfileIOEvents_t *iocbp, struct timespec *timeout);
/** Cancel entries that have not started. */
CUfileError_t cuFileBatchIOCancel(CUfileBatchHandle_t batch_idp);
/** Cancel what is outstanding and free the context. */
void cuFileBatchIODestroy(CUfileBatchHandle_t batch_idp);

/** Queue a read on stream; the result lands in *bytes_read_p when the stream reaches it. */
CUfileError_t cuFileReadAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
                              off_t *file_offset_p, off_t *bufPtr_offset_p, ssize_t *bytes_read_p,
                              CUstream stream);
/** Queue a write on stream; the result lands in *bytes_written_p. */
CUfileError_t cuFileWriteAsync(CUfileHandle_t fh, void *bufPtr_base, size_t *size_p,
                               off_t *file_offset_p, off_t *bufPtr_offset_p,
                               ssize_t *bytes_written_p, CUstream stream);
/**
 * Read the file range at file_offset into iovcnt memory ranges in order (cuFile 1.19). Returns
 * the bytes read up to the first range that came back short, or -1 with errno, or a negated
 * CUfileOpError. flags must be 0; at most 1024 ranges (docs/cufile.rst).
 */
ssize_t cuFileReadv(CUfileHandle_t fh, const CUfileIOVec_t *iov, size_t iovcnt, off_t file_offset,
                    unsigned flags);
/** Write iovcnt memory ranges in order to the file range at file_offset; as cuFileReadv. */
ssize_t cuFileWritev(CUfileHandle_t fh, const CUfileIOVec_t *iov, size_t iovcnt, off_t file_offset,
                     unsigned flags);

/** Register stream with CU_FILE_STREAM_* flags. */
CUfileError_t cuFileStreamRegister(CUstream stream, unsigned flags);
/** Remove a stream registration. */
CUfileError_t cuFileStreamDeregister(CUstream stream);

/** The cuFile API version, major * 1000 + minor * 10 (1190 for cuFile 1.19). */
CUfileError_t cuFileGetVersion(int *version);

/** Read a numeric setting. */
CUfileError_t cuFileGetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t *value);
/** Read an on/off setting. */
CUfileError_t cuFileGetParameterBool(CUFileBoolConfigParameter_t param, bool *value);
/** Copy a text setting into desc_str, which holds len bytes. */
CUfileError_t cuFileGetParameterString(CUFileStringConfigParameter_t param, char *desc_str,
                                       int len);
/** Change a numeric setting. */
CUfileError_t cuFileSetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t value);
/** Change an on/off setting. */
CUfileError_t cuFileSetParameterBool(CUFileBoolConfigParameter_t param, bool value);
/** Change a text setting. */
CUfileError_t cuFileSetParameterString(CUFileStringConfigParameter_t param, const char *desc_str);
/** The range a numeric setting accepts. */
CUfileError_t cuFileGetParameterMinMaxValue(CUFileSizeTConfigParameter_t param, size_t *min_value,
                                            size_t *max_value);
/** Set the POSIX bounce pool's slab sizes (KiB) and counts, len entries each. */
CUfileError_t cuFileSetParameterPosixPoolSlabArray(const size_t *size_values,
                                                   const size_t *count_values, int len);
/** Read the POSIX bounce pool's slab sizes (KiB) and counts, up to len entries each. */
CUfileError_t cuFileGetParameterPosixPoolSlabArray(size_t *size_values, size_t *count_values,
                                                   int len);

/** Set the statistics level, 0 (off) to 3. */
CUfileError_t cuFileSetStatsLevel(int level);
/** Read the statistics level. */
CUfileError_t cuFileGetStatsLevel(int *level);
/** Start collecting statistics. */
CUfileError_t cuFileStatsStart(void);
/** Stop collecting statistics; the counters keep their values. */
CUfileError_t cuFileStatsStop(void);
/** Zero the statistics. */
CUfileError_t cuFileStatsReset(void);
/** Copy the level-1 statistics into *stats. */
CUfileError_t cuFileGetStatsL1(CUfileStatsLevel1_t *stats);
/** Copy the level-2 statistics into *stats. */
CUfileError_t cuFileGetStatsL2(CUfileStatsLevel2_t *stats);
/** Copy the level-3 statistics into *stats. */
CUfileError_t cuFileGetStatsL3(CUfileStatsLevel3_t *stats);
/** Size of GPU gpuIndex's memory aperture (NVIDIA's BAR1), KiB. */
CUfileError_t cuFileGetBARSizeInKB(int gpuIndex, size_t *barSize);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_CUFILE_H */
