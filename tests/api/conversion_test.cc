#include "src/api/conversion.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "hptune/core/config.h"
#include "tests/testing/status_matchers.h"

namespace hptune::api {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kConfig[] = R"({"trainingInput": {
  "scaleTier": "CUSTOM",
  "masterType": "n1-highcpu-16",
  "masterConfig": {"acceleratorConfig": {"count": 4, "type": "NVIDIA_TESLA_T4"}},
  "workerCount": 2,
  "workerType": "n1-highcpu-16",
  "parameterServerCount": "1",
  "parameterServerType": "n1-highmem-8",
  "command": ["python3", "train.py"],
  "args": ["--epochs=3"],
  "jobDir": "/data/jobs/x",
  "scheduling": {"maxRunningTime": "7200.5s", "maxWaitTime": "1800s"},
  "hyperparameters": {
    "goal": "MINIMIZE",
    "hyperparameterMetricTag": "loss",
    "maxTrials": 12,
    "maxParallelTrials": 3,
    "maxFailedTrials": 2,
    "enableTrialEarlyStopping": true,
    "algorithm": "GRID_SEARCH",
    "seed": 1152921504606846977,
    "params": [
      {"parameterName": "hidden", "type": "INTEGER", "minValue": 40,
       "maxValue": 400, "scaleType": "UNIT_LOG_SCALE"},
      {"parameterName": "layers", "type": "DISCRETE",
       "discreteValues": [1, 2, 4]},
      {"parameterName": "cell", "type": "CATEGORICAL",
       "categoricalValues": ["GRU", "LSTM"]}]}}})";

JobSpec ParsedConfig() {
  ConfigParseResult parsed = ParseJobConfig(kConfig, ConfigFormat::kJson, "j1");
  EXPECT_TRUE(parsed.errors.empty())
      << FieldErrorsToStatus(parsed.errors).message();
  return *parsed.job;
}

TEST(StudySpecConversionTest, RoundTripsEveryField) {
  const StudySpec spec = *ParsedConfig().study;
  ASSERT_EQ(spec.seed, 1152921504606846977u);  // Above 2^53.
  absl::StatusOr<StudySpec> back =
      StudySpecFromProto(StudySpecToProto(spec), "spec");
  ASSERT_OK(back);
  EXPECT_EQ(*back, spec);
}

TEST(StudySpecConversionTest, TheGpsSeedingTheLeaseAndSelectionRoundTrip) {
  StudySpec spec = *ParsedConfig().study;
  spec.algorithm = Algorithm::kUnspecified;
  spec.seeding_trials = 7;
  spec.trial_lease_seconds = 30;
  spec.measurement_selection = MeasurementSelection::kBest;
  const v1::StudySpec proto = StudySpecToProto(spec);
  EXPECT_EQ(proto.seeding_trials(), 7);
  EXPECT_EQ(proto.measurement_selection_type(),
            v1::StudySpec::BEST_MEASUREMENT);
  absl::StatusOr<StudySpec> back = StudySpecFromProto(proto, "spec");
  ASSERT_OK(back);
  EXPECT_EQ(*back, spec);
}

// Another rule's settings travel as a Struct and come back as written.
TEST(StudySpecConversionTest, TheRulesSettingsRoundTrip) {
  StudySpec spec = *ParsedConfig().study;
  spec.enable_early_stopping = true;
  spec.early_stopping_rule = "median-at-step";
  spec.stopping_settings = {.values = {{"warmupSteps", int64_t{100}},
                                       {"fraction", 0.5},
                                       {"strict", true},
                                       {"name", std::string("slow")}}};
  const v1::StudySpec proto = StudySpecToProto(spec);
  EXPECT_EQ(proto.early_stopping_settings().fields().size(), 4u);
  EXPECT_FALSE(proto.has_convex_stopping());
  absl::StatusOr<StudySpec> back = StudySpecFromProto(proto, "spec");
  ASSERT_OK(back);
  EXPECT_EQ(back->stopping_settings.Find("warmupSteps") != nullptr, true);
  EXPECT_EQ(*back->stopping_settings.Find("warmupSteps"),
            StoppingSettingValue(int64_t{100}));
  EXPECT_EQ(*back->stopping_settings.Find("fraction"),
            StoppingSettingValue(0.5));
  EXPECT_EQ(*back->stopping_settings.Find("strict"),
            StoppingSettingValue(true));
  EXPECT_EQ(*back->stopping_settings.Find("name"),
            StoppingSettingValue(std::string("slow")));
  // A convex block the convex message cannot carry travels whole, for the
  // rule to refuse.
  spec.early_stopping_rule = "convex";
  spec.stopping_settings = {.rule = "convex",
                            .values = {{"maxSteps", int64_t{9}}}};
  const v1::StudySpec misspelt = StudySpecToProto(spec);
  EXPECT_FALSE(misspelt.has_convex_stopping());
  EXPECT_EQ(misspelt.early_stopping_settings().fields().size(), 1u);
}

TEST(StudySpecConversionTest, TheConvexRulesSettingsRoundTrip) {
  StudySpec spec = *ParsedConfig().study;
  spec.early_stopping_rule = "convex";
  spec.stopping_settings = {
      .rule = "convex",
      .values = {{"maxStepCount", int64_t{1'000'000'000'000}},
                 {"minMeasurementCount", int64_t{4}}}};
  const v1::StudySpec proto = StudySpecToProto(spec);
  EXPECT_EQ(proto.convex_stopping().max_step_count(), 1'000'000'000'000);
  EXPECT_FALSE(proto.convex_stopping().has_min_step_count());
  absl::StatusOr<StudySpec> back = StudySpecFromProto(proto, "spec");
  ASSERT_OK(back);
  EXPECT_EQ(*back, spec);
}

TEST(StudySpecConversionTest, ConditionalParametersRoundTripNested) {
  // Every kind of parent condition, nested to depth 2.
  constexpr char kTree[] = R"({"trainingInput": {"command": ["t"],
    "hyperparameters": {"goal": "MINIMIZE", "hyperparameterMetricTag": "l",
    "params": [
      {"parameterName": "opt", "type": "CATEGORICAL",
       "categoricalValues": ["sgd", "adam"],
       "conditionalParameterSpecs": [
        {"parentCategoricalValues": {"values": ["adam"]},
         "parameterSpec": {"parameterName": "layers", "type": "INTEGER",
          "minValue": 1, "maxValue": 4,
          "conditionalParameterSpecs": [
           {"parentIntValues": {"values": ["3", "4"]},
            "parameterSpec": {"parameterName": "batch", "type": "DISCRETE",
             "discreteValues": [16, 32],
             "conditionalParameterSpecs": [
              {"parentDiscreteValues": {"values": [32]},
               "parameterSpec": {"parameterName": "lr", "type": "DOUBLE",
                "minValue": 0.001, "maxValue": 0.1,
                "scaleType": "UNIT_LOG_SCALE"}}]}}]}}]}]}}})";
  ConfigParseResult parsed = ParseJobConfig(kTree, ConfigFormat::kJson, "");
  ASSERT_TRUE(parsed.errors.empty())
      << FieldErrorsToStatus(parsed.errors).message();
  const StudySpec spec = *parsed.job->study;
  ASSERT_EQ(spec.search_space.parameters().size(), 4u);
  const v1::StudySpec proto = StudySpecToProto(spec);
  ASSERT_EQ(proto.params_size(), 1);
  const v1::ConditionalParameterSpec& layers =
      proto.params(0).conditional_parameter_specs(0);
  EXPECT_EQ(layers.parent_categorical_values().values(0), "adam");
  EXPECT_EQ(layers.parameter_spec()
                .conditional_parameter_specs(0)
                .parent_int_values()
                .values(1),
            4);
  absl::StatusOr<StudySpec> back = StudySpecFromProto(proto, "spec");
  ASSERT_OK(back);
  EXPECT_EQ(*back, spec);
}

TEST(StudySpecConversionTest, ConditionalErrorsNameTheRequestField) {
  v1::StudySpec proto = StudySpecToProto(*ParsedConfig().study);
  v1::ConditionalParameterSpec* child =
      proto.mutable_params(2)->add_conditional_parameter_specs();
  child->mutable_parent_categorical_values()->add_values("RNN");
  child->mutable_parameter_spec()->set_parameter_name("units");
  child->mutable_parameter_spec()->set_type(v1::ParameterSpec::INTEGER);
  child->mutable_parameter_spec()->set_min_value(1);
  child->mutable_parameter_spec()->set_max_value(8);
  EXPECT_THAT(
      StudySpecFromProto(proto, "study.spec"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("study.spec.params[2].conditionalParameterSpecs[0]."
                         "parentCategoricalValues.values[0]: not one of the "
                         "categoricalValues of the parent \"cell\", got "
                         "\"RNN\"")));
}

TEST(StudySpecConversionTest, ErrorsNameTheRequestField) {
  v1::StudySpec proto;
  v1::ParameterSpec* p = proto.add_params();
  p->set_parameter_name("lr");
  p->set_type(v1::ParameterSpec::DOUBLE);
  p->set_min_value(0);
  p->set_max_value(1);
  p->set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  proto.set_max_trials(0);
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto, "spec");
  EXPECT_THAT(spec, StatusHasCode(absl::StatusCode::kInvalidArgument));
  const std::string message(spec.status().message());
  EXPECT_NE(message.find("spec.maxTrials"), std::string::npos) << message;
  EXPECT_NE(message.find("spec.params[0]"), std::string::npos) << message;
  EXPECT_EQ(message.find("trainingInput"), std::string::npos) << message;
}

TEST(StudySpecConversionTest, WhatOnlyAMessageCanGetWrongIsToldAsInAFile) {
  v1::StudySpec proto = StudySpecToProto(*ParsedConfig().study);
  proto.set_goal(v1::StudySpec::GOAL_TYPE_UNSPECIFIED);
  proto.set_algorithm(static_cast<v1::StudySpec::Algorithm>(9));
  proto.mutable_params(0)->clear_max_value();
  proto.mutable_params(2)->set_min_value(0.5);
  proto.add_params();
  const absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto, "spec");
  EXPECT_THAT(
      spec,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "spec.algorithm: must be a string, got 9 (quote it: \"9\")\n"
               "spec.goal: must be one of MAXIMIZE, MINIMIZE, got "
               "\"GOAL_TYPE_UNSPECIFIED\"\n"
               "spec.params[0].maxValue: required with type INTEGER\n"
               "spec.params[2].minValue: not allowed with type CATEGORICAL, "
               "got 0.5\n"
               "spec.params[3].parameterName: required\n"
               "spec.params[3].type: required"));
}

TEST(StudySpecConversionTest, RulesNameTheRequestFieldInTheirMessages) {
  v1::StudySpec proto = StudySpecToProto(*ParsedConfig().study);
  for (int i = 0; i < 2; ++i) {
    v1::MetricSpec* metric = proto.add_metrics();
    metric->set_metric_id("loss");
    metric->set_goal(v1::StudySpec::MINIMIZE);
  }
  proto.clear_goal();
  proto.clear_hyperparameter_metric_tag();
  EXPECT_THAT(StudySpecFromProto(proto, "spec"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.metrics[1].metricId: duplicate metric "
                                 "\"loss\" (also spec.metrics[0])")));
}

TEST(StudySpecConversionTest, UnsetFieldsTakeTheDocumentedDefaults) {
  v1::StudySpec proto;
  v1::ParameterSpec* p = proto.add_params();
  p->set_parameter_name("x");
  p->set_type(v1::ParameterSpec::DOUBLE);
  p->set_min_value(0);
  p->set_max_value(1);
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto, "spec");
  ASSERT_OK(spec);
  EXPECT_EQ(spec->goal(), Goal::kMaximize);
  EXPECT_EQ(spec->metric_tag(), kDefaultMetricTag);
  EXPECT_EQ(spec->max_trials, 1);
  EXPECT_FALSE(spec->seed.has_value());
}

TEST(TrainingInputConversionTest, GivesWhatTheConfigParserGives) {
  // What the CLI does: the trainingInput object of a config, as JSON, read
  // into the message.
  const std::string json = std::string(kConfig).substr(
      std::string(kConfig).find(':') + 1,
      std::string(kConfig).rfind('}') - std::string(kConfig).find(':') - 1);
  v1::TrainingInput proto;
  auto status = google::protobuf::util::JsonStringToMessage(json, &proto);
  ASSERT_TRUE(status.ok()) << status.ToString();
  absl::StatusOr<JobSpec> job = JobSpecFromProto(proto, "j1");
  ASSERT_OK(job);
  EXPECT_EQ(*job, ParsedConfig());
}

TEST(TrainingInputConversionTest, AJobsMessageReadsBackToTheSameJob) {
  const JobSpec job = ParsedConfig();
  const v1::TrainingInput proto = JobSpecToProto(job);
  EXPECT_EQ(proto.worker_count(), 2);
  absl::StatusOr<JobSpec> back = JobSpecFromProto(proto, "j1");
  ASSERT_OK(back);
  EXPECT_EQ(*back, job);
}

TEST(TrainingInputConversionTest, ContainersAndVertexFieldsTravelBothWays) {
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  masterConfig:\n"
      "    imageUri: 'python:3.11'\n"
      "    containerCommand: [python3, /app/t.py]\n"
      "    containerArgs: [--x]\n"
      "    env: [{name: A, value: b}, {name: EMPTY, value: ''}]\n"
      "  workerCount: 1\n"
      "  workerType: n1-standard-4\n"
      "  workerConfig: {imageUri: 'w:1', pythonModule: m, packageUris: "
      "[/p.tar.gz]}\n"
      "  displayName: shown\n"
      "  baseOutputDirectory: /out\n"
      "  dialect: VERTEX\n");
  ASSERT_TRUE(parsed.job.has_value());
  const JobSpec& job = *parsed.job;
  v1::TrainingInput proto = JobSpecToProto(job);
  EXPECT_EQ(proto.master_config().image_uri(), "python:3.11");
  EXPECT_EQ(proto.master_config().env(1).name(), "EMPTY");
  EXPECT_EQ(proto.worker_config().python_module(), "m");
  EXPECT_EQ(proto.display_name(), "shown");
  EXPECT_EQ(proto.dialect(), v1::TrainingInput::VERTEX);
  ASSERT_OK_AND_ASSIGN(JobSpec back, JobSpecFromProto(proto, ""));
  EXPECT_EQ(back, job);
  // A request's bad value meets the config file's rule and message.
  proto.mutable_master_config()->mutable_env(0)->set_name("AIP_MODEL_DIR");
  EXPECT_THAT(JobSpecFromProto(proto, ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("trainingInput.masterConfig.env[0].name: is "
                                 "set by hptune in every replica")));
}

TEST(VertexJobConversionTest, ReadsAVertexSpecAndNamesTheRequestField) {
  constexpr char kVertex[] = R"({"displayName": "d",
    "studySpec": {"metrics": [{"metricId": "acc", "goal": "MAXIMIZE"}],
      "parameters": [{"parameterId": "lr",
        "doubleValueSpec": {"minValue": 0.1, "maxValue": 1}}]},
    "maxTrialCount": 2, "parallelTrialCount": 1,
    "trialJobSpec": {"workerPoolSpecs": [{
      "machineSpec": {"machineType": "n1-standard-4"},
      "containerSpec": {"imageUri": "python:3.11"}}]}})";
  ASSERT_OK_AND_ASSIGN(JobSpec job, JobSpecFromVertexJob(kVertex, "j1"));
  EXPECT_EQ(job.dialect, SpecDialect::kVertex);
  EXPECT_EQ(job.master.container.image_uri, "python:3.11");
  EXPECT_THAT(
      JobSpecFromVertexJob("studySpec: {}\ntrialJobSpec: []\n", "j1"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("vertex_job.trialJobSpec: must be a mapping")));
  EXPECT_THAT(JobSpecFromVertexJob("trainingInput: {command: [x]}\n", "j1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("vertex_job: must be a "
                                 "HyperparameterTuningJob")));
  EXPECT_THAT(JobSpecFromVertexJob(std::string((4 << 20) + 1, ' '), "j1"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("vertex_job: must be at most 4 MiB")));
}

TEST(TrainingInputConversionTest, SchedulingLimitsAreTheConfigParsers) {
  EXPECT_EQ(ParsedConfig().scheduling.max_running_time,
            std::chrono::milliseconds(7'200'500));
  v1::TrainingInput proto;
  proto.add_command("python3");
  proto.mutable_scheduling()->mutable_max_wait_time()->set_nanos(500'000'000);
  proto.mutable_scheduling()->set_priority(7);
  absl::StatusOr<JobSpec> job = JobSpecFromProto(proto, "j1");
  EXPECT_THAT(
      job,
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("trainingInput.scheduling.maxWaitTime: must be "
                               "at least 1s, got \"0.500s\""),
                     HasSubstr("trainingInput.scheduling.priority: is not "
                               "supported"))));
  // Beyond google.protobuf.Duration's range protobuf cannot write it.
  proto.mutable_scheduling()->clear_priority();
  proto.mutable_scheduling()->mutable_max_wait_time()->set_seconds(
      400'000'000'000);
  job = JobSpecFromProto(proto, "j1");
  EXPECT_THAT(job, StatusIs(absl::StatusCode::kInvalidArgument,
                            HasSubstr("trainingInput")));
}

TEST(TrainingInputConversionTest, ErrorsComeFromTheConfigParser) {
  v1::TrainingInput proto;
  proto.set_scale_tier(v1::TrainingInput::BASIC_TPU);
  proto.add_command("python3");
  absl::StatusOr<JobSpec> job = JobSpecFromProto(proto, "j1");
  EXPECT_THAT(job, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(job.status().message().find("trainingInput.scaleTier: BASIC_TPU"),
            std::string::npos)
      << job.status().message();
}

TEST(SlurmOptionsConversionTest, RoundTripsAndErrorsNameTheField) {
  v1::SlurmOptions proto;
  proto.set_partition("gpu");
  proto.set_time("2:00:00");
  proto.add_options("--qos=high");
  absl::StatusOr<SlurmJobOptions> slurm = SlurmOptionsFromProto(proto);
  ASSERT_OK(slurm);
  EXPECT_EQ(*slurm, (SlurmJobOptions{.partition = "gpu",
                                     .time = "2:00:00",
                                     .options = {"--qos=high"}}));
  EXPECT_EQ(SlurmOptionsToProto(*slurm).SerializeAsString(),
            proto.SerializeAsString());

  proto.set_account("two words");
  proto.add_options("--wrap=hostname");
  slurm = SlurmOptionsFromProto(proto);
  EXPECT_THAT(
      slurm,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "slurm.account: must be one word of printable characters, got "
          "\"two words\"\n"
          "slurm.options[1]: hptune sets --wrap itself for each trial; got "
          "\"--wrap=hostname\""));
}

TEST(JobLabelsConversionTest, LabelsGoBothWaysAndErrorsNameTheLabel) {
  google::protobuf::Map<std::string, std::string> proto;
  proto["team"] = "vision";
  proto["draft"] = "";
  absl::StatusOr<JobLabels> labels = JobLabelsFromProto(proto);
  ASSERT_OK(labels);
  EXPECT_EQ(*labels, (JobLabels{{"team", "vision"}, {"draft", ""}}));
  const JobRecord job{.job_id = "j", .labels = *labels};
  const v1::Job out = JobToProto(job, nullptr, {}, false);
  EXPECT_EQ(JobLabels(out.labels().begin(), out.labels().end()), *labels);

  proto["owner"] = "Ana";
  labels = JobLabelsFromProto(proto);
  EXPECT_THAT(
      labels,
      StatusIs(absl::StatusCode::kInvalidArgument,
               "labels: value \"Ana\" of key \"owner\" must be at most 63 "
               "characters of lowercase letters, digits, '_' and '-'"));
}

TEST(ParametersFromProtoTest, CoercesNumbersToTheParameterType) {
  const StudySpec spec = *ParsedConfig().study;
  google::protobuf::Map<std::string, v1::ParameterValue> in;
  in["hidden"].set_double_value(64.0);
  in["layers"].set_int_value(2);
  in["cell"].set_string_value("GRU");
  absl::StatusOr<ParameterAssignment> values =
      ParametersFromProto(in, spec.search_space, "trial.parameters");
  ASSERT_OK(values);
  EXPECT_EQ(values->at("hidden"), ParameterValue::Integer(64));
  EXPECT_EQ(values->at("layers"), ParameterValue::Double(2));
  EXPECT_EQ(values->at("cell"), ParameterValue::Categorical("GRU"));

  in["hidden"].set_double_value(64.5);
  EXPECT_EQ(ParametersFromProto(in, spec.search_space, "trial.parameters")
                .status()
                .message(),
            "trial.parameters[\"hidden\"]: INTEGER parameter needs an "
            "integer, got 64.5");
  in["hidden"].set_int_value(64);
  in["cell"].set_double_value(1);
  EXPECT_EQ(ParametersFromProto(in, spec.search_space, "trial.parameters")
                .status()
                .message(),
            "trial.parameters[\"cell\"]: CATEGORICAL parameter needs "
            "string_value, got 1");
  in["cell"].set_string_value("GRU");
  in["layers"].set_string_value("2");
  EXPECT_EQ(ParametersFromProto(in, spec.search_space, "trial.parameters")
                .status()
                .message(),
            "trial.parameters[\"layers\"]: DISCRETE parameter needs a number, "
            "got \"2\"");
  in["layers"].set_int_value(2);
  in["hidden"].set_string_value("64");
  EXPECT_EQ(ParametersFromProto(in, spec.search_space, "trial.parameters")
                .status()
                .message(),
            "trial.parameters[\"hidden\"]: INTEGER parameter needs a number, "
            "got \"64\"");
  in["hidden"].set_int_value(64);
  in.erase("cell");
  in["nope"].set_int_value(1);
  EXPECT_EQ(ParametersFromProto(in, spec.search_space, "trial.parameters")
                .status()
                .message(),
            "trial.parameters[\"nope\"]: the study has no parameter \"nope\"");
}

TEST(MeasurementConversionTest, RejectsWhatMustNotReachADesigner) {
  v1::Measurement m;
  m.set_step(-1);
  (*m.mutable_metrics())["loss"] = 0.5;
  absl::StatusOr<Measurement> bad = MeasurementFromProto(m, "measurement");
  EXPECT_THAT(bad, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(bad.status().message().rfind("measurement: ", 0), 0u)
      << bad.status().message();
  m.set_step(3);
  *m.mutable_time() = TimestampToProto(FromUnixMicros(1'700'000'000'123'456));
  absl::StatusOr<Measurement> good = MeasurementFromProto(m, "measurement");
  ASSERT_OK(good);
  EXPECT_EQ(ToUnixMicros(good->time), 1'700'000'000'123'456);
  v1::Measurement out =
      MeasurementToProto(*good, FromUnixMicros(1'700'000'000'000'000));
  EXPECT_EQ(out.elapsed_duration().seconds(), 0);
  EXPECT_EQ(out.elapsed_duration().nanos(), 123'456'000);
  EXPECT_EQ(out.metrics().at("loss"), 0.5);

  // The last second of 9999-12-31 is a time; the next one is not.
  constexpr int64_t kLastSecond = 253402300799;
  m.mutable_time()->set_seconds(kLastSecond);
  m.mutable_time()->set_nanos(999'999'999);
  EXPECT_OK(MeasurementFromProto(m, "measurement"));
  m.mutable_time()->set_seconds(kLastSecond + 1);
  m.mutable_time()->set_nanos(0);
  EXPECT_EQ(MeasurementFromProto(m, "measurement").status().message(),
            "measurement.time: must be between 1970-01-01 and 9999-12-31, "
            "got seconds=253402300800 nanos=0");
  m.mutable_time()->set_seconds(-1);
  EXPECT_THAT(MeasurementFromProto(m, "measurement"),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  m.mutable_time()->set_seconds(0);
  m.mutable_time()->set_nanos(1'000'000'000);
  EXPECT_THAT(MeasurementFromProto(m, "measurement"),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
}

TEST(JobConversionTest, TrainingOutputCountsEndedTrialsAndNamesTheBest) {
  const JobSpec spec = ParsedConfig();
  JobRecord record{.job_id = "j1",
                   .training_input_json = TrainingInputToJson(spec),
                   .study_name = "j1",
                   .state = JobState::kRunning};
  auto trial = [](int64_t n, TrialState state, std::optional<double> loss) {
    Trial t{.number = n, .state = state};
    t.parameters["hidden"] = ParameterValue::Integer(40 * n);
    t.parameters["layers"] = ParameterValue::Double(2);
    t.parameters["cell"] = ParameterValue::Categorical("GRU");
    if (loss) {
      t.measurements.push_back({.step = 10, .metrics = {{"loss", *loss}}});
      t.final_measurement = t.measurements.back();
    }
    return t;
  };
  std::vector<Trial> trials = {trial(1, TrialState::kSucceeded, 0.5),
                               trial(2, TrialState::kSucceeded, 0.25),
                               trial(3, TrialState::kFailed, std::nullopt),
                               trial(4, TrialState::kActive, std::nullopt)};
  for (Trial& t : trials) t.start_time = FromUnixMicros(1'000'000);
  v1::Job job = JobToProto(record, &*spec.study, trials, true);
  EXPECT_EQ(job.state(), v1::Job::RUNNING);
  EXPECT_EQ(job.training_input().master_type(), "n1-highcpu-16");
  const v1::TrainingOutput& out = job.training_output();
  EXPECT_EQ(out.completed_trial_count(), 3);
  ASSERT_EQ(out.trials_size(), 4);
  EXPECT_EQ(out.trials(1).hyperparameters().at("hidden"), "80");
  EXPECT_EQ(out.trials(1).final_metric().objective_value(), 0.25);
  EXPECT_EQ(out.trials(1).final_metric().training_step(), 10);
  EXPECT_EQ(out.trials(2).state(), v1::Job::FAILED);
  EXPECT_EQ(out.trials(3).state(), v1::Job::RUNNING);
  EXPECT_EQ(out.best_trial().trial_id(), "2");  // MINIMIZE.
  // An ACTIVE trial the backend holds in its queue is QUEUED; an ended one
  // is what it ended as, whatever the set says.
  const v1::Job waiting =
      JobToProto(record, &*spec.study, trials, true, /*waiting=*/{2, 4});
  EXPECT_EQ(waiting.training_output().trials(3).state(), v1::Job::QUEUED);
  EXPECT_EQ(waiting.training_output().trials(1).state(), v1::Job::SUCCEEDED);
  // A queued trial has not started; the others keep their start.
  EXPECT_FALSE(waiting.training_output().trials(3).has_start_time());
  EXPECT_TRUE(waiting.training_output().trials(1).has_start_time());
  EXPECT_TRUE(job.training_output().trials(3).has_start_time());
  EXPECT_EQ(JobToProto(record, &*spec.study, trials, false)
                .training_output()
                .trials_size(),
            0);
}

TEST(TrialConversionTest, KeepsValueKindsAndStates) {
  Trial t{.number = 7, .state = TrialState::kStopping, .client_id = "w1"};
  t.parameters["a"] = ParameterValue::Integer(3);
  t.parameters["b"] = ParameterValue::Double(0.5);
  t.parameters["c"] = ParameterValue::Categorical("x");
  v1::Trial proto = TrialToProto("s", t);
  EXPECT_EQ(proto.id(), 7);
  EXPECT_EQ(proto.study(), "s");
  EXPECT_EQ(proto.state(), v1::Trial::STOPPING);
  EXPECT_EQ(proto.parameters().at("a").int_value(), 3);
  EXPECT_EQ(proto.parameters().at("b").double_value(), 0.5);
  EXPECT_EQ(proto.parameters().at("c").string_value(), "x");
  for (TrialState s :
       {TrialState::kRequested, TrialState::kActive, TrialState::kStopping,
        TrialState::kSucceeded, TrialState::kInfeasible, TrialState::kFailed,
        TrialState::kCancelled}) {
    EXPECT_EQ(TrialStateFromProto(TrialStateToProto(s)), s);
  }
  EXPECT_FALSE(TrialStateFromProto(v1::Trial::STATE_UNSPECIFIED).has_value());
}

}  // namespace
}  // namespace hptune::api
