# hipfile-bench's ceiling baseline on the host runtime: it runs for device-memory reads, reports a
# positive GB/s, the worker threads and piece size its calibration chose and every configuration
# it tried, and is compared with the library; it checks its data under --verify with several
# caller threads and random offsets; and it says "reads only" for a write workload and is skipped
# for host memory. No figure is asserted beyond being positive.
#
# Included by tests/api/CMakeLists.txt to register the test; ctest runs this same file as
# cmake -DEXE=<hipfile-bench> -DWORK_DIR=<scratch directory> -P bench_ceiling.cmake.

include(${CMAKE_CURRENT_LIST_DIR}/bench_common.cmake)
if(NOT CMAKE_SCRIPT_MODE_FILE)
  hf_bench_test(NAME api.bench_ceiling WORK bench-ceiling)
  return()
endif()

hf_bench_script_begin()
set(_file ${WORK_DIR}/ceiling.dat)

# The ceiling result of the JSON line _line must have run without a mismatch at a positive GB/s,
# with its chosen configuration among those tried and the library compared with it.
function(check_ceiling _line)
  string(JSON _ok ERROR_VARIABLE _error GET "${_line}" ok)
  if(_error OR NOT _ok)
    message(FATAL_ERROR "not the expected JSON, or not ok (${_error}):\n${_line}")
  endif()
  string(JSON _n LENGTH "${_line}" results)
  math(EXPR _last "${_n} - 1")
  set(_at -1)
  foreach(_i RANGE 0 ${_last})
    string(JSON _name GET "${_line}" results ${_i} name)
    if(_name STREQUAL "ceiling")
      set(_at ${_i})
    endif()
  endforeach()
  if(_at LESS 0)
    message(FATAL_ERROR "no ceiling result:\n${_line}")
  endif()
  string(JSON _ran GET "${_line}" results ${_at} ran)
  string(JSON _gbps GET "${_line}" results ${_at} gbps)
  string(JSON _mismatches GET "${_line}" results ${_at} mismatches)
  string(JSON _threads GET "${_line}" results ${_at} ceiling threads)
  string(JSON _per_caller GET "${_line}" results ${_at} ceiling threads_per_caller)
  string(JSON _piece GET "${_line}" results ${_at} ceiling piece_bytes)
  string(JSON _trials LENGTH "${_line}" results ${_at} ceiling trials)
  if(NOT _ran OR NOT _gbps GREATER 0 OR NOT _mismatches EQUAL 0 OR _threads LESS 1
      OR _per_caller LESS 1 OR _piece LESS 262144 OR _trials LESS 1)
    message(FATAL_ERROR "ceiling: ran=${_ran} gbps=${_gbps} mismatches=${_mismatches} "
      "threads=${_threads} per caller=${_per_caller} piece=${_piece} trials=${_trials}:\n${_line}")
  endif()
  # The configuration measured is the best of those the calibration tried.
  set(_chosen_tried FALSE)
  math(EXPR _last_trial "${_trials} - 1")
  foreach(_i RANGE 0 ${_last_trial})
    string(JSON _t GET "${_line}" results ${_at} ceiling trials ${_i} threads)
    string(JSON _p GET "${_line}" results ${_at} ceiling trials ${_i} piece_bytes)
    if(_t EQUAL _threads AND _p EQUAL _piece)
      set(_chosen_tried TRUE)
    endif()
  endforeach()
  string(FIND "${_line}" "\"library/ceiling\"" _ratio)
  if(NOT _chosen_tried OR _ratio LESS 0)
    message(FATAL_ERROR "ceiling: chosen ${_threads}x${_piece} tried=${_chosen_tried}, "
      "library/ceiling ratio at ${_ratio}:\n${_line}")
  endif()
  message(STATUS "ceiling ${_gbps} GB/s with ${_threads} threads x ${_piece}-byte pieces")
endfunction()

# One caller thread, sequential: the plain case.
bench_run(0 --file ${_file} -f 16M -s 2M -b ceiling -p 1 --warmup 0 --json)
check_ceiling("${_out}")

# Two caller threads at random offsets, every call's data checked against the file's pattern.
bench_run(0 --file ${_file} -f 16M -s 1M -t 2 -w rand-read -b ceiling -p 1 --warmup 0 --verify
  --json)
check_ceiling("${_out}")

# The text report names the configuration.
bench_run(0 --file ${_file} -f 16M -s 4M -b ceiling -T 0.2 --warmup 0)
if(NOT _out MATCHES "\n  ceiling +[0-9]+ +[0-9]+ +[0-9.]+" OR
   NOT _out MATCHES "ceiling: [0-9]+ worker threads?[^\n]* pieces" OR
   NOT _out MATCHES "library/ceiling = ")
  message(FATAL_ERROR "the text report lacks the ceiling's row, configuration or ratio:\n${_out}")
endif()

# Writes: the ceiling is a read pipeline, and says so; host memory has nothing to copy.
bench_run(0 --file ${_file} -f 16M -s 1M -w seq-write -b ceiling -p 1 --warmup 0)
if(NOT _out MATCHES "ceiling +skipped: reads only")
  message(FATAL_ERROR "-b ceiling with a write workload does not say reads only:\n${_out}")
endif()
bench_run(0 --file ${_file} -f 16M -s 1M -m pinned -b ceiling -p 1 --warmup 0)
if(NOT _out MATCHES "ceiling +skipped: the library's buffers are host memory")
  message(FATAL_ERROR "-b ceiling with host memory is not skipped:\n${_out}")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
