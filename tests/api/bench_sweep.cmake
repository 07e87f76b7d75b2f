# hipfile-bench --sweep on the host runtime: the text report ends with one table row per call
# size, the ceiling's configuration marked +s where it streams its stores; with --json the one
# document holds a run per size and the "sweep" array (with ceiling_streamed as the run says), which
# plot_sweep.py turns into an SVG that must be well-formed XML naming every series; bad --sweep
# values, --sweep with --io-size and a --file-size too small for a size are refused with exit
# status 2 and a message naming the problem.
#
# Included by tests/api/CMakeLists.txt to register the test; ctest runs this same file as
# cmake -DEXE=<hipfile-bench> -DWORK_DIR=<scratch directory> [-DPYTHON=<python3>] -P
# bench_sweep.cmake. Without PYTHON the plot is not checked.

include(${CMAKE_CURRENT_LIST_DIR}/bench_common.cmake)
if(NOT CMAKE_SCRIPT_MODE_FILE)
  find_package(Python3 COMPONENTS Interpreter)
  set(_hf_bench_python "")
  if(Python3_Interpreter_FOUND)
    set(_hf_bench_python -DPYTHON=${Python3_EXECUTABLE})
  endif()
  hf_bench_test(NAME api.bench_sweep WORK bench-sweep
    ARGS -DPLOT=${PROJECT_SOURCE_DIR}/tools/hipfile-bench/plot_sweep.py ${_hf_bench_python})
  return()
endif()

hf_bench_script_begin(PLOT)
set(_file ${WORK_DIR}/sweep.dat)

# Text: after the per-size reports, one table with one row per size, in the order given, with the
# library, the baselines that ran and both ratios.
bench_run(0 --file ${_file} -f 16M --sweep 4M,1M -b pinned,naive,ceiling -T 0.2 --warmup 0)
string(FIND "${_out}" "\nsweep seq-read: GB/s by call size" _at)
if(_at LESS 0)
  message(FATAL_ERROR "--sweep printed no table:\n${_out}")
endif()
string(SUBSTRING "${_out}" ${_at} -1 _table)
string(REGEX MATCHALL "\n +[0-9]+ [KMG]iB [^\n]*" _rows "${_table}")
list(LENGTH _rows _n)
list(GET _rows 0 _first)
if(NOT _n EQUAL 2 OR NOT _first MATCHES "^\n +4 MiB")
  message(FATAL_ERROR "expected a row for 4 MiB, then one for 1 MiB, got ${_n}:\n${_table}")
endif()
foreach(_column library pinned-h2d naive ceiling "ceiling at" "library/pinned" "library/ceiling")
  string(FIND "${_table}" " ${_column}" _where)
  if(_where LESS 0)
    message(FATAL_ERROR "the sweep table has no ${_column} column:\n${_table}")
  endif()
endforeach()
# Each row names the ceiling's threads x piece, +s where it streamed; the mark is then explained.
set(_any_streamed FALSE)
foreach(_row IN LISTS _rows)
  if(NOT _row MATCHES " [0-9]+x[0-9]+[KMG]?(\\+s)? ")
    message(FATAL_ERROR "a sweep row has no ceiling configuration:${_row}\n${_table}")
  endif()
  if(CMAKE_MATCH_1)
    set(_any_streamed TRUE)
  endif()
endforeach()
if(_any_streamed AND NOT _table MATCHES "\n  ceiling at: threads x piece, \\+s: streaming stores")
  message(FATAL_ERROR "the sweep table marks a streamed ceiling without saying so:\n${_table}")
endif()

# JSON: one document, a run per size and a sweep row per size with each method's GB/s.
set(_json ${WORK_DIR}/sweep.json)
bench_run(0 --file ${_file} -f 16M --sweep 1M,4M -b pinned,naive,ceiling -p 1 --warmup 0 --json)
file(WRITE ${_json} "${_out}")
string(JSON _ok ERROR_VARIABLE _error GET "${_out}" ok)
if(_error OR NOT _ok)
  message(FATAL_ERROR "--sweep --json is not one document that says ok (${_error}):\n${_out}")
endif()
string(JSON _runs LENGTH "${_out}" runs)
string(JSON _sweep LENGTH "${_out}" sweep)
if(NOT _runs EQUAL 2 OR NOT _sweep EQUAL 2)
  message(FATAL_ERROR "expected 2 runs and 2 sweep rows, got ${_runs} and ${_sweep}:\n${_out}")
endif()
foreach(_i 0 1)
  string(JSON _size GET "${_out}" sweep ${_i} io_size)
  string(JSON _run_size GET "${_out}" runs ${_i} config io_size)
  string(JSON _library GET "${_out}" sweep ${_i} gbps library)
  string(JSON _ceiling GET "${_out}" sweep ${_i} gbps ceiling)
  string(JSON _threads GET "${_out}" sweep ${_i} ceiling_threads)
  string(JSON _over_pinned GET "${_out}" sweep ${_i} library_over_pinned)
  string(JSON _over_ceiling GET "${_out}" sweep ${_i} library_over_ceiling)
  if(NOT _size EQUAL _run_size OR NOT _library GREATER 0 OR NOT _ceiling GREATER 0
      OR _threads LESS 1 OR NOT _over_pinned GREATER 0 OR NOT _over_ceiling GREATER 0)
    message(FATAL_ERROR "sweep row ${_i}: size ${_size} (run ${_run_size}), library ${_library}, "
      "ceiling ${_ceiling} at ${_threads} threads, ratios ${_over_pinned} ${_over_ceiling}")
  endif()
  # ceiling_streamed: a boolean, as the run's ceiling result says.
  string(JSON _streamed_type TYPE "${_out}" sweep ${_i} ceiling_streamed)
  string(JSON _streamed GET "${_out}" sweep ${_i} ceiling_streamed)
  string(JSON _n_results LENGTH "${_out}" runs ${_i} results)
  math(EXPR _last "${_n_results} - 1")
  set(_run_streamed "")
  foreach(_r RANGE 0 ${_last})
    string(JSON _name GET "${_out}" runs ${_i} results ${_r} name)
    if(_name STREQUAL "ceiling")
      string(JSON _run_streamed GET "${_out}" runs ${_i} results ${_r} ceiling streamed)
    endif()
  endforeach()
  if(NOT _streamed_type STREQUAL "BOOLEAN" OR NOT _streamed STREQUAL _run_streamed)
    message(FATAL_ERROR "sweep row ${_i}: ceiling_streamed ${_streamed} (${_streamed_type}), "
      "the run's ceiling.streamed ${_run_streamed}")
  endif()
endforeach()

# The plot of that document: well-formed SVG naming every series.
if(PYTHON)
  set(_svg ${WORK_DIR}/sweep.svg)
  execute_process(COMMAND ${PYTHON} ${PLOT} ${_json} -o ${_svg}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _plot_out ERROR_VARIABLE _plot_err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "plot_sweep.py exit ${_rc}:\n${_plot_out}${_plot_err}")
  endif()
  execute_process(COMMAND ${PYTHON} -c [=[
import sys, xml.dom.minidom
svg = xml.dom.minidom.parse(sys.argv[1])
if svg.documentElement.tagName != "svg":
    sys.exit("the root element is %s, not svg" % svg.documentElement.tagName)
texts = {t.firstChild.data for t in svg.getElementsByTagName("text") if t.firstChild}
missing = [name for name in sys.argv[2:] if name not in texts]
if missing:
    sys.exit("the chart does not name %s; its texts: %s" % (", ".join(missing), sorted(texts)))
]=] ${_svg} library ceiling pinned-h2d naive
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _check_out ERROR_VARIABLE _check_err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${_svg} is not the expected SVG:\n${_check_out}${_check_err}")
  endif()
  execute_process(COMMAND ${PYTHON} ${PLOT} ${_json} --workload rand-write
    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _plot_err)
  if(NOT _rc EQUAL 2 OR NOT _plot_err MATCHES "no results for workload rand-write")
    message(FATAL_ERROR "plot_sweep.py with an absent workload: exit ${_rc}:\n${_plot_err}")
  endif()
else()
  message(STATUS "no python3: plot_sweep.py not checked")
endif()

# Bad values, each refused before anything runs, with the value named.
# "--sweep=" passes the empty value on; a list element "" would vanish on the way.
foreach(_bad "0" "garbage" "" "4M,,8M" "4M,4M" "3G")
  bench_run(2 "--sweep=${_bad}")
  if(NOT _err MATCHES "--sweep")
    message(FATAL_ERROR "--sweep '${_bad}' is refused without naming --sweep:\n${_err}")
  endif()
endforeach()
bench_run(2 --sweep 4M -s 4M)
if(NOT _err MATCHES "give --io-size or --sweep, not both")
  message(FATAL_ERROR "--sweep with --io-size is not explained:\n${_err}")
endif()
bench_run(2 --sweep 4M,32M -f 16M)
if(NOT _err MATCHES "--file-size 16 MiB holds fewer than --threads \\(1\\) calls of a --sweep size 32 MiB")
  message(FATAL_ERROR "a --file-size too small for a --sweep size is not explained:\n${_err}")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
