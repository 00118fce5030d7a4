// `hptune run` given a command line written for gcloud: `gcloud
// ai-platform jobs submit training JOB --config ...` and `gcloud ai
// hp-tuning-jobs create --config ...` with hptune's command in front. The
// real binary, a real trainer, the SQLite file it leaves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "hptune/core/stored_spec.h"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

// dir/config.yaml: one trial of tests/testdata/curve_trainer.py.
std::string WriteConfig(const std::string& dir) {
  const std::string path = dir + "/config.yaml";
  std::ofstream(path)
      << "trainingInput:\n"
      << "  command: [python3, " << testing::SourceDir()
      << "/tests/testdata/curve_trainer.py]\n"
      << "  args: [--steps=1, --step_seconds=0, --stdout_metrics]\n"
      << "  hyperparameters:\n    goal: MINIMIZE\n"
      << "    hyperparameterMetricTag: loss\n    maxTrials: 1\n"
      << "    params:\n      - {parameterName: x, type: DOUBLE, "
      << "minValue: 0, maxValue: 1}\n"
      << "      - {parameterName: y, type: DOUBLE, "
      << "minValue: 0, maxValue: 1}\n";
  return path;
}

TEST(RunGcloudFlagsTest, APastedGcloudCommandLineRunsWithHptuneInFront) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteConfig(dir);
  auto run = RunProcess({testing::HptuneBinary(),
                         "run",
                         "mnist_1",
                         "--config",
                         config,
                         "--region",
                         "us-central1",
                         "--project",
                         "p1",
                         "--runtime-version",
                         "2.11",
                         "--python-version",
                         "3.7",
                         "--scale-tier",
                         "basic",
                         "--max-trial-count",
                         "3",
                         "--parallel-trial-count",
                         "1",
                         "--max-failed-trial-count",
                         "0",
                         "--algorithm",
                         "random-search",
                         "--display-name",
                         "mnist tuning",
                         "--db",
                         dir + "/h.db",
                         "--runs-dir",
                         dir + "/runs",
                         "--gpus",
                         "0",
                         "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("note: ignored here: --region us-central1 ("));
  EXPECT_THAT(run.err, HasSubstr("--runtime-version 2.11 ("));

  auto store = store::SqliteStore::Open(dir + "/h.db", SystemClock());
  ASSERT_OK(store);
  auto job = (*store)->GetJob("mnist_1");  // JOB is the job's ID.
  ASSERT_OK(job);
  auto spec = DecodeStoredJob(job->training_input_json, job->job_id);
  ASSERT_OK(spec);
  EXPECT_EQ(spec->display_name, "mnist tuning");
  EXPECT_EQ(spec->study->max_trials, 3);
  EXPECT_EQ(spec->study->algorithm, Algorithm::kRandomSearch);
  auto trials = (*store)->ListTrials("mnist_1");
  ASSERT_OK(trials);
  EXPECT_EQ(trials->size(), 3u);
}

TEST(RunGcloudFlagsTest, ATypoIsNamedWithTheFlagMeantAndAShortUsage) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteConfig(dir);
  auto typo = RunProcess({testing::HptuneBinary(), "run", "--config", config,
                          "--max-trail-count", "2"});
  EXPECT_EQ(typo.exit_code, 64);
  EXPECT_THAT(typo.err, HasSubstr("unknown flag --max-trail-count (did you "
                                  "mean --max-trial-count?)"));
  EXPECT_THAT(typo.err, HasSubstr("`hptune run --help` lists every flag"));
  EXPECT_LT(std::count(typo.err.begin(), typo.err.end(), '\n'), 6);

  auto twice = RunProcess({testing::HptuneBinary(), "run", "j1", "--config",
                           config, "--job-id", "j2"});
  EXPECT_EQ(twice.exit_code, 64);
  EXPECT_THAT(twice.err, HasSubstr("the job's ID given twice"));
}

}  // namespace
}  // namespace hptune
