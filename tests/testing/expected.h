// What the machine running the suite is expected to support, from
// HPTUNE_EXPECT (a comma-separated list: "cgroups"). A test of a guarantee
// that needs something the machine may lack skips where it is missing,
// saying why, but fails where HPTUNE_EXPECT names it: .ci/run names what
// CI's machines have, so a regression there cannot pass by skipping.
// Used by test threads; reads the environment only.
#ifndef HPTUNE_TESTS_TESTING_EXPECTED_H_
#define HPTUNE_TESTS_TESTING_EXPECTED_H_

#include <cstdlib>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace hptune::testing {

inline bool Expected(std::string_view capability) {
  const char* list = std::getenv("HPTUNE_EXPECT");
  if (list == nullptr) return false;
  const std::string padded = "," + std::string(list) + ",";
  return padded.find("," + std::string(capability) + ",") != std::string::npos;
}

}  // namespace hptune::testing

// Skips the test with `why` when `capability` is missing here, or fails it
// when HPTUNE_EXPECT says the machine has it.
#define HPTUNE_SKIP_UNLESS_AVAILABLE(available, capability, why)         \
  do {                                                                   \
    if (!(available)) {                                                  \
      if (::hptune::testing::Expected(capability)) {                     \
        FAIL() << "HPTUNE_EXPECT names " << (capability)                 \
               << ", which this test could not use: " << (why);          \
      }                                                                  \
      GTEST_SKIP() << (capability) << " cannot be used here: " << (why); \
    }                                                                    \
  } while (false)

#endif  // HPTUNE_TESTS_TESTING_EXPECTED_H_
