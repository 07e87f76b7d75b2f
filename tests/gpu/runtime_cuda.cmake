# The CUDA provider on a real NVIDIA GPU (label gpu): every HIP call it offers, against the driver.
hf_add_gtest(NAME test_runtime_cuda
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime_cuda.cc
  RUNTIME cuda)
