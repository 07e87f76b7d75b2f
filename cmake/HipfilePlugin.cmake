# hipfile_add_plugin(NAME name SOURCES ... [LIBRARIES ...] [MANIFEST file] [OUTPUT_DIR dir] [NO_INSTALL])
#
# Builds a backend plugin as a MODULE library libhipfile-<name>.so that exports only
# hf_backend_entry_v1 (version script), copies its XML manifest beside it, and installs both into
# the plugin directory. Fixture plugins for tests pass OUTPUT_DIR and NO_INSTALL.
set(HF_PLUGIN_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

function(hipfile_add_plugin)
  cmake_parse_arguments(P "NO_INSTALL" "NAME;MANIFEST;OUTPUT_DIR;TARGET" "SOURCES;LIBRARIES;DEFINITIONS" ${ARGN})
  if(NOT P_TARGET)
    set(P_TARGET hipfile-plugin-${P_NAME})
  endif()
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${HF_BUILD_PLUGINDIR})
  endif()
  add_library(${P_TARGET} MODULE ${P_SOURCES})
  set_target_properties(${P_TARGET} PROPERTIES
    OUTPUT_NAME hipfile-${P_NAME}
    PREFIX lib
    LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIR}
    C_VISIBILITY_PRESET hidden
    LINK_DEPENDS ${HF_PLUGIN_VERSION_SCRIPT})
  target_include_directories(${P_TARGET} PRIVATE ${PROJECT_SOURCE_DIR}/include ${HIP_INCLUDE_DIR})
  target_link_options(${P_TARGET} PRIVATE -Wl,--version-script=${HF_PLUGIN_VERSION_SCRIPT} -Wl,--no-undefined)
  if(P_DEFINITIONS)
    target_compile_definitions(${P_TARGET} PRIVATE ${P_DEFINITIONS})
  endif()
  if(P_LIBRARIES)
    target_link_libraries(${P_TARGET} PRIVATE ${P_LIBRARIES})
  endif()
  if(P_MANIFEST)
    get_filename_component(_mname ${P_MANIFEST} NAME)
    add_custom_command(TARGET ${P_TARGET} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${P_MANIFEST} ${P_OUTPUT_DIR}/${_mname}
      VERBATIM)
    if(NOT P_NO_INSTALL)
      install(FILES ${P_MANIFEST} DESTINATION ${HF_INSTALL_PLUGINDIR})
    endif()
  endif()
  if(NOT P_NO_INSTALL)
    install(TARGETS ${P_TARGET} LIBRARY DESTINATION ${HF_INSTALL_PLUGINDIR})
  endif()
endfunction()
