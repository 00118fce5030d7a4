// ASHA's pauses (AshaOptions::resume, the rule "asha-resume"): which
// stopped trial is resumed, and how a continuation is judged.
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "algorithms/stopping/asha_stopping_policy.h"
#include "tests/algorithms/stopping/curves.h"
#include "tests/testing/status_matchers.h"

namespace hptune::algorithms {
namespace {

using ::hptune::algorithms::testing::CurveTrial;
using ::hptune::algorithms::testing::Flat;
using ::hptune::algorithms::testing::Study;

// Rungs at steps 1, 3, 9, 27, ...; stops are pauses.
std::unique_ptr<AshaStoppingPolicy> Pausing(bool resume = true) {
  auto policy = AshaStoppingPolicy::Create(
      {.min_resource = 1, .reduction_factor = 3, .resume = resume});
  EXPECT_OK(policy);
  return policy.ok() ? *std::move(policy) : nullptr;
}

std::optional<int64_t> ToResume(AshaStoppingPolicy& policy,
                                const std::vector<Trial>& trials) {
  auto number = policy.TrialToResume(Study(), trials);
  EXPECT_OK(number);
  return number.ok() ? *number : std::nullopt;
}

Trial Stopped(int64_t number, std::vector<testing::Point> points) {
  Trial trial = CurveTrial(number, TrialState::kSucceeded, points);
  trial.stopped_early = true;
  return trial;
}

// Trial 1 ran to its end at 0.9; trial 2 was paused at rung 1 with 0.5,
// behind it; trials 3 to `last` were paused there with 0.1.
std::vector<Trial> PausedBehindTheFirst(int64_t last) {
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kSucceeded, Flat(0.9, {1, 3, 9, 27})),
      Stopped(2, {{1, 0.5}})};
  for (int64_t n = 3; n <= last; ++n) trials.push_back(Stopped(n, {{1, 0.1}}));
  return trials;
}

TEST(AshaResumeTest, APausedTrialIsResumedOnceInTheTopThirdOfItsRung) {
  auto policy = Pausing();
  // 5 trials at rung 1: only the best (trial 1) is promoted.
  EXPECT_EQ(ToResume(*policy, PausedBehindTheFirst(5)), std::nullopt);
  // 6: the top 2, and trial 2 is second.
  EXPECT_EQ(ToResume(*policy, PausedBehindTheFirst(6)), 2);
}

TEST(AshaResumeTest, TheStoppingFormResumesNothing) {
  auto policy = Pausing(/*resume=*/false);
  EXPECT_FALSE(policy->ResumesStoppedTrials());
  EXPECT_EQ(ToResume(*policy, PausedBehindTheFirst(6)), std::nullopt);
  EXPECT_TRUE(Pausing()->ResumesStoppedTrials());
}

TEST(AshaResumeTest, OnlyTrialsStoppedAtARungAreResumed) {
  auto policy = AshaStoppingPolicy::Create(
      {.min_resource = 3, .reduction_factor = 3, .resume = true});
  ASSERT_OK(policy);
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kSucceeded, Flat(0.9, {3, 9, 27})),
      // Stopped by someone else before the first rung, with the best value.
      Stopped(2, {{1, 0.95}, {2, 0.95}}),
      // Ran to its end: nothing to resume.
      CurveTrial(3, TrialState::kSucceeded, Flat(0.8, {3, 9, 27}))};
  for (int64_t n = 4; n <= 9; ++n) trials.push_back(Stopped(n, {{3, 0.1}}));
  EXPECT_EQ(ToResume(**policy, trials), std::nullopt);
}

TEST(AshaResumeTest, ItMustBePromotedAtEveryRungItReached) {
  std::vector<Trial> trials = PausedBehindTheFirst(6);
  // Trial 2 went on past rung 3, and was paused at rung 9 behind 2 others
  // that reached rung 3 better than it.
  trials[1] = Stopped(2, {{1, 0.5}, {3, 0.5}, {9, 0.5}});
  trials.push_back(
      CurveTrial(7, TrialState::kSucceeded, Flat(0.95, {1, 3, 9, 27})));
  trials.push_back(CurveTrial(8, TrialState::kActive, Flat(0.92, {1, 3})));
  // Rung 1: 8 trials, top 2 are 0.95 and 0.92: trial 2 is not in them.
  EXPECT_EQ(ToResume(*Pausing(), trials), std::nullopt);
}

TEST(AshaResumeTest, TheHighestRungGoesFirstThenTheBestValue) {
  std::vector<Trial> trials;
  for (int64_t n = 1; n <= 9; ++n) {
    trials.push_back(Stopped(n, {{1, 0.1 * n}}));
  }
  // 9 at rung 1: the top 3 are trials 9, 8, 7; the best goes first.
  EXPECT_EQ(ToResume(*Pausing(), trials), 9);
  // Trial 7 also reached rung 3, ahead of two others there (top 1 of 3),
  // and is still in rung 1's top 3 of 11: it goes before trial 9.
  trials[6] = Stopped(7, {{1, 0.7}, {3, 0.7}});
  trials.push_back(Stopped(10, {{1, 0.05}, {3, 0.2}}));
  trials.push_back(Stopped(11, {{1, 0.05}, {3, 0.3}}));
  EXPECT_EQ(ToResume(*Pausing(), trials), 7);
}

TEST(AshaResumeTest, AContinuationIsNotJudgedAgainWhereItsCopyReached) {
  // Trial 3 continues trial 2: its curve up to rung 1 was reported at t=10,
  // before it was created at t=50; trial 1 reached rung 1 first, better.
  auto at = [](int64_t seconds) { return FromUnixMicros(seconds * 1'000'000); };
  Trial continuation = CurveTrial(3, TrialState::kActive, {{1, 0.5, 10}});
  continuation.origin = "resume[2]";
  continuation.create_time = at(50);
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kSucceeded, {{1, 0.9, 5}, {3, 0.9, 6}}),
      continuation};
  auto decisions = Pausing()->Decide(Study(), trials);
  ASSERT_OK(decisions);
  ASSERT_EQ(decisions->size(), 1u);
  EXPECT_FALSE(decisions->front().stop) << decisions->front().reason;
  // At rung 3, reached after it was created, it is judged.
  trials[1].measurements.push_back(trials[1].measurements.front());
  trials[1].measurements.back().step = 3;
  trials[1].measurements.back().time = at(60);
  decisions = Pausing()->Decide(Study(), trials);
  ASSERT_OK(decisions);
  ASSERT_EQ(decisions->size(), 1u);
  EXPECT_TRUE(decisions->front().stop);
  EXPECT_THAT(decisions->front().reason,
              ::testing::HasSubstr("at the rung at step 3"));
}

TEST(AshaResumeTest, AshaResumePlacesTheFirstRungAtASixthOfAFullCurve) {
  const AshaOptions options = AshaResumeOptions();
  EXPECT_TRUE(options.resume);
  EXPECT_EQ(options.reduction_factor, 3);
  EXPECT_FALSE(options.min_resource.has_value());
  // A first full curve of 24 steps puts the rungs at 4 and 12.
  auto policy = AshaStoppingPolicy::Create(options);
  ASSERT_OK(policy);
  std::vector<int64_t> steps;
  for (int64_t s = 1; s <= 24; ++s) steps.push_back(s);
  std::vector<Trial> trials = {
      CurveTrial(1, TrialState::kSucceeded, Flat(0.9, steps)),
      CurveTrial(2, TrialState::kActive, Flat(0.1, {1, 2, 3}))};
  auto decisions = (*policy)->Decide(Study(), trials);
  ASSERT_OK(decisions);
  EXPECT_FALSE(decisions->front().stop);
  EXPECT_THAT(decisions->front().reason,
              ::testing::HasSubstr("next rung at step 4"));
}

}  // namespace
}  // namespace hptune::algorithms
