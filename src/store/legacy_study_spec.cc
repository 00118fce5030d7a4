#include "src/store/legacy_study_spec.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "nlohmann/json.hpp"

namespace hptune::store::internal {
namespace {

using Json = nlohmann::json;

// Thrown inside this file only, for an unknown enum name.
struct LegacyError {
  std::string message;
};

template <typename Enum>
Enum ParseEnum(const Json& json, std::optional<Enum> (*parse)(std::string_view),
               const std::string& field) {
  const std::string text = json.get<std::string>();
  std::optional<Enum> value = parse(text);
  if (!value) throw LegacyError{absl::StrCat(field, ": unknown value ", text)};
  return *value;
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

StudySpec SpecFromJson(const Json& j) {
  StudySpec spec;
  std::vector<ParameterSpec> params;
  for (const Json& p : j.at("params")) {
    params.push_back(ParameterSpecFromJson(p));
  }
  spec.search_space = SearchSpace(std::move(params));
  const Goal goal = ParseEnum(j.at("goal"), &ParseGoal, "goal");
  spec.SetSingleMetric(j.at("hyperparameterMetricTag").get<std::string>(),
                       goal);
  spec.max_trials = j.at("maxTrials").get<int>();
  spec.max_parallel_trials = j.at("maxParallelTrials").get<int>();
  spec.max_failed_trials = j.at("maxFailedTrials").get<int>();
  spec.enable_early_stopping = j.at("enableTrialEarlyStopping").get<bool>();
  spec.resume_previous_job_id = j.at("resumePreviousJobId").get<std::string>();
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
}

// The trials study `name` took over from the job it resumed: its stored
// maxTrials less the one its job's own trainingInput keeps (the user's);
// 0 for a study of no job.
absl::StatusOr<int> ResumedTrials(SqliteConnection& db, const std::string& name,
                                  int stored_max_trials) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT training_input_json FROM jobs WHERE study_name = ?1"));
  select.BindText(1, name);
  HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return 0;
  const Json input = Json::parse(select.ColumnText(0), nullptr, false);
  const Json::json_pointer max_trials(
      "/trainingInput/hyperparameters/maxTrials");
  if (input.is_discarded() || !input.contains(max_trials) ||
      !input[max_trials].is_number_integer()) {
    return absl::DataLossError(
        absl::StrCat("study \"", name,
                     "\": its job's stored trainingInput has no maxTrials"));
  }
  return std::max(0, stored_max_trials - input[max_trials].get<int>());
}

struct StoredSpec {
  int64_t id;
  std::string name;
  std::string json;
};

absl::StatusOr<std::vector<StoredSpec>> ReadStoredSpecs(SqliteConnection& db) {
  HPTUNE_ASSIGN_OR_RETURN(
      Statement select, db.Prepare("SELECT id, name, spec_json FROM studies"));
  std::vector<StoredSpec> specs;
  while (true) {
    HPTUNE_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return specs;
    specs.push_back({.id = select.ColumnInt(0),
                     .name = select.ColumnText(1),
                     .json = select.ColumnText(2)});
  }
}

}  // namespace

absl::Status ConvertLegacyStudySpecs(SqliteConnection& db) {
  // Read whole first: a statement stepping over the table must not meet
  // its own updates.
  HPTUNE_ASSIGN_OR_RETURN(std::vector<StoredSpec> specs, ReadStoredSpecs(db));
  for (const StoredSpec& stored : specs) {
    absl::StatusOr<StudySpec> spec = DecodeLegacyStudySpec(stored.json);
    if (!spec.ok()) {
      return absl::DataLossError(absl::StrCat("study \"", stored.name,
                                              "\": ", spec.status().message()));
    }
    int resumed = 0;
    if (!spec->resume_previous_job_id.empty()) {
      HPTUNE_ASSIGN_OR_RETURN(resumed,
                              ResumedTrials(db, stored.name, spec->max_trials));
    }
    spec->max_trials -= resumed;
    HPTUNE_ASSIGN_OR_RETURN(
        Statement update,
        db.Prepare("UPDATE studies SET spec_json = ?2, custom_algorithm = ?3,"
                   " resumed_trials = ?4 WHERE id = ?1"));
    update.BindInt(1, stored.id)
        .BindText(2, StudySpecToJson(*spec))
        .BindText(3, spec->custom_algorithm)
        .BindInt(4, resumed);
    HPTUNE_RETURN_IF_ERROR(update.Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<StudySpec> DecodeLegacyStudySpec(std::string_view json) {
  try {
    return SpecFromJson(Json::parse(json));
  } catch (const LegacyError& e) {
    return absl::DataLossError(
        absl::StrCat("cannot read stored study spec: ", e.message));
  } catch (const Json::exception& e) {
    return absl::DataLossError(
        absl::StrCat("cannot read stored study spec: ", e.what()));
  }
}

}  // namespace hptune::store::internal
