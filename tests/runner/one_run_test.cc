// A job without a study (a CustomJob) on the job runner with a FakeLauncher
// and FakeEnv: it runs once, one trial of no parameters that no designer
// made, which succeeds on its master's exit 0 without a metric, and whose
// failure is the job's. Real processes: tests/integration/
// custom_job_run_test.cc.
#include <chrono>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/job.h"
#include "hptune/core/status.h"
#include "hptune/engine/engine.h"
#include "hptune/runner/job_runner.h"
#include "src/store/memory_store.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/fake_launcher.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_job.h"

namespace hptune::runner {
namespace {

using testing::FakeReplica;
using testing::FakeStart;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A master and a worker, and no hyperparameters.
JobSpec OneRunJob(const std::string& id) {
  JobSpec job = testing::TestJob(id, 1, 0, 1, 1, "", {"fake-trainer"});
  job.study.reset();
  return job;
}

class OneRunTest : public ::testing::Test {
 protected:
  absl::StatusOr<JobRecord> SubmitAndRun(const JobSpec& job,
                                         testing::FakeScript script) {
    launcher_ = std::make_unique<testing::FakeLauncher>(env_, std::move(script),
                                                        "accuracy", 0);
    options_.runs_dir = "/hptune-one-run-test-runs";
    JobRunner runner(store_, engine_, *launcher_, options_, env_);
    HPTUNE_RETURN_IF_ERROR(runner.Submit(job).status());
    return runner.Run(job);
  }

  testing::FakeEnv env_;
  store::MemoryStore store_{env_.fake_clock()};
  engine::TuningEngine engine_{store_, env_.fake_clock()};
  std::unique_ptr<testing::FakeLauncher> launcher_;
  JobRunnerOptions options_;
};

TEST_F(OneRunTest, ItsOneTrialSucceedsOnTheMastersExitWithoutAMetric) {
  auto record = SubmitAndRun(OneRunJob("once"), [](const FakeStart& s) {
    if (s.name == "master-0") return FakeReplica{.exits_after = 2s};
    return FakeReplica{};  // The worker runs until the trial ends.
  });
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  EXPECT_EQ(launcher_->starts(1, "master-0"), 1);
  EXPECT_EQ(launcher_->starts(1, "worker-0"), 1);
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store_.ListTrials("once"));
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state, TrialState::kSucceeded);
  EXPECT_TRUE(trials[0].parameters.empty());
  EXPECT_EQ(trials[0].origin, "one run");
  EXPECT_EQ(trials[0].reason, "");  // No metric was asked for.
  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_.GetStudy("once"));
  EXPECT_EQ(study.spec, RunStudyOf(OneRunJob("once")));
  EXPECT_TRUE(study.spec.search_space.parameters().empty());
}

TEST_F(OneRunTest, TheJobFailsWithItsTrialsReason) {
  options_.max_replica_restarts = 0;
  options_.max_trial_retries = 0;
  auto record = SubmitAndRun(OneRunJob("broken"), [](const FakeStart& s) {
    if (s.name == "master-0") {
      return FakeReplica{.exits_after = 1s, .exit_code = 1};
    }
    return FakeReplica{};
  });
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  // The run's own reason, not a count of failed trials.
  EXPECT_THAT(record->error_message,
              ::testing::StartsWith("trial 1: master-0 exited with code 1"));
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store_.ListTrials("broken"));
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state, TrialState::kFailed);
}

}  // namespace
}  // namespace hptune::runner
