# hptune_library(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# A static library (shared with HPTUNE_SHARED_LIBS) exported as
# hptune::NAME (without the hptune_ prefix) and installed with the public
# headers under include/.
function(hptune_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} ${HPTUNE_LIBRARY_TYPE} ${ARG_SOURCES})
  string(REPLACE "hptune_" "" export_name ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name}
                                           POSITION_INDEPENDENT_CODE ON)
  add_library(hptune::${export_name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_property(GLOBAL APPEND PROPERTY HPTUNE_INSTALLED_LIBRARIES ${name})
endfunction()

# Servers started by tests keep their default token under the build tree,
# never in the user's own ~/.config/hptune (src/cli/token_file.h): every
# test runs with this environment. One variable only: gtest_discover_tests
# splits a property value at every semicolon, escaped or not.
set(HPTUNE_TEST_ENVIRONMENT
  "HPTUNE_CONFIG_DIR=${PROJECT_BINARY_DIR}/tests/hptune-config")

# The headers nearly every test includes, compiled once into a precompiled
# header that each test reuses: parsing them took about half of a test's
# compile time, and CI compiles every test twice (benchmarks/RESULTS.md,
# "CI's compile time"). Third-party and standard headers only: a change to
# the project's own headers must not recompile every test.
set(HPTUNE_TEST_PCH_HEADERS
  <gmock/gmock.h> <gtest/gtest.h> <nlohmann/json.hpp>
  <absl/status/status.h> <absl/status/statusor.h> <absl/strings/str_cat.h>
  <algorithm> <chrono> <cmath> <cstdint> <filesystem> <fstream> <map>
  <memory> <optional> <set> <sstream> <string> <thread> <vector>)
# A test's own file is not optimised: at -O2 the code generation of gtest's
# macros took 70% of a test's compile time and most of CI's build. Its debug
# information is line tables (-g1, enough for a backtrace): full -g took a
# quarter more of each test's compile time. -pthread for every test, as some
# get it from their libraries: a precompiled header is used only where the
# macros it was compiled with (_REENTRANT) are the same.
set(HPTUNE_TEST_COMPILE_OPTIONS -O0 -g1 -pthread)
function(hptune_test_pch)
  if(TARGET hptune_test_pch)
    return()
  endif()
  add_library(hptune_test_pch OBJECT ${PROJECT_SOURCE_DIR}/tests/testing/pch.cc)
  target_link_libraries(hptune_test_pch PRIVATE GTest::gmock GTest::gtest
    nlohmann_json::nlohmann_json absl::status absl::statusor absl::strings)
  target_compile_options(hptune_test_pch PRIVATE ${HPTUNE_TEST_COMPILE_OPTIONS})
  target_precompile_headers(hptune_test_pch PRIVATE ${HPTUNE_TEST_PCH_HEADERS})
endfunction()

# hptune_test(NAME SOURCES ... [DEPS ...] [LABELS ...] [TIMEOUT s]
#             [FIXTURES ...] [RESOURCE_LOCK name])
# One GoogleTest executable, registered with ctest test by test; FIXTURES
# are ctest fixtures each of its tests requires, RESOURCE_LOCK a resource
# its tests hold alone (the Slurm test cluster).
function(hptune_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;RESOURCE_LOCK"
    "SOURCES;DEPS;LABELS;FIXTURES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  # The code under test is built with the project's flags.
  target_compile_options(${name} PRIVATE ${HPTUNE_TEST_COMPILE_OPTIONS})
  hptune_test_pch()
  target_precompile_headers(${name} REUSE_FROM hptune_test_pch)
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  set(fixtures)
  if(ARG_FIXTURES)
    set(fixtures FIXTURES_REQUIRED "${ARG_FIXTURES}")
  endif()
  if(ARG_RESOURCE_LOCK)
    list(APPEND fixtures RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  endif()
  gtest_discover_tests(${name}
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
      ENVIRONMENT "${HPTUNE_TEST_ENVIRONMENT}" ${fixtures}
    DISCOVERY_TIMEOUT 60)
endfunction()

# hptune_uses_binary(TARGET)
# A test (or test helper) that runs the `hptune` binary: its path and the
# source tree as HPTUNE_BINARY and HPTUNE_SOURCE_DIR, the binary built first.
function(hptune_uses_binary name)
  target_compile_definitions(${name} PRIVATE
    HPTUNE_BINARY="$<TARGET_FILE:hptune>"
    HPTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(${name} hptune)
endfunction()
