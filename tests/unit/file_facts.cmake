# What file registration records for backends (reads the core's registry through a C probe).
hf_add_gtest(NAME unit_file_facts INTERNAL
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_file_facts.cc ${CMAKE_CURRENT_SOURCE_DIR}/file_facts_probe.c)
target_include_directories(unit_file_facts PRIVATE ${PROJECT_SOURCE_DIR}/core)
