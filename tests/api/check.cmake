# hipfile-check run the way users run it (tools/hipfile-check): the report on the build tree, with
# no variable as after scripts/demo, the --explain verdict on a scratch file, --json through a JSON
# parser, broken and empty plugin directories, a malformed config, typos in the config and the
# environment with the fix for each, a missing runtime, each backend's declared keys with their
# sources, bad options, and URLs shown without their secrets. Each case is one run of
# test_check.sh, on the host runtime with the build tree's config.
if(NOT TARGET hipfile-check)
  return()
endif()

find_program(HF_BASH bash)
find_package(Python3 COMPONENTS Interpreter)
if(NOT HF_BASH OR NOT Python3_Interpreter_FOUND)
  message(STATUS "hipfile-check tests need bash and python3; not added")
  return()
endif()

set(_hf_check_cases
  ReportListsFallbackAsLoaded
  ExplainNamesFallbackAsServer
  JsonOutputParses
  BrokenPluginsAreNamedWithTheirReasons
  EmptyPluginDirectoryExitsOne
  MalformedConfigIsNamedWithItsLine
  RunsFromTheBuildTreeWithoutVariables
  EveryProblemIsListedWithItsFix
  MisspeltEnableNameIsNamedWithTheFix
  ConfigTyposAreWarnedWithFileAndLine
  BadEnvironmentValueIsBlamedOnTheVariable
  MissingRuntimeSaysWhy
  HostBufferNeedsSystemMemory
  PluginSettingsAreListedPerBackend
  BadOptionsExitTwo
  SecretsInUrlsAreRedacted)

foreach(_hf_case IN LISTS _hf_check_cases)
  add_test(NAME check.${_hf_case}
    COMMAND ${HF_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/test_check.sh ${_hf_case}
            $<TARGET_FILE:hipfile-check> ${HF_BUILD_PLUGINDIR}
            ${CMAKE_BINARY_DIR}/tests/fixtures/plugins
            ${PROJECT_SOURCE_DIR}/tests/fixtures/plugins/manifests)
  set_tests_properties(check.${_hf_case} PROPERTIES
    LABELS "cpu;check"
    ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf"
    TIMEOUT 120)
endforeach()
