# The CUDA provider on machines without a usable NVIDIA driver (label cpu): it is opened with
# dlopen, as the core opens it, and pointed at a stand-in driver library through HIP_CUDA_DRIVER.
add_library(hf_fake_libcuda SHARED ${CMAKE_CURRENT_LIST_DIR}/runtime_cuda_fake_driver.c)
set_target_properties(hf_fake_libcuda PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
  OUTPUT_NAME hf-fake-cuda)

hf_add_gtest(NAME test_runtime_cuda_cpu
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime_cuda_cpu.cc
  LIBS ${CMAKE_DL_LIBS})
target_compile_definitions(test_runtime_cuda_cpu PRIVATE
  HF_HIP_CUDA_PATH="$<TARGET_FILE:hip-cuda>"
  HF_FAKE_LIBCUDA_PATH="$<TARGET_FILE:hf_fake_libcuda>")
add_dependencies(test_runtime_cuda_cpu hip-cuda hf_fake_libcuda)
