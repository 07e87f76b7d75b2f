# hipfile-bench's comparison modes on the host runtime, with four emulated devices:
# --backends fastpath,fallback (each backend in a process of its own, every request checked to be
# served by the named backend) and --devices (each device alone, then all at once), as JSON that
# must parse and hold an entry per backend and per device, and as text; and the command lines
# both must refuse with exit status 2. No figure is asserted: only what ran and what served it.
#
# Included by tests/api/CMakeLists.txt to register the test; ctest runs this same file as
# cmake -DEXE=<hipfile-bench> -DWORK_DIR=<scratch directory> -P bench_compare.cmake.

include(${CMAKE_CURRENT_LIST_DIR}/bench_common.cmake)
if(NOT CMAKE_SCRIPT_MODE_FILE)
  hf_bench_test(NAME api.bench_compare WORK bench-compare ENV "HIP_HOST_DEVICE_COUNT=4")
  return()
endif()

hf_bench_script_begin()
set(_file ${WORK_DIR}/compare.dat)

# The JSON line _line must parse and say ok; _results gets its number of results.
function(json_line_ok _line _results_var)
  string(JSON _workload ERROR_VARIABLE _error GET "${_line}" config workload)
  if(_error)
    message(FATAL_ERROR "output is not the expected JSON (${_error}):\n${_line}")
  endif()
  string(JSON _ok GET "${_line}" ok)
  if(NOT _ok)
    message(FATAL_ERROR "${_workload}: ok is false:\n${_line}")
  endif()
  string(JSON _n LENGTH "${_line}" results)
  set(${_results_var} ${_n} PARENT_SCOPE)
endfunction()

# The index of the result labelled _label in _line, or a failure when there is none.
function(result_index _line _label _index_var)
  string(JSON _n LENGTH "${_line}" results)
  math(EXPR _last "${_n} - 1")
  foreach(_i RANGE 0 ${_last})
    string(JSON _got GET "${_line}" results ${_i} label)
    if(_got STREQUAL _label)
      set(${_index_var} ${_i} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no result labelled ${_label}:\n${_line}")
endfunction()

# ---- --backends ----------------------------------------------------------------------------

# Reads and writes, verified, each backend in its own process on an O_DIRECT descriptor (where
# fastpath serves device memory); the statistics must show each backend served all of its
# process's requests, fastpath through the direct path and fallback through the compat path.
bench_run(0 --file ${_file} -f 64M -s 16M -w seq-read,seq-write --direct --verify -p 2
  --warmup 0 --backends fastpath,fallback -b raw,odirect --json)
string(REGEX MATCHALL "[^\n]+" _lines "${_out}")
list(LENGTH _lines _n)
if(NOT _n EQUAL 2)
  message(FATAL_ERROR "--backends: expected 2 JSON lines, got ${_n}:\n${_out}")
endif()
foreach(_line IN LISTS _lines)
  json_line_ok("${_line}" _results)
  string(JSON _workload GET "${_line}" config workload)
  string(JSON _listed GET "${_line}" config backends)
  if(NOT _listed STREQUAL "[ \"fastpath\", \"fallback\" ]")
    message(FATAL_ERROR "${_workload}: config.backends is ${_listed}")
  endif()
  foreach(_backend fastpath fallback)
    result_index("${_line}" "library@${_backend}" _i)
    string(JSON _ran GET "${_line}" results ${_i} ran)
    string(JSON _name GET "${_line}" results ${_i} backend)
    string(JSON _passes GET "${_line}" results ${_i} passes)
    string(JSON _bytes GET "${_line}" results ${_i} bytes)
    string(JSON _counted GET "${_line}" results ${_i} served counted)
    string(JSON _calls GET "${_line}" results ${_i} calls)
    string(JSON _process GET "${_line}" results ${_i} served process_requests)
    string(JSON _by_backend GET "${_line}" results ${_i} served by_backend)
    string(JSON _by_others GET "${_line}" results ${_i} served by_others)
    string(JSON _direct GET "${_line}" results ${_i} served direct)
    string(JSON _compat GET "${_line}" results ${_i} served compat)
    if(NOT _ran OR NOT _name STREQUAL _backend OR NOT _passes EQUAL 2
        OR NOT _bytes EQUAL 134217728 OR NOT _counted EQUAL _calls
        OR NOT _by_backend EQUAL _process OR _process LESS _calls OR NOT _by_others EQUAL 0)
      message(FATAL_ERROR "${_workload} ${_backend}: ran=${_ran} backend=${_name} "
        "passes=${_passes} bytes=${_bytes} calls=${_calls} counted=${_counted} "
        "process=${_process} by_backend=${_by_backend} by_others=${_by_others}:\n${_line}")
    endif()
    if(_backend STREQUAL "fastpath")
      set(_on_its_path ${_direct})
      set(_on_other_path ${_compat})
    else()
      set(_on_its_path ${_compat})
      set(_on_other_path ${_direct})
    endif()
    if(NOT _on_its_path EQUAL _calls OR NOT _on_other_path EQUAL 0)
      message(FATAL_ERROR "${_workload} ${_backend}: direct=${_direct} compat=${_compat} "
        "of ${_calls} calls:\n${_line}")
    endif()
  endforeach()
  if(_workload STREQUAL "seq-read")
    set(_raw pread)
  else()
    set(_raw pwrite)
  endif()
  foreach(_want "library@fallback/library@fastpath" "library@fastpath/${_raw}"
      "library@fallback/${_raw}")
    string(FIND "${_line}" "\"${_want}\"" _at)
    if(_at LESS 0)
      message(FATAL_ERROR "${_workload}: no ratio ${_want}:\n${_line}")
    endif()
  endforeach()
endforeach()

# The text report names each backend's result and what served it; the async API too.
bench_run(0 --file ${_file} -f 64M -s 16M --direct -p 1 --warmup 0 --api sync,async
  --backends fallback,fastpath -b none)
foreach(_want "library@fallback " "library@fastpath " "library-async@fastpath "
    "library@fastpath/library@fallback = " "requests served by fastpath, 0 by others")
  string(FIND "${_out}" "${_want}" _at)
  if(_at LESS 0)
    message(FATAL_ERROR "--backends text: no '${_want}':\n${_out}")
  endif()
endforeach()

# A request the named backend refuses fails the run instead of going to another backend:
# fastpath serves no 1000-byte call, and fallback is not loaded in its process.
bench_run(1 --file ${_file} -f 1M -s 1000 -n 2 -p 1 --warmup 0 --backends fastpath -b none)
if(NOT _err MATCHES "not served by fastpath")
  message(FATAL_ERROR "a request fastpath refused is not reported:\n${_err}")
endif()

bench_run(2 --file ${_file} -f 64M --backends fastpath,no-such-backend)
if(NOT _err MATCHES "--backends no-such-backend: no backend of that name loads")
  message(FATAL_ERROR "an unknown backend is not named in the error:\n${_err}")
endif()
foreach(_bad "--backends;fallback,fallback" "--backends;," "--backends;a/b")
  bench_run(2 ${_bad})
endforeach()

# ---- --devices -----------------------------------------------------------------------------

# Every emulated device alone, then all four at once, verified: one result per device, the
# aggregate with each device's share, and the aggregate against the sum of the single runs.
bench_run(0 --file ${_file} -f 64M -s 4M -t 2 -w seq-read,rand-write --verify -p 1 --warmup 0
  --devices all -b none --json)
string(REGEX MATCHALL "[^\n]+" _lines "${_out}")
foreach(_line IN LISTS _lines)
  json_line_ok("${_line}" _results)
  string(JSON _workload GET "${_line}" config workload)
  if(NOT _results EQUAL 5)
    message(FATAL_ERROR "${_workload}: expected 5 results (4 devices and all):\n${_line}")
  endif()
  foreach(_d 0 1 2 3)
    result_index("${_line}" "library@dev${_d}" _i)
    string(JSON _device GET "${_line}" results ${_i} device)
    string(JSON _bytes GET "${_line}" results ${_i} bytes)
    if(NOT _device EQUAL _d OR NOT _bytes EQUAL 67108864)
      message(FATAL_ERROR "${_workload} device ${_d}: device=${_device} bytes=${_bytes}:\n${_line}")
    endif()
  endforeach()
  result_index("${_line}" "library@all" _i)
  string(JSON _threads GET "${_line}" results ${_i} threads)
  string(JSON _shares LENGTH "${_line}" results ${_i} per_device)
  if(NOT _threads EQUAL 8 OR NOT _shares EQUAL 4)
    message(FATAL_ERROR "${_workload}: aggregate threads=${_threads} shares=${_shares}:\n${_line}")
  endif()
  foreach(_g 0 1 2 3)
    string(JSON _device GET "${_line}" results ${_i} per_device ${_g} device)
    string(JSON _bytes GET "${_line}" results ${_i} per_device ${_g} bytes)
    # Each device moves its own quarter of the file.
    if(NOT _device EQUAL _g OR NOT _bytes EQUAL 16777216)
      message(FATAL_ERROR "${_workload}: share ${_g} device=${_device} bytes=${_bytes}:\n${_line}")
    endif()
  endforeach()
  string(JSON _method GET "${_line}" multi_device 0 method)
  string(JSON _sum GET "${_line}" multi_device 0 sum_single_gbps)
  string(JSON _ratio GET "${_line}" multi_device 0 ratio)
  string(JSON _ratio_type TYPE "${_line}" multi_device 0 ratio)
  if(NOT _method STREQUAL "library" OR NOT _sum GREATER 0 OR NOT _ratio_type STREQUAL "NUMBER"
      OR NOT _ratio GREATER 0)
    message(FATAL_ERROR "${_workload}: multi_device method=${_method} sum=${_sum} "
      "ratio=${_ratio}:\n${_line}")
  endif()
endforeach()

# Two of the devices, as text, through the async API as well.
bench_run(0 --file ${_file} -f 64M -s 4M -p 1 --warmup 0 --devices 1,3 --api sync,async -b raw)
foreach(_want "library@dev1 " "library@dev3 " "library@all " "library-async@all "
    "aggregate/sum = " "library@dev3/pread = ")
  string(FIND "${_out}" "${_want}" _at)
  if(_at LESS 0)
    message(FATAL_ERROR "--devices text: no '${_want}':\n${_out}")
  endif()
endforeach()

bench_run(2 --file ${_file} -f 64M --devices 0,7)
if(NOT _err MATCHES "--devices: device 7: the HIP runtime reports 4 devices")
  message(FATAL_ERROR "an out-of-range device is not named in the error:\n${_err}")
endif()
bench_run(2 --devices 0,1 --device 1)
if(NOT _err MATCHES "--device or --devices, not both")
  message(FATAL_ERROR "--devices with --device is not refused clearly:\n${_err}")
endif()
bench_run(2 --devices 0 --backends fallback)
if(NOT _err MATCHES "--backends or --devices, not both")
  message(FATAL_ERROR "--devices with --backends is not refused clearly:\n${_err}")
endif()
foreach(_bad "--devices;0,0" "--devices;x" "--devices;99")
  bench_run(2 ${_bad})
endforeach()
# Every thread of every device needs a call of its own.
bench_run(2 --file ${_file} -f 8M -s 4M --devices all)

file(REMOVE_RECURSE ${WORK_DIR})
