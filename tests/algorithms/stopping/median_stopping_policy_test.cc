#include "algorithms/stopping/median_stopping_policy.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithms/stopping/curves.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CurveTrial;
using ::hptune::algorithms::testing::Flat;
using ::hptune::algorithms::testing::Hundreds;
using ::hptune::algorithms::testing::Point;
using ::hptune::algorithms::testing::Study;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<MedianStoppingPolicy> MakePolicy(
    MedianStoppingOptions options = {}) {
  auto policy = MedianStoppingPolicy::Create(options);
  EXPECT_OK(policy);
  return policy.ok() ? *std::move(policy) : nullptr;
}

// Trials 1..count SUCCEEDED with flat curves 0.51, 0.52, ... over steps
// 100..1000: each running average is the trial's constant, and the median
// of 10 of them is (0.55 + 0.56) / 2 = 0.555.
std::vector<Trial> FlatCompleted(int count) {
  std::vector<Trial> trials;
  for (int i = 1; i <= count; ++i) {
    trials.push_back(CurveTrial(i, TrialState::kSucceeded,
                                Flat(0.5 + 0.01 * i, Hundreds(1000))));
  }
  return trials;
}

std::vector<StoppingDecision> Decide(MedianStoppingPolicy& policy,
                                     const StudySpec& study,
                                     const std::vector<Trial>& trials) {
  auto decisions = policy.Decide(study, trials);
  EXPECT_OK(decisions);
  return decisions.ok() ? *decisions : std::vector<StoppingDecision>{};
}

TEST(MedianStoppingPolicyTest, ClearlyBadTrialIsStoppedWithTheNumbers) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(CurveTrial(11, TrialState::kActive,
                              {{100, 0.1}, {200, 0.3}, {300, 0.2}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].trial, 11);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "best 0.3 by step 300 is worse than the median 0.555 of the "
            "running averages of 10 completed trials up to step 300");
}

// Five rising curves 0.1 -> 0.5 + 0.05 i by step 400: at step 400 their
// values are 0.55 ... 0.75 (median 0.65), their running averages much lower.
std::vector<Trial> RisingCompleted() {
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    trials.push_back(CurveTrial(
        i, TrialState::kSucceeded,
        {{100, 0.1}, {200, 0.3}, {300, 0.4}, {400, 0.5 + 0.05 * i}}));
  }
  return trials;
}

TEST(MedianStoppingPolicyTest, ValueAtStepComparesLikeWithLike) {
  std::vector<Trial> trials = RisingCompleted();
  // 0.6 at step 400 is below the median value there (0.65) but far above
  // the median running average ((0.1 + 0.3 + 0.4 + 0.65) / 4 = 0.3625).
  trials.push_back(
      CurveTrial(6, TrialState::kActive, {{100, 0.1}, {200, 0.3}, {400, 0.6}}));
  auto average = MakePolicy();
  EXPECT_FALSE(Decide(*average, Study(), trials)[0].stop);
  auto at_step = MakePolicy(MedianStoppingOptions{
      .reference = MedianStoppingOptions::Reference::kValueAtStep});
  std::vector<StoppingDecision> decisions = Decide(*at_step, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "best 0.6 by step 400 is worse than the median 0.65 of the values "
            "of 5 completed trials at step 400");
}

TEST(MedianStoppingPolicyTest, ValueAtStepIgnoresTrialsThatStoppedBefore) {
  std::vector<Trial> trials = RisingCompleted();
  // Five trials stopped early at step 200 with 0.3 would pull the median
  // at step 400 down to 0.3 if their last value stood in for step 400.
  for (int i = 6; i <= 10; ++i) {
    Trial stopped =
        CurveTrial(i, TrialState::kSucceeded, {{100, 0.1}, {200, 0.3}});
    stopped.stopped_early = true;
    trials.push_back(stopped);
  }
  trials.push_back(CurveTrial(11, TrialState::kActive,
                              {{100, 0.1}, {200, 0.3}, {400, 0.6}}));
  auto at_step = MakePolicy(MedianStoppingOptions{
      .reference = MedianStoppingOptions::Reference::kValueAtStep});
  std::vector<StoppingDecision> decisions = Decide(*at_step, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop) << decisions[0].reason;
  EXPECT_THAT(decisions[0].reason,
              HasSubstr("median 0.65 of the values of 5 completed trials"));
}

TEST(MedianStoppingPolicyTest, ClearlyGoodTrialIsKept) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(CurveTrial(11, TrialState::kActive,
                              {{100, 0.5}, {200, 0.7}, {300, 0.6}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "best 0.7 by step 300 is not worse than the median 0.555 of the "
            "running averages of 10 completed trials up to step 300");
}

TEST(MedianStoppingPolicyTest, BestEqualToTheMedianIsKept) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(CurveTrial(11, TrialState::kActive, {{300, 0.555}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop) << decisions[0].reason;
}

TEST(MedianStoppingPolicyTest, ComparesWithRunningAveragesNotLatestValues) {
  // Completed curves 0.1, 0.2, 0.9, 0.9, ...: at step 300 the running
  // average is 0.4 while the value is 0.9. A best of 0.5 is worse than the
  // latter but not the former.
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    std::vector<Point> points = {{100, 0.1}, {200, 0.2}};
    for (int64_t step = 300; step <= 1000; step += 100) {
      points.push_back({step, 0.9});
    }
    trials.push_back(CurveTrial(i, TrialState::kSucceeded, points));
  }
  trials.push_back(CurveTrial(6, TrialState::kActive, {{300, 0.5}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("median 0.4 "));
}

// Vertex's medianAutomatedStoppingSpec is the running-average rule: a late
// bloomer, slow at first, is kept while its best beats the others' running
// averages, though the value-at-step rule would stop it; it then overtakes.
TEST(MedianStoppingPolicyTest, ALateBloomerSurvivesTheRunningAverageRule) {
  // Completed accuracies 0.1 + 0.0008 s (+ 0.01 i) over steps 100..1000: at
  // step 300 their running averages are about 0.27, their values 0.35.
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    std::vector<Point> points;
    for (int64_t s : Hundreds(1000)) {
      points.push_back({s, 0.1 + 0.0008 * s + 0.01 * (i - 3)});
    }
    trials.push_back(CurveTrial(i, TrialState::kSucceeded, points));
  }
  trials.push_back(CurveTrial(6, TrialState::kActive,
                              {{100, 0.2}, {200, 0.25}, {300, 0.3}}));
  std::vector<StoppingDecision> vizier = Decide(*MakePolicy(), Study(), trials);
  ASSERT_EQ(vizier.size(), 1u);
  EXPECT_FALSE(vizier[0].stop) << vizier[0].reason;
  EXPECT_THAT(vizier[0].reason, HasSubstr("median 0.26 "));

  std::vector<StoppingDecision> at_step =
      Decide(*MakePolicy(
                 {.reference = MedianStoppingOptions::Reference::kValueAtStep}),
             Study(), trials);
  ASSERT_EQ(at_step.size(), 1u);
  EXPECT_TRUE(at_step[0].stop) << at_step[0].reason;
}

TEST(MedianStoppingPolicyTest, CompletedTrialThatEndedEarlyCountsWholeCurve) {
  // Trials 1-4 run to step 1000 at 0.8; trials 5 and 6 ended at step 200
  // at 0.2 (their whole-curve average). At step 400 the median of
  // {0.8 x4, 0.2 x2} is 0.8, and without the short trials it would be 0.8
  // from only 4 trials, fewer than min_completed_trials.
  std::vector<Trial> trials;
  for (int i = 1; i <= 4; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.8, Hundreds(1000))));
  }
  for (int i = 5; i <= 6; ++i) {
    Trial t = CurveTrial(i, TrialState::kSucceeded, Flat(0.2, Hundreds(200)));
    t.stopped_early = true;
    trials.push_back(t);
  }
  trials.push_back(CurveTrial(7, TrialState::kActive, {{400, 0.5}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason,
              HasSubstr("median 0.8 of the running averages of 6 completed"));
}

TEST(MedianStoppingPolicyTest, EvenCountTakesTheMeanOfTheMiddleTwo) {
  std::vector<Trial> trials = FlatCompleted(4);  // 0.51 .. 0.54
  trials.push_back(CurveTrial(5, TrialState::kActive, {{300, 0.5}}));
  auto policy = MakePolicy({.min_completed_trials = 4});
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_THAT(decisions[0].reason, HasSubstr("median 0.525 of"));
}

TEST(MedianStoppingPolicyTest, KeepsEveryTrialBeforeMinCompletedTrials) {
  std::vector<Trial> trials = FlatCompleted(4);
  trials.push_back(CurveTrial(5, TrialState::kActive, {{300, 0.01}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "4 completed trials have accuracy by step 300, 5 needed before "
            "judging");
}

TEST(MedianStoppingPolicyTest,
     CompletedTrialsWithoutAnEarlyEnoughValueDontCount) {
  // Completed curves start at step 500: none has a value by step 300.
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.9, {500, 1000})));
  }
  trials.push_back(CurveTrial(6, TrialState::kActive, {{300, 0.01}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("0 completed trials have"));
}

TEST(MedianStoppingPolicyTest, KeepsTrialBeforeTheMinimumStep) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(
      CurveTrial(11, TrialState::kActive, {{100, 0.01}, {200, 0.01}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "step 200 is before step 250 (0.25 of the longest completed "
            "curve, 1000 steps)");
  // Once at 250, it is judged.
  trials.back() = CurveTrial(11, TrialState::kActive,
                             {{100, 0.01}, {200, 0.01}, {250, 0.01}});
  decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop) << decisions[0].reason;
}

TEST(MedianStoppingPolicyTest, KeepsTrialBeforeMinMeasurements) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(
      CurveTrial(11, TrialState::kActive, {{300, 0.01}, {400, 0.01}}));
  auto policy = MakePolicy({.min_measurements = 3});
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "2 values of accuracy reported, 3 needed before judging");
}

TEST(MedianStoppingPolicyTest, CurvesWithoutStepsAreNeverJudged) {
  // cloudml-hypertune writes global_step 0 when the program gives none.
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.9, {0, 0, 0})));
  }
  trials.push_back(CurveTrial(6, TrialState::kActive, Flat(0.01, {0, 0})));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("step 0 is before step 1"));
}

TEST(MedianStoppingPolicyTest, MinimizeMirrorsMaximize) {
  // The same curves negated, with the goal flipped, give the same calls.
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(CurveTrial(11, TrialState::kActive, {{300, 0.3}}));
  trials.push_back(CurveTrial(12, TrialState::kActive, {{300, 0.7}}));
  trials.push_back(CurveTrial(13, TrialState::kActive, {{300, 0.55}}));
  std::vector<Trial> negated = trials;
  for (Trial& t : negated) {
    for (Measurement& m : t.measurements) {
      m.metrics["accuracy"] = -m.metrics["accuracy"];
    }
  }
  auto policy = MakePolicy();
  std::vector<StoppingDecision> maximize = Decide(*policy, Study(), trials);
  std::vector<StoppingDecision> minimize =
      Decide(*policy, Study(Goal::kMinimize), negated);
  ASSERT_EQ(maximize.size(), 3u);
  ASSERT_EQ(minimize.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(maximize[i].trial, minimize[i].trial);
    EXPECT_EQ(maximize[i].stop, minimize[i].stop) << minimize[i].reason;
  }
  EXPECT_TRUE(minimize[0].stop);
  EXPECT_FALSE(minimize[1].stop);
  EXPECT_TRUE(minimize[2].stop);
  EXPECT_EQ(minimize[0].reason,
            "best -0.3 by step 300 is worse than the median -0.555 of the "
            "running averages of 10 completed trials up to step 300");
}

TEST(MedianStoppingPolicyTest, MinimizeUsesTheLowestValueAsBest) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(CurveTrial(11, TrialState::kActive,
                              {{100, 0.9}, {200, 0.4}, {300, 0.8}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions =
      Decide(*policy, Study(Goal::kMinimize), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("best 0.4 by step 300"));
}

TEST(MedianStoppingPolicyTest, MeasurementsWithoutTheMetricAreIgnored) {
  std::vector<Trial> trials = FlatCompleted(5);
  // A sixth completed trial reports only "loss": it is no reference trial,
  // and its far step does not stretch the longest curve.
  Trial loss_only = CurveTrial(6, TrialState::kSucceeded, {});
  loss_only.measurements.push_back({.step = 100000, .metrics = {{"loss", 1}}});
  trials.push_back(loss_only);
  // The judged trial's latest step with accuracy is 300; its loss-only
  // report at step 900 does not move it.
  Trial active = CurveTrial(7, TrialState::kActive, {{300, 0.2}});
  active.measurements.push_back({.step = 900, .metrics = {{"loss", 0.1}}});
  trials.push_back(active);
  Trial silent = CurveTrial(8, TrialState::kActive, {});
  silent.measurements.push_back({.step = 900, .metrics = {{"loss", 0.1}}});
  trials.push_back(silent);
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "best 0.2 by step 300 is worse than the median 0.53 of the "
            "running averages of 5 completed trials up to step 300");
  EXPECT_FALSE(decisions[1].stop);
  EXPECT_EQ(decisions[1].reason, "no value of accuracy reported yet");
}

TEST(MedianStoppingPolicyTest, OnlySucceededTrialsAreTheReference) {
  std::vector<Trial> trials = FlatCompleted(4);
  for (TrialState state : {TrialState::kFailed, TrialState::kCancelled,
                           TrialState::kInfeasible, TrialState::kStopping}) {
    trials.push_back(CurveTrial(static_cast<int64_t>(trials.size()) + 1, state,
                                Flat(0.9, Hundreds(1000))));
  }
  trials.push_back(CurveTrial(9, TrialState::kActive, {{300, 0.01}}));
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("4 completed trials have"));
}

TEST(MedianStoppingPolicyTest, DecidesActiveTrialsOnlyInTrialOrder) {
  std::vector<Trial> trials = FlatCompleted(10);
  trials.push_back(CurveTrial(14, TrialState::kActive, {{300, 0.9}}));
  trials.push_back(CurveTrial(12, TrialState::kActive, {{300, 0.1}}));
  trials.push_back(CurveTrial(15, TrialState::kRequested, {}));
  trials.push_back(CurveTrial(13, TrialState::kStopping, {{300, 0.1}}));
  trials.push_back(CurveTrial(11, TrialState::kActive, {{300, 0.2}}));
  std::reverse(trials.begin(), trials.end());
  auto policy = MakePolicy();
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  std::vector<std::pair<int64_t, bool>> calls;
  for (const auto& d : decisions) calls.emplace_back(d.trial, d.stop);
  EXPECT_THAT(calls, ElementsAre(std::pair<int64_t, bool>(11, true),
                                 std::pair<int64_t, bool>(12, true),
                                 std::pair<int64_t, bool>(14, false)));
  // And the same again: no state carried between calls.
  EXPECT_EQ(Decide(*policy, Study(), trials), decisions);
}

TEST(MedianStoppingPolicyTest, InvalidOptionsAreNamed) {
  auto trials = MedianStoppingPolicy::Create({.min_completed_trials = 0});
  ASSERT_FALSE(trials.ok());
  EXPECT_THAT(
      trials,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "median stopping: min_completed_trials must be at least 1, got 0"));
  auto fraction = MedianStoppingPolicy::Create({.min_step_fraction = 1.5});
  ASSERT_FALSE(fraction.ok());
  EXPECT_EQ(fraction.status().message(),
            "median stopping: min_step_fraction must be in [0, 1], got 1.5");
  auto measurements = MedianStoppingPolicy::Create({.min_measurements = -2});
  ASSERT_FALSE(measurements.ok());
  EXPECT_EQ(measurements.status().message(),
            "median stopping: min_measurements must be at least 1, got -2");
}

TEST(MedianStoppingPolicyTest, StudyWithoutMetricTagIsAnError) {
  StudySpec study = Study();
  study.SetSingleMetric("", study.goal());
  auto policy = MakePolicy();
  auto decisions = policy->Decide(study, FlatCompleted(3));
  ASSERT_FALSE(decisions.ok());
  EXPECT_THAT(decisions,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "median stopping: the study has no metric tag"));
}

}  // namespace
}  // namespace hptune::algorithms
