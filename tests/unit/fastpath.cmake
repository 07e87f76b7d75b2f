# The fastpath plugin: driven through its ABI on the fallback tests' fake host, with the fake AIS
# runtime (tests/fixtures/fake_ais) answering hipGetProcAddress; and behind the public API on the
# host runtime, beside the fallback.
hf_add_gtest(NAME test_fastpath_plugin
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fastpath_plugin.cc
          ${CMAKE_CURRENT_LIST_DIR}/fallback_fake_host.cc
  LIBS hipfile_plugin_common ${CMAKE_DL_LIBS}
  INTERNAL)
target_include_directories(test_fastpath_plugin PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures/fake_ais)
add_dependencies(test_fastpath_plugin hipfile-plugin-fastpath hipfile-plugin-fallback fake_ais)

hf_add_gtest(NAME test_fastpath_api INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fastpath_api.cc)
add_dependencies(test_fastpath_api hipfile-plugin-fastpath hipfile-plugin-fallback)
