# One program for every fault suite: it binds the fault runtime by path for the whole process.
hf_add_gtest(NAME test_fault INTERNAL LABELS fault
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fault_test.cc
          ${CMAKE_CURRENT_LIST_DIR}/test_fault_sys.cc
          ${CMAKE_CURRENT_LIST_DIR}/test_fault_runtime.cc
          ${CMAKE_CURRENT_LIST_DIR}/test_garbage_handles.cc
          ${CMAKE_CURRENT_LIST_DIR}/test_reused_descriptor.cc
          ${CMAKE_CURRENT_LIST_DIR}/fault_file_facts.c
  LIBS ${CMAKE_DL_LIBS})
target_include_directories(test_fault PRIVATE ${PROJECT_SOURCE_DIR}/core
  ${PROJECT_SOURCE_DIR}/tests/fixtures/fault_hip)
add_dependencies(test_fault fault_hip hipfile-plugin-fallback)
