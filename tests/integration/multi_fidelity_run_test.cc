// MULTI_FIDELITY_GP end to end: the real `hptune run` on a SQLite file runs
// tests/testdata/held_trainer.py under the default rule, `median-at-step`.
// Trials 1-5 run their 12 epochs; trials 6-9 are worse from epoch 1 and
// wait at epoch 3, the first the rule judges, so it stops each there
// however loaded the machine is. From the first stopped trial on, the designer
// forecasts the stopped trials' finals with its curve model, whose fit it saves
// in the study's designer state ("mf1 <curve model's fit> <GP's state>").
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <regex>
#include <string>

#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;
using ::testing::StartsWith;

std::string WriteConfig(const std::string& dir, const std::string& algorithm) {
  const std::string path = dir + "/config.yaml";
  std::ofstream(path)
      << "trainingInput:\n"
      << "  scaleTier: BASIC\n"
      << "  command: [python3, " << testing::SourceDir()
      << "/tests/testdata/held_trainer.py]\n"
      << "  hyperparameters:\n    goal: MINIMIZE\n"
      << "    hyperparameterMetricTag: loss\n    maxTrials: 9\n"
      << "    maxParallelTrials: 1\n    algorithm: " << algorithm << "\n"
      << "    enableTrialEarlyStopping: true\n    seed: 7\n"
      << "    params:\n"
      << "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n";
  return path;
}

struct Job {
  testing::ProcessResult run;
  std::vector<Trial> trials;
  std::string designer_state;
};

Job RunJob(const std::string& algorithm) {
  for (const char* name : {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_DB"}) {
    unsetenv(name);
  }
  const std::string dir = testing::MakeTempDir();
  const std::string db = dir + "/hptune.db";
  Job job;
  job.run = RunProcess(
      {testing::HptuneBinary(), "run", WriteConfig(dir, algorithm), "--job-id",
       "mf", "--db", db, "--runs-dir", dir + "/runs", "--grace-seconds", "1"});
  auto store = store::SqliteStore::Open(db, hptune::SystemClock());
  if (!store.ok()) return job;
  job.trials = (*store)->ListTrials("mf").value_or(std::vector<Trial>{});
  job.designer_state = (*store)->GetDesignerState("mf").value_or("");
  return job;
}

// The rows the curve model was last fitted to: fit_rows in the first of
// the state's two GP states.
int CurveFitRows(const std::string& state) {
  std::smatch match;
  static const std::regex kFit("^mf1 [^ ]*;fit_rows=([0-9]+);");
  return std::regex_search(state, match, kFit) ? std::stoi(match[1]) : -1;
}

TEST(MultiFidelityRunTest, TheDesignerFitsItsCurveModelToTheStoppedTrials) {
  const Job job = RunJob("MULTI_FIDELITY_GP");
  ASSERT_EQ(job.run.exit_code, 0) << job.run.out << job.run.err;
  EXPECT_THAT(job.run.out + job.run.err,
              HasSubstr("trials 9/9 done (4 stopped early), 0 running"));
  ASSERT_EQ(job.trials.size(), 9u) << job.run.out;
  for (size_t i = 0; i < job.trials.size(); ++i) {
    const Trial& t = job.trials[i];
    EXPECT_EQ(t.state, TrialState::kSucceeded) << i << " " << t.reason;
    EXPECT_EQ(t.stopped_early, i >= 5) << i;
    EXPECT_EQ(t.LastStep(), i >= 5 ? 3 : 12) << i;
  }
  // The last suggestion (trial 9's) read trials 1-8, three of them stopped:
  // a fit of at least the six rows there were at the first stop.
  EXPECT_THAT(job.designer_state, StartsWith("mf1 gp1;"));
  EXPECT_GE(CurveFitRows(job.designer_state), 6) << job.designer_state;
}

// The same job under the GP: no curve model in its state.
TEST(MultiFidelityRunTest, TheGpKeepsNoCurveModel) {
  const Job job = RunJob("ALGORITHM_UNSPECIFIED");
  ASSERT_EQ(job.run.exit_code, 0) << job.run.out << job.run.err;
  ASSERT_EQ(job.trials.size(), 9u) << job.run.out;
  EXPECT_TRUE(job.trials.back().stopped_early);
  EXPECT_THAT(job.designer_state, StartsWith("gp1;"));
  EXPECT_EQ(CurveFitRows(job.designer_state), -1);
}

}  // namespace
}  // namespace hptune
