// Freeze-thaw end to end: the real `hptune run` on a SQLite file runs
// tests/testdata/checkpoint_trainer.py, which saves a checkpoint every epoch
// and loads it when it finds one, under the rule "asha-resume". Trial 2 is
// paused at the first rung behind trial 1; once four more trials are paused
// behind it, the rule promotes it and the runner resumes it as trial 7 from
// its checkpoint: the trainer's own log says so, its epochs go on from 3, and
// it ends the best trial.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hptune/core/runs_layout.h"
#include "hptune/core/trial_resume.h"
#include "nlohmann/json.hpp"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

// Grid search over x = 1..6, one trial at a time, 12 epochs each: trial n
// has x = n; the first full curve puts asha-resume's rungs at epochs 2, 6.
std::string WriteConfig(const std::string& dir,
                        const std::string& args = "[]") {
  const std::string path = dir + "/config.yaml";
  std::ofstream(path)
      << "trainingInput:\n"
      << "  scaleTier: BASIC\n"
      << "  command: [python3, " << testing::SourceDir()
      << "/tests/testdata/checkpoint_trainer.py]\n"
      << "  args: " << args << "\n"
      << "  hyperparameters:\n    goal: MINIMIZE\n"
      << "    hyperparameterMetricTag: loss\n    maxTrials: 6\n"
      << "    maxParallelTrials: 1\n    algorithm: GRID_SEARCH\n"
      << "    earlyStoppingRule: asha-resume\n"
      << "    params:\n"
      << "    - {parameterName: x, type: DISCRETE, discreteValues: "
         "[1, 2, 3, 4, 5, 6]}\n";
  return path;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<int64_t> Steps(const Trial& trial) {
  std::vector<int64_t> steps;
  for (const Measurement& m : trial.measurements) steps.push_back(m.step);
  return steps;
}

TEST(FreezeThawRunTest, APausedTrialResumesFromItsCheckpoint) {
  for (const char* name : {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_DB"}) {
    unsetenv(name);
  }
  const std::string dir = testing::MakeTempDir();
  const std::string db = dir + "/hptune.db";
  const std::string runs = dir + "/runs";
  const auto run = RunProcess({testing::HptuneBinary(), "run", WriteConfig(dir),
                               "--job-id", "ft", "--db", db, "--runs-dir", runs,
                               "--grace-seconds", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  // Trial 2's line counts once: done, not stopped, once trial 7 ended.
  EXPECT_THAT(run.out + run.err,
              HasSubstr("trials 6/6 done (4 stopped early), 0 running"));
  EXPECT_THAT(run.out, HasSubstr("early stopping: 4 of 6 trials stopped"));

  auto store = store::SqliteStore::Open(db, hptune::SystemClock());
  ASSERT_TRUE(store.ok()) << store.status();
  auto trials = (*store)->ListTrials("ft");
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->size(), 7u) << run.out;
  const Trial& paused = (*trials)[1];
  EXPECT_TRUE(paused.stopped_early);
  EXPECT_THAT(Steps(paused), ::testing::ElementsAre(1, 2));
  for (int i = 2; i < 6; ++i) EXPECT_TRUE((*trials)[i].stopped_early) << i;

  const Trial& resumed = (*trials)[6];
  EXPECT_EQ(ResumedTrial(resumed), 2);
  EXPECT_EQ(resumed.parameters, paused.parameters);
  EXPECT_EQ(resumed.state, TrialState::kSucceeded);
  EXPECT_FALSE(resumed.stopped_early) << resumed.reason;
  EXPECT_THAT(Steps(resumed),
              ::testing::ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
  ASSERT_TRUE(resumed.final_measurement.has_value());
  EXPECT_EQ(resumed.final_measurement->metrics.at("loss"), 0.3);

  // The trainer found trial 2's checkpoint, and left its last one there.
  const RunsLayout layout(runs);
  EXPECT_THAT(ReadFile(layout.TrialDir("ft", 7) / "master-0.log"),
              HasSubstr("resumed from epoch 2"));
  const nlohmann::json state = nlohmann::json::parse(
      ReadFile(layout.TrialDir("ft", 2) / "checkpoints" / "state.json"));
  EXPECT_EQ(state["epoch"], 12);
  EXPECT_FALSE(std::filesystem::exists(layout.TrialDir("ft", 7) /
                                       "checkpoints" / "state.json"));

  // What stopping saved counts trial 2's training once, as trial 7's.
  const auto json = RunProcess({testing::HptuneBinary(), "jobs", "describe",
                                "ft", "--db", db, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json saved =
      nlohmann::json::parse(json.out)["earlyStoppingSavings"];
  EXPECT_EQ(saved["trialsStopped"], 4);
  EXPECT_EQ(saved["stepsRun"], 12 + 12 + 4 * 2);
}

// A trainer that starts again from epoch 1 instead of loading its
// checkpoint saves nothing by the pause: `hptune run` says so.
TEST(FreezeThawRunTest, ATrainerThatIgnoresItsCheckpointIsWarnedAbout) {
  for (const char* name : {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_DB"}) {
    unsetenv(name);
  }
  const std::string dir = testing::MakeTempDir();
  const auto run =
      RunProcess({testing::HptuneBinary(), "run",
                  WriteConfig(dir, "[--ignore_checkpoint]"), "--job-id", "ft",
                  "--db", dir + "/hptune.db", "--runs-dir", dir + "/runs",
                  "--grace-seconds", "1", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out + run.err,
              HasSubstr("trial 7 resumes a stopped trial after step 2, but "
                        "its trainer reported step 1: it did not load its "
                        "checkpoint from AIP_CHECKPOINT_DIR"));
}

}  // namespace
}  // namespace hptune
