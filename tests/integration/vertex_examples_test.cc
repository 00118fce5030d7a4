// examples/vertex/container_job.yaml run by `hptune run`: the Vertex spec
// as the example ships it, but for its image (the one
// build_test_image.sh --stdlib-trainer builds offline, holding the same
// files as examples/vertex/Containerfile's) and two trials. Every trial's
// chief, workers and parameter server are real containers; the job prints
// itself in Vertex's shape, the default `--format json` of a Vertex spec.
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
constexpr char kPodman[] = "/usr/bin/podman";

std::string WhyNoPodman() {
  if (geteuid() != 0) return "the container tests run as root";
  if (access(kPodman, X_OK) != 0) return "podman is not installed";
  if (RunProcess({kPodman, "image", "exists", kImage}).exit_code != 0) {
    return std::string("no image ") + kImage +
           " (tests/testdata/containers/build_test_image.sh "
           "--stdlib-trainer)";
  }
  return "";
}

// The example with its image swapped for the test's, written to `dir`.
std::string CopyExample(const std::string& dir) {
  std::stringstream text;
  text
      << std::ifstream(kSource + "/examples/vertex/container_job.yaml").rdbuf();
  std::string spec = text.str();
  int swapped = 0;
  for (size_t at = spec.find(kExampleImage); at != std::string::npos;
       at = spec.find(kExampleImage, at)) {
    spec.replace(at, std::string(kExampleImage).size(), kImage);
    ++swapped;
  }
  EXPECT_EQ(swapped, 3) << "the example's three pools name its image";
  const std::string path = dir + "/container_job.yaml";
  std::ofstream(path) << spec;
  return path;
}

TEST(VertexExamplesTest, ContainerJobRunsEveryTrialToSuccess) {
  const std::string why = WhyNoPodman();
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
  ASSERT_EQ(job["trials"].size(), 2u) << job;
  for (const auto& trial : job["trials"]) {
    EXPECT_EQ(trial["state"], "SUCCEEDED") << trial;
    const auto& metrics = trial["finalMeasurement"]["metrics"];
    ASSERT_FALSE(metrics.empty()) << trial;
    bool has_loss = false;
    for (const auto& m : metrics)
      has_loss = has_loss || m["metricId"] == "loss";
    EXPECT_TRUE(has_loss) << trial;
  }
}

}  // namespace
}  // namespace hptune
