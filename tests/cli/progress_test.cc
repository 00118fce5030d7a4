#include "src/cli/progress.h"

#include <sstream>

#include "gtest/gtest.h"

namespace hptune::cli {
namespace {

engine::JobProgress Progress() {
  engine::JobProgress p{.job_id = "j",
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
  engine::JobProgress p = Progress();
  p.best.reset();
  p.stopped_early = 0;
  p.queued = 1;
  EXPECT_EQ(ProgressLine(p, "loss"),
            "trials 6/12 done, 3 running, 1 failed, waiting for GPUs");
}

TEST(ProgressLineTest, SaysHowManyTrialsWaitInTheClustersQueue) {
  engine::JobProgress p = Progress();
  p.best.reset();
  p.stopped_early = 0;
  p.running = 1;
  p.waiting_in_backend = {7, 9};
  EXPECT_EQ(ProgressLine(p, "loss"),
            "trials 6/12 done, 1 running, 2 queued on the cluster, 1 failed");
}

TEST(ProgressPrinterTest, PrintsALinePerChangeWhenNotATerminal) {
  std::ostringstream out;
  ProgressPrinter printer(out, "loss", /*live=*/false, /*quiet=*/false);
  printer.Update(Progress());
  printer.Update(Progress());  // Unchanged: nothing printed.
  engine::JobProgress next = Progress();
  next.running = 2;
  printer.Update(next);
  printer.Finish();
  EXPECT_EQ(out.str(), ProgressLine(Progress(), "loss") + "\n" +
                           ProgressLine(next, "loss") + "\n");
}

TEST(ProgressPrinterTest, WarningsAndFailuresGetALineOfTheirOwnOnce) {
  std::ostringstream out;
  ProgressPrinter printer(out, "loss", /*live=*/false, /*quiet=*/false);
  engine::JobProgress progress = Progress();
  progress.warnings = {"trial 1 reported acc"};
  progress.last_failure = "trial 2: master-0 exited with code 1";
  printer.Update(progress);
  printer.Update(progress);  // Nothing new: nothing printed.
  EXPECT_EQ(out.str(),
            "warning: trial 1 reported acc\n"
            "failed: trial 2: master-0 exited with code 1\n" +
                ProgressLine(progress, "loss") + "\n");
}

TEST(ProgressPrinterTest, QuietStillPrintsWarnings) {
  std::ostringstream out;
  ProgressPrinter printer(out, "loss", /*live=*/false, /*quiet=*/true);
  engine::JobProgress progress = Progress();
  progress.warnings = {"trial 1 reported acc"};
  progress.last_failure = "trial 2: master-0 exited with code 1";
  printer.Update(progress);
  printer.Finish();
  EXPECT_EQ(out.str(), "warning: trial 1 reported acc\n");
}

TEST(ProgressPrinterTest, RewritesOneLineOnATerminal) {
  std::ostringstream out;
  ProgressPrinter printer(out, "loss", /*live=*/true, /*quiet=*/false);
  printer.Update(Progress());
  printer.Finish();
  EXPECT_EQ(out.str(), "\r" + ProgressLine(Progress(), "loss") + "\x1b[K\n");
}

}  // namespace
}  // namespace hptune::cli
