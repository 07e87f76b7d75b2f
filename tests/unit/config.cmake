# The settings table, the config file and environment (core/config/config.c, core/config/settings.c), the
# parameter API (core/api/params.c) and hipFileDriverGetProperties (core/api/properties.c).
hf_add_gtest(NAME unit_config INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.cc)
target_include_directories(unit_config PRIVATE ${PROJECT_SOURCE_DIR}/core)
target_compile_definitions(unit_config PRIVATE HF_TEST_BUILD_CONFIG="${CMAKE_BINARY_DIR}/hipfile.conf")

hf_add_gtest(NAME unit_params INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_params.cc)
target_include_directories(unit_params PRIVATE ${PROJECT_SOURCE_DIR}/core)

hf_add_gtest(NAME unit_properties INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_properties.cc)
target_include_directories(unit_properties PRIVATE ${PROJECT_SOURCE_DIR}/core)

# Environment (set-user-ID processes, AMD's variables), paths, and core settings read by backends.
hf_add_gtest(NAME unit_env INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_env.cc)
target_include_directories(unit_env PRIVATE ${PROJECT_SOURCE_DIR}/core)

# docs/configuration.rst's reference table, rendered from the settings table and the keys the built
# plugins declare, and compared.
hf_add_gtest(NAME unit_config_reference INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config_reference.cc)
target_include_directories(unit_config_reference PRIVATE ${PROJECT_SOURCE_DIR}/core)
target_compile_definitions(unit_config_reference PRIVATE
  HF_TEST_CONFIG_PAGE="${PROJECT_SOURCE_DIR}/docs/configuration.rst")
foreach(_hf_plugin fallback fastpath nvme-passthru)
  if(TARGET hipfile-plugin-${_hf_plugin})
    add_dependencies(unit_config_reference hipfile-plugin-${_hf_plugin})
  endif()
endforeach()

# Keys plugins declare for their groups (core/config/config_declared.c), through
# hf_config_declare_plugin_settings and the listing hipfile-check and the docs use.
hf_add_gtest(NAME unit_config_declared INTERNAL
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config_declared.cc)
target_include_directories(unit_config_declared PRIVATE ${PROJECT_SOURCE_DIR}/core)
