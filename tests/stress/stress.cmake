# The register/read/write/deregister storm (test_stress.cc); HIPFILE_STRESS_OPS raises the
# operations per thread for longer runs.
hf_add_gtest(NAME test_stress INTERNAL LABELS stress
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_stress.cc)
target_include_directories(test_stress PRIVATE ${PROJECT_SOURCE_DIR}/core)
add_dependencies(test_stress hipfile-plugin-fallback)
