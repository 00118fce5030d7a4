// `hptune run` of jobs without a study, which run once (RunStudyOf): a
// trainingInput without hyperparameters whose master and worker are host
// processes (dump_trainer.py) succeeds with both replicas given TF_CONFIG
// and CLUSTER_SPEC, its hypertune report recorded but not required; its
// master exiting 1 fails the job with that reason; and a Vertex CustomJob
// (jobSpec, container pools of tests/testdata/containers, podman and root:
// skips saying why elsewhere) runs its master and worker once and is
// printed back as Vertex's CustomJob.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/store/sqlite_store.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileOrEmpty;
using testing::RunProcess;
using Json = nlohmann::json;

constexpr char kHptune[] = HPTUNE_BINARY;
const std::string kSource = HPTUNE_SOURCE_DIR;
constexpr char kImage[] = "localhost/hptune-test/python:1";

// A master and one worker of dump_trainer.py, and no hyperparameters; each
// replica records what it saw under dir/dumps.
std::string WriteTrainingInput(const std::string& dir) {
  const std::string config = dir + "/config.yaml";
  std::ofstream(config) << "trainingInput:\n"
                           "  scaleTier: CUSTOM\n"
                           "  masterType: n1-standard-4\n"
                           "  workerType: n1-standard-4\n"
                           "  workerCount: 1\n"
                           "  command: [python3, "
                        << kSource
                        << "/tests/launch/testdata/dump_trainer.py]\n";
  setenv("DUMP_DIR", (dir + "/dumps").c_str(), 1);
  // The master ends the run: it waits for the worker's record first.
  setenv("DUMP_AWAIT_MASTER", "worker-0:1", 1);
  std::filesystem::create_directories(dir + "/dumps");
  return config;
}

testing::ProcessResult RunHptune(const std::string& dir,
                                 const std::string& config,
                                 const std::vector<std::string>& more = {},
                                 const std::string& job_id = "once") {
  std::vector<std::string> argv = {
      kHptune, "run",         config,       "--job-id",    job_id,
      "--db",  dir + "/h.db", "--runs-dir", dir + "/runs", "--quiet"};
  argv.insert(argv.end(), more.begin(), more.end());
  return RunProcess(argv);
}

std::unique_ptr<store::Store> OpenStore(const std::string& dir) {
  auto store = store::SqliteStore::Open(dir + "/h.db", SystemClock());
  EXPECT_OK(store);
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(CustomJobRunTest, AJobWithoutHyperparametersRunsItsReplicasOnce) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteTrainingInput(dir);
  setenv("DUMP_METRIC", "0.25", 1);
  const testing::ProcessResult ran = RunHptune(dir, config);
  unsetenv("DUMP_METRIC");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("job once SUCCEEDED"));

  for (const std::string name : {"master-0", "worker-0"}) {
    SCOPED_TRACE(name);
    const Json dump =
        Json::parse(ReadFileOrEmpty(dir + "/dumps/" + name + ".json"));
    EXPECT_EQ(dump["attempt"], 1);
    EXPECT_EQ(dump["env"]["CLOUD_ML_TRIAL_ID"], "1");
    for (const char* spec : {"tf_config", "cluster_spec"}) {
      const Json& cluster = dump[spec]["cluster"];
      EXPECT_EQ(cluster["master"].size(), 1u) << dump.dump();
      EXPECT_EQ(cluster["worker"].size(), 1u) << dump.dump();
    }
    EXPECT_EQ(dump["tf_config"]["task"]["type"], name.substr(0, 6));
  }
  auto store = OpenStore(dir);
  ASSERT_NE(store, nullptr);
  auto job = store->GetJob("once");
  ASSERT_OK(job);
  EXPECT_EQ(job->state, JobState::kSucceeded);
  auto trials = store->ListTrials("once");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 1u);
  const Trial& trial = trials->front();
  EXPECT_EQ(trial.state, TrialState::kSucceeded);
  EXPECT_TRUE(trial.parameters.empty());
  // The master's hypertune report is kept, though no metric was asked for.
  ASSERT_EQ(trial.measurements.size(), 1u);
  EXPECT_EQ(trial.measurements[0].metrics.at("training/hptuning/metric"), 0.25);

  // Nor does a run that reports nothing fail for it.
  const testing::ProcessResult bare = RunHptune(dir, config, {}, "bare");
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_THAT(bare.err, HasSubstr("job bare SUCCEEDED"));
}

TEST(CustomJobRunTest, TheJobFailsWithItsRunWhenTheMasterExits1) {
  const std::string dir = testing::MakeTempDir();
  const std::string config = WriteTrainingInput(dir);
  setenv("DUMP_EXIT_CODE_MASTER", "1", 1);
  const testing::ProcessResult ran =
      RunHptune(dir, config, {"--max-restarts", "0", "--max-retries", "0"});
  unsetenv("DUMP_EXIT_CODE_MASTER");
  EXPECT_EQ(ran.exit_code, 1) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("job once FAILED: trial 1: master-0 "
                                 "exited with code 1"));
  auto store = OpenStore(dir);
  ASSERT_NE(store, nullptr);
  auto job = store->GetJob("once");
  ASSERT_OK(job);
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_THAT(job->error_message, HasSubstr("master-0 exited with code 1"));
  auto trial = store->GetTrial("once", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kFailed);
}

std::string WhyNoPodman() {
  if (geteuid() != 0) return "the container tests run as root";
  if (access("/usr/bin/podman", X_OK) != 0) return "podman is not installed";
  if (RunProcess({"/usr/bin/podman", "image", "exists", kImage}).exit_code !=
      0) {
    return std::string("no image ") + kImage +
           " (tests/testdata/containers/build_test_image.sh)";
  }
  return "";
}

TEST(CustomJobRunTest, AVertexCustomJobRunsItsContainersOnce) {
  const std::string why = WhyNoPodman();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  const std::string dir = testing::MakeTempDir();
  const std::string pool =
      "  - machineSpec: {machineType: n1-standard-4}\n"
      "    replicaCount: 1\n"
      "    containerSpec:\n"
      "      imageUri: " +
      std::string(kImage) +
      "\n"
      "      command: [python3, /app/cluster_trainer.py]\n";
  std::ofstream(dir + "/custom.yaml")
      << "displayName: one-run\n"
         "jobSpec:\n"
         "  baseOutputDirectory: {outputUriPrefix: "
      << dir << "/out}\n  workerPoolSpecs:\n"
      << pool << pool;
  const testing::ProcessResult ran =
      RunHptune(dir, dir + "/custom.yaml",
                {"--format", "vertex", "--grace-seconds", "5"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  // Its master reports loss; no metric was asked for, so none is missing.
  EXPECT_THAT(ran.err, ::testing::Not(HasSubstr("unless it reports")));
  const Json shown = Json::parse(ran.out);
  EXPECT_EQ(shown["name"], "once");
  EXPECT_EQ(shown["displayName"], "one-run");
  EXPECT_EQ(shown["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(shown["jobSpec"]["workerPoolSpecs"].size(), 2u) << shown.dump();
  EXPECT_FALSE(shown.contains("studySpec") || shown.contains("trials"));
  EXPECT_TRUE(shown.contains("startTime") && shown.contains("endTime"));
  // The master heard from its worker, through TF_CONFIG's addresses.
  const Json exchange =
      Json::parse(ReadFileOrEmpty(dir + "/out/1/model/exchange.json"));
  EXPECT_EQ(exchange["trial"], "1");
  EXPECT_EQ(exchange["received"], Json({{"0", 10}})) << exchange.dump();
}

}  // namespace
}  // namespace hptune
