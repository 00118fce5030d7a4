// Reading a v1::StudySpec into a StudySpec (conversion.h, "Studies and
// trials"): its typed fields, then ValidateStudySpec's rules.
#include "src/api/study_from_proto.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hptune/core/config.h"
#include "src/api/conversion.h"
#include "src/api/proto_reading.h"
#include "src/api/stopping_from_proto.h"

namespace hptune::api {
namespace {

using proto_internal::DescribeNumber;
using proto_internal::IndexPath;
using proto_internal::JoinPath;
using proto_internal::MustBeOneOf;
using proto_internal::ProtoErrors;
using proto_internal::Quote;
using proto_internal::ReadStoppingSettings;
using proto_internal::UnknownEnum;

// How a config file's reader shows a list: short lists of scalars as
// written, others by their size.
template <typename T, typename Show>
std::string DescribeList(const google::protobuf::RepeatedField<T>& list,
                         Show show) {
  constexpr size_t kMaxShown = 60;
  std::string shown = "[";
  for (const auto& item : list) {
    if (shown.size() > 1) shown += ", ";
    shown += show(item);
  }
  if (shown.size() < kMaxShown) return shown + "]";
  return "a list of " + std::to_string(list.size()) +
         (list.size() == 1 ? " item" : " items");
}

std::optional<Goal> ReadGoal(int goal, const std::string& path,
                             ProtoErrors& errors) {
  switch (goal) {
    case v1::StudySpec::MAXIMIZE:
      return Goal::kMaximize;
    case v1::StudySpec::MINIMIZE:
      return Goal::kMinimize;
    case v1::StudySpec::GOAL_TYPE_UNSPECIFIED:
      errors.Add(
          path, MustBeOneOf({"MAXIMIZE", "MINIMIZE"}, "GOAL_TYPE_UNSPECIFIED"));
      return std::nullopt;
    default:
      errors.Add(path, UnknownEnum(goal));
      return std::nullopt;
  }
}

std::optional<ParameterType> ReadType(const v1::ParameterSpec& proto,
                                      const std::string& path,
                                      ProtoErrors& errors) {
  switch (proto.type()) {
    case v1::ParameterSpec::DOUBLE:
      return ParameterType::kDouble;
    case v1::ParameterSpec::INTEGER:
      return ParameterType::kInteger;
    case v1::ParameterSpec::DISCRETE:
      return ParameterType::kDiscrete;
    case v1::ParameterSpec::CATEGORICAL:
      return ParameterType::kCategorical;
    case v1::ParameterSpec::TYPE_UNSPECIFIED:
      errors.AddMissing(JoinPath(path, "type"), "required");
      return std::nullopt;
    default:
      errors.Add(JoinPath(path, "type"), UnknownEnum(proto.type()));
      return std::nullopt;
  }
}

// A number a config file could not have held (NaN, an infinity) is
// reported as the file's reader reports the text protobuf writes for it.
std::optional<double> ReadNumber(double value, const std::string& path,
                                 ProtoErrors& errors) {
  if (std::isfinite(value)) return value;
  errors.Add(path, "must be a number, got " + DescribeNumber(value));
  return std::nullopt;
}

std::optional<std::vector<double>> ReadNumbers(
    const google::protobuf::RepeatedField<double>& list,
    const std::string& path, ProtoErrors& errors) {
  std::vector<double> values;
  bool ok = true;
  for (int i = 0; i < list.size(); ++i) {
    std::optional<double> v = ReadNumber(list[i], IndexPath(path, i), errors);
    ok = ok && v.has_value();
    if (v) values.push_back(*v);
  }
  if (!ok) return std::nullopt;
  return values;
}

// The fields of `proto` a parameter type may have that are set, each with
// how a config file's reader shows its value.
std::vector<std::pair<std::string_view, std::string>> TypeFields(
    const v1::ParameterSpec& proto) {
  std::vector<std::pair<std::string_view, std::string>> fields;
  if (proto.has_min_value()) {
    fields.emplace_back("minValue", DescribeNumber(proto.min_value()));
  }
  if (proto.has_max_value()) {
    fields.emplace_back("maxValue", DescribeNumber(proto.max_value()));
  }
  if (proto.discrete_values_size() > 0) {
    fields.emplace_back("discreteValues",
                        DescribeList(proto.discrete_values(), DescribeNumber));
  }
  if (proto.categorical_values_size() > 0) {
    fields.emplace_back(
        "categoricalValues",
        field_text::DescribeStrings({proto.categorical_values().begin(),
                                     proto.categorical_values().end()}));
  }
  if (proto.has_scale_type()) {
    const int scale = proto.scale_type();
    fields.emplace_back(
        "scaleType",
        v1::ParameterSpec::ScaleType_IsValid(scale)
            ? Quote(v1::ParameterSpec::ScaleType_Name(proto.scale_type()))
            : std::to_string(scale));
  }
  return fields;
}

using TypeFieldList = std::vector<std::pair<std::string_view, std::string>>;

// Fields of another type than the parameter's: reported and left out of the
// spec, so ValidateStudySpec does not report them again.
void ReportForeignFields(const TypeFieldList& fields, ParameterType type,
                         const std::string& path, ProtoErrors& errors) {
  const std::string type_name(ToString(type));
  for (const auto& [key, shown] : fields) {
    if (ParameterTypeTakesField(type, key)) continue;
    errors.Add(JoinPath(path, key),
               "not allowed with type " + type_name + ", got " + shown);
  }
}

// The type's values; without a valid type every field is read, for its
// own errors.
void ReadValues(const v1::ParameterSpec& proto, const TypeFieldList& fields,
                std::optional<ParameterType> type, const std::string& path,
                ProtoErrors& errors, ParameterSpec& p) {
  const auto has = [&fields](std::string_view key) {
    for (const auto& [name, shown] : fields) {
      if (name == key) return true;
    }
    return false;
  };
  if (type) {
    for (std::string_view key : ParameterTypeRequiredFields(*type)) {
      if (has(key)) continue;
      errors.AddMissing(JoinPath(path, key),
                        "required with type " + std::string(ToString(*type)));
    }
  }
  const auto wanted = [&](std::string_view key) {
    return has(key) && (!type || ParameterTypeTakesField(*type, key));
  };
  if (wanted("minValue")) {
    p.min_value =
        ReadNumber(proto.min_value(), JoinPath(path, "minValue"), errors)
            .value_or(0);
  }
  if (wanted("maxValue")) {
    p.max_value =
        ReadNumber(proto.max_value(), JoinPath(path, "maxValue"), errors)
            .value_or(0);
  }
  if (wanted("discreteValues")) {
    p.discrete_values = ReadNumbers(proto.discrete_values(),
                                    JoinPath(path, "discreteValues"), errors)
                            .value_or(std::vector<double>{});
  }
  if (wanted("categoricalValues")) {
    p.categorical_values.assign(proto.categorical_values().begin(),
                                proto.categorical_values().end());
  }
  if (wanted("scaleType")) {
    const int scale = proto.scale_type();
    if (v1::ParameterSpec::ScaleType_IsValid(scale)) {
      p.scale = static_cast<ScaleType>(scale);
    } else {
      errors.Add(JoinPath(path, "scaleType"), UnknownEnum(scale));
    }
  }
}

// Sets `*defaulted` when an error left a field at its default (a bad
// value, a missing field).
ParameterSpec ReadParameter(const v1::ParameterSpec& proto,
                            const std::string& path, ProtoErrors& errors,
                            bool* defaulted) {
  const size_t before_name = errors.size();
  ParameterSpec p;
  p.name = proto.parameter_name();
  if (p.name.empty())
    errors.AddMissing(JoinPath(path, "parameterName"), "required");
  const std::optional<ParameterType> type = ReadType(proto, path, errors);
  *defaulted = errors.size() > before_name;
  const TypeFieldList fields = TypeFields(proto);
  if (type) {
    p.type = *type;
    ReportForeignFields(fields, *type, path, errors);
  }
  const size_t before_values = errors.size();
  ReadValues(proto, fields, type, path, errors, p);
  p.first_trial = proto.first_trial();  // ValidateStudySpec checks it.
  *defaulted = *defaulted || errors.size() > before_values;
  return p;
}

const char kValuesRequired[] =
    "required (the parent values that activate the child, e.g. {values: "
    "[adam]})";

// Which parent values activate a child; ValidateStudySpec checks them.
ParentCondition ReadCondition(const v1::ConditionalParameterSpec& entry,
                              const std::string& path,
                              const std::string& parent, ProtoErrors& errors) {
  ParentCondition condition;
  condition.parent = parent;
  switch (entry.parent_value_condition_case()) {
    case v1::ConditionalParameterSpec::kParentDiscreteValues: {
      const std::string field = JoinPath(path, "parentDiscreteValues.values");
      const auto& values = entry.parent_discrete_values().values();
      if (values.empty()) {
        errors.AddMissing(field, kValuesRequired);
      } else {
        condition.discrete_values =
            ReadNumbers(values, field, errors).value_or(std::vector<double>{});
      }
      break;
    }
    case v1::ConditionalParameterSpec::kParentIntValues: {
      const auto& values = entry.parent_int_values().values();
      if (values.empty()) {
        errors.AddMissing(JoinPath(path, "parentIntValues.values"),
                          kValuesRequired);
      }
      condition.int_values.assign(values.begin(), values.end());
      break;
    }
    case v1::ConditionalParameterSpec::kParentCategoricalValues: {
      const auto& values = entry.parent_categorical_values().values();
      if (values.empty()) {
        errors.AddMissing(JoinPath(path, "parentCategoricalValues.values"),
                          kValuesRequired);
      }
      condition.categorical_values.assign(values.begin(), values.end());
      break;
    }
    case v1::ConditionalParameterSpec::PARENT_VALUE_CONDITION_NOT_SET:
      errors.AddMissing(
          JoinPath(path, "parentCategoricalValues"),
          "required: one of parentDiscreteValues, parentIntValues or "
          "parentCategoricalValues, by the parent's type");
      break;
  }
  return condition;
}

// The parameter and, depth first, its conditional children into `out`:
// parents before children, as SearchSpace takes them.
void ReadParameterTree(const v1::ParameterSpec& proto, const std::string& path,
                       std::optional<ParentCondition> condition,
                       ProtoErrors& errors, std::vector<ParameterSpec>& out) {
  bool defaulted = false;
  out.push_back(ReadParameter(proto, path, errors, &defaulted));
  out.back().condition = std::move(condition);
  if (defaulted) errors.Report(path);
  const std::string parent = out.back().name;
  const std::string children = JoinPath(path, "conditionalParameterSpecs");
  for (int i = 0; i < proto.conditional_parameter_specs_size(); ++i) {
    const v1::ConditionalParameterSpec& entry =
        proto.conditional_parameter_specs(i);
    const std::string entry_path = IndexPath(children, i);
    const size_t before = errors.size();
    ParentCondition child_condition =
        ReadCondition(entry, entry_path, parent, errors);
    if (errors.size() > before) {
      for (std::string_view key : {"parentDiscreteValues", "parentIntValues",
                                   "parentCategoricalValues"}) {
        errors.Report(JoinPath(entry_path, key));
      }
    }
    if (!entry.has_parameter_spec()) {
      errors.AddMissing(JoinPath(entry_path, "parameterSpec"),
                        "required (the child parameter)");
      // A placeholder keeps the later siblings' positions.
      out.emplace_back();
      out.back().condition = ParentCondition{.parent = parent};
      errors.Report(entry_path);
      continue;
    }
    ReadParameterTree(entry.parameter_spec(),
                      JoinPath(entry_path, "parameterSpec"),
                      std::move(child_condition), errors, out);
  }
}

// One entry of `metrics`; ValidateStudySpec checks the values.
MetricSpec ReadMetric(const v1::MetricSpec& proto, const std::string& path,
                      ProtoErrors& errors) {
  MetricSpec m;
  m.id = proto.metric_id();
  if (m.id.empty()) errors.AddMissing(JoinPath(path, "metricId"), "required");
  if (proto.goal() == v1::StudySpec::GOAL_TYPE_UNSPECIFIED) {
    errors.AddMissing(JoinPath(path, "goal"),
                      "required (MAXIMIZE or MINIMIZE)");
  } else if (auto goal =
                 ReadGoal(proto.goal(), JoinPath(path, "goal"), errors)) {
    m.goal = *goal;
  }
  if (proto.has_safety_threshold()) {
    m.safety_threshold = ReadNumber(proto.safety_threshold(),
                                    JoinPath(path, "safetyThreshold"), errors);
  }
  if (proto.has_desired_min_safe_trials_fraction()) {
    m.desired_min_safe_trials_fraction =
        ReadNumber(proto.desired_min_safe_trials_fraction(),
                   JoinPath(path, "desiredMinSafeTrialsFraction"), errors);
  }
  return m;
}

// `metrics`, when given, instead of hyperparameterMetricTag and goal.
void ReadMetrics(const v1::StudySpec& proto, const std::string& path,
                 ProtoErrors& errors, StudySpec& spec) {
  if (proto.metrics_size() == 0) return;
  const auto refuse = [&](bool given, std::string_view key) {
    if (!given) return;
    errors.Add(JoinPath(path, key),
               "not allowed with metrics (give each metric's goal in "
               "its entry; the first objective is the primary metric)");
    errors.Report(JoinPath(path, key));
  };
  refuse(proto.has_hyperparameter_metric_tag(), "hyperparameterMetricTag");
  refuse(proto.has_goal(), "goal");
  std::vector<MetricSpec> list;
  const std::string metrics_path = JoinPath(path, "metrics");
  for (int i = 0; i < proto.metrics_size(); ++i) {
    const std::string item_path = IndexPath(metrics_path, i);
    const size_t before = errors.size();
    list.push_back(ReadMetric(proto.metrics(i), item_path, errors));
    if (errors.size() > before) errors.Report(item_path);
  }
  spec.SetMetrics(std::move(list));
}

// earlyStoppingRule names the rule and turns early stopping on unless
// enableTrialEarlyStopping is given (ValidateStudySpec checks the name,
// and refuses it beside false).
void ReadEarlyStopping(const v1::StudySpec& proto, const std::string& path,
                       ProtoErrors& errors, StudySpec& spec) {
  if (proto.has_enable_trial_early_stopping()) {
    spec.enable_early_stopping = proto.enable_trial_early_stopping();
  }
  if (!proto.has_early_stopping_rule()) return;
  spec.early_stopping_rule = proto.early_stopping_rule();
  if (spec.early_stopping_rule.empty()) {
    errors.Add(JoinPath(path, "earlyStoppingRule"),
               "must not be empty (leave it out for median-at-step)");
  }
  if (!proto.has_enable_trial_early_stopping()) {
    spec.enable_early_stopping = true;
  }
}

std::optional<Algorithm> ReadAlgorithm(int algorithm, const std::string& path,
                                       ProtoErrors& errors) {
  switch (algorithm) {
    case v1::StudySpec::ALGORITHM_UNSPECIFIED:
      return Algorithm::kUnspecified;
    case v1::StudySpec::GRID_SEARCH:
      return Algorithm::kGridSearch;
    case v1::StudySpec::RANDOM_SEARCH:
      return Algorithm::kRandomSearch;
    case v1::StudySpec::QUASI_RANDOM_SEARCH:
      return Algorithm::kQuasiRandomSearch;
    case v1::StudySpec::MULTI_FIDELITY_GP:
      return Algorithm::kMultiFidelityGp;
    default:
      errors.Add(path, UnknownEnum(algorithm));
      return std::nullopt;
  }
}

// The fields that are plain values: the budget, the lease, seeding and
// the seed.
void ReadScalars(const v1::StudySpec& proto, StudySpec& spec) {
  if (proto.has_max_trials()) spec.max_trials = proto.max_trials();
  if (proto.has_max_parallel_trials()) {
    spec.max_parallel_trials = proto.max_parallel_trials();
  }
  if (proto.has_max_failed_trials()) {
    spec.max_failed_trials = proto.max_failed_trials();
  }
  if (proto.has_trial_lease_seconds()) {
    spec.trial_lease_seconds = proto.trial_lease_seconds();
  }
  if (proto.has_seeding_trials()) spec.seeding_trials = proto.seeding_trials();
  if (proto.measurement_selection_type() == v1::StudySpec::BEST_MEASUREMENT) {
    spec.measurement_selection = MeasurementSelection::kBest;
  }
  if (proto.has_seed()) spec.seed = proto.seed();
}

// Records `key` as reported when reading it added an error.
template <typename Read>
void ReadField(std::string_view key, const std::string& path,
               ProtoErrors& errors, Read read_field) {
  const size_t before = errors.size();
  read_field();
  if (errors.size() > before) errors.Report(JoinPath(path, key));
}

void ReadResumeAndAlgorithm(const v1::StudySpec& proto, const std::string& path,
                            ProtoErrors& errors, StudySpec& spec) {
  if (proto.has_resume_previous_job_id()) {
    ReadField("resumePreviousJobId", path, errors, [&] {
      spec.resume_previous_job_id = proto.resume_previous_job_id();
      // An explicitly empty ID would otherwise pass as "no resume".
      if (spec.resume_previous_job_id.empty()) {
        errors.Add(JoinPath(path, "resumePreviousJobId"), "must not be empty");
      }
    });
  }
  if (proto.has_algorithm()) {
    ReadField("algorithm", path, errors, [&] {
      if (auto algorithm = ReadAlgorithm(proto.algorithm(),
                                         JoinPath(path, "algorithm"), errors)) {
        spec.algorithm = *algorithm;
      }
    });
  }
}

}  // namespace

namespace proto_internal {

StudySpec ReadStudySpec(const v1::StudySpec& proto, const std::string& path,
                        ProtoErrors& errors) {
  StudySpec spec;
  if (proto.has_goal()) {
    ReadField("goal", path, errors, [&] {
      if (auto goal = ReadGoal(proto.goal(), JoinPath(path, "goal"), errors)) {
        spec.SetSingleMetric(spec.metric_tag(), *goal);
      }
    });
  }
  if (proto.has_hyperparameter_metric_tag()) {
    spec.SetSingleMetric(proto.hyperparameter_metric_tag(), spec.goal());
  }
  ReadMetrics(proto, path, errors, spec);
  ReadField("earlyStoppingRule", path, errors,
            [&] { ReadEarlyStopping(proto, path, errors, spec); });
  ReadField(kStoppingSettingsField, path, errors,
            [&] { ReadStoppingSettings(proto, path, errors, spec); });
  ReadScalars(proto, spec);
  ReadResumeAndAlgorithm(proto, path, errors, spec);
  const std::string params = JoinPath(path, "params");
  if (proto.params_size() == 0) {
    errors.AddMissing(params, "required (at least one parameter)");
    errors.Report(params);
    return spec;
  }
  std::vector<ParameterSpec> parameters;
  for (int i = 0; i < proto.params_size(); ++i) {
    ReadParameterTree(proto.params(i), IndexPath(params, i), std::nullopt,
                      errors, parameters);
  }
  spec.search_space = SearchSpace(std::move(parameters));
  return spec;
}

}  // namespace proto_internal

absl::StatusOr<StudySpec> StudySpecFromProto(const v1::StudySpec& proto,
                                             std::string_view field) {
  const std::string path(field);
  ProtoErrors errors;
  StudySpec spec = proto_internal::ReadStudySpec(proto, path, errors);
  errors.AddRules(ValidateStudySpec(spec, path));
  HPTUNE_RETURN_IF_ERROR(errors.ToStatus());
  return spec;
}

absl::StatusOr<ParameterSpec> RootParameterFromProto(
    const v1::ParameterSpec& proto, std::string_view field) {
  const std::string path(field);
  ProtoErrors errors;
  if (proto.conditional_parameter_specs_size() > 0) {
    errors.Add(JoinPath(path, "conditionalParameterSpecs"),
               "a parameter that joins a study has no conditional children, "
               "got " +
                   std::to_string(proto.conditional_parameter_specs_size()));
  }
  bool defaulted = false;
  ParameterSpec spec = ReadParameter(proto, path, errors, &defaulted);
  HPTUNE_RETURN_IF_ERROR(errors.ToStatus());
  return spec;
}

}  // namespace hptune::api
