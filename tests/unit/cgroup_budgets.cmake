# The CPUs and memory the process may use (core/base/cpu_budget.c, core/base/memory_budget.c), on
# stand-in cgroup trees.
hf_add_gtest(NAME unit_cgroup_budgets INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cgroup_budgets.cc)
target_include_directories(unit_cgroup_budgets PRIVATE ${PROJECT_SOURCE_DIR}/core)
