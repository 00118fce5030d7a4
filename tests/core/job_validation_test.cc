// Tests for ValidateJob and CompleteJob: a typed job is judged as the config
// parser judges the job's canonical JSON, each rule reported once, with the
// same field path and message.
#include "hptune/core/job_validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAreArray;

std::vector<std::string> Strings(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const FieldError& error : errors) out.push_back(error.ToString());
  return out;
}

JobSpec ValidJob() {
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  command: [python3, train.py]\n"
      "  hyperparameters:\n"
      "    goal: MAXIMIZE\n"
      "    hyperparameterMetricTag: accuracy\n"
      "    maxTrials: 4\n"
      "    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 1}\n",
      ConfigFormat::kYaml, "j1");
  EXPECT_THAT(Strings(parsed.errors), IsEmpty());
  return *parsed.job;
}

// What the parser says of the job written out as its canonical JSON.
std::vector<std::string> ParsedBack(const JobSpec& job) {
  return Strings(
      ParseJobConfig(TrainingInputToJson(job), ConfigFormat::kJson, job.job_id)
          .errors);
}

TEST(JobValidationTest, AValidJobHasNoErrors) {
  EXPECT_THAT(ValidateJob(ValidJob()), IsEmpty());
}

TEST(JobValidationTest, EachRuleIsReportedAsTheParserReportsItsJson) {
  const std::vector<std::function<void(JobSpec&)>> breaks = {
      [](JobSpec& j) { j.master.machine_type.clear(); },
      [](JobSpec& j) { j.worker.count = 2; },
      [](JobSpec& j) { j.worker.container.image_uri = "gcr.io/p/i:1"; },
      [](JobSpec& j) { j.master.machine_type = "n1-standard-5"; },
      [](JobSpec& j) { j.master.accelerator = {.count = 3, .type = "X"}; },
      [](JobSpec& j) { j.module_name = "trainer.task"; },
      [](JobSpec& j) {
        j.command.clear();
        j.package_path = "/src/trainer";
      },
      [](JobSpec& j) {
        j.command = {"", "x"};
      },
      [](JobSpec& j) { j.python_interpreter = "venv/bin/python3"; },
      [](JobSpec& j) { j.job_dir = "/" + std::string(4095, 'd'); },
      [](JobSpec& j) { j.args.assign(1, std::string(128 * 1024, 'a')); },
      [](JobSpec& j) { j.master.container.image_uri = "Bad Image"; },
      [](JobSpec& j) { j.master.container.image_uri = "gcr.io/p/i:1"; },
      [](JobSpec& j) { j.master.env = {{.name = "TF_CONFIG", .value = ""}}; },
      [](JobSpec& j) { j.scale_tier = ScaleTier::kBasicTpu; },
      [](JobSpec& j) {
        j.scale_tier = ScaleTier::kBasic;
        CompleteJob(j);
        j.evaluator.container.image_uri = "gcr.io/p/i:1";
      },
      [](JobSpec& j) { j.display_name = std::string(129, 'n'); },
      [](JobSpec& j) { j.base_output_directory = "gs://b/out"; },
      [](JobSpec& j) { j.job_dir = "gs://bucket/../out"; },
      [](JobSpec& j) { j.package_uris = {"gs://bkt/p.tar.gz"}; },
      [](JobSpec& j) { j.study->max_trials = 0; },
      [](JobSpec& j) { j.study->resume_previous_job_id = "j1"; },
      [](JobSpec& j) { j.job_id = "1j"; },
      [](JobSpec& j) {
        j.worker = {.count = 5000, .machine_type = "n1-standard-4"};
      },
      [](JobSpec& j) {
        j.master.machine_type = "a2-highgpu-1g";
        j.master.accelerator = {.count = 65, .type = "NVIDIA_TESLA_A100"};
      },
  };
  for (size_t i = 0; i < breaks.size(); ++i) {
    JobSpec job = ValidJob();
    breaks[i](job);
    const std::vector<std::string> parsed = ParsedBack(job);
    EXPECT_THAT(parsed, testing::Not(IsEmpty())) << "break " << i;
    EXPECT_THAT(Strings(ValidateJob(job)), UnorderedElementsAreArray(parsed))
        << "break " << i;
  }
}

// A job built in code is bounded as a config is: replicas and GPUs per
// replica, each count once at its field.
TEST(JobValidationTest, CountsPastTheirBoundsAreRefused) {
  JobSpec job = ValidJob();
  job.worker = {.count = kMaxReplicaCount + 4000,
                .machine_type = "n1-standard-4"};
  job.parameter_server = {.count = -1, .machine_type = "n1-standard-4"};
  job.evaluator = {.count = 1,
                   .machine_type = "n1-standard-4",
                   .accelerator = {.count = kMaxAcceleratorCount + 1,
                                   .type = "NVIDIA_TESLA_T4"}};
  EXPECT_THAT(
      Strings(ValidateJob(job)),
      ElementsAre(
          "trainingInput.workerCount: must be at most 1000, got 5000",
          "trainingInput.parameterServerCount: must be at least 0, got -1",
          "trainingInput.evaluatorConfig.acceleratorConfig.count: must be at "
          "most 64, got 65"));
  job.worker.count = kMaxReplicaCount;
  job.parameter_server.count = 0;
  job.evaluator.accelerator.count = 1;
  EXPECT_THAT(ValidateJob(job), IsEmpty());
}

TEST(JobValidationTest, CompleteJobGivesATiersMachinesAndTheMastersImage) {
  JobSpec job = ValidJob();
  job.scale_tier = ScaleTier::kStandard1;
  job.master.container.image_uri = "gcr.io/p/i:1";
  job.worker.env = {{.name = "A", .value = "1"}};
  CompleteJob(job);
  EXPECT_EQ(job.master.machine_type, "n1-highcpu-8");
  EXPECT_EQ(job.worker.count, 4);
  EXPECT_EQ(job.worker.container.image_uri, "gcr.io/p/i:1");
  EXPECT_THAT(job.worker.env, ElementsAre(EnvVar{.name = "A", .value = "1"}));
  EXPECT_EQ(job.parameter_server.count, 3);
  EXPECT_EQ(job.evaluator.count, 0);
  EXPECT_TRUE(job.evaluator.container.empty());
}

}  // namespace
}  // namespace hptune
