# The plugin kit (plugins/common/plugin_kit.h): the entry point it makes, its host table check, its
# declared-setting readers and core limits, on a backend built with it (plugin_kit_subject.c) and a
# host table the test makes complete or not.
hf_add_gtest(NAME test_plugin_kit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plugin_kit.cc
          ${CMAKE_CURRENT_LIST_DIR}/plugin_kit_subject.c
  LIBS hipfile_plugin_common)
