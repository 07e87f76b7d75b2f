# The remote backend against HTTP servers on loopback: nginx (the ctest fixture remote_nginx
# starts it on a free port with a temporary document root and stops it afterwards;
# servers/nginx_fixture.sh) for range reads, and a fault-injecting server in Python's standard
# library (servers/fault_server.py) that each fault test starts itself.
set(_hf_nginx_dir ${CMAKE_CURRENT_BINARY_DIR}/nginx)
add_test(NAME remote.nginx.start
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/servers/nginx_fixture.sh start ${_hf_nginx_dir})
add_test(NAME remote.nginx.stop
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/servers/nginx_fixture.sh stop ${_hf_nginx_dir})
set_tests_properties(remote.nginx.start PROPERTIES LABELS "cpu;remote" TIMEOUT 60
  SKIP_RETURN_CODE 77 FIXTURES_SETUP remote_nginx)
set_tests_properties(remote.nginx.stop PROPERTIES LABELS "cpu;remote" TIMEOUT 60
  FIXTURES_CLEANUP remote_nginx)

hf_add_gtest(NAME test_remote_http SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_http.cc
  LABELS remote ENV HF_TEST_NGINX_DIR=${_hf_nginx_dir} FIXTURES remote_nginx)
hf_add_gtest(NAME test_remote_faults SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_faults.cc
  LABELS remote)
# Every failure of an open, a read and a write, with a secret in the URL, logged at debug.
hf_add_gtest(NAME test_remote_secrets SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_secrets.cc
  LABELS remote ENV HIPFILE_LOG_LEVEL=debug)

# s3:// objects through hipFileRemoteOpen, against the s3rver of s3_server.cmake.
hf_add_gtest(NAME test_remote_s3_objects SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_s3.cc
  LABELS remote ENV HIPFILE_TEST_S3RVER_DIR=${CMAKE_CURRENT_BINARY_DIR}/s3rver FIXTURES s3rver)

# cuFileRemoteOpen, the cuFile layer's URL extension, against the same nginx.
if(TARGET hipfile-cufile)
  hf_add_gtest(NAME test_remote_cufile SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_cufile.cc
    LIBS hipfile-cufile LABELS remote ENV HF_TEST_NGINX_DIR=${_hf_nginx_dir} FIXTURES remote_nginx)
  target_compile_definitions(test_remote_cufile PRIVATE HIPFILE_CUFILE_NO_CUDA_H)
endif()

# The remote read benchmark (scripts/bench-remote) runs briefly on a small object, so the script
# and hipfile-remote-read stay working; its figures come from a full run (docs/performance.rst).
add_test(NAME remote.bench_smoke
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/bench-remote 16 4 1 1024)
set_tests_properties(remote.bench_smoke PROPERTIES LABELS "cpu;remote" TIMEOUT 120
  PASS_REGULAR_EXPRESSION "hipfile / curl: [0-9]+[.][0-9]+"
  ENVIRONMENT "HIPFILE_BUILD_DIR=${CMAKE_BINARY_DIR};HIPFILE_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf;HIPFILE_GPU_RUNTIME=host")

# The how-to's program (docs/howto/read-checkpoint-from-s3.rst): a checkpoint saved to s3rver as a
# multipart upload and loaded back into device memory. The page shows its source, so it is
# recorded as covered for docs.code_blocks_covered.
add_executable(checkpoint-s3 ${PROJECT_SOURCE_DIR}/examples/checkpoint_s3.c)
target_link_libraries(checkpoint-s3 PRIVATE hipfile hip-host)
set(_hf_s3rver_dir ${CMAKE_CURRENT_BINARY_DIR}/s3rver)
add_test(NAME remote.howto_checkpoint_s3
  COMMAND sh -c "[ -s '${_hf_s3rver_dir}/endpoint' ] || { echo 'no s3rver running'; exit 77; }; e=$(cat '${_hf_s3rver_dir}/endpoint'); b=$(cat '${_hf_s3rver_dir}/bucket'); '$<TARGET_FILE:checkpoint-s3>' save s3://$b/howto/ckpt.bin 12582917 \"endpoint=$e;multipart_threshold_kb=5120;part_size_kb=5120\" && '$<TARGET_FILE:checkpoint-s3>' load s3://$b/howto/ckpt.bin 12582917 \"endpoint=$e\"")
set_tests_properties(remote.howto_checkpoint_s3 PROPERTIES LABELS "cpu;remote" TIMEOUT 120
  FIXTURES_REQUIRED s3rver SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "checkpoint intact"
  ENVIRONMENT "HIPFILE_GPU_RUNTIME=host;HIPFILE_CONFIG=${CMAKE_BINARY_DIR}/hipfile.conf;AWS_ACCESS_KEY_ID=S3RVER;AWS_SECRET_ACCESS_KEY=S3RVER;AWS_REGION=us-east-1")
set_property(GLOBAL APPEND PROPERTY HF_DOC_COVERED_FILES ${PROJECT_SOURCE_DIR}/examples/checkpoint_s3.c)
