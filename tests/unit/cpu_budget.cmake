# The CPUs the process may use (core/base/cpu_budget.c), on stand-in cgroup trees.
hf_add_gtest(NAME unit_cpu_budget INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cpu_budget.cc)
target_include_directories(unit_cpu_budget PRIVATE ${PROJECT_SOURCE_DIR}/core)
