# Package files for consumers of an installed hipfile: the CMake package (find_package(hipfile)
# gives hipfile::hipfile, and hip::hipfile as AMD's package names it) and a pkg-config file.
# Included last from the top-level CMakeLists.txt, once every target and install rule exists.
include(CMakePackageConfigHelpers)

set(HF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hipfile)

install(EXPORT hipfileTargets
  NAMESPACE hipfile::
  FILE hipfileTargets.cmake
  DESTINATION ${HF_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/hipfileConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/hipfileConfig.cmake
  INSTALL_DESTINATION ${HF_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR HF_INSTALL_PLUGINDIR)
# The API is AMD's and stays source compatible within a major version.
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/package/hipfileConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_BINARY_DIR}/package/hipfileConfig.cmake
  ${CMAKE_BINARY_DIR}/package/hipfileConfigVersion.cmake
  DESTINATION ${HF_INSTALL_CMAKEDIR})

# The .pc file finds its prefix from its own location (${pcfiledir}), so a tree installed with
# `cmake --install build --prefix DIR` or unpacked elsewhere still gives correct paths.
set(HF_PC_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH HF_PC_PREFIX_FROM_PCDIR
  ${CMAKE_INSTALL_PREFIX}/${HF_PC_INSTALL_DIR} ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" HF_PC_PREFIX_FROM_PCDIR "${HF_PC_PREFIX_FROM_PCDIR}")
foreach(_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(HF_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(HF_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
# HIP headers outside the compiler's default search path need their own -I.
set(HF_PC_HIP_CFLAGS "")
if(NOT HIP_INCLUDE_DIR IN_LIST CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
  set(HF_PC_HIP_CFLAGS " -I${HIP_INCLUDE_DIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/hipfile.pc.in ${CMAKE_BINARY_DIR}/package/hipfile.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/hipfile.pc DESTINATION ${HF_PC_INSTALL_DIR})
