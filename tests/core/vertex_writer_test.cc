// Tests for VertexJobJson and VertexTrialsJson: a Vertex spec written back
// reads as the same job (so every spec field is in Vertex's names), each
// output field of the job and its trials, a failed job's error, and an
// INFEASIBLE trial.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "hptune/core/trial.h"

namespace hptune {
namespace {

using Json = nlohmann::json;

// Every spec field the reader maps: two metrics (one a constraint), a
// conditional parameter of each parent kind, two pools with accelerators,
// env, scheduling, output directory, early stopping, seed, the best
// measurement and labels.
constexpr char kSpec[] = R"(
displayName: every field
maxTrialCount: 6
parallelTrialCount: 2
maxFailedTrialCount: 3
labels: {team: vision}
studySpec:
  metrics:
  - {metricId: accuracy, goal: MAXIMIZE}
  - metricId: latency
    goal: MINIMIZE
    safetyConfig: {safetyThreshold: 50, desiredMinSafeTrialsFraction: 0.8}
  algorithm: RANDOM_SEARCH
  seed: 7
  measurementSelectionType: BEST_MEASUREMENT
  medianAutomatedStoppingSpec: {}
  parameters:
  - parameterId: lr
    doubleValueSpec: {minValue: 0.001, maxValue: 0.1}
    scaleType: UNIT_LOG_SCALE
  - parameterId: layers
    integerValueSpec: {minValue: "1", maxValue: "4"}
    conditionalParameterSpecs:
    - parentIntValues: {values: ["2", "3"]}
      parameterSpec:
        parameterId: width
        discreteValueSpec: {values: [32, 64]}
  - parameterId: optimizer
    categoricalValueSpec: {values: [sgd, adam]}
    conditionalParameterSpecs:
    - parentCategoricalValues: {values: [sgd]}
      parameterSpec:
        parameterId: momentum
        doubleValueSpec: {minValue: 0, maxValue: 0.9}
trialJobSpec:
  baseOutputDirectory: {outputUriPrefix: /srv/out}
  scheduling: {timeout: 3600s, maxWaitDuration: 600s}
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8, acceleratorType: NVIDIA_TESLA_T4, acceleratorCount: 1}
    replicaCount: "1"
    containerSpec:
      imageUri: localhost/trainer:1
      command: [python3, -m, trainer.task]
      args: [--epochs=3]
      env: [{name: MODE, value: fast}]
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: "2"
    pythonPackageSpec:
      executorImageUri: localhost/executor:1
      packageUris: [/srv/trainer.tar.gz]
      pythonModule: trainer.task
)";

JobSpec Parse(const std::string& text) {
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto, "job1");
  EXPECT_TRUE(result.errors.empty())
      << (result.errors.empty() ? "" : result.errors[0].message) << "\n"
      << text;
  return result.job.value_or(JobSpec{});
}

Timestamp At(int seconds) {
  return FromUnixMicros(int64_t{1'800'000'000} * 1'000'000 +
                        int64_t{seconds} * 1'000'000);
}

JobRecord Record(JobState state) {
  JobRecord record;
  record.job_id = "job1";
  record.state = state;
  record.create_time = At(0);
  record.start_time = At(5);
  record.end_time = At(100);
  record.labels = {{"team", "vision"}};
  return record;
}

Trial Succeeded() {
  Trial t;
  t.number = 1;
  t.state = TrialState::kSucceeded;
  t.parameters = {{"layers", ParameterValue::Integer(2)},
                  {"lr", ParameterValue::Double(0.01)},
                  {"optimizer", ParameterValue::Categorical("adam")}};
  t.final_measurement =
      Measurement{.step = 40, .metrics = {{"accuracy", 0.9}, {"latency", 30}}};
  t.start_time = At(10);
  t.end_time = At(110);  // After the job's end: the latest change.
  return t;
}

TEST(VertexJobJsonTest, SpecWrittenBackReadsAsTheSameJob) {
  const JobSpec job = Parse(kSpec);
  const std::string text = VertexJobJson(job, Record(JobState::kRunning), {});
  EXPECT_EQ(Parse(text), job);
}

// A rule's settings go back where the reader took them from: hptune's
// earlyStoppingSettings, or the convex spec's own fields.
TEST(VertexJobJsonTest, StoppingSettingsWrittenBackReadAsTheSame) {
  for (const char* stopping :
       {"  medianAutomatedStoppingSpec: {}\n"
        "  earlyStoppingSettings: {warmupSteps: 8}\n",
        "  convexAutomatedStoppingSpec: {maxStepCount: '90', "
        "minMeasurementCount: 3}\n"}) {
    std::string text = kSpec;
    text.replace(text.find("  medianAutomatedStoppingSpec: {}\n"),
                 std::string("  medianAutomatedStoppingSpec: {}\n").size(),
                 stopping);
    const JobSpec job = Parse(text);
    ASSERT_FALSE(job.study->stopping_settings.empty()) << stopping;
    const std::string out = VertexJobJson(job, Record(JobState::kRunning), {});
    EXPECT_EQ(Parse(out), job) << out;
  }
}

TEST(VertexJobJsonTest, JobFieldsInVertexNames) {
  const JobSpec job = Parse(kSpec);
  const Json out = Json::parse(
      VertexJobJson(job, Record(JobState::kSucceeded), {Succeeded()}));
  EXPECT_EQ(out["name"], "job1");
  EXPECT_EQ(out["displayName"], "every field");
  EXPECT_EQ(out["maxTrialCount"], 6);
  EXPECT_EQ(out["parallelTrialCount"], 2);
  EXPECT_EQ(out["maxFailedTrialCount"], 3);
  EXPECT_EQ(out["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(out["createTime"], "2027-01-15T08:00:00.000000Z");
  EXPECT_EQ(out["startTime"], "2027-01-15T08:00:05.000000Z");
  EXPECT_EQ(out["endTime"], "2027-01-15T08:01:40.000000Z");
  EXPECT_EQ(out["updateTime"], "2027-01-15T08:01:50.000000Z");
  EXPECT_FALSE(out.contains("error"));
  EXPECT_EQ(out["labels"]["team"], "vision");
  const Json& study = out["studySpec"];
  EXPECT_EQ(study["metrics"][1]["safetyConfig"]["safetyThreshold"], 50);
  EXPECT_EQ(study["parameters"][1]["integerValueSpec"]["minValue"], "1");
  EXPECT_EQ(study["parameters"][1]["conditionalParameterSpecs"][0]
                 ["parentIntValues"]["values"][0],
            "2");
  const Json& pools = out["trialJobSpec"]["workerPoolSpecs"];
  EXPECT_EQ(pools[0]["replicaCount"], "1");
  EXPECT_EQ(pools[0]["machineSpec"]["acceleratorCount"], 1);
  EXPECT_EQ(pools[0]["containerSpec"]["command"][2], "trainer.task");
  EXPECT_EQ(pools[1]["replicaCount"], "2");
  EXPECT_EQ(pools[1]["pythonPackageSpec"]["executorImageUri"],
            "localhost/executor:1");
  EXPECT_EQ(out["trialJobSpec"]["scheduling"]["timeout"], "3600s");
}

TEST(VertexJobJsonTest, TrialFields) {
  const Json trial = Json::parse(VertexTrialsJson({Succeeded()}))["trials"][0];
  EXPECT_EQ(trial["id"], "1");
  EXPECT_EQ(trial["state"], "SUCCEEDED");
  EXPECT_EQ(trial["parameters"],
            Json::parse(R"([{"parameterId": "layers", "value": 2},
                            {"parameterId": "lr", "value": 0.01},
                            {"parameterId": "optimizer", "value": "adam"}])"));
  EXPECT_EQ(trial["finalMeasurement"]["stepCount"], "40");
  EXPECT_EQ(trial["finalMeasurement"]["metrics"],
            Json::parse(R"([{"metricId": "accuracy", "value": 0.9},
                            {"metricId": "latency", "value": 30.0}])"));
  EXPECT_EQ(trial["startTime"], "2027-01-15T08:00:10.000000Z");
  EXPECT_EQ(trial["endTime"], "2027-01-15T08:01:50.000000Z");
  EXPECT_FALSE(trial.contains("infeasibleReason"));
}

// As the spec lists them (lr before layers), in the job and in the list.
TEST(VertexJobJsonTest, TrialParametersAreInTheSpecsOrder) {
  const JobSpec job = Parse(kSpec);
  const Json expected = Json::parse(R"([{"parameterId": "lr", "value": 0.01},
                                        {"parameterId": "layers", "value": 2},
                                        {"parameterId": "optimizer",
                                         "value": "adam"}])");
  const Json out = Json::parse(
      VertexJobJson(job, Record(JobState::kSucceeded), {Succeeded()}));
  EXPECT_EQ(out["trials"][0]["parameters"], expected);
  const Json list =
      Json::parse(VertexTrialsJson({Succeeded()}, &job.study->search_space));
  EXPECT_EQ(list["trials"][0]["parameters"], expected);
}

TEST(VertexJobJsonTest, FailedJobHasItsErrorAndFailedTrialsAreInfeasible) {
  JobRecord record = Record(JobState::kFailed);
  record.error_message = "too many failed trials";
  Trial failed = Succeeded();
  failed.state = TrialState::kFailed;
  failed.final_measurement.reset();
  failed.reason = "exit status 3";
  Trial infeasible = failed;
  infeasible.number = 2;
  infeasible.state = TrialState::kInfeasible;
  infeasible.reason.clear();
  const Json out =
      Json::parse(VertexJobJson(Parse(kSpec), record, {failed, infeasible}));
  EXPECT_EQ(out["state"], "JOB_STATE_FAILED");
  EXPECT_EQ(out["error"],
            Json::parse(R"({"code": 2, "message": "too many failed trials"})"));
  EXPECT_EQ(out["trials"][0]["state"], "INFEASIBLE");
  EXPECT_EQ(out["trials"][0]["infeasibleReason"], "exit status 3");
  EXPECT_FALSE(out["trials"][0].contains("finalMeasurement"));
  EXPECT_EQ(out["trials"][1]["state"], "INFEASIBLE");
  EXPECT_EQ(out["trials"][1]["infeasibleReason"], "trial INFEASIBLE");
}

TEST(VertexJobJsonTest, JobStateNames) {
  const JobSpec job = Parse(kSpec);
  const std::pair<JobState, const char*> cases[] = {
      {JobState::kQueued, "JOB_STATE_QUEUED"},
      {JobState::kPreparing, "JOB_STATE_PENDING"},
      {JobState::kRunning, "JOB_STATE_RUNNING"},
      {JobState::kCancelling, "JOB_STATE_CANCELLING"},
      {JobState::kCancelled, "JOB_STATE_CANCELLED"}};
  for (const auto& [state, name] : cases) {
    EXPECT_EQ(Json::parse(VertexJobJson(job, Record(state), {}))["state"],
              name);
  }
}

TEST(VertexJobJsonTest, AiPlatformJobInVertexShape) {
  const JobSpec job = Parse(R"(
trainingInput:
  scaleTier: BASIC
  command: [python3, train.py]
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 3
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.1, maxValue: 1}
)");
  const Json out =
      Json::parse(VertexJobJson(job, Record(JobState::kRunning), {}));
  EXPECT_EQ(out["displayName"], "job1");
  EXPECT_EQ(out["maxTrialCount"], 3);
  EXPECT_EQ(out["studySpec"]["metrics"],
            Json::parse(R"([{"metricId": "loss", "goal": "MINIMIZE"}])"));
  EXPECT_EQ(out["trialJobSpec"]["workerPoolSpecs"],
            Json::parse(R"([{"machineSpec": {"machineType": "n1-standard-4"},
                                "replicaCount": "1"}])"));
}

// Each rule is written as Vertex's spec of it, or hptune's
// earlyStoppingRule where Vertex has none, and reads back as that rule.
TEST(VertexJobJsonTest, StoppingRulesInVertexShape) {
  const std::vector<std::pair<std::string, std::string>> rules = {
      {"", "earlyStoppingRule"},
      {"median-at-step", "earlyStoppingRule"},
      {"asha", "earlyStoppingRule"},
      {"median", "medianAutomatedStoppingSpec"},
      {"decay-curve", "decayCurveStoppingSpec"},
      {"convex", "convexAutomatedStoppingSpec"}};
  for (const auto& [rule, key] : rules) {
    SCOPED_TRACE(rule);
    JobSpec job = Parse(kSpec);
    job.study->early_stopping_rule = rule;
    const std::string text = VertexJobJson(job, Record(JobState::kRunning), {});
    EXPECT_TRUE(Json::parse(text)["studySpec"].contains(key)) << text;
    const JobSpec back = Parse(text);
    ASSERT_TRUE(back.study.has_value());
    EXPECT_TRUE(back.study->enable_early_stopping);
    EXPECT_EQ(back.study->EffectiveStoppingRule(),
              job.study->EffectiveStoppingRule());
  }
}

// The REST API's reply (docs/rest.md): a fixed job, named by its resource
// name, its trial with its measurements, as one expected document.
TEST(VertexJobJsonTest, RestReplyOfAFixedJob) {
  const JobSpec job = Parse(R"(
displayName: small
maxTrialCount: 4
parallelTrialCount: 2
studySpec:
  metrics: [{metricId: loss, goal: MINIMIZE}]
  parameters:
  - {parameterId: x, doubleValueSpec: {minValue: 0, maxValue: 1}}
  - {parameterId: k, integerValueSpec: {minValue: "1", maxValue: "3"}}
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: "1"
    containerSpec: {imageUri: "localhost/trainer:1"}
)");
  JobRecord record = Record(JobState::kRunning);
  record.end_time.reset();
  record.labels.clear();
  Trial trial = Succeeded();
  trial.parameters = {{"k", ParameterValue::Integer(2)},
                      {"x", ParameterValue::Double(0.5)}};
  trial.measurements = {Measurement{.step = 1, .metrics = {{"loss", 0.7}}},
                        Measurement{.step = 2, .metrics = {{"loss", 0.4}}}};
  trial.final_measurement = Measurement{.step = 2, .metrics = {{"loss", 0.4}}};
  const std::string name =
      "projects/p1/locations/us-central1/hyperparameterTuningJobs/hpt_1";
  const Json out = Json::parse(VertexJobJson(
      job, record, {trial}, {.name = name, .with_measurements = true}));
  EXPECT_EQ(out, Json::parse(R"({
    "name": "projects/p1/locations/us-central1/hyperparameterTuningJobs/hpt_1",
    "displayName": "small",
    "studySpec": {
      "metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
      "parameters": [
        {"parameterId": "x",
         "doubleValueSpec": {"minValue": 0.0, "maxValue": 1.0}},
        {"parameterId": "k",
         "integerValueSpec": {"minValue": "1", "maxValue": "3"}}],
      "algorithm": "ALGORITHM_UNSPECIFIED",
      "measurementSelectionType": "LAST_MEASUREMENT"},
    "maxTrialCount": 4,
    "parallelTrialCount": 2,
    "maxFailedTrialCount": 0,
    "trialJobSpec": {"workerPoolSpecs": [
      {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
       "containerSpec": {"imageUri": "localhost/trainer:1"}}]},
    "trials": [{
      "id": "1", "state": "SUCCEEDED",
      "parameters": [{"parameterId": "x", "value": 0.5},
                     {"parameterId": "k", "value": 2}],
      "finalMeasurement": {"stepCount": "2",
                           "metrics": [{"metricId": "loss", "value": 0.4}]},
      "measurements": [
        {"stepCount": "1", "metrics": [{"metricId": "loss", "value": 0.7}]},
        {"stepCount": "2", "metrics": [{"metricId": "loss", "value": 0.4}]}],
      "startTime": "2027-01-15T08:00:10.000000Z",
      "endTime": "2027-01-15T08:01:50.000000Z"}],
    "state": "JOB_STATE_RUNNING",
    "createTime": "2027-01-15T08:00:00.000000Z",
    "startTime": "2027-01-15T08:00:05.000000Z",
    "updateTime": "2027-01-15T08:01:50.000000Z"
  })"))
      << out.dump(2);
  // A list's jobs leave their trials out.
  EXPECT_FALSE(Json::parse(VertexJobJson(job, record, {trial},
                                         {.name = name, .with_trials = false}))
                   .contains("trials"));
}

}  // namespace
}  // namespace hptune
