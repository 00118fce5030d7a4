#include "src/algorithms/importance/ped_anova.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "src/algorithms/encoding/unit_cube.h"
#include "src/algorithms/importance/grid_density.h"
#include "src/algorithms/importance/parameter_grid.h"

namespace hptune::algorithms {
namespace {

// Beyond this a grid costs more to convolve (G^2) than it can resolve.
constexpr int kMaxGridPoints = 10'000;

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
  if (options.min_top_trials < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ImportanceOptions.min_top_trials: must be >= 1, got ",
                     options.min_top_trials));
  }
  return absl::OkStatus();
}

// The usable trials, as grid points and losses (lower is better).
struct Observations {
  size_t parameters = 0;
  // Trial i's point of parameter d at i * P + d; kInactive where d is a
  // conditional parameter that the trial's values leave inactive.
  std::vector<int> points;
  std::vector<double> losses;

  static constexpr int kInactive = -1;
  size_t size() const { return losses.size(); }
};

Observations Observe(const StudySpec& spec, const std::vector<Trial>& trials,
                     const std::vector<ParameterGrid>& grids) {
  const SearchSpace& space = spec.search_space;
  const auto& parameters = space.parameters();
  Observations seen;
  seen.parameters = parameters.size();
  seen.points.reserve(trials.size() * parameters.size());
  seen.losses.reserve(trials.size());
  for (const Trial& trial : trials) {
    if (trial.state != TrialState::kSucceeded) continue;
    const std::optional<double> objective =
        trial.FinalObjective(spec.metric_tag);
    if (!objective || !std::isfinite(*objective)) continue;
    const size_t row = seen.points.size();
    const std::vector<bool> active = space.ActiveMask(trial.parameters);
    bool feasible = true;
    for (size_t d = 0; d < parameters.size() && feasible; ++d) {
      auto value = trial.parameters.find(parameters[d].name);
      if (!active[d]) {
        // An inactive parameter has no value; one that has is not ours.
        feasible = value == trial.parameters.end();
        seen.points.push_back(Observations::kInactive);
        continue;
      }
      absl::StatusOr<int> point = value == trial.parameters.end()
                                      ? absl::InvalidArgumentError("missing")
                                      : grids[d].PointOf(value->second);
      feasible = point.ok();
      if (feasible) seen.points.push_back(*point);
    }
    // The store checks assignments, so this is a trial from elsewhere.
    if (!feasible) {
      seen.points.resize(row);
      continue;
    }
    seen.losses.push_back(spec.goal == Goal::kMinimize ? *objective
                                                       : -*objective);
  }
  return seen;
}

// Whether each trial is in the top set: loss at most the ceil(q n)-th
// smallest (at least the min_top-th), so ties at the cut-off all count.
std::vector<bool> TopTrials(std::span<const double> losses, double quantile,
                            int min_top) {
  const auto n = static_cast<int64_t>(losses.size());
  int64_t cutoff = static_cast<int64_t>(std::ceil(quantile * n)) - 1;
  cutoff = std::min<int64_t>(std::max<int64_t>(cutoff, min_top - 1), n - 1);
  std::vector<double> sorted(losses.begin(), losses.end());
  std::nth_element(sorted.begin(), sorted.begin() + cutoff, sorted.end());
  const double threshold = sorted[cutoff];
  std::vector<bool> top(losses.size());
  for (size_t i = 0; i < losses.size(); ++i) top[i] = losses[i] <= threshold;
  return top;
}

// The share of parameter d in ped_anova.h before normalising: D_d over the
// trials where d is active, times (n_d / n) (gamma'_d / gamma')^2 (1 for a
// parameter active in every trial). `active_trials` gets n_d.
double Share(const Observations& seen, size_t d, const ParameterGrid& grid,
             const std::vector<bool>& top, double prior_weight,
             int64_t& active_trials) {
  std::vector<double> all_counts(grid.size(), 0.0);
  std::vector<double> top_counts(grid.size(), 0.0);
  double n = 0, n_top = 0, n_d = 0, n_d_top = 0;
  for (size_t i = 0; i < seen.size(); ++i) {
    n += 1;
    n_top += top[i];
    const int point = seen.points[i * seen.parameters + d];
    if (point == Observations::kInactive) continue;
    n_d += 1;
    n_d_top += top[i];
    all_counts[point] += 1;
    if (top[i]) top_counts[point] += 1;
  }
  active_trials = static_cast<int64_t>(n_d);
  // Under 2 trials (or no top one) where d is active, nothing is known of it.
  if (n_d < 2 || n_d_top == 0) return 0;
  const auto density =
      grid.ordered() ? OrderedParzenDensity : CategoricalParzenDensity;
  const double divergence = PearsonDivergence(
      density(top_counts, prior_weight), density(all_counts, prior_weight));
  if (n_d == n) return divergence;
  const double local_gamma = n_d_top / n_d, gamma = n_top / n;
  return (n_d / n) * (local_gamma / gamma) * (local_gamma / gamma) * divergence;
}

}  // namespace

absl::StatusOr<ImportanceReport> PedAnovaImportanceReport(
    const StudySpec& spec, const std::vector<Trial>& trials,
    const ImportanceOptions& options) {
  HPTUNE_RETURN_IF_ERROR(ValidateOptions(options));
  HPTUNE_RETURN_IF_ERROR(ValidateForEncoding(spec.search_space));
  const auto& parameters = spec.search_space.parameters();
  ImportanceReport report;
  std::vector<ParameterImportance>& result = report.importances;
  std::vector<ParameterGrid> grids;
  for (const ParameterSpec& parameter : parameters) {
    result.push_back({.parameter = parameter.name, .importance = 0});
    grids.emplace_back(parameter, options.grid_points);
  }

  const Observations seen = Observe(spec, trials, grids);
  report.trials = static_cast<int64_t>(seen.size());
  if (seen.size() < 2) {
    for (size_t i = 0; i < seen.size(); ++i) {
      for (size_t d = 0; d < parameters.size(); ++d) {
        result[d].active_trials +=
            seen.points[i * seen.parameters + d] != Observations::kInactive;
      }
    }
    return report;
  }
  const std::vector<bool> top =
      TopTrials(seen.losses, options.top_quantile, options.min_top_trials);
  report.top_trials = std::count(top.begin(), top.end(), true);

  double total = 0;
  for (size_t d = 0; d < parameters.size(); ++d) {
    const double share = Share(seen, d, grids[d], top, options.prior_weight,
                               result[d].active_trials);
    // A parameter with one value cannot matter.
    if (grids[d].size() < 2) continue;
    result[d].importance = share;
    total += result[d].importance;
  }
  for (ParameterImportance& entry : result) {
    entry.importance = total > 0 ? entry.importance / total : 0;
  }
  std::stable_sort(
      result.begin(), result.end(),
      [](const ParameterImportance& a, const ParameterImportance& b) {
        return a.importance > b.importance;
      });
  return report;
}

absl::StatusOr<std::vector<ParameterImportance>> PedAnovaImportance(
    const StudySpec& spec, const std::vector<Trial>& trials,
    const ImportanceOptions& options) {
  HPTUNE_ASSIGN_OR_RETURN(ImportanceReport report,
                          PedAnovaImportanceReport(spec, trials, options));
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
