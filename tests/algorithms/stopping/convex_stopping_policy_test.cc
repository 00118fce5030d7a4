#include "algorithms/stopping/convex_stopping_policy.h"

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

// An accuracy from `start` rising by `per_step` at steps 100..last.
std::vector<Point> Rising(double start, double per_step, int64_t last) {
  std::vector<Point> points;
  for (int64_t s : Hundreds(last)) points.push_back({s, start + per_step * s});
  return points;
}

// Trials 1..6 SUCCEEDED to step 1000, the best ending at 0.9.
std::vector<Trial> Completed() {
  std::vector<Trial> trials;
  for (int i = 1; i <= 6; ++i) {
    trials.push_back(CurveTrial(i, TrialState::kSucceeded,
                                Rising(0.3 + 0.1 * (i - 6), 0.0006, 1000)));
  }
  return trials;
}

StoppingDecision DecideOne(const std::vector<Trial>& trials,
                           ConvexStoppingOptions options = {}) {
  auto policy = ConvexStoppingPolicy::Create(options);
  EXPECT_OK(policy);
  if (!policy.ok()) return {};
  auto decisions = (*policy)->Decide(Study(), trials);
  EXPECT_OK(decisions);
  if (!decisions.ok() || decisions->size() != 1) {
    ADD_FAILURE() << "expected one decision";
    return {};
  }
  return decisions->front();
}

// Its line reaches 0.1 + 0.00025 * 1000 = 0.35 at step 1000, short of 0.9.
TEST(ConvexStoppingPolicyTest, ASlowClimbWhoseLineFallsShortIsStopped) {
  std::vector<Trial> trials = Completed();
  trials.push_back(
      CurveTrial(7, TrialState::kActive, Rising(0.1, 0.00025, 500)));
  StoppingDecision d = DecideOne(trials);
  EXPECT_TRUE(d.stop) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("forecast 0.35 at step 1000"));
  EXPECT_THAT(d.reason, HasSubstr("best completed final value 0.9"));
}

// Worse than every completed curve now, but its slope could still take it
// past 0.9 by step 1000 (0.2 + 0.001 * 1000 = 1.2).
TEST(ConvexStoppingPolicyTest, ASteepClimbIsKept) {
  std::vector<Trial> trials = Completed();
  trials.push_back(CurveTrial(7, TrialState::kActive, Rising(0.2, 0.001, 500)));
  StoppingDecision d = DecideOne(trials);
  EXPECT_FALSE(d.stop) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("forecast 1.2 at step 1000"));
}

TEST(ConvexStoppingPolicyTest, MaxStepCountSetsTheForecastStep) {
  std::vector<Trial> trials = Completed();
  trials.push_back(CurveTrial(7, TrialState::kActive, Rising(0.2, 0.001, 500)));
  StoppingDecision d = DecideOne(trials, {.max_step_count = 600});
  EXPECT_TRUE(d.stop) << d.reason;  // 0.8 by step 600.
}

// A study's convexStopping block (Vertex's spec) is read into the options.
TEST(ConvexStoppingPolicyTest, TheStudysSettingsBecomeTheOptions) {
  std::vector<Trial> trials = Completed();
  trials.push_back(CurveTrial(7, TrialState::kActive, Rising(0.2, 0.001, 500)));
  StoppingSettings settings{.rule = "convex"};
  settings.Set("maxStepCount", int64_t{600});  // 0.8 by step 600.
  const auto decide = [&]() -> bool {
    auto options = ConvexOptionsFromSettings(settings);
    EXPECT_OK(options);
    auto policy = ConvexStoppingPolicy::Create(*options);
    EXPECT_OK(policy);
    auto decisions = (*policy)->Decide(Study(), trials);
    EXPECT_OK(decisions);
    return decisions->front().stop;
  };
  EXPECT_TRUE(decide());
  settings.Set("minStepCount", int64_t{500});  // Its latest step is 500.
  EXPECT_FALSE(decide());
  settings.Set("minMeasurementCount", int64_t{1});
  EXPECT_THAT(ConvexOptionsFromSettings(settings),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "minMeasurementCount: must be 2 to 1000, got 1"));
}

TEST(ConvexStoppingPolicyTest, AFlatCurveGetsNoForecastAsVertexSays) {
  std::vector<Trial> trials = Completed();
  trials.push_back(
      CurveTrial(7, TrialState::kActive, Flat(0.1, Hundreds(600))));
  StoppingDecision d = DecideOne(trials);
  EXPECT_FALSE(d.stop);
  EXPECT_EQ(d.reason, "the latest values are flat: no forecast");
}

TEST(ConvexStoppingPolicyTest, AFallingCurveIsBoundByItsBestValue) {
  std::vector<Trial> trials = Completed();
  trials.push_back(
      CurveTrial(7, TrialState::kActive, Rising(0.8, -0.001, 600)));
  StoppingDecision d = DecideOne(trials);
  EXPECT_TRUE(d.stop) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("forecast 0.7 at step 1000 (not improving"));
}

TEST(ConvexStoppingPolicyTest, AnInfinityStopsATrialAtOnce) {
  std::vector<Trial> trials = {CurveTrial(
      1, TrialState::kActive, {{1, std::numeric_limits<double>::infinity()}})};
  StoppingDecision d = DecideOne(trials);
  EXPECT_TRUE(d.stop);
  EXPECT_THAT(d.reason, HasSubstr("diverged"));
}

TEST(ConvexStoppingPolicyTest, WaitsForVertexsCountsAndSteps) {
  std::vector<Trial> few = Completed();
  few.resize(5);
  few.push_back(CurveTrial(7, TrialState::kActive, Rising(0.1, 0.00025, 500)));
  EXPECT_THAT(DecideOne(few).reason,
              HasSubstr("5 completed trials, 6 needed before judging"));

  std::vector<Trial> short_curve = Completed();
  short_curve.push_back(
      CurveTrial(7, TrialState::kActive, Rising(0.1, 0.00025, 400)));
  EXPECT_THAT(DecideOne(short_curve).reason,
              HasSubstr("4 values of accuracy reported, 5 needed"));

  std::vector<Trial> low_step = Completed();
  low_step.push_back(
      CurveTrial(7, TrialState::kActive, Rising(0.1, 0.00025, 500)));
  EXPECT_THAT(DecideOne(low_step, {.min_step_count = 500}).reason,
              HasSubstr("step 500 is before step 501"));
}

TEST(ConvexStoppingPolicyTest, InvalidOptionsAreNamedAsVertexNamesThem) {
  EXPECT_THAT(
      ConvexStoppingPolicy::Create({.min_measurement_count = 1}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("minMeasurementCount must be in [2, 1000], got 1")));
  EXPECT_THAT(ConvexStoppingPolicy::Create({.max_step_count = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("maxStepCount must be in [0, 1e12], got -1")));
}

}  // namespace
}  // namespace hptune::algorithms
