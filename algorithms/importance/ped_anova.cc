#include "algorithms/importance/ped_anova.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "algorithms/encoding/unit_cube.h"
#include "algorithms/importance/bootstrap.h"
#include "algorithms/importance/observations.h"
#include "algorithms/importance/parameter_grid.h"

namespace hptune::algorithms {
namespace {

// Beyond this a grid costs more to convolve (G^2) than it can resolve.
constexpr int kMaxGridPoints = 10'000;
// A floor on the top set beyond any study's size is a mistake.
constexpr int kMaxTopFloor = 1'000'000;

absl::Status ValidateOptions(const ImportanceOptions& options) {
  if (!(options.top_quantile > 0 && options.top_quantile <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImportanceOptions.top_quantile: must be in (0, 1], got ",
                     options.top_quantile));
  }
  if (options.grid_points < 2 || options.grid_points > kMaxGridPoints) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImportanceOptions.grid_points: must be in [2, ",
                     kMaxGridPoints, "], got ", options.grid_points));
  }
  if (!(options.prior_weight >= 0 && std::isfinite(options.prior_weight))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ImportanceOptions.prior_weight: must be finite and >= 0, got ",
        options.prior_weight));
  }
  if (options.min_top_trials < 1 || options.min_top_trials > kMaxTopFloor) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImportanceOptions.min_top_trials: must be in [1, ",
                     kMaxTopFloor, "], got ", options.min_top_trials));
  }
  if (options.bootstrap_resamples < 0 ||
      options.bootstrap_resamples > kMaxBootstrapResamples) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ImportanceOptions.bootstrap_resamples: must be in [0, ",
        kMaxBootstrapResamples, "], got ", options.bootstrap_resamples));
  }
  return absl::OkStatus();
}

// "" when `trials` are enough to rank the parameters; else a sentence that
// says how many there are and how many are needed.
std::string TooFewNote(int64_t trials, int64_t needed) {
  if (trials >= needed) return "";
  return absl::StrCat(
      "Too few trials to rank the parameters: ", trials,
      " finished trial(s) with a value, at least ", needed,
      " needed. Until then the importances and their intervals are mostly "
      "noise.");
}

// The importances and intervals of `seen` (at least 2 observations) into
// report.importances, in the spec's order.
void Estimate(const Observations& seen, const std::vector<ParameterGrid>& grids,
              const ImportanceOptions& options, ImportanceReport& report) {
  const std::vector<double> every_trial(seen.size(), 1.0);
  const std::vector<bool> top = TopTrials(
      seen, every_trial, options.top_quantile, options.min_top_trials);
  report.top_trials = std::count(top.begin(), top.end(), true);
  std::vector<int64_t> active(seen.parameters, 0);
  const std::vector<double> estimates = NormalisedShares(
      seen, every_trial, top, grids, options.prior_weight, &active);
  const auto intervals = BootstrapIntervals(seen, grids, estimates, options);
  report.bootstrap_resamples = ResampleCount(seen.size(), options);
  for (size_t d = 0; d < seen.parameters; ++d) {
    ParameterImportance& entry = report.importances[d];
    entry.importance = estimates[d];
    entry.active_trials = active[d];
    entry.lower = intervals[d].first;
    entry.upper = intervals[d].second;
  }
}

}  // namespace

absl::StatusOr<ImportanceReport> PedAnovaImportanceReport(
    const Problem& problem, const std::vector<Trial>& trials,
    const ImportanceOptions& options) {
  HPTUNE_RETURN_IF_ERROR(ValidateOptions(options));
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(problem.search_space));
  const auto& parameters = problem.search_space.parameters();
  ImportanceReport report;
  std::vector<ParameterImportance>& result = report.importances;
  std::vector<ParameterGrid> grids;
  for (const ParameterSpec& parameter : parameters) {
    result.push_back({.parameter = parameter.name, .importance = 0});
    grids.emplace_back(parameter, options.grid_points);
  }

  const Observations seen = Observe(problem, trials, grids);
  report.trials = static_cast<int64_t>(seen.size());
  report.trials_needed = 2 * static_cast<int64_t>(options.min_top_trials);
  report.note = TooFewNote(report.trials, report.trials_needed);
  if (seen.size() < 2) {
    for (size_t i = 0; i < seen.size(); ++i) {
      for (size_t d = 0; d < parameters.size(); ++d) {
        result[d].active_trials += seen.point(i, d) != Observations::kInactive;
      }
    }
  } else {
    Estimate(seen, grids, options, report);
  }
  std::stable_sort(
      result.begin(), result.end(),
      [](const ParameterImportance& a, const ParameterImportance& b) {
        return a.importance > b.importance;
      });
  return report;
}

absl::StatusOr<std::vector<ParameterImportance>> PedAnovaImportance(
    const Problem& problem, const std::vector<Trial>& trials,
    const ImportanceOptions& options) {
  HPTUNE_ASSIGN_OR_RETURN(ImportanceReport report,
                          PedAnovaImportanceReport(problem, trials, options));
  return std::move(report.importances);
}

absl::StatusOr<ImportanceReport> StudyImportance(
    const StudyRecord& study, const std::vector<Trial>& trials,
    const ImportanceOptions& options) {
  absl::StatusOr<ImportanceReport> report =
      PedAnovaImportanceReport(study.spec, trials, options);
  if (report.ok()) return report;
  return absl::Status(
      absl::IsInvalidArgument(report.status()) ? absl::StatusCode::kInternal
                                               : report.status().code(),
      absl::StrCat("study \"", study.name,
                   "\": parameter importance: ", report.status().message()));
}

}  // namespace hptune::algorithms
