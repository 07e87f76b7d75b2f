# Smoke test of hipfile-bench on the host runtime: a small file, every workload kind and every
# baseline with --verify, whose JSON must parse and report every method ran and matched; host
# memory buffers; the async API waiting by polling (--async-wait poll); the baselines' thread count
# as their rows show it; --help; a bad option; and a corrupted file that --verify must catch.
#
# Included by tests/api/CMakeLists.txt to register the test; ctest runs this same file as
# cmake -DEXE=<hipfile-bench> -DWORK_DIR=<scratch directory> -P bench.cmake.

include(${CMAKE_CURRENT_LIST_DIR}/bench_common.cmake)
if(NOT CMAKE_SCRIPT_MODE_FILE)
  hf_bench_test(NAME api.bench_smoke WORK bench-smoke)
  return()
endif()

hf_bench_script_begin()

# Every JSON line of _out must parse, say ok, and hold a library result that moved every byte of
# _bytes_per_pass (one pass), plus each result that ran must have moved data without a mismatch.
# The library's result is the first, named "library" or the optional fourth argument.
function(check_json _out _want_lines _bytes_per_pass)
  set(_first library)
  if(ARGC GREATER 3)
    set(_first ${ARGV3})
  endif()
  string(REGEX MATCHALL "[^\n]+" _lines "${_out}")
  list(LENGTH _lines _n)
  if(NOT _n EQUAL _want_lines)
    message(FATAL_ERROR "expected ${_want_lines} JSON lines, got ${_n}:\n${_out}")
  endif()
  foreach(_line IN LISTS _lines)
    string(JSON _workload ERROR_VARIABLE _error GET "${_line}" config workload)
    if(_error)
      message(FATAL_ERROR "output is not the expected JSON (${_error}):\n${_line}")
    endif()
    string(JSON _ok GET "${_line}" ok)
    string(JSON _verify GET "${_line}" config verify)
    string(JSON _exec GET "${_line}" config executor_threads)
    string(JSON _runtime GET "${_line}" runtime library)
    if(NOT _ok OR NOT _verify OR _exec LESS 1 OR NOT _runtime MATCHES "hip-host")
      message(FATAL_ERROR "${_workload}: ok=${_ok} verify=${_verify} executor_threads=${_exec} "
        "runtime=${_runtime}:\n${_line}")
    endif()
    string(JSON _results LENGTH "${_line}" results)
    math(EXPR _last "${_results} - 1")
    foreach(_i RANGE 0 ${_last})
      string(JSON _name GET "${_line}" results ${_i} name)
      string(JSON _ran GET "${_line}" results ${_i} ran)
      string(JSON _note GET "${_line}" results ${_i} note)
      if(_i EQUAL 0)
        string(JSON _bytes GET "${_line}" results 0 bytes)
        if(NOT _name STREQUAL _first OR NOT _ran OR NOT _bytes EQUAL _bytes_per_pass)
          message(FATAL_ERROR "${_workload}: first result ${_name} ran=${_ran} moved ${_bytes} "
            "bytes, expected the library moving ${_bytes_per_pass}:\n${_line}")
        endif()
      endif()
      if(NOT _ran)
        message(STATUS "${_workload}: ${_name} skipped: ${_note}")
        continue()
      endif()
      string(JSON _gbps GET "${_line}" results ${_i} gbps)
      string(JSON _mismatches GET "${_line}" results ${_i} mismatches)
      if(NOT _gbps GREATER 0 OR NOT _mismatches EQUAL 0)
        message(FATAL_ERROR "${_workload}: ${_name} gbps=${_gbps} mismatches=${_mismatches}")
      endif()
      # Linux gives steal time in /proc/stat: a share of the machine's CPU time, 0 to 1.
      string(JSON _steal_type TYPE "${_line}" results ${_i} steal_share)
      string(JSON _steal GET "${_line}" results ${_i} steal_share)
      if(NOT _steal_type STREQUAL "NUMBER" OR _steal LESS 0 OR _steal GREATER 1)
        message(FATAL_ERROR "${_workload}: ${_name} steal_share=${_steal} (${_steal_type}), "
          "expected a share of the machine's CPU time:\n${_line}")
      endif()
      message(STATUS "${_workload}: ${_name} ${_gbps} GB/s")
    endforeach()
  endforeach()
endfunction()

# Every workload kind, every baseline; 1 MiB calls keep the pread+copy latency baseline in.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 64M -s 1M -t 2 -w all -p 1 --warmup 0 --verify
  --json --copy-chunk 4M --copy-streams 2)
check_json("${_out}" 4 67108864)
# Writes are judged against O_DIRECT pwrite and against pwrite with its fdatasync timed, which
# reads skip as writes only.
string(REGEX MATCHALL "[^\n]+" _lines "${_out}")
foreach(_line IN LISTS _lines)
  string(JSON _workload GET "${_line}" config workload)
  string(JSON _results LENGTH "${_line}" results)
  math(EXPR _last "${_results} - 1")
  set(_names "")
  foreach(_i RANGE 0 ${_last})
    string(JSON _name GET "${_line}" results ${_i} name)
    string(JSON _note GET "${_line}" results ${_i} note)
    list(APPEND _names "${_name}")
    if(_name STREQUAL "pwrite+fdatasync" AND _workload MATCHES "read" AND
       NOT _note STREQUAL "writes only")
      message(FATAL_ERROR "${_workload}: pwrite+fdatasync not skipped as writes only:\n${_line}")
    endif()
  endforeach()
  if(_workload MATCHES "write")
    set(_wanted odirect-pwrite pwrite+fdatasync)
  else()
    set(_wanted odirect-pread pwrite+fdatasync)
  endif()
  foreach(_want IN LISTS _wanted)
    list(FIND _names "${_want}" _at)
    if(_at LESS 0)
      message(FATAL_ERROR "${_workload}: no result named ${_want} (${_names}):\n${_line}")
    endif()
  endforeach()
endforeach()

# Host memory goes through properties.allow_system_memory, which the program turns on itself.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 16M -s 4M -w seq-read,seq-write --mem pageable
  -b raw -p 1 --warmup 0 --verify --json)
check_json("${_out}" 2 16777216)

# The library through every API, verified: sync first (the check above wants "library" first),
# then async and batch, each compared with the sync API and with the sync-seq baseline.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 16M -s 256K -t 2 -w seq-read,rand-write --api all
  --batch-entries 8 -p 1 --warmup 0 --verify --json -b sync-seq)
check_json("${_out}" 2 16777216)
foreach(_want library-async library-batch sync-seq "library-async/library" "library-batch/library"
    "library-batch/sync-seq")
  string(FIND "${_out}" "\"${_want}\"" _at)
  if(_at LESS 0)
    message(FATAL_ERROR "--api all: no result or ratio named ${_want}:\n${_out}")
  endif()
endforeach()
# Without --async-wait the async method waits in hipStreamSynchronize, and the JSON says so.
string(FIND "${_out}" "\"async_wait\":\"sync\"" _at)
if(_at LESS 0)
  message(FATAL_ERROR "--api all without --async-wait: no \"async_wait\":\"sync\":\n${_out}")
endif()

# --async-wait poll: each async call's stream polled with hipStreamQuery instead, verified; reads
# and writes, so both async calls are waited for that way.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 16M -s 256K -t 2 -w seq-read,seq-write --api async
  --async-wait poll -b none -p 1 --warmup 0 --verify --json)
check_json("${_out}" 2 16777216 library-async)
string(REGEX MATCHALL "[^\n]+" _lines "${_out}")
foreach(_line IN LISTS _lines)
  string(JSON _wait GET "${_line}" config async_wait)
  if(NOT _wait STREQUAL "poll")
    message(FATAL_ERROR "--async-wait poll: the JSON says async_wait=${_wait}:\n${_line}")
  endif()
endforeach()
# The text report says how the async method waited.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 16M -s 256K --api sync,async --async-wait poll
  -b none -p 1 --warmup 0)
if(NOT _out MATCHES "library-async waits by polling hipStreamQuery")
  message(FATAL_ERROR "the text report does not say how library-async waited:\n${_out}")
endif()
# Taken without async, which does not use it; the report then says nothing of it.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 16M -s 256K --async-wait poll -b none -p 1 --warmup 0)
if(_out MATCHES "library-async")
  message(FATAL_ERROR "--async-wait without --api async mentions library-async:\n${_out}")
endif()
bench_run(2 --async-wait bogus)
if(NOT _err MATCHES "--async-wait 'bogus'")
  message(FATAL_ERROR "a bad --async-wait is not named in the error:\n${_err}")
endif()

# A batch larger than properties.max_batch_io_count's default (128) runs as documented: the bench
# raises the limit for its own process.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 16M -s 64K --api batch --batch-entries 200 -b none
  -p 1 --warmup 0 --verify)
# A limit the user set in HIPFILE_MAX_BATCH_IO_COUNT is kept: a clear error, exit 1.
set(ENV{HIPFILE_MAX_BATCH_IO_COUNT} 128)
bench_run(1 --file ${WORK_DIR}/bench.dat -f 16M -s 64K --api batch --batch-entries 200 -b none
  -p 1 --warmup 0)
unset(ENV{HIPFILE_MAX_BATCH_IO_COUNT})
if(NOT _err MATCHES "max_batch_io_count")
  message(FATAL_ERROR "an oversized batch is not explained:\n${_err}")
endif()
foreach(_bad "--api;bogus" "--api;," "--batch-entries;0" "--batch-entries;2000")
  bench_run(2 ${_bad})
endforeach()

# The baselines' thread count is the one their table rows show: with 8 calls per pass, at most 8
# threads run whatever executor threads + 1 asks for.
bench_run(0 --file ${WORK_DIR}/bench.dat -f 8M -s 1M -w seq-read -b raw -p 1 --warmup 0
  --io-threads 16)
if(NOT _out MATCHES "raw and O_DIRECT baselines at 8 threads \\(executor threads \\+ 1: 17, at most one per call of a pass\\)"
   OR NOT _out MATCHES "\n  pread +8 ")
  message(FATAL_ERROR "the baselines' thread count does not match their row:\n${_out}")
endif()

bench_run(0 --help)
if(NOT _out MATCHES "--baselines" OR NOT _out MATCHES "--drop-cache" OR NOT _out MATCHES "--api"
   OR NOT _out MATCHES "--async-wait")
  message(FATAL_ERROR "--help does not document the options:\n${_out}")
endif()

bench_run(2 --io-size 4Q)
if(NOT _err MATCHES "--io-size '4Q'")
  message(FATAL_ERROR "a bad --io-size is not named in the error:\n${_err}")
endif()

# A byte changed in the middle of a kept file (its first and last 64 KiB still hold the pattern,
# so it is used as it is): --verify must report it and exit 1.
bench_run(0 --file ${WORK_DIR}/corrupt.dat --keep -f 8M -s 1M -b none -p 1 --warmup 0)
file(WRITE ${WORK_DIR}/byte "X")
execute_process(COMMAND dd if=${WORK_DIR}/byte of=${WORK_DIR}/corrupt.dat bs=1 seek=5000000
  conv=notrunc RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cannot corrupt ${WORK_DIR}/corrupt.dat with dd")
endif()
bench_run(1 --file ${WORK_DIR}/corrupt.dat -f 8M -s 1M -b raw -p 1 --warmup 0 --verify)
if(NOT _err MATCHES "differs from the pattern at byte 5000000")
  message(FATAL_ERROR "--verify did not report the changed byte:\n${_err}")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
