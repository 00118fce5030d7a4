#include "algorithms/encoding/finite_grid.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithms/test_spaces.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CategoricalParam;
using ::hptune::algorithms::testing::DiscreteParam;
using ::hptune::algorithms::testing::DoubleParam;
using ::hptune::algorithms::testing::IntegerParam;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(FiniteGridTest, EnumeratesInOdometerOrderLastParameterFastest) {
  auto grid = FiniteGrid::Create(
      SearchSpace({IntegerParam("k", 1, 2), DiscreteParam("d", {0.5, 4}),
                   CategoricalParam("c", {"z", "a", "m"})}));
  ASSERT_OK(grid);
  ASSERT_EQ(grid->size(), 12);
  std::vector<std::string> order;
  for (int64_t i = 0; i < grid->size(); ++i) {
    ParameterAssignment point = grid->At(i);
    order.push_back(point.at("k").ToString() + "/" + point.at("d").ToString() +
                    "/" + point.at("c").ToString());
  }
  // CATEGORICAL and DISCRETE values keep their declared order.
  EXPECT_THAT(order,
              ::testing::ElementsAre("1/0.5/z", "1/0.5/a", "1/0.5/m", "1/4/z",
                                     "1/4/a", "1/4/m", "2/0.5/z", "2/0.5/a",
                                     "2/0.5/m", "2/4/z", "2/4/a", "2/4/m"));
}

TEST(FiniteGridTest, ValuesHaveTheParameterTypesKind) {
  auto grid = FiniteGrid::Create(
      SearchSpace({IntegerParam("k", -3, -3), DiscreteParam("d", {2})}));
  ASSERT_OK(grid);
  ParameterAssignment point = grid->At(0);
  EXPECT_EQ(point.at("k"), ParameterValue::Integer(-3));
  EXPECT_EQ(point.at("d"), ParameterValue::Double(2));
}

TEST(FiniteGridTest, EmptySpaceHasOnePoint) {
  auto grid = FiniteGrid::Create(SearchSpace());
  ASSERT_OK(grid);
  EXPECT_EQ(grid->size(), 1);
  EXPECT_TRUE(grid->At(0).empty());
}

TEST(FiniteGridTest, RejectsDoubleNamingIt) {
  auto grid = FiniteGrid::Create(
      SearchSpace({IntegerParam("k", 1, 2), DoubleParam("lr", 0, 1)}));
  EXPECT_THAT(
      grid,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "parameter \"lr\" is DOUBLE: a continuous range has no grid"));
}

TEST(FiniteGridTest, RejectsAGridWhoseSizeOverflowsInt64) {
  // (2^22 + 1)^3 > 2^63.
  const int64_t top = int64_t{1} << 22;
  auto grid = FiniteGrid::Create(
      SearchSpace({IntegerParam("a", 0, top), IntegerParam("b", 0, top),
                   IntegerParam("c", 0, top)}));
  EXPECT_THAT(
      grid,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("the grid has more than 9223372036854775807 points "
                         "and cannot be enumerated (\"a\": 4194305 values, "
                         "\"b\": 4194305 values, \"c\": 4194305 values)")));
  // Two of them fit.
  auto fits = FiniteGrid::Create(
      SearchSpace({IntegerParam("a", 0, top), IntegerParam("b", 0, top)}));
  ASSERT_OK(fits);
  EXPECT_EQ(fits->size(), (top + 1) * (top + 1));
  EXPECT_EQ(fits->At(fits->size() - 1).at("b"), ParameterValue::Integer(top));
}

}  // namespace
}  // namespace hptune::algorithms
