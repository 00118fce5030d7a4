// Tests for reading a Vertex AI HyperparameterTuningJob: one case per row of
// docs/config.md's Vertex table (a valid use and, where there is a rule,
// an invalid one), how a file's dialect is recognised, that a Vertex study
// is the AI Platform one, all errors at once, and the canonical JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A valid spec; each `%NAME%` line is where a case adds its lines.
constexpr char kTemplate[] = R"(%DISPLAY%
maxTrialCount: 4
parallelTrialCount: 2
%ROOT%
studySpec:
  metrics:
  - {metricId: accuracy, goal: MAXIMIZE}
%METRICS%
  parameters:
  - parameterId: lr
    doubleValueSpec: {minValue: 0.01, maxValue: 1.0}
%PARAMS%
%STUDY%
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    containerSpec: {imageUri: 'python:3.11'}
%POOL0%
%POOLS%
%JOB%
)";

struct Place {
  std::string_view marker;
  std::string text;
};

std::string Spec(std::vector<Place> places) {
  std::string text = kTemplate;
  places.push_back({"DISPLAY", "displayName: vertex test"});
  for (const Place& place : places) {
    if (text.find("%" + std::string(place.marker) + "%") == std::string::npos) {
      continue;  // A case gave its own.
    }
    const std::string marker = "%" + std::string(place.marker) + "%";
    text.replace(text.find(marker), marker.size(), place.text);
  }
  std::string out;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    if (line.find('%') == std::string::npos) out += line + "\n";
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

ConfigParseResult Parse(std::string_view text) {
  ConfigParseResult result = ParseJobConfig(text);
  EXPECT_EQ(result.job.has_value(), result.errors.empty());
  return result;
}

std::vector<std::string> Lines(const ConfigParseResult& result) {
  std::vector<std::string> lines;
  for (const FieldError& error : result.errors) {
    lines.push_back(error.ToString());
  }
  return lines;
}

// One row of the table: a valid use (`check` sees its JobSpec and ignored
// fields) or an invalid one (`error`, the one error it gives).
struct Case {
  std::string name;
  std::vector<Place> places;
  std::string error;
  std::function<void(const ConfigParseResult&)> check;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class VertexFieldTest : public ::testing::TestWithParam<Case> {};

TEST_P(VertexFieldTest, MapsOntoTheJobOrNamesTheFieldAndValue) {
  const Case& c = GetParam();
  const std::string text = Spec(c.places);
  ConfigParseResult result = Parse(text);
  if (c.error.empty()) {
    ASSERT_THAT(Lines(result), IsEmpty()) << text;
    EXPECT_EQ(result.job->dialect, SpecDialect::kVertex);
    c.check(result);
  } else {
    EXPECT_THAT(Lines(result), ElementsAre(c.error)) << text;
  }
}

const StudySpec& Study(const ConfigParseResult& r) { return *r.job->study; }
const ParameterSpec& Param(const ConfigParseResult& r, int i) {
  return Study(r).search_space.parameters()[i];
}

std::vector<Case> StudyCases() {
  return {
      {"DisplayName",
       {},
       "",
       [](auto& r) { EXPECT_EQ(r.job->display_name, "vertex test"); }},
      {"DisplayNameTooLong",
       {{"DISPLAY", "displayName: '" + std::string(129, 'x') + "'"}},
       "displayName: must be 1 to 128 characters, got 129",
       nullptr},
      {"OneMetricIsGoalAndTag",
       {},
       "",
       [](auto& r) {
         EXPECT_EQ(Study(r).metric_tag(), "accuracy");
         EXPECT_EQ(Study(r).goal(), Goal::kMaximize);
         EXPECT_FALSE(Study(r).metrics_listed());
       }},
      {"MetricGoalMustBeAGoal",
       {{"METRICS", "  - {metricId: loss, goal: GOAL_TYPE_UNSPECIFIED}"}},
       "studySpec.metrics[1].goal: must be one of MAXIMIZE, MINIMIZE, got "
       "\"GOAL_TYPE_UNSPECIFIED\"",
       nullptr},
      {"SafetyConfig",
       {{"METRICS",
         "  - {metricId: latency, goal: MINIMIZE, safetyConfig: "
         "{safetyThreshold: 25, desiredMinSafeTrialsFraction: "
         "0.8}}"}},
       "",
       [](auto& r) {
         ASSERT_EQ(Study(r).AllMetrics().size(), 2u);
         EXPECT_EQ(Study(r).AllMetrics()[1].safety_threshold, 25);
         EXPECT_EQ(Study(r).AllMetrics()[1].desired_min_safe_trials_fraction,
                   0.8);
       }},
      {"SafetyConfigUnknownField",
       {{"METRICS",
         "  - {metricId: latency, goal: MINIMIZE, safetyConfig: "
         "{threshold: 25}}"}},
       "studySpec.metrics[1].safetyConfig.threshold: unknown field",
       nullptr},
      {"ParameterIdAndDoubleValueSpec",
       {},
       "",
       [](auto& r) {
         EXPECT_EQ(Param(r, 0).name, "lr");
         EXPECT_EQ(Param(r, 0).type, ParameterType::kDouble);
         EXPECT_EQ(Param(r, 0).max_value, 1.0);
       }},
      {"DoubleValueSpecNeedsMaxValue",
       {{"PARAMS", "  - {parameterId: wd, doubleValueSpec: {minValue: 0}}"}},
       "studySpec.parameters[1].doubleValueSpec.maxValue: required with type "
       "DOUBLE",
       nullptr},
      {"IntegerValueSpecTakesInt64Strings",
       {{"PARAMS",
         "  - {parameterId: units, integerValueSpec: {minValue: "
         "'8', maxValue: '64'}, scaleType: UNIT_LOG_SCALE}"}},
       "",
       [](auto& r) {
         EXPECT_EQ(Param(r, 1).type, ParameterType::kInteger);
         EXPECT_EQ(Param(r, 1).max_value, 64);
         EXPECT_EQ(Param(r, 1).scale, ScaleType::kLog);
       }},
      {"IntegerValueSpecNeedsIntegers",
       {{"PARAMS",
         "  - {parameterId: units, integerValueSpec: {minValue: "
         "1.5, maxValue: 4}}"}},
       "studySpec.parameters[1].integerValueSpec.minValue: must be an integer "
       "for type INTEGER, got 1.5",
       nullptr},
      {"DiscreteValueSpec",
       {{"PARAMS",
         "  - {parameterId: bs, discreteValueSpec: {values: [16, "
         "32]}}"}},
       "",
       [](auto& r) {
         EXPECT_THAT(Param(r, 1).discrete_values, ElementsAre(16, 32));
       }},
      {"DiscreteValuesIncrease",
       {{"PARAMS",
         "  - {parameterId: bs, discreteValueSpec: {values: [32, "
         "16]}}"}},
       "studySpec.parameters[1].discreteValueSpec.values[1]: must be greater "
       "than 32 (discreteValues must be strictly increasing), got 16",
       nullptr},
      {"CategoricalValueSpec",
       {{"PARAMS",
         "  - {parameterId: opt, categoricalValueSpec: {values: "
         "[sgd, adam]}}"}},
       "",
       [](auto& r) {
         EXPECT_THAT(Param(r, 1).categorical_values,
                     ElementsAre("sgd", "adam"));
       }},
      {"OneValueSpecPerParameter",
       {{"PARAMS",
         "  - {parameterId: opt, categoricalValueSpec: {values: "
         "[a]}, discreteValueSpec: {values: [1]}}"}},
       "studySpec.parameters[1].categoricalValueSpec: give one value spec, got "
       "discreteValueSpec too",
       nullptr},
      {"DefaultValueIsIgnored",
       {{"PARAMS",
         "  - {parameterId: m, doubleValueSpec: {minValue: 0, "
         "maxValue: 1, defaultValue: 0.5}}"}},
       "",
       [](auto& r) {
         EXPECT_THAT(r.ignored_fields,
                     ElementsAre("studySpec.parameters[1].doubleValueSpec."
                                 "defaultValue"));
       }},
      {"ScaleTypeUnspecifiedIsNone",
       {{"PARAMS",
         "  - {parameterId: m, doubleValueSpec: {minValue: 0, "
         "maxValue: 1}, scaleType: SCALE_TYPE_UNSPECIFIED}"}},
       "",
       [](auto& r) { EXPECT_EQ(Param(r, 1).scale, ScaleType::kNone); }},
      {"LogScaleNeedsPositiveBounds",
       {{"PARAMS",
         "  - {parameterId: m, doubleValueSpec: {minValue: 0, "
         "maxValue: 1}, scaleType: UNIT_LOG_SCALE}"}},
       "studySpec.parameters[1].scaleType: UNIT_LOG_SCALE needs minValue > 0, "
       "got 0",
       nullptr},
      {"ConditionalParameterSpecs",
       {{"PARAMS",
         "  - parameterId: opt\n"
         "    categoricalValueSpec: {values: [sgd, adam]}\n"
         "    conditionalParameterSpecs:\n"
         "    - parentCategoricalValues: {values: [sgd]}\n"
         "      parameterSpec: {parameterId: momentum, doubleValueSpec: "
         "{minValue: 0.1, maxValue: 0.9}}"}},
       "",
       [](auto& r) {
         ASSERT_EQ(Study(r).search_space.parameters().size(), 3u);
         EXPECT_TRUE(Param(r, 2).condition.has_value());
       }},
      {"ConditionalParentValuesInDomain",
       {{"PARAMS",
         "  - parameterId: opt\n"
         "    categoricalValueSpec: {values: [sgd, adam]}\n"
         "    conditionalParameterSpecs:\n"
         "    - parentCategoricalValues: {values: [rmsprop]}\n"
         "      parameterSpec: {parameterId: momentum, doubleValueSpec: "
         "{minValue: 0.1, maxValue: 0.9}}"}},
       "studySpec.parameters[1].conditionalParameterSpecs[0]."
       "parentCategoricalValues.values[0]: not one of the categoricalValues of "
       "the parent \"opt\", got \"rmsprop\"",
       nullptr},
      // Only parentIntValues' int64 strings are numbers: categories that
      // look like numbers stay strings.
      {"ConditionalCategoricalParentValuesThatLookLikeNumbers",
       {{"PARAMS",
         "  - parameterId: batch\n"
         "    categoricalValueSpec: {values: ['16', '32']}\n"
         "    conditionalParameterSpecs:\n"
         "    - parentCategoricalValues: {values: ['32']}\n"
         "      parameterSpec: {parameterId: accumulate, integerValueSpec: "
         "{minValue: '1', maxValue: '4'}}"}},
       "",
       [](auto& r) {
         ASSERT_EQ(Study(r).search_space.parameters().size(), 3u);
         ASSERT_TRUE(Param(r, 2).condition.has_value());
         EXPECT_THAT(Param(r, 2).condition->categorical_values,
                     ElementsAre("32"));
       }},
      {"ConditionalIntParentTakesInt64Strings",
       {{"PARAMS",
         "  - parameterId: layers\n"
         "    integerValueSpec: {minValue: '1', maxValue: '4'}\n"
         "    conditionalParameterSpecs:\n"
         "    - parentIntValues: {values: ['3', '4']}\n"
         "      parameterSpec: {parameterId: width, discreteValueSpec: "
         "{values: [32, 64]}}"}},
       "",
       [](auto& r) {
         ASSERT_EQ(Study(r).search_space.parameters().size(), 3u);
         ASSERT_TRUE(Param(r, 2).condition.has_value());
         EXPECT_THAT(Param(r, 2).condition->int_values, ElementsAre(3, 4));
       }},
  };
}

std::vector<Case> StudyOptionCases() {
  return {
      {"Algorithm",
       {{"STUDY", "  algorithm: RANDOM_SEARCH"}},
       "",
       [](auto& r) {
         EXPECT_EQ(Study(r).algorithm, Algorithm::kRandomSearch);
       }},
      {"AlgorithmUnknown",
       {{"STUDY", "  algorithm: BAYESIAN"}},
       "studySpec.algorithm: must be one of ALGORITHM_UNSPECIFIED, "
       "GRID_SEARCH, RANDOM_SEARCH, QUASI_RANDOM_SEARCH, MULTI_FIDELITY_GP, "
       "got \"BAYESIAN\"",
       nullptr},
      {"ObservationNoiseIsIgnored",
       {{"STUDY", "  observationNoise: HIGH"}},
       "",
       [](auto& r) {
         EXPECT_THAT(r.ignored_fields,
                     ElementsAre("studySpec.observationNoise"));
       }},
      {"ObservationNoiseUnknown",
       {{"STUDY", "  observationNoise: LOUD"}},
       "studySpec.observationNoise: must be one of "
       "OBSERVATION_NOISE_UNSPECIFIED, LOW, HIGH, got \"LOUD\"",
       nullptr},
      {"LastMeasurement",
       {{"STUDY", "  measurementSelectionType: LAST_MEASUREMENT"}},
       "",
       [](auto& r) { EXPECT_THAT(r.ignored_fields, IsEmpty()); }},
      {"BestMeasurement",
       {{"STUDY", "  measurementSelectionType: BEST_MEASUREMENT"}},
       "",
       [](auto& r) {
         EXPECT_EQ(Study(r).measurement_selection, MeasurementSelection::kBest);
       }},
      {"MeasurementSelectionUnknown",
       {{"STUDY", "  measurementSelectionType: MEAN_MEASUREMENT"}},
       "studySpec.measurementSelectionType: must be one of "
       "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED, LAST_MEASUREMENT, "
       "BEST_MEASUREMENT, got \"MEAN_MEASUREMENT\" (did you mean "
       "BEST_MEASUREMENT?)",
       nullptr},
      {"DecayCurveStopping",
       {{"STUDY", "  decayCurveStoppingSpec: {}"}},
       "",
       [](auto& r) {
         EXPECT_TRUE(Study(r).enable_early_stopping);
         EXPECT_EQ(Study(r).early_stopping_rule, "decay-curve");
       }},
      {"MedianStopping",
       {{"STUDY",
         "  medianAutomatedStoppingSpec: {useElapsedDuration: "
         "false}"}},
       "",
       [](auto& r) {
         EXPECT_TRUE(Study(r).enable_early_stopping);
         EXPECT_EQ(Study(r).early_stopping_rule, "median");
       }},
      {"ElapsedDurationIsRefused",
       {{"STUDY",
         "  medianAutomatedStoppingSpec: {useElapsedDuration: "
         "true}"}},
       "studySpec.medianAutomatedStoppingSpec.useElapsedDuration: true is "
       "not supported: hptune compares trials at the same step, got true",
       nullptr},
      {"ConvexStopping",
       {{"STUDY",
         "  convexAutomatedStoppingSpec: {maxStepCount: '100', "
         "minStepCount: '10', minMeasurementCount: '3', "
         "learningRateParameterName: lr}"}},
       "",
       [](auto& r) {
         EXPECT_TRUE(Study(r).enable_early_stopping);
         EXPECT_EQ(Study(r).early_stopping_rule, "convex");
         EXPECT_EQ(Study(r).stopping_settings,
                   (StoppingSettings{
                       .rule = "convex",
                       .values = {{"maxStepCount", int64_t{100}},
                                  {"minStepCount", int64_t{10}},
                                  {"minMeasurementCount", int64_t{3}}}}));
         EXPECT_THAT(r.ignored_fields,
                     ElementsAre("studySpec.convexAutomatedStoppingSpec."
                                 "learningRateParameterName"));
       }},
      {"HptunesStoppingSettings",
       {{"STUDY",
         "  medianAutomatedStoppingSpec: {}\n"
         "  earlyStoppingSettings: {warmupSteps: 8}"}},
       "",
       [](auto& r) {
         EXPECT_EQ(Study(r).early_stopping_rule, "median");
         EXPECT_EQ(Study(r).stopping_settings,
                   (StoppingSettings{.values = {{"warmupSteps", int64_t{8}}}}));
       }},
      {"StoppingSettingsWithoutEarlyStoppingAreRefused",
       {{"STUDY", "  earlyStoppingSettings: {warmupSteps: 8}"}},
       "studySpec.earlyStoppingSettings: settings of the median-at-step rule, "
       "but the study's rule is \"median-at-step\" and early stopping is off",
       nullptr},
      {"HptunesStoppingRule",
       {{"STUDY", "  earlyStoppingRule: asha"}},
       "",
       [](auto& r) {
         EXPECT_TRUE(Study(r).enable_early_stopping);
         EXPECT_EQ(Study(r).early_stopping_rule, "asha");
       }},
      {"StoppingRuleBesideASpecIsRefused",
       {{"STUDY",
         "  earlyStoppingRule: asha\n"
         "  convexAutomatedStoppingSpec: {}"}},
       "studySpec.earlyStoppingRule: give an automated stopping spec or "
       "hptune's earlyStoppingRule, not both",
       nullptr},
      {"StoppingRuleWithASpaceIsRefused",
       {{"STUDY", "  earlyStoppingRule: 'my rule'"}},
       "studySpec.earlyStoppingRule: expected a rule's name (1 to 100 "
       "characters, no spaces), such as decay-curve, got \"my rule\"",
       nullptr},
      {"OneStoppingSpec",
       {{"STUDY",
         "  decayCurveStoppingSpec: {}\n"
         "  medianAutomatedStoppingSpec: {}"}},
       "studySpec.medianAutomatedStoppingSpec: give one automated stopping "
       "spec, got a second",
       nullptr},
      {"StudyStoppingConfigIsRefused",
       {{"STUDY", "  studyStoppingConfig: {maxNumTrials: 5}"}},
       "studySpec.studyStoppingConfig: not supported: hptune ends a study at "
       "maxTrialCount; leave it out",
       nullptr},
      {"Seed",
       {{"STUDY", "  seed: 7"}},
       "",
       [](auto& r) { EXPECT_EQ(Study(r).seed, 7u); }},
      {"MaxTrialCountAndParallelTrialCount",
       {},
       "",
       [](auto& r) {
         EXPECT_EQ(Study(r).max_trials, 4);
         EXPECT_EQ(Study(r).max_parallel_trials, 2);
       }},
      {"MaxFailedTrialCount",
       {{"ROOT", "maxFailedTrialCount: 3"}},
       "",
       [](auto& r) { EXPECT_EQ(Study(r).max_failed_trials, 3); }},
      {"MaxFailedTrialCountNonNegative",
       {{"ROOT", "maxFailedTrialCount: -1"}},
       "maxFailedTrialCount: must be at least 0, got -1",
       nullptr},
  };
}

std::vector<Case> JobCases() {
  const std::string pytorch =
      "  - machineSpec: {machineType: n1-standard-8, acceleratorType: "
      "NVIDIA_TESLA_T4, acceleratorCount: 2}\n"
      "    replicaCount: '3'\n"
      "    containerSpec: {imageUri: 'pytorch:2', command: [torchrun], args: "
      "[train.py], env: [{name: NCCL_DEBUG, value: INFO}]}";
  return {
      {"WorkerPoolsAreChiefWorkersPsEvaluators",
       {{"POOLS", pytorch +
                      "\n  - {}\n  - machineSpec: {machineType: "
                      "n1-standard-4}\n    pythonPackageSpec: "
                      "{executorImageUri: 'python:3.11', pythonModule: "
                      "ev.main, packageUris: [/p/ev.tar.gz], args: [-v]}"}},
       "",
       [](auto& r) {
         const JobSpec& job = *r.job;
         EXPECT_EQ(job.scale_tier, ScaleTier::kCustom);
         EXPECT_EQ(job.master.machine_type, "n1-standard-4");
         EXPECT_EQ(job.worker.count, 3);
         EXPECT_EQ(job.worker.accelerator,
                   (AcceleratorConfig{2, "NVIDIA_TESLA_T4"}));
         EXPECT_EQ(job.worker.container.command,
                   std::vector<std::string>{"torchrun"});
         EXPECT_EQ(job.worker.env,
                   (std::vector<EnvVar>{{"NCCL_DEBUG", "INFO"}}));
         EXPECT_EQ(job.parameter_server.count, 0);
         EXPECT_EQ(job.evaluator.count, 1);
         EXPECT_EQ(job.evaluator.container.python_module, "ev.main");
         EXPECT_EQ(job.evaluator.container.args,
                   std::vector<std::string>{"-v"});
       }},
      {"AtMostFourPools",
       {{"POOLS", "  - {}\n  - {}\n  - {}\n  - {}"}},
       "trialJobSpec.workerPoolSpecs: must have 1 to 4 pools (chief, "
       "workers, parameter servers, evaluators), got 5",
       nullptr},
      {"ChiefReplicaCountIsOne",
       {{"POOL0", "    replicaCount: '2'"}},
       "trialJobSpec.workerPoolSpecs[0].replicaCount: must be 1: workerpool 0 "
       "is the chief, got \"2\"",
       nullptr},
      {"ChiefReplicaCountZeroIsRefused",
       {{"POOL0", "    replicaCount: 0"}},
       "trialJobSpec.workerPoolSpecs[0].replicaCount: must be 1: workerpool 0 "
       "is the chief, got 0",
       nullptr},
      {"ContainerSpecNeedsItsImage",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    containerSpec: {command: [train]}"}},
       "trialJobSpec.workerPoolSpecs[1].containerSpec.imageUri: required",
       nullptr},
      {"PackageSpecNeedsItsExecutorImage",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    pythonPackageSpec: {pythonModule: m, packageUris: [/p.tar.gz]}"}},
       "trialJobSpec.workerPoolSpecs[1].pythonPackageSpec.executorImageUri: "
       "required",
       nullptr},
      {"MachineTypeMustBeKnown",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standrd-8}\n"
         "    containerSpec: {imageUri: w}"}},
       "trialJobSpec.workerPoolSpecs[1].machineSpec.machineType: unknown "
       "machine type \"n1-standrd-8\" (did you mean n1-standard-8?)",
       nullptr},
      {"AcceleratorCountFollowsTheMachine",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4, "
         "acceleratorType: NVIDIA_TESLA_T4, acceleratorCount: 3}\n"
         "    containerSpec: {imageUri: w}"}},
       "trialJobSpec.workerPoolSpecs[1].machineSpec.acceleratorCount: "
       "machine type n1-standard-4 takes 1, 2 or 4 NVIDIA_TESLA_T4, got 3",
       nullptr},
      {"TpusAreRefused",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4, "
         "tpuTopology: 2x2}\n    containerSpec: {imageUri: w}"}},
       "trialJobSpec.workerPoolSpecs[1].machineSpec.tpuTopology: not "
       "supported: hptune runs no TPUs",
       nullptr},
      {"DiskSpecIsIgnored",
       {{"POOL0",
         "    diskSpec: {bootDiskType: pd-ssd, bootDiskSizeGb: "
         "100}"}},
       "",
       [](auto& r) {
         EXPECT_THAT(r.ignored_fields,
                     ElementsAre("trialJobSpec.workerPoolSpecs[0].diskSpec"));
       }},
      {"NfsMountsAreRefused",
       {{"POOL0", "    nfsMounts: [{server: s, path: /p, mountPoint: m}]"}},
       "trialJobSpec.workerPoolSpecs[0].nfsMounts: not supported: mount the "
       "share on the machines and pass its path",
       nullptr},
      {"ContainerImageFollowsTheGrammar",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    containerSpec: {imageUri: 'Bad Image'}"}},
       "trialJobSpec.workerPoolSpecs[1].containerSpec.imageUri: must be an "
       "image reference such as us-docker.pkg.dev/project/repo/image:tag, "
       "got \"Bad Image\": path component \"Bad Image\" must be lowercase "
       "letters and digits joined by '.', '_', \"__\" or dashes",
       nullptr},
      {"EnvNamesAreChecked",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    containerSpec: {imageUri: w, env: [{name: AIP_X, "
         "value: y}]}"}},
       "trialJobSpec.workerPoolSpecs[1].containerSpec.env[0].name: is set by "
       "hptune in every replica (TF_CONFIG, CLUSTER_SPEC, AIP_*, CLOUD_ML_*, "
       "...), got \"AIP_X\"",
       nullptr},
      {"PythonPackageSpecNeedsItsModule",
       {{"POOLS",
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    pythonPackageSpec: {executorImageUri: w}"}},
       "trialJobSpec.workerPoolSpecs[1].pythonPackageSpec.pythonModule: "
       "required",
       nullptr},
      {"OneContainerSpecPerPool",
       {{"POOLS", "  - machineSpec: {machineType: n1-standard-4}"}},
       "trialJobSpec.workerPoolSpecs[1].containerSpec: required: give "
       "containerSpec or pythonPackageSpec",
       nullptr},
  };
}

std::vector<Case> JobSpecCases() {
  return {
      {"BaseOutputDirectory",
       {{"JOB", "  baseOutputDirectory: {outputUriPrefix: /srv/out}"}},
       "",
       [](auto& r) { EXPECT_EQ(r.job->base_output_directory, "/srv/out"); }},
      {"BaseOutputDirectoryIsLocalOrABucket",
       {{"JOB", "  baseOutputDirectory: {outputUriPrefix: gs://b/o}"}},
       "trialJobSpec.baseOutputDirectory.outputUriPrefix: a bucket name must "
       "be 3 to 63 characters, got \"gs://b/o\"",
       nullptr},
      {"BaseOutputDirectoryInABucket",
       {{"JOB", "  baseOutputDirectory: {outputUriPrefix: gs://bkt/o}"}},
       "",
       [](auto& r) { EXPECT_EQ(r.job->base_output_directory, "gs://bkt/o"); }},
      {"SchedulingTimeoutAndMaxWaitDuration",
       {{"JOB",
         "  scheduling: {timeout: 3600s, maxWaitDuration: 60s, "
         "restartJobOnWorkerRestart: false}"}},
       "",
       [](auto& r) {
         EXPECT_EQ(r.job->scheduling.max_running_time, std::chrono::hours(1));
         EXPECT_EQ(r.job->scheduling.max_wait_time, std::chrono::minutes(1));
         EXPECT_THAT(r.ignored_fields,
                     ElementsAre("trialJobSpec.scheduling."
                                 "restartJobOnWorkerRestart"));
       }},
      {"SchedulingTimeoutIsADuration",
       {{"JOB", "  scheduling: {timeout: 1h}"}},
       "trialJobSpec.scheduling.timeout: must be a duration in seconds ending "
       "in s, as AI Platform writes it (e.g. \"7200s\" or \"1.5s\"), got "
       "\"1h\"",
       nullptr},
      {"GoogleCloudFieldsAreIgnored",
       {{"JOB",
         "  serviceAccount: sa@p.iam.gserviceaccount.com\n"
         "  network: projects/1/global/networks/n\n"
         "  enableWebAccess: true"},
        {"ROOT", "encryptionSpec: {kmsKeyName: k}"}},
       "",
       [](auto& r) {
         EXPECT_THAT(
             r.ignored_fields,
             ElementsAre("encryptionSpec", "trialJobSpec.serviceAccount",
                         "trialJobSpec.network",
                         "trialJobSpec.enableWebAccess"));
       }},
      {"UnknownFieldsAreErrors",
       {{"JOB", "  serviceAcount: sa"}},
       "trialJobSpec.serviceAcount: unknown field (did you mean "
       "serviceAccount?)",
       nullptr},
      {"Labels",
       {{"ROOT", "labels: {team: vision}"}},
       "",
       [](auto& r) { EXPECT_EQ(r.job->labels.at("team"), "vision"); }},
      {"LabelsFollowTheRules",
       {{"ROOT", "labels: {Team: vision}"}},
       "labels.Team: key \"Team\" must be 1 to 63 characters, a lowercase "
       "letter followed by lowercase letters, digits, '_' and '-'",
       nullptr},
  };
}

std::vector<Case> AllCases() {
  std::vector<Case> all;
  for (auto* cases :
       {&StudyCases, &StudyOptionCases, &JobCases, &JobSpecCases}) {
    for (Case& c : (*cases)()) all.push_back(std::move(c));
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Table, VertexFieldTest,
                         ::testing::ValuesIn(AllCases()),
                         [](const auto& info) { return info.param.name; });

TEST(VertexConfigTest, TheDialectIsRecognisedByItsTopLevelKeys) {
  EXPECT_EQ(Parse(Spec({})).job->dialect, SpecDialect::kVertex);
  // trainingInput beside studySpec is AI Platform's, where studySpec is an
  // unknown field.
  EXPECT_THAT(Lines(Parse("trainingInput: {}\nstudySpec: {}\n")),
              ElementsAre("studySpec: unknown field"));
  EXPECT_THAT(Lines(Parse("trialJobSpec: {workerPoolSpecs: [{}]}\n")),
              ElementsAre("trialJobSpec.workerPoolSpecs[0]: the chief's pool "
                          "(workerpool 0) must not be empty",
                          "studySpec: required"));
}

TEST(VertexConfigTest, AVertexStudyIsTheAiPlatformStudy) {
  const JobSpec vertex = *Parse(Spec({})).job;
  const JobSpec ai = *Parse(R"(trainingInput:
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: accuracy
    maxTrials: 4
    maxParallelTrials: 2
    params:
    - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: 1.0}
)")
                          .job;
  EXPECT_EQ(*vertex.study, *ai.study);
}

TEST(VertexConfigTest, EveryErrorIsReportedAtOnceInFileOrder) {
  EXPECT_THAT(
      Lines(Parse(R"(displayName: ''
studySpec:
  metrics: [{metricId: a}]
  parameters:
  - {parameterId: x}
  - {parameterId: y, integerValueSpec: {minValue: 5, maxValue: 1}}
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: 2
    containerSpec: {imageUri: 'a:'}
  serviceAcount: x
)")),
      ElementsAre(
          "displayName: must be 1 to 128 characters, got 0",
          "studySpec.metrics[0].goal: required",
          "studySpec.parameters[0]: needs one of doubleValueSpec, "
          "integerValueSpec, discreteValueSpec or categoricalValueSpec",
          "studySpec.parameters[1].integerValueSpec.minValue: must be less "
          "than maxValue 1, got 5",
          "trialJobSpec.workerPoolSpecs[0].replicaCount: must be 1: "
          "workerpool 0 is the chief, got 2",
          "trialJobSpec.workerPoolSpecs[0].containerSpec.imageUri: must be an "
          "image reference such as us-docker.pkg.dev/project/repo/image:tag, "
          "got \"a:\": tag \"\" must be 1 to 128 letters, digits, '_', '.' "
          "and '-', not starting with '.' or '-'",
          "trialJobSpec.serviceAcount: unknown field (did you mean "
          "serviceAccount?)"));
}

TEST(VertexConfigTest, TheCanonicalJsonKeepsTheDialectAndEveryField) {
  const JobSpec job =
      *Parse(Spec({{"POOLS",
                    "  - machineSpec: {machineType: n1-standard-4}\n"
                    "    pythonPackageSpec: {executorImageUri: 'python:3', "
                    "pythonModule: m, packageUris: [/p.tar.gz], env: "
                    "[{name: A, value: b}]}"},
                   {"JOB", "  baseOutputDirectory: {outputUriPrefix: /o}"}}))
           .job;
  ConfigParseResult again =
      ParseJobConfig(TrainingInputToJson(job), ConfigFormat::kJson);
  ASSERT_THAT(Lines(again), IsEmpty());
  EXPECT_EQ(*again.job, job);
  EXPECT_EQ(again.job->dialect, SpecDialect::kVertex);
}

TEST(VertexConfigTest, TheNoteNamesTheIgnoredFields) {
  EXPECT_EQ(IgnoredFieldsNote({}), "");
  EXPECT_EQ(IgnoredFieldsNote({"a.b", "c"}),
            "note: accepted and ignored here: a.b, c");
}

}  // namespace
}  // namespace hptune
