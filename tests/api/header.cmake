# hipfile.h as applications compile it. The header probes are built with -pedantic as strict C99
# and C17 (without _GNU_SOURCE, which the rest of the tree defines) and as C++11 and C++17, so a
# header regression fails the build; the C++17 build must also diagnose a dropped hipFileError_t.
# api_header runs what the probes check at run time.
#
# The HIP headers (5.2) compile cleanly under -pedantic in all four modes; nothing is relaxed.

if(CMAKE_SCRIPT_MODE_FILE)
  # Run as `cmake -P header.cmake` by the hf_header_nodiscard step below: HF_SOURCE drops a
  # hipFileError_t, and the compiler has to refuse it, naming nodiscard.
  string(REPLACE "|" ";" _flags "${HF_FLAGS}")
  execute_process(
    COMMAND ${HF_COMPILER} ${_flags} -fsyntax-only -Werror=unused-result ${HF_SOURCE}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(_rc EQUAL 0 OR NOT _out MATCHES "nodiscard")
    message(FATAL_ERROR "hipfile.h: a dropped hipFileError_t is not diagnosed in C++17; "
      "hipFileError_t must be [[nodiscard]] there.\n${_out}")
  endif()
  file(TOUCH ${HF_STAMP})
  return()
endif()

set(_hf_header_dirs ${PROJECT_SOURCE_DIR}/include ${HIP_INCLUDE_DIR})

foreach(_hf_std 99 17)
  add_library(hf_header_c${_hf_std} STATIC ${CMAKE_CURRENT_SOURCE_DIR}/header_c99.c)
  set_target_properties(hf_header_c${_hf_std} PROPERTIES
    C_STANDARD ${_hf_std} C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_include_directories(hf_header_c${_hf_std} PRIVATE ${_hf_header_dirs})
  target_compile_definitions(hf_header_c${_hf_std} PRIVATE
    HF_HEADER_PROBE=hf_header_probe_c${_hf_std})
  # Compile options follow the definitions on the command line, so this undoes the global define.
  target_compile_options(hf_header_c${_hf_std} PRIVATE -pedantic -U_GNU_SOURCE)
endforeach()

foreach(_hf_std 11 17)
  add_library(hf_header_cxx${_hf_std} STATIC ${CMAKE_CURRENT_SOURCE_DIR}/header_cxx11.cc)
  set_target_properties(hf_header_cxx${_hf_std} PROPERTIES
    CXX_STANDARD ${_hf_std} CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(hf_header_cxx${_hf_std} PRIVATE ${_hf_header_dirs})
  target_compile_definitions(hf_header_cxx${_hf_std} PRIVATE
    HF_HEADER_PROBE=hf_header_probe_cxx${_hf_std})
  target_compile_options(hf_header_cxx${_hf_std} PRIVATE -pedantic)
endforeach()

# No trait can see an attribute, so the nodiscard check compiles a file that must fail.
set(_hf_nodiscard_stamp ${CMAKE_CURRENT_BINARY_DIR}/header_nodiscard.stamp)
set(_hf_nodiscard_flags -std=c++17 -D__HIP_PLATFORM_AMD__)
foreach(_hf_dir IN LISTS _hf_header_dirs)
  list(APPEND _hf_nodiscard_flags -I${_hf_dir})
endforeach()
string(REPLACE ";" "|" _hf_nodiscard_flags "${_hf_nodiscard_flags}")
add_custom_command(OUTPUT ${_hf_nodiscard_stamp}
  COMMAND ${CMAKE_COMMAND} -DHF_COMPILER=${CMAKE_CXX_COMPILER} "-DHF_FLAGS=${_hf_nodiscard_flags}"
          -DHF_SOURCE=${CMAKE_CURRENT_SOURCE_DIR}/header_nodiscard.cc
          -DHF_STAMP=${_hf_nodiscard_stamp} -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/header_nodiscard.cc ${PROJECT_SOURCE_DIR}/include/hipfile.h
          ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Checking that hipfile.h makes hipFileError_t nodiscard in C++17"
  VERBATIM)
add_custom_target(hf_header_nodiscard ALL DEPENDS ${_hf_nodiscard_stamp})

hf_add_gtest(NAME api_header
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_header.cc
  LIBS hf_header_c99 hf_header_c17 hf_header_cxx11 hf_header_cxx17)
add_dependencies(api_header hf_header_nodiscard)
