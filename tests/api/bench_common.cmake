# What the hipfile-bench test scripts share (bench.cmake, bench_compare.cmake, bench_ceiling.cmake,
# bench_sweep.cmake). Each script is included by tests/api/CMakeLists.txt to register its test,
# and run by ctest as cmake -DEXE=<hipfile-bench> -DWORK_DIR=<scratch directory> [...] -P <script>.

# hf_bench_test(NAME name WORK subdir [ENV var=value...] [ARGS -Dvar=value...]): register the
# calling script as test <name> on the host runtime, with a scratch directory of its own.
function(hf_bench_test)
  cmake_parse_arguments(B "" "NAME;WORK" "ENV;ARGS" ${ARGN})
  add_test(NAME ${B_NAME}
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:hipfile-bench>
            -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/${B_WORK} ${B_ARGS}
            -P ${CMAKE_CURRENT_LIST_FILE})
  set(_env "HIPFILE_GPU_RUNTIME=host" ${B_ENV} "HIPFILE_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf")
  set_tests_properties(${B_NAME} PROPERTIES LABELS "cpu;api;bench" ENVIRONMENT "${_env}"
    TIMEOUT 300)
endfunction()

# In script mode: check that EXE and WORK_DIR (and each further variable named) were given, and
# start from an empty WORK_DIR.
macro(hf_bench_script_begin)
  foreach(_hf_var EXE WORK_DIR ${ARGN})
    if(NOT ${_hf_var})
      message(FATAL_ERROR "usage: cmake -DEXE=<hipfile-bench> -DWORK_DIR=<dir> ... -P "
        "${CMAKE_CURRENT_LIST_FILE} (${_hf_var} is missing)")
    endif()
  endforeach()
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
endmacro()

# Run the program; fail unless it exits with _want. Leaves stdout in _out and stderr in _err.
macro(bench_run _want)
  execute_process(COMMAND ${EXE} ${ARGN} --no-progress
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc STREQUAL "${_want}")
    string(REPLACE ";" " " _args "${ARGN}")
    message(FATAL_ERROR "hipfile-bench ${_args}: exit ${_rc}, expected ${_want}\n"
      "stdout:\n${_out}\nstderr:\n${_err}")
  endif()
endmacro()
