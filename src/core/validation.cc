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
#include "src/core/parameter_checks.h"

namespace hptune {
namespace {

using config_internal::FormatNumber;
using config_internal::IndexPath;
using config_internal::JoinPath;
using config_internal::Quote;
using validation_internal::Checker;
using validation_internal::IsAsciiDigit;
using validation_internal::IsAsciiLetter;

constexpr size_t kMaxJobIdLength = 128;
constexpr size_t kMaxParameters = 100;
// A metric's name becomes a column.
constexpr size_t kMaxMetricTagLength = 256;
// exec(2)'s limits (see ValidateTrainerCommandLine).
constexpr size_t kMaxArgumentBytes = 128 * 1024 - 1;
constexpr size_t kMaxArguments = 10'000;
constexpr size_t kMaxCommandLineBytes = 1 << 20;

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

// A rule's settings block: only beside its rule, with early stopping on.
// What the settings say is the rule's factory's to check
// (StoppingRuleRegistry): core knows no rule.
void CheckStoppingSettings(std::string_view prefix, const StudySpec& spec,
                           Checker& check) {
  const StoppingSettings& settings = spec.stopping_settings;
  if (settings.empty()) return;
  const std::string& rule = spec.EffectiveStoppingRule();
  if (spec.enable_early_stopping &&
      (settings.rule.empty() || settings.rule == rule)) {
    return;
  }
  check.Error(JoinPath(prefix, settings.Field()),
              "settings of the " +
                  (settings.rule.empty() ? rule : settings.rule) +
                  " rule, but the study's rule is " + Quote(rule) +
                  (spec.enable_early_stopping
                       ? std::string()
                       : std::string(" and early stopping is off")));
}

// Vertex AI's `metrics` list (study.h's MetricSpec).
void CheckMetrics(std::string_view prefix, const StudySpec& spec,
                  Checker& check) {
  const std::string field = JoinPath(prefix, "metrics");
  const std::vector<MetricSpec>& metrics = spec.AllMetrics();
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

namespace {

// Each parameter, its condition, unique names, and the list's order.
void CheckParams(std::string_view prefix, const StudySpec& spec,
                 Checker& check) {
  const std::vector<ParameterSpec>& params = spec.search_space.parameters();
  const std::string params_field = JoinPath(prefix, "params");
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
  bool tree_ok = true;  // Parents first, names unique: the order is defined.
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string path = space.ConfigPath(static_cast<int>(i), "params");
    const std::string full_path = JoinPath(prefix, path);
    validation_internal::CheckParameter(full_path, params[i], spec.algorithm,
                                        check);
    if (params[i].condition) {
      validation_internal::CheckCondition(space, static_cast<int>(i), full_path,
                                          check);
      const int parent = space.ParentIndex(static_cast<int>(i));
      if (parent < 0 || parent >= static_cast<int>(i)) tree_ok = false;
    }
    if (params[i].name.empty()) {
      tree_ok = false;
      continue;
    }
    auto [it, inserted] = first_index.emplace(params[i].name, i);
    if (!inserted) {
      tree_ok = false;
      check.Error(
          JoinPath(full_path, "parameterName"),
          "duplicate parameter name " + Quote(params[i].name) + " (also " +
              space.ConfigPath(static_cast<int>(it->second), "params") + ")");
    }
  }
  if (tree_ok) validation_internal::CheckTreeOrder(space, prefix, check);
}

}  // namespace

std::vector<FieldError> ValidateJoiningParameter(const StudySpec& study,
                                                 const ParameterSpec& p,
                                                 std::string_view path) {
  std::vector<FieldError> errors;
  Checker check(&errors);
  const std::string field(path);
  validation_internal::CheckParameter(field, p, study.algorithm, check);
  if (p.condition) {
    check.Error(JoinPath(field, "conditionalParameterSpecs"),
                "a parameter that joins a study is a root parameter, got a "
                "condition on " +
                    Quote(p.condition->parent));
  }
  if (study.search_space.parameters().size() >= kMaxParameters) {
    check.Error(field, "the study has " + std::to_string(kMaxParameters) +
                           " parameters, the most a study may have; " +
                           Quote(p.name) + " cannot join it");
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

  if (!spec.metrics_listed()) {
    CheckMetricName(field("hyperparameterMetricTag"), spec.metric_tag(), check);
  } else {
    CheckMetrics(prefix, spec, check);
  }
  CheckBetween(field("maxTrials"), spec.max_trials, 1, kMaxTrials, check);
  CheckBetween(field("maxParallelTrials"), spec.max_parallel_trials, 1,
               kMaxParallelTrials, check);
  CheckBetween(field("maxFailedTrials"), spec.max_failed_trials, 0, kMaxTrials,
               check);
  CheckStoppingRule(field("earlyStoppingRule"), spec, check);
  CheckStoppingSettings(prefix, spec, check);
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

  CheckParams(prefix, spec, check);
  return errors;
}

}  // namespace hptune
