// `hptune run`'s exit codes (cli.md) that the other run tests leave out:
// bad usage, GPUs this machine can never provide, SIGTERM, and a resumed
// job that was being cancelled when its runner died.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

// dir/config.yaml: trials of tests/testdata/curve_trainer.py that take
// `steps` x 50 ms each, with `accelerators` (e.g. "{count: 2, type:
// NVIDIA_TESLA_T4}") on the master, or none.
std::string WriteConfig(const std::string& dir, int steps,
                        const std::string& accelerators = "") {
  const std::string path = dir + "/config.yaml";
  std::ofstream out(path);
  out << "trainingInput:\n";
  if (accelerators.empty()) {
    out << "  scaleTier: BASIC\n";
  } else {
    out << "  scaleTier: CUSTOM\n  masterType: n1-standard-4\n"
        << "  masterConfig:\n    acceleratorConfig: " << accelerators << "\n";
  }
  out << "  command: [python3, " << testing::SourceDir()
      << "/tests/testdata/curve_trainer.py]\n"
      << "  args: [--steps=" << steps
      << ", --step_seconds=0.05, --stdout_metrics]\n"
      << "  hyperparameters:\n    goal: MINIMIZE\n"
      << "    hyperparameterMetricTag: loss\n    maxTrials: 2\n"
      << "    maxParallelTrials: 1\n    algorithm: RANDOM_SEARCH\n"
      << "    params:\n      - {parameterName: x, type: DOUBLE, "
      << "minValue: 0, maxValue: 1}\n";
  return path;
}

std::vector<std::string> RunArgs(const std::string& dir,
                                 const std::string& config) {
  return {testing::HptuneBinary(),
          "run",
          config,
          "--job-id",
          "job",
          "--db",
          dir + "/h.db",
          "--runs-dir",
          dir + "/runs",
          "--gpus",
          "0",
          "--grace-seconds",
          "1",
          "--quiet"};
}

// Starts `hptune run` and waits until its first trial is ACTIVE.
pid_t StartRunWithAnActiveTrial(const std::string& dir,
                                const std::string& config) {
  const pid_t run =
      testing::StartProcess(RunArgs(dir, config), dir + "/out", dir + "/err");
  const bool active = testing::PollUntil(
      [&] {
        auto store =
            store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
        if (!store.ok()) return false;
        auto trials = (*store)->ListTrials("job");
        return trials.ok() && !trials->empty() &&
               (*trials)[0].state == TrialState::kActive;
      },
      std::chrono::seconds(60));
  EXPECT_TRUE(active) << testing::ReadFileOrEmpty(dir + "/err");
  return run;
}

JobState StateOfTheJob(const std::string& dir) {
  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  EXPECT_OK(store);
  if (!store.ok()) return JobState::kQueued;
  auto job = (*store)->GetJob("job");
  EXPECT_OK(job);
  return job.ok() ? job->state : JobState::kQueued;
}

TEST(RunExitCodesTest, BadUsageIs64AndGpusThisMachineLacksAre2) {
  const std::string dir = testing::MakeTempDir();
  const std::string hptune = testing::HptuneBinary();
  auto no_config = RunProcess({hptune, "run"});
  EXPECT_EQ(no_config.exit_code, 64);
  EXPECT_THAT(no_config.err,
              HasSubstr("hptune run: expected one CONFIG file, got 0"));
  const std::string config = WriteConfig(dir, 1);
  auto unknown = RunProcess({hptune, "run", config, "--bogus"});
  EXPECT_EQ(unknown.exit_code, 64);
  EXPECT_THAT(unknown.err, HasSubstr("hptune run: unknown flag --bogus"));

  const std::string gpus =
      WriteConfig(dir, 1, "{count: 2, type: NVIDIA_TESLA_T4}");
  auto never = RunProcess(RunArgs(dir, gpus));
  EXPECT_EQ(never.exit_code, 2);
  EXPECT_EQ(never.err,
            "hptune run: master 0 (trainingInput.masterConfig) asks for 2 x "
            "NVIDIA_TESLA_T4, but this machine has no GPUs\n");
}

TEST(RunExitCodesTest, SigtermCancelsTheJobAndExits130) {
  const std::string dir = testing::MakeTempDir();
  testing::KillProcessesMentioning cleanup(dir);
  const pid_t run = StartRunWithAnActiveTrial(dir, WriteConfig(dir, 1200));
  testing::StopOnExit stop(run);
  kill(run, SIGTERM);
  EXPECT_EQ(testing::WaitForExit(run, std::chrono::seconds(60)), 130)
      << testing::ReadFileOrEmpty(dir + "/err");
  EXPECT_EQ(StateOfTheJob(dir), JobState::kCancelled);
}

// A runner killed while it cancelled its job (CANCELLING in the database):
// run again, it finishes the cancel and exits 130.
TEST(RunExitCodesTest, AResumedJobThatWasBeingCancelledExits130) {
  const std::string dir = testing::MakeTempDir();
  testing::KillProcessesMentioning cleanup(dir);
  const std::string config = WriteConfig(dir, 1200);
  const pid_t run = StartRunWithAnActiveTrial(dir, config);
  kill(run, SIGKILL);
  ASSERT_EQ(testing::WaitForExit(run, std::chrono::seconds(30)), -1);
  {
    auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
    ASSERT_OK(store);
    ASSERT_OK((*store)->UpdateJob("job", [](JobRecord& job) {
      job.state = JobState::kCancelling;
      return absl::OkStatus();
    }));
  }
  auto resumed = RunProcess(RunArgs(dir, config));
  EXPECT_EQ(resumed.exit_code, 130) << resumed.err;
  EXPECT_THAT(resumed.err,
              HasSubstr("job job was being cancelled; it is CANCELLED"));
  EXPECT_EQ(StateOfTheJob(dir), JobState::kCancelled);
  // The dead runner's replica was stopped by the new one.
  EXPECT_TRUE(testing::PollUntil(
      [&] { return testing::ReplicasUnder(dir + "/runs").empty(); },
      std::chrono::seconds(30)));
}

// The runner itself fails (exit 1, not 2: nothing was wrong with the config
// or the flags) when it cannot use its database: here another program holds
// it locked past the busy deadline, which the URL shortens from 30 s.
TEST(RunExitCodesTest, ARunnerThatCannotUseItsDatabaseExits1) {
  const std::string dir = testing::MakeTempDir();
  ASSERT_OK(
      store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock()).status());
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/h.db").c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::vector<std::string> args = RunArgs(dir, WriteConfig(dir, 1));
  const auto db = std::find(args.begin(), args.end(), dir + "/h.db");
  ASSERT_NE(db, args.end());
  *db = "sqlite:" + dir + "/h.db?busy_timeout_ms=300";
  auto locked = RunProcess(args);
  sqlite3_close_v2(other);  // Rolls the transaction back.
  EXPECT_EQ(locked.exit_code, 1);
  EXPECT_EQ(locked.err, "hptune run: sqlite store \"" + dir +
                            "/h.db\": other connections kept the database "
                            "locked for 300 ms; try again later\n");
}

}  // namespace
}  // namespace hptune
