#include "algorithms/stopping/dominance_stopping_policy.h"

#include <memory>
#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/stopping_registry.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

// loss (minimised) and accuracy (maximised), memory at most 100.
StudySpec TwoObjectives() {
  StudySpec spec;
  spec.SetMetrics(
      {{.id = "loss", .goal = Goal::kMinimize},
       {.id = "accuracy", .goal = Goal::kMaximize},
       {.id = "memory", .goal = Goal::kMinimize, .safety_threshold = 100}});
  return spec;
}

struct Report {
  int64_t step;
  double loss, accuracy;
};

// A trial reporting (loss, accuracy) at each step; a SUCCEEDED one ends
// with its last report and `memory` as its final measurement.
Trial WithReports(int64_t number, TrialState state,
                  const std::vector<Report>& reports, double memory = 50) {
  Trial trial;
  trial.number = number;
  trial.state = state;
  for (const Report& r : reports) {
    trial.measurements.push_back(
        {.step = r.step,
         .metrics = {{"loss", r.loss}, {"accuracy", r.accuracy}}});
  }
  if (state == TrialState::kSucceeded) {
    Measurement final = trial.measurements.back();
    final.metrics["memory"] = memory;
    trial.final_measurement = final;
  }
  return trial;
}

std::unique_ptr<DominanceStoppingPolicy> Policy(int min_completed = 2) {
  auto policy = DominanceStoppingPolicy::Create(
      {.min_completed_trials = min_completed, .min_step_fraction = 0.25});
  EXPECT_TRUE(policy.ok());
  return *std::move(policy);
}

// Two completed trials trading loss against accuracy, both to step 100.
std::vector<Trial> Completed() {
  return {WithReports(1, TrialState::kSucceeded,
                      {{50, 0.5, 0.70}, {100, 0.3, 0.80}}),
          WithReports(2, TrialState::kSucceeded,
                      {{50, 0.7, 0.85}, {100, 0.6, 0.90}})};
}

TEST(DominanceStoppingPolicyTest, StopsATrialDominatedAtTheSameStep) {
  std::vector<Trial> trials = Completed();
  // At step 50 trial 1 had loss 0.5 and accuracy 0.70: 0.6/0.65 is worse
  // on both.
  trials.push_back(WithReports(3, TrialState::kActive, {{50, 0.6, 0.65}}));
  // On the front at step 50: better loss than trial 1's, less accurate.
  trials.push_back(WithReports(4, TrialState::kActive, {{50, 0.4, 0.60}}));
  auto decisions = Policy()->Decide(TwoObjectives(), trials);
  ASSERT_TRUE(decisions.ok());
  ASSERT_EQ(decisions->size(), 2u);
  EXPECT_TRUE((*decisions)[0].stop);
  EXPECT_EQ((*decisions)[0].reason,
            "at step 50 (loss 0.6, accuracy 0.65) is dominated by trial 1 "
            "(loss 0.5, accuracy 0.7)");
  EXPECT_FALSE((*decisions)[1].stop);
  EXPECT_THAT((*decisions)[1].reason, HasSubstr("no completed trial of 2"));
}

// Judged against the completed trials' values at its step, not their ends:
// 0.45/0.75 at step 50 is worse than trial 1's final 0.3/0.8, not than its
// 0.5/0.7 at step 50.
TEST(DominanceStoppingPolicyTest, ComparesAtTheSameStepNotWithFinalValues) {
  std::vector<Trial> trials = Completed();
  trials.push_back(WithReports(3, TrialState::kActive, {{50, 0.45, 0.75}}));
  auto decisions = Policy()->Decide(TwoObjectives(), trials);
  ASSERT_TRUE(decisions.ok());
  EXPECT_FALSE((*decisions)[0].stop) << (*decisions)[0].reason;
}

TEST(DominanceStoppingPolicyTest, InfeasibleTrialsDoNotStopOthers) {
  std::vector<Trial> trials = {
      WithReports(1, TrialState::kSucceeded, {{50, 0.1, 0.99}}, 500),
      WithReports(2, TrialState::kSucceeded, {{50, 0.9, 0.10}}),
      WithReports(3, TrialState::kSucceeded, {{50, 0.8, 0.20}}),
      WithReports(4, TrialState::kActive, {{50, 0.5, 0.50}})};
  auto decisions = Policy()->Decide(TwoObjectives(), trials);
  ASSERT_TRUE(decisions.ok());
  ASSERT_EQ(decisions->size(), 1u);
  EXPECT_FALSE((*decisions)[0].stop) << (*decisions)[0].reason;
}

TEST(DominanceStoppingPolicyTest, WaitsForEnoughTrialsAndSteps) {
  std::vector<Trial> trials = Completed();
  trials.push_back(WithReports(3, TrialState::kActive, {{50, 0.9, 0.1}}));
  auto decisions = Policy(/*min_completed=*/3)->Decide(TwoObjectives(), trials);
  ASSERT_TRUE(decisions.ok());
  EXPECT_FALSE((*decisions)[0].stop);
  EXPECT_THAT((*decisions)[0].reason, HasSubstr("3 are needed"));
  // Step 20 is before a quarter of the longest curve (100).
  trials.back() = WithReports(3, TrialState::kActive, {{20, 0.9, 0.1}});
  decisions = Policy()->Decide(TwoObjectives(), trials);
  ASSERT_TRUE(decisions.ok());
  EXPECT_FALSE((*decisions)[0].stop);
  EXPECT_THAT((*decisions)[0].reason, HasSubstr("before step 25"));
  // A report lacking an objective is not a point.
  trials.back() = WithReports(3, TrialState::kActive, {});
  trials.back().measurements.push_back({.step = 90, .metrics = {{"loss", 9}}});
  decisions = Policy()->Decide(TwoObjectives(), trials);
  ASSERT_TRUE(decisions.ok());
  EXPECT_FALSE((*decisions)[0].stop);
  EXPECT_EQ((*decisions)[0].reason, "no report with every objective yet");
}

TEST(DominanceStoppingPolicyTest, BadOptionsAreRefusedNamingThem) {
  EXPECT_THAT(DominanceStoppingPolicy::Create({.min_completed_trials = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("min_completed_trials must be at least 1, "
                                 "got 0")));
  EXPECT_THAT(
      DominanceStoppingPolicy::Create({.min_step_fraction = 2}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("min_step_fraction must be in [0, 1], got 2")));
}

// A study of several objectives gets the dominance rule whatever rule the
// runner names; one objective keeps the named rule.
TEST(DominanceStoppingPolicyTest, ChosenForStudiesOfSeveralObjectives) {
  const StoppingRuleRegistry rules = StoppingRuleRegistry::WithBuiltins();
  const StudySpec two = TwoObjectives();
  for (const char* rule : {"median", "median-at-step", "asha"}) {
    auto several = rules.CreateForStudy(two, two, rule);
    ASSERT_OK(several);
    EXPECT_NE(dynamic_cast<DominanceStoppingPolicy*>(several->get()), nullptr);
    StudySpec one;
    one.SetSingleMetric("loss");
    auto single = rules.CreateForStudy(one, one, rule);
    ASSERT_OK(single);
    EXPECT_EQ(dynamic_cast<DominanceStoppingPolicy*>(single->get()), nullptr);
  }
  EXPECT_FALSE(rules.CreateForStudy(two, two, "nope").ok());
}

}  // namespace
}  // namespace hptune::algorithms
