# Driver for the install tests (tests/api/install.cmake), run with cmake -P.
#   STEP=install:  install the build tree with a prefix chosen at install time, not the configured
#                  one: first staged under DESTDIR, to check every file and that nothing lands
#                  outside the prefix; then plainly, `cmake --install BUILD --prefix DIR` as a user
#                  without root does, and check that the installed hipfile-check, and that of a
#                  copy of the tree moved elsewhere, find their own config file and plugins with no
#                  environment variable set.
#   STEP=consumer: build this directory's program against that prefix with find_package (linking
#                  hip::hipfile, AMD's name) and with pkg-config, and run both with an empty
#                  environment: the program reads a file into device memory through the installed
#                  config, plugins and host runtime.
foreach(_var STEP BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR C_COMPILER VERSION CONFIGURED_PREFIX
             BINDIR LIBDIR INCLUDEDIR CONFDIR DATADIR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_install.cmake needs -D${_var}=...")
  endif()
endforeach()

# The prefix is given only now, at install time: the build was configured for CONFIGURED_PREFIX.
set(_prefix ${WORK_DIR}/prefix)
set(_stage ${WORK_DIR}/stage)
set(_tree_file ${WORK_DIR}/installed-tree.cmake)

# Where a directory lands under install root @p root: relative ones under the prefix, absolute ones
# (an absolute CONFDIR: the prefix /usr puts hipfile.conf in /etc) where they say, below @p destdir.
function(hf_installed_path out root destdir dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} ${destdir}${dir} PARENT_SCOPE)
  else()
    set(${out} ${root}/${dir} PARENT_SCOPE)
  endif()
endfunction()

function(hf_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _cmd "${ARGN}")
    message(FATAL_ERROR "command failed (${_rc}): ${_cmd}\n${_out}")
  endif()
  set(hf_run_output "${_out}" PARENT_SCOPE)
endfunction()

# Programs run as a user's would: no HIPFILE_CONFIG, HIPFILE_PLUGIN_DIR, HIPFILE_GPU_RUNTIME or
# LD_LIBRARY_PATH, nor anything else from the test's environment.
find_program(HF_ENV_PROGRAM env REQUIRED)
set(_clean_env ${HF_ENV_PROGRAM} -i)

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${WORK_DIR})
  if(CONFIGURED_PREFIX STREQUAL _prefix)
    message(FATAL_ERROR "the build is configured for ${_prefix}; the test needs another prefix")
  endif()

  # 1. Staged: an install rule with an absolute destination stays inside the scratch tree and is
  #    reported, instead of writing into the real system.
  set(_root ${_stage}${_prefix})
  hf_run(${CMAKE_COMMAND} -E env DESTDIR=${_stage}
         ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${_prefix})
  hf_installed_path(_libdir ${_root} ${_stage} ${LIBDIR})
  hf_installed_path(_includedir ${_root} ${_stage} ${INCLUDEDIR})
  hf_installed_path(_confdir ${_root} ${_stage} ${CONFDIR})
  hf_installed_path(_datadir ${_root} ${_stage} ${DATADIR})
  hf_installed_path(_bindir ${_root} ${_stage} ${BINDIR})
  set(_missing "")
  foreach(_file
      ${_libdir}/libhipfile.so.0
      ${_libdir}/libhipfile.so
      ${_includedir}/hipfile.h
      ${_includedir}/hipfile/backend.h
      ${_libdir}/hipfile/plugins/libhipfile-fallback.so
      ${_libdir}/hipfile/plugins/fallback.xml
      ${_confdir}/hipfile.conf
      ${_datadir}/hipfile/backend-manifest.xsd
      ${_bindir}/hipfile-check
      ${_libdir}/cmake/hipfile/hipfileConfig.cmake
      ${_libdir}/cmake/hipfile/hipfileConfigVersion.cmake
      ${_libdir}/cmake/hipfile/hipfileTargets.cmake
      ${_libdir}/pkgconfig/hipfile.pc)
    if(NOT EXISTS ${_file})
      list(APPEND _missing ${_file})
    endif()
  endforeach()
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

  # Nothing may land outside the prefix except directories configured as absolute.
  file(GLOB_RECURSE _all LIST_DIRECTORIES false RELATIVE ${_stage} ${_stage}/*)
  set(_allowed ${_prefix})
  set(_absolute "")
  foreach(_dir ${BINDIR} ${LIBDIR} ${INCLUDEDIR} ${CONFDIR} ${DATADIR})
    if(IS_ABSOLUTE "${_dir}")
      list(APPEND _allowed ${_dir})
      list(APPEND _absolute ${_dir})
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
  # The installed config must not pin a plugin directory: the library finds the plugins installed
  # beside it, under whatever prefix the tree was installed with.
  file(STRINGS ${_confdir}/hipfile.conf _pinned REGEX "^[ \t]*directory[ \t]*=")
  if(_pinned)
    message(FATAL_ERROR "${_confdir}/hipfile.conf names a plugin directory: ${_pinned}")
  endif()
  list(LENGTH _all _count)
  message(STATUS "staged install: ${_count} files under ${_root}, all expected files present")

  # 2. Plainly, as a user without root: `cmake --install build --prefix DIR`. A build configured
  #    for the prefix /usr installs hipfile.conf into /etc, which a test must not write; there the
  #    staged tree, moved from where it was installed for, stands in.
  if(_absolute)
    message(STATUS "not installing plainly: the build, configured for ${CONFIGURED_PREFIX}, "
      "installs into ${_absolute}, outside any prefix; using the staged tree")
    set(_tree ${_root})
    set(_destdir ${_stage})
  else()
    hf_run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${_prefix})
    set(_tree ${_prefix})
    set(_destdir "")
    message(STATUS "plain install: cmake --install --prefix ${_prefix}")
  endif()
  hf_installed_path(_libdir ${_tree} "${_destdir}" ${LIBDIR})
  hf_installed_path(_confdir ${_tree} "${_destdir}" ${CONFDIR})
  hf_installed_path(_bindir ${_tree} "${_destdir}" ${BINDIR})
  file(WRITE ${_tree_file} "set(_tree \"${_tree}\")\nset(_libdir \"${_libdir}\")\n")

  # The installed hipfile-check (the core linked into a program in bin/) must find the installed
  # config file and plugins by itself, and so must a copy of the tree moved elsewhere. Without a GPU
  # it binds the host emulation installed beside it and says so; on any machine the report is
  # complete.
  function(hf_check_finds_its_tree what bindir libdir confdir)
    execute_process(COMMAND ${_clean_env} ${bindir}/hipfile-check --json
      OUTPUT_VARIABLE _json ERROR_VARIABLE _err RESULT_VARIABLE _rc)
    string(JSON _config_path ERROR_VARIABLE _json_error GET "${_json}" config path)
    if(_json_error)
      message(FATAL_ERROR "${what} hipfile-check --json (exit ${_rc}) gave no report: "
        "${_json_error}\n${_err}")
    endif()
    string(JSON _plugin_dir GET "${_json}" plugins directory)
    file(REAL_PATH ${libdir}/hipfile/plugins _want_plugin_dir)
    if(NOT _plugin_dir STREQUAL _want_plugin_dir)
      message(FATAL_ERROR "${what} hipfile-check looks for plugins in ${_plugin_dir}, "
        "not ${_want_plugin_dir}")
    endif()
    if(NOT _absolute)
      file(REAL_PATH ${confdir}/hipfile.conf _want_config)
      if(NOT _config_path STREQUAL _want_config)
        message(FATAL_ERROR "${what} hipfile-check read the config ${_config_path}, "
          "not ${_want_config}")
      endif()
    endif()
    if(NOT _config_path OR _config_path STREQUAL "null")
      set(_config_path "none (built-in defaults)")
    endif()
    message(STATUS "${what} hipfile-check: config ${_config_path}, plugins ${_plugin_dir}")
  endfunction()
  hf_check_finds_its_tree(installed ${_bindir} ${_libdir} ${_confdir})
  set(_moved ${WORK_DIR}/moved)
  file(COPY ${_tree}/ DESTINATION ${_moved})
  hf_installed_path(_moved_libdir ${_moved} "${_destdir}" ${LIBDIR})
  hf_installed_path(_moved_confdir ${_moved} "${_destdir}" ${CONFDIR})
  hf_installed_path(_moved_bindir ${_moved} "${_destdir}" ${BINDIR})
  hf_check_finds_its_tree(moved ${_moved_bindir} ${_moved_libdir} ${_moved_confdir})

  # The Python package installed with the library finds that library, and through it the config,
  # plugins and host runtime installed beside it, with nothing set but its directory on the path
  # (for the configured prefix, python/CMakeLists.txt picks a directory python3 searches itself).
  if(DEFINED PYTHONDIR AND NOT IS_ABSOLUTE "${PYTHONDIR}" AND EXISTS /usr/bin/python3)
    set(_py_check "import os, hipfile\n\
lib = os.path.realpath(hipfile.library_path())\n\
assert lib.startswith(os.path.realpath('${_tree}')), lib\n\
data = os.urandom(1 << 20)\n\
path = '${WORK_DIR}/py-roundtrip.bin'\n\
with hipfile.File(path, 'w+') as f:\n\
    assert f.write(data) == len(data)\n\
    back = bytearray(len(data))\n\
    assert f.read(back) == len(data) and bytes(back) == data\n\
print('python package from the installed tree:', lib)\n")
    hf_run(${_clean_env} PYTHONPATH=${_tree}/${PYTHONDIR} HIPFILE_GPU_RUNTIME=host
           /usr/bin/python3 -c "${_py_check}")
    message(STATUS "${hf_run_output}")
  endif()

  # Without its config file the tree runs on the built-in defaults, and the info line that says so
  # shows at the level the load itself sets (here HIPFILE_LOG_LEVEL=info).
  if(NOT _absolute AND NOT EXISTS /etc/hipfile.conf)
    file(REMOVE ${_moved_confdir}/hipfile.conf)
    file(REAL_PATH ${_moved_confdir} _moved_confdir_real)
    execute_process(COMMAND ${_clean_env} HIPFILE_LOG_LEVEL=info ${_moved_bindir}/hipfile-check
                            --verbose
      OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
    string(FIND "${_out}" "hipfile[core] info: no config file at ${_moved_confdir_real}/hipfile.conf or /etc/hipfile.conf; using built-in defaults" _at)
    if(_at LESS 0)
      message(FATAL_ERROR "without its config file, the moved tree's hipfile-check does not say "
        "so at info level (exit ${_rc}):\n${_out}${_err}")
    endif()
  endif()

elseif(STEP STREQUAL "consumer")
  if(NOT EXISTS ${_tree_file})
    message(FATAL_ERROR "no installed tree under ${WORK_DIR}: run STEP=install first")
  endif()
  include(${_tree_file})
  # A file longer than one read, with known contents.
  string(REPEAT "hipfile install check 0123456789\n" 256 _data)
  file(WRITE ${WORK_DIR}/data.txt "${_data}")
  set(_expect "hipfile ${VERSION} read 4096 bytes into device memory, identical to the file")

  # 1. CMake: find_package(hipfile) from the installed prefix, nothing else; the program links
  #    hip::hipfile, as programs written for AMD's package do. CMake gives the program an RPATH to
  #    the libraries it linked, so it runs with nothing set.
  set(_build ${WORK_DIR}/consumer-cmake)
  file(REMOVE_RECURSE ${_build})
  hf_run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${_build} -G ${GENERATOR}
         -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${_tree}
         -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
  file(STRINGS ${_build}/CMakeCache.txt _found REGEX "^hipfile_DIR:")
  if(NOT _found STREQUAL "hipfile_DIR:PATH=${_libdir}/cmake/hipfile")
    message(FATAL_ERROR "find_package found another hipfile: ${_found}")
  endif()
  hf_run(${CMAKE_COMMAND} --build ${_build})
  hf_run(${_clean_env} ${_build}/consumer ${WORK_DIR}/data.txt)
  if(NOT hf_run_output MATCHES "${_expect}")
    message(FATAL_ERROR "consumer (find_package, hip::hipfile) printed: ${hf_run_output}")
  endif()
  message(STATUS "find_package consumer: ${hf_run_output}")

  # 2. pkg-config, searching only the installed prefix. pkg-config gives no RPATH (no .pc file
  #    does); a prefix outside the loader's search path takes -Wl,-rpath to its libdir, as the
  #    getting-started page tells users.
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
  hf_run(${CMAKE_COMMAND} -E env ${_pc_env} pkg-config --variable=libdir hipfile)
  string(STRIP "${hf_run_output}" _pc_libdir)
  separate_arguments(_pc_args UNIX_COMMAND "${_pc_flags}")
  # pkg-config gives the library; the program picks its HIP runtime itself (here the host provider).
  hf_run(${C_COMPILER} -std=c17 -Wall -Wextra -Werror ${CONSUMER_DIR}/consumer.c ${_pc_args}
         -l:libhip-host.so.0 -Wl,-rpath,${_pc_libdir} -o ${WORK_DIR}/consumer-pkgconfig)
  hf_run(${_clean_env} ${WORK_DIR}/consumer-pkgconfig ${WORK_DIR}/data.txt)
  if(NOT hf_run_output MATCHES "${_expect}")
    message(FATAL_ERROR "consumer (pkg-config) printed: ${hf_run_output}")
  endif()
  message(STATUS "pkg-config consumer (${_pc_flags}): ${hf_run_output}")

else()
  message(FATAL_ERROR "STEP must be install or consumer, not '${STEP}'")
endif()
