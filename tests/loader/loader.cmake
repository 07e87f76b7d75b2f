# The plugin loader and manifest reader against the fixture plugins (tests/fixtures/plugins.cmake).
hf_add_gtest(NAME test_loader SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_loader.cc INTERNAL)
target_include_directories(test_loader PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures/plugins)
add_dependencies(test_loader hipfile-fixture-plugins)

# A backend reporting ABI minor 2 (tests/loader/older_backend.c), beside the fixture plugins.
hipfile_add_plugin(NAME older-abi
  TARGET hf-fixture-older-abi
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/older_backend.c
  OUTPUT_DIR ${CMAKE_BINARY_DIR}/tests/fixtures/plugins
  NO_INSTALL
  DEFINITIONS OLDER_MINOR=2u)
add_dependencies(test_loader hf-fixture-older-abi)
