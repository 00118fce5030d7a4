// What early stopping saved: ComputeStoppingSavings on hand-made trials.
#include "hptune/core/savings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

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
  // Full lengths 80, 100, 120: median 100; their paces 1, 0.4 and 0.2 s a
  // step: median 0.4 (the mean 0.53). Trial 4 stopped at step 25: 75
  // steps; trial 5 at 50: 50 steps; 125 steps, 50 s saved. Their own paces
  // (2 and 0.5 s a step) do not count.
  const std::vector<Trial> trials = {Ended(1, 80, 80), Ended(2, 100, 40),
                                     Ended(3, 120, 24), Ended(4, 25, 50, true),
                                     Ended(5, 50, 25, true)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{3, 0});
  EXPECT_EQ(s.trials_stopped, 2);
  EXPECT_EQ(s.trials_run_to_end, 3);
  EXPECT_THAT(s.full_steps, Optional(DoubleEq(100)));
  EXPECT_EQ(s.steps_run, 80 + 100 + 120 + 25 + 50);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(125)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(50)));
  EXPECT_THAT(s.replica_seconds_saved, Optional(DoubleEq(3 * 50)));
  EXPECT_THAT(s.share_saved, Optional(DoubleEq(125.0 / (375 + 125))));
  EXPECT_EQ(SavingsText(s),
            "2 of 5 trials stopped early; saved about 125 of 500 steps (25%), "
            "150 replica-seconds (an estimate: a full trial's length is the "
            "median of 3 run to their end)");
}

// An even count of trials run to their end: the full length is the mean
// of the two middle lengths. Lengths 140, 60, 100, 80 (unsorted): the
// lower middle is 80, the upper 100, their mean 90, the mean of all 95,
// so each wrong choice gives another saving for trial 5, stopped at step
// 30; at 2 s a step.
TEST(StoppingSavingsTest, AnEvenCountsFullLengthIsTheMeanOfTheTwoMiddleOnes) {
  const std::vector<Trial> trials = {Ended(1, 140, 280), Ended(2, 60, 120),
                                     Ended(3, 100, 200), Ended(4, 80, 160),
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
  // Nor their paces: 1 s a step is trial 1's.
  std::vector<Trial> trials = {Ended(1, 100, 100),     Ended(2, 1000, 1),
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
  const std::vector<Trial> trials = {Ended(1, 100, 36000),
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

// A trial stopped after 1-3 steps spent its time mostly on start-up: 10 s,
// then 1 s a step. Three ran their 100 steps in 110 s, 1.1 s a step; each
// stopped one left 97-99 steps unrun, 1.1 s each, not its own 4.3-11 s.
TEST(StoppingSavingsTest, TrialsStoppedAfterAFewStepsSaveAtAFullTrainingsPace) {
  const std::vector<Trial> trials = {
      Ended(1, 100, 110),    Ended(2, 100, 110),    Ended(3, 100, 110),
      Ended(4, 1, 11, true), Ended(5, 2, 12, true), Ended(6, 3, 13, true)};
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{3, 0});
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(99 + 98 + 97)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(294 * 1.1)));
  EXPECT_THAT(s.replica_seconds_saved, Optional(DoubleEq(3 * 294 * 1.1)));
  EXPECT_THAT(SavingsText(s), HasSubstr("970 replica-seconds"));
}

// What stopping saved is never more than running every stopped trial to
// its end would have cost: a full training's seconds (here every trial
// run to its end took the same) per stopped trial, whatever the start-up
// and however early the stops.
TEST(StoppingSavingsTest,
     TheSavingNeverExceedsRunningTheStoppedTrialsToTheEnd) {
  for (double startup : {0.0, 10.0, 600.0}) {
    for (int64_t stop : {1, 2, 3, 50}) {
      const double full_seconds = startup + 100;  // 100 steps of 1 s.
      const std::vector<Trial> trials = {Ended(1, 100, full_seconds),
                                         Ended(2, 100, full_seconds),
                                         Ended(3, stop, startup + stop, true),
                                         Ended(4, stop, startup + stop, true)};
      const StoppingSavings s =
          ComputeStoppingSavings(Pointers(trials), TrialFootprint{2, 2});
      SCOPED_TRACE(absl::StrCat("start-up ", startup, " s, stop at ", stop));
      ASSERT_TRUE(s.trial_seconds_saved.has_value());
      EXPECT_LE(*s.trial_seconds_saved, 2 * full_seconds);
      EXPECT_LE(*s.replica_seconds_saved, 2 * 2 * full_seconds);
      EXPECT_LE(*s.gpu_seconds_saved, 2 * 2 * full_seconds);
    }
  }
}

// No trial run to its end has times (a client's study without them): the
// steps saved are known, the seconds not.
TEST(StoppingSavingsTest, WithoutAFullTrainingsPaceTheSecondsAreUnknown) {
  std::vector<Trial> trials = {Ended(1, 100, 50), Ended(2, 40, 20, true)};
  trials[0].start_time.reset();
  const StoppingSavings s =
      ComputeStoppingSavings(Pointers(trials), TrialFootprint{1, 1});
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(60)));
  EXPECT_THAT(s.share_saved, Optional(DoubleEq(60.0 / 200)));
  EXPECT_EQ(s.trial_seconds_saved, std::nullopt);
  EXPECT_EQ(s.replica_seconds_saved, std::nullopt);
  EXPECT_EQ(s.gpu_seconds_saved, std::nullopt);
  EXPECT_THAT(SavingsText(s), HasSubstr("saved about 60 of 200 steps (30%) "));
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
// 40 s (0.5 s a step over the 80 it trained). Trial 2 counts no more: 100
// + 100 steps run, nothing saved; trial 3 stopped at 60 instead would save
// 40 steps at trial 1's pace (0.5 s a step): 20 s.
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
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(20)));

  // A continuation run to its end sets the pace over the steps it trained
  // itself (40 s for 80 steps, not 100): trial 1, stopped at step 30 now,
  // saves 70 steps at 0.5 s a step (0.4 if the copied steps counted).
  trials[0] = Ended(1, 30, 300, true);
  trials[2] = Ended(3, 100, 40);
  trials[2].origin = "resume[2]";
  trials[2].create_time = *trials[2].start_time;
  for (int64_t step = 1; step <= 20; ++step) {
    trials[2].measurements.push_back(
        {.step = step, .time = FromUnixMicros(step)});
  }
  s = ComputeStoppingSavings(Pointers(trials), std::nullopt);
  EXPECT_THAT(s.steps_saved, Optional(DoubleEq(70)));
  EXPECT_THAT(s.trial_seconds_saved, Optional(DoubleEq(35)));
}

}  // namespace
}  // namespace hptune
