# Batch I/O through the public API. The suite links the core archive only to park the executor's
# workers on a gate task, which makes "not yet started" entries deterministic.
hf_add_gtest(NAME test_api_batch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_batch.cc LABELS api INTERNAL
  ALSO_GPU)
target_include_directories(test_api_batch PRIVATE ${PROJECT_SOURCE_DIR}/core)
if(TARGET test_api_batch_gpu)
  target_include_directories(test_api_batch_gpu PRIVATE ${PROJECT_SOURCE_DIR}/core)
endif()
# The same suite against the ThreadSanitizer core (tests/unit/executor.cmake): destroy during I/O,
# cancel, concurrent waiters and driver close, race-checked.
hf_add_tsan_test(NAME test_api_batch_tsan SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_batch.cc
  LABELS api)
