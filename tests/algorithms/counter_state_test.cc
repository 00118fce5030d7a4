#include "algorithms/common/counter_state.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune_testing::StatusHasCode;

TEST(CounterStateTest, RoundTrips) {
  std::string state = FormatCounterState("grid", "cursor", 12);
  EXPECT_EQ(state, "grid:cursor=12");
  auto value = ParseCounterState("grid", "cursor", state);
  ASSERT_OK(value);
  EXPECT_EQ(*value, 12u);
  EXPECT_EQ(*ParseCounterState("random", "draws",
                               FormatCounterState("random", "draws", ~0ull)),
            ~0ull);
}

TEST(CounterStateTest, EmptyMeansAFreshDesigner) {
  auto value = ParseCounterState("halton", "index", "");
  ASSERT_OK(value);
  EXPECT_EQ(*value, 0u);
}

TEST(CounterStateTest, RefusesAnotherDesignersOrMalformedState) {
  for (const char* state :
       {"random:draws=3", "grid:cursor=", "grid:cursor=-1", "grid:cursor=+1",
        "grid:cursor=1x", "grid:cursor= 1", "grid:cursor=99999999999999999999",
        "grid"}) {
    auto value = ParseCounterState("grid", "cursor", state);
    EXPECT_THAT(value, StatusHasCode(absl::StatusCode::kInvalidArgument))
        << state;
  }
  EXPECT_EQ(std::string(ParseCounterState("grid", "cursor", "random:draws=3")
                            .status()
                            .message()),
            "grid designer: cannot restore state \"random:draws=3\": expected "
            "\"grid:cursor=<count>\"");
}

}  // namespace
}  // namespace hptune::algorithms
