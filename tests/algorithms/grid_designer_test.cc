#include "algorithms/grid/grid_designer.h"

#include <memory>
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
using ::hptune::algorithms::testing::TrialAt;
using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// a in {1, 2} x b in {x, y, z}: 6 combinations.
SearchSpace TwoByThree() {
  return SearchSpace(
      {IntegerParam("a", 1, 2), CategoricalParam("b", {"x", "y", "z"})});
}

ParameterAssignment Point(int64_t a, const std::string& b) {
  return {{"a", ParameterValue::Integer(a)},
          {"b", ParameterValue::Categorical(b)}};
}

// "origin a/b" for each suggestion.
std::vector<std::string> Describe(const std::vector<Suggestion>& suggestions) {
  std::vector<std::string> out;
  for (const auto& s : suggestions) {
    out.push_back(s.origin + " " + s.parameters.at("a").ToString() + "/" +
                  s.parameters.at("b").ToString());
  }
  return out;
}

std::unique_ptr<GridDesigner> MakeGrid(const SearchSpace& space) {
  auto designer = GridDesigner::Create(space);
  EXPECT_OK(designer);
  return designer.ok() ? *std::move(designer) : nullptr;
}

TEST(GridDesignerTest, TwoByThreeGivesSixInOdometerOrderThenNone) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->size(), 6);
  auto first = grid->Suggest(10);
  ASSERT_OK(first);
  EXPECT_THAT(Describe(*first),
              ElementsAre("grid[0] 1/x", "grid[1] 1/y", "grid[2] 1/z",
                          "grid[3] 2/x", "grid[4] 2/y", "grid[5] 2/z"));
  auto after = grid->Suggest(10);
  ASSERT_OK(after);
  EXPECT_TRUE(after->empty());
}

TEST(GridDesignerTest, SuggestsInBatchesUntilExhausted) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->Suggest(4)->size(), 4u);
  EXPECT_THAT(Describe(*grid->Suggest(4)),
              ElementsAre("grid[4] 2/y", "grid[5] 2/z"));
  EXPECT_TRUE(grid->Suggest(4)->empty());
  EXPECT_TRUE(grid->Suggest(0)->empty());
}

TEST(GridDesignerTest, DiscreteAndIntegerValuesInTheirOrder) {
  auto grid = MakeGrid(
      SearchSpace({DiscreteParam("d", {0.1, 0.5}), IntegerParam("k", -1, 1)}));
  ASSERT_NE(grid, nullptr);
  std::vector<std::string> seen;
  const std::vector<Suggestion> all = *grid->Suggest(10);
  for (const auto& s : all) {
    seen.push_back(s.parameters.at("d").ToString() + "," +
                   s.parameters.at("k").ToString());
  }
  EXPECT_THAT(seen, ElementsAre("0.1,-1", "0.1,0", "0.1,1", "0.5,-1", "0.5,0",
                                "0.5,1"));
}

TEST(GridDesignerTest, RestoredDesignerContinuesAtTheCursor) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  ASSERT_EQ(grid->SaveState(), "grid:cursor=0");
  ASSERT_EQ(grid->Suggest(2)->size(), 2u);
  std::string state = grid->SaveState();
  EXPECT_EQ(state, "grid:cursor=2");

  auto restored = MakeGrid(TwoByThree());
  ASSERT_NE(restored, nullptr);
  ASSERT_OK(restored->RestoreState(state));
  EXPECT_THAT(
      Describe(*restored->Suggest(10)),
      ElementsAre("grid[2] 1/z", "grid[3] 2/x", "grid[4] 2/y", "grid[5] 2/z"));
  EXPECT_EQ(restored->SaveState(), "grid:cursor=6");
}

TEST(GridDesignerTest, SkipsPointsHeldByCompletedOrPendingTrials) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  // A user created (1, y); (2, x) is still running.
  ASSERT_OK(grid->Update({TrialAt(Point(1, "y"))},
                         {TrialAt(Point(2, "x"), TrialState::kActive)}));
  EXPECT_THAT(
      Describe(*grid->Suggest(10)),
      ElementsAre("grid[0] 1/x", "grid[2] 1/z", "grid[4] 2/y", "grid[5] 2/z"));
}

TEST(GridDesignerTest, ASkippedPointDoesNotCountTowardsTheBatch) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  ASSERT_OK(grid->Update({TrialAt(Point(1, "x"))}, {}));
  EXPECT_THAT(Describe(*grid->Suggest(2)),
              ElementsAre("grid[1] 1/y", "grid[2] 1/z"));
  EXPECT_EQ(grid->SaveState(), "grid:cursor=3");
}

TEST(GridDesignerTest, RejectsDoubleParameterNamingIt) {
  auto grid = GridDesigner::Create(
      SearchSpace({IntegerParam("k", 1, 3), DoubleParam("lr", 1e-4, 1e-1)}));
  EXPECT_THAT(
      grid,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "GRID_SEARCH needs INTEGER, DISCRETE and CATEGORICAL parameters "
               "only: parameter \"lr\" is DOUBLE; make it DISCRETE with the "
               "values to try"));
}

TEST(GridDesignerTest, RejectsAGridTooLargeToCount) {
  const int64_t top = int64_t{1} << 40;
  auto grid = GridDesigner::Create(
      SearchSpace({IntegerParam("a", 0, top), IntegerParam("b", 0, top)}));
  EXPECT_THAT(
      grid,
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("GRID_SEARCH: the grid has more than "
                         "9223372036854775807 points and cannot be enumerated "
                         "(\"a\": 1099511627777 values, \"b\": 1099511627777 "
                         "values)")));
}

TEST(GridDesignerTest, RestoreRefusesForeignOrOutOfRangeState) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  absl::Status beyond = grid->RestoreState("grid:cursor=7");
  EXPECT_THAT(
      beyond,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "grid designer: cannot restore cursor 7: the grid has only 6 "
               "combinations"));
  EXPECT_THAT(grid->RestoreState("halton:index=1"),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  // The end is a valid cursor: an exhausted grid.
  ASSERT_OK(grid->RestoreState("grid:cursor=6"));
  EXPECT_TRUE(grid->Suggest(1)->empty());
}

TEST(GridDesignerTest, NegativeCountIsAnError) {
  auto grid = MakeGrid(TwoByThree());
  ASSERT_NE(grid, nullptr);
  EXPECT_THAT(grid->Suggest(-1),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
}

TEST(GridDesignerTest, SuggestionsAreFeasible) {
  SearchSpace space({IntegerParam("k", 1, 4, ScaleType::kLog),
                     DiscreteParam("d", {1, 10}, ScaleType::kLog),
                     CategoricalParam("c", {"a", "b"})});
  auto grid = MakeGrid(space);
  ASSERT_NE(grid, nullptr);
  auto all = grid->Suggest(100);
  ASSERT_EQ(all->size(), 16u);
  for (const auto& s : *all) {
    EXPECT_OK(space.CheckAssignment(s.parameters)) << s.origin;
  }
}

}  // namespace
}  // namespace hptune::algorithms
