# A program linked to hipfile and no HIP runtime, run from the build tree with no variable: where no
# GPU runtime reports a device, the open fails with hipFilePlatformNotSupported and one line that
# names gpu.runtime, where it was set and how to run without a GPU. On a GPU machine the test is
# skipped: auto finds the GPU there.
add_executable(api_no_runtime_open ${CMAKE_CURRENT_SOURCE_DIR}/no-runtime/no_runtime_open.c)
target_link_libraries(api_no_runtime_open PRIVATE hipfile)
add_test(NAME api.OpenWithoutAnyRuntimeSaysHowToRunWithoutAGpu
  COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:api_no_runtime_open>
          -DBUILD_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf
          -P ${CMAKE_CURRENT_SOURCE_DIR}/no-runtime/run.cmake)
set_tests_properties(api.OpenWithoutAnyRuntimeSaysHowToRunWithoutAGpu PROPERTIES
  LABELS "cpu;api" TIMEOUT 60 SKIP_REGULAR_EXPRESSION "auto found a GPU runtime")
