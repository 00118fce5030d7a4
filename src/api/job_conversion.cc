// hptune.v1's jobs: a TrainingInput or a Vertex job read into a JobSpec, a
// stored job and its trials as a Job reply, Slurm options and labels
// (conversion.h, "Jobs").
#include <google/protobuf/util/json_util.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"
#include "src/api/config_json.h"
#include "src/api/conversion.h"

namespace hptune::api {
namespace {

using google::protobuf::util::JsonParseOptions;

v1::HyperparameterMetric Metric(const Measurement& m, double value) {
  v1::HyperparameterMetric metric;
  metric.set_training_step(m.step);
  metric.set_objective_value(value);
  return metric;
}

}  // namespace

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
