# GPU runtime binding (core/services/gpu.c, gpu_runtime.c) against the fake runtimes in tests/fixtures and the host
# provider the test program links.
hf_add_gtest(NAME test_gpu_binding INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gpu_binding.cc)
target_include_directories(test_gpu_binding PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures/fake_hip)
add_dependencies(test_gpu_binding fake_hip_rocm6 fake_hip_rocm5 fake_hip_nosym fake_hip_nodev)
