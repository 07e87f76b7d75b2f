# Error messages, error macros, the errno table (core/base/error.c) and hipFileGetVersion.
hf_add_gtest(NAME unit_errors
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_errors.cc
  INTERNAL)
target_compile_definitions(unit_errors PRIVATE HF_TEST_PROJECT_VERSION="${PROJECT_VERSION}")
