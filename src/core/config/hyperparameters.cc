// Reading `trainingInput.hyperparameters` into a StudySpec.
#include "src/core/config/hyperparameters.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "hptune/core/search_space.h"
#include "src/core/config/stopping_block.h"
#include "src/core/config/text.h"

namespace hptune::config_internal {
namespace {

const FieldSet& StudyFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"goal", "hyperparameterMetricTag", "metrics", "maxTrials",
                   "maxParallelTrials", "maxFailedTrials",
                   "enableTrialEarlyStopping", "earlyStoppingRule",
                   "convexStopping", "earlyStoppingSettings",
                   "trialLeaseSeconds", "seedingTrials", "resumePreviousJobId",
                   "algorithm", "params", "seed", "measurementSelectionType"},
      .unsupported = {},
      .hints = {{"metric", "hyperparameterMetricTag"},
                {"metricTag", "hyperparameterMetricTag"},
                {"parameters", "params"},
                {"earlyStopping", "enableTrialEarlyStopping"},
                {"stoppingRule", "earlyStoppingRule"}},
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
                   "discreteValues", "categoricalValues", "scaleType",
                   "conditionalParameterSpecs", "firstTrial"},
      .unsupported = {},
      .hints = {{"name", "parameterName"},
                {"min", "minValue"},
                {"max", "maxValue"},
                {"scale", "scaleType"},
                {"children", "conditionalParameterSpecs"},
                {"conditionalParameters", "conditionalParameterSpecs"}},
  };
  return *kFields;
}

// One entry of `conditionalParameterSpecs`, in Vertex AI's shape.
const FieldSet& ConditionalFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"parentDiscreteValues", "parentIntValues",
                   "parentCategoricalValues", "parameterSpec"},
      .unsupported = {},
      .hints = {{"parameter", "parameterSpec"},
                {"spec", "parameterSpec"},
                {"parentValues", "parentCategoricalValues"}},
  };
  return *kFields;
}

// The `{values: [...]}` mapping of a parent*Values field.
const FieldSet& ParentValuesFields() {
  static const FieldSet* const kFields =
      new FieldSet{.accepted = {"values"}, .unsupported = {}, .hints = {}};
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
      if (reader.Has(key) && !ParameterTypeTakesField(*type, key)) {
        reader.Error(key, "not allowed with type " + type_name + ", got " +
                              Describe(*reader.Find(key)));
      }
    }
  }
  const size_t before_values = sink.size();
  if (type) {
    const std::string type_name(ToString(*type));
    for (std::string_view key : ParameterTypeRequiredFields(*type)) {
      if (!reader.Has(key))
        reader.Error(key, "required with type " + type_name);
    }
  }
  // Without a valid type every field is still read, for its own errors.
  const auto wanted = [&type, &reader](std::string_view key) {
    return reader.Has(key) && (!type || ParameterTypeTakesField(*type, key));
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
  if (reader.Has("firstTrial")) {
    p.first_trial = reader.Integer("firstTrial", 0).value_or(0);
  }
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

// The `values` list of a parent*Values mapping, or nullopt (reported).
const ConfigNode* ParentValuesList(MapReader& reader, std::string_view key,
                                   std::string* values_path) {
  const ConfigNode* node = reader.Find(key);
  const std::string path = reader.PathOf(key);
  if (!ExpectMap(*node, path, reader.sink())) return nullptr;
  MapReader values(*node, path, ParentValuesFields(), reader.sink());
  if (!values.Has("values")) {
    values.Error("values",
                 "required (the parent values that activate the child, "
                 "e.g. {values: [adam]})");
    return nullptr;
  }
  *values_path = values.PathOf("values");
  return values.Find("values");
}

// The condition of one conditionalParameterSpecs entry: which parent values
// activate its child. ValidateStudySpec checks them against the parent.
ParentCondition ReadCondition(MapReader& reader, const std::string& parent) {
  ErrorSink& sink = reader.sink();
  ParentCondition condition;
  condition.parent = parent;
  int given = 0;
  std::string path;
  if (reader.Has("parentDiscreteValues")) {
    ++given;
    if (const ConfigNode* list =
            ParentValuesList(reader, "parentDiscreteValues", &path)) {
      condition.discrete_values =
          ReadNumberList(*list, path, sink).value_or(std::vector<double>{});
    }
  }
  if (reader.Has("parentIntValues")) {
    ++given;
    if (const ConfigNode* list =
            ParentValuesList(reader, "parentIntValues", &path)) {
      // int64 values are strings in proto3 JSON, as Vertex AI prints them.
      if (ExpectList(*list, path, sink)) {
        for (size_t i = 0; i < list->items.size(); ++i) {
          if (auto v = ReadInteger(list->items[i], IndexPath(path, i), sink,
                                   std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(),
                                   /*allow_decimal_string=*/true)) {
            condition.int_values.push_back(*v);
          }
        }
      }
    }
  }
  if (reader.Has("parentCategoricalValues")) {
    ++given;
    if (const ConfigNode* list =
            ParentValuesList(reader, "parentCategoricalValues", &path)) {
      condition.categorical_values = ReadStringList(*list, path, sink)
                                         .value_or(std::vector<std::string>{});
    }
  }
  if (given == 0) {
    reader.Error("parentCategoricalValues",
                 "required: one of parentDiscreteValues, parentIntValues or "
                 "parentCategoricalValues, by the parent's type");
  } else if (given > 1) {
    reader.Error("parentIntValues",
                 "give only one of parentDiscreteValues, parentIntValues and "
                 "parentCategoricalValues (the one of the parent's type)");
  }
  return condition;
}

// Reads the parameter at `item` and, depth first, its conditional children
// into `out`: the tree's depth-first order, parents before children.
void ReadParameterTree(const ConfigNode& item, const std::string& item_path,
                       std::optional<ParentCondition> condition,
                       ErrorSink& sink, std::vector<ParameterSpec>& out,
                       std::vector<std::string>& reported) {
  if (!ExpectMap(item, item_path, sink)) {
    out.emplace_back();
    out.back().condition = std::move(condition);
    reported.push_back(item_path);
    return;
  }
  // Unknown and duplicate fields leave the spec as written; only errors in
  // reading it make its values defaults.
  MapReader reader(item, item_path, ParameterFields(), sink);
  bool defaulted = false;
  out.push_back(ReadParameter(reader, &defaulted));
  out.back().condition = std::move(condition);
  if (defaulted) reported.push_back(item_path);
  const std::string parent = out.back().name;

  const ConfigNode* children = reader.Find("conditionalParameterSpecs");
  if (children == nullptr) return;
  const std::string children_path = reader.PathOf("conditionalParameterSpecs");
  if (!ExpectList(*children, children_path, sink)) {
    reported.push_back(children_path);
    return;
  }
  for (size_t i = 0; i < children->items.size(); ++i) {
    const std::string entry_path = IndexPath(children_path, i);
    const ConfigNode& entry = children->items[i];
    // A placeholder keeps the later siblings' positions, which their
    // config paths are made of.
    const auto placeholder = [&] {
      out.emplace_back();
      out.back().condition = ParentCondition{.parent = parent};
      reported.push_back(entry_path);
    };
    if (!ExpectMap(entry, entry_path, sink)) {
      placeholder();
      continue;
    }
    MapReader entry_reader(entry, entry_path, ConditionalFields(), sink);
    const size_t before = sink.size();
    ParentCondition child_condition = ReadCondition(entry_reader, parent);
    if (sink.size() > before) {
      // The condition's own errors are reported; ValidateStudySpec's would
      // be about the defaults left in their place.
      for (std::string_view key : {"parentDiscreteValues", "parentIntValues",
                                   "parentCategoricalValues"}) {
        reported.push_back(entry_reader.PathOf(key));
      }
    }
    const ConfigNode* spec = entry_reader.Find("parameterSpec");
    if (spec == nullptr) {
      entry_reader.Error("parameterSpec", "required (the child parameter)");
      placeholder();
      continue;
    }
    ReadParameterTree(*spec, entry_reader.PathOf("parameterSpec"),
                      std::move(child_condition), sink, out, reported);
  }
}

// `metrics` (several objectives and constraints), when given, instead of
// hyperparameterMetricTag and goal.
void ReadMetrics(MapReader& reader, ErrorSink& sink,
                 HyperparametersRead& result) {
  const ConfigNode* metrics = reader.Find("metrics");
  if (metrics == nullptr) return;
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
    result.spec.SetMetrics(std::move(list));
  }
}

// `params`, the search space: required.
void ReadParams(MapReader& reader, ErrorSink& sink,
                HyperparametersRead& result) {
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
      ReadParameterTree(params->items[i], IndexPath(params_path, i),
                        std::nullopt, sink, parameters, result.reported);
    }
    result.spec.search_space = SearchSpace(std::move(parameters));
  }
}

// enableTrialEarlyStopping, and hptune's earlyStoppingRule, which names
// the rule and turns early stopping on unless enableTrialEarlyStopping is
// given (ValidateStudySpec checks the name, and refuses it beside false).
void ReadEarlyStopping(MapReader& reader, StudySpec& spec) {
  if (auto on = reader.Bool("enableTrialEarlyStopping")) {
    spec.enable_early_stopping = *on;
  }
  if (auto rule = reader.String("earlyStoppingRule")) {
    if (rule->empty()) {
      reader.Error("earlyStoppingRule",
                   "must not be empty (leave it out for median-at-step)");
    }
    spec.early_stopping_rule = *rule;
    if (!reader.Has("enableTrialEarlyStopping")) {
      spec.enable_early_stopping = true;
    }
  }
}

}  // namespace

HyperparametersRead ReadHyperparameters(const ConfigNode& node,
                                        const std::string& path,
                                        ErrorSink& sink) {
  HyperparametersRead result;
  StudySpec& spec = result.spec;
  MapReader reader(node, path, StudyFields(), sink);
  // Records `key` as reported when reading it added an error.
  const auto read_reported = [&](std::string_view key, auto&& read_field) {
    const size_t before = sink.size();
    read_field();
    if (sink.size() > before) result.reported.push_back(reader.PathOf(key));
  };

  read_reported("goal", [&] {
    if (auto goal = ReadGoal(reader))
      spec.SetSingleMetric(spec.metric_tag(), *goal);
  });
  read_reported("hyperparameterMetricTag", [&] {
    if (auto tag = reader.String("hyperparameterMetricTag"))
      spec.SetSingleMetric(*tag, spec.goal());
  });
  ReadMetrics(reader, sink, result);
  // An int field, or an optional one; validation bounds its value.
  const auto read_int = [&](std::string_view key, auto& field) {
    read_reported(key, [&] {
      if (auto n = reader.Integer(key)) field = static_cast<int>(*n);
    });
  };
  read_int("maxTrials", spec.max_trials);
  read_int("maxParallelTrials", spec.max_parallel_trials);
  read_int("maxFailedTrials", spec.max_failed_trials);
  read_reported("earlyStoppingRule", [&] { ReadEarlyStopping(reader, spec); });
  read_reported("convexStopping", [&] {
    ReadStoppingSettings(reader, kConvexStoppingField, kConvexStoppingRule,
                         spec);
  });
  read_reported("earlyStoppingSettings", [&] {
    ReadStoppingSettings(reader, kStoppingSettingsField, "", spec);
  });
  read_int("trialLeaseSeconds", spec.trial_lease_seconds);
  read_int("seedingTrials", spec.seeding_trials);
  read_reported("resumePreviousJobId", [&] {
    if (auto id = reader.String("resumePreviousJobId")) {
      spec.resume_previous_job_id = *id;
      // An explicitly empty ID would otherwise pass as "no resume".
      if (id->empty()) reader.Error("resumePreviousJobId", "must not be empty");
    }
  });
  read_reported("algorithm", [&] {
    if (auto algorithm = ReadEnum<Algorithm>(
            reader, "algorithm", ParseAlgorithm,
            Names({Algorithm::kUnspecified, Algorithm::kGridSearch,
                   Algorithm::kRandomSearch, Algorithm::kQuasiRandomSearch,
                   Algorithm::kMultiFidelityGp}))) {
      spec.algorithm = *algorithm;
    }
  });
  read_reported("seed", [&] { spec.seed = ReadSeed(reader); });
  read_reported("measurementSelectionType", [&] {
    if (auto selection = ReadEnum<MeasurementSelection>(
            reader, "measurementSelectionType", ParseMeasurementSelection,
            {"MEASUREMENT_SELECTION_TYPE_UNSPECIFIED", "LAST_MEASUREMENT",
             "BEST_MEASUREMENT"})) {
      spec.measurement_selection = *selection;
    }
  });

  ReadParams(reader, sink, result);
  return result;
}

}  // namespace hptune::config_internal
