// Reading `trainingInput.hyperparameters` into a StudySpec.
#include "src/core/config/hyperparameters.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "hptune/core/search_space.h"
#include "src/core/config/text.h"

namespace hptune::config_internal {
namespace {

const FieldSet& StudyFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"goal", "hyperparameterMetricTag", "metrics", "maxTrials",
                   "maxParallelTrials", "maxFailedTrials",
                   "enableTrialEarlyStopping", "resumePreviousJobId",
                   "algorithm", "params", "seed"},
      .unsupported = {},
      .hints = {{"metric", "hyperparameterMetricTag"},
                {"metricTag", "hyperparameterMetricTag"},
                {"parameters", "params"},
                {"earlyStopping", "enableTrialEarlyStopping"}},
  };
  return *kFields;
}

const FieldSet& MetricFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"metricId", "goal", "safetyThreshold",
                   "desiredMinSafeTrialsFraction"},
      .unsupported = {},
      .hints = {{"id", "metricId"},
                {"name", "metricId"},
                {"metric", "metricId"},
                {"threshold", "safetyThreshold"},
                {"safetyConfig", "safetyThreshold"}},
  };
  return *kFields;
}

const FieldSet& ParameterFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"parameterName", "type", "minValue", "maxValue",
                   "discreteValues", "categoricalValues", "scaleType"},
      .unsupported = {},
      .hints = {{"name", "parameterName"},
                {"min", "minValue"},
                {"max", "maxValue"},
                {"scale", "scaleType"}},
  };
  return *kFields;
}

template <typename Enum>
std::vector<std::string> Names(std::initializer_list<Enum> values) {
  std::vector<std::string> names;
  for (Enum value : values) names.emplace_back(ToString(value));
  return names;
}

// Reads an enum field with `parse`; a bad value is reported with the list of
// valid ones and a suggestion.
template <typename Enum, typename Parse>
std::optional<Enum> ReadEnum(MapReader& reader, std::string_view key,
                             Parse parse,
                             const std::vector<std::string>& names) {
  std::optional<std::string> text = reader.String(key);
  if (!text) return std::nullopt;
  std::optional<Enum> value = parse(*text);
  if (!value) reader.Error(key, MustBeOneOf(names, *text));
  return value;
}

std::optional<ParameterType> ReadParameterType(MapReader& reader) {
  return ReadEnum<ParameterType>(
      reader, "type", ParseParameterType,
      Names({ParameterType::kDouble, ParameterType::kInteger,
             ParameterType::kDiscrete, ParameterType::kCategorical}));
}

std::optional<ScaleType> ReadScaleType(MapReader& reader) {
  return ReadEnum<ScaleType>(reader, "scaleType", ParseScaleType,
                             Names({ScaleType::kNone, ScaleType::kLinear,
                                    ScaleType::kLog, ScaleType::kReverseLog}));
}

// The designer seed: any uint64, read from the number's text so that seeds
// above 2^53 survive.
std::optional<uint64_t> ReadSeed(MapReader& reader) {
  const ConfigNode* node = reader.Find("seed");
  if (node == nullptr) return std::nullopt;
  if (node->kind == ConfigNode::Kind::kNumber) {
    uint64_t seed = 0;
    const std::string& text = node->text;
    auto [ptr, ec] =
        std::from_chars(text.data(), text.data() + text.size(), seed);
    if (ec == std::errc() && ptr == text.data() + text.size()) return seed;
    if (std::isfinite(node->number) && node->number >= 0 &&
        node->number == std::floor(node->number) && node->number < 0x1p64) {
      return static_cast<uint64_t>(node->number);
    }
  }
  reader.Error("seed",
               "must be an integer from 0 to 18446744073709551615, got " +
                   Describe(*node));
  return std::nullopt;
}

// Which of the type-specific fields a parameter type takes.
bool TakesField(ParameterType type, std::string_view key) {
  switch (type) {
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      return key == "minValue" || key == "maxValue" || key == "scaleType";
    case ParameterType::kDiscrete:
      return key == "discreteValues" || key == "scaleType";
    case ParameterType::kCategorical:
      return key == "categoricalValues";
  }
  return false;
}

std::vector<std::string_view> RequiredFields(ParameterType type) {
  switch (type) {
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      return {"minValue", "maxValue"};
    case ParameterType::kDiscrete:
      return {"discreteValues"};
    case ParameterType::kCategorical:
      return {"categoricalValues"};
  }
  return {};
}

// Sets `*defaulted` when an error left a field of the spec at its default
// (a bad value, a missing field); fields of another type are reported but
// never read, so they leave the rest of the spec valid for checking.
ParameterSpec ReadParameter(MapReader& reader, bool* defaulted) {
  ErrorSink& sink = reader.sink();
  const size_t before_name = sink.size();
  ParameterSpec p;
  if (std::optional<std::string> name = reader.String("parameterName")) {
    p.name = std::move(*name);
  } else if (!reader.Has("parameterName")) {
    reader.Error("parameterName", "required");
  }
  std::optional<ParameterType> type = ReadParameterType(reader);
  if (!type && !reader.Has("type")) reader.Error("type", "required");

  constexpr std::string_view kTypeFields[] = {"minValue", "maxValue",
                                              "discreteValues",
                                              "categoricalValues", "scaleType"};
  *defaulted = sink.size() > before_name;
  if (type) {
    p.type = *type;
    const std::string type_name(ToString(*type));
    for (std::string_view key : kTypeFields) {
      // Reported and left out of the spec, so ValidateStudySpec does not
      // report it again.
      if (reader.Has(key) && !TakesField(*type, key)) {
        reader.Error(key, "not allowed with type " + type_name + ", got " +
                              Describe(*reader.Find(key)));
      }
    }
  }
  const size_t before_values = sink.size();
  if (type) {
    const std::string type_name(ToString(*type));
    for (std::string_view key : RequiredFields(*type)) {
      if (!reader.Has(key))
        reader.Error(key, "required with type " + type_name);
    }
  }
  // Without a valid type every field is still read, for its own errors.
  const auto wanted = [&type, &reader](std::string_view key) {
    return reader.Has(key) && (!type || TakesField(*type, key));
  };
  if (wanted("minValue")) p.min_value = reader.Number("minValue").value_or(0);
  if (wanted("maxValue")) p.max_value = reader.Number("maxValue").value_or(0);
  if (wanted("discreteValues")) {
    p.discrete_values =
        reader.NumberList("discreteValues").value_or(std::vector<double>{});
  }
  if (wanted("categoricalValues")) {
    p.categorical_values = reader.StringList("categoricalValues")
                               .value_or(std::vector<std::string>{});
  }
  if (wanted("scaleType"))
    p.scale = ReadScaleType(reader).value_or(ScaleType::kNone);
  *defaulted = *defaulted || sink.size() > before_values;
  return p;
}

std::optional<Goal> ReadGoal(MapReader& reader) {
  return ReadEnum<Goal>(reader, "goal", ParseGoal,
                        Names({Goal::kMaximize, Goal::kMinimize}));
}

// One entry of `metrics`; ValidateStudySpec checks the values.
MetricSpec ReadMetric(MapReader& reader) {
  MetricSpec m;
  if (auto id = reader.String("metricId")) {
    m.id = *id;
  } else if (!reader.Has("metricId")) {
    reader.Error("metricId", "required");
  }
  if (auto goal = ReadGoal(reader)) {
    m.goal = *goal;
  } else if (!reader.Has("goal")) {
    reader.Error("goal", "required (MAXIMIZE or MINIMIZE)");
  }
  if (reader.Has("safetyThreshold")) {
    m.safety_threshold = reader.Number("safetyThreshold");
  }
  if (reader.Has("desiredMinSafeTrialsFraction")) {
    m.desired_min_safe_trials_fraction =
        reader.Number("desiredMinSafeTrialsFraction");
  }
  return m;
}

}  // namespace

HyperparametersRead ReadHyperparameters(const ConfigNode& node,
                                        const std::string& path,
                                        ErrorSink& sink) {
  HyperparametersRead result;
  StudySpec& spec = result.spec;
  MapReader reader(node, path, StudyFields(), sink);
  // Records `key` as reported when reading it added an error.
  const auto read = [&](std::string_view key, auto&& read_field) {
    const size_t before = sink.size();
    read_field();
    if (sink.size() > before) result.reported.push_back(reader.PathOf(key));
  };

  read("goal", [&] {
    if (auto goal = ReadGoal(reader)) spec.goal = *goal;
  });
  read("hyperparameterMetricTag", [&] {
    if (auto tag = reader.String("hyperparameterMetricTag"))
      spec.metric_tag = *tag;
  });
  if (const ConfigNode* metrics = reader.Find("metrics")) {
    const std::string metrics_path = reader.PathOf("metrics");
    for (std::string_view single : {"hyperparameterMetricTag", "goal"}) {
      if (reader.Has(single)) {
        reader.Error(single,
                     "not allowed with metrics (give each metric's goal in "
                     "its entry; the first objective is the primary metric)");
        result.reported.push_back(reader.PathOf(single));
      }
    }
    if (!ExpectList(*metrics, metrics_path, sink)) {
      result.reported.push_back(metrics_path);
    } else if (metrics->items.empty()) {
      reader.Error("metrics", "must not be empty (or leave it out)");
      result.reported.push_back(metrics_path);
    } else {
      std::vector<MetricSpec> list;
      for (size_t i = 0; i < metrics->items.size(); ++i) {
        const std::string item_path = IndexPath(metrics_path, i);
        const ConfigNode& item = metrics->items[i];
        if (!ExpectMap(item, item_path, sink)) {
          list.emplace_back();  // Keeps the later entries' indices.
          result.reported.push_back(item_path);
          continue;
        }
        MapReader item_reader(item, item_path, MetricFields(), sink);
        const size_t before = sink.size();
        list.push_back(ReadMetric(item_reader));
        if (sink.size() > before) result.reported.push_back(item_path);
      }
      spec.SetMetrics(std::move(list));
    }
  }
  read("maxTrials", [&] {
    if (auto n = reader.Integer("maxTrials"))
      spec.max_trials = static_cast<int>(*n);
  });
  read("maxParallelTrials", [&] {
    if (auto n = reader.Integer("maxParallelTrials")) {
      spec.max_parallel_trials = static_cast<int>(*n);
    }
  });
  read("maxFailedTrials", [&] {
    if (auto n = reader.Integer("maxFailedTrials")) {
      spec.max_failed_trials = static_cast<int>(*n);
    }
  });
  read("enableTrialEarlyStopping", [&] {
    if (auto on = reader.Bool("enableTrialEarlyStopping"))
      spec.enable_early_stopping = *on;
  });
  read("resumePreviousJobId", [&] {
    if (auto id = reader.String("resumePreviousJobId")) {
      spec.resume_previous_job_id = *id;
      // An explicitly empty ID would otherwise pass as "no resume".
      if (id->empty()) reader.Error("resumePreviousJobId", "must not be empty");
    }
  });
  read("algorithm", [&] {
    if (auto algorithm = ReadEnum<Algorithm>(
            reader, "algorithm", ParseAlgorithm,
            Names({Algorithm::kUnspecified, Algorithm::kGridSearch,
                   Algorithm::kRandomSearch, Algorithm::kQuasiRandomSearch}))) {
      spec.algorithm = *algorithm;
    }
  });
  read("seed", [&] { spec.seed = ReadSeed(reader); });

  const std::string params_path = reader.PathOf("params");
  const ConfigNode* params = reader.Find("params");
  if (params == nullptr) {
    reader.Error("params", "required (at least one parameter)");
    result.reported.push_back(params_path);
  } else if (!ExpectList(*params, params_path, sink)) {
    result.reported.push_back(params_path);
  } else {
    std::vector<ParameterSpec> parameters;
    for (size_t i = 0; i < params->items.size(); ++i) {
      const std::string item_path = IndexPath(params_path, i);
      const ConfigNode& item = params->items[i];
      if (!ExpectMap(item, item_path, sink)) {
        parameters.emplace_back();
        result.reported.push_back(item_path);
        continue;
      }
      // Unknown and duplicate fields leave the spec as written; only errors
      // in reading it make its values defaults.
      MapReader item_reader(item, item_path, ParameterFields(), sink);
      bool defaulted = false;
      parameters.push_back(ReadParameter(item_reader, &defaulted));
      if (defaulted) result.reported.push_back(item_path);
    }
    spec.search_space = SearchSpace(std::move(parameters));
  }
  return result;
}

}  // namespace hptune::config_internal
