# hipFileRedactUrls (core/base/url_redact.c), through the shared library so its export is tested too.
hf_add_gtest(NAME unit_url_redact
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_url_redact.cc)
# The log sink (core/base/log.c) redacts every line, at every level, held or not.
hf_add_gtest(NAME unit_log_redact
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_log_redact.cc
  INTERNAL)
