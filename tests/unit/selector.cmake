# The selector (ordering, filtering, fallback chain) over scripted fixture backends.
hf_add_gtest(NAME test_selector SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_selector.cc INTERNAL)
target_include_directories(test_selector PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures/plugins)
add_dependencies(test_selector hipfile-fixture-plugins)
