// Tests for JobSpecToProto: a job built field by field into a TrainingInput
// is the message protobuf's JSON mapping makes of its canonical JSON, so a
// client that sends the typed job and a Job reply say what the stored JSON
// says.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "nlohmann/json.hpp"
#include "src/api/conversion.h"

namespace hptune::api {
namespace {

JobSpec Parse(const std::string& yaml) {
  ConfigParseResult parsed = ParseJobConfig(yaml, ConfigFormat::kYaml, "j1");
  EXPECT_TRUE(parsed.errors.empty()) << FieldErrorsToStatus(parsed.errors);
  return parsed.job.value_or(JobSpec{});
}

// The oracle: the canonical JSON's trainingInput read by protobuf.
v1::TrainingInput ThroughJson(const JobSpec& job) {
  const nlohmann::json json = nlohmann::json::parse(TrainingInputToJson(job));
  v1::TrainingInput proto;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(
                  json["trainingInput"].dump(), &proto)
                  .ok());
  return proto;
}

constexpr char kStudy[] =
    "  hyperparameters:\n"
    "    goal: MAXIMIZE\n"
    "    hyperparameterMetricTag: accuracy\n"
    "    maxTrials: 8\n"
    "    maxParallelTrials: 4\n"
    "    seed: 7\n"
    "    enableTrialEarlyStopping: true\n"
    "    earlyStoppingRule: decay-curve\n"
    "    params:\n"
    "    - parameterName: cell\n"
    "      type: CATEGORICAL\n"
    "      categoricalValues: [GRU, LSTM]\n"
    "      conditionalParameterSpecs:\n"
    "      - parentCategoricalValues: {values: [LSTM]}\n"
    "        parameterSpec: {parameterName: layers, type: INTEGER,\n"
    "                        minValue: 1, maxValue: 4}\n"
    "    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 1,\n"
    "       scaleType: UNIT_LOG_SCALE}\n";

TEST(JobProtoTest, ATypedJobIsTheMessageOfItsCanonicalJson) {
  const std::vector<std::string> configs = {
      std::string("trainingInput:\n"
                  "  command: [python3, train.py]\n"
                  "  args: [--epochs=3]\n") +
          kStudy,
      std::string("trainingInput:\n"
                  "  scaleTier: CUSTOM\n"
                  "  masterType: n1-highcpu-16\n"
                  "  masterConfig:\n"
                  "    acceleratorConfig: {count: 4, type: NVIDIA_TESLA_T4}\n"
                  "    imageUri: gcr.io/p/trainer:1\n"
                  "    containerArgs: [--fast]\n"
                  "    env: [{name: A, value: '1'}]\n"
                  "  workerCount: 2\n"
                  "  workerType: n1-highcpu-16\n"
                  "  scheduling: {maxRunningTime: 7200.5s, maxWaitTime: "
                  "1800s}\n"
                  "  displayName: nightly\n"
                  "  baseOutputDirectory: /data/out\n"
                  "  dialect: VERTEX\n") +
          kStudy,
      "trainingInput:\n"
      "  scaleTier: STANDARD_1\n"
      "  pythonModule: trainer.task\n"
      "  packagePath: /src/trainer\n"
      "  pythonInterpreter: /usr/bin/python3\n"
      "  jobDir: /data/jobs\n"
      "  useChiefInTfConfig: true\n",
  };
  for (const std::string& config : configs) {
    const JobSpec job = Parse(config);
    const v1::TrainingInput proto = JobSpecToProto(job);
    const v1::TrainingInput expected = ThroughJson(job);
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(proto, expected))
        << "built:\n"
        << proto.DebugString() << "through JSON:\n"
        << expected.DebugString();
  }
}

}  // namespace
}  // namespace hptune::api
