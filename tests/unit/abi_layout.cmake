# Compile-time pins of every public and plugin ABI struct layout and enumerator value.
hf_add_gtest(NAME unit_abi_layout
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_abi_layout.cc
  INTERNAL)
