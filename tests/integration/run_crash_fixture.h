// RunCrashFixture: a job of crash_trainer.py replicas run by the `hptune`
// binary (`hptune run --job-id crashy`) in a temporary directory, for the
// tests that SIGKILL runs and run them again: run_crash_test.cc and
// kill_storm_test.cc. Used by one test thread.
#ifndef HPTUNE_TESTS_INTEGRATION_RUN_CRASH_FIXTURE_H_
#define HPTUNE_TESTS_INTEGRATION_RUN_CRASH_FIXTURE_H_

#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune::testing {

class RunCrashFixture : public ::testing::Test {
 public:
  static constexpr int kMaxTrials = 4;

 protected:
  // What WriteConfig writes beside the trainer and the search space.
  struct JobShape {
    std::string more_args;  // To the trainer: ", --a=b".
    int max_trials = kMaxTrials;
    int parallel = 2;
    int workers = 0;     // Each one more replica (scaleTier CUSTOM).
    std::string path;    // Where the config goes; "": config_.
    std::string ledger;  // The trainer's ledger; "": ledger_.
    // Another user's trainer needs a Python every user may run, not one
    // found on root's PATH.
    std::string python = "python3";
  };

  void SetUp() override {
    dir_ = MakeTempDir();
    ledger_ = dir_ + "/ledger.txt";
    config_ = dir_ + "/config.yaml";
    WriteConfig({});
  }

  void WriteConfig(const JobShape& shape) {
    std::ofstream config(shape.path.empty() ? config_ : shape.path);
    config << "trainingInput:\n";
    if (shape.workers > 0) {
      config << "  scaleTier: CUSTOM\n  masterType: n1-standard-4\n"
             << "  workerType: n1-standard-4\n  workerCount: " << shape.workers
             << "\n";
    }
    config << "  command: [" << shape.python << ", " << SourceDir()
           << "/tests/integration/testdata/crash_trainer.py]\n"
              "  args: [--steps=8, --step_seconds=0.1, --ledger="
           << (shape.ledger.empty() ? ledger_ : shape.ledger) << shape.more_args
           << "]\n"
              "  hyperparameters:\n"
              "    goal: MINIMIZE\n"
              "    hyperparameterMetricTag: loss\n"
              "    maxTrials: "
           << shape.max_trials << "\n    maxParallelTrials: " << shape.parallel
           << "\n"
              "    algorithm: RANDOM_SEARCH\n"
              "    params:\n"
              "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: "
              "1}\n";
  }

  std::vector<std::string> Argv() const {
    return {HptuneBinary(),
            "run",
            config_,
            "--job-id",
            "crashy",
            "--db",
            db(),
            "--runs-dir",
            runs(),
            "--grace-seconds",
            "1",
            "--quiet"};
  }
  std::string runs() const { return dir_ + "/runs"; }
  std::string db() const { return dir_ + "/h.db"; }

  pid_t StartRun(const std::vector<std::string>& argv) {
    return StartProcess(argv, dir_ + "/out", dir_ + "/err");
  }
  pid_t StartRun() { return StartRun(Argv()); }

  void Kill(pid_t pid) {
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
  }

  std::vector<Trial> Trials() const {
    auto store = store::SqliteStore::Open(db(), hptune::SystemClock());
    if (!store.ok()) return {};
    auto trials = (*store)->ListTrials("crashy");
    return trials.ok() ? *trials : std::vector<Trial>{};
  }

  std::string dir_, ledger_, config_;
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_INTEGRATION_RUN_CRASH_FIXTURE_H_
