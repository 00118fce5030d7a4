// The same study written as an AI Platform config and as a Vertex AI
// HyperparameterTuningJob gives the same trials for the same seed: both
// files through the real config parser, each study through a real engine
// on its own SQLite file, every trial's parameters compared.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "hptune/store/open_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using engine::TuningEngine;

constexpr char kAiPlatform[] = R"(trainingInput:
  command: [python3, train.py]
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: 14
    maxParallelTrials: 2
    seed: 1234
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 1, scaleType: UNIT_LOG_SCALE}
    - {parameterName: units, type: INTEGER, minValue: 8, maxValue: 256, scaleType: UNIT_LINEAR_SCALE}
    - {parameterName: batch, type: DISCRETE, discreteValues: [16, 32, 64]}
    - parameterName: optimizer
      type: CATEGORICAL
      categoricalValues: [sgd, adam]
      conditionalParameterSpecs:
      - parentCategoricalValues: {values: [sgd]}
        parameterSpec: {parameterName: momentum, type: DOUBLE, minValue: 0, maxValue: 0.9}
)";

constexpr char kVertex[] = R"(displayName: same study
maxTrialCount: 14
parallelTrialCount: 2
studySpec:
  metrics: [{metricId: loss, goal: MINIMIZE}]
  seed: 1234
  parameters:
  - {parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 1}, scaleType: UNIT_LOG_SCALE}
  - {parameterId: units, integerValueSpec: {minValue: '8', maxValue: '256'}, scaleType: UNIT_LINEAR_SCALE}
  - {parameterId: batch, discreteValueSpec: {values: [16, 32, 64]}}
  - parameterId: optimizer
    categoricalValueSpec: {values: [sgd, adam]}
    conditionalParameterSpecs:
    - parentCategoricalValues: {values: [sgd]}
      parameterSpec: {parameterId: momentum, doubleValueSpec: {minValue: 0, maxValue: 0.9}}
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    containerSpec: {imageUri: 'python:3.11-slim', command: [python3, train.py]}
)";

// Every trial of the study in `text` (the default GP designer), asked two
// at a time as parallelTrialCount says and completed with a loss made of
// its parameters, on a fresh database in `db`.
std::vector<ParameterAssignment> RunStudy(const char* text,
                                          const std::string& db) {
  ConfigParseResult parsed = ParseJobConfig(text);
  EXPECT_THAT(parsed.errors, ::testing::IsEmpty());
  if (!parsed.job || !parsed.job->study) return {};
  const StudySpec& spec = *parsed.job->study;
  auto store = store::OpenSqliteStore(db, hptune::SystemClock());
  EXPECT_OK(store);
  if (!store.ok()) return {};
  TuningEngine engine(**store, hptune::SystemClock());
  EXPECT_OK(engine.CreateStudy("s", spec));
  std::vector<ParameterAssignment> points;
  while (static_cast<int>(points.size()) < spec.max_trials) {
    auto response =
        engine.SuggestTrials("s", spec.max_parallel_trials, "client");
    EXPECT_OK(response);
    if (!response.ok() || response->trials.empty()) break;
    for (const Trial& t : response->trials) {
      points.push_back(t.parameters);
      const double loss =
          t.parameters.at("lr").AsDouble() +
          t.parameters.at("units").AsDouble() / 256 +
          (t.parameters.at("optimizer").AsString() == "sgd" ? 0.3 : 0);
      EXPECT_OK(engine.CompleteTrial(
          "s", t.number, Measurement{.step = 1, .metrics = {{"loss", loss}}}));
    }
  }
  return points;
}

// "batch=32;lr=0.01;..." : a trial's parameters, readable in a failure.
std::string Key(const ParameterAssignment& a) {
  std::string key;
  for (const auto& [name, value] : a) {
    key += name + "=" + value.ToString() + ";";
  }
  return key;
}

TEST(VertexStudyTest, AnAiPlatformAndAVertexSpecGiveTheSameTrials) {
  const std::filesystem::path dir = ::testing::TempDir() + "/vertex_study";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<ParameterAssignment> ai =
      RunStudy(kAiPlatform, (dir / "ai.db").string());
  const std::vector<ParameterAssignment> vertex =
      RunStudy(kVertex, (dir / "vertex.db").string());
  ASSERT_EQ(ai.size(), 14u);
  ASSERT_EQ(vertex.size(), ai.size());
  for (size_t i = 0; i < ai.size(); ++i) {
    EXPECT_EQ(Key(vertex[i]), Key(ai[i])) << "trial " << i + 1;
  }
}

}  // namespace
}  // namespace hptune
