// hptune.v1's jobs: a JobSpec as a TrainingInput, a stored job and its
// trials as a Job reply, Slurm options and labels (conversion.h, "Jobs").
// Reading a TrainingInput is job_from_proto.cc's, a Vertex job's text
// vertex_job_reading.cc's.
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/stored_spec.h"
#include "src/api/conversion.h"
#include "src/api/ml_units.h"

namespace hptune::api {
namespace {

v1::HyperparameterMetric Metric(const Measurement& m, double value) {
  v1::HyperparameterMetric metric;
  metric.set_training_step(m.step);
  metric.set_objective_value(value);
  return metric;
}

google::protobuf::Duration DurationToProto(std::chrono::microseconds time) {
  google::protobuf::Duration proto;
  proto.set_seconds(time.count() / 1'000'000);
  proto.set_nanos(static_cast<int32_t>(time.count() % 1'000'000) * 1000);
  return proto;
}

// A pool's config as TrainingInputToJson writes it: the accelerator on a
// CUSTOM tier, the container and env when set.
void PoolToProto(const TaskPool& pool, bool custom, v1::ReplicaConfig* config) {
  const AcceleratorConfig& accelerator = pool.accelerator;
  if (custom && (accelerator.count > 0 || !accelerator.type.empty())) {
    config->mutable_accelerator_config()->set_count(accelerator.count);
    config->mutable_accelerator_config()->set_type(accelerator.type);
  }
  const ContainerSpec& container = pool.container;
  config->set_image_uri(container.image_uri);
  config->mutable_container_command()->Add(container.command.begin(),
                                           container.command.end());
  config->mutable_container_args()->Add(container.args.begin(),
                                        container.args.end());
  config->set_python_module(container.python_module);
  config->mutable_package_uris()->Add(container.package_uris.begin(),
                                      container.package_uris.end());
  for (const EnvVar& var : pool.env) {
    v1::EnvVar* env = config->add_env();
    env->set_name(var.name);
    env->set_value(var.value);
  }
}

void PoolsToProto(const JobSpec& job, v1::TrainingInput& proto) {
  const bool custom = job.scale_tier == ScaleTier::kCustom;
  const std::pair<const TaskPool*, v1::ReplicaConfig* (v1::TrainingInput::*)()>
      pools[] = {
          {&job.master, &v1::TrainingInput::mutable_master_config},
          {&job.worker, &v1::TrainingInput::mutable_worker_config},
          {&job.parameter_server,
           &v1::TrainingInput::mutable_parameter_server_config},
          {&job.evaluator, &v1::TrainingInput::mutable_evaluator_config},
      };
  for (const auto& [pool, mutable_config] : pools) {
    v1::ReplicaConfig config;
    PoolToProto(*pool, custom, &config);
    // An empty config is left unset, as the canonical JSON leaves it out.
    if (config.ByteSizeLong() > 0) *(proto.*mutable_config)() = config;
  }
  if (!custom) return;
  proto.set_master_type(job.master.machine_type);
  proto.set_worker_count(job.worker.count);
  proto.set_worker_type(job.worker.machine_type);
  proto.set_parameter_server_count(job.parameter_server.count);
  proto.set_parameter_server_type(job.parameter_server.machine_type);
  proto.set_evaluator_count(job.evaluator.count);
  proto.set_evaluator_type(job.evaluator.machine_type);
}

}  // namespace

v1::TrainingInput JobSpecToProto(const JobSpec& job) {
  v1::TrainingInput proto;
  v1::TrainingInput::ScaleTier tier = v1::TrainingInput::BASIC;
  v1::TrainingInput::ScaleTier_Parse(std::string(ToString(job.scale_tier)),
                                     &tier);
  proto.set_scale_tier(tier);
  PoolsToProto(job, proto);
  proto.set_use_chief_in_tf_config(job.use_chief_in_tf_config);
  proto.set_python_module(job.module_name);
  proto.set_package_path(job.package_path);
  proto.mutable_package_uris()->Add(job.package_uris.begin(),
                                    job.package_uris.end());
  proto.set_python_interpreter(job.python_interpreter);
  proto.mutable_command()->Add(job.command.begin(), job.command.end());
  proto.mutable_args()->Add(job.args.begin(), job.args.end());
  proto.set_job_dir(job.job_dir);
  proto.set_region(job.region);
  if (job.scheduling.max_running_time) {
    *proto.mutable_scheduling()->mutable_max_running_time() =
        DurationToProto(*job.scheduling.max_running_time);
  }
  if (job.scheduling.max_wait_time) {
    *proto.mutable_scheduling()->mutable_max_wait_time() =
        DurationToProto(*job.scheduling.max_wait_time);
  }
  proto.set_display_name(job.display_name);
  proto.set_base_output_directory(job.base_output_directory);
  proto.set_dialect(job.dialect == SpecDialect::kVertex
                        ? v1::TrainingInput::VERTEX
                        : v1::TrainingInput::AI_PLATFORM);
  if (job.study)
    *proto.mutable_hyperparameters() = StudySpecToProto(*job.study);
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
  // A stored job that does not decode is shown without its training input.
  absl::StatusOr<JobSpec> decoded =
      DecodeStoredJob(job.training_input_json, job.job_id);
  return JobToProto(job, decoded.ok() ? &*decoded : nullptr, spec, trials,
                    with_trials, waiting);
}

v1::Job JobToProto(const JobRecord& job, const JobSpec* decoded,
                   const StudySpec* spec, const std::vector<Trial>& trials,
                   bool with_trials, const std::set<int64_t>& waiting) {
  v1::Job proto;
  proto.set_job_id(job.job_id);
  if (decoded != nullptr) {
    *proto.mutable_training_input() = JobSpecToProto(*decoded);
  }
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
  output->set_hyperparameter_metric_tag(spec->metric_tag());
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
      *out = TrialToOutput(trial, spec->metric_tag(),
                           waiting.contains(trial.number));
      out->set_is_optimal(optimal.contains(trial.number));
    }
  }
  output->set_completed_trial_count(completed);
  if (decoded != nullptr) {
    output->set_consumed_ml_units(ConsumedMlUnits(*decoded, trials));
  }
  if (std::optional<Trial> best = BestTrial(*spec, trials)) {
    *output->mutable_best_trial() = TrialToOutput(*best, spec->metric_tag());
  }
  return proto;
}

}  // namespace hptune::api
