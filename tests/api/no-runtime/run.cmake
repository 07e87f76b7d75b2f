# Runs api_no_runtime_open with none of hipfile's variables set (see ../no_runtime.cmake):
# cmake -DEXE=<program> -DBUILD_CONFIG=<build>/hipfile.conf -P run.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=HIPFILE_CONFIG --unset=HIPFILE_GPU_RUNTIME
                        --unset=HIPFILE_LOG_LEVEL ${EXE}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
string(STRIP "${_out}" _status)
if(_status STREQUAL "0")
  message(STATUS "auto found a GPU runtime on this machine; nothing to check")
  return()
endif()
if(NOT _rc EQUAL 0 OR NOT _status STREQUAL "5007")
  message(FATAL_ERROR "expected hipFilePlatformNotSupported (5007), got exit ${_rc}, status "
    "'${_status}', stderr:\n${_err}")
endif()
set(_want "hipfile[core] error: driver setup failed: no usable GPU runtime (gpu.runtime = \"auto\", from gpu.runtime at ${BUILD_CONFIG}:")
string(FIND "${_err}" "${_want}" _at)
string(FIND "${_err}" "); no GPU runtime reports a device; without a GPU, link the program with the host emulation (libhip-host) or set HIPFILE_GPU_RUNTIME=host\n" _fix)
if(_at LESS 0 OR _fix LESS 0)
  message(FATAL_ERROR "the failed open does not say how to run without a GPU:\n${_err}")
endif()
