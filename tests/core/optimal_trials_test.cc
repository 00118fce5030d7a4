// Which trials are optimal: feasibility under constraints, the Pareto
// front of several objectives, and the best trial of one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "hptune/core/pareto.h"
#include "hptune/core/study.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Trial Finished(int64_t number, std::map<std::string, double> metrics,
               TrialState state = TrialState::kSucceeded) {
  Trial t;
  t.number = number;
  t.state = state;
  t.final_measurement = Measurement{.step = 1, .metrics = std::move(metrics)};
  return t;
}

std::vector<int64_t> Numbers(const std::vector<Trial>& trials) {
  std::vector<int64_t> numbers;
  for (const Trial& t : trials) numbers.push_back(t.number);
  return numbers;
}

StudySpec AccuracyAndLatency(bool constrained) {
  StudySpec spec;
  std::vector<MetricSpec> metrics = {
      {.id = "accuracy", .goal = Goal::kMaximize},
      {.id = "latency", .goal = Goal::kMinimize}};
  if (constrained) {
    metrics.push_back(
        {.id = "memory", .goal = Goal::kMinimize, .safety_threshold = 4});
  }
  spec.SetMetrics(std::move(metrics));
  return spec;
}

TEST(OptimalTrialsTest, TheParetoFrontOfTwoObjectivesWithTiesKept) {
  const StudySpec spec = AccuracyAndLatency(false);
  const std::vector<Trial> trials = {
      Finished(1, {{"accuracy", 0.9}, {"latency", 30}}),
      Finished(2, {{"accuracy", 0.8}, {"latency", 10}}),
      Finished(3, {{"accuracy", 0.8}, {"latency", 20}}),  // 2 dominates it.
      Finished(4, {{"accuracy", 0.9}, {"latency", 30}}),  // 1's duplicate.
      Finished(5, {{"accuracy", 0.95}, {"latency", 80}}),
      Finished(6, {{"accuracy", 0.99}, {"latency", 5}}, TrialState::kFailed),
      Finished(7, {{"accuracy", 0.99}}),  // No latency: not a result.
  };
  EXPECT_THAT(Numbers(OptimalTrials(spec, trials)), ElementsAre(1, 2, 4, 5));
  EXPECT_FALSE(IsFeasibleResult(spec, trials[5]));
  EXPECT_FALSE(IsFeasibleResult(spec, trials[6]));
}

TEST(OptimalTrialsTest, ThreeObjectives) {
  StudySpec spec;
  spec.SetMetrics({{.id = "a", .goal = Goal::kMinimize},
                   {.id = "b", .goal = Goal::kMinimize},
                   {.id = "c", .goal = Goal::kMinimize}});
  const std::vector<Trial> trials = {
      Finished(1, {{"a", 1}, {"b", 2}, {"c", 3}}),
      Finished(2, {{"a", 3}, {"b", 2}, {"c", 1}}),
      Finished(3, {{"a", 2}, {"b", 3}, {"c", 3}}),  // 1 dominates it.
      Finished(4, {{"a", 2}, {"b", 1}, {"c", 4}}),
  };
  EXPECT_THAT(Numbers(OptimalTrials(spec, trials)), ElementsAre(1, 2, 4));
}

TEST(OptimalTrialsTest, InfeasibleTrialsAreNeverOptimal) {
  const StudySpec spec = AccuracyAndLatency(true);
  const std::vector<Trial> trials = {
      Finished(1, {{"accuracy", 0.9}, {"latency", 30}, {"memory", 4}}),
      // Dominates 1, but breaks the memory constraint.
      Finished(2, {{"accuracy", 0.99}, {"latency", 10}, {"memory", 4.5}}),
      Finished(3, {{"accuracy", 0.8}, {"latency", 20}, {"memory", 1}}),
  };
  EXPECT_THAT(Numbers(OptimalTrials(spec, trials)), ElementsAre(1, 3));
  EXPECT_TRUE(IsFeasibleResult(spec, trials[0]));  // On the threshold: safe.
  EXPECT_FALSE(IsFeasibleResult(spec, trials[1]));
}

TEST(OptimalTrialsTest, OneObjectiveWithAConstraintIsTheBestFeasibleTrial) {
  StudySpec spec;
  spec.SetMetrics(
      {{.id = "accuracy", .goal = Goal::kMaximize},
       {.id = "latency", .goal = Goal::kMinimize, .safety_threshold = 50}});
  const std::vector<Trial> trials = {
      Finished(1, {{"accuracy", 0.9}, {"latency", 40}}),
      Finished(2, {{"accuracy", 0.95}, {"latency", 60}}),
      Finished(3, {{"accuracy", 0.92}, {"latency", 50}}),
  };
  EXPECT_EQ(BestTrial(spec, trials)->number, 3);
  EXPECT_THAT(Numbers(OptimalTrials(spec, trials)), ElementsAre(3));
  EXPECT_THAT(OptimalTrials(spec, {trials[1]}), IsEmpty());
}

TEST(OptimalTrialsTest, ASingleMetricStudyKeepsItsBestTrial) {
  StudySpec spec;
  spec.SetSingleMetric("m", Goal::kMinimize);
  const std::vector<Trial> trials = {Finished(1, {{"m", 0.5}}),
                                     Finished(2, {{"m", 0.2}}),
                                     Finished(3, {{"m", 0.2}})};
  EXPECT_THAT(Numbers(OptimalTrials(spec, trials)), ElementsAre(2));
  EXPECT_EQ(spec.AllMetrics().size(), 1u);
  EXPECT_EQ(spec.AllMetrics()[0].id, "m");
}

TEST(MetricSpecTest, SafetyFollowsTheGoal) {
  const MetricSpec at_most{
      .id = "latency", .goal = Goal::kMinimize, .safety_threshold = 50};
  EXPECT_TRUE(at_most.IsSafe(50));
  EXPECT_FALSE(at_most.IsSafe(50.1));
  const MetricSpec at_least{
      .id = "recall", .goal = Goal::kMaximize, .safety_threshold = 0.9};
  EXPECT_TRUE(at_least.IsSafe(0.95));
  EXPECT_FALSE(at_least.IsSafe(0.8));
  EXPECT_TRUE(MetricSpec{.id = "objective"}.IsSafe(-1e300));
}

TEST(ParetoFrontTest, IsCoreAndRefusesMixedSizes) {
  EXPECT_TRUE(Dominates({2, 2}, {1, 2}));
  EXPECT_FALSE(ParetoFront({{1, 2}, {1}}).ok());
}

}  // namespace
}  // namespace hptune
