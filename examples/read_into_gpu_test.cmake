# ctest driver for read-into-gpu, the README's program: the README shows this file as it is, a
# missing input is named on stderr, and a file is read into GPU memory. Run as
# cmake -DEXE=<read-into-gpu> -DWORK_DIR=<dir> -P read_into_gpu_test.cmake.
if(NOT EXE OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DEXE=<read-into-gpu> -DWORK_DIR=<dir> -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# The program block of README.md ("## Use") must be this source, character for character.
file(READ ${CMAKE_CURRENT_LIST_DIR}/../README.md _readme)
file(READ ${CMAKE_CURRENT_LIST_DIR}/read_into_gpu.c _source)
string(FIND "${_readme}" "```c\n${_source}```" _at)
if(_at LESS 0)
  message(FATAL_ERROR "README.md does not show examples/read_into_gpu.c as it is; copy the file "
    "into the ```c block of the Use section")
endif()

# No input: the program says which file and why, and exits 1.
execute_process(COMMAND ${EXE} WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 1 OR NOT _err MATCHES "data.bin: No such file or directory")
  message(FATAL_ERROR "without data.bin: exit ${_rc}, stderr:\n${_err}")
endif()

# A file of 1 MiB and a bit: the first MiB lands in GPU memory.
string(REPEAT "0123456789abcdef" 65600 _data)
file(WRITE ${WORK_DIR}/data.bin "${_data}")
execute_process(COMMAND ${EXE} WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0 OR NOT _out STREQUAL "read 1048576 bytes into GPU memory\n")
  message(FATAL_ERROR "with data.bin: exit ${_rc}, stdout:\n${_out}stderr:\n${_err}")
endif()
