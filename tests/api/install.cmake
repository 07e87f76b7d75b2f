# Install checks: `cmake --install` of the build tree into a scratch prefix puts every file where
# consumers and the loader expect it, and a small program builds and runs against that prefix both
# through find_package(hipfile) and through pkg-config. The work lives in consumer/check_install.cmake.
set(_hf_install_args
  -DBUILD_DIR=${CMAKE_BINARY_DIR}
  -DCONSUMER_DIR=${CMAKE_CURRENT_SOURCE_DIR}/consumer
  -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-check
  -DGENERATOR=${CMAKE_GENERATOR}
  -DC_COMPILER=${CMAKE_C_COMPILER}
  -DVERSION=${PROJECT_VERSION}
  -DLIBDIR=${CMAKE_INSTALL_LIBDIR}
  -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
  -DSYSCONFDIR=${CMAKE_INSTALL_SYSCONFDIR}
  -DFULL_SYSCONFDIR=${CMAKE_INSTALL_FULL_SYSCONFDIR}
  -DDATADIR=${CMAKE_INSTALL_DATADIR})

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
