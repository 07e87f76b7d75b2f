# The public API suites: driver count rules, file and buffer registration.
hf_add_gtest(NAME test_api_driver SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_driver.cc LABELS api ALSO_GPU)
hf_add_gtest(NAME test_api_file_register SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_file_register.cc LABELS api ALSO_GPU)
hf_add_gtest(NAME test_api_buffer_register SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_buffer_register.cc LABELS api ALSO_GPU)
hf_add_gtest(NAME test_api_setup SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_setup.cc LABELS api)
hf_add_gtest(NAME test_api_stats SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_stats.cc LABELS api ALSO_GPU)
