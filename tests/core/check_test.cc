// HPTUNE_CHECK and HPTUNE_UNREACHABLE: what a broken invariant prints, and
// that the message costs nothing while the invariant holds.
#include "hptune/core/check.h"

#include <string>

#include "gtest/gtest.h"

namespace hptune {
namespace {

TEST(CheckDeathTest, AFailedCheckNamesThePlaceTheConditionAndWhy) {
  EXPECT_DEATH(HPTUNE_CHECK(1 + 1 == 3, "arithmetic broke"),
               "hptune: broken invariant at .*check_test.cc:[0-9]+ "
               "\\(1 \\+ 1 == 3\\): arithmetic broke");
}

TEST(CheckDeathTest, UnreachableAborts) {
  EXPECT_DEATH(HPTUNE_UNREACHABLE("no such case"),
               "broken invariant at .*\\(unreachable\\): no such case");
}

TEST(CheckTest, TheMessageIsBuiltOnlyWhenTheCheckFails) {
  int built = 0;
  auto message = [&] {
    ++built;
    return std::string("never");
  };
  HPTUNE_CHECK(true, message());
  EXPECT_EQ(built, 0);
}

}  // namespace
}  // namespace hptune
