#include "algorithms/importance/parameter_grid.h"

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
using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

TEST(ParameterGridTest, DoubleTakesTheNearestOfEvenlySpacedPoints) {
  ParameterGrid grid(DoubleParam("x", 0, 49), 50);
  EXPECT_EQ(grid.size(), 50);
  EXPECT_TRUE(grid.ordered());
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(0)), IsOkAndHolds(0));
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(10.4)), IsOkAndHolds(10));
  // A midpoint goes to the lower point, as in Optuna.
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(10.5)), IsOkAndHolds(10));
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(49)), IsOkAndHolds(49));
}

TEST(ParameterGridTest, LogScaledDoubleIsCutInLogSpace) {
  ParameterGrid grid(DoubleParam("lr", 1e-5, 1e-1, ScaleType::kLog), 5);
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(1e-5)), IsOkAndHolds(0));
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(1e-4)), IsOkAndHolds(1));
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(1e-3)), IsOkAndHolds(2));
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(1e-2)), IsOkAndHolds(3));
}

TEST(ParameterGridTest, ReverseLogDoubleIsDenseNearTheMaximum) {
  ParameterGrid grid(DoubleParam("m", 0.001, 0.999, ScaleType::kReverseLog),
                     50);
  // Mirror image of the log scale: 0.99 is far from the top point.
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(0.999)), IsOkAndHolds(49));
  auto point = grid.PointOf(ParameterValue::Double(0.99));
  ASSERT_OK(point);
  EXPECT_LT(*point, 40);
}

TEST(ParameterGridTest, SmallIntegerHasOnePointPerValue) {
  ParameterGrid grid(IntegerParam("layers", 2, 9), 50);
  EXPECT_EQ(grid.size(), 8);
  EXPECT_THAT(grid.PointOf(ParameterValue::Integer(2)), IsOkAndHolds(0));
  EXPECT_THAT(grid.PointOf(ParameterValue::Integer(7)), IsOkAndHolds(5));
}

TEST(ParameterGridTest, LargeIntegerIsCutLikeADouble) {
  ParameterGrid grid(IntegerParam("units", 0, 999), 50);
  EXPECT_EQ(grid.size(), 50);
  EXPECT_THAT(grid.PointOf(ParameterValue::Integer(999)), IsOkAndHolds(49));
}

TEST(ParameterGridTest, LogIntegerHasAPointPerDoubling) {
  ParameterGrid grid(IntegerParam("batch", 1, 1024, ScaleType::kLog), 50);
  // 1,024 values: ceil(log2(1024)) + 1 points, at 1, 2, 4, ..., 1024.
  EXPECT_EQ(grid.size(), 11);
  EXPECT_THAT(grid.PointOf(ParameterValue::Integer(1)), IsOkAndHolds(0));
  EXPECT_THAT(grid.PointOf(ParameterValue::Integer(32)), IsOkAndHolds(5));
  EXPECT_THAT(grid.PointOf(ParameterValue::Integer(1024)), IsOkAndHolds(10));
}

TEST(ParameterGridTest, SmallDiscreteHasOnePointPerValue) {
  ParameterGrid grid(DiscreteParam("d", {0.1, 0.2, 5, 100}), 50);
  EXPECT_EQ(grid.size(), 4);
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(5)), IsOkAndHolds(2));
}

TEST(ParameterGridTest, CategoricalHasOnePointPerCategoryInNoOrder) {
  ParameterGrid grid(CategoricalParam("c", {"a", "b", "c"}), 50);
  EXPECT_EQ(grid.size(), 3);
  EXPECT_FALSE(grid.ordered());
  EXPECT_THAT(grid.PointOf(ParameterValue::Categorical("c")), IsOkAndHolds(2));
}

TEST(ParameterGridTest, InfeasibleValueIsNamed) {
  ParameterGrid grid(DoubleParam("x", 0, 1), 50);
  EXPECT_THAT(grid.PointOf(ParameterValue::Double(2)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x")));
}

}  // namespace
}  // namespace hptune::algorithms
