#include "src/jobs/job_log.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::jobs {
namespace {

using ::testing::ElementsAre;

struct Logged {
  std::vector<std::string> lines;
  std::map<int64_t, Trial> trials;

  JobLog Make() {
    return JobLog(
        "mnist_1", "accuracy",
        [this](const std::string& line) { lines.push_back(line); },
        [this](int64_t number) -> std::optional<Trial> {
          auto it = trials.find(number);
          if (it == trials.end()) return std::nullopt;
          return it->second;
        });
  }
};

runner::JobProgress Launched(std::vector<int64_t> numbers) {
  runner::JobProgress progress;
  progress.launched = std::move(numbers);
  return progress;
}

TEST(JobLogTest, ALinePerTrialStartAndEnd) {
  Logged logged;
  JobLog log = logged.Make();
  log.Started();
  log.Progress(Launched({1, 2}));
  log.Progress(Launched({1, 2}));  // Nothing new: no line.
  Trial one{.number = 1, .state = TrialState::kSucceeded};
  one.final_measurement =
      Measurement{.step = 300, .metrics = {{"accuracy", 0.941234567}}};
  logged.trials[1] = one;
  log.Progress(Launched({2, 3}));
  EXPECT_THAT(
      logged.lines,
      ElementsAre("job mnist_1: running", "job mnist_1: trial 1 started",
                  "job mnist_1: trial 2 started",
                  "job mnist_1: trial 3 started",
                  "job mnist_1: trial 1 SUCCEEDED, accuracy 0.941235 "
                  "at step 300"));
}

TEST(JobLogTest, EachWarningIsLoggedOnce) {
  Logged logged;
  JobLog log = logged.Make();
  runner::JobProgress progress;
  progress.warnings = {"trial 1: reports not stored from here on: quota"};
  log.Progress(progress);
  log.Progress(progress);  // Every snapshot carries it again.
  progress.warnings.push_back("another");
  log.Progress(progress);
  EXPECT_THAT(logged.lines,
              ElementsAre("job mnist_1: warning: trial 1: reports not stored "
                          "from here on: quota",
                          "job mnist_1: warning: another"));
}

TEST(JobLogTest, TheJobsEndEndsTheTrialsItStopped) {
  Logged logged;
  JobLog log = logged.Make();
  log.Progress(Launched({4}));
  logged.lines.clear();
  logged.trials[4] = Trial{.number = 4,
                           .state = TrialState::kFailed,
                           .reason = "master-0 exited with code 1"};
  log.Ended(JobState::kFailed, "maxFailedTrials (1) trials failed");
  EXPECT_THAT(logged.lines,
              ElementsAre("job mnist_1: trial 4 FAILED: master-0 exited with "
                          "code 1",
                          "job mnist_1: FAILED: maxFailedTrials (1) trials "
                          "failed"));
}

TEST(JobLogTest, AnUnreadableTrialStillEnds) {
  Logged logged;
  JobLog log = logged.Make();
  log.Progress(Launched({5}));
  log.Progress(Launched({}));
  EXPECT_EQ(logged.lines.back(), "job mnist_1: trial 5 ended");
}

TEST(JobLogTest, DescribeEndSaysStoppedEarly) {
  Trial trial{
      .number = 2, .state = TrialState::kSucceeded, .stopped_early = true};
  trial.final_measurement = Measurement{.step = 10, .metrics = {{"loss", 2}}};
  EXPECT_EQ(JobLog::DescribeEnd(trial, "loss"),
            "trial 2 SUCCEEDED (stopped early), loss 2 at step 10");
}

// A trial's reason holds what a trainer wrote (here a metric name): a
// newline in it would start a line of the trainer's choosing in the
// server's log (a crontab line, say). Every line is escaped instead.
TEST(JobLogTest, TrainerTextNeverStartsALineOfItsOwn) {
  Logged logged;
  JobLog log = logged.Make();
  log.Progress(Launched({1}));
  Trial trial;
  trial.number = 1;
  trial.state = TrialState::kFailed;
  trial.reason = "reported x\n* * * * * root evil\r\x1b[2K\\n \xc3\xa9";
  logged.trials[1] = trial;
  log.Progress(Launched({}));
  EXPECT_THAT(logged.lines,
              ElementsAre("job mnist_1: trial 1 started",
                          "job mnist_1: trial 1 FAILED: reported x\\n* * * * "
                          "* root evil\\r\\x1b[2K\\\\n \xc3\xa9"));
}

}  // namespace
}  // namespace hptune::jobs
