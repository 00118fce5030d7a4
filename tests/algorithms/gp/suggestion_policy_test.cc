#include "algorithms/gp/suggestion_policy.h"

#include <vector>

#include "gtest/gtest.h"
#include "algorithms/gp/gp_history.h"

namespace hptune::algorithms::gp {
namespace {

TEST(InitialPointsTest, SpaceFillingStartWhenTheBudgetIsLarge) {
  // 2 (D + 1), at least 4 and at most 20.
  EXPECT_EQ(InitialPoints(1, 1000), 4);
  EXPECT_EQ(InitialPoints(2, 1000), 6);
  EXPECT_EQ(InitialPoints(5, 1000), 12);
  EXPECT_EQ(InitialPoints(9, 1000), 20);
  EXPECT_EQ(InitialPoints(40, 1000), 20);
}

TEST(InitialPointsTest, AQuarterOfASmallBudgetAndNeverFewerThanFour) {
  // 9 features would seed 20; the budget's quarter cuts that.
  EXPECT_EQ(InitialPoints(9, 64), 16);
  EXPECT_EQ(InitialPoints(9, 50), 12);
  EXPECT_EQ(InitialPoints(9, 40), 10);
  EXPECT_EQ(InitialPoints(9, 10), 4);
  EXPECT_EQ(InitialPoints(9, 1), 4);
  // The cuts only lower: 2 features seed 6 at any budget from 18 (a third
  // of it), and 5 at 15.
  EXPECT_EQ(InitialPoints(2, 18), 6);
  EXPECT_EQ(InitialPoints(2, 15), 5);
  EXPECT_EQ(InitialPoints(2, 100), 6);
}

TEST(InitialPointsTest, BelowFortyTrialsUpToTenAndAThirdAtMost) {
  // Optuna's 10 startup trials where they are a third of the budget or
  // less, more than the quarter below 40 trials.
  EXPECT_EQ(InitialPoints(9, 39), 10);
  EXPECT_EQ(InitialPoints(9, 32), 10);
  EXPECT_EQ(InitialPoints(9, 30), 10);
  EXPECT_EQ(InitialPoints(9, 29), 9);
  EXPECT_EQ(InitialPoints(9, 24), 8);
  EXPECT_EQ(InitialPoints(9, 16), 5);
  EXPECT_EQ(InitialPoints(9, 14), 4);
  // Still never more than the space-filling start: 2 (D + 1) = 8.
  EXPECT_EQ(InitialPoints(3, 32), 8);
}

TEST(PickSourceTest, SeedsThenFitsTheModel) {
  EXPECT_EQ(PickSource(0, 4, 0, 0, false), SuggestionSource::kSinglePoint);
  EXPECT_EQ(PickSource(3, 8, 7, 7, true), SuggestionSource::kSeeding);
  EXPECT_EQ(PickSource(3, 8, 8, 8, true), SuggestionSource::kModel);
  EXPECT_EQ(PickSource(3, 8, 8, 0, false), SuggestionSource::kNoFeasible);
}

TEST(PickSourceTest, APlateauStaysQuasiRandomUntilTwoValuesDiffer) {
  EXPECT_EQ(PickSource(3, 8, 8, 8, false), SuggestionSource::kPlateau);
  EXPECT_EQ(PickSource(3, 8, 30, 30, false), SuggestionSource::kPlateau);
  EXPECT_EQ(PickSource(3, 8, 30, 30, true), SuggestionSource::kModel);
}

Observation Seen(double value, bool feasible = true, double cost = 2.0) {
  if (!feasible) return {.x = {0.5}, .value = 0, .feasible = false};
  return {.x = {0.5}, .value = value, .metrics = {value, cost}};
}

TEST(GpHistoryTest, ValuesDifferOnlyAmongFeasibleObservations) {
  GpHistory history;
  EXPECT_FALSE(history.values_differ());
  history.observations = {Seen(1.0), Seen(1.0), Seen(0.0, false)};
  EXPECT_FALSE(history.values_differ());
  history.observations.push_back(Seen(1.0 + 1e-12));
  EXPECT_TRUE(history.values_differ());
}

TEST(GpHistoryTest, TiedBestCountsFeasibleObservationsAtTheBestValue) {
  GpHistory history;
  EXPECT_EQ(history.tied_best(), 0);
  history.observations = {Seen(0.0, false), Seen(0.5), Seen(0.0, false)};
  EXPECT_EQ(history.tied_best(), 1);
  // Higher is better; ties below the best do not count.
  history.observations.insert(history.observations.end(),
                              {Seen(0.2), Seen(0.2), Seen(0.5), Seen(0.2)});
  EXPECT_EQ(history.tied_best(), 2);
  // A better value starts the count again; exact ties only.
  history.observations.insert(history.observations.end(),
                              {Seen(0.7), Seen(0.7), Seen(0.7 - 1e-12)});
  EXPECT_EQ(history.tied_best(), 2);
}

TEST(TiedBestTest, HalfTheSuggestionsFromThreeTiesOn) {
  EXPECT_FALSE(LeavesTiedBest(0, 0.0));
  EXPECT_FALSE(LeavesTiedBest(kTiedBestTrials - 1, 0.0));
  EXPECT_TRUE(LeavesTiedBest(kTiedBestTrials, 0.0));
  EXPECT_TRUE(LeavesTiedBest(kTiedBestTrials, 0.499));
  EXPECT_FALSE(LeavesTiedBest(kTiedBestTrials, 0.5));
  EXPECT_TRUE(LeavesTiedBest(40, 0.2));
  EXPECT_FALSE(LeavesTiedBest(40, 0.9));
}

TEST(GpHistoryTest, ValuesDifferInAnyColumn) {
  GpHistory history;
  history.objectives = 2;
  history.observations = {Seen(1.0, true, 2.0), Seen(1.0, true, 2.0)};
  EXPECT_FALSE(history.values_differ());
  history.observations.push_back(Seen(1.0, true, 3.0));
  EXPECT_TRUE(history.values_differ());
}

}  // namespace
}  // namespace hptune::algorithms::gp
