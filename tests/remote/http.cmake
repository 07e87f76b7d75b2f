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

# s3:// objects through hipfileRemoteOpen, against the s3rver of s3_server.cmake.
hf_add_gtest(NAME test_remote_s3_objects SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_s3.cc
  LABELS remote ENV HIPFILE_TEST_S3RVER_DIR=${CMAKE_CURRENT_BINARY_DIR}/s3rver FIXTURES s3rver)

# cuFileRemoteOpen, the cuFile layer's URL extension, against the same nginx.
if(TARGET hipfile-cufile)
  hf_add_gtest(NAME test_remote_cufile SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_remote_cufile.cc
    LIBS hipfile-cufile LABELS remote ENV HF_TEST_NGINX_DIR=${_hf_nginx_dir} FIXTURES remote_nginx)
  target_compile_definitions(test_remote_cufile PRIVATE HIPFILE_CUFILE_NO_CUDA_H)
endif()
