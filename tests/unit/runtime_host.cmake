# The host-emulation HIP provider, exercised directly through the HIP API it exports.
hf_add_gtest(NAME test_runtime_host
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime_host.cc)
