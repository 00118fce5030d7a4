#include "src/api/conversion.h"

#include <google/protobuf/util/json_util.h>

#include <chrono>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"

namespace hptune::api {
namespace {

using google::protobuf::util::JsonParseOptions;
using google::protobuf::util::JsonPrintOptions;

constexpr std::string_view kTrainingInput = "trainingInput";
constexpr std::string_view kHyperparameters = "trainingInput.hyperparameters";

// `message` in protobuf's JSON form (lowerCamelCase names, unset fields
// left out), as config parsing reads it. protobuf writes 64-bit integers as
// strings; hptune's `seed` must be a JSON number, so it is turned back into
// one (the other 64-bit fields are replica counts, which the parser takes
// as strings too, as AI Platform's own JSON has them).
absl::StatusOr<nlohmann::json> ToConfigJson(
    const google::protobuf::Message& message) {
  std::string text;
  JsonPrintOptions options;
  options.preserve_proto_field_names = false;
  auto status =
      google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat(
        "cannot write JSON: ",
        std::string(status.message().data(), status.message().size())));
  }
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) {
    return absl::InternalError("protobuf wrote JSON that does not parse");
  }
  return json;
}

void SeedToNumber(nlohmann::json& hyperparameters) {
  if (!hyperparameters.is_object()) return;
  auto seed = hyperparameters.find("seed");
  if (seed == hyperparameters.end() || !seed->is_string()) return;
  const std::string text = seed->get<std::string>();
  // protobuf wrote it from a uint64, so it is all digits.
  *seed = nlohmann::json::parse(text, nullptr, false);
}

// "trainingInput.hyperparameters.params[0]..." -> "<field>.params[0]...".
std::string Rebase(const std::string& path, std::string_view from,
                   std::string_view to) {
  if (!path.starts_with(from)) return path;
  return absl::StrCat(std::string(to), path.substr(from.size()));
}

absl::Status ErrorsToStatus(std::vector<FieldError> errors,
                            std::string_view from, std::string_view to) {
  for (FieldError& error : errors) error.field = Rebase(error.field, from, to);
  return FieldErrorsToStatus(errors);
}

v1::HyperparameterMetric Metric(const Measurement& m, double value) {
  v1::HyperparameterMetric metric;
  metric.set_training_step(m.step);
  metric.set_objective_value(value);
  return metric;
}

}  // namespace

google::protobuf::Timestamp TimestampToProto(Timestamp t) {
  const int64_t micros = ToUnixMicros(t);
  google::protobuf::Timestamp proto;
  int64_t seconds = micros / 1000000;
  int64_t rest = micros % 1000000;
  if (rest < 0) {
    rest += 1000000;
    --seconds;
  }
  proto.set_seconds(seconds);
  proto.set_nanos(static_cast<int32_t>(rest * 1000));
  return proto;
}

Timestamp TimestampFromProto(const google::protobuf::Timestamp& t) {
  return FromUnixMicros(t.seconds() * 1000000 + t.nanos() / 1000);
}

v1::Trial::State TrialStateToProto(TrialState state) {
  switch (state) {
    case TrialState::kRequested:
      return v1::Trial::REQUESTED;
    case TrialState::kActive:
      return v1::Trial::ACTIVE;
    case TrialState::kStopping:
      return v1::Trial::STOPPING;
    case TrialState::kSucceeded:
      return v1::Trial::SUCCEEDED;
    case TrialState::kInfeasible:
      return v1::Trial::INFEASIBLE;
    case TrialState::kFailed:
      return v1::Trial::FAILED;
    case TrialState::kCancelled:
      return v1::Trial::CANCELLED;
  }
  return v1::Trial::STATE_UNSPECIFIED;
}

std::optional<TrialState> TrialStateFromProto(v1::Trial::State state) {
  for (TrialState s :
       {TrialState::kRequested, TrialState::kActive, TrialState::kStopping,
        TrialState::kSucceeded, TrialState::kInfeasible, TrialState::kFailed,
        TrialState::kCancelled}) {
    if (TrialStateToProto(s) == state) return s;
  }
  return std::nullopt;
}

v1::Job::State JobStateToProto(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return v1::Job::QUEUED;
    case JobState::kPreparing:
      return v1::Job::PREPARING;
    case JobState::kRunning:
      return v1::Job::RUNNING;
    case JobState::kSucceeded:
      return v1::Job::SUCCEEDED;
    case JobState::kFailed:
      return v1::Job::FAILED;
    case JobState::kCancelling:
      return v1::Job::CANCELLING;
    case JobState::kCancelled:
      return v1::Job::CANCELLED;
  }
  return v1::Job::STATE_UNSPECIFIED;
}

std::optional<JobState> JobStateFromProto(v1::Job::State state) {
  for (JobState s :
       {JobState::kQueued, JobState::kPreparing, JobState::kRunning,
        JobState::kSucceeded, JobState::kFailed, JobState::kCancelling,
        JobState::kCancelled}) {
    if (JobStateToProto(s) == state) return s;
  }
  return std::nullopt;
}

absl::StatusOr<StudySpec> StudySpecFromProto(const v1::StudySpec& proto,
                                             std::string_view field) {
  // The spec is read by the config parser as the hyperparameters block of a
  // job, so a study over gRPC meets the rules of a config file. The
  // command is a placeholder the parser needs; it never runs.
  HPTUNE_ASSIGN_OR_RETURN(nlohmann::json hyperparameters, ToConfigJson(proto));
  SeedToNumber(hyperparameters);
  nlohmann::json config = {
      {std::string(kTrainingInput),
       {{"command", {"hptune-study"}}, {"hyperparameters", hyperparameters}}}};
  ConfigParseResult result = ParseJobConfig(config.dump(), ConfigFormat::kJson);
  if (!result.errors.empty()) {
    return ErrorsToStatus(std::move(result.errors), kHyperparameters, field);
  }
  if (!result.job->study.has_value()) {
    return absl::InternalError("config parser returned no study");
  }
  return *std::move(result.job->study);
}

namespace {

// Parameter `index` of `space` and, nested, its conditional children.
void ParameterSpecToProto(const SearchSpace& space, int index,
                          v1::ParameterSpec* out) {
  const ParameterSpec& p = space.parameters()[index];
  out->set_parameter_name(p.name);
  switch (p.type) {
    case ParameterType::kDouble:
      out->set_type(v1::ParameterSpec::DOUBLE);
      break;
    case ParameterType::kInteger:
      out->set_type(v1::ParameterSpec::INTEGER);
      break;
    case ParameterType::kDiscrete:
      out->set_type(v1::ParameterSpec::DISCRETE);
      break;
    case ParameterType::kCategorical:
      out->set_type(v1::ParameterSpec::CATEGORICAL);
      break;
  }
  if (p.type == ParameterType::kDouble || p.type == ParameterType::kInteger) {
    out->set_min_value(p.min_value);
    out->set_max_value(p.max_value);
  }
  for (double v : p.discrete_values) out->add_discrete_values(v);
  for (const std::string& v : p.categorical_values) {
    out->add_categorical_values(v);
  }
  if (p.type != ParameterType::kCategorical) {
    out->set_scale_type(
        static_cast<v1::ParameterSpec::ScaleType>(static_cast<int>(p.scale)));
  }
  for (int child : space.ChildIndices(index)) {
    const ParentCondition& condition = *space.parameters()[child].condition;
    v1::ConditionalParameterSpec* entry =
        out->add_conditional_parameter_specs();
    switch (p.type) {
      case ParameterType::kDiscrete:
        for (double v : condition.discrete_values) {
          entry->mutable_parent_discrete_values()->add_values(v);
        }
        break;
      case ParameterType::kInteger:
        for (int64_t v : condition.int_values) {
          entry->mutable_parent_int_values()->add_values(v);
        }
        break;
      case ParameterType::kCategorical:
        for (const std::string& v : condition.categorical_values) {
          entry->mutable_parent_categorical_values()->add_values(v);
        }
        break;
      case ParameterType::kDouble:
        break;  // Refused by ValidateStudySpec.
    }
    ParameterSpecToProto(space, child, entry->mutable_parameter_spec());
  }
}

}  // namespace

v1::StudySpec StudySpecToProto(const StudySpec& spec) {
  v1::StudySpec proto;
  const auto goal = [](Goal goal) {
    return goal == Goal::kMinimize ? v1::StudySpec::MINIMIZE
                                   : v1::StudySpec::MAXIMIZE;
  };
  if (spec.metrics.empty()) {
    proto.set_goal(goal(spec.goal));
    proto.set_hyperparameter_metric_tag(spec.metric_tag);
  }
  for (const MetricSpec& m : spec.metrics) {
    v1::MetricSpec* metric = proto.add_metrics();
    metric->set_metric_id(m.id);
    metric->set_goal(goal(m.goal));
    if (m.safety_threshold) metric->set_safety_threshold(*m.safety_threshold);
    if (m.desired_min_safe_trials_fraction) {
      metric->set_desired_min_safe_trials_fraction(
          *m.desired_min_safe_trials_fraction);
    }
  }
  proto.set_max_trials(spec.max_trials);
  proto.set_max_parallel_trials(spec.max_parallel_trials);
  proto.set_max_failed_trials(spec.max_failed_trials);
  proto.set_enable_trial_early_stopping(spec.enable_early_stopping);
  if (!spec.early_stopping_rule.empty()) {
    proto.set_early_stopping_rule(spec.early_stopping_rule);
  }
  if (!spec.convex_stopping.empty()) {
    const ConvexStoppingSettings& convex = spec.convex_stopping;
    v1::ConvexStoppingSettings& settings = *proto.mutable_convex_stopping();
    if (convex.max_step_count) {
      settings.set_max_step_count(*convex.max_step_count);
    }
    if (convex.min_step_count) {
      settings.set_min_step_count(*convex.min_step_count);
    }
    if (convex.min_measurement_count) {
      settings.set_min_measurement_count(*convex.min_measurement_count);
    }
  }
  if (spec.trial_lease_seconds) {
    proto.set_trial_lease_seconds(*spec.trial_lease_seconds);
  }
  if (spec.seeding_trials) proto.set_seeding_trials(*spec.seeding_trials);
  if (!spec.resume_previous_job_id.empty()) {
    proto.set_resume_previous_job_id(spec.resume_previous_job_id);
  }
  switch (spec.algorithm) {
    case Algorithm::kUnspecified:
      proto.set_algorithm(v1::StudySpec::ALGORITHM_UNSPECIFIED);
      break;
    case Algorithm::kGridSearch:
      proto.set_algorithm(v1::StudySpec::GRID_SEARCH);
      break;
    case Algorithm::kRandomSearch:
      proto.set_algorithm(v1::StudySpec::RANDOM_SEARCH);
      break;
    case Algorithm::kQuasiRandomSearch:
      proto.set_algorithm(v1::StudySpec::QUASI_RANDOM_SEARCH);
      break;
  }
  if (spec.seed) proto.set_seed(*spec.seed);
  for (int root : spec.search_space.ChildIndices(-1)) {
    ParameterSpecToProto(spec.search_space, root, proto.add_params());
  }
  return proto;
}

v1::Study::State StudyStateToProto(StudyState state) {
  switch (state) {
    case StudyState::kActive:
      return v1::Study::ACTIVE;
    case StudyState::kCompleted:
      return v1::Study::COMPLETED;
    case StudyState::kFailed:
      return v1::Study::FAILED;
    case StudyState::kCancelled:
      return v1::Study::CANCELLED;
  }
  return v1::Study::STATE_UNSPECIFIED;
}

StudyState StudyStateFromProto(v1::Study::State state) {
  switch (state) {
    case v1::Study::COMPLETED:
      return StudyState::kCompleted;
    case v1::Study::FAILED:
      return StudyState::kFailed;
    case v1::Study::CANCELLED:
      return StudyState::kCancelled;
    default:
      return StudyState::kActive;
  }
}

v1::Study StudyToProto(const StudyRecord& study) {
  v1::Study proto;
  proto.set_name(study.name);
  *proto.mutable_spec() = StudySpecToProto(study.spec);
  proto.set_state(StudyStateToProto(study.state));
  proto.set_state_reason(study.reason);
  proto.set_seed(study.seed);
  *proto.mutable_create_time() = TimestampToProto(study.create_time);
  proto.set_resumed_trials(study.resumed_trials);
  return proto;
}

absl::StatusOr<Measurement> MeasurementFromProto(const v1::Measurement& proto,
                                                 std::string_view field) {
  Measurement m;
  m.step = proto.step();
  if (proto.has_time()) {
    // 1970-01-01 to 9999-12-31, as a Timestamp's documentation bounds it;
    // further out the microseconds hptune keeps would overflow.
    constexpr int64_t kMaxSeconds = 253402300799;
    const google::protobuf::Timestamp& t = proto.time();
    if (t.seconds() < 0 || t.seconds() > kMaxSeconds || t.nanos() < 0 ||
        t.nanos() >= 1000000000) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(field),
          ".time: must be between 1970-01-01 and 9999-12-31, got seconds=",
          t.seconds(), " nanos=", t.nanos()));
    }
    m.time = TimestampFromProto(t);
  }
  for (const auto& [name, value] : proto.metrics()) m.metrics[name] = value;
  absl::Status valid = ValidateMeasurement(m);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": ", valid.message()));
  }
  return m;
}

v1::Measurement MeasurementToProto(const Measurement& m,
                                   std::optional<Timestamp> start) {
  v1::Measurement proto;
  proto.set_step(m.step);
  for (const auto& [name, value] : m.metrics) {
    (*proto.mutable_metrics())[name] = value;
  }
  *proto.mutable_time() = TimestampToProto(m.time);
  proto.set_attempt(m.attempt);
  if (start && m.time >= *start) {
    const int64_t micros = (m.time - *start).count();
    proto.mutable_elapsed_duration()->set_seconds(micros / 1000000);
    proto.mutable_elapsed_duration()->set_nanos(
        static_cast<int32_t>(micros % 1000000 * 1000));
  }
  return proto;
}

absl::StatusOr<ParameterAssignment> ParametersFromProto(
    const google::protobuf::Map<std::string, v1::ParameterValue>& proto,
    const SearchSpace& space, std::string_view field) {
  ParameterAssignment assignment;
  for (const auto& [name, value] : proto) {
    const std::string where =
        absl::StrCat(std::string(field), "[\"", name, "\"]");
    const ParameterSpec* spec = space.Find(name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the study has no parameter \"", name, "\""));
    }
    switch (value.kind_case()) {
      case v1::ParameterValue::kDoubleValue: {
        const double v = value.double_value();
        if (spec->type == ParameterType::kInteger) {
          if (!std::isfinite(v) || v != std::floor(v) ||
              std::fabs(v) > 0x1p62) {
            return absl::InvalidArgumentError(absl::StrCat(
                where, ": INTEGER parameter needs an integer, got ", v));
          }
          assignment[name] = ParameterValue::Integer(static_cast<int64_t>(v));
        } else if (spec->type == ParameterType::kCategorical) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": CATEGORICAL parameter needs string_value, got ", v));
        } else {
          assignment[name] = ParameterValue::Double(v);
        }
        break;
      }
      case v1::ParameterValue::kIntValue: {
        const int64_t v = value.int_value();
        if (spec->type == ParameterType::kInteger) {
          assignment[name] = ParameterValue::Integer(v);
        } else if (spec->type == ParameterType::kCategorical) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": CATEGORICAL parameter needs string_value, got ", v));
        } else {
          assignment[name] = ParameterValue::Double(static_cast<double>(v));
        }
        break;
      }
      case v1::ParameterValue::kStringValue:
        if (spec->type != ParameterType::kCategorical) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": ", std::string(ToString(spec->type)),
              " parameter needs a number, got \"", value.string_value(), "\""));
        }
        assignment[name] = ParameterValue::Categorical(value.string_value());
        break;
      case v1::ParameterValue::KIND_NOT_SET:
        return absl::InvalidArgumentError(absl::StrCat(where, ": no value"));
    }
  }
  return assignment;
}

v1::Trial TrialToProto(std::string_view study, const Trial& trial,
                       bool with_measurements) {
  v1::Trial proto;
  proto.set_id(trial.number);
  proto.set_study(std::string(study));
  for (const auto& [name, value] : trial.parameters) {
    v1::ParameterValue& out = (*proto.mutable_parameters())[name];
    if (value.is_string()) {
      out.set_string_value(value.AsString());
    } else if (value.is_integer()) {
      out.set_int_value(value.AsInteger());
    } else {
      out.set_double_value(value.AsDouble());
    }
  }
  proto.set_state(TrialStateToProto(trial.state));
  if (with_measurements) {
    for (const Measurement& m : trial.measurements) {
      *proto.add_measurements() = MeasurementToProto(m, trial.start_time);
    }
  }
  if (trial.final_measurement) {
    *proto.mutable_final_measurement() =
        MeasurementToProto(*trial.final_measurement, trial.start_time);
  }
  proto.set_reason(trial.reason);
  proto.set_stopped_early(trial.stopped_early);
  proto.set_client_id(trial.client_id);
  proto.set_origin(trial.origin);
  proto.set_attempt(trial.attempt);
  *proto.mutable_create_time() = TimestampToProto(trial.create_time);
  if (trial.start_time) {
    *proto.mutable_start_time() = TimestampToProto(*trial.start_time);
  }
  if (trial.end_time) {
    *proto.mutable_end_time() = TimestampToProto(*trial.end_time);
  }
  return proto;
}

absl::StatusOr<JobSpec> JobSpecFromProto(const v1::TrainingInput& proto,
                                         std::string_view job_id) {
  absl::StatusOr<nlohmann::json> json = ToConfigJson(proto);
  if (!json.ok()) {
    // protobuf refuses to write a value outside its own range, such as a
    // Duration of more than 10,000 years: the request's fault.
    return absl::InvalidArgumentError(
        absl::StrCat("trainingInput: ", json.status().message()));
  }
  nlohmann::json training_input = *std::move(json);
  if (training_input.contains("hyperparameters")) {
    SeedToNumber(training_input["hyperparameters"]);
  }
  nlohmann::json config = {{std::string(kTrainingInput), training_input}};
  ConfigParseResult result =
      ParseJobConfig(config.dump(), ConfigFormat::kJson, job_id);
  if (!result.errors.empty()) {
    return FieldErrorsToStatus(result.errors);
  }
  return *std::move(result.job);
}

absl::StatusOr<JobSpec> JobSpecFromVertexJob(std::string_view text,
                                             std::string_view job_id) {
  constexpr size_t kMaxVertexJobBytes = 4 << 20;
  if (text.size() > kMaxVertexJobBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vertex_job: must be at most 4 MiB, got ", text.size(), " bytes"));
  }
  ConfigParseResult result = ParseJobConfig(text, ConfigFormat::kAuto, job_id);
  for (FieldError& error : result.errors) {
    if (error.field != "jobId") error.field = "vertex_job." + error.field;
  }
  if (!result.errors.empty()) return FieldErrorsToStatus(result.errors);
  if (result.job->dialect != SpecDialect::kVertex) {
    return absl::InvalidArgumentError(
        "vertex_job: must be a HyperparameterTuningJob (with studySpec and "
        "trialJobSpec); send an AI Platform config as training_input");
  }
  return *std::move(result.job);
}

absl::StatusOr<v1::TrainingInput> TrainingInputFromJson(
    const std::string& json) {
  // The stored form is a config file's: {"trainingInput": {...}}.
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() ||
      !parsed.contains(kTrainingInput)) {
    return absl::InternalError("stored trainingInput is not a JSON object");
  }
  v1::TrainingInput proto;
  JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto status = google::protobuf::util::JsonStringToMessage(
      parsed[std::string(kTrainingInput)].dump(), &proto, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat(
        "stored trainingInput does not read back: ",
        std::string(status.message().data(), status.message().size())));
  }
  return proto;
}

v1::Job::State TrialOutputState(const Trial& trial, bool waits) {
  if (waits && trial.state == TrialState::kActive) return v1::Job::QUEUED;
  std::optional<JobState> state =
      ParseJobState(ToAiPlatformString(trial.state));
  return state ? JobStateToProto(*state) : v1::Job::STATE_UNSPECIFIED;
}

v1::HyperparameterOutput TrialToOutput(const Trial& trial,
                                       const std::string& metric, bool waits) {
  v1::HyperparameterOutput out;
  out.set_trial_id(std::to_string(trial.number));
  for (const auto& [name, value] : trial.parameters) {
    (*out.mutable_hyperparameters())[name] = value.ToString();
  }
  if (trial.final_measurement) {
    if (auto value = trial.final_measurement->Get(metric)) {
      *out.mutable_final_metric() = Metric(*trial.final_measurement, *value);
    }
    out.mutable_final_metrics()->insert(
        trial.final_measurement->metrics.begin(),
        trial.final_measurement->metrics.end());
  }
  for (const Measurement& m : trial.measurements) {
    if (auto value = m.Get(metric)) *out.add_all_metrics() = Metric(m, *value);
  }
  out.set_is_trial_stopped_early(trial.stopped_early);
  out.set_state(TrialOutputState(trial, waits));
  // A trial waiting in the backend's queue has not started: its start time
  // is set when it leaves (TuningEngine::MarkTrialStarted).
  if (trial.start_time && out.state() != v1::Job::QUEUED) {
    *out.mutable_start_time() = TimestampToProto(*trial.start_time);
  }
  if (trial.end_time) {
    *out.mutable_end_time() = TimestampToProto(*trial.end_time);
  }
  out.set_error_message(trial.reason);
  return out;
}

absl::StatusOr<SlurmJobOptions> SlurmOptionsFromProto(
    const v1::SlurmOptions& proto) {
  SlurmJobOptions slurm{
      .partition = proto.partition(),
      .account = proto.account(),
      .time = proto.time(),
      .options = {proto.options().begin(), proto.options().end()}};
  HPTUNE_RETURN_IF_ERROR(
      FieldErrorsToStatus(ValidateSlurmJobOptions(slurm, "slurm")));
  return slurm;
}

v1::SlurmOptions SlurmOptionsToProto(const SlurmJobOptions& slurm) {
  v1::SlurmOptions proto;
  proto.set_partition(slurm.partition);
  proto.set_account(slurm.account);
  proto.set_time(slurm.time);
  for (const std::string& option : slurm.options) proto.add_options(option);
  return proto;
}

absl::StatusOr<JobLabels> JobLabelsFromProto(
    const google::protobuf::Map<std::string, std::string>& proto) {
  JobLabels labels(proto.begin(), proto.end());
  HPTUNE_RETURN_IF_ERROR(
      FieldErrorsToStatus(ValidateJobLabels(labels, "labels")));
  return labels;
}

v1::Job JobToProto(const JobRecord& job, const StudySpec* spec,
                   const std::vector<Trial>& trials, bool with_trials,
                   const std::set<int64_t>& waiting) {
  v1::Job proto;
  proto.set_job_id(job.job_id);
  auto training_input = TrainingInputFromJson(job.training_input_json);
  if (training_input.ok()) *proto.mutable_training_input() = *training_input;
  proto.set_state(JobStateToProto(job.state));
  proto.set_error_message(job.error_message);
  *proto.mutable_create_time() = TimestampToProto(job.create_time);
  if (job.start_time) {
    *proto.mutable_start_time() = TimestampToProto(*job.start_time);
  }
  if (job.end_time) *proto.mutable_end_time() = TimestampToProto(*job.end_time);
  if (!job.slurm.empty())
    *proto.mutable_slurm() = SlurmOptionsToProto(job.slurm);
  proto.mutable_labels()->insert(job.labels.begin(), job.labels.end());
  v1::TrainingOutput* output = proto.mutable_training_output();
  if (spec == nullptr) return proto;
  output->set_is_hyperparameter_tuning_job(
      !spec->search_space.parameters().empty());
  output->set_hyperparameter_metric_tag(spec->metric_tag);
  std::set<int64_t> optimal;
  for (const Trial& trial : OptimalTrials(*spec, trials)) {
    optimal.insert(trial.number);
    output->add_optimal_trial_ids(trial.number);
  }
  int64_t completed = 0;
  for (const Trial& trial : trials) {
    if (IsTerminal(trial.state)) ++completed;
    if (with_trials) {
      v1::HyperparameterOutput* out = output->add_trials();
      *out = TrialToOutput(trial, spec->metric_tag,
                           waiting.contains(trial.number));
      out->set_is_optimal(optimal.contains(trial.number));
    }
  }
  output->set_completed_trial_count(completed);
  if (std::optional<Trial> best = BestTrial(*spec, trials)) {
    *output->mutable_best_trial() = TrialToOutput(*best, spec->metric_tag);
  }
  return proto;
}

}  // namespace hptune::api
