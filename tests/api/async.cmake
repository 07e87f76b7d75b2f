# Stream-ordered I/O through the public API. The suite links the core archive to park the I/O
# threads (proving the data does not move on the runtime's callback thread) and to wrap the system
# calls backends use (proving operations of several streams run at once).
hf_add_gtest(NAME test_api_async SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_async.cc LABELS api INTERNAL
  ALSO_GPU)
target_include_directories(test_api_async PRIVATE ${PROJECT_SOURCE_DIR}/core)
if(TARGET test_api_async_gpu)
  target_include_directories(test_api_async_gpu PRIVATE ${PROJECT_SOURCE_DIR}/core)
endif()
# The same suite against the ThreadSanitizer core (tests/unit/executor.cmake), with streams held by
# host functions rather than stream waits (test_async.cc says why).
hf_add_tsan_test(NAME test_api_async_tsan SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_async.cc
  LABELS api)
if(TARGET test_api_async_tsan)
  target_compile_definitions(test_api_async_tsan PRIVATE HF_TEST_TSAN=1)
endif()
