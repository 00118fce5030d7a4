#include "src/dashboard/trials_csv.h"

#include <cmath>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/time.h"
#include "nlohmann/json.hpp"
#include "src/core/csv.h"
#include "src/dashboard/study_json.h"

namespace hptune::dashboard {
namespace {

using Json = nlohmann::json;

std::string NumberCell(std::optional<double> x) {
  return x && std::isfinite(*x) ? Json(*x).dump() : "";
}

std::string ParameterCell(const Trial& trial, const std::string& name) {
  auto it = trial.parameters.find(name);
  if (it == trial.parameters.end()) return "";
  if (it->second.is_string()) return it->second.AsString();
  if (it->second.is_integer()) return std::to_string(it->second.AsInteger());
  return NumberCell(it->second.AsDouble());
}

// The metric columns: `objective` alone, or the spec's listed metrics, then
// the extra ones.
std::vector<std::string> MetricNames(const StudySpec& spec,
                                     const std::vector<std::string>& extra) {
  std::vector<std::string> names;
  if (spec.metrics_listed()) {
    for (const MetricSpec& m : spec.AllMetrics()) names.push_back(m.id);
  } else {
    names.push_back(spec.metric_tag());
  }
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

}  // namespace

std::string TrialsCsv(const std::vector<const Trial*>& trials,
                      const StudySpec& spec,
                      const std::vector<std::string>& extra,
                      const std::set<int64_t>& optimal) {
  std::set<std::string> taken = {"trialId",   "state",   "objective",
                                 "feasible",  "optimal", "stoppedEarly",
                                 "startTime", "endTime"};
  const bool listed = spec.metrics_listed();
  const bool feasible = HasConstraints(spec);
  const bool several = spec.Objectives().size() > 1;
  const std::vector<std::string> metrics = MetricNames(spec, extra);
  std::string csv = "trialId,state";
  for (const ParameterSpec& p : spec.search_space.parameters()) {
    const std::string name =
        taken.contains(p.name) ? "hyperparameters." + p.name : p.name;
    absl::StrAppend(&csv, ",", CsvCell(name));
  }
  for (const ParameterSpec& p : spec.search_space.parameters()) {
    taken.insert(p.name);
  }
  for (size_t i = 0; i < metrics.size(); ++i) {
    const bool objective = i == 0 && !listed;
    const std::string& m = metrics[i];
    const std::string name = objective           ? "objective"
                             : taken.contains(m) ? "metrics." + m
                                                 : m;
    absl::StrAppend(&csv, ",", CsvCell(name));
  }
  if (feasible) absl::StrAppend(&csv, ",feasible");
  if (several) absl::StrAppend(&csv, ",optimal");
  absl::StrAppend(&csv, ",stoppedEarly,startTime,endTime\r\n");
  for (const Trial* trial : trials) {
    absl::StrAppend(&csv, trial->number, ",",
                    std::string(ToString(trial->state)));
    for (const ParameterSpec& p : spec.search_space.parameters()) {
      absl::StrAppend(&csv, ",", CsvCell(ParameterCell(*trial, p.name)));
    }
    for (const std::string& m : metrics) {
      absl::StrAppend(&csv, ",", NumberCell(trial->FinalObjective(m)));
    }
    const bool judged = FinalMetricValues(spec, *trial).has_value();
    if (feasible) {
      absl::StrAppend(
          &csv, ",",
          judged ? (IsFeasibleResult(spec, *trial) ? "true" : "false") : "");
    }
    if (several) {
      absl::StrAppend(&csv, ",",
                      optimal.contains(trial->number) ? "true" : "false");
    }
    absl::StrAppend(&csv, ",", trial->stopped_early ? "true" : "false", ",",
                    trial->start_time ? FormatRfc3339(*trial->start_time) : "",
                    ",", trial->end_time ? FormatRfc3339(*trial->end_time) : "",
                    "\r\n");
  }
  return csv;
}

std::string ExportFileName(std::string_view study, std::string_view extension) {
  std::string name(study);
  for (char& c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return absl::StrCat(name, "-trials.", std::string(extension));
}

}  // namespace hptune::dashboard
