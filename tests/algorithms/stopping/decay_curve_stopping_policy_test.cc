#include "algorithms/stopping/decay_curve_stopping_policy.h"

#include <cmath>
#include <limits>
#include <memory>
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
using ::testing::HasSubstr;

std::unique_ptr<DecayCurveStoppingPolicy> MakePolicy(
    DecayCurveOptions options = {}) {
  auto policy = DecayCurveStoppingPolicy::Create(options);
  EXPECT_OK(policy);
  return policy.ok() ? *std::move(policy) : nullptr;
}

// A loss 0.2 + k / sqrt(s / 100) at steps 100..last.
std::vector<Point> Decaying(double k, int64_t last, double floor = 0.2) {
  std::vector<Point> points;
  for (int64_t s : Hundreds(last)) {
    points.push_back({s, floor + k / std::sqrt(s / 100.0)});
  }
  return points;
}

// Trials 1..5 SUCCEEDED with decaying losses to step 1000; the best final
// value is trial 1's, 0.2 + 1 / sqrt(10) = 0.516.
std::vector<Trial> Completed() {
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    trials.push_back(
        CurveTrial(i, TrialState::kSucceeded, Decaying(0.9 + 0.1 * i, 1000)));
  }
  return trials;
}

StoppingDecision DecideOne(std::vector<Trial> trials,
                           DecayCurveOptions options = {}) {
  auto decisions = MakePolicy(options)->Decide(Study(Goal::kMinimize), trials);
  EXPECT_OK(decisions);
  if (!decisions.ok() || decisions->size() != 1) {
    ADD_FAILURE() << "expected one decision";
    return {};
  }
  return decisions->front();
}

TEST(DecayCurveStoppingPolicyTest, APlateauWorseThanTheBestIsStopped) {
  std::vector<Trial> trials = Completed();
  trials.push_back(
      CurveTrial(6, TrialState::kActive, Flat(0.9, Hundreds(500))));
  StoppingDecision d = DecideOne(trials);
  EXPECT_TRUE(d.stop) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("not improving"));
  EXPECT_THAT(d.reason, HasSubstr("best completed final value 0.516"));
}

// Its value now (0.58 at step 300) is worse than the best final (0.516),
// but the fitted decay reaches 0.32 by step 1000.
TEST(DecayCurveStoppingPolicyTest, AFastDecayStillHeadingBelowTheBestIsKept) {
  std::vector<Trial> trials = Completed();
  trials.push_back(
      CurveTrial(6, TrialState::kActive, Decaying(1.0, 300, /*floor=*/0.0)));
  StoppingDecision d = DecideOne(trials);
  EXPECT_FALSE(d.stop) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("forecast 0.316"));
}

TEST(DecayCurveStoppingPolicyTest, AnExplodingLossIsStoppedAtTheFirstCheck) {
  std::vector<Trial> trials = Completed();
  trials.push_back(
      CurveTrial(6, TrialState::kActive,
                 {{100, 1.0}, {200, 0.8}, {300, 0.7}, {400, 5}, {500, 50}}));
  StoppingDecision d = DecideOne(trials);
  EXPECT_TRUE(d.stop) << d.reason;
}

TEST(DecayCurveStoppingPolicyTest, ANanStopsATrialAtOnceWithoutWarmUp) {
  // No completed trial, one report: the warm-up would keep any other curve.
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kActive,
                 {{1, 0.5}, {2, std::numeric_limits<double>::quiet_NaN()}})};
  StoppingDecision d = DecideOne(trials);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason, "diverged: reported a non-finite accuracy");
}

TEST(DecayCurveStoppingPolicyTest, KeepsEveryTrialDuringTheWarmUp) {
  std::vector<Trial> few = Completed();
  few.resize(4);
  few.push_back(CurveTrial(6, TrialState::kActive, Flat(0.9, Hundreds(500))));
  EXPECT_THAT(DecideOne(few).reason,
              HasSubstr("4 completed trials, 5 needed before judging"));

  std::vector<Trial> early = Completed();
  early.push_back(
      CurveTrial(6, TrialState::kActive, Flat(0.9, {50, 100, 150, 200})));
  EXPECT_FALSE(DecideOne(early).stop);
  EXPECT_THAT(DecideOne(early).reason, HasSubstr("before step 250"));
}

TEST(DecayCurveStoppingPolicyTest, InvalidOptionsAreNamed) {
  EXPECT_THAT(
      DecayCurveStoppingPolicy::Create({.min_measurements = 2}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("min_measurements must be at least 3, got 2")));
  EXPECT_THAT(
      DecayCurveStoppingPolicy::Create({.optimism_sigmas = -1}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("optimism_sigmas must be in [0, 10], got -1")));
}

}  // namespace
}  // namespace hptune::algorithms
