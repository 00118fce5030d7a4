// TakeOverJob on a MemoryStore: a job its dead runner left CANCELLING is
// finished CANCELLED with its open trials (operations.md, "When a process
// dies"), and one left RUNNING is handed back to run.
#include "src/jobs/take_over.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hptune/core/job.h"
#include "hptune/core/study.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "src/store/memory_store.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/fake_launcher.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::jobs {
namespace {

class TakeOverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StudySpec spec;
    spec.SetSingleMetric("loss");
    spec.max_trials = 4;
    spec.max_parallel_trials = 2;
    spec.algorithm = Algorithm::kRandomSearch;
    ParameterSpec x;
    x.name = "x";
    x.type = ParameterType::kDouble;
    x.min_value = 0;
    x.max_value = 1;
    spec.search_space = SearchSpace({x});
    ASSERT_OK(engine_.CreateStudy("job", spec).status());
    auto suggested = engine_.SuggestTrials("job", 2, "job/slot-0");
    ASSERT_OK(suggested.status());
    ASSERT_EQ(suggested->trials.size(), 2u);
  }

  JobRecord Job(JobState state) {
    JobRecord job;
    job.job_id = "job";
    job.study_name = "job";
    job.training_input_json = R"({"hyperparameters": {}})";
    job.state = state;
    EXPECT_OK(store_.CreateJob(job));
    return job;
  }

  store::MemoryStore store_{hptune::SystemClock()};
  engine::TuningEngine engine_{store_, hptune::SystemClock()};
  const std::string runs_ = testing::MakeTempDir();
  // A backend that only notes what it was asked to stop.
  struct StopRecorder : testing::FakeLauncher {
    explicit StopRecorder(Env& env) : FakeLauncher(env, nullptr, "accuracy") {}
    void StopLeftovers(const std::filesystem::path& job_runs_dir,
                       std::chrono::milliseconds) override {
      stopped.push_back(job_runs_dir);
    }
    std::vector<std::filesystem::path> stopped;
  };
  testing::FakeEnv env_;
  StopRecorder launcher_{env_};
};

TEST_F(TakeOverTest, AJobLeftCancellingEndsCancelledWithItsTrials) {
  const JobRecord job = Job(JobState::kCancelling);
  absl::StatusOr<TakeOver> taken =
      TakeOverJob(store_, engine_, launcher_, runs_, job,
                  JobSpec{.job_id = "job"}, hptune::DefaultEnv());
  ASSERT_OK(taken.status());
  EXPECT_EQ(*taken, TakeOver::kEnded);
  absl::StatusOr<JobRecord> stored = store_.GetJob("job");
  ASSERT_OK(stored.status());
  EXPECT_EQ(stored->state, JobState::kCancelled);
  absl::StatusOr<std::vector<Trial>> trials = engine_.ListTrials("job");
  ASSERT_OK(trials.status());
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& trial : *trials) {
    EXPECT_EQ(trial.state, TrialState::kCancelled) << trial.number;
  }
}

TEST_F(TakeOverTest, AJobLeftRunningIsHandedBackToRun) {
  const JobRecord job = Job(JobState::kRunning);
  absl::StatusOr<TakeOver> taken =
      TakeOverJob(store_, engine_, launcher_, runs_, job,
                  JobSpec{.job_id = "job"}, hptune::DefaultEnv());
  ASSERT_OK(taken.status());
  EXPECT_EQ(*taken, TakeOver::kRun);
  EXPECT_EQ(store_.GetJob("job")->state, JobState::kRunning);
  // Its backend was asked first to stop what the dead runner left.
  EXPECT_THAT(launcher_.stopped, ::testing::ElementsAre(runs_ + "/job"));
}

}  // namespace
}  // namespace hptune::jobs
