# hipfile-bench's ceiling baseline on the host runtime: it runs for device-memory reads, reports a
# positive GB/s, the worker threads, piece size and streaming stores its calibration chose and
# every configuration it tried (on x86-64 each plain and streamed, elsewhere plain only), and is
# compared with the library; it checks its data under --verify with several caller threads and
# random offsets; and it says "reads only" for a write workload and is skipped for host memory. No
# figure is asserted beyond being positive.
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
# with its chosen configuration among those tried and the library compared with it. Sets
# _streams in the caller: whether this machine streams (x86-64), as the text check needs to know.
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
  string(JSON _streamed_type TYPE "${_line}" results ${_at} ceiling streamed)
  string(JSON _streamed GET "${_line}" results ${_at} ceiling streamed)
  if(NOT _streamed_type STREQUAL "BOOLEAN")
    message(FATAL_ERROR "ceiling.streamed is ${_streamed_type}, not a boolean:\n${_line}")
  endif()
  if(NOT _ran OR NOT _gbps GREATER 0 OR NOT _mismatches EQUAL 0 OR _threads LESS 1
      OR _per_caller LESS 1 OR _piece LESS 262144 OR _trials LESS 1)
    message(FATAL_ERROR "ceiling: ran=${_ran} gbps=${_gbps} mismatches=${_mismatches} "
      "threads=${_threads} per caller=${_per_caller} piece=${_piece} trials=${_trials}:\n${_line}")
  endif()
  # The configuration measured is the best of those the calibration tried. On x86-64 every
  # configuration is tried plain, then streamed (so twice as many trials); elsewhere plain only.
  string(JSON _arch GET "${_line}" machine arch)
  set(_streams FALSE)
  if(_arch STREQUAL "x86_64")
    set(_streams TRUE)
  endif()
  set(_streams ${_streams} PARENT_SCOPE)
  set(_chosen_tried FALSE)
  set(_n_streamed 0)
  math(EXPR _last_trial "${_trials} - 1")
  foreach(_i RANGE 0 ${_last_trial})
    string(JSON _t GET "${_line}" results ${_at} ceiling trials ${_i} threads)
    string(JSON _p GET "${_line}" results ${_at} ceiling trials ${_i} piece_bytes)
    string(JSON _s_type TYPE "${_line}" results ${_at} ceiling trials ${_i} streamed)
    string(JSON _s GET "${_line}" results ${_at} ceiling trials ${_i} streamed)
    if(NOT _s_type STREQUAL "BOOLEAN")
      message(FATAL_ERROR "ceiling trial ${_i}: streamed is ${_s_type}, not a boolean:\n${_line}")
    endif()
    if(_t EQUAL _threads AND _p EQUAL _piece AND _s STREQUAL _streamed)
      set(_chosen_tried TRUE)
    endif()
    if(_s)
      math(EXPR _n_streamed "${_n_streamed} + 1")
      # The streamed twin of the plain configuration just before it.
      math(EXPR _plain "${_i} - 1")
      set(_twin FALSE)
      if(_plain GREATER_EQUAL 0)
        string(JSON _pt GET "${_line}" results ${_at} ceiling trials ${_plain} threads)
        string(JSON _pp GET "${_line}" results ${_at} ceiling trials ${_plain} piece_bytes)
        string(JSON _ps GET "${_line}" results ${_at} ceiling trials ${_plain} streamed)
        if(_pt EQUAL _t AND _pp EQUAL _p AND NOT _ps)
          set(_twin TRUE)
        endif()
      endif()
      if(NOT _twin)
        message(FATAL_ERROR "ceiling trial ${_i} (${_t}x${_p}, streamed) does not follow the same "
          "configuration plain:\n${_line}")
      endif()
    endif()
  endforeach()
  math(EXPR _n_plain "${_trials} - ${_n_streamed}")
  if(_streams AND NOT _n_streamed EQUAL _n_plain)
    message(FATAL_ERROR "ceiling on x86-64: ${_n_streamed} streamed of ${_trials} trials, not "
      "half:\n${_line}")
  elseif(NOT _streams AND _n_streamed GREATER 0)
    message(FATAL_ERROR "ceiling on ${_arch}, which has no streaming stores: ${_n_streamed} "
      "streamed trials:\n${_line}")
  endif()
  string(FIND "${_line}" "\"library/ceiling\"" _ratio)
  if(NOT _chosen_tried OR _ratio LESS 0)
    message(FATAL_ERROR "ceiling: chosen ${_threads}x${_piece} streamed=${_streamed} "
      "tried=${_chosen_tried}, "
      "library/ceiling ratio at ${_ratio}:\n${_line}")
  endif()
  message(STATUS "ceiling ${_gbps} GB/s with ${_threads} threads x ${_piece}-byte pieces, "
    "streamed ${_streamed}, of ${_trials} trials")
endfunction()

# One caller thread, sequential: the plain case.
bench_run(0 --file ${_file} -f 16M -s 2M -b ceiling -p 1 --warmup 0 --json)
check_ceiling("${_out}")

# Two caller threads at random offsets, every call's data checked against the file's pattern.
bench_run(0 --file ${_file} -f 16M -s 1M -t 2 -w rand-read -b ceiling -p 1 --warmup 0 --verify
  --json)
check_ceiling("${_out}")

# The text report names the configuration, says what the +s mark means and lists every trial,
# on x86-64 each plain and streamed (+s).
bench_run(0 --file ${_file} -f 16M -s 4M -b ceiling -T 0.2 --warmup 0)
if(NOT _out MATCHES "\n  ceiling +[0-9]+ +[0-9]+ +[0-9.]+" OR
   NOT _out MATCHES "ceiling: [0-9]+ worker threads?[^\n]* pieces" OR
   NOT _out MATCHES "\\(threads x piece GB/s, \\+s: streaming stores\\):" OR
   NOT _out MATCHES "library/ceiling = ")
  message(FATAL_ERROR "the text report lacks the ceiling's row, configuration, legend or ratio:\n"
    "${_out}")
endif()
string(REGEX MATCHALL "[0-9]+x[0-9]+[KMG]? [0-9.]+" _plain_trials "${_out}")
string(REGEX MATCHALL "[0-9]+x[0-9]+[KMG]?\\+s [0-9.]+" _streamed_trials "${_out}")
list(LENGTH _plain_trials _n_plain)
list(LENGTH _streamed_trials _n_streamed)
if(_n_plain LESS 1 OR (_streams AND NOT _n_streamed EQUAL _n_plain)
    OR (NOT _streams AND _n_streamed GREATER 0))
  message(FATAL_ERROR "the text report lists ${_n_plain} plain and ${_n_streamed} streamed "
    "trials (streaming stores here: ${_streams}):\n${_out}")
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
