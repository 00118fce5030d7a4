// What early stopping saved: ComputeStoppingSavings on hand-made trials.
#include "hptune/core/savings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hptune {
namespace {

using ::testing::DoubleEq;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;

// A SUCCEEDED trial that ran `seconds` to its last step `step`.
Trial Ended(int64_t number, int64_t step, double seconds,
            bool stopped = false) {
  Trial t;
  t.number = number;
  t.state = TrialState::kSucceeded;
  t.stopped_early = stopped;
  t.final_measurement = Measurement{.step = step, .metrics = {{"loss", 1.0}}};
  t.start_time = FromUnixMicros(1'000'000'000);
  t.end_time = *t.start_time +
               std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  return t;
}

std::vector<const Trial*> Pointers(const std::vector<Trial>& trials) {
  std::vector<const Trial*> out;
  for (const Trial& t : trials) out.push_back(&t);
  return out;
}

// A study shows savings when it stops trials early or a trial was stopped
// (by a client); otherwise nothing.
TEST(StoppingSavingsTest, AStudyWithoutStoppingShowsNone) {
  const std::vector<Trial> ran = {Ended(1, 100, 50), Ended(2, 100, 60)};
  EXPECT_EQ(ShownStoppingSavings(Pointers(ran), false, std::nullopt),
            std::nullopt);
  EXPECT_NE(ShownStoppingSavings(Pointers(ran), true, std::nullopt),
            std::nullopt);
  const std::vector<Trial> one_stopped = {Ended(1, 100, 50),
                                          Ended(2, 40, 20, true)};
  std::optional<StoppingSavings> s =
      ShownStoppingSavings(Pointers(one_stopped), false, std::nullopt);
  ASSERT_NE(s, std::nullopt);
  EXPECT_EQ(s->trials_stopped, 1);
}

// Both JSON answers name every number, the counts first.
TEST(StoppingSavingsTest, EveryNumberHasBothNames) {
  const StoppingSavings s;
  std::vector<std::string> camel, snake;
  for (const SavingsCount& c : SavingsCounts(s)) {
    camel.push_back(c.camel_name);
    snake.push_back(c.snake_name);
  }
  for (const SavingsField& f : SavingsEstimates(s)) {
    camel.push_back(f.camel_name);
    snake.push_back(f.snake_name);
  }
  EXPECT_THAT(camel,
              ::testing::ElementsAre("trialsStopped", "trialsRunToEnd",
                                     "stepsRun", "fullTrialSteps", "stepsSaved",
                                     "trialSecondsSaved", "replicaSecondsSaved",
                                     "gpuSecondsSaved", "shareSaved"));
  EXPECT_THAT(snake,
              ::testing::ElementsAre(
                  "trials_stopped", "trials_run_to_end", "steps_run",
                  "full_trial_steps", "steps_saved", "trial_seconds_saved",
                  "replica_seconds_saved", "gpu_seconds_saved", "share_saved"));
}

TEST(StoppingSavingsTest, NothingStoppedSavesNothing) {
  const std::vector<Trial> trials = {Ended(1, 100, 50), Ended(2, 100, 60)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{2, 2});
  EXPECT_EQ(s.trials, 2);
  EXPECT_EQ(s.trials_stopped, 0);
  EXPECT_EQ(s.steps_run, 200);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(0)));
  EXPECT_THAT(s.replica_seconds_saved, Optional(DoubleEq(0)));
  EXPECT_THAT(s.share_saved, Optional(DoubleEq(0)));
  EXPECT_EQ(SavingsText(s), "0 of 2 trials stopped early");
}

TEST(StoppingSavingsTest, StoppedTrialsSaveTheRestOfTheMedianLength) {
  // Full lengths 80, 100, 120: median 100. Trial 4 stopped at step 25 after
  // 50 s (2 s a step): 75 steps, 150 s saved; trial 5 at 50 after 25 s
  // (0.5 s a step): 50 steps, 25 s.
  const std::vector<Trial> trials = {Ended(1, 80, 1), Ended(2, 100, 1),
                                     Ended(3, 120, 1), Ended(4, 25, 50, true),
                                     Ended(5, 50, 25, true)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{3, 0});
  EXPECT_EQ(s.trials_stopped, 2);
  EXPECT_EQ(s.trials_run_to_end, 3);
  EXPECT_THAT(s.full_steps, Optional(DoubleEq(100)));
  EXPECT_EQ(s.steps_run, 80 + 100 + 120 + 25 + 50);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(125)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(175)));
  EXPECT_THAT(s.replica_seconds_saved, Optional(DoubleEq(3 * 175)));
  EXPECT_THAT(s.share_saved, Optional(DoubleEq(125.0 / (375 + 125))));
  EXPECT_EQ(SavingsText(s),
            "2 of 5 trials stopped early; saved about 125 of 500 steps (25%), "
            "525 replica-seconds (an estimate: a full trial's length is the "
            "median of 3 run to their end)");
}

// An even count of trials run to their end: the full length is the mean
// of the two middle lengths. Lengths 140, 60, 100, 80 (unsorted): the
// lower middle is 80, the upper 100, their mean 90, the mean of all 95,
// so each wrong choice gives another saving for trial 5, stopped at step
// 30 after 60 s (2 s a step).
TEST(StoppingSavingsTest, AnEvenCountsFullLengthIsTheMeanOfTheTwoMiddleOnes) {
  const std::vector<Trial> trials = {Ended(1, 140, 1), Ended(2, 60, 1),
                                     Ended(3, 100, 1), Ended(4, 80, 1),
                                     Ended(5, 30, 60, true)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{1, 0});
  EXPECT_EQ(s.trials_run_to_end, 4);
  EXPECT_THAT(s.full_steps, Optional(DoubleEq(90)));
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(60)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(120)));
  EXPECT_THAT(SavingsText(s), HasSubstr("saved about 60 of 470 steps"));

  // Two run to their end, 10 and 15: a full length of 12.5, saving 10.5
  // steps of trial 3, stopped at step 2.
  const std::vector<Trial> two = {Ended(1, 15, 1), Ended(2, 10, 1),
                                  Ended(3, 2, 2, true)};
  const StoppingSavings t =
      ComputeStoppingSavings(Pointers(two), TrialFootprint{1, 0});
  EXPECT_THAT(t.full_steps, Optional(DoubleEq(12.5)));
  EXPECT_THAT(t.steps_saved, Optional(DoubleEq(10.5)));
  EXPECT_THAT(SavingsText(t), HasSubstr("saved about 10.5 of 37.5 steps"));
}

TEST(StoppingSavingsTest, AllStoppedIsUnknown) {
  const std::vector<Trial> trials = {Ended(1, 10, 5, true),
                                     Ended(2, 20, 5, true)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{1, 1});
  EXPECT_EQ(s.trials_stopped, 2);
  EXPECT_EQ(s.steps_run, 30);
  EXPECT_EQ(s.full_steps, std::nullopt);
  EXPECT_EQ(s.steps_saved, std::nullopt);
  EXPECT_EQ(s.replica_seconds_saved, std::nullopt);
  EXPECT_EQ(s.gpu_seconds_saved, std::nullopt);
  EXPECT_EQ(s.share_saved, std::nullopt);
  EXPECT_THAT(SavingsText(s), HasSubstr("saving unknown: no trial ran to its"));
}

TEST(StoppingSavingsTest, OnlySucceededUnstoppedTrialsAreTheYardstick) {
  // Failed (1000 steps), infeasible (900), cancelled (800) and running (7)
  // trials do not set the length: counted, the median would be 800.
  std::vector<Trial> trials = {Ended(1, 100, 1),       Ended(2, 1000, 1),
                               Ended(3, 40, 40, true), Ended(4, 7, 1),
                               Ended(5, 900, 1),       Ended(6, 800, 1)};
  trials[1].state = TrialState::kFailed;
  trials[3].state = TrialState::kActive;
  trials[3].end_time.reset();
  trials[4].state = TrialState::kInfeasible;
  trials[5].state = TrialState::kCancelled;
  const StoppingSavings s = ComputeStoppingSavings(Pointers(trials), {});
  EXPECT_THAT(s.full_steps, Optional(DoubleEq(100)));
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(60)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(60)));
  // No job, no footprint: trial-seconds only.
  EXPECT_EQ(s.replica_seconds_saved, std::nullopt);
  EXPECT_EQ(s.steps_run, 100 + 1000 + 40 + 7 + 900 + 800);
  EXPECT_THAT(SavingsText(s), HasSubstr(", 60 trial-seconds"));
}

TEST(StoppingSavingsTest, GpuSecondsOnlyWhereGpusAreAllocated) {
  const std::vector<Trial> trials = {Ended(1, 100, 1),
                                     Ended(2, 10, 3600, true)};
  // 90 steps at 360 s a step: 32400 s a replica.
  const StoppingSavings without =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{4, 0});
  EXPECT_THAT(without.replica_seconds_saved, Optional(DoubleEq(4 * 32400.0)));
  EXPECT_EQ(without.gpu_seconds_saved, std::nullopt);
  EXPECT_THAT(SavingsText(without), Not(HasSubstr("GPU")));

  JobSpec job;
  job.master = {.count = 1, .accelerator = {.count = 2, .type = "NVIDIA_A100"}};
  job.worker = {.count = 2, .accelerator = {.count = 1, .type = "NVIDIA_A100"}};
  job.parameter_server = {.count = 3};  // CPU only: no GPUs counted.
  const TrialFootprint footprint = FootprintOf(job);
  EXPECT_EQ(footprint.replicas, 6);
  EXPECT_EQ(footprint.gpus, 4);
  const StoppingSavings with =
      ComputeStoppingSavings(Pointers(trials), footprint);
  EXPECT_THAT(with.gpu_seconds_saved, Optional(DoubleEq(4 * 32400.0)));
  EXPECT_THAT(SavingsText(with),
              HasSubstr("54.0 replica-hours, 36.0 GPU-hours"));
}

// A trial without a final measurement (failed, still running) ran to the
// step of its latest intermediate report; one that reported nothing ran
// none.
TEST(StoppingSavingsTest, ATrialWithoutAFinalMeasurementRanToItsLastReport) {
  Trial failed;
  failed.number = 3;
  failed.state = TrialState::kFailed;
  failed.measurements = {{.step = 10}, {.step = 30}};
  Trial pending;
  pending.number = 4;
  pending.state = TrialState::kRequested;
  const std::vector<Trial> trials = {Ended(1, 100, 50), Ended(2, 40, 20, true),
                                     failed, pending};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), std::nullopt);
  EXPECT_EQ(s.trials, 4);
  EXPECT_EQ(s.steps_run, 100 + 40 + 30);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(60)));
}

TEST(StoppingSavingsTest, AStoppedTrialPastTheMedianSavesNothing) {
  const std::vector<Trial> trials = {Ended(1, 10, 1), Ended(2, 30, 3, true)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{1, 0});
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(0)));
  EXPECT_THAT(s.replica_seconds_saved, Optional(DoubleEq(0)));
}

}  // namespace
}  // namespace hptune

namespace hptune {
namespace {

// Freeze-thaw: trial 2, stopped at step 20, was resumed as trial 3, which
// reported steps 1..20 copied (before it was created) and ran on to 100 in
// 40 s. Trial 2 counts no more: 100 + 100 steps run, nothing saved; trial
// 3 stopped at 60 instead would save 40 steps at its own pace (40 steps in
// 16 s): 16 s.
TEST(StoppingSavingsTest, AResumedTrialCountsOnceAsItsContinuation) {
  std::vector<Trial> trials = {Ended(1, 100, 50), Ended(2, 20, 10, true),
                               Ended(3, 100, 40)};
  trials[2].origin = "resume[2]";
  trials[2].create_time = *trials[2].start_time;
  for (int64_t step = 1; step <= 20; ++step) {
    trials[2].measurements.push_back(
        {.step = step, .time = FromUnixMicros(step)});
  }
  StoppingSavings s = ComputeStoppingSavings(Pointers(trials), std::nullopt);
  EXPECT_EQ(s.trials, 2);
  EXPECT_EQ(s.trials_stopped, 0);
  EXPECT_EQ(s.steps_run, 200);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(0)));

  trials[2] = Ended(3, 60, 16, true);
  trials[2].origin = "resume[2]";
  trials[2].create_time = *trials[2].start_time;
  for (int64_t step = 1; step <= 20; ++step) {
    trials[2].measurements.push_back(
        {.step = step, .time = FromUnixMicros(step)});
  }
  s = ComputeStoppingSavings(Pointers(trials), std::nullopt);
  EXPECT_EQ(s.trials_stopped, 1);
  EXPECT_EQ(s.steps_run, 160);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(40)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(16)));
}

}  // namespace
}  // namespace hptune
