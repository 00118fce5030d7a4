#include "src/algorithms/importance/observations.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/status/statusor.h"
#include "src/algorithms/importance/grid_density.h"

namespace hptune::algorithms {
namespace {

// Appends the grid points of `trial`'s values to seen.points; false (and
// nothing appended) when they do not fit the space: a parameter outside it,
// missing an active one, or with one its values leave inactive.
bool AppendPoints(const SearchSpace& space, const Trial& trial,
                  const std::vector<ParameterGrid>& grids, Observations& seen) {
  const auto& parameters = space.parameters();
  const size_t row = seen.points.size();
  const std::vector<bool> active = space.ActiveMask(trial.parameters);
  for (size_t d = 0; d < parameters.size(); ++d) {
    auto value = trial.parameters.find(parameters[d].name);
    bool feasible;
    if (!active[d]) {
      // An inactive parameter has no value; one that has is not ours.
      feasible = value == trial.parameters.end();
      seen.points.push_back(Observations::kInactive);
    } else {
      absl::StatusOr<int> point = value == trial.parameters.end()
                                      ? absl::InvalidArgumentError("missing")
                                      : grids[d].PointOf(value->second);
      feasible = point.ok();
      if (feasible) seen.points.push_back(*point);
    }
    if (!feasible) {
      seen.points.resize(row);
      return false;
    }
  }
  return true;
}

// The share of parameter d before normalising: D_d over the rows where d
// is active, times (n_d / n) (gamma'_d / gamma')^2 (1 for a parameter
// active in every row). `active_trials` gets n_d.
double PedAnovaShare(const Observations& seen, std::span<const size_t> rows,
                     size_t d, const ParameterGrid& grid,
                     const std::vector<bool>& top, double prior_weight,
                     int64_t& active_trials) {
  std::vector<double> all_counts(grid.size(), 0.0);
  std::vector<double> top_counts(grid.size(), 0.0);
  double n = 0, n_top = 0, n_d = 0, n_d_top = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    n += 1;
    n_top += top[r];
    const int point = seen.point(rows[r], d);
    if (point == Observations::kInactive) continue;
    n_d += 1;
    n_d_top += top[r];
    all_counts[point] += 1;
    if (top[r]) top_counts[point] += 1;
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

Observations Observe(const StudySpec& spec, const std::vector<Trial>& trials,
                     const std::vector<ParameterGrid>& grids) {
  Observations seen;
  seen.parameters = spec.search_space.parameters().size();
  seen.points.reserve(trials.size() * seen.parameters);
  seen.losses.reserve(trials.size());
  for (const Trial& trial : trials) {
    if (trial.state != TrialState::kSucceeded) continue;
    const std::optional<double> objective =
        trial.FinalObjective(spec.metric_tag);
    if (!objective || !std::isfinite(*objective)) continue;
    // The store checks assignments, so a misfit is a trial from elsewhere.
    if (!AppendPoints(spec.search_space, trial, grids, seen)) continue;
    seen.losses.push_back(spec.goal == Goal::kMinimize ? *objective
                                                       : -*objective);
  }
  return seen;
}

std::vector<bool> TopTrials(std::span<const double> losses, double quantile,
                            int min_top) {
  const auto n = static_cast<int64_t>(losses.size());
  const int64_t floor = std::min<int64_t>(min_top, (n + 1) / 2);
  int64_t cutoff = static_cast<int64_t>(std::ceil(quantile * n)) - 1;
  cutoff = std::min<int64_t>(std::max<int64_t>(cutoff, floor - 1), n - 1);
  std::vector<double> sorted(losses.begin(), losses.end());
  std::nth_element(sorted.begin(), sorted.begin() + cutoff, sorted.end());
  const double threshold = sorted[cutoff];
  std::vector<bool> top(losses.size());
  for (size_t i = 0; i < losses.size(); ++i) top[i] = losses[i] <= threshold;
  return top;
}

std::vector<double> NormalisedShares(const Observations& seen,
                                     std::span<const size_t> rows,
                                     const std::vector<bool>& top,
                                     const std::vector<ParameterGrid>& grids,
                                     double prior_weight,
                                     std::vector<int64_t>* active_trials) {
  std::vector<double> shares(seen.parameters, 0.0);
  double total = 0;
  for (size_t d = 0; d < seen.parameters; ++d) {
    int64_t active = 0;
    const double share =
        PedAnovaShare(seen, rows, d, grids[d], top, prior_weight, active);
    if (active_trials != nullptr) (*active_trials)[d] = active;
    // A parameter with one value cannot matter.
    if (grids[d].size() < 2) continue;
    shares[d] = share;
    total += share;
  }
  for (double& share : shares) share = total > 0 ? share / total : 0;
  return shares;
}

}  // namespace hptune::algorithms
