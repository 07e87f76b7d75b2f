# The fallback plugin, loaded with dlopen from the build's plugin directory and driven through a
# fake host (fallback_fake_host.*); the shared plugin helpers (bounce and staging pools, alignment)
# are linked in and tested directly.
hf_add_gtest(NAME test_fallback_plugin
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fallback_plugin.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_fake_host.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_split_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_direct_io_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_staging_pool_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_limits_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_many_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_pipeline_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_mapped_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/stream_copy_test.cc
  LIBS hipfile_plugin_common ${CMAKE_DL_LIBS}
  INTERNAL)
add_dependencies(test_fallback_plugin hipfile-plugin-fallback)
