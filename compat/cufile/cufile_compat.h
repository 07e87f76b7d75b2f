/*
 * Shared pieces of the cuFile compatibility library: translating hipfile statuses into cuFile's,
 * and the library's own log lines. Internal; never installed.
 */
#ifndef HF_CUFILE_COMPAT_H
#define HF_CUFILE_COMPAT_H

#include <hipfile.h>

#include "cufile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Exported cuFile entry points; everything else stays inside the library. */
#define HF_CUFILE_API __attribute__((visibility("default")))

/** The cuFile code for a hipfile code; codes cuFile lacks become CU_FILE_INTERNAL_ERROR. */
CUfileOpError hf_cufile_op_error(hipFileOpError_t code);

/** The CUDA driver result for a HIP runtime error of the hipfile providers. */
CUresult hf_cufile_cu_result(hipError_t err);

/** A hipfile status as cuFile reports it: the code, and the CUDA result for runtime errors. */
CUfileError_t hf_cufile_status(hipFileError_t status);

/** {code, CUDA_SUCCESS}. */
CUfileError_t hf_cufile_error(CUfileOpError code);

/** A read/write result with any negated hipfile code replaced by the negated cuFile code. */
ssize_t hf_cufile_io_result(ssize_t result);

#ifndef __cplusplus
#include <stdatomic.h>

/**
 * An entry point this library has no counterpart for: logs a warning the first time (*warned
 * false) and returns {CU_FILE_PLATFORM_NOT_SUPPORTED, CUDA_SUCCESS}.
 */
CUfileError_t hf_cufile_not_supported(atomic_bool *warned, const char *function, const char *why);

/** hf_cufile_not_supported with a flag of the calling function's own. */
#define HF_CUFILE_NOT_SUPPORTED(why)                                                               \
    do {                                                                                           \
        static atomic_bool warned_;                                                                \
        return hf_cufile_not_supported(&warned_, __func__, why);                                   \
    } while (0)
#endif

/** Log an argument error of a cuFile entry point (at warn) and return {code, CUDA_SUCCESS}. */
__attribute__((format(printf, 3, 4))) CUfileError_t
hf_cufile_reject(CUfileOpError code, const char *function, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif /* HF_CUFILE_COMPAT_H */
