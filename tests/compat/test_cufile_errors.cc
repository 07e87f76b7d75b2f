/*
 * How hipfile statuses translate into cuFile's (compat/cufile/cufile_errors.c, linked into this
 * test): same-valued codes pass, codes cuFile lacks become internal errors, and HIP runtime errors
 * become the CUDA driver results a cuFile program expects.
 */
#include <gtest/gtest.h>

#include "cufile_compat.h"

namespace
{

TEST(CuFileErrors, EveryHipfileCodeKeepsItsValue)
{
    for (int code = HIPFILE_BASE_ERR + 1; code < hipFileIOMaxError; code++) {
        if (code == HIPFILE_BASE_ERR + 21 || code == HIPFILE_BASE_ERR + 32)
            continue;
        EXPECT_EQ((int)hf_cufile_op_error((hipFileOpError_t)code), code);
    }
    EXPECT_EQ(hf_cufile_op_error(hipFileSuccess), CU_FILE_SUCCESS);
    EXPECT_EQ(hf_cufile_op_error(hipFileHipDriverError), CU_FILE_CUDA_DRIVER_ERROR);
    EXPECT_EQ(hf_cufile_op_error(hipFileDriverSetupError), CU_FILE_NVFS_SETUP_ERROR);
}

TEST(CuFileErrors, CodesCuFileReadsDifferentlyBecomeInternalError)
{
    EXPECT_EQ(hf_cufile_op_error(hipFileIOMaxError), CU_FILE_INTERNAL_ERROR);
    EXPECT_EQ(hf_cufile_op_error((hipFileOpError_t)(HIPFILE_BASE_ERR + 21)),
              CU_FILE_INTERNAL_ERROR);
    EXPECT_EQ(hf_cufile_op_error((hipFileOpError_t)(HIPFILE_BASE_ERR + 32)),
              CU_FILE_INTERNAL_ERROR);
    EXPECT_EQ(hf_cufile_op_error((hipFileOpError_t)42), CU_FILE_INTERNAL_ERROR);
    EXPECT_EQ(hf_cufile_op_error((hipFileOpError_t)-5022), CU_FILE_INTERNAL_ERROR);
}

TEST(CuFileErrors, RuntimeErrorsBecomeCudaDriverResults)
{
    hipFileError_t in = {hipFileHipDriverError, hipErrorOutOfMemory};
    CUfileError_t out = hf_cufile_status(in);
    EXPECT_EQ(out.err, CU_FILE_CUDA_DRIVER_ERROR);
    EXPECT_EQ((int)out.cu_err, 2); /* CUDA_ERROR_OUT_OF_MEMORY */
    EXPECT_EQ((int)hf_cufile_cu_result(hipErrorInvalidValue), 1);
    EXPECT_EQ((int)hf_cufile_cu_result(hipErrorNoDevice), 100);
    EXPECT_EQ((int)hf_cufile_cu_result(hipErrorInvalidDevice), 101);
    EXPECT_EQ((int)hf_cufile_cu_result(hipErrorNotSupported), 801);
    EXPECT_EQ((int)hf_cufile_cu_result(hipErrorInsufficientDriver), 803);
    EXPECT_EQ((int)hf_cufile_cu_result(hipErrorUnknown), 999);
    EXPECT_EQ((int)hf_cufile_cu_result((hipError_t)1054), 999);
}

TEST(CuFileErrors, NonRuntimeErrorsCarryCudaSuccess)
{
    hipFileError_t in = {hipFileInvalidValue, hipErrorOutOfMemory};
    CUfileError_t out = hf_cufile_status(in);
    EXPECT_EQ(out.err, CU_FILE_INVALID_VALUE);
    EXPECT_EQ(out.cu_err, CUDA_SUCCESS);
}

TEST(CuFileErrors, IoResultsKeepBytesErrnoAndCodes)
{
    EXPECT_EQ(hf_cufile_io_result(4096), 4096);
    EXPECT_EQ(hf_cufile_io_result(0), 0);
    EXPECT_EQ(hf_cufile_io_result(-1), -1);
    EXPECT_EQ(hf_cufile_io_result(-hipFileInvalidValue), -CU_FILE_INVALID_VALUE);
    EXPECT_EQ(hf_cufile_io_result(-hipFileIOMaxError), -CU_FILE_INTERNAL_ERROR);
}

} // namespace
