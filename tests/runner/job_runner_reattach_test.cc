// The job runner's resume path: a trial an earlier runner of the job left
// ACTIVE in one of its slots is handed back by the engine, and the runner
// asks the launcher to Reattach() to it before starting it again. The
// launcher is the local one with a recording Reattach in front; replicas are
// real `true` / dump_trainer processes.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "hptune/launch/local_launcher.h"
#include "hptune/runner/job_runner.h"
#include "src/store/sqlite_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::runner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// LocalLauncher, with Reattach() recorded and answered by `attach`: false
// finds nothing (nullptr), true starts the launch (standing in for replicas
// an earlier runner left alive) and hands that run back.
class RecordingLauncher : public launch::Launcher {
 public:
  explicit RecordingLauncher(bool attach) : attach_(attach) {}
  absl::Status CheckFits(
      const std::vector<launch::ReplicaRequest>& r) const override {
    return local_.CheckFits(r);
  }
  absl::StatusOr<std::unique_ptr<launch::Placement>> Reserve(
      const std::vector<launch::ReplicaRequest>& r) override {
    return local_.Reserve(r);
  }
  absl::StatusOr<std::unique_ptr<launch::TrialRun>> Start(
      const launch::TrialLaunch& launch) override {
    started.push_back(launch.trial);
    return local_.Start(launch);
  }
  absl::StatusOr<std::unique_ptr<launch::TrialRun>> Reattach(
      const launch::TrialLaunch& launch) override {
    reattached.push_back(launch.trial);
    if (!attach_) return nullptr;
    return local_.Start(launch);
  }

  std::vector<int64_t> started;
  std::vector<int64_t> reattached;

 private:
  launch::LocalLauncher local_{
      launch::LocalLauncherOptions{.env = &hptune::DefaultEnv()}};
  const bool attach_;
};

constexpr char kConfig[] = R"(trainingInput:
  command: ["sh", "-c", "echo loss=0.5"]
  scaleTier: CUSTOM
  masterType: n1-standard-4
  workerType: n1-standard-4
  workerCount: 1
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 2
    maxParallelTrials: 1
    algorithm: RANDOM_SEARCH
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: 0.1}
)";

class JobRunnerReattachTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    auto store =
        store::SqliteStore::Open(dir_ + "/h.db", hptune::SystemClock());
    ASSERT_OK(store);
    store_ = *std::move(store);
    engine_ =
        std::make_unique<engine::TuningEngine>(*store_, hptune::SystemClock());
    ConfigParseResult parsed =
        ParseJobConfig(kConfig, ConfigFormat::kYaml, "resume");
    ASSERT_TRUE(parsed.job.has_value());
    job_ = *parsed.job;
  }

  std::string dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<engine::TuningEngine> engine_;
  JobSpec job_;
};

TEST_P(JobRunnerReattachTest, AHandedBackTrialIsReattachedBeforeStarting) {
  const bool attach = GetParam();
  RecordingLauncher launcher(attach);
  JobRunner runner(*store_, *engine_, launcher,
                   JobRunnerOptions{.runs_dir = dir_ + "/runs"},
                   hptune::DefaultEnv());
  ASSERT_OK(runner.Submit(job_));
  // A runner that died after handing trial 1 to its slot 0.
  auto handed = engine_->SuggestTrials("resume", 1, "resume/slot-0");
  ASSERT_OK(handed);
  ASSERT_EQ(handed->trials.size(), 1u);

  auto record = runner.Run(job_);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  // Only the handed-back trial is looked for; a new trial just starts.
  EXPECT_THAT(launcher.reattached, ElementsAre(1));
  if (attach) {
    EXPECT_THAT(launcher.started, ElementsAre(2));
  } else {
    EXPECT_THAT(launcher.started, ElementsAre(1, 2));
  }
  auto trials = engine_->ListTrials("resume");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& t : *trials) EXPECT_EQ(t.state, TrialState::kSucceeded);
  auto events = store_->ListEvents(0, 1000);
  ASSERT_OK(events);
  std::string log;
  for (const auto& e : *events) log += e.detail + "\n";
  if (attach) {
    EXPECT_THAT(log, HasSubstr("attempt 1 reattached to 2 replicas"));
  } else {
    EXPECT_THAT(log, ::testing::Not(HasSubstr("reattached")));
  }
}

INSTANTIATE_TEST_SUITE_P(FoundOrNot, JobRunnerReattachTest, ::testing::Bool());

}  // namespace
}  // namespace hptune::runner
