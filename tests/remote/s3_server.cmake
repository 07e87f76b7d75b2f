# The S3 pieces against a live S3-compatible server: s3rver from the npm registry, started on
# 127.0.0.1 at a free port by the fixture below (servers/s3rver.sh) and stopped after the tests.
# The npm packages live in HIPFILE_TEST_SERVERS_DIR (environment at test time, else this cache
# variable), which scripts/lib/common.sh fills under CI; without them the tests are skipped.
find_package(CURL REQUIRED)
set(HIPFILE_TEST_SERVERS_DIR "${CMAKE_BINARY_DIR}/test-servers" CACHE PATH
  "Where scripts/lib/common.sh installs the npm test servers (node_modules inside it)")
set(_hf_s3rver_dir ${CMAKE_CURRENT_BINARY_DIR}/s3rver)
add_test(NAME remote.s3rver.start
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/servers/s3rver.sh start ${_hf_s3rver_dir}
    ${HIPFILE_TEST_SERVERS_DIR})
add_test(NAME remote.s3rver.stop
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/servers/s3rver.sh stop ${_hf_s3rver_dir})
set_tests_properties(remote.s3rver.start PROPERTIES LABELS "cpu;remote" TIMEOUT 60
  SKIP_RETURN_CODE 77 FIXTURES_SETUP s3rver)
set_tests_properties(remote.s3rver.stop PROPERTIES LABELS "cpu;remote" TIMEOUT 60
  FIXTURES_CLEANUP s3rver)
hf_add_gtest(NAME test_remote_s3_server
  SOURCES test_s3_server.cc s3_client.cc
  LIBS hipfile_remote_s3 CURL::libcurl
  LABELS remote
  ENV HIPFILE_TEST_S3RVER_DIR=${_hf_s3rver_dir}
  FIXTURES s3rver)
