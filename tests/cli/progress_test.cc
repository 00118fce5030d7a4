#include "src/cli/progress.h"

#include <sstream>

#include "gtest/gtest.h"
#include "hptune/env/clock.h"

namespace hptune::cli {
namespace {

runner::JobProgress Progress() {
  runner::JobProgress p{.job_id = "j",
                        .state = JobState::kRunning,
                        .max_trials = 12,
                        .succeeded = 5,
                        .stopped_early = 2,
                        .failed = 1,
                        .running = 3};
  Trial best{.number = 4};
  best.final_measurement =
      Measurement{.step = 9, .metrics = {{"loss", 0.123456789}}};
  p.best = best;
  return p;
}

TEST(ProgressLineTest, SaysDoneRunningFailedAndTheBest) {
  EXPECT_EQ(ProgressLine(Progress(), "loss"),
            "trials 6/12 done (2 stopped early), 3 running, 1 failed; best "
            "loss 0.123457 (trial 4)");
}

TEST(ProgressLineTest, SaysWhenATrialWaitsForGpus) {
  runner::JobProgress p = Progress();
  p.best.reset();
  p.stopped_early = 0;
  p.queued = 1;
  EXPECT_EQ(ProgressLine(p, "loss"),
            "trials 6/12 done, 3 running, 1 failed, waiting for GPUs");
}

TEST(ProgressLineTest, SaysHowManyTrialsWaitInTheClustersQueue) {
  runner::JobProgress p = Progress();
  p.best.reset();
  p.stopped_early = 0;
  p.running = 1;
  p.waiting_in_backend = {7, 9};
  EXPECT_EQ(ProgressLine(p, "loss"),
            "trials 6/12 done, 1 running, 2 queued on the cluster, 1 failed");
}

TEST(ProgressLineTest, CountsRestarts) {
  runner::JobProgress p = Progress();
  p.best.reset();
  p.restarts = 1;
  EXPECT_EQ(ProgressLine(p, "loss"),
            "trials 6/12 done (2 stopped early), 3 running, 1 failed, "
            "1 restart");
  p.restarts = 7;
  EXPECT_EQ(ProgressLine(p, "loss"),
            "trials 6/12 done (2 stopped early), 3 running, 1 failed, "
            "7 restarts");
}

TEST(TimeNoteTest, SaysElapsedAndTheRestAtThePaceSoFar) {
  using std::chrono::seconds;
  EXPECT_EQ(TimeNote(seconds(5), 0, 10), " [5s elapsed]");
  EXPECT_EQ(TimeNote(seconds(65), 5, 10), " [1:05 elapsed, about 1:05 left]");
  EXPECT_EQ(TimeNote(seconds(3600), 1, 4),
            " [1:00:00 elapsed, about 3:00:00 left]");
  EXPECT_EQ(TimeNote(seconds(90), 10, 10), " [1:30 elapsed]");
}

TEST(ProgressPrinterTest, PrintsALinePerChangeWhenNotATerminal) {
  std::ostringstream out;
  FakeClock clock;
  ProgressPrinter printer(out, "loss", /*live=*/false, /*quiet=*/false, clock);
  printer.Update(Progress());
  clock.Advance(std::chrono::seconds(60));
  printer.Update(Progress());  // Unchanged counts: nothing printed.
  runner::JobProgress next = Progress();
  next.running = 2;
  printer.Update(next);
  printer.Finish();
  // 6 of 12 done in a minute: a minute left.
  EXPECT_EQ(out.str(), ProgressLine(Progress(), "loss") + " [0s elapsed" +
                           ", about 0s left]\n" + ProgressLine(next, "loss") +
                           " [1:00 elapsed, about 1:00 left]\n");
}

TEST(ProgressPrinterTest, WarningsAndFailuresGetALineOfTheirOwnOnce) {
  std::ostringstream out;
  FakeClock clock;
  ProgressPrinter printer(out, "loss", /*live=*/false, /*quiet=*/false, clock);
  runner::JobProgress progress = Progress();
  progress.warnings = {"trial 1 reported acc"};
  progress.last_failure = "trial 2: master-0 exited with code 1";
  printer.Update(progress);
  printer.Update(progress);  // Nothing new: nothing printed.
  EXPECT_EQ(out.str(),
            "warning: trial 1 reported acc\n"
            "failed: trial 2: master-0 exited with code 1\n" +
                ProgressLine(progress, "loss") +
                " [0s elapsed, about 0s left]\n");
}

TEST(ProgressPrinterTest, QuietStillPrintsWarnings) {
  std::ostringstream out;
  ProgressPrinter printer(out, "loss", /*live=*/false, /*quiet=*/true,
                          hptune::SystemClock());
  runner::JobProgress progress = Progress();
  progress.warnings = {"trial 1 reported acc"};
  progress.last_failure = "trial 2: master-0 exited with code 1";
  printer.Update(progress);
  printer.Finish();
  EXPECT_EQ(out.str(), "warning: trial 1 reported acc\n");
}

TEST(ProgressPrinterTest, RewritesOneLineOnATerminal) {
  std::ostringstream out;
  FakeClock clock;
  ProgressPrinter printer(out, "loss", /*live=*/true, /*quiet=*/false, clock);
  clock.Advance(std::chrono::seconds(30));
  printer.Update(Progress());
  printer.Finish();
  EXPECT_EQ(out.str(), "\r" + ProgressLine(Progress(), "loss") +
                           " [30s elapsed, about 30s left]\x1b[K\n");
}

}  // namespace
}  // namespace hptune::cli
