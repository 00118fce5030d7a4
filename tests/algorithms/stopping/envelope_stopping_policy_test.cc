#include "algorithms/stopping/envelope_stopping_policy.h"

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
using ::hptune::algorithms::testing::Point;
using ::hptune::algorithms::testing::Study;
using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

// A loss decaying from `start` to `end` over steps 1..24,
// loss(s) = end + (start - end) * exp(-rate * (s - 1)), reported at 1..last.
std::vector<Point> Decay(double start, double end, double rate, int last) {
  std::vector<Point> points;
  for (int s = 1; s <= last; ++s) {
    points.push_back({s, end + (start - end) * std::exp(-rate * (s - 1))});
  }
  return points;
}

// Trials 1..5 ran to step 24: fast learners starting at 0.7, the best ending
// at 0.40. The most any of them improves after step 3 is about 0.18.
std::vector<Trial> Ended() {
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    trials.push_back(CurveTrial(i, TrialState::kSucceeded,
                                Decay(0.7, 0.40 + 0.02 * (i - 1), 0.5, 24)));
  }
  return trials;
}

StoppingDecision Judge(std::vector<Trial> trials, const Trial& active,
                       Goal goal = Goal::kMinimize) {
  trials.push_back(active);
  auto policy = EnvelopeStoppingPolicy::Create(EnvelopeStoppingOptions{});
  EXPECT_OK(policy);
  if (!policy.ok()) return {};
  auto decisions = (*policy)->Decide(Study(goal), trials);
  EXPECT_OK(decisions);
  if (!decisions.ok() || decisions->size() != 1) {
    ADD_FAILURE() << "expected one decision";
    return {};
  }
  return decisions->front();
}

// Stuck at 0.69 from step 1: no ended curve falls 0.29 after step 4, and its
// own slope is flat.
TEST(EnvelopeStoppingPolicyTest, APlateauAboveTheBestIsStopped) {
  StoppingDecision d = Judge(
      Ended(), CurveTrial(9, TrialState::kActive, Decay(0.7, 0.69, 0.5, 4)));
  EXPECT_TRUE(d.stop) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("worse than the best completed final "
                                  "value 0.4"));
}

// Chance-level loss 2.3 for three steps, then falling 0.3 a step: no ended
// curve ever recovered that much, but its own slope over 20 more steps does.
TEST(EnvelopeStoppingPolicyTest, ALateBloomerFallingSteeplySurvives) {
  std::vector<Point> bloomer = {{1, 2.3}, {2, 2.3}, {3, 2.0}, {4, 1.7}};
  StoppingDecision d =
      Judge(Ended(), CurveTrial(9, TrialState::kActive, bloomer));
  EXPECT_FALSE(d.stop) << d.reason;
}

// A plateau at 2.2 is kept once an ended curve of this study came back from
// 2.3 to 0.45 after step 3 (2.2 - 1.85 beats 0.40), and stopped without it:
// the rule learns from the curves it has seen.
TEST(EnvelopeStoppingPolicyTest, APlateauIsKeptWhenAnEndedCurveRecoveredFrom) {
  const Trial plateau =
      CurveTrial(9, TrialState::kActive, {{1, 2.2}, {2, 2.2}, {3, 2.2}});
  StoppingDecision unseen = Judge(Ended(), plateau);
  EXPECT_TRUE(unseen.stop) << unseen.reason;

  std::vector<Trial> trials = Ended();
  std::vector<Point> recovered = {{1, 2.3}, {2, 2.3}, {3, 2.3}, {4, 2.3}};
  for (const Point& p : Decay(2.3, 0.45, 0.6, 20)) {
    recovered.push_back({p.step + 4, p.value});
  }
  trials.push_back(CurveTrial(6, TrialState::kSucceeded, recovered));
  StoppingDecision seen = Judge(trials, plateau);
  EXPECT_FALSE(seen.stop) << seen.reason;
  EXPECT_THAT(seen.reason, HasSubstr("is not worse"));
}

// A loss rising from step 1 stops at its first judged report; a NaN stops at
// once, before the warm-up.
TEST(EnvelopeStoppingPolicyTest, ADivergingRunStopsAtOnce) {
  StoppingDecision rising =
      Judge(Ended(),
            CurveTrial(9, TrialState::kActive, {{1, 0.8}, {2, 1.5}, {3, 4}}));
  EXPECT_TRUE(rising.stop) << rising.reason;
  StoppingDecision nan = Judge(
      Ended(), CurveTrial(9, TrialState::kActive,
                          {{1, std::numeric_limits<double>::quiet_NaN()}}));
  EXPECT_TRUE(nan.stop) << nan.reason;
  EXPECT_THAT(nan.reason, HasSubstr("diverged"));
}

// A curve on the best trials' path is kept.
TEST(EnvelopeStoppingPolicyTest, ATrialOnTheBestPathIsKept) {
  StoppingDecision d = Judge(
      Ended(), CurveTrial(9, TrialState::kActive, Decay(0.7, 0.38, 0.5, 6)));
  EXPECT_FALSE(d.stop) << d.reason;
}

TEST(EnvelopeStoppingPolicyTest, NothingIsJudgedBeforeFiveCurvesRanToTheEnd) {
  std::vector<Trial> trials = Ended();
  trials.pop_back();
  // A stopped trial is an ended curve but did not reach the longest step.
  trials.push_back(
      CurveTrial(5, TrialState::kSucceeded, Decay(0.7, 0.69, 0.5, 6)));
  StoppingDecision d = Judge(
      trials, CurveTrial(9, TrialState::kActive, Decay(0.7, 0.69, 0.5, 4)));
  EXPECT_FALSE(d.stop);
  EXPECT_THAT(d.reason,
              HasSubstr("4 trials ran to the longest step, 5 needed"));
}

TEST(EnvelopeStoppingPolicyTest, NothingIsJudgedBeforeThreeValues) {
  StoppingDecision d = Judge(
      Ended(), CurveTrial(9, TrialState::kActive, Decay(0.7, 0.69, 0.5, 2)));
  EXPECT_FALSE(d.stop);
  EXPECT_THAT(d.reason, HasSubstr("2 values of accuracy reported, 3 needed"));
}

// An accuracy to maximise: the mirror image of the plateau.
TEST(EnvelopeStoppingPolicyTest, MaximisingMirrorsMinimising) {
  std::vector<Trial> trials;
  for (int i = 1; i <= 5; ++i) {
    std::vector<Point> rising;
    for (const Point& p : Decay(0.7, 0.40 + 0.02 * (i - 1), 0.5, 24)) {
      rising.push_back({p.step, 1 - p.value});
    }
    trials.push_back(CurveTrial(i, TrialState::kSucceeded, rising));
  }
  StoppingDecision stuck = Judge(
      trials, CurveTrial(9, TrialState::kActive, {{1, .3}, {2, .31}, {3, .31}}),
      Goal::kMaximize);
  EXPECT_TRUE(stuck.stop) << stuck.reason;
  StoppingDecision good = Judge(
      trials, CurveTrial(9, TrialState::kActive, {{1, .3}, {2, .45}, {3, .55}}),
      Goal::kMaximize);
  EXPECT_FALSE(good.stop) << good.reason;
}

TEST(EnvelopeStoppingPolicyTest, OptionsOutOfRangeAreRefusedByName) {
  EXPECT_THAT(
      EnvelopeStoppingPolicy::Create({.min_full_curves = 0}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("min_full_curves must be in [1, 1000], got 0")));
  EXPECT_THAT(
      EnvelopeStoppingPolicy::Create(
          {.min_measurements = 3, .slope_intervals = 3}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("min_measurements must be in [slope_intervals + 1, "
                         "1000], got 3")));
}

}  // namespace
}  // namespace hptune::algorithms
