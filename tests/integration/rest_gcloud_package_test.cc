// gcloud's own package job end to end on `hptune serve --rest --gcs-root
// DIR`: `gcloud ai-platform jobs submit training --package-path ...
// --staging-bucket gs://bkt --job-dir gs://bkt/out` builds the trainer's
// sdist, uploads it to the gateway's Cloud Storage upload (checking the
// md5Hash and crc32c it gets back against its file), and submits the job
// with its gs:// packageUris; the host replicas pip-install it from
// DIR/bkt/..., run trainer.task, and write under DIR/bkt/out/<trial>.
// Skips, saying why, without gcloud.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/testdata/gcloud_cli.h"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

namespace fs = std::filesystem;
using testing::Gcloud;
using ::testing::HasSubstr;
using testing::ProcessResult;
using ::testing::StartsWith;
using Json = nlohmann::json;

// A tiny trainer package: reports loss=(x-0.3)^2 on stdout and writes a
// file into its --job-dir.
void WriteTrainerPackage(const fs::path& dir) {
  fs::create_directories(dir / "trainer");
  std::ofstream(dir / "trainer" / "__init__.py");
  std::ofstream(dir / "trainer" / "task.py")
      << "import argparse, os\n"
         "p = argparse.ArgumentParser()\n"
         "p.add_argument('--job-dir')\n"
         "p.add_argument('--x', type=float)\n"
         "a, _ = p.parse_known_args()\n"
         "os.makedirs(a.job_dir, exist_ok=True)\n"
         "with open(os.path.join(a.job_dir, 'done.txt'), 'w') as f:\n"
         "    f.write(str(a.x))\n"
         "print(f'loss={(a.x - 0.3) ** 2} step=1', flush=True)\n";
}

class RestGcloudPackageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::FindGcloud().empty()) {
      GTEST_SKIP() << "gcloud (google-cloud-cli) not found";
    }
    // The replicas' `python3` must have pip, setuptools and wheel to
    // install an sdist offline: Debian's, ahead of any other on PATH.
    const char* path = std::getenv("PATH");
    setenv("PATH", (std::string("/usr/bin:") + (path ? path : "")).c_str(), 1);
    dir_ = testing::MakeTempDir();
    fs::create_directories(dir_ + "/gcs");
    server_.emplace(
        dir_, std::vector<std::string>{"--rest", "127.0.0.1:0", "--gcs-root",
                                       dir_ + "/gcs"});
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    const int port = testing::RestPort(*server_);
    ASSERT_GT(port, 0) << server_->Output();
    gcloud_.emplace(dir_, port);
  }

  std::string dir_;
  std::optional<testing::ServeProcess> server_;
  std::optional<Gcloud> gcloud_;
};

TEST_F(RestGcloudPackageTest, APackageJobSubmittedByGcloudRunsFromTheBucket) {
  WriteTrainerPackage(dir_ + "/src");
  const std::string config = dir_ + "/c.yaml";
  std::ofstream(config) << "trainingInput:\n"
                           "  hyperparameters:\n"
                           "    goal: MINIMIZE\n"
                           "    hyperparameterMetricTag: loss\n"
                           "    maxTrials: 2\n"
                           "    maxParallelTrials: 2\n"
                           "    algorithm: RANDOM_SEARCH\n"
                           "    params:\n"
                           "    - {parameterName: x, type: DOUBLE, "
                           "minValue: 0, maxValue: 1}\n";
  ProcessResult submitted = gcloud_->Run(
      {"ai-platform", "jobs", "submit", "training", "pkg1", "--config", config,
       "--region", "us-central1", "--package-path", dir_ + "/src/trainer",
       "--module-name", "trainer.task", "--staging-bucket", "gs://bkt",
       "--job-dir", "gs://bkt/out"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err << server_->Output();

  const Json job = gcloud_->JsonOnceIn(
      {"ai-platform", "jobs", "describe", "pkg1"}, "/v1/projects/p1/jobs/pkg1",
      {"SUCCEEDED", "FAILED"}, std::chrono::seconds(120));
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump();

  // The job keeps what gcloud sent: its gs:// URIs.
  const Json& input = job["trainingInput"];
  EXPECT_EQ(input["jobDir"], "gs://bkt/out");
  ASSERT_EQ(input["packageUris"].size(), 1u) << input.dump();
  const std::string package = input["packageUris"][0];
  EXPECT_THAT(package, StartsWith("gs://bkt/pkg1/"));
  EXPECT_THAT(package, HasSubstr("trainer-0.0.0.tar.gz"));
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/gcs/" + package.substr(5)))
      << package;

  // gcloud's trials are the store's; each wrote under DIR/bkt/out/<trial>.
  v1::GetJobRequest get;
  get.set_job_id("pkg1");
  v1::Job stored;
  ASSERT_TRUE(
      server_->JobStub()->GetJob(testing::Context().get(), get, &stored).ok());
  const Json& trials = job["trainingOutput"]["trials"];
  ASSERT_EQ(trials.size(), 2u) << job.dump();
  for (int i = 0; i < 2; ++i) {
    const v1::HyperparameterOutput& trial = stored.training_output().trials(i);
    const Json& shown = trials[static_cast<size_t>(i)];
    EXPECT_EQ(shown["trialId"], trial.trial_id());
    EXPECT_EQ(shown["state"], "SUCCEEDED");
    EXPECT_EQ(shown["hyperparameters"]["x"], trial.hyperparameters().at("x"));
    EXPECT_DOUBLE_EQ(shown["finalMetric"]["objectiveValue"].get<double>(),
                     trial.final_metric().objective_value());
    std::ifstream done(dir_ + "/gcs/bkt/out/" + trial.trial_id() + "/done.txt");
    std::string x;
    EXPECT_TRUE(std::getline(done, x)) << "trial " << trial.trial_id();
    EXPECT_DOUBLE_EQ(std::stod(x), std::stod(trial.hyperparameters().at("x")));
  }
}

}  // namespace
}  // namespace hptune
