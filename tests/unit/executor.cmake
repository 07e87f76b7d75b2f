# The I/O worker pool.
hf_add_gtest(NAME unit_executor INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_executor.cc)
target_include_directories(unit_executor PRIVATE ${PROJECT_SOURCE_DIR}/core)
