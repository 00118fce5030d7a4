// examples/vertex/container_job.yaml run by `hptune run`: the Vertex spec
// as the example ships it, but for its image (the one
// build_test_image.sh --stdlib-trainer builds offline, holding the same
// files as examples/vertex/Containerfile's) and two trials. Every trial's
// chief, workers and parameter server are real containers; the job prints
// itself in Vertex's shape, the default `--format json` of a Vertex spec.
// examples/vertex/python_package_job.yaml likewise, its stock python image
// swapped for the tests' python image (build_test_image.sh) and its
// relative packageUris made absolute: the trainer's package directory and
// the hypertune reporting package run from the source tree.
// Needs root and podman: skips saying why elsewhere, unless HPTUNE_EXPECT
// names "podman".
#include <unistd.h>

#include <fstream>
#include <sstream>
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
const std::string kSource = HPTUNE_SOURCE_DIR;
constexpr char kImage[] = "localhost/hptune-test/stdlib-trainer:1";
constexpr char kExampleImage[] = "localhost/hptune-stdlib-trainer:latest";
constexpr char kPythonImage[] = "localhost/hptune-test/python:1";
constexpr char kPodman[] = "/usr/bin/podman";

std::string WhyNoPodman(const std::string& image,
                        const std::string& build_flags) {
  if (geteuid() != 0) return "the container tests run as root";
  if (access(kPodman, X_OK) != 0) return "podman is not installed";
  if (RunProcess({kPodman, "image", "exists", image}).exit_code != 0) {
    return "no image " + image +
           " (tests/testdata/containers/build_test_image.sh" + build_flags +
           ")";
  }
  return "";
}

// Every `from` in `text` replaced by `to`; how many there were.
int ReplaceAll(std::string& text, const std::string& from,
               const std::string& to) {
  int replaced = 0;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++replaced;
  }
  return replaced;
}

std::string ReadExample(const std::string& name) {
  std::stringstream text;
  text << std::ifstream(kSource + "/examples/vertex/" + name).rdbuf();
  return text.str();
}

// The example with its image swapped for the test's, written to `dir`.
std::string CopyExample(const std::string& dir) {
  std::string spec = ReadExample("container_job.yaml");
  EXPECT_EQ(ReplaceAll(spec, kExampleImage, kImage), 3)
      << "the example's three pools name its image";
  const std::string path = dir + "/container_job.yaml";
  std::ofstream(path) << spec;
  return path;
}

// Each trial SUCCEEDED with a final `loss`.
void ExpectTrialsSucceededWithLoss(const nlohmann::json& job, size_t count) {
  ASSERT_EQ(job["trials"].size(), count) << job;
  for (const auto& trial : job["trials"]) {
    EXPECT_EQ(trial["state"], "SUCCEEDED") << trial;
    bool has_loss = false;
    for (const auto& m : trial["finalMeasurement"]["metrics"]) {
      has_loss = has_loss || m["metricId"] == "loss";
    }
    EXPECT_TRUE(has_loss) << trial;
  }
}

TEST(VertexExamplesTest, ContainerJobRunsEveryTrialToSuccess) {
  const std::string why = WhyNoPodman(kImage, " --stdlib-trainer");
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  const std::string dir = testing::MakeTempDir();
  auto run =
      RunProcess({kHptune, "run", CopyExample(dir), "--job-id",
                  "vertex_example", "--max-trials", "2", "--db", dir + "/h.db",
                  "--runs-dir", dir + "/runs", "--quiet", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto job = nlohmann::json::parse(run.out);
  EXPECT_EQ(job["displayName"], "stdlib trainer in a container");
  EXPECT_EQ(job["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(
      job["trialJobSpec"]["workerPoolSpecs"][1]["containerSpec"]["imageUri"],
      kImage);
  ExpectTrialsSucceededWithLoss(job, 2);
}

TEST(VertexExamplesTest, PythonPackageJobRunsItsModuleFromThePackages) {
  const std::string why = WhyNoPodman(kPythonImage, "");
  HPTUNE_SKIP_UNLESS_AVAILABLE(why.empty(), "podman", why);
  const std::string dir = testing::MakeTempDir();
  std::string spec = ReadExample("python_package_job.yaml");
  EXPECT_EQ(ReplaceAll(spec, "executorImageUri: python:3.11-slim",
                       std::string("executorImageUri: ") + kPythonImage),
            1);
  EXPECT_EQ(ReplaceAll(spec, "../stdlib_trainer/trainer",
                       kSource + "/examples/stdlib_trainer/trainer"),
            1);
  EXPECT_EQ(ReplaceAll(spec, "../../python/src/hypertune",
                       kSource + "/python/src/hypertune"),
            1);
  std::ofstream(dir + "/python_package_job.yaml") << spec;
  auto run =
      RunProcess({kHptune, "run", dir + "/python_package_job.yaml", "--job-id",
                  "vertex_package", "--max-trials", "2", "--db", dir + "/h.db",
                  "--runs-dir", dir + "/runs", "--quiet", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto job = nlohmann::json::parse(run.out);
  EXPECT_EQ(job["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["trialJobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
               ["pythonModule"],
            "trainer.task");
  ExpectTrialsSucceededWithLoss(job, 2);
}

}  // namespace
}  // namespace hptune
