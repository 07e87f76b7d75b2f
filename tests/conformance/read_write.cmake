# One read/write suite, run once per backend that can serve on a machine without a GPU.
hf_add_gtest(NAME test_conformance_read_write
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_read_write.cc
  LABELS conformance
  BACKENDS fallback
  ALSO_GPU)
