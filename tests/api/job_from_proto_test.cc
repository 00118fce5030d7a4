// Tests for JobSpecFromProto: a TrainingInput read field by field is the job
// its config gives, and a broken one is told as ParseJobConfig tells the
// same job written as JSON: the same errors, messages and order.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"
#include "tests/testing/status_matchers.h"

namespace hptune::api {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::HasSubstr;

const std::string kSource = HPTUNE_SOURCE_DIR;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The job a config gives, without what is not trainingInput's.
JobSpec Parse(const std::string& text, ConfigFormat format) {
  ConfigParseResult parsed = ParseJobConfig(text, format, "j1");
  EXPECT_TRUE(parsed.errors.empty()) << FieldErrorsToStatus(parsed.errors);
  JobSpec job = parsed.job.value_or(JobSpec{});
  job.labels.clear();
  job.slurm = {};
  return job;
}

TEST(JobFromProtoTest, EveryExampleConfigReadsBackToItsJob) {
  const std::vector<std::string> files = {
      "examples/configs/basic_grid.json",
      "examples/configs/conditional.yaml",
      "examples/configs/mnist_custom.yaml",
      "examples/python/svc_config.yaml",
      "examples/pytorch_ddp/config-h100.yaml",
      "examples/pytorch_ddp/config.yaml",
      "examples/sklearn_trainer/config.yaml",
      "examples/stdlib_trainer/config.yaml",
      "examples/vertex/container_job.yaml",
      "examples/vertex/python_package_job.yaml",
  };
  for (const std::string& file : files) {
    const std::string text = ReadFile(kSource + "/" + file);
    ASSERT_FALSE(text.empty()) << file;
    const JobSpec job = Parse(text, ConfigFormat::kAuto);
    absl::StatusOr<JobSpec> back = JobSpecFromProto(JobSpecToProto(job), "j1");
    ASSERT_TRUE(back.ok()) << file << ": " << back.status();
    EXPECT_EQ(*back, job) << file;
  }
}

TEST(JobFromProtoTest, TiersContainersAndLimitsReadBackToTheirJob) {
  const std::vector<std::string> configs = {
      "trainingInput:\n"
      "  scaleTier: STANDARD_1\n"
      "  pythonModule: trainer.task\n"
      "  packagePath: /src/trainer\n"
      "  pythonInterpreter: /usr/bin/python3\n"
      "  jobDir: /data/jobs\n"
      "  useChiefInTfConfig: true\n"
      "  workerConfig: {env: [{name: A, value: ''}]}\n",
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-highcpu-16\n"
      "  masterConfig:\n"
      "    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}\n"
      "    imageUri: gcr.io/p/trainer:1\n"
      "    containerArgs: [--fast]\n"
      "  workerCount: 2\n"
      "  workerType: n1-highcpu-16\n"
      "  evaluatorCount: 1\n"
      "  evaluatorType: n1-standard-4\n"
      "  evaluatorConfig: {imageUri: 'e:1', pythonModule: m,\n"
      "                    packageUris: [/p.tar.gz]}\n"
      "  scheduling: {maxRunningTime: 7200.5s, maxWaitTime: 1800s,\n"
      "               priority: 0}\n"
      "  displayName: nightly\n"
      "  baseOutputDirectory: /data/out\n"
      "  dialect: VERTEX\n"
      "  hyperparameters:\n"
      "    goal: MAXIMIZE\n"
      "    hyperparameterMetricTag: accuracy\n"
      "    maxTrials: 8\n"
      "    seed: 18446744073709551615\n"
      "    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.001,\n"
      "       maxValue: 1, scaleType: UNIT_LOG_SCALE}\n",
  };
  for (const std::string& config : configs) {
    const JobSpec job = Parse(config, ConfigFormat::kYaml);
    absl::StatusOr<JobSpec> back = JobSpecFromProto(JobSpecToProto(job), "j1");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, job) << config;
  }
}

// The oracle: the request as protobuf's JSON mapping writes it (the seed, a
// uint64 it writes quoted, as the number a config has), read by the config
// parser.
absl::Status ParserStatus(const v1::TrainingInput& proto,
                          std::string_view job_id) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  EXPECT_TRUE(
      google::protobuf::util::MessageToJsonString(proto, &text, options).ok());
  nlohmann::json training_input = nlohmann::json::parse(text);
  if (training_input.contains("hyperparameters") &&
      training_input["hyperparameters"].contains("seed")) {
    nlohmann::json& seed = training_input["hyperparameters"]["seed"];
    seed = nlohmann::json::parse(seed.get<std::string>());
  }
  const nlohmann::json config = {{"trainingInput", training_input}};
  ConfigParseResult parsed =
      ParseJobConfig(config.dump(), ConfigFormat::kJson, job_id);
  return FieldErrorsToStatus(parsed.errors);
}

struct BrokenRequest {
  std::string name;
  std::function<void(v1::TrainingInput&)> breaks;
  std::string job_id = "j1";
};

v1::TrainingInput CustomJob() {
  v1::TrainingInput proto;
  proto.set_scale_tier(v1::TrainingInput::CUSTOM);
  proto.set_master_type("n1-standard-4");
  proto.add_command("python3");
  proto.add_command("train.py");
  return proto;
}

std::vector<BrokenRequest> BrokenRequests() {
  using T = v1::TrainingInput;
  return {
      {"unknown scale tier",
       [](T& p) { p.set_scale_tier(static_cast<T::ScaleTier>(99)); }},
      {"unknown tier, worker without type",
       [](T& p) {
         p.set_scale_tier(static_cast<T::ScaleTier>(42));
         p.set_worker_count(3);
         p.mutable_worker_config()->set_image_uri("Bad Image");
       }},
      {"unknown dialect",
       [](T& p) { p.set_dialect(static_cast<T::Dialect>(7)); }},
      {"BASIC_TPU", [](T& p) { p.set_scale_tier(T::BASIC_TPU); }},
      {"CUSTOM without master type, bad interpreter",
       [](T& p) {
         p.clear_master_type();
         p.set_python_interpreter("venv/bin/python");
         p.mutable_parameter_server_config()->add_container_args("--x");
       }},
      {"worker count without type",
       [](T& p) {
         p.set_worker_count(3);
         p.set_python_module("trainer.task");
       }},
      {"huge worker count", [](T& p) { p.set_worker_count(5'000'000'000); }},
      {"negative evaluator count",
       [](T& p) { p.set_parameter_server_count(-1); }},
      {"machine type not in the catalogue",
       [](T& p) { p.set_master_type("n1-standard-5"); }},
      {"pool fields on the default tier",
       [](T& p) {
         p.clear_scale_tier();
         p.set_worker_type("n1-standard-4");
         p.set_worker_count(2);
         p.mutable_evaluator_config()->set_image_uri("e:1");
         p.mutable_master_config()->mutable_accelerator_config()->set_count(1);
       }},
      {"accelerator of count 0 and no type",
       [](T& p) {
         p.mutable_master_config()->mutable_accelerator_config()->set_count(0);
         p.mutable_master_config()->add_container_args("--x");
       }},
      {"empty accelerator, 65 GPUs on a worker",
       [](T& p) {
         p.mutable_master_config()->mutable_accelerator_config();
         p.set_worker_count(1);
         p.set_worker_type("n1-standard-4");
         auto* gpus = p.mutable_worker_config()->mutable_accelerator_config();
         gpus->set_count(65);
         gpus->set_type("NVIDIA_TESLA_T4");
       }},
      {"worker config without worker type",
       [](T& p) { p.mutable_worker_config()->set_image_uri("w:1"); }},
      {"container fields without an image, reserved env",
       [](T& p) {
         v1::ReplicaConfig* master = p.mutable_master_config();
         master->add_container_args("--x");
         master->set_python_module("m");
         master->add_env()->set_name("AIP_MODEL_DIR");
         master->add_env()->set_name("1BAD");
       }},
      {"env entry without a name",
       [](T& p) {
         p.mutable_master_config()->add_env()->set_value("v");
         p.mutable_master_config()->add_env()->set_name("TF_CONFIG");
       }},
      {"bad image and package URIs",
       [](T& p) {
         v1::ReplicaConfig* master = p.mutable_master_config();
         master->set_image_uri("UPPER/Case:tag");
         master->add_package_uris("gs://b/p.tar.gz");
       }},
      {"negative duration",
       [](T& p) {
         auto* limit = p.mutable_scheduling()->mutable_max_running_time();
         limit->set_seconds(-5);
         limit->set_nanos(-500'000'000);
       }},
      {"short duration, a priority",
       [](T& p) {
         p.mutable_scheduling()->mutable_max_wait_time()->set_nanos(500'000);
         p.mutable_scheduling()->set_priority(7);
       }},
      {"duration past the limit, negative priority",
       [](T& p) {
         auto* limit = p.mutable_scheduling()->mutable_max_running_time();
         limit->set_seconds(315'576'000'000);
         limit->set_nanos(500'000'000);
         p.mutable_scheduling()->mutable_max_wait_time()->set_seconds(1);
         p.mutable_scheduling()->set_priority(-3);
       }},
      {"package URIs, command and module",
       [](T& p) {
         p.add_package_uris("gs://b/t.tar.gz");
         p.set_python_module("trainer.task");
         p.set_package_path("/src");
       }},
      {"container master with a trainer",
       [](T& p) {
         p.mutable_master_config()->set_image_uri("python:3.11");
         p.set_display_name(std::string(200, 'n'));
         p.set_base_output_directory("gs://bucket/out");
       }},
      {"bad job ID", [](T&) {}, "1-bad"},
      {"bad hyperparameters",
       [](T& p) {
         v1::StudySpec* study = p.mutable_hyperparameters();
         study->set_goal(static_cast<v1::StudySpec::Goal>(9));
         study->set_max_trials(0);
         study->set_seed(7);
         v1::ParameterSpec* lr = study->add_params();
         lr->set_parameter_name("lr");
         lr->set_type(v1::ParameterSpec::DOUBLE);
         lr->set_min_value(1);
         lr->set_max_value(0.5);
         lr->add_categorical_values("x");
         study->add_params()->set_type(v1::ParameterSpec::INTEGER);
       }},
      {"hyperparameters without params, resuming itself",
       [](T& p) {
         p.mutable_hyperparameters()->set_hyperparameter_metric_tag("acc");
         p.mutable_hyperparameters()->set_resume_previous_job_id("j1");
       }},
  };
}

TEST(JobFromProtoTest, ABrokenRequestIsToldAsTheParserTellsItsJson) {
  for (const BrokenRequest& request : BrokenRequests()) {
    v1::TrainingInput proto = CustomJob();
    request.breaks(proto);
    const absl::Status expected = ParserStatus(proto, request.job_id);
    ASSERT_FALSE(expected.ok()) << request.name;
    const absl::StatusOr<JobSpec> got = JobSpecFromProto(proto, request.job_id);
    ASSERT_FALSE(got.ok()) << request.name;
    EXPECT_EQ(got.status(), expected) << request.name;
  }
}

// Past Duration's range protobuf writes no JSON; the reader's rules still
// tell the limits.
TEST(JobFromProtoTest, DurationsOutOfProtobufsRangeAreRefused) {
  v1::TrainingInput proto = CustomJob();
  proto.mutable_scheduling()->mutable_max_wait_time()->set_seconds(
      400'000'000'000);
  proto.mutable_scheduling()->mutable_max_running_time()->set_seconds(3);
  proto.mutable_scheduling()->mutable_max_running_time()->set_nanos(-1);
  EXPECT_THAT(
      JobSpecFromProto(proto, "j1"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "trainingInput.scheduling.maxRunningTime: must be a duration "
               "in seconds ending in s, as AI Platform writes it (e.g. "
               "\"7200s\" or \"1.5s\"), got a Duration of 3 seconds and -1 "
               "nanoseconds\ntrainingInput.scheduling.maxWaitTime: must be "
               "at most 315576000000s, got \"400000000000s\""));
  proto.clear_scheduling();
  proto.mutable_scheduling()->mutable_max_wait_time()->set_seconds(
      std::numeric_limits<int64_t>::min());
  EXPECT_THAT(JobSpecFromProto(proto, "j1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("maxWaitTime: must be a duration in seconds "
                                 "ending in s, as AI Platform writes it (e.g. "
                                 "\"7200s\" or \"1.5s\"), got "
                                 "\"-9223372036854775808s\"")));
}

}  // namespace
}  // namespace hptune::api
