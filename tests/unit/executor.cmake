# The I/O worker pool.
hf_add_gtest(NAME unit_executor INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_executor.cc)
target_include_directories(unit_executor PRIVATE ${PROJECT_SOURCE_DIR}/core)
# The same suite with four idle workers polling for work, which the automatic setting leaves off
# on machines of fewer than 8 CPUs (the CI machine has 2).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/executor-polling.conf "execution = { idle_pollers = 4; };\n")
add_test(NAME unit_executor.polling COMMAND unit_executor)
set_tests_properties(unit_executor.polling PROPERTIES LABELS "cpu;unit"
  ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${CMAKE_CURRENT_BINARY_DIR}/executor-polling.conf")

# ThreadSanitizer: a second copy of the core archive built with -fsanitize=thread, and
# hf_add_tsan_test() to run a suite linked to it as one ctest labelled tsan (and cpu), so the
# executor and the batch engine are race-checked on every CPU run. Providers and plugins stay
# uninstrumented; TSan still sees their locks and threads through its interceptors. Off under
# HIPFILE_SANITIZE (AddressSanitizer cannot share a process with TSan).
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
check_c_source_compiles("int main(void) { return 0; }" HF_HAVE_TSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
option(HIPFILE_TSAN_TESTS "Also run the executor and batch suites against a ThreadSanitizer core" ON)
if(HIPFILE_TSAN_TESTS AND HF_HAVE_TSAN AND NOT HIPFILE_SANITIZE)
  get_target_property(_hf_core_sources hipfile_core SOURCES)
  add_library(hipfile_core_tsan STATIC ${_hf_core_sources})
  target_include_directories(hipfile_core_tsan
    PUBLIC $<TARGET_PROPERTY:hipfile_core,INCLUDE_DIRECTORIES>)
  target_compile_definitions(hipfile_core_tsan
    PRIVATE $<TARGET_PROPERTY:hipfile_core,COMPILE_DEFINITIONS>)
  target_compile_options(hipfile_core_tsan PUBLIC -fsanitize=thread)
  target_link_options(hipfile_core_tsan PUBLIC -fsanitize=thread)
  target_link_libraries(hipfile_core_tsan
    PUBLIC $<TARGET_PROPERTY:hipfile_core,INTERFACE_LINK_LIBRARIES>)
endif()

# hf_add_tsan_test(NAME name SOURCES ... [LABELS ...]): the suite in SOURCES linked to the
# ThreadSanitizer core and the host provider, registered as the single test tsan.<name> (all of
# the suite's tests in one process, so they also share one worker pool). Nothing without TSan.
function(hf_add_tsan_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LABELS" ${ARGN})
  if(NOT TARGET hipfile_core_tsan)
    return()
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/core)
  target_link_libraries(${T_NAME} PRIVATE hf_harness GTest::gtest GTest::gtest_main
    hipfile_core_tsan hip-host)
  add_test(NAME tsan.${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(tsan.${T_NAME} PROPERTIES
    LABELS "${T_LABELS};cpu;tsan"
    TIMEOUT 900
    ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf;TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
endfunction()

hf_add_tsan_test(NAME unit_executor_tsan SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_executor.cc
  LABELS unit)
if(TARGET unit_executor_tsan)
  add_test(NAME tsan.unit_executor_tsan.polling COMMAND unit_executor_tsan)
  set_tests_properties(tsan.unit_executor_tsan.polling PROPERTIES LABELS "unit;cpu;tsan"
    TIMEOUT 900
    ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${CMAKE_CURRENT_BINARY_DIR}/executor-polling.conf;TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
endif()
