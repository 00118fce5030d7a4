#include "src/store/record_codec.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/mutex.h"
#include "hptune/core/time.h"
#include "nlohmann/json.hpp"

namespace hptune::store::internal {
namespace {

using Json = nlohmann::json;

// Thrown inside this file only, for problems nlohmann does not see (an
// unknown enum name, a NaN); turned into Status with nlohmann's own errors.
struct CodecError {
  std::string message;
};

Json FiniteDouble(double value, const std::string& what) {
  if (!std::isfinite(value)) {
    throw CodecError{absl::StrCat(what, " must be finite, got ", value)};
  }
  return Json(value);
}

std::string Dump(const Json& json) {
  // strict: invalid UTF-8 in a name is an error, not silently replaced.
  return json.dump(-1, ' ', false, Json::error_handler_t::strict);
}

// Runs `encode`, turning any exception into InvalidArgument naming `what`.
template <typename F>
absl::StatusOr<std::string> Encode(const std::string& what, F&& encode) {
  try {
    return Dump(encode());
  } catch (const CodecError& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot store ", what, ": ", e.message));
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot store ", what, ": ", e.what()));
  }
}

// Parses `text` and runs `decode` on it, turning any exception into DataLoss:
// a stored record that does not decode was damaged or written by something
// else.
template <typename F>
auto Decode(const std::string& what, std::string_view text, F&& decode)
    -> absl::StatusOr<decltype(decode(std::declval<const Json&>()))> {
  try {
    return decode(Json::parse(text));
  } catch (const CodecError& e) {
    return absl::DataLossError(
        absl::StrCat("cannot read stored ", what, ": ", e.message));
  } catch (const Json::exception& e) {
    return absl::DataLossError(
        absl::StrCat("cannot read stored ", what, ": ", e.what()));
  }
}

template <typename Enum>
Enum ParseEnum(const Json& json, std::optional<Enum> (*parse)(std::string_view),
               const std::string& field) {
  const std::string text = json.get<std::string>();
  std::optional<Enum> value = parse(text);
  if (!value) throw CodecError{absl::StrCat(field, ": unknown value ", text)};
  return *value;
}

Json ParameterSpecToJson(const ParameterSpec& p) {
  Json discrete = Json::array();
  for (double v : p.discrete_values) {
    discrete.push_back(FiniteDouble(v, "discreteValues"));
  }
  Json json{
      {"parameterName", p.name},
      {"type", ToString(p.type)},
      {"minValue", FiniteDouble(p.min_value, "minValue")},
      {"maxValue", FiniteDouble(p.max_value, "maxValue")},
      {"discreteValues", std::move(discrete)},
      {"categoricalValues", p.categorical_values},
      {"scaleType", ToString(p.scale)},
  };
  // Kept flat, as SearchSpace is: a child names its parent.
  if (p.condition) {
    Json parent_discrete = Json::array();
    for (double v : p.condition->discrete_values) {
      parent_discrete.push_back(FiniteDouble(v, "parentDiscreteValues"));
    }
    json["parent"] = {
        {"parameterName", p.condition->parent},
        {"discreteValues", std::move(parent_discrete)},
        {"intValues", p.condition->int_values},
        {"categoricalValues", p.condition->categorical_values},
    };
  }
  return json;
}

ParameterSpec ParameterSpecFromJson(const Json& j) {
  ParameterSpec p;
  p.name = j.at("parameterName").get<std::string>();
  p.type = ParseEnum(j.at("type"), &ParseParameterType, "type");
  p.min_value = j.at("minValue").get<double>();
  p.max_value = j.at("maxValue").get<double>();
  p.discrete_values = j.at("discreteValues").get<std::vector<double>>();
  p.categorical_values =
      j.at("categoricalValues").get<std::vector<std::string>>();
  p.scale = ParseEnum(j.at("scaleType"), &ParseScaleType, "scaleType");
  if (j.contains("parent")) {
    const Json& parent = j.at("parent");
    ParentCondition condition;
    condition.parent = parent.at("parameterName").get<std::string>();
    condition.discrete_values =
        parent.at("discreteValues").get<std::vector<double>>();
    condition.int_values = parent.at("intValues").get<std::vector<int64_t>>();
    condition.categorical_values =
        parent.at("categoricalValues").get<std::vector<std::string>>();
    p.condition = std::move(condition);
  }
  return p;
}

Json MetricsToJson(const MetricMap& metrics) {
  Json json = Json::object();
  for (const auto& [name, value] : metrics) {
    json[name] = FiniteDouble(value, absl::StrCat("metric \"", name, "\""));
  }
  return json;
}

MetricMap MetricsFromJson(const Json& json) {
  if (!json.is_object()) throw CodecError{"metrics: not an object"};
  MetricMap metrics;
  for (const auto& [name, value] : json.items()) {
    if (!value.is_number()) {
      throw CodecError{absl::StrCat("metric \"", name, "\": not a number")};
    }
    metrics[name] = value.get<double>();
  }
  return metrics;
}

}  // namespace

absl::StatusOr<std::string> EncodeStudySpec(const StudySpec& spec) {
  return Encode("study spec", [&] {
    Json params = Json::array();
    for (const ParameterSpec& p : spec.search_space.parameters()) {
      params.push_back(ParameterSpecToJson(p));
    }
    Json json{
        {"goal", ToString(spec.goal)},
        {"hyperparameterMetricTag", spec.metric_tag},
        {"maxTrials", spec.max_trials},
        {"maxParallelTrials", spec.max_parallel_trials},
        {"maxFailedTrials", spec.max_failed_trials},
        {"enableTrialEarlyStopping", spec.enable_early_stopping},
        {"resumePreviousJobId", spec.resume_previous_job_id},
        {"algorithm", ToString(spec.algorithm)},
        {"params", std::move(params)},
    };
    if (!spec.custom_algorithm.empty()) {
      json["customAlgorithm"] = spec.custom_algorithm;
    }
    if (spec.seed) json["seed"] = *spec.seed;
    if (!spec.metrics.empty()) {
      Json metrics = Json::array();
      for (const MetricSpec& m : spec.metrics) {
        Json entry{{"metricId", m.id}, {"goal", ToString(m.goal)}};
        if (m.safety_threshold) entry["safetyThreshold"] = *m.safety_threshold;
        if (m.desired_min_safe_trials_fraction) {
          entry["desiredMinSafeTrialsFraction"] =
              *m.desired_min_safe_trials_fraction;
        }
        metrics.push_back(std::move(entry));
      }
      json["metrics"] = std::move(metrics);
    }
    return json;
  });
}

namespace {

absl::StatusOr<StudySpec> DecodeStudySpecUncached(std::string_view text) {
  return Decode("study spec", text, [](const Json& j) {
    StudySpec spec;
    std::vector<ParameterSpec> params;
    for (const Json& p : j.at("params")) {
      params.push_back(ParameterSpecFromJson(p));
    }
    spec.search_space = SearchSpace(std::move(params));
    spec.goal = ParseEnum(j.at("goal"), &ParseGoal, "goal");
    spec.metric_tag = j.at("hyperparameterMetricTag").get<std::string>();
    spec.max_trials = j.at("maxTrials").get<int>();
    spec.max_parallel_trials = j.at("maxParallelTrials").get<int>();
    spec.max_failed_trials = j.at("maxFailedTrials").get<int>();
    spec.enable_early_stopping = j.at("enableTrialEarlyStopping").get<bool>();
    spec.resume_previous_job_id =
        j.at("resumePreviousJobId").get<std::string>();
    spec.algorithm = ParseEnum(j.at("algorithm"), &ParseAlgorithm, "algorithm");
    if (j.contains("customAlgorithm")) {
      spec.custom_algorithm = j.at("customAlgorithm").get<std::string>();
    }
    if (j.contains("seed")) spec.seed = j.at("seed").get<uint64_t>();
    if (j.contains("metrics")) {
      std::vector<MetricSpec> metrics;
      for (const Json& m : j.at("metrics")) {
        MetricSpec metric{.id = m.at("metricId").get<std::string>(),
                          .goal = ParseEnum(m.at("goal"), &ParseGoal, "goal")};
        if (m.contains("safetyThreshold")) {
          metric.safety_threshold = m.at("safetyThreshold").get<double>();
        }
        if (m.contains("desiredMinSafeTrialsFraction")) {
          metric.desired_min_safe_trials_fraction =
              m.at("desiredMinSafeTrialsFraction").get<double>();
        }
        metrics.push_back(std::move(metric));
      }
      spec.SetMetrics(std::move(metrics));
    }
    return spec;
  });
}

}  // namespace

absl::StatusOr<StudySpec> DecodeStudySpec(std::string_view text) {
  // GetStudy, SuggestTrials and CompleteTrial each read their study's spec,
  // and parsing the JSON costs more than the read (throughput_benchmark
  // --baseline, two GetStudy calls: 0.23 ms of CPU with these kept, 0.32 ms
  // without); a spec never changes once stored, so the decodes of the last
  // few texts are kept, keyed by the whole text.
  constexpr size_t kMemoEntries = 16;
  static Mutex mutex;
  static auto* memo ABSL_PT_GUARDED_BY(mutex) =
      new std::map<std::string, StudySpec, std::less<>>();
  {
    MutexLock lock(&mutex);
    auto it = memo->find(text);
    if (it != memo->end()) return it->second;
  }
  absl::StatusOr<StudySpec> spec = DecodeStudySpecUncached(text);
  if (spec.ok()) {
    MutexLock lock(&mutex);
    if (memo->size() >= kMemoEntries) memo->clear();
    memo->emplace(std::string(text), *spec);
  }
  return spec;
}

absl::StatusOr<std::string> EncodeParameters(
    const ParameterAssignment& params) {
  return Encode("parameters", [&] {
    Json json = Json::object();
    for (const auto& [name, value] : params) {
      if (value.is_integer()) {
        json[name] = value.AsInteger();
      } else if (value.is_string()) {
        json[name] = value.AsString();
      } else {
        json[name] = FiniteDouble(value.AsDouble(),
                                  absl::StrCat("parameter \"", name, "\""));
      }
    }
    return json;
  });
}

absl::StatusOr<ParameterAssignment> DecodeParameters(std::string_view text) {
  return Decode("parameters", text, [](const Json& json) {
    if (!json.is_object()) throw CodecError{"not an object"};
    ParameterAssignment params;
    for (const auto& [name, value] : json.items()) {
      if (value.is_number_float()) {
        params[name] = ParameterValue::Double(value.get<double>());
      } else if (value.is_number_unsigned() &&
                 value.get<uint64_t>() >
                     static_cast<uint64_t>(
                         std::numeric_limits<int64_t>::max())) {
        throw CodecError{
            absl::StrCat("parameter \"", name, "\": integer out of range")};
      } else if (value.is_number_integer()) {
        params[name] = ParameterValue::Integer(value.get<int64_t>());
      } else if (value.is_string()) {
        params[name] = ParameterValue::Categorical(value.get<std::string>());
      } else {
        throw CodecError{
            absl::StrCat("parameter \"", name, "\": not a number or string")};
      }
    }
    return params;
  });
}

absl::StatusOr<std::string> EncodeMetrics(const MetricMap& metrics) {
  return Encode("metrics", [&] { return MetricsToJson(metrics); });
}

absl::StatusOr<MetricMap> DecodeMetrics(std::string_view text) {
  return Decode("metrics", text, &MetricsFromJson);
}

absl::StatusOr<std::string> EncodeMeasurement(const Measurement& m) {
  return Encode("measurement", [&] {
    Json j{{"step", m.step},
           {"time", ToUnixMicros(m.time)},
           {"metrics", MetricsToJson(m.metrics)}};
    if (m.attempt != 0) j["attempt"] = m.attempt;
    return j;
  });
}

absl::StatusOr<Measurement> DecodeMeasurement(std::string_view text) {
  return Decode("measurement", text, [](const Json& j) {
    Measurement m;
    m.step = j.at("step").get<int64_t>();
    m.time = FromUnixMicros(j.at("time").get<int64_t>());
    m.metrics = MetricsFromJson(j.at("metrics"));
    m.attempt = j.value("attempt", 0);
    return m;
  });
}

absl::StatusOr<std::string> EncodeSlurmJobOptions(
    const SlurmJobOptions& slurm) {
  return Encode("slurm options", [&] {
    Json j = Json::object();
    if (!slurm.partition.empty()) j["partition"] = slurm.partition;
    if (!slurm.account.empty()) j["account"] = slurm.account;
    if (!slurm.time.empty()) j["time"] = slurm.time;
    if (!slurm.options.empty()) j["options"] = slurm.options;
    return j;
  });
}

absl::StatusOr<SlurmJobOptions> DecodeSlurmJobOptions(std::string_view text) {
  return Decode("slurm options", text, [](const Json& j) {
    SlurmJobOptions slurm;
    slurm.partition = j.value("partition", "");
    slurm.account = j.value("account", "");
    slurm.time = j.value("time", "");
    slurm.options = j.value("options", std::vector<std::string>{});
    return slurm;
  });
}

absl::StatusOr<std::string> EncodeJobLabels(const JobLabels& labels) {
  return Encode("job labels", [&] { return Json(labels); });
}

absl::StatusOr<JobLabels> DecodeJobLabels(std::string_view text) {
  return Decode("job labels", text,
                [](const Json& j) { return j.get<JobLabels>(); });
}

}  // namespace hptune::store::internal
