# The plugin loader and manifest reader against the fixture plugins (tests/fixtures/plugins.cmake).
hf_add_gtest(NAME test_loader SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_loader.cc INTERNAL)
target_include_directories(test_loader PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures/plugins)
add_dependencies(test_loader hipfile-fixture-plugins)
