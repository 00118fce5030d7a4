// What early stopping saved, end to end: the real `hptune run` runs a small
// job of tests/testdata/curve_trainer.py with median-at-step stopping on a
// SQLite file; its end-of-job summary, `hptune jobs describe --db` (table
// and json) and `jobs describe` through a real `hptune serve` on the same
// file show the same savings, which the test works out again from the
// trials it reads from the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

// 14 trials of 30 steps, 50 ms apart, two at a time, each on one GPU.
std::string WriteConfig(const std::string& dir) {
  const std::string path = dir + "/config.yaml";
  std::ofstream(path)
      << "trainingInput:\n"
      << "  scaleTier: CUSTOM\n  masterType: n1-standard-4\n"
      << "  masterConfig:\n"
      << "    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}\n"
      << "  command: [python3, " << testing::SourceDir()
      << "/tests/testdata/curve_trainer.py]\n"
      << "  args: [--steps=30, --step_seconds=0.05]\n"
      << "  hyperparameters:\n    goal: MINIMIZE\n"
      << "    hyperparameterMetricTag: loss\n    maxTrials: 14\n"
      << "    maxParallelTrials: 2\n    algorithm: RANDOM_SEARCH\n"
      << "    seed: 3\n    enableTrialEarlyStopping: true\n"
      << "    params:\n"
      << "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n"
      << "    - {parameterName: y, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  return path;
}

// What the summary should say, worked out here from the stored trials:
// a stopped trial would have run the median last step of those that ran
// to their end.
struct Expected {
  int stopped = 0;
  double steps_saved = 0;
  int64_t steps_run = 0;
};

Expected FromTrials(const std::vector<Trial>& trials) {
  Expected e;
  std::vector<int64_t> full;
  for (const Trial& t : trials) {
    const int64_t last = t.final_measurement ? t.final_measurement->step : 0;
    e.steps_run += last;
    if (t.state != TrialState::kSucceeded) continue;
    if (t.stopped_early) {
      ++e.stopped;
    } else {
      full.push_back(last);
    }
  }
  std::sort(full.begin(), full.end());
  const double median =
      full.size() % 2
          ? full[full.size() / 2]
          : (full[full.size() / 2 - 1] + full[full.size() / 2]) / 2.0;
  for (const Trial& t : trials) {
    if (t.state == TrialState::kSucceeded && t.stopped_early) {
      e.steps_saved += std::max(0.0, median - t.final_measurement->step);
    }
  }
  return e;
}

TEST(StoppingSavingsTest, RunSummaryAndDescribeShowWhatStoppingSaved) {
  for (const char* name : {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_DB"}) {
    unsetenv(name);
  }
  const std::string dir = testing::MakeTempDir();
  testing::ServeProcess server(dir);
  const std::string config = WriteConfig(dir);
  const auto run = RunProcess(
      {testing::HptuneBinary(), "run", config, "--job-id", "curves", "--db",
       server.db(), "--runs-dir", dir + "/run-runs", "--gpus",
       "NVIDIA_TESLA_T4:0,1", "--grace-seconds", "1", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  auto store = store::SqliteStore::Open(server.db(), hptune::SystemClock());
  ASSERT_TRUE(store.ok()) << store.status();
  auto trials = (*store)->ListTrials("curves");
  ASSERT_TRUE(trials.ok()) << trials.status();
  const Expected e = FromTrials(*trials);
  // Later trials worse than the median of the first five are stopped.
  ASSERT_GE(e.stopped, 1) << run.out;
  const std::string line = absl::StrCat(
      "early stopping: ", e.stopped,
      " of 14 trials stopped early; saved about ",
      absl::StrFormat(
          "%.*f", e.steps_saved == static_cast<int64_t>(e.steps_saved) ? 0 : 1,
          e.steps_saved),
      " of ");
  EXPECT_THAT(run.out, HasSubstr(line));
  // One replica with one GPU: as many GPU-seconds as replica-seconds.
  EXPECT_THAT(run.out, HasSubstr("replica-seconds, "));
  EXPECT_THAT(run.out, HasSubstr("GPU-seconds (an estimate"));

  const auto table = RunProcess({testing::HptuneBinary(), "jobs", "describe",
                                 "curves", "--db", server.db()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr(line));

  const auto json =
      RunProcess({testing::HptuneBinary(), "jobs", "describe", "curves", "--db",
                  server.db(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json saved =
      nlohmann::json::parse(json.out)["earlyStoppingSavings"];
  EXPECT_EQ(saved["trialsStopped"], e.stopped);
  EXPECT_EQ(saved["stepsRun"], e.steps_run);
  EXPECT_DOUBLE_EQ(saved["stepsSaved"].get<double>(), e.steps_saved);
  EXPECT_GT(saved["gpuSecondsSaved"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(saved["gpuSecondsSaved"].get<double>(),
                   saved["replicaSecondsSaved"].get<double>());
  EXPECT_DOUBLE_EQ(saved["shareSaved"].get<double>(),
                   e.steps_saved / (e.steps_run + e.steps_saved));

  // Through a server on the same file: the same line.
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  const auto remote = RunProcess({testing::HptuneBinary(), "jobs", "describe",
                                  "curves", "--server", server.address()});
  ASSERT_EQ(remote.exit_code, 0) << remote.err << server.Output();
  EXPECT_THAT(remote.out, HasSubstr(line));
}

}  // namespace
}  // namespace hptune
