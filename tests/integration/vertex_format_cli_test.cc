// `--format vertex` of the `hptune` binary: a job run with `hptune run --db`
// printed as Vertex AI's HyperparameterTuningJob (by the run and by `hptune
// jobs describe --db`), and its trials by `hptune trials list --db` as
// Vertex's Trial list. Real processes (the
// stdlib example's trainer) and a real SQLite file.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;
const std::string kSource = HPTUNE_SOURCE_DIR;

// Checks one trial of Vertex's shape that SUCCEEDED with a loss.
void ExpectSucceededTrial(const nlohmann::json& trial) {
  EXPECT_TRUE(trial["id"].is_string()) << trial;
  EXPECT_EQ(trial["state"], "SUCCEEDED") << trial;
  ASSERT_EQ(trial["parameters"].size(), 3u) << trial;
  for (const auto& parameter : trial["parameters"]) {
    EXPECT_TRUE(parameter["parameterId"].is_string()) << trial;
    EXPECT_TRUE(parameter["value"].is_number()) << trial;
  }
  const auto& final = trial["finalMeasurement"];
  EXPECT_TRUE(final["stepCount"].is_string()) << trial;
  ASSERT_FALSE(final["metrics"].empty()) << trial;
  bool has_loss = false;
  for (const auto& metric : final["metrics"]) {
    has_loss = has_loss ||
               (metric["metricId"] == "loss" && metric["value"].is_number());
  }
  EXPECT_TRUE(has_loss) << trial;
  EXPECT_THAT(trial["startTime"].get<std::string>(), HasSubstr("T"));
  EXPECT_THAT(trial["endTime"].get<std::string>(), HasSubstr("Z"));
  EXPECT_FALSE(trial.contains("infeasibleReason"));
}

TEST(VertexFormatCliTest, RunAndTrialsListPrintVertexShapes) {
  const std::string dir = testing::MakeTempDir();
  auto run = RunProcess(
      {kHptune, "run", kSource + "/examples/stdlib_trainer/config.yaml",
       "--job-id", "stdlib", "--max-trials", "2", "--db", dir + "/h.db",
       "--runs-dir", dir + "/runs", "--job-dir", dir + "/job", "--quiet",
       "--format", "vertex"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto job = nlohmann::json::parse(run.out);
  EXPECT_EQ(job["name"], "stdlib");
  EXPECT_EQ(job["displayName"], "stdlib");
  EXPECT_EQ(job["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["maxTrialCount"], 2);
  EXPECT_EQ(job["parallelTrialCount"], 3);
  EXPECT_EQ(job["maxFailedTrialCount"], 0);
  EXPECT_EQ(job["studySpec"]["metrics"][0]["metricId"], "loss");
  EXPECT_EQ(job["studySpec"]["parameters"][2]["parameterId"], "batch_size");
  const auto& pools = job["trialJobSpec"]["workerPoolSpecs"];
  ASSERT_EQ(pools.size(), 3u) << job;
  EXPECT_EQ(pools[1]["replicaCount"], "2");
  for (const char* time :
       {"createTime", "startTime", "endTime", "updateTime"}) {
    EXPECT_TRUE(job[time].is_string()) << time;
  }
  EXPECT_FALSE(job.contains("error"));
  ASSERT_EQ(job["trials"].size(), 2u) << job;
  for (const auto& trial : job["trials"]) ExpectSucceededTrial(trial);

  auto trials = RunProcess({kHptune, "trials", "list", "--study", "stdlib",
                            "--db", dir + "/h.db", "--format", "vertex"});
  ASSERT_EQ(trials.exit_code, 0) << trials.err;
  // Vertex's ListTrialsResponse.
  EXPECT_EQ(nlohmann::json::parse(trials.out),
            nlohmann::json({{"trials", job["trials"]}}));

  // `jobs describe --db` reads the same job from the file, no server.
  auto described = RunProcess({kHptune, "jobs", "describe", "stdlib", "--db",
                               dir + "/h.db", "--format", "vertex"});
  ASSERT_EQ(described.exit_code, 0) << described.err;
  nlohmann::json again = nlohmann::json::parse(described.out);
  nlohmann::json first = job;
  for (nlohmann::json* j : {&again, &first}) j->erase("updateTime");
  EXPECT_EQ(again, first);
  auto table = RunProcess(
      {kHptune, "jobs", "describe", "stdlib", "--db", dir + "/h.db"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("SUCCEEDED"));
  auto json = RunProcess({kHptune, "jobs", "describe", "stdlib", "--db",
                          dir + "/h.db", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["trainingOutput"]["trials"].size(),
            2u);
  auto missing =
      RunProcess({kHptune, "jobs", "describe", "nope", "--db", dir + "/h.db"});
  EXPECT_NE(missing.exit_code, 0) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("nope"));

  // Only commands that print a job or its trials take it.
  auto studies = RunProcess({kHptune, "studies", "list", "--db", dir + "/h.db",
                             "--format", "vertex"});
  EXPECT_EQ(studies.exit_code, 2);
  EXPECT_THAT(studies.err, HasSubstr("--format must be table, json or csv, "
                                     "got \"vertex\""));
}

}  // namespace
}  // namespace hptune
