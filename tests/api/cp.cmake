# hipfile-cp on the host runtime: copies of awkward sizes checked byte for byte (with and without
# --verify, in one chunk and many), a directory as DEST, the summary line, the progress line only
# when asked for (standard error is not a terminal here), and the error paths: missing source, a
# destination that cannot be created, a directory as source, source and destination the same file
# (which must leave the file intact), a bad command line, and a --verify that must catch a source
# that holds more than its size said.
#
# Included by tests/api/CMakeLists.txt to register the test; ctest runs this same file as
# cmake -DEXE=<hipfile-cp> -DWORK_DIR=<scratch directory> -P cp.cmake.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  if(NOT TARGET hipfile-cp)
    return()
  endif()
  add_test(NAME api.cp
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:hipfile-cp>
            -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/cp -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties(api.cp PROPERTIES
    LABELS "cpu;api;cp"
    ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf"
    TIMEOUT 300)
  return()
endif()

if(NOT EXE OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DEXE=<hipfile-cp> -DWORK_DIR=<dir> -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Run the program; fail unless it exits with _want. Leaves stdout in _out and stderr in _err.
macro(cp_run _want)
  execute_process(COMMAND ${EXE} ${ARGN}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc STREQUAL "${_want}")
    string(REPLACE ";" " " _args "${ARGN}")
    message(FATAL_ERROR "hipfile-cp ${_args}: exit ${_rc}, expected ${_want}\n"
      "stdout:\n${_out}\nstderr:\n${_err}")
  endif()
endmacro()

# A function, not a macro: a macro would expand the regex's escapes a second time.
function(expect _var _regex)
  if(NOT "${${_var}}" MATCHES "${_regex}")
    message(FATAL_ERROR "expected ${_var} to match '${_regex}', got:\n${${_var}}")
  endif()
endfunction()

function(expect_same_file _a _b)
  file(SHA256 ${_a} _ha)
  file(SHA256 ${_b} _hb)
  file(SIZE ${_a} _sa)
  file(SIZE ${_b} _sb)
  if(NOT _ha STREQUAL _hb OR NOT _sa EQUAL _sb)
    message(FATAL_ERROR "${_b} (${_sb} bytes) is not a copy of ${_a} (${_sa} bytes)")
  endif()
endfunction()

# Sources: empty, one byte, not a whole page, and the program forty times over (a few MiB of
# varied bytes, many chunks at 64K).
file(WRITE ${WORK_DIR}/empty.src "")
file(WRITE ${WORK_DIR}/one.src "x")
string(REPEAT "0123456789abcdef" 771 _text)
file(WRITE ${WORK_DIR}/odd.src "${_text}")
set(_copies "")
foreach(_i RANGE 1 40)
  list(APPEND _copies ${EXE})
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E cat ${_copies} OUTPUT_FILE ${WORK_DIR}/large.src)

foreach(_name empty one odd large)
  cp_run(0 ${WORK_DIR}/${_name}.src ${WORK_DIR}/${_name}.dst)
  expect_same_file(${WORK_DIR}/${_name}.src ${WORK_DIR}/${_name}.dst)
  file(SIZE ${WORK_DIR}/${_name}.src _size)
  expect(_out "^copied ${_size} bytes \\([0-9.]+ MiB\\) from .* in [0-9.]+ s: [0-9]+\\.[0-9][0-9][0-9] GB/s\n$")
  # Not a terminal: no progress line unless asked for.
  if(NOT _err STREQUAL "")
    message(FATAL_ERROR "stderr not empty without a terminal:\n${_err}")
  endif()
endforeach()

# Many chunks, verified, with the progress line forced on; the destination is overwritten.
cp_run(0 -c 64K --verify --progress ${WORK_DIR}/large.src ${WORK_DIR}/odd.dst)
expect_same_file(${WORK_DIR}/large.src ${WORK_DIR}/odd.dst)
expect(_out "verified: .*odd.dst is identical to .*large.src")
expect(_err "\rcopy +100% \\[=+\\]")
expect(_err "\rverify +100% ")

# A directory as DEST: the copy keeps the source's name. --quiet prints nothing.
file(MAKE_DIRECTORY ${WORK_DIR}/into)
cp_run(0 -q ${WORK_DIR}/odd.src ${WORK_DIR}/into)
expect_same_file(${WORK_DIR}/odd.src ${WORK_DIR}/into/odd.src)
if(NOT _out STREQUAL "")
  message(FATAL_ERROR "--quiet printed:\n${_out}")
endif()

# Error paths.
cp_run(1 ${WORK_DIR}/missing.src ${WORK_DIR}/missing.dst)
expect(_err "cannot open .*missing.src: No such file or directory")
if(EXISTS ${WORK_DIR}/missing.dst)
  message(FATAL_ERROR "a failed copy created its destination")
endif()
cp_run(1 ${WORK_DIR}/odd.src ${WORK_DIR}/no-such-dir/odd.dst)
expect(_err "cannot open .*no-such-dir/odd.dst for writing: No such file or directory")
cp_run(1 ${WORK_DIR}/into ${WORK_DIR}/dir.dst)
expect(_err "into is not a regular file or block device")
file(SIZE ${WORK_DIR}/odd.src _before)
cp_run(1 ${WORK_DIR}/odd.src ${WORK_DIR}/odd.src)
expect(_err "are the same file")
file(SIZE ${WORK_DIR}/odd.src _after)
if(NOT _before EQUAL _after)
  message(FATAL_ERROR "copying a file onto itself changed it: ${_before} -> ${_after} bytes")
endif()
cp_run(1 ${WORK_DIR}/odd.src ${WORK_DIR})
expect(_err "are the same file")

# A procfs file reports size 0 but reads back text, so the copy (of the size at open) is empty
# and --verify must say the destination is shorter.
if(EXISTS /proc/self/status)
  cp_run(1 --verify /proc/self/status ${WORK_DIR}/status.dst)
  expect(_err "verify: .*status.dst is shorter than /proc/self/status: they differ from byte 0")
endif()

# Command line.
cp_run(2 ${WORK_DIR}/odd.src)
expect(_err "expected SOURCE and DEST, got 1 path")
cp_run(2 --chunk 0 ${WORK_DIR}/odd.src ${WORK_DIR}/x.dst)
expect(_err "--chunk must be a size from 1 to 1G, not '0'")
cp_run(2 --bogus ${WORK_DIR}/odd.src ${WORK_DIR}/x.dst)
expect(_err "bad option '--bogus'")
cp_run(0 --help)
expect(_out "^usage: hipfile-cp \\[options\\] SOURCE DEST")
cp_run(0 --version)
expect(_out "^hipfile-cp [0-9]+\\.[0-9]+\\.[0-9]+\nhipfile library ")
