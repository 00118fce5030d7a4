// Semantic rules on studies and job IDs (docs/config.md), shared by
// config parsing and the API edge, plus the FieldError -> Status conversion.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "hptune/core/config.h"
#include "hptune/core/search_space.h"
#include "hptune/core/study.h"
#include "src/core/config/text.h"

namespace hptune {
namespace {

using config_internal::FormatNumber;
using config_internal::IndexPath;
using config_internal::JoinPath;
using config_internal::Quote;

constexpr size_t kMaxJobIdLength = 128;
constexpr size_t kMaxParameters = 100;
constexpr size_t kMaxDiscreteValues = 1000;
constexpr size_t kMaxCategoricalValues = 1000;
// A name becomes a --flag and a column; a value travels in every trial.
constexpr size_t kMaxParameterNameLength = 128;
constexpr size_t kMaxCategoricalValueLength = 256;
constexpr size_t kMaxMetricTagLength = 256;
// exec(2)'s limits (see ValidateTrainerCommandLine).
constexpr size_t kMaxArgumentBytes = 128 * 1024 - 1;
constexpr size_t kMaxArguments = 10'000;
constexpr size_t kMaxCommandLineBytes = 1 << 20;
// INTEGER values travel as doubles; beyond 2^53 not every integer is one.
constexpr double kMaxExactInteger = 9007199254740992.0;

bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

class Checker {
 public:
  explicit Checker(std::vector<FieldError>* errors) : errors_(errors) {}
  void Error(std::string field, std::string message) {
    errors_->push_back({std::move(field), std::move(message)});
  }

 private:
  std::vector<FieldError>* errors_;
};

// Trainers get `--<name>=<value>`, so a name must read as one flag.
void CheckParameterName(const std::string& path, const std::string& name,
                        Checker& check) {
  const std::string field = JoinPath(path, "parameterName");
  if (name.empty()) {
    check.Error(field, "must not be empty");
    return;
  }
  if (name.size() > kMaxParameterNameLength) {
    check.Error(field, "must be at most " +
                           std::to_string(kMaxParameterNameLength) +
                           " characters, got " + std::to_string(name.size()));
    return;
  }
  for (char c : name) {
    if (!IsAsciiLetter(c) && !IsAsciiDigit(c) && c != '_' && c != '-' &&
        c != '.') {
      check.Error(field,
                  "must contain only letters, digits, '_', '-' and '.' (it "
                  "becomes a --flag), got " +
                      Quote(name));
      return;
    }
  }
  if (name[0] == '-') {
    check.Error(field, "must not start with '-' (it becomes a --flag), got " +
                           Quote(name));
  }
}

// The bounds of a DOUBLE or INTEGER parameter.
void CheckRange(const std::string& path, const ParameterSpec& p,
                Checker& check) {
  bool ok = true;
  for (auto [field, value] : {std::pair{"minValue", p.min_value},
                              std::pair{"maxValue", p.max_value}}) {
    if (!std::isfinite(value)) {
      check.Error(JoinPath(path, field),
                  "must be finite, got " + FormatNumber(value));
      ok = false;
    } else if (p.type == ParameterType::kInteger) {
      if (value != std::floor(value)) {
        check.Error(
            JoinPath(path, field),
            "must be an integer for type INTEGER, got " + FormatNumber(value));
        ok = false;
      } else if (std::fabs(value) > kMaxExactInteger) {
        check.Error(JoinPath(path, field),
                    "must be between -2^53 and 2^53 for type INTEGER, got " +
                        FormatNumber(value));
        ok = false;
      }
    }
  }
  if (!ok) return;
  if (p.min_value >= p.max_value) {
    check.Error(JoinPath(path, "minValue"),
                "must be less than maxValue " + FormatNumber(p.max_value) +
                    ", got " + FormatNumber(p.min_value));
    return;
  }
  if ((p.scale == ScaleType::kLog || p.scale == ScaleType::kReverseLog) &&
      p.min_value <= 0) {
    check.Error(JoinPath(path, "scaleType"), std::string(ToString(p.scale)) +
                                                 " needs minValue > 0, got " +
                                                 FormatNumber(p.min_value));
  }
}

void CheckDiscrete(const std::string& path, const ParameterSpec& p,
                   Checker& check) {
  const std::string field = JoinPath(path, "discreteValues");
  const std::vector<double>& values = p.discrete_values;
  if (values.empty()) {
    check.Error(field, "must not be empty");
    return;
  }
  if (values.size() > kMaxDiscreteValues) {
    check.Error(field, "must have at most " +
                           std::to_string(kMaxDiscreteValues) +
                           " values, got " + std::to_string(values.size()));
  }
  bool ok = true;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      check.Error(IndexPath(field, i),
                  "must be finite, got " + FormatNumber(values[i]));
      ok = false;
    } else if (i > 0 && std::isfinite(values[i - 1]) &&
               values[i] <= values[i - 1]) {
      check.Error(IndexPath(field, i),
                  "must be greater than " + FormatNumber(values[i - 1]) +
                      " (discreteValues must be strictly increasing), got " +
                      FormatNumber(values[i]));
      ok = false;
    }
  }
  if (ok && (p.scale == ScaleType::kLog || p.scale == ScaleType::kReverseLog) &&
      values.front() <= 0) {
    check.Error(JoinPath(path, "scaleType"),
                std::string(ToString(p.scale)) +
                    " needs discreteValues > 0, got " +
                    FormatNumber(values.front()));
  }
}

void CheckCategorical(const std::string& path, const ParameterSpec& p,
                      Checker& check) {
  const std::string field = JoinPath(path, "categoricalValues");
  if (p.categorical_values.empty()) {
    check.Error(field, "must not be empty");
    return;
  }
  if (p.categorical_values.size() > kMaxCategoricalValues) {
    check.Error(field, "must have at most " +
                           std::to_string(kMaxCategoricalValues) +
                           " values, got " +
                           std::to_string(p.categorical_values.size()));
    return;
  }
  std::map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < p.categorical_values.size(); ++i) {
    const std::string& value = p.categorical_values[i];
    if (value.empty()) {
      check.Error(IndexPath(field, i), "must not be empty");
      continue;
    }
    if (value.size() > kMaxCategoricalValueLength) {
      check.Error(IndexPath(field, i),
                  "must be at most " +
                      std::to_string(kMaxCategoricalValueLength) +
                      " characters, got " + std::to_string(value.size()));
      continue;
    }
    auto [it, inserted] = first_index.emplace(value, i);
    if (!inserted) {
      check.Error(IndexPath(field, i), "duplicate value " + Quote(value) +
                                           " (also at index " +
                                           std::to_string(it->second) + ")");
    }
  }
}

// Fields of another type: the API edge can set them; config parsing reports
// them where they are written and never copies them into the spec.
void CheckForeignFields(const std::string& path, const ParameterSpec& p,
                        Checker& check) {
  const std::string type(ToString(p.type));
  const bool ranged =
      p.type == ParameterType::kDouble || p.type == ParameterType::kInteger;
  const std::string not_allowed = "not allowed with type " + type + ", got ";
  if (!ranged && p.min_value != 0) {
    check.Error(JoinPath(path, "minValue"),
                not_allowed + FormatNumber(p.min_value));
  }
  if (!ranged && p.max_value != 0) {
    check.Error(JoinPath(path, "maxValue"),
                not_allowed + FormatNumber(p.max_value));
  }
  if (p.type != ParameterType::kDiscrete && !p.discrete_values.empty()) {
    check.Error(
        JoinPath(path, "discreteValues"),
        not_allowed + std::to_string(p.discrete_values.size()) + " values");
  }
  if (p.type != ParameterType::kCategorical && !p.categorical_values.empty()) {
    check.Error(
        JoinPath(path, "categoricalValues"),
        not_allowed + std::to_string(p.categorical_values.size()) + " values");
  }
  if (p.type == ParameterType::kCategorical && p.scale != ScaleType::kNone) {
    check.Error(JoinPath(path, "scaleType"),
                not_allowed + std::string(ToString(p.scale)));
  }
}

void CheckParameter(const std::string& path, const ParameterSpec& p,
                    Algorithm algorithm, Checker& check) {
  CheckParameterName(path, p.name, check);
  switch (p.type) {
    case ParameterType::kDouble:
    case ParameterType::kInteger:
      CheckRange(path, p, check);
      break;
    case ParameterType::kDiscrete:
      CheckDiscrete(path, p, check);
      break;
    case ParameterType::kCategorical:
      CheckCategorical(path, p, check);
      break;
  }
  CheckForeignFields(path, p, check);
  if (algorithm == Algorithm::kGridSearch && p.type == ParameterType::kDouble) {
    check.Error(JoinPath(path, "type"),
                "algorithm GRID_SEARCH needs INTEGER, DISCRETE or CATEGORICAL "
                "parameters, got DOUBLE for " +
                    Quote(p.name));
  }
}

// The path of the conditionalParameterSpecs entry that holds the child at
// `child_path` (which ends in ".parameterSpec").
std::string EntryPath(const std::string& child_path) {
  constexpr std::string_view kSuffix = ".parameterSpec";
  if (child_path.ends_with(kSuffix)) {
    return child_path.substr(0, child_path.size() - kSuffix.size());
  }
  return child_path;
}

// Each value once, and each one of the parent's.
template <typename T, typename Describe>
void CheckParentValues(const std::string& field, const std::vector<T>& values,
                       const std::vector<T>& domain,
                       const ParameterSpec& parent,
                       std::string_view domain_field, Describe describe,
                       Checker& check) {
  if (values.empty()) {
    check.Error(field, "required: the parent " + Quote(parent.name) + " is " +
                           std::string(ToString(parent.type)) +
                           " (at least one of its values)");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string value_field = IndexPath(JoinPath(field, "values"), i);
    if (std::find(values.begin(), values.begin() + i, values[i]) !=
        values.begin() + i) {
      check.Error(value_field, "duplicate value " + describe(values[i]));
    } else if (!domain.empty() && std::find(domain.begin(), domain.end(),
                                            values[i]) == domain.end()) {
      check.Error(value_field, "not one of the " + std::string(domain_field) +
                                   " of the parent " + Quote(parent.name) +
                                   ", got " + describe(values[i]));
    }
  }
}

// A child's condition against its parent: the parent exists and comes first,
// can be listed (not DOUBLE), and the values given are of its type and in
// its domain.
void CheckCondition(const SearchSpace& space, int i,
                    const std::string& child_path, Checker& check) {
  const ParameterSpec& child = space.parameters()[i];
  const ParentCondition& condition = *child.condition;
  const std::string entry = EntryPath(child_path);
  const int parent_index = space.IndexOf(condition.parent);
  if (parent_index < 0) {
    check.Error(JoinPath(entry, "parent"),
                "no parameter is named " + Quote(condition.parent));
    return;
  }
  if (parent_index >= i) {
    check.Error(JoinPath(entry, "parent"),
                "the parent " + Quote(condition.parent) +
                    " must come before its child " + Quote(child.name) +
                    " (no cycles)");
    return;
  }
  const ParameterSpec& parent = space.parameters()[parent_index];
  const std::string discrete = JoinPath(entry, "parentDiscreteValues");
  const std::string ints = JoinPath(entry, "parentIntValues");
  const std::string categories = JoinPath(entry, "parentCategoricalValues");
  const std::string parent_type(ToString(parent.type));
  const auto refuse = [&](const std::string& field, bool given) {
    if (given) {
      check.Error(field, "not allowed: the parent " + Quote(parent.name) +
                             " is " + parent_type);
    }
  };
  switch (parent.type) {
    case ParameterType::kDouble:
      check.Error(entry, "the parent " + Quote(parent.name) +
                             " is DOUBLE, whose values cannot be listed; "
                             "make it DISCRETE, INTEGER or CATEGORICAL");
      return;
    case ParameterType::kDiscrete:
      refuse(ints, !condition.int_values.empty());
      refuse(categories, !condition.categorical_values.empty());
      CheckParentValues(
          discrete, condition.discrete_values, parent.discrete_values, parent,
          "discreteValues",
          [](double v) { return ParameterValue::Double(v).ToString(); }, check);
      return;
    case ParameterType::kInteger: {
      refuse(discrete, !condition.discrete_values.empty());
      refuse(categories, !condition.categorical_values.empty());
      CheckParentValues(
          ints, condition.int_values, std::vector<int64_t>{}, parent,
          "integers", [](int64_t v) { return std::to_string(v); }, check);
      for (size_t k = 0; k < condition.int_values.size(); ++k) {
        const auto v = static_cast<double>(condition.int_values[k]);
        if (v < parent.min_value || v > parent.max_value) {
          check.Error(IndexPath(JoinPath(ints, "values"), k),
                      "must be in [" +
                          ParameterValue::Double(parent.min_value).ToString() +
                          ", " +
                          ParameterValue::Double(parent.max_value).ToString() +
                          "], the range of the parent " + Quote(parent.name) +
                          ", got " + std::to_string(condition.int_values[k]));
        }
      }
      return;
    }
    case ParameterType::kCategorical:
      refuse(discrete, !condition.discrete_values.empty());
      refuse(ints, !condition.int_values.empty());
      CheckParentValues(categories, condition.categorical_values,
                        parent.categorical_values, parent, "categoricalValues",
                        Quote, check);
      return;
  }
}

// A metric name is matched in `name=value` stdout lines split on
// whitespace, and shown as a column.
void CheckMetricName(const std::string& field, const std::string& name,
                     Checker& check) {
  if (name.empty()) {
    check.Error(field, "must not be empty");
  } else if (name.size() > kMaxMetricTagLength) {
    check.Error(field, "must be at most " +
                           std::to_string(kMaxMetricTagLength) +
                           " characters, got " + std::to_string(name.size()));
  } else if (name.find_first_of(" \t\n\r=") != std::string::npos) {
    check.Error(field,
                "must not contain whitespace or '=', got " + Quote(name));
  }
}

// A rule's name as the stopping-rule registry takes it (stopping_registry.h),
// and early stopping on where one is named.
void CheckStoppingRule(const std::string& field, const StudySpec& spec,
                       Checker& check) {
  const std::string& rule = spec.early_stopping_rule;
  if (rule.empty()) return;
  const bool printable = rule.size() <= 100 &&
                         std::all_of(rule.begin(), rule.end(),
                                     [](char c) { return c > ' ' && c < 127; });
  if (!printable) {
    check.Error(field,
                "expected a rule's name (1 to 100 characters, no spaces), "
                "such as decay-curve, got " +
                    Quote(rule.substr(0, 120)));
  } else if (!spec.enable_early_stopping) {
    check.Error(field, "names rule " + Quote(rule) +
                           " but enableTrialEarlyStopping is false");
  }
}

// The convex rule's settings: in range, and only beside that rule.
void CheckConvexStopping(const std::string& field, const StudySpec& spec,
                         Checker& check) {
  const ConvexStoppingSettings& settings = spec.convex_stopping;
  if (settings.empty()) return;
  if (spec.EffectiveStoppingRule() != "convex" || !spec.enable_early_stopping) {
    check.Error(field, "settings of the convex rule, but the study's rule is " +
                           Quote(spec.EffectiveStoppingRule()) +
                           (spec.enable_early_stopping
                                ? std::string()
                                : std::string(" and early stopping is off")));
  }
  const auto between = [&](std::string_view name, int64_t value,
                           int64_t minimum, int64_t maximum) {
    if (value < minimum || value > maximum) {
      check.Error(JoinPath(field, name), "must be " + std::to_string(minimum) +
                                             " to " + std::to_string(maximum) +
                                             ", got " + std::to_string(value));
    }
  };
  if (settings.max_step_count) {
    between("maxStepCount", *settings.max_step_count, 0, kMaxStoppingStepCount);
  }
  if (settings.min_step_count) {
    between("minStepCount", *settings.min_step_count, 0, kMaxStoppingStepCount);
  }
  if (settings.min_measurement_count) {
    between("minMeasurementCount", *settings.min_measurement_count,
            kMinConvexMeasurements, kMaxConvexMeasurements);
  }
}

// Vertex AI's `metrics` list (study.h's MetricSpec).
void CheckMetrics(std::string_view prefix, const StudySpec& spec,
                  Checker& check) {
  const std::string field = JoinPath(prefix, "metrics");
  const std::vector<MetricSpec>& metrics = spec.metrics;
  if (metrics.size() > static_cast<size_t>(kMaxMetrics)) {
    check.Error(field, "must have at most " + std::to_string(kMaxMetrics) +
                           " metrics, got " + std::to_string(metrics.size()));
  }
  std::map<std::string_view, size_t> first_index;
  int objectives = 0;
  for (size_t i = 0; i < metrics.size(); ++i) {
    const MetricSpec& m = metrics[i];
    const std::string path = IndexPath(field, i);
    CheckMetricName(JoinPath(path, "metricId"), m.id, check);
    if (!m.id.empty()) {
      auto [it, inserted] = first_index.emplace(m.id, i);
      if (!inserted) {
        check.Error(JoinPath(path, "metricId"),
                    "duplicate metric " + Quote(m.id) + " (also " +
                        IndexPath(field, it->second) + ")");
      }
    }
    if (m.safety_threshold && !std::isfinite(*m.safety_threshold)) {
      check.Error(
          JoinPath(path, "safetyThreshold"),
          "must be a finite number, got " + FormatNumber(*m.safety_threshold));
    }
    if (const auto& fraction = m.desired_min_safe_trials_fraction) {
      const std::string fraction_field =
          JoinPath(path, "desiredMinSafeTrialsFraction");
      if (!m.safety_threshold) {
        check.Error(fraction_field, "needs a safetyThreshold on this metric");
      } else if (!(*fraction >= 0 && *fraction <= 1)) {
        check.Error(fraction_field,
                    "must be between 0 and 1, got " + FormatNumber(*fraction));
      }
    }
    if (!m.is_constraint()) ++objectives;
  }
  if (objectives == 0) {
    check.Error(field,
                "needs at least one objective (a metric without "
                "safetyThreshold); every metric given is a constraint");
  } else if (objectives > kMaxObjectives) {
    check.Error(field, "must have at most " + std::to_string(kMaxObjectives) +
                           " objectives (metrics without safetyThreshold), "
                           "got " +
                           std::to_string(objectives));
  }
  // StudySpec::SetMetrics keeps these; a C++ caller that set `metrics`
  // directly may not have.
  const std::vector<MetricSpec> objective_list = spec.Objectives();
  if (!objective_list.empty() &&
      (spec.metric_tag != objective_list.front().id ||
       spec.goal != objective_list.front().goal)) {
    check.Error(JoinPath(prefix, "hyperparameterMetricTag"),
                "must not be given with metrics (the first objective, " +
                    Quote(objective_list.front().id) +
                    ", is the primary metric), got " + Quote(spec.metric_tag));
  }
}

void CheckAtLeast(const std::string& field, int value, int minimum,
                  Checker& check) {
  if (value < minimum) {
    check.Error(field, "must be at least " + std::to_string(minimum) +
                           ", got " + std::to_string(value));
  }
}

void CheckBetween(const std::string& field, int value, int minimum, int maximum,
                  Checker& check) {
  CheckAtLeast(field, value, minimum, check);
  if (value > maximum) {
    check.Error(field, "must be at most " + std::to_string(maximum) + ", got " +
                           std::to_string(value));
  }
}

}  // namespace

absl::Status FieldErrorsToStatus(const std::vector<FieldError>& errors) {
  if (errors.empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  lines.reserve(errors.size());
  for (const FieldError& error : errors) lines.push_back(error.ToString());
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

std::vector<FieldError> ValidateTrainerCommandLine(const JobSpec& job,
                                                   std::string_view prefix) {
  std::vector<FieldError> errors;
  size_t count = 0, bytes = 0;
  for (auto [name, list] :
       {std::pair{"command", &job.command}, std::pair{"args", &job.args}}) {
    const std::string field = JoinPath(prefix, name);
    for (size_t i = 0; i < list->size(); ++i) {
      const size_t size = (*list)[i].size();
      if (size > kMaxArgumentBytes) {
        errors.push_back({IndexPath(field, i),
                          "must be shorter than 128 KiB (exec's limit on one "
                          "argument), got " +
                              std::to_string(size) + " bytes"});
      }
      ++count;
      bytes += size + 1 + sizeof(char*);
    }
  }
  const std::string args = JoinPath(prefix, "args");
  if (count > kMaxArguments) {
    errors.push_back({args, "the trainer's command line must have at most " +
                                std::to_string(kMaxArguments) +
                                " arguments, got " + std::to_string(count)});
  } else if (bytes > kMaxCommandLineBytes) {
    errors.push_back(
        {args, "the trainer's command line must be at most 1 MiB, got " +
                   std::to_string(bytes) +
                   " bytes (exec refuses a command line near 2 MiB)"});
  }
  return errors;
}

std::vector<FieldError> ValidateJobId(std::string_view job_id,
                                      std::string_view field) {
  std::vector<FieldError> errors;
  const std::string name(field);
  if (job_id.empty()) {
    errors.push_back({name, "must not be empty"});
  } else if (job_id.size() > kMaxJobIdLength) {
    errors.push_back(
        {name, "must be at most " + std::to_string(kMaxJobIdLength) +
                   " characters, got " + std::to_string(job_id.size()) + ": " +
                   Quote(job_id)});
  } else if (!IsAsciiLetter(job_id[0])) {
    errors.push_back({name, "must start with a letter, got " + Quote(job_id)});
  } else {
    for (char c : job_id) {
      if (!IsAsciiLetter(c) && !IsAsciiDigit(c) && c != '_') {
        errors.push_back(
            {name, "must contain only letters, digits and underscores, got " +
                       Quote(job_id)});
        break;
      }
    }
  }
  return errors;
}

std::vector<FieldError> ValidateStudySpec(const StudySpec& spec,
                                          std::string_view prefix) {
  std::vector<FieldError> errors;
  Checker check(&errors);
  const auto field = [prefix](std::string_view name) {
    return JoinPath(prefix, name);
  };

  if (spec.metrics.empty()) {
    CheckMetricName(field("hyperparameterMetricTag"), spec.metric_tag, check);
  } else {
    CheckMetrics(prefix, spec, check);
  }
  CheckBetween(field("maxTrials"), spec.max_trials, 1, kMaxTrials, check);
  CheckBetween(field("maxParallelTrials"), spec.max_parallel_trials, 1,
               kMaxParallelTrials, check);
  CheckBetween(field("maxFailedTrials"), spec.max_failed_trials, 0, kMaxTrials,
               check);
  CheckStoppingRule(field("earlyStoppingRule"), spec, check);
  CheckConvexStopping(field("convexStopping"), spec, check);
  if (spec.trial_lease_seconds) {
    CheckBetween(field("trialLeaseSeconds"), *spec.trial_lease_seconds, 0,
                 kMaxTrialLeaseSeconds, check);
  }
  if (spec.seeding_trials) {
    CheckBetween(field("seedingTrials"), *spec.seeding_trials, 1,
                 kMaxSeedingTrials, check);
    if (spec.algorithm != Algorithm::kUnspecified) {
      check.Error(field("seedingTrials"),
                  "only the GP (algorithm ALGORITHM_UNSPECIFIED) starts with "
                  "seeding trials, got algorithm " +
                      std::string(ToString(spec.algorithm)));
    }
  }
  if (!spec.resume_previous_job_id.empty()) {
    for (FieldError& error : ValidateJobId(spec.resume_previous_job_id,
                                           field("resumePreviousJobId"))) {
      errors.push_back(std::move(error));
    }
  }

  const std::vector<ParameterSpec>& params = spec.search_space.parameters();
  const std::string params_field = field("params");
  if (params.empty()) {
    check.Error(params_field, "must not be empty");
  } else if (params.size() > kMaxParameters) {
    check.Error(params_field,
                "must have at most " + std::to_string(kMaxParameters) +
                    " parameters (conditional ones included), got " +
                    std::to_string(params.size()));
  }
  // Names are unique across the whole tree: a trainer gets one flag each.
  std::map<std::string_view, size_t> first_index;
  const SearchSpace& space = spec.search_space;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string path = space.ConfigPath(static_cast<int>(i), "params");
    const std::string full_path = JoinPath(prefix, path);
    CheckParameter(full_path, params[i], spec.algorithm, check);
    if (params[i].condition) {
      CheckCondition(space, static_cast<int>(i), full_path, check);
    }
    if (params[i].name.empty()) continue;
    auto [it, inserted] = first_index.emplace(params[i].name, i);
    if (!inserted) {
      check.Error(
          JoinPath(full_path, "parameterName"),
          "duplicate parameter name " + Quote(params[i].name) + " (also " +
              space.ConfigPath(static_cast<int>(it->second), "params") + ")");
    }
  }
  return errors;
}

}  // namespace hptune
