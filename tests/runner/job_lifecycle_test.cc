// The job runner's lifecycle rules on a simulated clock: a FakeLauncher
// scripts every replica start and a FakeEnv moves time only while the runner
// waits, so each case runs minutes of a job in milliseconds, the same way
// every time. The same rules with real processes are in job_runner_test.cc.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/engine/engine.h"
#include "hptune/env/env.h"
#include "hptune/launch/replica_env.h"
#include "hptune/runner/job_runner.h"
#include "hptune/runner/trial_admission.h"
#include "src/store/memory_store.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/fake_launcher.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_job.h"

namespace hptune::runner {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeReplica;
using testing::FakeReport;
using testing::FakeStart;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

// A job of `workers` workers running a fake trainer; `extra` is more
// trainingInput YAML.
JobSpec MakeJob(const std::string& id, int workers, int max_trials,
                int parallel, const std::string& extra = "") {
  return testing::TestJob(id, workers, 0, max_trials, parallel, extra,
                          {"fake-trainer"});
}

// A master that reports `value` at steps 1..steps, one a second, and exits
// 0 half a second after the last.
FakeReplica Curve(double value, int steps) {
  FakeReplica master{.exits_after =
                         std::chrono::milliseconds(steps * 1000 + 500)};
  for (int s = 1; s <= steps; ++s) {
    master.reports.push_back(
        {.after = std::chrono::seconds(s), .step = s, .value = value});
  }
  return master;
}

FakeReplica RunsUntilStopped() { return FakeReplica{}; }

// The runs directory, in FakeEnv's memory only.
constexpr char kRunsDir[] = "/hptune-lifecycle-test-runs";

class JobLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<store::MemoryStore>(env_.fake_clock());
    engine_ =
        std::make_unique<engine::TuningEngine>(*store_, env_.fake_clock());
    // In FakeEnv's memory: a run writes nothing to the disk.
    options_.runs_dir = kRunsDir;
  }

  void Script(testing::FakeScript script, int gpus = 0) {
    launcher_ = std::make_unique<testing::FakeLauncher>(env_, std::move(script),
                                                        "accuracy", gpus);
  }

  absl::StatusOr<JobRecord> SubmitAndRun(const JobSpec& job) {
    JobRunner runner(*store_, *engine_, *launcher_, options_, env_);
    HPTUNE_RETURN_IF_ERROR(runner.Submit(job).status());
    return runner.Run(job);
  }

  std::vector<std::string> ReplicaEvents(int64_t trial) {
    std::vector<std::string> details;
    auto events = store_->ListEvents(0, 100000);
    EXPECT_OK(events);
    for (const auto& e : *events) {
      if (e.kind == "replica" && e.trial_number == trial) {
        details.push_back(e.detail);
      }
    }
    return details;
  }

  std::vector<std::string> JobStates(const std::string& job) {
    std::vector<std::string> states;
    auto events = store_->ListEvents(0, 100000);
    EXPECT_OK(events);
    for (const auto& e : *events) {
      if (e.kind == "job_state" && e.job_id == job) states.push_back(e.detail);
    }
    return states;
  }

  testing::FakeEnv env_;
  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<engine::TuningEngine> engine_;
  std::unique_ptr<testing::FakeLauncher> launcher_;
  JobRunnerOptions options_;
};

TEST_F(JobLifecycleTest, AFailedReplicaIsRestartedAndTheMasterDecides) {
  // The worker fails its first two starts a second in, then runs on.
  Script([](const FakeStart& s) {
    if (s.name == "master-0") return Curve(0.9, 3);
    if (s.start <= 2) return FakeReplica{.exits_after = 1s, .exit_code = 1};
    return RunsUntilStopped();
  });
  auto record = SubmitAndRun(MakeJob("restarts", 1, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  EXPECT_EQ(launcher_->starts(1, "worker-0"), 3);
  EXPECT_EQ(launcher_->starts(1, "master-0"), 1);
  EXPECT_THAT(
      ReplicaEvents(1),
      ::testing::IsSupersetOf({"worker-0 exited with code 1; restart 1 of 5",
                               "worker-0 exited with code 1; restart 2 of 5",
                               "master-0 exited with code 0"}));
  // The master's exit ends the trial and stops the worker.
  EXPECT_THAT(launcher_->log(), Contains("trial 1 worker-0 terminated"));
  auto trial = store_->GetTrial("restarts", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kSucceeded);
  ASSERT_TRUE(trial->final_measurement.has_value());
  EXPECT_EQ(trial->final_measurement->step, 3);
  EXPECT_EQ(trial->measurements.size(), 3u);
  // It ended when its master did, 3.5 s in, not a poll interval later.
  EXPECT_GE(*trial->end_time - *trial->start_time, 3500ms);
  EXPECT_LE(*trial->end_time - *trial->start_time,
            3500ms + options_.max_poll_interval);
}

// Issue 84: a quota that refuses a job's reports (the server's on its
// owner's stored bytes) refuses the reports, not the trials: the job ends
// as it would have, and its progress warns once.
TEST_F(JobLifecycleTest, ReportsAQuotaRefusesAreDroppedAndWarnedOfOnce) {
  int admitted = 0;
  engine::EngineOptions quota;
  quota.admit_measurement = [&](std::string_view,
                                const Measurement&) -> absl::Status {
    if (admitted == 2) return absl::ResourceExhaustedError("over the quota");
    ++admitted;
    return absl::OkStatus();
  };
  engine_ = std::make_unique<engine::TuningEngine>(*store_, std::move(quota),
                                                   env_.fake_clock());
  std::vector<std::string> warnings;
  options_.on_progress = [&](const JobProgress& p) { warnings = p.warnings; };
  Script([](const FakeStart& s) {
    if (s.name == "master-0") return Curve(0.9, 3);
    return RunsUntilStopped();
  });
  auto record = SubmitAndRun(MakeJob("quota", 0, 2, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  ASSERT_OK_AND_ASSIGN(Trial first, store_->GetTrial("quota", 1));
  EXPECT_EQ(first.state, TrialState::kSucceeded);
  EXPECT_EQ(first.measurements.size(), 2u);
  ASSERT_OK_AND_ASSIGN(Trial second, store_->GetTrial("quota", 2));
  EXPECT_TRUE(second.measurements.empty());
  EXPECT_THAT(warnings,
              ElementsAre("trial 1: reports not stored from here on: over "
                          "the quota"));
}

// The runner reaches files only through its Env: the reports it stored came
// from FakeEnv's in-memory hypertune file, and nothing reached the disk.
TEST_F(JobLifecycleTest, ARunReadsAndWritesFilesOnlyThroughItsEnv) {
  Script([](const FakeStart& s) {
    if (s.name == "master-0") return Curve(0.8, 2);
    return RunsUntilStopped();
  });
  auto record = SubmitAndRun(MakeJob("in_memory", 0, 2, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  const std::string trial_dir = std::string(kRunsDir) + "/in_memory/";
  EXPECT_THAT(env_.Files(),
              ::testing::IsSupersetOf({trial_dir + "1/master-0.metrics",
                                       trial_dir + "2/master-0.metrics"}));
  auto trial = store_->GetTrial("in_memory", 2);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->measurements.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(kRunsDir));
}

TEST_F(JobLifecycleTest, AnAttemptOutOfRestartsIsRerunThenTheTrialFails) {
  Script([](const FakeStart&) {
    return FakeReplica{.exits_after = 100ms, .exit_code = 1};
  });
  options_.max_replica_restarts = 2;
  options_.max_trial_retries = 1;
  auto record = SubmitAndRun(MakeJob("always_fails", 0, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  EXPECT_THAT(record->error_message,
              HasSubstr("master-0 exited with code 1 after 2 restarts "
                        "(attempt 2 of 2)"));
  // Two attempts of a start and two restarts each.
  EXPECT_EQ(launcher_->starts(1, "master-0"), 6);
  EXPECT_THAT(ReplicaEvents(1),
              Contains("attempt 1 of 2 failed: master-0 exited with code 1 "
                       "after 2 restarts; re-running"));
  auto trial = store_->GetTrial("always_fails", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kFailed);
}

TEST_F(JobLifecycleTest, AnAttemptThatCannotStartIsRerunThenFails) {
  Script([](const FakeStart&) { return FakeReplica{.cannot_start = true}; });
  options_.max_trial_retries = 2;
  auto record = SubmitAndRun(MakeJob("cannot_start", 0, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  EXPECT_THAT(record->error_message,
              HasSubstr("could not start: master-0: cannot start"));
  EXPECT_EQ(launcher_->starts(1, "master-0"), 3);
}

TEST_F(JobLifecycleTest, FailedTrialsBeyondMaxFailedTrialsFailTheJob) {
  Script([](const FakeStart&) {
    return FakeReplica{.exits_after = 1s, .exit_code = 1};
  });
  options_.max_replica_restarts = 0;
  options_.max_trial_retries = 0;
  JobSpec job = MakeJob("too_many_failures", 0, 6, 1);
  job.study->max_failed_trials = 2;
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  EXPECT_THAT(record->error_message,
              HasSubstr("maxFailedTrials (2) reached; last: trial 2: "
                        "master-0 exited with code 1"));
  auto trials = store_->ListTrials("too_many_failures");
  ASSERT_OK(trials);
  EXPECT_EQ(trials->size(), 2u);
}

// A diverged objective (NaN) ends its trial INFEASIBLE: a result for the
// designer, not a failure of the job, so it does not count against
// maxFailedTrials (docs/trainer.md).
TEST_F(JobLifecycleTest, DivergedTrialsDoNotCountAgainstMaxFailedTrials) {
  Script([](const FakeStart&) {
    FakeReplica master{.exits_after = 1500ms};
    master.reports = {{.after = 1s, .step = 1, .value = std::nan("")}};
    return master;
  });
  JobSpec job = MakeJob("diverged", 0, 4, 1);
  job.study->max_failed_trials = 1;
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_THAT(record->error_message, Not(HasSubstr("maxFailedTrials")));
  auto trials = store_->ListTrials("diverged");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 4u);
  for (const Trial& trial : *trials) {
    EXPECT_EQ(trial.state, TrialState::kInfeasible) << trial.number;
  }
}

TEST_F(JobLifecycleTest, AJobPastItsMaxRunningTimeIsCancelledKeepingItsData) {
  Script([](const FakeStart&) {
    FakeReplica runs_on = RunsUntilStopped();
    runs_on.reports = {{.after = 1s, .step = 1, .value = 0.5}};
    return runs_on;
  });
  auto record = SubmitAndRun(
      MakeJob("limited", 1, 4, 2, "  scheduling: {maxRunningTime: 1.5s}\n"));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kCancelled);
  EXPECT_THAT(record->error_message,
              HasSubstr("maxRunningTime (1.5s) reached: the job has run "
                        "since " +
                        FormatRfc3339(*record->start_time)));
  EXPECT_GE(*record->end_time - *record->start_time, 1500ms);
  EXPECT_LE(*record->end_time - *record->start_time,
            1500ms + options_.max_poll_interval);
  auto trials = store_->ListTrials("limited");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& t : *trials) {
    EXPECT_EQ(t.state, TrialState::kCancelled);
    EXPECT_THAT(t.reason, HasSubstr("the job was cancelled: maxRunningTime "
                                    "(1.5s) reached"));
    ASSERT_EQ(t.measurements.size(), 1u) << "trial " << t.number;
  }
  EXPECT_THAT(JobStates("limited"),
              ElementsAre("QUEUED -> PREPARING", "PREPARING -> RUNNING",
                          "RUNNING -> CANCELLING", "CANCELLING -> CANCELLED"));
}

TEST_F(JobLifecycleTest, AJobIsPreparingWhileGpusAreBusyUntilMaxWaitTime) {
  Script([](const FakeStart&) { return Curve(0.5, 1); }, /*gpus=*/1);
  launcher_->HoldGpus(1);
  auto record = SubmitAndRun(
      MakeJob("never_ran", 0, 2, 1,
              "  masterConfig: {acceleratorConfig: {count: 1, type: "
              "NVIDIA_TESLA_T4}}\n  scheduling: {maxWaitTime: 1s}\n"));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kCancelled);
  EXPECT_THAT(record->error_message,
              HasSubstr("maxWaitTime (1s) reached: no trial has started "
                        "running since the job was submitted at " +
                        FormatRfc3339(record->create_time)));
  EXPECT_FALSE(record->start_time.has_value());
  EXPECT_GE(*record->end_time - record->create_time, 1s);
  auto trials = store_->ListTrials("never_ran");
  ASSERT_OK(trials);
  EXPECT_TRUE(trials->empty());
  // It waited PREPARING, never RUNNING, until the limit cancelled it.
  EXPECT_THAT(JobStates("never_ran"),
              ElementsAre("QUEUED -> PREPARING", "PREPARING -> CANCELLING",
                          "CANCELLING -> CANCELLED"));
}

TEST_F(JobLifecycleTest, AJobWaitsForGpusThenRunsOnceTheyAreFree) {
  Script([](const FakeStart&) { return Curve(0.5, 1); }, /*gpus=*/1);
  launcher_->HoldGpus(1);
  // Another job's GPU comes free 5 s into the wait.
  const Timestamp free_at = env_.Now() + 5s;
  std::vector<JobState> states_while_held;
  env_.on_wait = [&] {
    auto job = store_->GetJob("waited");
    if (env_.Now() < free_at) {
      if (job.ok()) states_while_held.push_back(job->state);
      return;
    }
    launcher_->ReleaseGpus(1);
    env_.on_wait = nullptr;
  };
  auto record = SubmitAndRun(
      MakeJob("waited", 0, 1, 1,
              "  masterConfig: {acceleratorConfig: {count: 1, type: "
              "NVIDIA_TESLA_T4}}\n  scheduling: {maxWaitTime: 60s}\n"));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  EXPECT_THAT(states_while_held, Contains(JobState::kPreparing));
  EXPECT_THAT(states_while_held, Not(Contains(JobState::kRunning)));
  ASSERT_TRUE(record->start_time.has_value());
  EXPECT_GE(*record->start_time, free_at);
  EXPECT_THAT(JobStates("waited"),
              ElementsAre("QUEUED -> PREPARING", "PREPARING -> RUNNING",
                          "RUNNING -> SUCCEEDED"));
}

TEST_F(JobLifecycleTest, ATrialThatWaitedInTheBackendsQueueStartsWhenItLeaves) {
  Script([](const FakeStart&) { return Curve(0.5, 1); });
  launcher_->HoldInQueue(true);
  const Timestamp released = env_.Now() + 30s;
  std::optional<Trial> while_held;
  env_.on_wait = [&] {
    if (env_.Now() < released) {
      if (auto t = store_->GetTrial("queued", 1); t.ok()) while_held = *t;
      return;
    }
    launcher_->HoldInQueue(false);
    env_.on_wait = nullptr;
  };
  // Progress never counts a trial running before it left the queue.
  std::optional<JobProgress> first_launched;
  options_.on_progress = [&](const JobProgress& p) {
    if (!first_launched && !p.launched.empty()) first_launched = p;
  };
  auto record = SubmitAndRun(MakeJob("queued", 0, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  ASSERT_TRUE(first_launched.has_value());
  EXPECT_EQ(first_launched->running, 0);
  EXPECT_THAT(first_launched->waiting_in_backend, ElementsAre(1));
  // While held, the trial's start was when it was suggested; once the
  // backend let it go, its start is then, and the job's with it.
  ASSERT_TRUE(while_held.has_value());
  ASSERT_TRUE(while_held->start_time.has_value());
  EXPECT_LT(*while_held->start_time, released);
  auto trial = store_->GetTrial("queued", 1);
  ASSERT_OK(trial);
  ASSERT_TRUE(trial->start_time.has_value());
  EXPECT_GE(*trial->start_time, released);
  EXPECT_LE(*trial->start_time - released, options_.max_poll_interval);
  EXPECT_GE(*record->start_time, released);
  // The trial ran its 1.5 s from its start, not from its suggestion.
  EXPECT_GE(*trial->end_time - *trial->start_time, 1500ms);
}

TEST_F(JobLifecycleTest, ATrialBelowTheMedianIsStoppedEarly) {
  // Five good trials, then one whose curve is far below theirs.
  Script(
      [](const FakeStart& s) { return Curve(s.trial <= 5 ? 0.9 : 0.1, 10); });
  JobSpec job = MakeJob("stops", 0, 6, 1);
  job.study->enable_early_stopping = true;
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto bad = store_->GetTrial("stops", 6);
  ASSERT_OK(bad);
  EXPECT_EQ(bad->state, TrialState::kSucceeded);
  EXPECT_TRUE(bad->stopped_early);
  // Judged once its step reached a quarter of the longest curve's 10.
  EXPECT_EQ(bad->measurements.size(), 3u);
  EXPECT_THAT(launcher_->log(), Contains("trial 6 master-0 terminated"));
  for (int64_t n = 1; n <= 5; ++n) {
    auto good = store_->GetTrial("stops", n);
    ASSERT_OK(good);
    EXPECT_FALSE(good->stopped_early) << "trial " << n;
  }
}

// The run's counts keep a trial stopped early once later trials start: only
// a continuation that runs a stopped trial's training again uncounts it.
TEST_F(JobLifecycleTest, AStoppedTrialStaysCountedWhileLaterTrialsRun) {
  // Five good trials, a bad sixth stopped early, then a good seventh.
  Script(
      [](const FakeStart& s) { return Curve(s.trial == 6 ? 0.1 : 0.9, 10); });
  JobSpec job = MakeJob("counted", 0, 7, 1);
  job.study->enable_early_stopping = true;
  std::optional<JobProgress> last;
  options_.on_progress = [&](const JobProgress& p) { last = p; };
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto stopped = store_->GetTrial("counted", 6);
  ASSERT_OK(stopped);
  ASSERT_TRUE(stopped->stopped_early);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->succeeded, 7);
  EXPECT_EQ(last->stopped_early, 1);
  EXPECT_THAT(last->warnings, ::testing::IsEmpty());
}

TEST_F(JobLifecycleTest, CancellingStopsEveryReplicaAndRecordsTheTrials) {
  Script([](const FakeStart&) { return RunsUntilStopped(); });
  std::atomic<bool> cancel = false;
  options_.cancel = &cancel;
  const Timestamp cancel_at = env_.Now() + 10s;
  env_.on_wait = [&] {
    if (env_.Now() >= cancel_at) cancel = true;
  };
  auto record = SubmitAndRun(MakeJob("cancelled", 1, 4, 2));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kCancelled);
  auto trials = store_->ListTrials("cancelled");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& t : *trials) {
    EXPECT_EQ(t.state, TrialState::kCancelled);
    EXPECT_EQ(t.reason, "the job was cancelled");
  }
  EXPECT_THAT(
      launcher_->log(),
      ::testing::IsSupersetOf(
          {"trial 1 master-0 terminated", "trial 1 worker-0 terminated",
           "trial 2 master-0 terminated", "trial 2 worker-0 terminated"}));
  EXPECT_THAT(JobStates("cancelled"),
              ElementsAre("QUEUED -> PREPARING", "PREPARING -> RUNNING",
                          "RUNNING -> CANCELLING", "CANCELLING -> CANCELLED"));
}

// A runner killed near the end of a job left slot 1's trial ACTIVE after
// slot 0's ended: the next runner finds nothing to suggest for slot 0, yet
// the job ends only once slot 1's trial has run to its end.
TEST_F(JobLifecycleTest, ARunnerTakingOverFinishesTheTrialOfEverySlot) {
  Script([](const FakeStart&) { return Curve(0.7, 2); });
  const JobSpec job = MakeJob("taken_over", 0, 2, 2);
  JobRunner runner(*store_, *engine_, *launcher_, options_, env_);
  ASSERT_OK(runner.Submit(job));
  // What the dead runner left: trial 1 (slot 0) completed, trial 2 (slot 1)
  // still ACTIVE; the budget of 2 is used up.
  auto first = engine_->SuggestTrials("taken_over", 1, "taken_over/slot-0");
  ASSERT_OK(first);
  auto second = engine_->SuggestTrials("taken_over", 1, "taken_over/slot-1");
  ASSERT_OK(second);
  ASSERT_OK(engine_->CompleteTrial(
      "taken_over", 1, Measurement{.step = 1, .metrics = {{"accuracy", 0.5}}}));

  auto record = runner.Run(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto trial = store_->GetTrial("taken_over", 2);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kSucceeded);
  EXPECT_EQ(trial->measurements.size(), 2u);
  EXPECT_EQ(launcher_->starts(2, "master-0"), 1);
  EXPECT_EQ(launcher_->starts(1, "master-0"), 0);
}

TEST_F(JobLifecycleTest, EachReportCarriesTheAttemptThatMadeIt) {
  // The first attempt reports step 1 and fails; the second runs through.
  Script([](const FakeStart& s) {
    if (s.start == 1) {
      return FakeReplica{.exits_after = 1500ms,
                         .exit_code = 1,
                         .reports = {{.after = 1s, .step = 1, .value = 0.2}}};
    }
    return Curve(0.8, 2);
  });
  options_.max_replica_restarts = 0;
  auto record = SubmitAndRun(MakeJob("attempts", 0, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto trial = store_->GetTrial("attempts", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->attempt, 2);
  std::vector<std::pair<int, int64_t>> reports;  // (attempt, step)
  for (const Measurement& m : trial->measurements) {
    reports.emplace_back(m.attempt, m.step);
  }
  EXPECT_THAT(reports,
              ElementsAre(std::pair(1, 1), std::pair(2, 1), std::pair(2, 2)));
  ASSERT_TRUE(trial->final_measurement.has_value());
  EXPECT_EQ(trial->final_measurement->attempt, 2);
}

// A user of a server's (--max-running-trials-per-user, TrialAdmission).
constexpr int64_t kAlice = 64101;
constexpr int64_t kBob = 64102;

// The most trials of `studies` whose [start, end) overlapped.
int MostAtOnce(store::Store& store, const std::vector<std::string>& studies) {
  std::vector<std::pair<Timestamp, int>> edges;  // Ends sort before starts.
  for (const std::string& study : studies) {
    auto trials = store.ListTrials(study);
    EXPECT_OK(trials);
    if (!trials.ok()) return -1;
    for (const Trial& t : *trials) {
      EXPECT_TRUE(t.start_time && t.end_time) << study << " " << t.number;
      if (!t.start_time || !t.end_time) return -1;
      edges.emplace_back(*t.start_time, 1);
      edges.emplace_back(*t.end_time, -1);
    }
  }
  std::sort(edges.begin(), edges.end());
  int now = 0, most = 0;
  for (const auto& [at, change] : edges) most = std::max(most, now += change);
  return most;
}

// The earliest and the latest start of a trial of `study`.
std::pair<Timestamp, Timestamp> StartRange(store::Store& store,
                                           const std::string& study) {
  auto trials = store.ListTrials(study);
  EXPECT_OK(trials);
  std::pair<Timestamp, Timestamp> range{Timestamp::max(), Timestamp::min()};
  if (!trials.ok()) return range;
  for (const Trial& t : *trials) {
    if (!t.start_time) continue;
    range.first = std::min(range.first, *t.start_time);
    range.second = std::max(range.second, *t.start_time);
  }
  return range;
}
Timestamp FirstStart(store::Store& store, const std::string& study) {
  return StartRange(store, study).first;
}
Timestamp LastStart(store::Store& store, const std::string& study) {
  return StartRange(store, study).second;
}

int CountSucceeded(store::Store& store, const std::string& study) {
  auto trials = store.ListTrials(study);
  EXPECT_OK(trials);
  if (!trials.ok()) return -1;
  return static_cast<int>(std::count_if(
      trials->begin(), trials->end(),
      [](const Trial& t) { return t.state == TrialState::kSucceeded; }));
}

// Two jobs of one user, each of maxParallelTrials 2, on a server that lets
// a user run 2 trials: their runners, on threads of their own as a
// server's, share the 2 places, and both jobs finish.
TEST_F(JobLifecycleTest, TwoJobsOfOneUserNeverRunMoreTrialsThanItsLimit) {
  runner::TrialAdmission admission(2);
  options_.admission = &admission;
  auto script = [](const FakeStart&) { return Curve(0.5, 30); };
  testing::FakeLauncher launcher_a(env_, script, "accuracy");
  testing::FakeLauncher launcher_b(env_, script, "accuracy");
  const JobSpec a = MakeJob("alices_a", 0, 4, 2);
  const JobSpec b = MakeJob("alices_b", 0, 4, 2);
  JobRunner runner_a(*store_, *engine_, launcher_a, options_, env_);
  JobRunner runner_b(*store_, *engine_, launcher_b, options_, env_);
  // Their studies are Alice's, as a server records its users' jobs.
  ASSERT_OK(runner_a.Submit(a, JobOwner{}, kAlice));
  ASSERT_OK(runner_b.Submit(b, JobOwner{}, kAlice));

  absl::StatusOr<JobRecord> ended_b = absl::UnknownError("not run");
  std::thread other([&] { ended_b = runner_b.Run(b); });
  absl::StatusOr<JobRecord> ended_a = runner_a.Run(a);
  other.join();

  for (const absl::StatusOr<JobRecord>* ended : {&ended_a, &ended_b}) {
    ASSERT_OK(*ended);
    EXPECT_EQ((*ended)->state, JobState::kSucceeded)
        << (*ended)->job_id << ": " << (*ended)->error_message;
    EXPECT_EQ(CountSucceeded(*store_, (*ended)->job_id), 4);
  }
  EXPECT_EQ(MostAtOnce(*store_, {"alices_a", "alices_b"}), 2);
  EXPECT_EQ(admission.Running(kAlice), 0);
  // The places freed went to the job that waited: neither waited for the
  // other to start its last trial.
  EXPECT_LT(FirstStart(*store_, "alices_b"), LastStart(*store_, "alices_a"));
  EXPECT_LT(FirstStart(*store_, "alices_a"), LastStart(*store_, "alices_b"));
}

// While Alice runs as many trials as she may, Bob's job runs as usual and
// Alice's new job waits PREPARING until its maxWaitTime cancels it.
TEST_F(JobLifecycleTest, AUserAtTheLimitWaitsAndAnotherIsNotHeldBack) {
  Script([](const FakeStart&) { return Curve(0.5, 3); });
  runner::TrialAdmission admission(2);
  options_.admission = &admission;
  // Her other jobs' two trials.
  std::optional<runner::TrialAdmission::Ticket> held_1 =
      admission.TryAdmit(kAlice);
  std::optional<runner::TrialAdmission::Ticket> held_2 =
      admission.TryAdmit(kAlice);
  ASSERT_TRUE(held_1 && held_2);

  const JobSpec bobs = MakeJob("bobs", 0, 4, 2);
  JobRunner bob(*store_, *engine_, *launcher_, options_, env_);
  ASSERT_OK(bob.Submit(bobs, JobOwner{}, kBob));
  auto bobs_record = bob.Run(bobs);
  ASSERT_OK(bobs_record);
  EXPECT_EQ(bobs_record->state, JobState::kSucceeded)
      << bobs_record->error_message;
  EXPECT_EQ(MostAtOnce(*store_, {"bobs"}), 2);

  const JobSpec alices =
      MakeJob("alices", 0, 2, 2, "  scheduling: {maxWaitTime: 10s}\n");
  JobRunner alice(*store_, *engine_, *launcher_, options_, env_);
  ASSERT_OK(alice.Submit(alices, JobOwner{}, kAlice));
  auto alices_record = alice.Run(alices);
  ASSERT_OK(alices_record);
  EXPECT_EQ(alices_record->state, JobState::kCancelled);
  EXPECT_THAT(alices_record->error_message, HasSubstr("maxWaitTime (10s)"));
  auto trials = store_->ListTrials("alices");
  ASSERT_OK(trials);
  EXPECT_TRUE(trials->empty());
  EXPECT_THAT(JobStates("alices"),
              ElementsAre("QUEUED -> PREPARING", "PREPARING -> CANCELLING",
                          "CANCELLING -> CANCELLED"));
}

// A trial that waits for its user's place starts once another of the
// user's trials ends (here 5 s into the wait), as one waiting for GPUs.
TEST_F(JobLifecycleTest, AWaitingTrialStartsWhenAnotherOfItsUsersEnds) {
  Script([](const FakeStart&) { return Curve(0.5, 2); });
  runner::TrialAdmission admission(2);
  options_.admission = &admission;
  std::optional<runner::TrialAdmission::Ticket> held_1 =
      admission.TryAdmit(kAlice);
  std::optional<runner::TrialAdmission::Ticket> held_2 =
      admission.TryAdmit(kAlice);
  ASSERT_TRUE(held_1 && held_2);
  const Timestamp free_at = env_.Now() + 5s;
  env_.on_wait = [&] {
    if (env_.Now() >= free_at) held_1.reset();
  };
  const JobSpec job =
      MakeJob("waited", 0, 3, 2, "  scheduling: {maxWaitTime: 60s}\n");
  JobRunner runner(*store_, *engine_, *launcher_, options_, env_);
  ASSERT_OK(runner.Submit(job, JobOwner{}, kAlice));
  auto record = runner.Run(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  ASSERT_TRUE(record->start_time.has_value());
  EXPECT_GE(*record->start_time, free_at);
  // One place was still held: its trials ran one at a time.
  EXPECT_EQ(MostAtOnce(*store_, {"waited"}), 1);
  EXPECT_EQ(CountSucceeded(*store_, "waited"), 3);
  EXPECT_EQ(admission.Running(kAlice), 1);
}

// Records when the runner looks at a replica's log to cap it.
class LogCheckRecordingEnv : public testing::FakeEnv {
 public:
  absl::StatusOr<LogCut> CapLog(const std::filesystem::path& path,
                                int64_t max_bytes) override {
    checks.push_back(Now());
    return FakeEnv::CapLog(path, max_bytes);
  }
  std::vector<Timestamp> checks;
};

// --max-log-bytes: a running replica's log is looked at about once a second
// (not at every poll: each look may cut the file), and once more when the
// replica has ended, after its last output.
TEST(JobLogCapTest, ALogIsCheckedOnceASecondAndWhenItsReplicaEnds) {
  LogCheckRecordingEnv env;
  store::MemoryStore store(env.fake_clock());
  engine::TuningEngine engine(store, env.fake_clock());
  testing::FakeLauncher launcher(
      env, [](const FakeStart&) { return Curve(0.9, 10); }, "accuracy");
  JobRunnerOptions options;
  options.runs_dir = kRunsDir;
  options.max_log_bytes = 1 << 20;
  JobRunner runner(store, engine, launcher, options, env);
  const JobSpec job = MakeJob("capped", 0, 1, 1);
  ASSERT_OK(runner.Submit(job));
  auto record = runner.Run(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto trial = store.GetTrial("capped", 1);
  ASSERT_OK(trial);
  ASSERT_TRUE(trial->end_time.has_value());
  // The master ran 10.5 s: 11 looks a second apart, then one at its end.
  ASSERT_GE(env.checks.size(), 11u);
  EXPECT_LE(env.checks.size(), 13u);
  for (size_t i = 1; i + 1 < env.checks.size(); ++i) {
    EXPECT_GE(env.checks[i] - env.checks[i - 1], 1s) << "look " << i;
  }
  EXPECT_EQ(env.checks.back(), *trial->end_time);
}

// What a runner that died during attempt `attempt` of trial 1 left: the
// trial ACTIVE in its slot, that attempt stored.
// Each of its attempts runs through; a trial has 2 attempts.
class TakeOverAttemptsTest : public JobLifecycleTest {
 protected:
  void SetUp() override {
    JobLifecycleTest::SetUp();
    Script([](const FakeStart&) { return Curve(0.7, 2); });
    options_.max_trial_retries = 1;
  }

  void LeaveTrialRunning(const std::string& job_id, int attempt) {
    job_ = MakeJob(job_id, 0, 1, 1);
    runner_ = std::make_unique<JobRunner>(*store_, *engine_, *launcher_,
                                          options_, env_);
    ASSERT_OK(runner_->Submit(job_));
    ASSERT_OK(engine_->SuggestTrials(job_id, 1, job_id + "/slot-0"));
    ASSERT_OK(store_->UpdateTrial(job_id, 1, [&](Trial& t) {
      t.attempt = attempt;
      return absl::OkStatus();
    }));
  }
  std::filesystem::path TrialDir() const {
    return options_.runs_dir / job_.job_id / "1";
  }

  JobSpec job_;
  std::unique_ptr<JobRunner> runner_;
};

TEST_F(TakeOverAttemptsTest, AnAttemptLostWithItsRunnerCountsAsFailed) {
  ASSERT_NO_FATAL_FAILURE(LeaveTrialRunning("lost_once", 1));
  auto record = runner_->Run(job_);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  EXPECT_THAT(ReplicaEvents(1),
              Contains("attempt 1 of 2 failed: its runner died mid-attempt: "
                       "killed, out of memory or a reboot; re-running"));
  auto trial = store_->GetTrial("lost_once", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kSucceeded);
  EXPECT_EQ(trial->attempt, 2);
  EXPECT_EQ(launcher_->starts(1, "master-0"), 1);
}

TEST_F(TakeOverAttemptsTest, RunnerCrashesCannotRerunATrialWithoutEnd) {
  ASSERT_NO_FATAL_FAILURE(LeaveTrialRunning("lost_twice", 2));
  auto record = runner_->Run(job_);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  auto trial = store_->GetTrial("lost_twice", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kFailed);
  EXPECT_EQ(trial->reason,
            "its runner died mid-attempt: killed, out of memory or a reboot "
            "(attempt 2 of 2)");
  EXPECT_EQ(launcher_->starts(1, "master-0"), 0);
}

TEST_F(TakeOverAttemptsTest, AnAttemptADrainEndedDoesNotCount) {
  ASSERT_NO_FATAL_FAILURE(LeaveTrialRunning("drained", 2));
  ASSERT_OK(env_.CreatePrivateDirectories(TrialDir()));
  ASSERT_OK(env_.WriteFileAtomically(DrainedAttemptIn(TrialDir()), ""));
  auto record = runner_->Run(job_);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto trial = store_->GetTrial("drained", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->attempt, 3);
  EXPECT_EQ(trial->drained_attempts, 1);
  EXPECT_THAT(ReplicaEvents(1), Contains(HasSubstr("attempt 2 ended with a "
                                                   "server's drain")));
  EXPECT_FALSE(env_.Exists(DrainedAttemptIn(TrialDir())));
}

}  // namespace
}  // namespace hptune::runner
