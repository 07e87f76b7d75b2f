# The sixteen-stream read of test_api_async (async.cmake) with the host runtime's strict holds on:
# the library must not create or free streams or pinned or device memory while its stream waits
# hold application streams, because the CUDA driver blocks those calls until the streams move
# (docs/runtimes.rst, "Strict holds"). A violation aborts the test, naming the call.
#
# The host runtime's device memory is CPU-addressable, so by default fastpath and the fallback
# serve it without staging slots and nothing would be checked: this configuration enables only the
# fallback and makes it stage device memory, so every read goes through staging slots.
if(TARGET test_api_async)
  set(_hf_strict_conf ${CMAKE_CURRENT_BINARY_DIR}/async_strict.conf)
  file(WRITE ${_hf_strict_conf}
    "# api.async.strict_holds (tests/api/async_strict.cmake): staged reads through the fallback.\n"
    "plugins = {\n  directory = \"${HF_BUILD_PLUGINDIR}\";\n  enable = [ \"fallback\" ];\n};\n"
    "fallback = {\n  bounce_host_accessible = true;\n};\n")
  add_test(NAME api.async.strict_holds
    COMMAND test_api_async --gtest_filter=AsyncTest.SixteenStreamsOfQueuedReadsAllArriveIntact)
  set_tests_properties(api.async.strict_holds PROPERTIES
    LABELS "api;cpu"
    TIMEOUT 120
    # A filter that matches nothing passes in GoogleTest; a renamed test must not pass here.
    FAIL_REGULAR_EXPRESSION "Running 0 tests"
    ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${_hf_strict_conf};HIP_HOST_STRICT_HOLDS=1;HIP_HOST_STRICT_HOLDS_TIMEOUT_MS=10000")
endif()
