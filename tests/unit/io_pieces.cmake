# Requests larger than one backend call can move, served whole in pieces (core/api/io.c), over a
# scripted fixture backend that reports GiBs without moving them.
hf_add_gtest(NAME unit_io_pieces SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_io_pieces.cc INTERNAL)
target_include_directories(unit_io_pieces PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures/plugins)
add_dependencies(unit_io_pieces hipfile-fixture-plugins)
