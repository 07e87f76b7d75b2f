# Driver for the install tests (tests/api/install.cmake), run with cmake -P.
#   STEP=install:  `cmake --install` the build tree into a staging directory and check the files.
#   STEP=consumer: build this directory's program against the staged prefix with find_package and
#                  with pkg-config, and run both.
# Installing goes through DESTDIR, so even a rule with an absolute destination stays inside the
# scratch directory (and is reported, since it would not follow --prefix).
foreach(_var STEP BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR C_COMPILER VERSION LIBDIR INCLUDEDIR
             SYSCONFDIR FULL_SYSCONFDIR DATADIR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_install.cmake needs -D${_var}=...")
  endif()
endforeach()

set(_stage ${WORK_DIR}/stage)
set(_prefix_name /opt/hipfile-install-check)
set(_root ${_stage}${_prefix_name})

# Where a GNUInstallDirs path lands: relative ones under the prefix, absolute ones under DESTDIR.
function(hf_staged_path out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} ${_stage}${dir} PARENT_SCOPE)
  else()
    set(${out} ${_root}/${dir} PARENT_SCOPE)
  endif()
endfunction()
hf_staged_path(_libdir ${LIBDIR})
hf_staged_path(_includedir ${INCLUDEDIR})
hf_staged_path(_sysconfdir ${SYSCONFDIR})
hf_staged_path(_datadir ${DATADIR})

function(hf_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _cmd "${ARGN}")
    message(FATAL_ERROR "command failed (${_rc}): ${_cmd}\n${_out}")
  endif()
  set(hf_run_output "${_out}" PARENT_SCOPE)
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${WORK_DIR})
  hf_run(${CMAKE_COMMAND} -E env DESTDIR=${_stage}
         ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${_prefix_name})

  set(_missing "")
  foreach(_file
      ${_libdir}/libhipfile.so.0
      ${_libdir}/libhipfile.so
      ${_includedir}/hipfile.h
      ${_includedir}/hipfile/backend.h
      ${_libdir}/hipfile/plugins/libhipfile-fallback.so
      ${_libdir}/hipfile/plugins/fallback.xml
      ${_datadir}/hipfile/backend-manifest.xsd
      ${_libdir}/cmake/hipfile/hipfileConfig.cmake
      ${_libdir}/cmake/hipfile/hipfileConfigVersion.cmake
      ${_libdir}/cmake/hipfile/hipfileTargets.cmake
      ${_libdir}/pkgconfig/hipfile.pc)
    if(NOT EXISTS ${_file})
      list(APPEND _missing ${_file})
    endif()
  endforeach()
  # The library reads its config from the configured sysconfdir (/etc for the prefix /usr), a path
  # compiled in, so the file may be installed there rather than under the prefix.
  if(NOT EXISTS ${_sysconfdir}/hipfile.conf AND NOT EXISTS ${_stage}${FULL_SYSCONFDIR}/hipfile.conf)
    list(APPEND _missing "${_sysconfdir}/hipfile.conf (or ${FULL_SYSCONFDIR}/hipfile.conf)")
  endif()
  # The host runtime provider sits beside the library, where the core looks for it.
  file(GLOB _host_provider ${_libdir}/libhip-host.so*)
  if(NOT _host_provider)
    list(APPEND _missing "${_libdir}/libhip-host.so*")
  endif()
  # Every plugin library needs its manifest: the loader only opens what a manifest names.
  file(GLOB _plugins RELATIVE ${_libdir}/hipfile/plugins ${_libdir}/hipfile/plugins/libhipfile-*.so)
  foreach(_plugin IN LISTS _plugins)
    string(REGEX REPLACE "^libhipfile-(.*)\\.so$" "\\1" _name ${_plugin})
    if(NOT EXISTS ${_libdir}/hipfile/plugins/${_name}.xml)
      list(APPEND _missing "${_libdir}/hipfile/plugins/${_name}.xml (manifest of ${_plugin})")
    endif()
  endforeach()
  if(_missing)
    string(REPLACE ";" "\n  " _list "${_missing}")
    message(FATAL_ERROR "missing after install:\n  ${_list}")
  endif()

  # Nothing may land outside the prefix except the configured absolute directories.
  file(GLOB_RECURSE _all LIST_DIRECTORIES false RELATIVE ${_stage} ${_stage}/*)
  set(_allowed ${_prefix_name} ${FULL_SYSCONFDIR})
  foreach(_dir ${LIBDIR} ${INCLUDEDIR} ${SYSCONFDIR} ${DATADIR})
    if(IS_ABSOLUTE "${_dir}")
      list(APPEND _allowed ${_dir})
    endif()
  endforeach()
  set(_stray "")
  foreach(_file IN LISTS _all)
    set(_inside FALSE)
    foreach(_dir IN LISTS _allowed)
      string(FIND "/${_file}" "${_dir}/" _at)
      if(_at EQUAL 0)
        set(_inside TRUE)
      endif()
    endforeach()
    if(NOT _inside)
      list(APPEND _stray /${_file})
    endif()
  endforeach()
  if(_stray)
    string(REPLACE ";" "\n  " _list "${_stray}")
    message(FATAL_ERROR "installed outside the prefix (absolute DESTINATION?):\n  ${_list}")
  endif()
  list(LENGTH _all _count)
  message(STATUS "install: ${_count} files under ${_root}, all expected files present")

elseif(STEP STREQUAL "consumer")
  if(NOT EXISTS ${_libdir}/cmake/hipfile/hipfileConfig.cmake)
    message(FATAL_ERROR "no staged install at ${_root}: run STEP=install first")
  endif()

  # 1. CMake: find_package(hipfile) from the staged prefix, nothing else.
  set(_build ${WORK_DIR}/consumer-cmake)
  file(REMOVE_RECURSE ${_build})
  hf_run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${_build} -G ${GENERATOR}
         -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${_root}
         -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
  file(STRINGS ${_build}/CMakeCache.txt _found REGEX "^hipfile_DIR:")
  if(NOT _found STREQUAL "hipfile_DIR:PATH=${_libdir}/cmake/hipfile")
    message(FATAL_ERROR "find_package found another hipfile: ${_found}")
  endif()
  hf_run(${CMAKE_COMMAND} --build ${_build})
  hf_run(${_build}/consumer)
  if(NOT hf_run_output MATCHES "hipfile ${VERSION} ")
    message(FATAL_ERROR "consumer (find_package) printed: ${hf_run_output}")
  endif()
  message(STATUS "find_package consumer: ${hf_run_output}")

  # 2. pkg-config, searching only the staged prefix.
  set(_pc_env PKG_CONFIG_PATH=${_libdir}/pkgconfig PKG_CONFIG_LIBDIR=${_libdir}/pkgconfig)
  hf_run(${CMAKE_COMMAND} -E env ${_pc_env} pkg-config --modversion hipfile)
  string(STRIP "${hf_run_output}" _pc_version)
  if(NOT _pc_version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config reports version '${_pc_version}', expected ${VERSION}")
  endif()
  hf_run(${CMAKE_COMMAND} -E env ${_pc_env} pkg-config --cflags --libs hipfile)
  string(STRIP "${hf_run_output}" _pc_flags)
  if(NOT _pc_flags MATCHES "-D__HIP_PLATFORM_AMD__" OR NOT _pc_flags MATCHES "-lhipfile")
    message(FATAL_ERROR "pkg-config flags lack -D__HIP_PLATFORM_AMD__ or -lhipfile: ${_pc_flags}")
  endif()
  separate_arguments(_pc_args UNIX_COMMAND "${_pc_flags}")
  # pkg-config gives the library; the program picks its HIP runtime itself (here the host provider).
  hf_run(${C_COMPILER} -std=c17 -Wall -Wextra -Werror ${CONSUMER_DIR}/consumer.c ${_pc_args}
         -l:libhip-host.so.0 -o ${WORK_DIR}/consumer-pkgconfig)
  hf_run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${_libdir} ${WORK_DIR}/consumer-pkgconfig)
  if(NOT hf_run_output MATCHES "hipfile ${VERSION} ")
    message(FATAL_ERROR "consumer (pkg-config) printed: ${hf_run_output}")
  endif()
  message(STATUS "pkg-config consumer (${_pc_flags}): ${hf_run_output}")

else()
  message(FATAL_ERROR "STEP must be install or consumer, not '${STEP}'")
endif()
