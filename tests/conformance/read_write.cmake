# One read/write suite, run once per backend that can serve on a machine without a GPU. The
# fallback also runs as "fallback-bounce" (host-emulated device memory staged through pinned
# slots and GPU copies) and "fallback-direct" (staged, and every aligned read through O_DIRECT);
# test_read_write.cc maps those names to config. "fastpath" runs the fastpath backend with the
# fallback beside it for what fastpath declines.
hf_add_gtest(NAME test_conformance_read_write
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_read_write.cc
  LABELS conformance
  BACKENDS fallback fallback-bounce fallback-direct fastpath
  ALSO_GPU)
