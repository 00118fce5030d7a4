// VertexJobJson, VertexCustomJobJson and VertexTrialsJson: a job and its
// trials as Vertex AI's REST API reports a HyperparameterTuningJob or a
// CustomJob (cloud.google.com/vertex-ai/
// docs/reference/rest/v1/projects.locations.hyperparameterTuningJobs, Trial,
// Measurement, StudySpec, CustomJobSpec), in proto3's JSON mapping: int64
// fields (replicaCount, stepCount, integer bounds) as strings, times as
// RFC 3339. The field names the reader maps come from vertex_names.h.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "src/core/config/vertex_names.h"

namespace hptune {
namespace {

using Json = nlohmann::ordered_json;
using config_internal::FieldName;

// The Vertex name the table gives AI Platform's `ai`.
template <size_t N>
std::string VertexName(const std::array<FieldName, N>& table,
                       std::string_view ai) {
  for (const FieldName& field : table) {
    if (field.ai == ai) return std::string(field.vertex);
  }
  return std::string(ai);
}

std::string Int64(int64_t value) { return std::to_string(value); }

Json VertexParameterJson(const SearchSpace& space, int index) {
  const ParameterSpec& p = space.parameters()[index];
  std::string key;
  for (const auto& spec : config_internal::kValueSpecs) {
    if (spec.type == ToString(p.type)) key = spec.key;
  }
  Json values;
  if (p.type == ParameterType::kInteger) {
    values = {{"minValue", Int64(static_cast<int64_t>(p.min_value))},
              {"maxValue", Int64(static_cast<int64_t>(p.max_value))}};
  } else if (p.type == ParameterType::kDouble) {
    values = {{"minValue", p.min_value}, {"maxValue", p.max_value}};
  } else if (p.type == ParameterType::kDiscrete) {
    values = {{"values", p.discrete_values}};
  } else {
    values = {{"values", p.categorical_values}};
  }
  Json out{{"parameterId", p.name}, {key, values}};
  if (p.scale != ScaleType::kNone) out["scaleType"] = ToString(p.scale);
  Json children = Json::array();
  for (int child : space.ChildIndices(index)) {
    const ParentCondition& condition = *space.parameters()[child].condition;
    Json entry;
    if (p.type == ParameterType::kDiscrete) {
      entry["parentDiscreteValues"] = {{"values", condition.discrete_values}};
    } else if (p.type == ParameterType::kInteger) {
      Json ints = Json::array();
      for (int64_t v : condition.int_values) ints.push_back(Int64(v));
      entry["parentIntValues"] = {{"values", ints}};
    } else {
      entry["parentCategoricalValues"] = {
          {"values", condition.categorical_values}};
    }
    entry["parameterSpec"] = VertexParameterJson(space, child);
    children.push_back(std::move(entry));
  }
  if (!children.empty()) out["conditionalParameterSpecs"] = children;
  return out;
}

// A rule's settings block, each value of its own JSON type.
Json StoppingSettingsJson(const StoppingSettings& settings) {
  Json out = Json::object();
  for (const auto& [name, value] : settings.values) {
    std::visit([&, &name = name](const auto& v) { out[name] = v; }, value);
  }
  return out;
}

// Vertex's spec of the study's rule, or hptune's earlyStoppingRule for a
// rule Vertex lacks (median-at-step, asha, an embedder's). The settings
// go where the reader takes them from: convexStopping's into the convex
// spec, earlyStoppingSettings as hptune's field of that name.
void AddStoppingRule(const StudySpec& study, Json& out) {
  const std::string& rule = study.EffectiveStoppingRule();
  const StoppingSettings& settings = study.stopping_settings;
  const bool convex_block = settings.Field() == kConvexStoppingField;
  std::string key = "earlyStoppingRule";
  Json value = rule;
  for (const auto& [vertex, name] : config_internal::kVertexStoppingRules) {
    if (name == rule) {
      key = vertex;
      value = convex_block && name == kConvexStoppingRule
                  ? StoppingSettingsJson(settings)
                  : Json::object();
      break;
    }
  }
  out[key] = std::move(value);
  if (!settings.empty() && !convex_block) {
    out["earlyStoppingSettings"] = StoppingSettingsJson(settings);
  }
}

Json VertexStudySpec(const StudySpec& study) {
  Json metrics = Json::array();
  for (const MetricSpec& m : study.AllMetrics()) {
    Json metric{{"metricId", m.id}, {"goal", ToString(m.goal)}};
    if (m.safety_threshold) {
      metric["safetyConfig"]["safetyThreshold"] = *m.safety_threshold;
      if (m.desired_min_safe_trials_fraction) {
        metric["safetyConfig"]["desiredMinSafeTrialsFraction"] =
            *m.desired_min_safe_trials_fraction;
      }
    }
    metrics.push_back(std::move(metric));
  }
  Json parameters = Json::array();
  for (int root : study.search_space.ChildIndices(-1)) {
    parameters.push_back(VertexParameterJson(study.search_space, root));
  }
  Json out{{"metrics", metrics}, {"parameters", parameters}};
  out["algorithm"] = ToString(study.algorithm);
  out["measurementSelectionType"] =
      std::string(ToString(study.measurement_selection));
  if (study.enable_early_stopping) AddStoppingRule(study, out);
  if (study.seed) out["seed"] = *study.seed;
  return out;
}

Json ContainerToJson(const TaskPool& pool) {
  const ContainerSpec& c = pool.container;
  const bool package = !c.python_module.empty();
  Json out{{package ? "executorImageUri" : "imageUri", c.image_uri}};
  auto put = [&](std::string_view ai, Json value) {
    out[VertexName(config_internal::kContainerFields, ai)] = std::move(value);
  };
  if (package) {
    put("packageUris", c.package_uris);
    put("pythonModule", c.python_module);
  } else if (!c.command.empty()) {
    put("containerCommand", c.command);
  }
  if (!c.args.empty()) put("containerArgs", c.args);
  if (!pool.env.empty()) {
    Json env = Json::array();
    for (const EnvVar& var : pool.env) {
      env.push_back({{"name", var.name}, {"value", var.value}});
    }
    put("env", env);
  }
  return Json{{package ? "pythonPackageSpec" : "containerSpec", out}};
}

// A pool in workerPoolSpecs; `{}` for an empty one before a used one.
Json PoolToJson(const TaskPool& pool) {
  if (pool.count == 0) return Json::object();
  Json machine = Json::object();
  if (!pool.machine_type.empty()) machine["machineType"] = pool.machine_type;
  if (pool.accelerator.count > 0) {
    machine["acceleratorType"] = pool.accelerator.type;
    machine["acceleratorCount"] = pool.accelerator.count;
  }
  Json out{{"machineSpec", machine}, {"replicaCount", Int64(pool.count)}};
  // A host-process trainer (no image) has no Vertex container spec.
  if (!pool.container.empty()) out.update(ContainerToJson(pool));
  return out;
}

Json TrialJobSpecToJson(const JobSpec& job) {
  const TaskPool* pools[] = {&job.master, &job.worker, &job.parameter_server,
                             &job.evaluator};
  size_t used = 1;
  for (size_t i = 1; i < 4; ++i) {
    if (pools[i]->count > 0) used = i + 1;
  }
  Json list = Json::array();
  for (size_t i = 0; i < used; ++i) list.push_back(PoolToJson(*pools[i]));
  Json out{{"workerPoolSpecs", list}};
  const auto& s = job.scheduling;
  using config_internal::kSchedulingFields;
  if (s.max_running_time) {
    out["scheduling"][VertexName(kSchedulingFields, "maxRunningTime")] =
        FormatDurationSeconds(*s.max_running_time);
  }
  if (s.max_wait_time) {
    out["scheduling"][VertexName(kSchedulingFields, "maxWaitTime")] =
        FormatDurationSeconds(*s.max_wait_time);
  }
  if (!job.base_output_directory.empty()) {
    out["baseOutputDirectory"] = {
        {"outputUriPrefix", job.base_output_directory}};
  }
  return out;
}

Json MeasurementToJson(const Measurement& m) {
  Json metrics = Json::array();
  for (const auto& [id, value] : m.metrics) {
    metrics.push_back({{"metricId", id}, {"value", value}});
  }
  return {{"stepCount", Int64(m.step)}, {"metrics", metrics}};
}

// Vertex's Trial.State has no FAILED or CANCELLED: a trial that ended
// without a result is INFEASIBLE, with the reason.
std::string_view TrialState(TrialState state) {
  switch (state) {
    case TrialState::kFailed:
    case TrialState::kCancelled:
      return "INFEASIBLE";
    default:
      return ToString(state);
  }
}

// The trial's parameters in the order of `space` (the spec's), when given,
// then any others by name (all by name without a space).
Json TrialParametersJson(const Trial& t, const SearchSpace* space) {
  std::vector<std::string> names;
  if (space != nullptr) {
    for (const ParameterSpec& p : space->parameters()) {
      if (t.parameters.contains(p.name)) names.push_back(p.name);
    }
  }
  for (const auto& [name, value] : t.parameters) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  Json parameters = Json::array();
  for (const std::string& name : names) {
    const ParameterValue& value = t.parameters.at(name);
    Json v = value.is_string()    ? Json(value.AsString())
             : value.is_integer() ? Json(value.AsInteger())
                                  : Json(value.AsDouble());
    parameters.push_back({{"parameterId", name}, {"value", v}});
  }
  return parameters;
}

Json TrialToJson(const Trial& t, bool with_measurements,
                 const SearchSpace* space) {
  Json out{{"id", Int64(t.number)}, {"state", TrialState(t.state)}};
  out["parameters"] = TrialParametersJson(t, space);
  if (t.final_measurement) {
    out["finalMeasurement"] = MeasurementToJson(*t.final_measurement);
  }
  if (with_measurements && !t.measurements.empty()) {
    Json measurements = Json::array();
    for (const Measurement& m : t.measurements) {
      measurements.push_back(MeasurementToJson(m));
    }
    out["measurements"] = std::move(measurements);
  }
  if (t.start_time) out["startTime"] = FormatRfc3339(*t.start_time);
  if (t.end_time) out["endTime"] = FormatRfc3339(*t.end_time);
  const bool infeasible = TrialState(t.state) == "INFEASIBLE";
  if (infeasible) {
    out["infeasibleReason"] =
        t.reason.empty() ? "trial " + std::string(ToString(t.state)) : t.reason;
  }
  return out;
}

Json TrialsToJson(const std::vector<Trial>& trials, bool with_measurements,
                  const SearchSpace* space) {
  Json list = Json::array();
  for (const Trial& t : trials) {
    list.push_back(TrialToJson(t, with_measurements, space));
  }
  return list;
}

// Vertex's JobState names ("JOB_STATE_RUNNING"); PREPARING is PENDING.
std::string JobStateName(JobState state) {
  if (state == JobState::kPreparing) return "JOB_STATE_PENDING";
  return "JOB_STATE_" + std::string(ToString(state));
}

// The latest time anything of the job changed.
Timestamp UpdateTime(const JobRecord& record,
                     const std::vector<Trial>& trials) {
  Timestamp latest = record.create_time;
  auto see = [&](const std::optional<Timestamp>& t) {
    if (t && *t > latest) latest = *t;
  };
  see(record.start_time);
  see(record.end_time);
  for (const Trial& t : trials) {
    see(t.start_time);
    see(t.end_time);
  }
  return latest;
}

void PutTimes(const JobRecord& record, const std::vector<Trial>& trials,
              Json& out) {
  out["createTime"] = FormatRfc3339(record.create_time);
  if (record.start_time) out["startTime"] = FormatRfc3339(*record.start_time);
  if (record.end_time) out["endTime"] = FormatRfc3339(*record.end_time);
  out["updateTime"] = FormatRfc3339(UpdateTime(record, trials));
}

std::string DumpJson(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace);
}

// name and displayName, first in either resource.
Json NamesJson(const JobSpec& job, const JobRecord& record,
               const VertexJobJsonOptions& options) {
  return Json{{"name", options.name.empty() ? record.job_id : options.name},
              {"displayName",
               job.display_name.empty() ? record.job_id : job.display_name}};
}

// state, the times, error and labels, last in either resource.
void PutOutcome(const JobRecord& record, const std::vector<Trial>& trials,
                Json& out) {
  out["state"] = JobStateName(record.state);
  PutTimes(record, trials, out);
  if (record.state == JobState::kFailed) {
    // hptune keeps no status code for a job: UNKNOWN (2), with its message.
    out["error"] = {{"code", 2}, {"message", record.error_message}};
  }
  if (!record.labels.empty()) out["labels"] = record.labels;
}

}  // namespace

std::string VertexJobJson(const JobSpec& job, const JobRecord& record,
                          const std::vector<Trial>& trials,
                          const VertexJobJsonOptions& options) {
  Json out = NamesJson(job, record, options);
  if (job.study) {
    out["studySpec"] = VertexStudySpec(*job.study);
    const auto& names = config_internal::kStudyCounts;
    out[VertexName(names, "maxTrials")] = job.study->max_trials;
    out[VertexName(names, "maxParallelTrials")] =
        job.study->max_parallel_trials;
    out[VertexName(names, "maxFailedTrials")] = job.study->max_failed_trials;
  }
  out["trialJobSpec"] = TrialJobSpecToJson(job);
  if (options.with_trials) {
    out["trials"] =
        TrialsToJson(trials, options.with_measurements,
                     job.study ? &job.study->search_space : nullptr);
  }
  PutOutcome(record, trials, out);
  return DumpJson(out);
}

std::string VertexCustomJobJson(const JobSpec& job, const JobRecord& record,
                                const VertexJobJsonOptions& options) {
  Json out = NamesJson(job, record, options);
  out["jobSpec"] = TrialJobSpecToJson(job);
  PutOutcome(record, {}, out);
  return DumpJson(out);
}

std::string VertexTrialsJson(const std::vector<Trial>& trials,
                             const SearchSpace* space) {
  Json list;
  list["trials"] = TrialsToJson(trials, /*with_measurements=*/false, space);
  return DumpJson(list);
}

}  // namespace hptune
