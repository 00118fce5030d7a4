// TrainingInputToJson and StudySpecToJson: a JobSpec as canonical
// `trainingInput` JSON, and its hyperparameters block alone.
//
// Canonical means every field ParseJobConfig would default is written out,
// in one fixed order, so two equal JobSpecs give the same text and parsing
// the text gives the JobSpec back. Only a CUSTOM job lists its task pools:
// the other tiers stand for fixed pools (ApplyScaleTier).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"

namespace hptune {
namespace {

using Json = nlohmann::ordered_json;

// A ReplicaConfig's container fields and env (hptune's), when set.
void WriteContainer(const TaskPool& pool, Json& config) {
  const ContainerSpec& container = pool.container;
  if (!container.image_uri.empty()) config["imageUri"] = container.image_uri;
  if (!container.command.empty())
    config["containerCommand"] = container.command;
  if (!container.args.empty()) config["containerArgs"] = container.args;
  if (!container.python_module.empty()) {
    config["pythonModule"] = container.python_module;
  }
  if (!container.package_uris.empty()) {
    config["packageUris"] = container.package_uris;
  }
  if (!pool.env.empty()) {
    Json env = Json::array();
    for (const EnvVar& var : pool.env) {
      env.push_back({{"name", var.name}, {"value", var.value}});
    }
    config["env"] = std::move(env);
  }
}

// `custom`: the pool's machines too; other tiers fix them.
void WritePool(const TaskPool& pool, bool custom, const char* type_key,
               const char* config_key, const char* count_key, Json& out) {
  if (custom && count_key != nullptr) out[count_key] = pool.count;
  if (custom && !pool.machine_type.empty()) out[type_key] = pool.machine_type;
  Json config = Json::object();
  if (custom &&
      (pool.accelerator.count > 0 || !pool.accelerator.type.empty())) {
    config["acceleratorConfig"] = {{"count", pool.accelerator.count},
                                   {"type", pool.accelerator.type}};
  }
  WriteContainer(pool, config);
  if (!config.empty()) out[config_key] = std::move(config);
}

Json ParameterToJson(const SearchSpace& space, int index) {
  const ParameterSpec& p = space.parameters()[index];
  Json out;
  out["parameterName"] = p.name;
  out["type"] = std::string(ToString(p.type));
  switch (p.type) {
    case ParameterType::kDouble:
      out["minValue"] = p.min_value;
      out["maxValue"] = p.max_value;
      break;
    case ParameterType::kInteger:
      // Integral by validation; written as integers for readers of TF_CONFIG.
      out["minValue"] = static_cast<int64_t>(p.min_value);
      out["maxValue"] = static_cast<int64_t>(p.max_value);
      break;
    case ParameterType::kDiscrete:
      out["discreteValues"] = p.discrete_values;
      break;
    case ParameterType::kCategorical:
      out["categoricalValues"] = p.categorical_values;
      break;
  }
  if (p.type != ParameterType::kCategorical) {
    out["scaleType"] = std::string(ToString(p.scale));
  }
  if (p.first_trial != 0) out["firstTrial"] = p.first_trial;
  const std::vector<int> children = space.ChildIndices(index);
  if (!children.empty()) {
    Json list = Json::array();
    for (int child : children) {
      const ParentCondition& condition = *space.parameters()[child].condition;
      Json entry;
      switch (p.type) {
        case ParameterType::kDiscrete:
          entry["parentDiscreteValues"] = {
              {"values", condition.discrete_values}};
          break;
        case ParameterType::kInteger:
          entry["parentIntValues"] = {{"values", condition.int_values}};
          break;
        case ParameterType::kCategorical:
          entry["parentCategoricalValues"] = {
              {"values", condition.categorical_values}};
          break;
        case ParameterType::kDouble:
          break;  // Refused by ValidateStudySpec.
      }
      entry["parameterSpec"] = ParameterToJson(space, child);
      list.push_back(std::move(entry));
    }
    out["conditionalParameterSpecs"] = std::move(list);
  }
  return out;
}

Json MetricsToJson(const std::vector<MetricSpec>& metrics) {
  Json list = Json::array();
  for (const MetricSpec& m : metrics) {
    Json entry{{"metricId", m.id}, {"goal", std::string(ToString(m.goal))}};
    if (m.safety_threshold) entry["safetyThreshold"] = *m.safety_threshold;
    if (m.desired_min_safe_trials_fraction) {
      entry["desiredMinSafeTrialsFraction"] =
          *m.desired_min_safe_trials_fraction;
    }
    list.push_back(std::move(entry));
  }
  return list;
}

// A rule's settings block, each value of its own JSON type.
Json StoppingSettingsToJson(const StoppingSettings& settings) {
  Json out = Json::object();
  for (const auto& [name, value] : settings.values) {
    std::visit([&, &name = name](const auto& v) { out[name] = v; }, value);
  }
  return out;
}

Json StudyToJson(const StudySpec& spec) {
  Json out;
  if (!spec.metrics_listed()) {
    out["goal"] = std::string(ToString(spec.goal()));
    out["hyperparameterMetricTag"] = spec.metric_tag();
  } else {
    out["metrics"] = MetricsToJson(spec.AllMetrics());
  }
  out["maxTrials"] = spec.max_trials;
  out["maxParallelTrials"] = spec.max_parallel_trials;
  out["maxFailedTrials"] = spec.max_failed_trials;
  out["enableTrialEarlyStopping"] = spec.enable_early_stopping;
  if (!spec.early_stopping_rule.empty()) {
    out["earlyStoppingRule"] = spec.early_stopping_rule;
  }
  if (!spec.stopping_settings.empty()) {
    out[std::string(spec.stopping_settings.Field())] =
        StoppingSettingsToJson(spec.stopping_settings);
  }
  if (spec.trial_lease_seconds) {
    out["trialLeaseSeconds"] = *spec.trial_lease_seconds;
  }
  if (spec.seeding_trials) out["seedingTrials"] = *spec.seeding_trials;
  if (!spec.resume_previous_job_id.empty()) {
    out["resumePreviousJobId"] = spec.resume_previous_job_id;
  }
  out["algorithm"] = std::string(ToString(spec.algorithm));
  if (spec.seed) out["seed"] = *spec.seed;
  if (spec.measurement_selection != MeasurementSelection::kLast) {
    out["measurementSelectionType"] =
        std::string(ToString(spec.measurement_selection));
  }
  Json params = Json::array();
  for (int root : spec.search_space.ChildIndices(-1)) {
    params.push_back(ParameterToJson(spec.search_space, root));
  }
  out["params"] = std::move(params);
  return out;
}

// Replace, not throw, on invalid UTF-8: nothing parsed from a config has
// any, and a spec built in code must not crash the caller.
std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string TrainingInputToJson(const JobSpec& job) {
  Json out;
  out["scaleTier"] = std::string(ToString(job.scale_tier));
  const bool custom = job.scale_tier == ScaleTier::kCustom;
  WritePool(job.master, custom, "masterType", "masterConfig", nullptr, out);
  WritePool(job.worker, custom, "workerType", "workerConfig", "workerCount",
            out);
  WritePool(job.parameter_server, custom, "parameterServerType",
            "parameterServerConfig", "parameterServerCount", out);
  WritePool(job.evaluator, custom, "evaluatorType", "evaluatorConfig",
            "evaluatorCount", out);
  out["useChiefInTfConfig"] = job.use_chief_in_tf_config;
  if (!job.module_name.empty()) out["pythonModule"] = job.module_name;
  if (!job.package_path.empty()) out["packagePath"] = job.package_path;
  if (!job.package_uris.empty()) out["packageUris"] = job.package_uris;
  if (!job.python_interpreter.empty()) {
    out["pythonInterpreter"] = job.python_interpreter;
  }
  if (!job.command.empty()) out["command"] = job.command;
  out["args"] = job.args;
  if (!job.job_dir.empty()) out["jobDir"] = job.job_dir;
  if (!job.region.empty()) out["region"] = job.region;
  if (job.scheduling.max_running_time || job.scheduling.max_wait_time) {
    Json scheduling = Json::object();
    if (job.scheduling.max_running_time) {
      scheduling["maxRunningTime"] =
          FormatDurationSeconds(*job.scheduling.max_running_time);
    }
    if (job.scheduling.max_wait_time) {
      scheduling["maxWaitTime"] =
          FormatDurationSeconds(*job.scheduling.max_wait_time);
    }
    out["scheduling"] = std::move(scheduling);
  }
  if (!job.display_name.empty()) out["displayName"] = job.display_name;
  if (!job.base_output_directory.empty()) {
    out["baseOutputDirectory"] = job.base_output_directory;
  }
  if (job.dialect != SpecDialect::kAiPlatform) {
    out["dialect"] = std::string(ToString(job.dialect));
  }
  if (job.study) out["hyperparameters"] = StudyToJson(*job.study);
  return Dump(Json{{"trainingInput", std::move(out)}});
}

std::string StudySpecToJson(const StudySpec& spec) {
  return Dump(StudyToJson(spec));
}

}  // namespace hptune
