#include "algorithms/stopping/asha_stopping_policy.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithms/stopping/curves.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CurveTrial;
using ::hptune::algorithms::testing::Flat;
using ::hptune::algorithms::testing::Point;
using ::hptune::algorithms::testing::Study;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Call = std::pair<int64_t, bool>;

// Rungs at steps 1, 3, 9, 27, ...
AshaOptions RungsAtPowersOfThree() {
  return {.min_resource = 1, .reduction_factor = 3};
}

std::unique_ptr<AshaStoppingPolicy> MakePolicy(AshaOptions options) {
  auto policy = AshaStoppingPolicy::Create(options);
  EXPECT_OK(policy);
  return policy.ok() ? *std::move(policy) : nullptr;
}

std::vector<StoppingDecision> Decide(AshaStoppingPolicy& policy,
                                     const StudySpec& study,
                                     const std::vector<Trial>& trials) {
  auto decisions = policy.Decide(study, trials);
  EXPECT_OK(decisions);
  return decisions.ok() ? *decisions : std::vector<StoppingDecision>{};
}

std::vector<Call> Calls(const std::vector<StoppingDecision>& decisions) {
  std::vector<Call> calls;
  for (const auto& d : decisions) calls.emplace_back(d.trial, d.stop);
  return calls;
}

// Trials 1..8 SUCCEEDED at 0.1, 0.2, ..., 0.8 on every rung up to 27.
std::vector<Trial> EightCompleted() {
  std::vector<Trial> trials;
  for (int i = 1; i <= 8; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Flat(0.1 * i, {1, 3, 9, 27})));
  }
  return trials;
}

TEST(AshaStoppingPolicyTest, TrialInTheTopThirdAtItsRungContinues) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(CurveTrial(9, TrialState::kActive, {{1, 0.75}}));
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  // 9 values at rung 1; the top 3 are 0.8, 0.75, 0.7.
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "promoted at rungs step 1 (0.75 within the top 3 of 9); next rung "
            "at step 3");
}

TEST(AshaStoppingPolicyTest, TrialBelowTheTopThirdAtItsRungIsStopped) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(CurveTrial(9, TrialState::kActive, {{1, 0.55}}));
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  // The top 3 of the 9 are 0.8, 0.7, 0.6.
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "value 0.55 at the rung at step 1 is not in the top 1/3 of the 9 "
            "trials there: 3rd best is 0.6");
}

TEST(AshaStoppingPolicyTest, StopsAtTheFirstRungItFails) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(CurveTrial(9, TrialState::kActive,
                              {{1, 0.85}, {3, 0.85}, {9, 0.2}, {10, 0.2}}));
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason,
              HasSubstr("value 0.2 at the rung at step 9 is not in the top"));
}

TEST(AshaStoppingPolicyTest, JudgesEveryRungPassedSincePreviousPoll) {
  std::vector<Trial> trials = EightCompleted();
  // First seen at step 12, having passed rungs 1, 3 and 9 at once.
  trials.push_back(CurveTrial(9, TrialState::kActive,
                              {{1, 0.9}, {3, 0.9}, {9, 0.9}, {12, 0.9}}));
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "promoted at rungs step 1 (0.9 within the top 3 of 9), step 3 "
            "(0.9 within the top 3 of 9), step 9 (0.9 within the top 3 of "
            "9); next rung at step 27");
}

TEST(AshaStoppingPolicyTest, UsesTheValueAtEachRungNotTheLatest) {
  // Reports at steps 2, 5 and 20 only: rung 1 has no value yet (not
  // judged), rung 3 takes step 2's 0.85, rung 9 step 5's 0.2, which fails
  // although the latest value, 0.95, is the best of all.
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(
      CurveTrial(9, TrialState::kActive, {{2, 0.85}, {5, 0.2}, {20, 0.95}}));
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "value 0.2 at the rung at step 9 is not in the top 1/3 of the 9 "
            "trials there: 3rd best is 0.6");
}

TEST(AshaStoppingPolicyTest, WithFewerThanTwoEtaTrialsOnlyTheBestContinues) {
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kSucceeded, Flat(0.5, {1, 3})),
      CurveTrial(2, TrialState::kActive, {{1, 0.4}}),
      CurveTrial(3, TrialState::kActive, {{1, 0.6}}),
      CurveTrial(4, TrialState::kActive, {{1, 0.6}}),
  };
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  // Trial 2 (2 trials at the rung) is behind trial 1; trial 3 (3 trials) is
  // the best; trial 4 (4 trials) ties with it, and ties continue.
  EXPECT_THAT(Calls(decisions),
              ElementsAre(Call(2, true), Call(3, false), Call(4, false)));
  EXPECT_EQ(decisions[0].reason,
            "value 0.4 at the rung at step 1 is not in the top 1/3 of the 2 "
            "trials there: 1st best is 0.5");
}

TEST(AshaStoppingPolicyTest, PromotionIsFinalAgainstLaterArrivals) {
  // Trial 5 reached rung 1 at t=10 behind only trial 1; trials 2-4 (made
  // earlier, started later) arrive at t=20 with better values. Trial 5 stays
  // promoted; trial 6, arriving at t=30, meets all of them.
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kSucceeded, {{1, 0.4, 5}, {3, 0.4, 6}}),
      CurveTrial(2, TrialState::kActive, {{1, 0.9, 20}}),
      CurveTrial(3, TrialState::kActive, {{1, 0.9, 20}}),
      CurveTrial(4, TrialState::kActive, {{1, 0.9, 20}}),
      CurveTrial(5, TrialState::kActive, {{1, 0.5, 10}, {2, 0.5, 25}}),
      CurveTrial(6, TrialState::kActive, {{1, 0.6, 30}}),
  };
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  EXPECT_THAT(Calls(decisions),
              ElementsAre(Call(2, false), Call(3, false), Call(4, false),
                          Call(5, false), Call(6, true)));
  EXPECT_EQ(decisions[3].reason,
            "promoted at rungs step 1 (0.5 within the top 1 of 2); next rung "
            "at step 3");
  EXPECT_EQ(decisions[4].reason,
            "value 0.6 at the rung at step 1 is not in the top 1/3 of the 6 "
            "trials there: 2nd best is 0.9");
}

TEST(AshaStoppingPolicyTest, FailedAndCancelledTrialsDoNotCompete) {
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kFailed, Flat(0.9, {1, 3})),
      CurveTrial(2, TrialState::kCancelled, Flat(0.9, {1, 3})),
      CurveTrial(3, TrialState::kInfeasible, Flat(0.9, {1, 3})),
      CurveTrial(4, TrialState::kStopping, Flat(0.3, {1, 3})),
      CurveTrial(5, TrialState::kActive, {{1, 0.5}}),
  };
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("within the top 1 of 2)"));
}

TEST(AshaStoppingPolicyTest, MinimizeMirrorsMaximize) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(CurveTrial(9, TrialState::kActive, {{1, 0.75}, {3, 0.75}}));
  trials.push_back(CurveTrial(10, TrialState::kActive, {{1, 0.65}}));
  trials.push_back(
      CurveTrial(11, TrialState::kActive, {{1, 0.9}, {3, 0.9}, {9, 0.1}}));
  std::vector<Trial> negated = trials;
  for (Trial& t : negated) {
    for (Measurement& m : t.measurements) {
      m.metrics["accuracy"] = -m.metrics["accuracy"];
    }
  }
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> maximize = Decide(*policy, Study(), trials);
  std::vector<StoppingDecision> minimize =
      Decide(*policy, Study(Goal::kMinimize), negated);
  EXPECT_THAT(Calls(maximize),
              ElementsAre(Call(9, false), Call(10, true), Call(11, true)));
  EXPECT_EQ(Calls(minimize), Calls(maximize));
  EXPECT_EQ(minimize[1].reason,
            "value -0.65 at the rung at step 1 is not in the top 1/3 of the "
            "10 trials there: 3rd best is -0.7");
}

TEST(AshaStoppingPolicyTest, AutoMinResourceWaitsForACompletedTrial) {
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kActive, Flat(0.9, {10, 20, 30})),
      CurveTrial(2, TrialState::kActive, Flat(0.1, {10, 20, 30})),
  };
  auto policy = MakePolicy({});
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  EXPECT_THAT(Calls(decisions), ElementsAre(Call(1, false), Call(2, false)));
  EXPECT_EQ(decisions[1].reason,
            "no completed trial yet to place the rungs (min_resource auto)");
}

TEST(AshaStoppingPolicyTest, AutoMinResourceIsFromTheFirstCompletedTrial) {
  auto at = [](int64_t seconds) { return FromUnixMicros(seconds * 1'000'000); };
  std::vector<Trial> trials;
  // Ended second, 300 steps: would give r = 3.
  trials.push_back(
      CurveTrial(1, TrialState::kSucceeded, Flat(0.9, {1, 3, 9, 300})));
  trials.back().end_time = at(100);
  // Ended first, 900 steps: r = 9.
  trials.push_back(
      CurveTrial(2, TrialState::kSucceeded, Flat(0.9, {1, 3, 9, 900})));
  trials.back().end_time = at(50);
  // Stopped early before both: not a completed run, so not used (r = 1).
  trials.push_back(CurveTrial(3, TrialState::kSucceeded, Flat(0.9, {1, 100})));
  trials.back().end_time = at(10);
  trials.back().stopped_early = true;
  // Clearly worse, but below the first rung at step 9.
  trials.push_back(CurveTrial(4, TrialState::kActive, Flat(0.1, {1, 3, 8})));
  auto policy = MakePolicy({.reduction_factor = 3});
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "step 8 has not been judged at a rung; next rung at step 9");
  // At step 9 it meets the rung.
  trials.back() = CurveTrial(4, TrialState::kActive, Flat(0.1, {1, 3, 8, 9}));
  decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("at the rung at step 9"));
}

TEST(AshaStoppingPolicyTest, MinEarlyStoppingRateMovesTheFirstRung) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(CurveTrial(9, TrialState::kActive, {{1, 0.1}, {2, 0.1}}));
  auto policy = MakePolicy(
      {.min_resource = 1, .reduction_factor = 3, .min_early_stopping_rate = 1});
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_EQ(decisions[0].reason,
            "step 2 has not been judged at a rung; next rung at step 3");
}

TEST(AshaStoppingPolicyTest, MeasurementsWithoutTheMetricAreIgnored) {
  std::vector<Trial> trials = EightCompleted();
  // Its step-9 report has no accuracy: it stands at step 3, where it is in
  // the top third; judged at step 9 on its step-3 value it would be too, so
  // the reason's "next rung" tells.
  Trial active = CurveTrial(9, TrialState::kActive, {{1, 0.9}, {3, 0.9}});
  active.measurements.push_back({.step = 9, .metrics = {{"loss", 0.1}}});
  trials.push_back(active);
  Trial silent = CurveTrial(10, TrialState::kActive, {});
  silent.measurements.push_back({.step = 9, .metrics = {{"loss", 0.1}}});
  trials.push_back(silent);
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_FALSE(decisions[0].stop);
  EXPECT_THAT(decisions[0].reason, HasSubstr("; next rung at step 9"));
  EXPECT_FALSE(decisions[1].stop);
  EXPECT_EQ(decisions[1].reason, "no value of accuracy reported yet");
}

TEST(AshaStoppingPolicyTest, DecisionsAreInTrialOrderAndRepeatable) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(CurveTrial(11, TrialState::kActive, {{1, 0.1}}));
  trials.push_back(CurveTrial(9, TrialState::kActive, {{1, 0.9}}));
  trials.push_back(CurveTrial(10, TrialState::kRequested, {}));
  std::reverse(trials.begin(), trials.end());
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  EXPECT_THAT(Calls(decisions), ElementsAre(Call(9, false), Call(11, true)));
  EXPECT_EQ(Decide(*policy, Study(), trials), decisions);
}

TEST(AshaStoppingPolicyTest, InvalidOptionsAreNamed) {
  auto resource = AshaStoppingPolicy::Create({.min_resource = 0});
  ASSERT_FALSE(resource.ok());
  EXPECT_THAT(
      resource,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "ASHA: min_resource must be at least 1 (or auto), got 0"));
  auto eta = AshaStoppingPolicy::Create({.reduction_factor = 1});
  ASSERT_FALSE(eta.ok());
  EXPECT_EQ(eta.status().message(),
            "ASHA: reduction_factor must be at least 2, got 1");
  auto rate = AshaStoppingPolicy::Create({.min_early_stopping_rate = -1});
  ASSERT_FALSE(rate.ok());
  EXPECT_EQ(rate.status().message(),
            "ASHA: min_early_stopping_rate must be at least 0, got -1");
}

TEST(AshaStoppingPolicyTest, StudyWithoutMetricTagIsAnError) {
  StudySpec study = Study();
  study.SetSingleMetric("", study.goal());
  auto policy = MakePolicy({});
  auto decisions = policy->Decide(study, EightCompleted());
  ASSERT_FALSE(decisions.ok());
  EXPECT_THAT(decisions, StatusIs(absl::StatusCode::kInvalidArgument,
                                  "ASHA: the study has no metric tag"));
}

TEST(AshaStoppingPolicyTest, HugeStepsDoNotOverflowTheRungs) {
  std::vector<Trial> trials = EightCompleted();
  trials.push_back(
      CurveTrial(9, TrialState::kActive,
                 {{1, 0.9}, {std::numeric_limits<int64_t>::max(), 0.9}}));
  auto policy = MakePolicy(RungsAtPowersOfThree());
  std::vector<StoppingDecision> decisions = Decide(*policy, Study(), trials);
  ASSERT_EQ(decisions.size(), 1u);
  // 3^39 is the last power of 3 below 2^63; the next would overflow.
  EXPECT_THAT(decisions[0].reason,
              HasSubstr("; next rung at step 9223372036854775807"));
}

}  // namespace
}  // namespace hptune::algorithms
