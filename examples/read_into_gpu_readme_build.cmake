# The README's build-tree command, run as written: it compiles examples/read_into_gpu.c against
# the build tree with no pkg-config and no installation, and the program then runs with none of
# hipfile's variables set, finding the build tree's config and plugins itself. Run as
# cmake -DCC=<compiler> -DSOURCE_DIR=<tree> -DBUILD_DIR=<build> -DHIP_INCLUDE_DIR=<dir>
#       -DWORK_DIR=<dir> -P read_into_gpu_readme_build.cmake.
foreach(_var CC SOURCE_DIR BUILD_DIR HIP_INCLUDE_DIR WORK_DIR)
  if(NOT ${_var})
    message(FATAL_ERROR "${_var} is not set; see ${CMAKE_CURRENT_LIST_FILE}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# The command line of README.md that starts with "cc examples/read_into_gpu.c", with its
# continuation lines; build/ is this build tree, $PWD the top of the source tree.
file(STRINGS ${SOURCE_DIR}/README.md _lines)
set(_command "")
set(_taking FALSE)
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^cc examples/read_into_gpu.c")
    set(_taking TRUE)
  endif()
  if(_taking)
    string(REGEX REPLACE "[ ]*#.*$" "" _code "${_line}")
    string(REGEX REPLACE "\\\\$" "" _code "${_code}")
    string(APPEND _command " ${_code}")
    if(NOT _line MATCHES "\\\\$")
      break()
    endif()
  endif()
endforeach()
if(_command STREQUAL "")
  message(FATAL_ERROR "README.md has no line starting with 'cc examples/read_into_gpu.c'")
endif()
string(REPLACE "$PWD/build" "${BUILD_DIR}" _command "${_command}")
string(REPLACE " build/" " ${BUILD_DIR}/" _command "${_command}")
string(REPLACE "-Lbuild/" "-L${BUILD_DIR}/" _command "${_command}")
string(REPLACE "-o read-into-gpu" "-o ${WORK_DIR}/read-into-gpu" _command "${_command}")
separate_arguments(_args UNIX_COMMAND "${_command}")
list(POP_FRONT _args _cc)
if(NOT _cc STREQUAL "cc")
  message(FATAL_ERROR "the README command starts with '${_cc}', not cc")
endif()
# The HIP headers are where CMake found them; README.md says to add -I when they are elsewhere.
if(NOT HIP_INCLUDE_DIR STREQUAL "/usr/include")
  list(APPEND _args -I${HIP_INCLUDE_DIR})
endif()
execute_process(COMMAND ${CC} ${_args} WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "the README's command failed (${CC} ${_args}):\n${_out}${_err}")
endif()

string(REPEAT "fedcba9876543210" 65536 _data)
file(WRITE ${WORK_DIR}/data.bin "${_data}")
# Nothing of hipfile's in the environment: the build tree's library finds its own config.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=HIPFILE_CONFIG --unset=HIPFILE_GPU_RUNTIME
                        --unset=HIPFILE_PLUGIN_DIR --unset=HIPFILE_PLUGINS --unset=LD_LIBRARY_PATH
                        ${WORK_DIR}/read-into-gpu
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0 OR NOT _out STREQUAL "read 1048576 bytes into GPU memory\n" OR
   NOT _err STREQUAL "")
  message(FATAL_ERROR "the program built as README.md says: exit ${_rc}, stdout:\n${_out}"
    "stderr:\n${_err}")
endif()
