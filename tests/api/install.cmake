# Install checks: `cmake --install` of the build tree with a prefix chosen at install time (not the
# configured one) puts every file where consumers and the loader expect it, inside that prefix; the
# installed tree then works with no environment variable set: the installed hipfile-check finds its
# config file and plugins, and a small program builds and runs against it both through
# find_package(hipfile) (linking hip::hipfile, AMD's name) and through pkg-config. The work lives in
# consumer/check_install.cmake.
set(_hf_install_args
  -DBUILD_DIR=${CMAKE_BINARY_DIR}
  -DCONSUMER_DIR=${CMAKE_CURRENT_SOURCE_DIR}/consumer
  -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-check
  -DGENERATOR=${CMAKE_GENERATOR}
  -DC_COMPILER=${CMAKE_C_COMPILER}
  -DVERSION=${PROJECT_VERSION}
  -DCONFIGURED_PREFIX=${CMAKE_INSTALL_PREFIX}
  -DBINDIR=${CMAKE_INSTALL_BINDIR}
  -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
  -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
  -DCONFDIR=${HF_INSTALL_CONFDIR}
  -DDATADIR=${CMAKE_INSTALL_DATADIR}
  -DPYTHONDIR=${HIPFILE_PYTHON_INSTALL_DIR})

add_test(NAME install.InstalledTreeHasEveryFile
  COMMAND ${CMAKE_COMMAND} ${_hf_install_args} -DSTEP=install
          -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/check_install.cmake)
add_test(NAME install.ConsumerBuildsWithFindPackageAndPkgConfig
  COMMAND ${CMAKE_COMMAND} ${_hf_install_args} -DSTEP=consumer
          -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/check_install.cmake)
set_tests_properties(install.InstalledTreeHasEveryFile PROPERTIES
  LABELS "cpu;install" TIMEOUT 300 FIXTURES_SETUP hipfile_installed)
set_tests_properties(install.ConsumerBuildsWithFindPackageAndPkgConfig PROPERTIES
  LABELS "cpu;install" TIMEOUT 300 FIXTURES_REQUIRED hipfile_installed)
