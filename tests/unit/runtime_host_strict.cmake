# Strict holds of the host-emulation HIP provider (HIP_HOST_STRICT_HOLDS): the suite turns strict
# mode on itself, before the provider's first call, and runs its non-strict case in a child.
hf_add_gtest(NAME test_runtime_host_strict
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runtime_host_strict.cc)
