# User-space filesystems (hipFileHandleTypeUserspaceFS) through the public API: once straight into
# host-addressable memory, once through the fallback's staging buffers and GPU copies.
hf_add_gtest(NAME test_api_userspace_fs
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_userspace_fs.cc
  LABELS api userspace-fs
  BACKENDS straight staged)
