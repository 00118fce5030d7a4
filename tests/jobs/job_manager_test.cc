// JobManager on a MemoryStore and a scripted launcher: a job whose runner
// stops with an error ("the server could not run the job") ends FAILED, and
// so do its trials, which no runner is left to end.
#include "src/jobs/job_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "hptune/core/job.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/fake_launcher.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_job.h"

namespace hptune::jobs {
namespace {

using ::testing::HasSubstr;

// Places the first trial, whose master runs until stopped, then fails
// every later placement with an error that is no shortage (which the
// runner would wait out): the runner stops with it.
class BrokenAfterOneTrial : public testing::FakeLauncher {
 public:
  explicit BrokenAfterOneTrial(Env& env)
      : FakeLauncher(
            env,
            [](const testing::FakeStart&) { return testing::FakeReplica{}; },
            "accuracy") {}
  absl::StatusOr<std::unique_ptr<launch::Placement>> Reserve(
      const std::vector<launch::ReplicaRequest>& requests) override {
    if (++reserved_ > 1) return absl::InternalError("the port table broke");
    return FakeLauncher::Reserve(requests);
  }

 private:
  int reserved_ = 0;
};

TEST(JobManagerTest, AJobTheServerCannotRunEndsFailedWithItsTrials) {
  store::MemoryStore store{hptune::SystemClock()};
  engine::TuningEngine engine(store, hptune::SystemClock());
  testing::FakeEnv env;
  BrokenAfterOneTrial launcher(env);
  runner::JobRunnerOptions options;
  options.runs_dir = testing::MakeTempDir();
  JobManager manager(store, engine, launcher, options, hptune::DefaultEnv());

  const JobSpec job =
      testing::TestJob("broken", 0, 0, 4, 2, "", {"fake-trainer"});
  ASSERT_OK(manager.Submit(job).status());
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  uint64_t seen = manager.version();
  while (manager.IsRunning("broken") &&
         std::chrono::steady_clock::now() < deadline) {
    seen = manager.WaitForChange(seen, std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(manager.IsRunning("broken"));

  absl::StatusOr<JobRecord> stored = store.GetJob("broken");
  ASSERT_OK(stored);
  EXPECT_EQ(stored->state, JobState::kFailed);
  EXPECT_THAT(stored->error_message,
              HasSubstr("the server could not run the job: the port table "
                        "broke"));
  absl::StatusOr<std::vector<Trial>> trials = engine.ListTrials("broken");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 1u);  // Started before the second placement.
  EXPECT_EQ(trials->front().state, TrialState::kFailed)
      << ToString(trials->front().state);
  EXPECT_THAT(trials->front().reason,
              HasSubstr("the server could not run the job"));
}

}  // namespace
}  // namespace hptune::jobs
