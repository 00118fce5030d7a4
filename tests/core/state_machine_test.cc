#include <vector>

#include "gtest/gtest.h"
#include "hptune/core/job.h"
#include "hptune/core/trial.h"
#include "hptune/core/trial_state.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

const std::vector<TrialState> kTrialStates = {
    TrialState::kRequested, TrialState::kActive,     TrialState::kStopping,
    TrialState::kSucceeded, TrialState::kInfeasible, TrialState::kFailed,
    TrialState::kCancelled};

const std::vector<JobState> kJobStates = {
    JobState::kQueued,    JobState::kPreparing, JobState::kRunning,
    JobState::kSucceeded, JobState::kFailed,    JobState::kCancelling,
    JobState::kCancelled};

TEST(TrialStateTest, LegalTransitionsAreExactlyTheDocumentedOnes) {
  auto legal = [](TrialState from, TrialState to) {
    if (IsTerminal(from)) return false;
    if (IsTerminal(to)) return true;
    return (from == TrialState::kRequested && to == TrialState::kActive) ||
           (from == TrialState::kActive && to == TrialState::kStopping);
  };
  for (TrialState from : kTrialStates) {
    for (TrialState to : kTrialStates) {
      EXPECT_EQ(CheckTrialTransition(from, to).ok(), legal(from, to))
          << ToString(from) << " -> " << ToString(to);
    }
  }
}

TEST(TrialStateTest, IllegalTransitionNamesBothStates) {
  absl::Status status =
      CheckTrialTransition(TrialState::kSucceeded, TrialState::kActive);
  EXPECT_TRUE(absl::IsFailedPrecondition(status));
  EXPECT_EQ(status.message(),
            "trial cannot go from SUCCEEDED to ACTIVE (it has already ended)");
  EXPECT_EQ(CheckTrialTransition(TrialState::kStopping, TrialState::kActive)
                .message(),
            "trial cannot go from STOPPING to ACTIVE");
}

TEST(TrialStateTest, NamesRoundTripAndMapToAiPlatform) {
  for (TrialState s : kTrialStates) EXPECT_EQ(ParseTrialState(ToString(s)), s);
  EXPECT_EQ(ToAiPlatformString(TrialState::kRequested), "QUEUED");
  EXPECT_EQ(ToAiPlatformString(TrialState::kStopping), "RUNNING");
  EXPECT_EQ(ToAiPlatformString(TrialState::kInfeasible), "FAILED");
}

TEST(TrialTest, TransitionStampsStartAndEndTimes) {
  Trial trial;
  Timestamp t1 = FromUnixMicros(1'000);
  Timestamp t2 = FromUnixMicros(2'000);
  ASSERT_OK(trial.TransitionTo(TrialState::kActive, t1));
  EXPECT_EQ(trial.start_time, t1);
  EXPECT_EQ(trial.end_time, std::nullopt);
  ASSERT_OK(trial.TransitionTo(TrialState::kSucceeded, t2));
  EXPECT_EQ(trial.start_time, t1);
  EXPECT_EQ(trial.end_time, t2);
}

TEST(TrialTest, IllegalTransitionLeavesTheTrialUnchanged) {
  Trial trial;
  trial.state = TrialState::kFailed;
  Trial before = trial;
  EXPECT_FALSE(trial.TransitionTo(TrialState::kActive, FromUnixMicros(5)).ok());
  EXPECT_EQ(trial, before);
}

TEST(TrialTest, LastStepIsTheFinalMeasurementsElseTheLatestReports) {
  Trial trial;
  EXPECT_EQ(trial.LastStep(), std::nullopt);
  trial.measurements = {Measurement{.step = 3}, Measurement{.step = 7}};
  EXPECT_EQ(trial.LastStep(), 7);
  trial.final_measurement = Measurement{.step = 5};
  EXPECT_EQ(trial.LastStep(), 5);
}

TEST(JobStateTest, LegalTransitionsAreExactlyTheDocumentedOnes) {
  auto legal = [](JobState from, JobState to) {
    using S = JobState;
    switch (from) {
      case S::kQueued:
        return to == S::kPreparing || to == S::kFailed ||
               to == S::kCancelling || to == S::kCancelled;
      case S::kPreparing:
        return to == S::kRunning || to == S::kFailed || to == S::kCancelling ||
               to == S::kCancelled;
      case S::kRunning:
        return to == S::kSucceeded || to == S::kFailed || to == S::kCancelling;
      case S::kCancelling:
        return to == S::kCancelled || to == S::kFailed;
      default:
        return false;
    }
  };
  for (JobState from : kJobStates) {
    for (JobState to : kJobStates) {
      EXPECT_EQ(CheckJobTransition(from, to).ok(), legal(from, to))
          << ToString(from) << " -> " << ToString(to);
    }
  }
}

TEST(JobStateTest, IllegalTransitionNamesBothStates) {
  EXPECT_EQ(
      CheckJobTransition(JobState::kCancelled, JobState::kRunning).message(),
      "job cannot go from CANCELLED to RUNNING (it has already ended)");
}

TEST(JobRecordTest, TransitionStampsTimes) {
  JobRecord job;
  ASSERT_OK(job.TransitionTo(JobState::kPreparing, FromUnixMicros(1)));
  ASSERT_OK(job.TransitionTo(JobState::kRunning, FromUnixMicros(2)));
  ASSERT_OK(job.TransitionTo(JobState::kSucceeded, FromUnixMicros(3)));
  EXPECT_EQ(job.start_time, FromUnixMicros(2));
  EXPECT_EQ(job.end_time, FromUnixMicros(3));
  for (JobState s : kJobStates) EXPECT_EQ(ParseJobState(ToString(s)), s);
}

TEST(StudyShownWithJobTest, AStudyItsJobLeftActiveSaysHowTheJobEnded) {
  StudyRecord active{.name = "mnist", .state = StudyState::kActive};
  JobRecord job{.job_id = "mnist", .study_name = "mnist"};

  job.state = JobState::kFailed;
  job.error_message = "maxFailedTrials (3) reached";
  StudyRecord shown = WithJobOutcome(active, job);
  EXPECT_EQ(shown.state, StudyState::kFailed);
  EXPECT_EQ(shown.reason, "job FAILED: maxFailedTrials (3) reached");

  job.state = JobState::kCancelled;
  shown = WithJobOutcome(active, job);
  EXPECT_EQ(shown.state, StudyState::kCancelled);
  EXPECT_EQ(shown.reason, "job CANCELLED");

  for (JobState running : {JobState::kQueued, JobState::kRunning,
                           JobState::kCancelling, JobState::kSucceeded}) {
    job.state = running;
    EXPECT_EQ(WithJobOutcome(active, job), active) << ToString(running);
  }
  // A study that made all its trials says how its job ended too.
  StudyRecord completed{.name = "mnist",
                        .state = StudyState::kCompleted,
                        .reason = "maxTrials (5) reached"};
  job.state = JobState::kFailed;
  EXPECT_EQ(WithJobOutcome(completed, job).state, StudyState::kFailed);
  job.state = JobState::kSucceeded;
  EXPECT_EQ(WithJobOutcome(completed, job), completed);
  EXPECT_EQ(ParseStudyState("CANCELLED"), StudyState::kCancelled);
}

}  // namespace
}  // namespace hptune
