// Vertex AI's rules for a HyperparameterTuningJob as `hptune run` runs one:
// `measurementSelectionType: BEST_MEASUREMENT` makes a trial's result its
// best report, not its last; `$(VAR)` in a containerSpec's command and args
// is the replica's variable; an empty placeholder pool keeps the indexes
// of the pools after it; a trial of one replica gets no TF_CONFIG. Real
// trials whose replicas are podman containers (the tests' python image) and
// a real SQLite file.
// Needs root and podman: skips saying why elsewhere, unless HPTUNE_EXPECT
// names "podman".
#include <unistd.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;
constexpr char kImage[] = "localhost/hptune-test/python:1";
constexpr char kPodman[] = "/usr/bin/podman";

std::string WhyNoPodman() {
  if (geteuid() != 0) return "the container tests run as root";
  if (access(kPodman, X_OK) != 0) return "podman is not installed";
  if (RunProcess({kPodman, "image", "exists", kImage}).exit_code != 0) {
    return std::string("no image ") + kImage +
           " (tests/testdata/containers/build_test_image.sh)";
  }
  return "";
}

// Each replica writes what it was started with to <AIP_MODEL_DIR><name>;
// the chief then reports a loss that is worse at its last step.
constexpr char kReplica[] =
    "import json, os, sys; "
    "open(os.environ['AIP_MODEL_DIR'] + sys.argv[1], 'w').write("
    "json.dumps({'argv': sys.argv[2:], 'env': dict(os.environ)})); "
    "[print(f'loss={v} step={i + 1}') for i, v in enumerate("
    "[0.5, 0.2, 0.9] if sys.argv[1] == 'chief' else [])]";

std::string Pool(const std::string& name, const std::string& args) {
  return "  - machineSpec: {machineType: n1-standard-4}\n"
         "    containerSpec:\n"
         "      imageUri: " +
         std::string(kImage) +
         "\n"
         "      command: [python3, -c, \"" +
         kReplica + "\", " + name +
         "]\n"
         "      args: [" +
         args +
         "]\n"
         "      env: [{name: MODE, value: fast}]\n";
}

constexpr char kStudy[] = R"(displayName: vertex rules
maxTrialCount: 1
studySpec:
  metrics: [{metricId: loss, goal: MINIMIZE}]
  measurementSelectionType: BEST_MEASUREMENT
  algorithm: RANDOM_SEARCH
  parameters:
  - {parameterId: x, doubleValueSpec: {minValue: 0, maxValue: 1}}
trialJobSpec:
  workerPoolSpecs:
)";

TEST(VertexRulesRunTest, BestMeasurementVariablesAndAnEmptyPool) {
  const std::string why = WhyNoPodman();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/job.yaml")
      << kStudy
      << Pool("chief",
              "'--out=$(AIP_MODEL_DIR)', '$$(MODE)', "
              "'$(MODE)', '$(NOPE)'")
      << "  - {}\n"
      << "  - {machineSpec: {machineType: n1-standard-4}, replicaCount: 0, "
         "containerSpec: {imageUri: localhost/nothing:1}}\n"
      << Pool("evaluator", "");
  auto run = RunProcess({kHptune, "run", dir + "/job.yaml", "--job-id", "rules",
                         "--db", dir + "/h.db", "--runs-dir", dir + "/runs",
                         "--quiet", "--format", "vertex"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto job = nlohmann::json::parse(run.out);
  EXPECT_EQ(job["studySpec"]["measurementSelectionType"], "BEST_MEASUREMENT");
  ASSERT_EQ(job["trials"].size(), 1u) << job;
  const auto& final = job["trials"][0]["finalMeasurement"];
  EXPECT_EQ(final["stepCount"], "2") << final;
  EXPECT_EQ(final["metrics"][0]["value"], 0.2) << final;

  const std::string model = dir + "/runs/rules/1/model/";
  std::ifstream chief_file(model + "chief");
  ASSERT_TRUE(chief_file.good()) << model;
  const auto chief = nlohmann::json::parse(chief_file);
  const std::string argv = chief["argv"].dump();
  EXPECT_THAT(argv, ::testing::StartsWith("[\"--out=" + model +
                                          "\",\"$(MODE)\",\"fast\","
                                          "\"$(NOPE)\",\"--x="))
      << argv;
  // Pool 3 is the evaluator, though pools 1 and 2 run nothing.
  std::ifstream evaluator_file(model + "evaluator");
  ASSERT_TRUE(evaluator_file.good());
  const auto evaluator = nlohmann::json::parse(evaluator_file);
  EXPECT_EQ(
      nlohmann::json::parse(
          evaluator["env"]["CLUSTER_SPEC"].get<std::string>())["task"]["type"],
      "workerpool3");
  EXPECT_EQ(
      nlohmann::json::parse(
          evaluator["env"]["TF_CONFIG"].get<std::string>())["task"]["type"],
      "evaluator");
}

// Vertex AI sets TF_CONFIG on distributed jobs only: a trial of one replica
// reads its trial from CLUSTER_SPEC and CLOUD_ML_TRIAL_ID.
TEST(VertexRulesRunTest, ATrialOfOneReplicaGetsNoTfConfig) {
  const std::string why = WhyNoPodman();
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/job.yaml") << kStudy << Pool("chief", "");
  auto run =
      RunProcess({kHptune, "run", dir + "/job.yaml", "--job-id", "one", "--db",
                  dir + "/h.db", "--runs-dir", dir + "/runs", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  std::ifstream chief_file(dir + "/runs/one/1/model/chief");
  ASSERT_TRUE(chief_file.good());
  const auto env = nlohmann::json::parse(chief_file)["env"];
  EXPECT_FALSE(env.contains("TF_CONFIG")) << env;
  const auto cluster_spec =
      nlohmann::json::parse(env["CLUSTER_SPEC"].get<std::string>());
  EXPECT_EQ(cluster_spec["task"]["type"], "workerpool0") << cluster_spec;
  EXPECT_EQ(cluster_spec["task"]["trial"], "1") << cluster_spec;
  EXPECT_EQ(env["CLOUD_ML_TRIAL_ID"], "1");
}

}  // namespace
}  // namespace hptune
