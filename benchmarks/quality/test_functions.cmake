# hptune_test_functions: the test functions of test_functions.h, the
# problems of multiobjective_problems.h and conditional_problems.h, one copy
# for the tests (tests/algorithms/gp) and the benchmarks (the quality harness).
# Included by both; the first include defines the library.
if(TARGET hptune_test_functions)
  return()
endif()
add_library(hptune_test_functions STATIC
  ${CMAKE_CURRENT_LIST_DIR}/test_functions.cc
  ${CMAKE_CURRENT_LIST_DIR}/multiobjective_problems.cc
  ${CMAKE_CURRENT_LIST_DIR}/conditional_problems.cc)
target_include_directories(hptune_test_functions PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(hptune_test_functions PUBLIC hptune_core absl::status
  absl::statusor absl::strings)
