// `hptune run`, the binary, with trainers whose metrics are not results: a
// diverged objective (NaN, infinite) ends its trial INFEASIBLE with the
// offending line, and lines of the metric file that are no report are
// counted in the trial's events, never dropped in silence.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/store/sqlite_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;

// A trainer that writes its hypertune file atomically: a line that is no
// report, loss 0.9 at step 1, then loss = x at step 2, or "nan" when x > 0.5
// (a learning rate too high).
constexpr char kTrainer[] = R"(import json, os, sys, time
x = float([a for a in sys.argv if a.startswith("--x=")][0][4:])
path = os.environ["CLOUD_ML_HP_METRIC_FILE"]
loss = "nan" if x > 0.5 else str(x)
lines = ["progress: warming up",
         json.dumps({"global_step": "1", "loss": "0.9",
                     "timestamp": time.time()}),
         json.dumps({"global_step": "2", "loss": loss,
                     "timestamp": time.time()})]
with open(path + ".tmp", "w") as f:
    f.write("\n".join(lines) + "\n")
os.rename(path + ".tmp", path)
)";

TEST(RunMetricsTest, ADivergedObjectiveEndsItsTrialInfeasibleWithTheLine) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/train.py") << kTrainer;
  std::ofstream(dir + "/config.yaml")
      << "trainingInput:\n"
         "  command: [python3, "
      << dir
      << "/train.py]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 2\n"
         "    algorithm: GRID_SEARCH\n"
         "    params:\n"
         "    - {parameterName: x, type: DISCRETE, discreteValues: [0.25, "
         "0.75]}\n";
  testing::ProcessResult result = RunProcess(
      {kHptune, "run", dir + "/config.yaml", "--job-id", "diverge", "--db",
       dir + "/h.db", "--runs-dir", dir + "/runs", "--quiet"});
  EXPECT_EQ(result.exit_code, 0) << result.err;

  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  auto trials = (*store)->ListTrials("diverge");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  const Trial& finite = (*trials)[0];
  const Trial& diverged = (*trials)[1];
  EXPECT_EQ(finite.state, TrialState::kSucceeded);
  ASSERT_TRUE(finite.final_measurement.has_value());
  EXPECT_EQ(finite.final_measurement->metrics.at("loss"), 0.25);
  // Its NaN is no result: not the trial's final value, not a measurement;
  // its earlier report stays stored.
  EXPECT_EQ(diverged.state, TrialState::kInfeasible);
  EXPECT_THAT(diverged.reason,
              HasSubstr("metric \"loss\" is not a finite number in this "
                        "report: {\"global_step\": \"2\", \"loss\": \"nan\""));
  EXPECT_FALSE(diverged.final_measurement.has_value());
  ASSERT_EQ(diverged.measurements.size(), 1u);
  EXPECT_EQ(diverged.measurements[0].step, 1);
  EXPECT_EQ(diverged.measurements[0].metrics.at("loss"), 0.9);

  // Each trial's line that is no report is in its events, with the line.
  auto events = (*store)->ListEvents(0, 10000);
  ASSERT_OK(events);
  int counted = 0;
  for (const store::Event& e : *events) {
    if (e.kind == "replica" &&
        e.detail.find("line(s) that are no report") != std::string::npos) {
      ++counted;
      EXPECT_THAT(e.detail, HasSubstr("the last: progress: warming up"));
    }
  }
  EXPECT_EQ(counted, 2);
}

// A trainer that reports step 1, says it is ready, and reports step 2 from
// its SIGTERM handler, in the grace period before hptune would SIGKILL it.
constexpr char kGraceTrainer[] = R"(import os, signal, sys
def last_words(signum, frame):
    print("loss=0.25 step=2", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, last_words)
print("loss=0.5 step=1", flush=True)
open(sys.argv[1] + ".tmp", "w").close()
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    signal.pause()
)";

// docs/trainer.md: hptune reads what is left when the master is stopped,
// so reports made during the grace period count. A Ctrl-C cancels the job
// with its trial's measurements kept.
TEST(RunMetricsTest, AReportMadeDuringTheGracePeriodCounts) {
  const std::string dir = testing::MakeTempDir();
  const std::string ready = dir + "/ready";
  std::ofstream(dir + "/train.py") << kGraceTrainer;
  std::ofstream(dir + "/config.yaml")
      << "trainingInput:\n"
         "  command: [python3, "
      << dir << "/train.py, " << ready
      << "]\n"
         "  hyperparameters:\n"
         "    goal: MINIMIZE\n"
         "    hyperparameterMetricTag: loss\n"
         "    maxTrials: 1\n"
         "    params:\n"
         "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  const pid_t run =
      testing::StartProcess({kHptune, "run", dir + "/config.yaml", "--job-id",
                             "grace", "--db", dir + "/h.db", "--runs-dir",
                             dir + "/runs", "--grace-seconds", "60", "--quiet"},
                            dir + "/run.out", dir + "/run.err");
  testing::StopOnExit stop(run);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(ready) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(std::filesystem::exists(ready));
  ASSERT_EQ(kill(run, SIGINT), 0);
  EXPECT_EQ(testing::WaitForExit(run, std::chrono::seconds(120)), 130);

  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  ASSERT_OK_AND_ASSIGN(Trial trial, (*store)->GetTrial("grace", 1));
  EXPECT_EQ(trial.state, TrialState::kCancelled);
  std::vector<std::pair<int64_t, double>> reports;
  for (const Measurement& m : trial.measurements) {
    reports.emplace_back(m.step, m.metrics.at("loss"));
  }
  EXPECT_THAT(reports,
              ::testing::ElementsAre(std::pair<int64_t, double>{1, 0.5},
                                     std::pair<int64_t, double>{2, 0.25}));
}

}  // namespace
}  // namespace hptune
