# Scatter-gather reads and writes (include/hipfile/vector.h) through the public API.
hf_add_gtest(NAME test_api_vector SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_vector.cc LABELS api
  ALSO_GPU)
